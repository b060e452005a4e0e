// The ranking index of `next` and the workflow (src/commands/memory/rank-index.ts): through a fresh index the
// ranking must equal the full scan's (rank-file.ts) exactly, entries, order and the count of unreadable lines; a
// missing, stale, torn, corrupt or hostile index must fall back to the full scan (same answer, no throw) and be
// rebuilt; nothing but the memory file and the index is read.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, closeSync, existsSync, fstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildIndex, rankMemoryIndexed, TERMS_MIN_BYTES, type Route } from "../../src/commands/memory/rank-index.ts";
import { rankMemoryFile } from "../../src/commands/memory/rank-file.ts";
import { crc32, fnvOf } from "../../src/commands/memory/dup-index.ts";
import { searchQuery } from "../../src/commands/memory/scoring.ts";
import { scanJsonlFile } from "../../src/store.ts";
import { rng } from "../helpers/rng.ts";

const WORDS = ("api rest auth cache queue worker schema migration index parser router store lock retry backoff metric trace config " +
  "deploy build lint eslint docker compose redis postgres webhook token session cookie").split(" ");
const ODD = ["Миграции базы данных", "キャッシュの無効化", "naïve café résumé", "数据库迁移", "REDIS_URL", "--fix", "node.js", "2.1.330", "CI"];
const CATS = ["pattern", "mistake", "convention", "approach", "failure", "procedure"];
const NOW = Date.parse("2026-06-01T00:00:00Z") / 1000;

/** A memory file of `n` entries with odd lines among them: every kind the scan reads or skips. */
function memoryText(n: number, seed: number): string {
  const rnd = rng(seed);
  const w = () => WORDS[Math.floor(rnd() * WORDS.length)];
  const odd = () => ODD[Math.floor(rnd() * ODD.length)];
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const e: Record<string, unknown> = {
      id: `m-${i}`, timestamp: `2026-0${1 + (i % 5)}-1${i % 10}T00:00:00Z`, category: CATS[i % 6], keywords: [w(), w()],
      content: `${w()} ${w()} ${i % 7 === 0 ? odd() : w()} ${w()} notes ${i % 40}`, source: "t", goal_context: "", importance: 1 + (i % 9), usage_count: 0,
    };
    const r = i % 53;
    if (r === 1) e.category = "unknown-category";
    if (r === 2) e.content = { nested: w() };
    if (r === 3) e.content = 42;
    if (r === 4) e.keywords = `${w()}-${w()}`; // a lone string
    if (r === 5) e.keywords = [w(), 7, null, `${odd()}`];
    if (r === 6) delete e.timestamp;
    if (r === 7) e.timestamp = "not a time";
    if (r === 8) e.importance = "high";
    if (r === 9) e.content = `${odd()} \\ "quoted" ${w()}\ttab`;
    let line = JSON.stringify(e);
    if (r === 10) line = JSON.stringify(e, null, 1).replace(/\n/g, " "); // another layout: JSON.parse
    if (r === 11) line = `  ${line}\t`;
    lines.push(line);
    if (i % 97 === 13) lines.push("");
    if (i % 101 === 17) lines.push("   ");
    if (i % 131 === 19) lines.push("not json at all");
    if (i % 149 === 23) lines.push("[1,2,3]");
    if (i % 157 === 29) lines.push('{"id": "torn", "content": "half a li');
  }
  // CRLF for some lines, a lone CR for one, LF for the rest.
  let text = "";
  lines.forEach((l, i) => (text += l + (i % 11 === 0 ? "\r\n" : i === 500 ? "\r" : "\n")));
  return text;
}

const QUERIES = [
  ["retry backoff queue worker", "src/queue/"], ["redis cache", "src/cache/"], ["migration schema postgres"], ["REDIS_URL --fix"],
  ["Миграции базы"], ["キャッシュ"], ["naive cafe"], ["数据库"], ["nothing matches zzzz"], ["eslint lint", "src/lint/"], ["node.js 2.1.330 CI"],
].map((parts) => searchQuery(parts));

function setup(t: { after: (fn: () => void) => void }, n = 4000, seed = 7) {
  const dir = mkdtempSync(join(tmpdir(), "do-rank-index-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const mem = join(dir, "memory.jsonl");
  const terms = join(dir, ".memory.jsonl.terms");
  writeFileSync(mem, memoryText(n, seed));
  assert.ok(statSync(mem).size >= TERMS_MIN_BYTES, "the fixture is large enough to be indexed");
  const run = () => {
    let route: Route | undefined;
    const r = rankMemoryIndexed(mem, terms, QUERIES, 3, NOW, (x) => (route = x));
    return { r, route };
  };
  const full = () => rankMemoryFile(mem, QUERIES, 3, NOW);
  return { dir, mem, terms, run, full };
}

/** A ranking as comparable data: per query the ids and scores. */
const shape = (r: ReturnType<typeof rankMemoryFile>) =>
  r.kind === "ok" ? { skipped: r.skipped, ranked: r.ranked.map((q) => q.map((s) => [s.entry.id, s.score])) } : r;

describe("the ranking index", () => {
  it("ranks exactly as the full scan, through the index once it is built", (t) => {
    const s = setup(t);
    const want = shape(s.full());
    assert.ok((want as any).skipped > 0 && (want as any).ranked.filter((q: unknown[]) => q.length > 0).length >= 8, "the fixture exercises the ranking");
    const first = s.run();
    assert.equal(first.route, "scan", "no index yet: the full scan");
    assert.deepEqual(shape(first.r), want);
    assert.ok(existsSync(s.terms), "and the index is written");
    const second = s.run();
    assert.equal(second.route, "index");
    assert.deepEqual(shape(second.r), want);
    // More seeds and limits: the same answers.
    for (const limit of [1, 5, 100]) {
      assert.deepEqual(shape(rankMemoryIndexed(s.mem, s.terms, QUERIES, limit, NOW)), shape(rankMemoryFile(s.mem, QUERIES, limit, NOW)));
    }
  });

  it("agrees with the full scan on other generated files (seeds), many roles at once", (t) => {
    for (const seed of [1, 2, 3]) {
      const s = setup(t, 2500, seed);
      s.run();
      const r = s.run();
      assert.equal(r.route, "index");
      assert.deepEqual(shape(r.r), shape(s.full()), `seed ${seed}`);
    }
  });

  it("falls back to the full scan when memory-add appended, a line was edited in place, or the file was replaced", (t) => {
    const s = setup(t);
    s.run();
    appendFileSync(s.mem, JSON.stringify({ id: "new", timestamp: "2026-05-30T00:00:00Z", category: "pattern", keywords: ["redis"], content: "redis cache retry backoff queue worker", importance: 10 }) + "\n");
    let r = s.run();
    assert.equal(r.route, "extend", "only the appended line is indexed");
    assert.deepEqual(shape(r.r), shape(s.full()));
    assert.equal((shape(r.r) as any).ranked[0][0][0], "new", "the appended memory ranks");
    assert.equal(s.run().route, "index", "the extended index is fresh");
    // Several appends, odd lines among them.
    appendFileSync(s.mem, "not json\r\n\n" + JSON.stringify({ id: "new2", category: "x", keywords: "redis", content: "Миграции redis" }) + "\r\n[1]\n");
    r = s.run();
    assert.equal(r.route, "extend");
    assert.deepEqual(shape(r.r), shape(s.full()));
    assert.deepEqual(shape(s.run().r), shape(s.full()));
    // An edit inside what the index covers, then an append: the prefix no longer matches, so the full scan.
    {
      const text = readFileSync(s.mem, "utf8");
      const at = text.indexOf(" notes ", text.indexOf('"id":"m-200"'));
      writeFileSync(s.mem, `${text.slice(0, at)} redis ${text.slice(at + 7)}`);
      appendFileSync(s.mem, JSON.stringify({ id: "new3", content: "queue worker" }) + "\n");
      r = s.run();
      assert.equal(r.route, "scan");
      assert.deepEqual(shape(r.r), shape(s.full()));
      assert.equal(s.run().route, "index", "rebuilt");
    }
    // A file that did not end at a line end, then grew: its last line changed, so the full scan.
    appendFileSync(s.mem, JSON.stringify({ id: "open", content: "redis" }));
    assert.equal(s.run().route, "extend", "the index now ends with an unterminated line");
    appendFileSync(s.mem, "\n" + JSON.stringify({ id: "after", content: "redis cache" }) + "\n");
    r = s.run();
    assert.equal(r.route, "scan");
    assert.deepEqual(shape(r.r), shape(s.full()));
    // The same size: one entry's words changed in place.
    const text = readFileSync(s.mem, "utf8");
    const at = text.indexOf('"id":"m-100"');
    const notes = text.indexOf(" notes ", at);
    const edited = `${text.slice(0, notes)} redis ${text.slice(notes + 7)}`;
    assert.equal(Buffer.byteLength(edited), Buffer.byteLength(text));
    writeFileSync(s.mem, edited);
    r = s.run();
    assert.equal(r.route, "scan");
    assert.deepEqual(shape(r.r), shape(s.full()));
    // Replaced by another file (a boost's copy-and-rename).
    const other = join(s.dir, "other.jsonl");
    writeFileSync(other, memoryText(3000, 99));
    renameSync(other, s.mem);
    r = s.run();
    assert.equal(r.route, "scan");
    assert.deepEqual(shape(r.r), shape(s.full()));
    assert.equal(s.run().route, "index");
    assert.deepEqual(shape(s.run().r), shape(s.full()));
  });

  it("never trusts a torn, corrupt or hostile index: the full scan's answer, no throw", (t) => {
    const s = setup(t);
    s.run();
    const good = readFileSync(s.terms);
    const want = shape(s.full());
    const n = good.readUInt32LE(8);
    const size = statSync(s.mem).size;
    /** The good index changed by `edit`, its CRC recomputed when `fix` (a forgery, not just damage). */
    const variant = (edit: (b: Buffer) => Buffer, fix = true) => {
      let b = edit(Buffer.from(good));
      if (fix && b.length >= 72) {
        b = Buffer.from(b);
        b.writeUInt32LE(crc32(b.subarray(72), 0), 20);
      }
      return b;
    };
    const cases: Array<[string, Buffer]> = [
      ["empty", Buffer.alloc(0)],
      ["torn: the header only", good.subarray(0, 72)],
      ["torn: half", good.subarray(0, (good.length >> 1) & ~3)],
      ["a flipped byte", variant((b) => ((b[b.length - 5] ^= 0xff), b), false)],
      ["another version", variant((b) => (b.writeUInt32LE(99, 4), b))],
      ["a huge count", variant((b) => (b.writeUInt32LE(0xffffffff, 8), b))],
      ["a huge hash count", variant((b) => (b.writeUInt32LE(0x7fffffff, 12), b))],
      ["an offset past the end", variant((b) => (b.writeUInt32LE(size + 10, 72 + 4 * (n - 1)), b))],
      ["a length past the end", variant((b) => (b.writeUInt32LE(0xfffffff0, 72 + 4 * (n + 5)), b))],
      ["an offset into the middle of a line", variant((b) => (b.writeUInt32LE(b.readUInt32LE(72 + 4 * 5) + 3, 72 + 4 * 5), b))],
      ["entries out of order", variant((b) => { const a = b.readUInt32LE(72 + 4 * 3); b.writeUInt32LE(b.readUInt32LE(72 + 4 * 4), 72 + 4 * 3); b.writeUInt32LE(a, 72 + 4 * 4); return b; })],
      ["counts that do not add up", variant((b) => (b.writeUInt32LE(b.readUInt32LE(72 + 8 * n) + 1, 72 + 8 * n), b))],
      ["a tail offset past the end", variant((b) => (b.writeUInt32LE(size + 1, 64), b))],
      ["a tail offset at 0 (the whole file)", variant((b) => (b.writeUInt32LE(0, 64), b))],
      ["another file's stat", variant((b) => (b.writeBigUInt64LE(1n, 32), b))],
      ["text", Buffer.from("not an index at all\n".repeat(20))],
    ];
    for (const [label, bytes] of cases) {
      writeFileSync(s.terms, bytes);
      let r: ReturnType<typeof s.run> | undefined;
      assert.doesNotThrow(() => (r = s.run()), label);
      assert.equal(r!.route, "scan", label);
      assert.deepEqual(shape(r!.r), want, label);
      assert.deepEqual(readFileSync(s.terms), good, `${label}: rebuilt`);
    }
    // Every candidate line is checked where it lies: an entry moved onto another object line is caught only by its
    // bounds when those are wrong; moved onto the exact bounds of a non-object line (a forged index) it is refused.
    const text = readFileSync(s.mem, "utf8");
    const junk = Buffer.byteLength(text.slice(0, text.indexOf("not json at all")));
    writeFileSync(s.terms, variant((b) => { b.writeUInt32LE(junk, 72); b.writeUInt32LE("not json at all".length, 72 + 4 * n); return b; }));
    const forged = s.run();
    assert.equal(forged.route, "scan");
    assert.deepEqual(shape(forged.r), want);
  });

  it("reads no index through a symlink, nor one that is a directory; a missing memory file is 'missing'", (t) => {
    const s = setup(t);
    s.run();
    const want = shape(s.full());
    const elsewhere = join(s.dir, "elsewhere.bin");
    renameSync(s.terms, elsewhere);
    symlinkSync(elsewhere, s.terms);
    const r = s.run();
    assert.equal(r.route, "scan");
    assert.deepEqual(shape(r.r), want);
    assert.ok(readFileSync(elsewhere).length > 0, "the link's target is left alone");
    rmSync(s.terms);
    mkdirSync(s.terms);
    const d = s.run();
    assert.equal(d.route, "scan");
    assert.deepEqual(shape(d.r), want);
    assert.deepEqual(rankMemoryIndexed(join(s.dir, "none.jsonl"), s.terms, QUERIES, 3, NOW), { kind: "missing" });
  });

  it("a small memory file is scanned and gets no index; no index path (not writable) means the full scan", (t) => {
    const dir = mkdtempSync(join(tmpdir(), "do-rank-index-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const mem = join(dir, "memory.jsonl");
    writeFileSync(mem, memoryText(100, 5));
    let route: Route | undefined;
    const r = rankMemoryIndexed(mem, join(dir, ".memory.jsonl.terms"), QUERIES, 3, NOW, (x) => (route = x));
    assert.equal(route, "small");
    assert.deepEqual(shape(r), shape(rankMemoryFile(mem, QUERIES, 3, NOW)));
    assert.equal(existsSync(join(dir, ".memory.jsonl.terms")), false);
    const s = setup(t);
    assert.deepEqual(shape(rankMemoryIndexed(s.mem, null, QUERIES, 3, NOW)), shape(s.full()));
    assert.equal(existsSync(s.terms), false);
  });

  it("reads past an entry whose bound a hash collision inflated (its words share no token with the query)", (t) => {
    const h16 = (w: string) => { const h = fnvOf(w); return (h ^ (h >>> 16)) & 0xffff; };
    // A word that is not redis's token (its stem) but has its 16-bit hash.
    const [stem] = [...searchQuery(["redis"])];
    let twin = "";
    for (let i = 0; !twin; i++) if (h16(`zq${i}x`) === h16(stem)) twin = `zq${i}x`;
    const dir = mkdtempSync(join(tmpdir(), "do-rank-index-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const mem = join(dir, "memory.jsonl");
    const terms = join(dir, ".memory.jsonl.terms");
    const line = (id: string, content: string, importance: number) =>
      JSON.stringify({ id, timestamp: "2026-05-01T00:00:00Z", category: "pattern", keywords: [], content, source: "t", goal_context: "", importance, usage_count: 0 });
    const lines: string[] = [];
    // The twins look like both words to the index (bound 0.9) but hold one (0.45); the real ones score 0.6.
    for (let i = 0; i < 20; i++) lines.push(line(`twin-${i}`, `${twin} cache layer`, 9));
    for (let i = 0; i < 2; i++) lines.push(line(`real-${i}`, "redis cache layer", 6));
    for (let i = 0; lines.join("\n").length < TERMS_MIN_BYTES + 1000; i++) lines.push(line(`filler-${i}`, `unrelated words about gardening ${i}`, 5));
    writeFileSync(mem, lines.join("\n") + "\n");
    const queries = [searchQuery(["redis cache"])];
    const want = shape(rankMemoryFile(mem, queries, 3, NOW));
    assert.deepEqual((want as any).ranked[0].map((x: unknown[]) => x[0]), ["real-0", "real-1", "twin-0"]);
    rankMemoryIndexed(mem, terms, queries, 3, NOW);
    let route: Route | undefined;
    assert.deepEqual(shape(rankMemoryIndexed(mem, terms, queries, 3, NOW, (x) => (route = x))), want);
    assert.equal(route, "index");
  });

  it("indexes every object line and counts the others as the scan does", (t) => {
    const s = setup(t, 3000, 11);
    const fd = openSync(s.mem, "r");
    try {
      const bytes = buildIndex(fd, fstatSync(fd).size, fstatSync(fd, { bigint: true }))!;
      let objects = 0;
      const full = rankMemoryFile(s.mem, [], 3, NOW);
      scanJsonlFile(s.mem, () => objects++);
      assert.equal(bytes.readUInt32LE(8), objects);
      assert.equal(bytes.readUInt32LE(16), (full as any).skipped);
    } finally {
      closeSync(fd);
    }
  });
});
