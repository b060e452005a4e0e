// memory-search scores lines in memory-add's layout from their regex captures (searchScoreOfCaptures) instead of
// building each entry: the score must be exactly searchScore of the parsed entry, escapes and odd values included.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { matchMemoryLine } from "../../src/commands/memory/fast-line.ts";
import { searchQuery, searchScore, searchScoreOfCaptures } from "../../src/commands/memory/scoring.ts";

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const PIECES = ["api", "API", "retry", "queue", "queues", "the", "x", "é", "\u212a", "\"", "\\", "/", "\n", " ", "-", "2026", "retry-backoff", "k"];

describe("searchScoreOfCaptures", () => {
  it("equals searchScore of the parsed entry on 3000 random lines and several queries", () => {
    const r = rng(5);
    const pick = () => PIECES[Math.floor(r() * PIECES.length)];
    const words = (n: number) => Array.from({ length: n }, pick).join(r() < 0.5 ? " " : "");
    const queries = ["retry the queue", "api", "kelvin k api retry queue the 2026", Array.from({ length: 40 }, (_, i) => `w${i}x`).join(" ") + " api"].map((q) => searchQuery([q]));
    const nowSec = Date.UTC(2026, 5, 1) / 1000;
    let matched = 0;
    let positive = 0;
    for (let i = 0; i < 3000; i++) {
      const entry = {
        id: `m${i}`,
        timestamp: [`2026-0${1 + (i % 9)}-1${i % 10}T10:00:00Z`, "bad", "2026-02-30T00:00:00Z", "2026-01-01 10:00:00+02:00"][i % 4],
        category: "pattern",
        keywords: Array.from({ length: Math.floor(r() * 4) }, () => words(1 + Math.floor(r() * 2))),
        content: words(Math.floor(r() * 8)),
        source: "t",
        goal_context: "",
        importance: [1, 5, 10, 2.5, 1e300, -3][i % 6],
        usage_count: 0,
      };
      const line = JSON.stringify(entry);
      const m = matchMemoryLine(line);
      if (!m) continue;
      matched++;
      const parsed = JSON.parse(line);
      for (const q of queries) {
        const want = searchScore(parsed, q, nowSec);
        if (want > 0) positive++;
        assert.equal(searchScoreOfCaptures(m, q, nowSec), want, `${line} / ${[...q].join(" ")}`);
      }
    }
    assert.ok(matched > 2500 && positive > 1000, `matched ${matched}, positive ${positive}`);
  });
});
