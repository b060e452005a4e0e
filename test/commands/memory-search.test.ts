import { describe, it } from "node:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";

const NOW_MS = Date.UTC(2026, 1, 18, 9, 0, 0);
const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "Z";
const MEM = ".design/memory.jsonl";

const full = {
  id: "mem-1",
  timestamp: iso(NOW_MS - 30 * DAY_MS),
  category: "pattern",
  keywords: ["rest", "api"],
  content: "Paginate every list endpoint",
  source: "execute",
  goal_context: "build the API",
  importance: 10,
  usage_count: 2,
};

describe("memory-search", () => {
  it("prints every contract key with the timestamp as epoch seconds and the score rounded", async (t) => {
    const p = project(t, { [MEM]: [full] });
    const out = await p.run("memory-search", ["--goal", "rest api"], { now: NOW_MS });
    assert.deepEqual(out, {
      ok: true,
      memories: [{ ...full, timestamp: (NOW_MS - 30 * DAY_MS) / 1000, score: 0.9 }],
      skippedLines: 0,
      exitCode: 0,
    });
  });

  it("joins goal, stack and keywords into one query", async (t) => {
    const p = project(t, { [MEM]: [{ id: "a", keywords: ["rest", "node", "auth"], importance: 10 }] });
    const out = await p.run("memory-search", ["--goal", "rest", "--stack", "node", "--keywords", "auth,jwt"], { now: NOW_MS });
    assert.deepEqual((out.memories as any[]).map((m) => m.score), [0.75]);
  });

  it("fills missing fields with the contract's defaults and reads a non-numeric importance as 5", async (t) => {
    const p = project(t, { [MEM]: [{ content: "rest things", importance: "high" }] });
    const out = await p.run("memory-search", ["--goal", "rest"], { now: NOW_MS });
    assert.deepEqual(out.memories, [
      { id: "", category: "", keywords: [], content: "rest things", source: "", timestamp: 0, goal_context: "", importance: 5, usage_count: 0, score: 0.5 },
    ]);
  });

  it("returns at most --limit memories, best first", async (t) => {
    const p = project(t, {
      [MEM]: [1, 2, 3, 4, 5, 6, 7].map((i) => ({ id: `m${i}`, keywords: ["rest"], importance: i })),
    });
    const ids = async (argv: string[]) => ((await p.run("memory-search", argv, { now: NOW_MS })).memories as any[]).map((m) => m.id);
    assert.deepEqual(await ids(["--goal", "rest"]), ["m7", "m6", "m5", "m4", "m3"]);
    assert.deepEqual(await ids(["--goal", "rest", "--limit", "2"]), ["m7", "m6"]);
    assert.deepEqual(await ids(["--goal", "rest", "--limit", "0"]), []);
  });

  it("rejects a negative --limit instead of dropping the last matches (Fix D11)", async (t) => {
    const p = project(t, { [MEM]: [full] });
    const out = await p.run("memory-search", ["--goal", "rest", "--limit", "-1"], { now: NOW_MS });
    assert.equal(out.ok, false);
    assert.equal(out.code, "E_USAGE");
    assert.equal(out.exitCode, 1);
    assert.match(out.error as string, /^memory-search: .*--limit/);
  });

  it("rejects a --limit that is not an integer", async (t) => {
    const out = await project(t).run("memory-search", ["--goal", "rest", "--limit", "abc"]);
    assert.equal(out.code, "E_USAGE");
    assert.equal(out.exitCode, 1);
  });

  it("returns no memories when the file is missing", async (t) => {
    const out = await project(t).run("memory-search", ["--goal", "rest api"], { now: NOW_MS });
    assert.deepEqual(out, { ok: true, memories: [], skippedLines: 0, exitCode: 0 });
  });

  it("returns no memories for a query without a word of three letters, before reading the file", async (t) => {
    const p = project(t, { ".design/memory.jsonl/keep": "a directory, not a file" });
    assert.deepEqual((await p.run("memory-search", ["--goal", "a to", "--stack", ""])).memories, []);
    assert.deepEqual((await p.run("memory-search")).memories, []);
  });

  it("reports an unreadable memory file", async (t) => {
    const p = project(t, { ".design/memory.jsonl/keep": "a directory, not a file" });
    const out = await p.run("memory-search", ["--goal", "rest"]);
    assert.equal(out.ok, false);
    assert.equal(out.code, "E_READ");
    assert.match(out.error as string, /^Error reading memory file: /);
  });

  it("skips corrupt and non-object lines and counts them in skippedLines", async (t) => {
    const text = `not json\n${JSON.stringify(full)}\n[1,2]\n5\n\n   \n{"id":"x","keywords":["rest"]`;
    const p = project(t, { [MEM]: text });
    const out = await p.run("memory-search", ["--goal", "rest api"], { now: NOW_MS });
    assert.deepEqual((out.memories as any[]).map((m) => m.id), ["mem-1"]);
    assert.equal(out.skippedLines, 4);
    assert.equal(p.read(MEM), text);
  });

  it("reads a custom memory path relative to the working directory", async (t) => {
    const p = project(t, { "elsewhere/m.jsonl": [full] });
    const out = await p.run("memory-search", ["elsewhere/m.jsonl", "--goal", "api"], { now: NOW_MS });
    assert.deepEqual((out.memories as any[]).map((m) => m.id), ["mem-1"]);
  });

  it("scores an entry with a fractional-second timestamp by its real age (Fix D24)", async (t) => {
    const p = project(t, { [MEM]: [{ ...full, timestamp: iso(NOW_MS - 30 * DAY_MS).replace("Z", ".000Z") }] });
    const out = await p.run("memory-search", ["--goal", "rest api"], { now: NOW_MS });
    assert.deepEqual((out.memories as any[]).map((m) => [m.timestamp, m.score]), [[(NOW_MS - 30 * DAY_MS) / 1000, 0.9]]);
  });

  it("matches a string keywords value as one keyword (Fix D26)", async (t) => {
    const p = project(t, { [MEM]: [{ id: "s", keywords: "rest", importance: 10 }, { id: "chars", keywords: "ra", importance: 10 }] });
    const out = await p.run("memory-search", ["--goal", "rest"], { now: NOW_MS });
    assert.deepEqual((out.memories as any[]).map((m) => [m.id, m.keywords, m.score]), [["s", "rest", 1]]);
  });
});

describe("memory-search beyond ASCII words of three letters", () => {
  const at = iso(NOW_MS - DAY_MS);
  const mem = (id: string, keywords: string[], content: string) => ({ id, timestamp: at, category: "pattern", keywords, content, importance: 5 });

  it("finds a memory by its own keywords: hyphenated, short, in any case", async (t) => {
    const p = project(t, {
      [MEM]: [mem("gh", ["ci", "github-actions"], "Cache node_modules by the lockfile hash."), mem("go", ["go"], "Go builds need GOFLAGS=-mod=mod."), mem("x", ["other"], "Unrelated")],
    });
    const ids = async (argv: string[]) => ((await p.run("memory-search", argv, { now: NOW_MS })).memories as any[]).map((m) => m.id);
    assert.deepEqual(await ids(["--keywords", "github-actions"]), ["gh"]);
    assert.deepEqual(await ids(["--keywords", "CI"]), ["gh"]);
    assert.deepEqual(await ids(["--goal", "upgrade the go toolchain", "--keywords", "go"]), ["go"]);
  });

  it("finds Russian and Japanese memories from a goal in their language, inflected differently", async (t) => {
    const p = project(t, {
      [MEM]: [mem("ru", ["бд"], "Миграции базы данных запускаем до сид-скрипта."), mem("ja", [], "マイグレーションはシードスクリプトの前に実行する。"), mem("en", [], "Run migrations first.")],
    });
    const ids = async (goal: string) => ((await p.run("memory-search", ["--goal", goal], { now: NOW_MS })).memories as any[]).map((m) => m.id);
    assert.deepEqual(await ids("Запустить миграции базы данных"), ["ru"]);
    assert.deepEqual(await ids("マイグレーションを追加する"), ["ja"]);
  });

  it("ignores stopwords: a query of them returns nothing, and they never rank an unrelated memory", async (t) => {
    const p = project(t, {
      [MEM]: [mem("the1", [], "The cache is warm by the time the tests run."), mem("retry", ["retry"], "Retry registry calls with backoff."), mem("the2", [], "Keep the lock short.")],
    });
    assert.deepEqual((await p.run("memory-search", ["--goal", "the"], { now: NOW_MS })).memories, []);
    const out = await p.run("memory-search", ["--goal", "Fix the retry policy of the client", "--limit", "3"], { now: NOW_MS });
    assert.deepEqual((out.memories as any[]).map((m) => m.id), ["retry"]);
  });

  it("puts the expected memories first for the fixture's queries, and finds every memory by each of its keywords", async (t) => {
    const fixture = JSON.parse(readFileSync(join(import.meta.dirname, "../fixtures/memory/search.json"), "utf8"));
    const p = project(t, { [MEM]: fixture.memories.map((m: Record<string, unknown>) => ({ ...m, timestamp: at, importance: 5 })) });
    let hits = 0;
    for (const q of fixture.queries) {
      const argv = ["--limit", "3", ...(q.goal ? ["--goal", q.goal] : []), ...(q.keywords ? ["--keywords", q.keywords] : [])];
      const ids = ((await p.run("memory-search", argv, { now: NOW_MS })).memories as any[]).map((m) => m.id);
      if (q.expect.length === 0 ? ids.length === 0 : q.expect.every((e: string) => ids.includes(e))) hits++;
    }
    assert.ok(hits >= fixture.queries.length - 1, `${hits} of ${fixture.queries.length} (measured: all)`);
    for (const m of fixture.memories) {
      for (const k of m.keywords) {
        const ids = ((await p.run("memory-search", ["--keywords", k, "--limit", "100"], { now: NOW_MS })).memories as any[]).map((x) => x.id);
        assert.ok(ids.includes(m.id), `${m.id} by ${k}`);
      }
    }
  });
});
