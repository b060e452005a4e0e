// overlapWaits finds overlapping roles through maps of path prefixes instead of comparing every pair of entries:
// its answer must be exactly the pairwise rule's (entriesOverlap on every pair of canonical entries, minus pairs a
// dependency orders), on random plans full of the rule's edge cases.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ancestors, overlapWaits, scopeEntry, territoriesOverlap, type Deps } from "../../src/lib/plan/graph.ts";

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function pairwise(territories: string[][], deps: Deps): number[][] {
  const anc = deps.map((_, i) => ancestors(deps, i));
  return territories.map((_, i) => {
    const out: number[] = [];
    for (let j = i + 1; j < territories.length; j++) {
      if (anc[i].has(j) || anc[j].has(i)) continue;
      if (territoriesOverlap(territories[i], territories[j])) out.push(j);
    }
    return out;
  });
}

const PARTS = ["", "/", "src", "src/", "src//", "a", "b", "api", "ap", "**", "*", "*.ts", "**/*.ts", "x*y", ".", "..", "?", "a?", "{a,b}", "A"];

describe("overlapWaits", () => {
  it("equals the pairwise rule on 300 random plans of up to 25 roles", () => {
    const r = rng(9);
    const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
    let overlapping = 0;
    for (let k = 0; k < 300; k++) {
      const n = 1 + Math.floor(r() * 25);
      const territories = Array.from({ length: n }, () =>
        Array.from({ length: Math.floor(r() * 4) }, () =>
          scopeEntry(Array.from({ length: 1 + Math.floor(r() * 4) }, () => pick(PARTS)).join(r() < 0.8 ? "/" : ""), r() < 0.5, "/p"),
        ),
      );
      const deps: Deps = Array.from({ length: n }, (_, i) => (i && r() < 0.4 ? [Math.floor(r() * n)] : []));
      const want = pairwise(territories, deps);
      overlapping += want.reduce((s, w) => s + w.length, 0);
      assert.deepEqual(overlapWaits(territories, deps), want, JSON.stringify({ territories, deps }));
    }
    assert.ok(overlapping > 1000, `overlapping pairs ${overlapping}`);
  });
});
