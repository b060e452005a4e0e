// `next` and `workflow` on a large memory file read it through the ranking index (.design/.memory.jsonl.terms,
// src/commands/memory/rank-index.ts): the first call scans and writes the index, later calls read through it, and
// every answer equals the one of a call that finds no index (the full scan), also after memory-add appended, after a
// boost rewrote the file, and with a hostile index in place. A small memory file gets no index.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, lstatSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planWith, project } from "../helpers/design-dir.ts";
import { rng } from "../helpers/rng.ts";

const P = ".design/plan.json";
const MEM = ".design/memory.jsonl";
const TERMS = ".design/.memory.jsonl.terms";
const T = Date.parse("2026-06-01T00:00:00Z");
const WORDS = "api queue cache redis worker retry backoff schema migration auth router lint deploy build trace".split(" ");

/** About 400 KB of memories in memory-add's layout, with a few odd lines. */
function bigMemory(): string {
  const rnd = rng(17);
  const w = () => WORDS[Math.floor(rnd() * WORDS.length)];
  let text = "";
  for (let i = 0; i < 2200; i++) {
    const e = { id: `m-${i}`, timestamp: `2026-0${1 + (i % 5)}-1${i % 10}T00:00:00Z`, category: "pattern", keywords: [w()], content: `Prefer the ${w()} ${w()} path when ${w()} fails (${i})`, source: "t", goal_context: "", importance: 1 + (i % 9), usage_count: 0 };
    text += JSON.stringify(e) + (i % 9 === 0 ? "\r\n" : "\n");
    if (i % 301 === 7) text += "not json\n";
  }
  return text;
}

const ROLES = [
  { name: "queue", goal: "Make the queue worker retry with backoff", dirs: ["src/queue/"] },
  { name: "cache", goal: "Put a redis cache in front of the api", dirs: ["src/cache/"] },
  { name: "schema", goal: "Write the schema migration", dirs: ["src/db/"] },
];

const memoriesOf = (out: any) => Object.fromEntries(out.start.map((s: any) => [s.name, s.memories]));

describe("next and workflow read a large memory file through the ranking index", () => {
  it("write the index on the first call and answer through it afterwards, as the full scan does", async (t) => {
    const p = project(t, { [P]: planWith(ROLES), [MEM]: bigMemory() });
    assert.ok(statSync(join(p.dir, MEM)).size > 256 * 1024);
    const plan = readFileSync(join(p.dir, P));
    const again = async () => {
      writeFileSync(join(p.dir, P), plan); // the same starts each time
      const out: any = await p.run("next", [], { now: T });
      assert.equal(out.ok, true, JSON.stringify(out));
      return { memories: memoriesOf(out), warnings: out.warnings };
    };
    const first = await again();
    assert.ok(existsSync(join(p.dir, TERMS)), "the first call wrote the index");
    assert.deepEqual(first.warnings, ["memories: 8 unreadable line(s) of .design/memory.jsonl skipped"]);
    assert.equal(first.memories.queue.length, 3);
    const indexBytes = readFileSync(join(p.dir, TERMS));
    assert.deepEqual(await again(), first, "through the index");
    assert.deepEqual(readFileSync(join(p.dir, TERMS)), indexBytes, "a fresh index is not rewritten");
    // memory-add appends a memory that ranks for the queue role.
    const added: any = await p.run("memory-add", [MEM, "--category", "pattern", "--keywords", "queue,retry,backoff,worker", "--importance", "6",
      "--content", "The queue worker must retry with exponential backoff and jitter"], { now: T });
    assert.equal(added.ok, true, JSON.stringify(added));
    const afterAdd = await again();
    rmSync(join(p.dir, TERMS));
    assert.deepEqual(await again(), afterAdd, "the same as the full scan");
    assert.ok(afterAdd.memories.queue.some((m: any) => m.content === "The queue worker must retry with exponential backoff and jitter"), "the added memory ranks");
    // A boost rewrites the file (copy and rename): the index is stale, and the answer still the full scan's.
    const boosted: any = await p.run("memory-add", [MEM, "--boost", "--id", "m-5"], { now: T });
    assert.equal(boosted.ok, true, JSON.stringify(boosted));
    const afterBoost = await again();
    rmSync(join(p.dir, TERMS));
    assert.deepEqual(await again(), afterBoost);
    // A hostile index: garbage with the right magic.
    const bad = Buffer.alloc(4096, 0xff);
    bad.write("DOMT", 0, "latin1");
    writeFileSync(join(p.dir, TERMS), bad);
    assert.deepEqual(await again(), afterBoost);
    // The workflow compiles the same memories per role.
    writeFileSync(join(p.dir, P), plan);
    const wf: any = await p.run("workflow", [], { now: T });
    assert.equal(wf.ok, true, JSON.stringify(wf));
    const compiled = JSON.parse(/const PLAN = (.*);\n/.exec(p.read(".design/workflow.js"))![1]).memories;
    assert.deepEqual(compiled["0"], afterBoost.memories.queue.map((m: any) => m.content));
  });

  it("never writes the index through a link out of .design/: the full scan, the link's target untouched", async (t) => {
    const p = project(t, { [P]: planWith(ROLES), [MEM]: bigMemory(), "outside.bin": "keep me\n" });
    symlinkSync("../outside.bin", join(p.dir, TERMS));
    const out: any = await p.run("next", [], { now: T });
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal(out.start.length, 3);
    assert.ok(out.start[0].memories.length > 0);
    assert.equal(readFileSync(join(p.dir, "outside.bin"), "utf8"), "keep me\n");
    assert.ok(lstatSync(join(p.dir, TERMS)).isSymbolicLink(), "the link is left as it was");
  });

  it("a small memory file gets no index", async (t) => {
    const p = project(t, { [P]: planWith(ROLES), [MEM]: bigMemory().split("\n").slice(0, 50).join("\n") + "\n" });
    const out: any = await p.run("next", [], { now: T });
    assert.equal(out.ok, true);
    assert.equal(existsSync(join(p.dir, TERMS)), false);
  });
});
