import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";

const MEM = ".design/memory.jsonl";

const entries = [
  { id: "a", timestamp: "2026-02-10T12:00:00Z", category: "pattern", keywords: ["REST", "api"], content: "A", source: "design", importance: 5, usage_count: 1 },
  { id: "b", timestamp: "2026-02-12T12:00:00Z", category: "mistake", keywords: ["auth"], content: "B", importance: 9 },
  { id: "c", timestamp: "2026-02-14T12:00:00Z", category: "pattern", keywords: "Restful", content: "C", importance: 5 },
  { id: "d", category: "pattern", keywords: [7, "misc"], content: "D", importance: "high" },
];

/** Run with the process time zone set, restoring it afterwards (Node re-reads TZ when it is assigned). */
async function inZone<T>(tz: string, fn: () => Promise<T>): Promise<T> {
  const before = process.env.TZ;
  process.env.TZ = tz;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
}

describe("memory-review", () => {
  it("lists every memory by importance, then newest first, with the contract's fields", async (t) => {
    const p = project(t, { [MEM]: entries });
    const out = await inZone("UTC", () => p.run("memory-review"));
    assert.deepEqual(out, {
      ok: true,
      summary: "Showing 4 of 4 memories",
      count: 4,
      total: 4,
      memories: [
        { id: "b", category: "mistake", importance: 9, usage_count: 0, date: "2026-02-12", keywords: ["auth"], content: "B", source: "" },
        { id: "c", category: "pattern", importance: 5, usage_count: 0, date: "2026-02-14", keywords: "Restful", content: "C", source: "" },
        { id: "a", category: "pattern", importance: 5, usage_count: 1, date: "2026-02-10", keywords: ["REST", "api"], content: "A", source: "design" },
        { id: "d", category: "pattern", importance: 5, usage_count: 0, date: "unknown", keywords: [7, "misc"], content: "D", source: "" },
      ],
      skippedLines: 0,
      exitCode: 0,
    });
  });

  it("shows the calendar date in local time", async (t) => {
    const p = project(t, { [MEM]: [{ id: "x", timestamp: "2026-02-18T03:00:00Z" }] });
    const ny = await inZone("America/New_York", () => p.run("memory-review"));
    const tokyo = await inZone("Asia/Tokyo", () => p.run("memory-review"));
    assert.equal((ny.memories as any[])[0].date, "2026-02-17");
    assert.equal((tokyo.memories as any[])[0].date, "2026-02-18");
  });

  it("dates fractional-second and epoch-number timestamps (Fix D24)", async (t) => {
    const p = project(t, { [MEM]: [{ id: "f", timestamp: "2026-02-18T12:00:00.250Z" }, { id: "n", timestamp: 1771416000 }] });
    const out = await inZone("UTC", () => p.run("memory-review"));
    assert.deepEqual((out.memories as any[]).map((m) => [m.id, m.date]), [["f", "2026-02-18"], ["n", "2026-02-18"]]);
  });

  it("defaults the category of an entry without one to unknown", async (t) => {
    const out = await project(t, { [MEM]: [{ content: "bare" }] }).run("memory-review");
    assert.deepEqual(out.memories, [{ id: "", category: "unknown", importance: 5, usage_count: 0, date: "unknown", keywords: [], content: "bare", source: "" }]);
  });

  it("filters by exact category and names the filter in the summary", async (t) => {
    const out = await project(t, { [MEM]: entries }).run("memory-review", ["--category", "pattern"]);
    assert.equal(out.summary, "Showing 3 of 4 memories (category: pattern)");
    assert.deepEqual((out.memories as any[]).map((m) => m.id), ["c", "a", "d"]);
  });

  it("filters by a keyword substring in any case, counting a string keywords value as one keyword", async (t) => {
    const out = await project(t, { [MEM]: entries }).run("memory-review", ["--keyword", "rEsT", "--category", "pattern"]);
    assert.equal(out.summary, "Showing 2 of 4 memories (category: pattern) (keyword: rEsT)");
    assert.deepEqual((out.memories as any[]).map((m) => m.id), ["c", "a"]);
    assert.equal(out.count, 2);
    assert.equal(out.total, 4);
  });

  it("ignores keywords that are not strings when filtering", async (t) => {
    const out = await project(t, { [MEM]: entries }).run("memory-review", ["--keyword", "7"]);
    assert.deepEqual(out.memories, []);
    assert.equal(out.summary, "Showing 0 of 4 memories (keyword: 7)");
  });

  it("says so when there is no memory file", async (t) => {
    const out = await project(t).run("memory-review");
    assert.deepEqual(out, { ok: true, summary: "No memory file found", count: 0, memories: [], skippedLines: 0, exitCode: 0 });
  });

  it("says so when no line is a memory, and counts the corrupt ones", async (t) => {
    const out = await project(t, { [MEM]: "garbage\n[1]\n\n" }).run("memory-review");
    assert.deepEqual(out, { ok: true, summary: "No memories found", count: 0, memories: [], skippedLines: 2, exitCode: 0 });
  });

  it("reads entries after a corrupt line and reports the skipped count, leaving the file alone", async (t) => {
    const text = `${JSON.stringify(entries[0])}\n{broken\n${JSON.stringify(entries[1])}\n`;
    const p = project(t, { [MEM]: text });
    const out = await p.run("memory-review");
    assert.equal(out.summary, "Showing 2 of 2 memories");
    assert.equal(out.skippedLines, 1);
    assert.equal(p.read(MEM), text);
  });

  it("reports an unreadable memory file", async (t) => {
    const out = await project(t, { ".design/memory.jsonl/x": "" }).run("memory-review");
    assert.equal(out.ok, false);
    assert.equal(out.code, "E_READ");
    assert.equal(out.exitCode, 1);
    assert.match(out.error as string, /^Error reading memory file: /);
  });

  it("with --top shows the best memories by score (recency × importance) and counts the rest", async (t) => {
    const now = Date.UTC(2026, 1, 20, 12);
    const day = 86_400_000;
    const iso = (ms: number) => new Date(ms).toISOString();
    const many = [
      { id: "old-important", timestamp: iso(now - 300 * day), keywords: ["x"], content: "o", importance: 10 },
      { id: "new-minor", timestamp: iso(now - day), keywords: ["x"], content: "n", importance: 3 },
      { id: "fresh-important", timestamp: iso(now), keywords: ["x"], content: "f", importance: 9 },
      { id: "mid", timestamp: iso(now - 60 * day), keywords: ["x"], content: "m", importance: 6 },
    ];
    const p = project(t, { [MEM]: many });
    const out: any = await inZone("UTC", () => p.run("memory-review", ["--top", "2"], { now }));
    assert.equal(out.ok, true, JSON.stringify(out));
    // fresh-important 0.9, mid 0.9^2 × 0.6 = 0.486, old-important 0.9^10 × 1.0 = 0.349, new-minor ~0.299.
    assert.deepEqual(out.memories.map((m: any) => [m.id, m.score]), [["fresh-important", 0.9], ["mid", 0.486]]);
    assert.deepEqual([out.count, out.total, out.rest], [2, 4, 2]);
    assert.equal(out.summary, "Showing 2 of 4 memories, the top 2 by relevance (recency × importance); 2 more not shown");
    const all: any = await p.run("memory-review", ["--top", "10"], { now });
    assert.deepEqual(all.memories.map((m: any) => m.id), ["fresh-important", "mid", "old-important", "new-minor"]);
    assert.equal(all.rest, 0);
    const filtered: any = await p.run("memory-review", ["--top", "1", "--keyword", "x"], { now });
    assert.deepEqual([filtered.memories[0].id, filtered.rest], ["fresh-important", 3]);
    assert.equal((await p.run("memory-review", ["--top", "0"])).code, "E_USAGE");
    const plain: any = await p.run("memory-review", [], { now });
    assert.equal("rest" in plain, false, "without --top the answer is the contract's");
    assert.equal("score" in plain.memories[0], false);
  });

  it("with --top and --keyword filters every memory first, then keeps the best of those", async (t) => {
    const now = Date.UTC(2026, 1, 20, 12);
    const iso = (ms: number) => new Date(ms).toISOString();
    // 25 fresh, important memories about builds; two old, minor ones about auth, far below the first 20.
    const builds = Array.from({ length: 25 }, (_, i) => ({ id: `b${i}`, timestamp: iso(now), keywords: ["build"], content: `build ${i}`, importance: 9 }));
    const auth = [
      { id: "auth-old", timestamp: iso(now - 400 * 86_400_000), keywords: ["Auth-Tokens"], content: "a", importance: 2 },
      { id: "auth-older", timestamp: iso(now - 500 * 86_400_000), keywords: ["oauth"], content: "b", importance: 2 },
    ];
    const p = project(t, { [MEM]: [...builds, ...auth] });
    const unfiltered: any = await p.run("memory-review", ["--top", "20"], { now });
    assert.equal(unfiltered.memories.some((m: any) => m.id.startsWith("auth")), false, "neither is among the first 20");
    const out: any = await p.run("memory-review", ["--top", "20", "--keyword", "AUTH"], { now });
    assert.deepEqual(out.memories.map((m: any) => m.id), ["auth-old", "auth-older"]);
    assert.deepEqual([out.count, out.total, out.rest], [2, 27, 0]);
  });
});
