// memory-add as real processes racing on one memory.jsonl: the lock and the copy-and-rename protocol
// (contract 1.7) must lose no append, no boost, and no byte of a line the helper cannot parse.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { cli, type CliResult } from "../helpers/cli.ts";
import { project } from "../helpers/design-dir.ts";
import { pool } from "../helpers/pool.ts";

const MEM = ".design/memory.jsonl";
const POOL = 16;

/** A shuffle with a fixed seed, so boosts and adds interleave the same way on every run. */
function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  let seed = 42;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

describe("memory-add under concurrency (process level)", () => {
  it("keeps 100 parallel appends, 20 parallel boosts and a corrupt line intact", { timeout: 120_000 }, async (t) => {
    const corrupt = '{"id": "torn", "content": "half a line';
    const seed = JSON.stringify({ id: "boosted", category: "pattern", keywords: ["seed"], content: "seed entry", importance: 1 });
    const p = project(t, { [MEM]: `${seed}\n${corrupt}\n` });

    // Distinct words per entry (alpha7 / bravo7 ...) so no two contents are near-duplicates of each other.
    const adds = Array.from({ length: 100 }, (_, i) => () =>
      cli(["memory-add", "--category", "pattern", "--keywords", `alpha${i}`, "--content", `alpha${i} bravo${i} charlie${i} delta${i}`], { cwd: p.dir }),
    );
    const boosts = Array.from({ length: 20 }, () => () => cli(["memory-add", "--boost", "--id", "boosted"], { cwd: p.dir }));
    const results: CliResult[] = await pool(shuffled([...adds, ...boosts]), POOL, (job) => job());

    for (const r of results) {
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.equal(r.json?.ok, true, r.stdout);
    }

    const text = p.read(MEM);
    const physical = text.split("\n");
    assert.equal(physical.pop(), "");
    assert.equal(physical.length, 102);
    assert.equal(physical[1], corrupt, "the corrupt line is kept byte for byte in its place");

    const entries = physical.filter((l) => l !== corrupt).map((l) => JSON.parse(l));
    const contents = new Set(entries.map((e) => e.content));
    for (let i = 0; i < 100; i++) assert.ok(contents.has(`alpha${i} bravo${i} charlie${i} delta${i}`), `entry ${i} landed`);
    assert.equal(new Set(entries.map((e) => e.id)).size, 101);

    // From 1, 20 serialised boosts reach 10 after 9 of them (an increase of min(20, 10 - 1)); each of those 9
    // saw a different value, so the answers are 2..10 once each and then 10 for the other 11.
    const boosted = entries.find((e) => e.id === "boosted");
    assert.equal(boosted.importance, 1 + Math.min(20, 10 - 1));
    const answers = results.filter((r) => r.json.action === "boosted").map((r) => r.json.importance as number).sort((a, b) => a - b);
    assert.deepEqual(answers, [2, 3, 4, 5, 6, 7, 8, 9, 10, ...Array(11).fill(10)]);

    assert.deepEqual(p.list(".design"), ["memory.jsonl"], "no temporary or lock file is left");
  });

  it("lets exactly one of several processes adding the same text land", { timeout: 60_000 }, async (t) => {
    const p = project(t, { [MEM]: "" });
    const argv = ["memory-add", "--category", "mistake", "--keywords", "temp", "--content", "Never share one temp file between writers"];
    const results = await pool(Array.from({ length: 8 }), 8, () => cli(argv, { cwd: p.dir }));
    const landed = results.filter((r) => r.json?.ok === true);
    const refused = results.filter((r) => r.json?.ok === false);
    assert.equal(landed.length, 1);
    assert.equal(refused.length, 7);
    for (const r of refused) {
      assert.equal(r.code, 1);
      assert.deepEqual([r.json.gate, r.json.duplicateOf, r.json.similarity], ["duplicate", landed[0].json.id, 1]);
    }
    assert.equal(p.read(MEM).split("\n").filter((l) => l !== "").length, 1);
  });
});
