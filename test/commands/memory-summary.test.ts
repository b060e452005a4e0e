import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";

const NOW_MS = Date.UTC(2026, 1, 18, 9, 0, 0);
const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "Z";
const MEM = ".design/memory.jsonl";

describe("memory-summary", () => {
  it("scores by substring matches × linear recency × importance and shows the top five", async (t) => {
    const p = project(t, {
      [MEM]: [
        { category: "pattern", content: "Paginate REST lists", keywords: ["api"], importance: 10, timestamp: iso(NOW_MS - 30 * DAY_MS) },
        { category: "mistake", content: "Forgot auth", keywords: ["security"], importance: 8 },
        { category: "convention", content: "Use kebab-case files", importance: 5 },
        { category: "approach", content: "Cache rest calls", importance: 4, timestamp: iso(NOW_MS) },
        { category: "failure", content: "nothing", importance: 2 },
        { category: "procedure", content: "nothing either", importance: 1 },
      ],
    });
    const out = await p.run("memory-summary", ["--goal", "REST api auth"], { now: NOW_MS });
    assert.deepEqual(out, {
      ok: true,
      summary: "Found 6 memories, showing top 5",
      count: 5,
      entries: [
        { category: "pattern", content: "Paginate REST lists", importance: 10, score: 1.8 },
        { category: "mistake", content: "Forgot auth", importance: 8, score: 0.8 },
        { category: "approach", content: "Cache rest calls", importance: 4, score: 0.4 },
        { category: "convention", content: "Use kebab-case files", importance: 5, score: 0 },
        { category: "failure", content: "nothing", importance: 2, score: 0 },
      ],
      skippedLines: 0,
      exitCode: 0,
    });
  });

  it("keeps every entry with score 0 when there is no goal", async (t) => {
    const p = project(t, { [MEM]: [{ content: "a" }, { category: "pattern", content: "b", importance: 7 }] });
    const out = await p.run("memory-summary", [], { now: NOW_MS });
    assert.deepEqual(out.entries, [
      { category: "unknown", content: "a", importance: 5, score: 0 },
      { category: "pattern", content: "b", importance: 7, score: 0 },
    ]);
    assert.equal(out.summary, "Found 2 memories, showing top 2");
  });

  it("reads a timestamp with an offset by its real age (Fix D24)", async (t) => {
    // 60 days old written as local time +02:00: recency 0.8, × 1 match × 10/10.
    const at = new Date(NOW_MS - 60 * DAY_MS + 2 * 3_600_000).toISOString().slice(0, 19) + "+02:00";
    const p = project(t, { [MEM]: [{ content: "rest", importance: 10, timestamp: at }] });
    const out = await p.run("memory-summary", ["--goal", "rest"], { now: NOW_MS });
    assert.equal((out.entries as any[])[0].score, 0.8);
  });

  it("says so when there is no memory file", async (t) => {
    const out = await project(t).run("memory-summary", ["--goal", "x"]);
    assert.deepEqual(out, { ok: true, summary: "No memory file found", count: 0, entries: [], skippedLines: 0, exitCode: 0 });
  });

  it("says no memories found for an unreadable file or one without entries", async (t) => {
    const p = project(t, { "dir.jsonl/x": "", "bad.jsonl": "nope\n\n[]\n" });
    assert.deepEqual(await p.run("memory-summary", ["dir.jsonl"]), {
      ok: true, summary: "No memories found", count: 0, entries: [], skippedLines: 0, exitCode: 0,
    });
    assert.deepEqual(await p.run("memory-summary", ["bad.jsonl"]), {
      ok: true, summary: "No memories found", count: 0, entries: [], skippedLines: 2, exitCode: 0,
    });
  });

  it("counts corrupt lines in skippedLines and leaves the file untouched", async (t) => {
    const text = `{"content":"rest"}\n{"content":\n{"content":"more"}`;
    const p = project(t, { [MEM]: text });
    const out = await p.run("memory-summary", ["--goal", "rest"], { now: NOW_MS });
    assert.equal(out.summary, "Found 2 memories, showing top 2");
    assert.equal(out.skippedLines, 1);
    assert.equal(p.read(MEM), text);
  });
});
