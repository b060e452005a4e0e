// memory-add's cold scan (add.ts, scanEntries) reads a memory file without its duplicate index: lines in memory-add's
// layout straight from the bytes (the byte tokenizer, byte-tokens.ts), any other line through JSON.parse and
// tokens(). Both must give exactly what tokens() and JSON.parse give: checked here against that definition on
// generated texts and generated memory files (odd lines, CRLF, escapes, UTF-8, lines longer than a read).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { ByteTokens } from "../../src/commands/memory/byte-tokens.ts";
import { describe as describeContent, describeTokens, fnvOf, IndexBuilder, NO_CATEGORY, categoryCode } from "../../src/commands/memory/dup-index.ts";
import { DUPLICATE_THRESHOLD, scanEntries, type Probing } from "../../src/commands/memory/add.ts";
import { contentSimilarity, normaliseContent } from "../../src/commands/memory/scoring.ts";
import { tokens } from "../../src/commands/memory/tokens.ts";

const RUNS = process.env.DO_SOAK === "1" ? 2000 : 200;
const SEED = Number(process.env.DO_PROPERTY_SEED ?? 33);
const CATS = ["pattern", "mistake", "convention", "approach", "failure", "procedure"];

// Pieces a memory's text is made of: words in any case, joiners, flags, numbers, punctuation runs, and what the
// byte tokenizer leaves to tokens(): UTF-8, quotes, backslashes, control characters.
const PIECES = [
  "a", "A", "x", "Z", "9", "42", "007", "3.5", "1.2.3", "v2", "--", "-", ".", "_", "__", "-.-", "--pool=forks", "--x", "---c",
  "a--b", "-x-", "e.g.", "I.E", "node.js", "REDIS_URL", "cache-key", "the", "The", "and", "retries", "Retrying", "IDs", "ids",
  "queue", "Queues", "worked", "running", "studies", "class", "analysis", " ", "  ", ",", ";", ":", "!?", "(", ")", "[]", "/",
  "#", "@", "=", "+", "*", "'", "`", "~",
];
const RARE = ["é", "Straße", "naïve", "テスト", "数据库", "ё", "\u2028", "😀", '"', "\\", "\\n", "\t", "\n", "\u0001", "\u007f"];
const asciiText = fc.array(fc.constantFrom(...PIECES), { maxLength: 24 }).map((a) => a.join(""));
const spacedText = fc.array(fc.constantFrom(...PIECES), { maxLength: 16 }).map((a) => a.join(" "));
const anyText = fc.array(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...PIECES) }, { weight: 1, arbitrary: fc.constantFrom(...RARE) }), { maxLength: 20 }).map((a) => a.join(""));
const text = fc.oneof(asciiText, spacedText, anyText, fc.string({ maxLength: 30 }));

const hashBytesOf = (ts: Set<string>) => [...ts].map((t) => fnvOf(t) & 0xff).sort((x, y) => x - y);

describe("the byte tokenizer against tokens()", () => {
  it(`gives the token hashes of tokens() for every text it reads, and leaves to tokens() only what it must (${RUNS} batches)`, () => {
    // One tokenizer for a whole batch: what it learned from the texts before must not change the next one's tokens.
    const words = new ByteTokens();
    let read = 0;
    let left = 0;
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 20 }), (texts) => {
        for (const t of texts) {
          // As the file holds it: the content's JSON literal, followed by the rest of a line.
          const literal = JSON.stringify(t);
          const bytes = Buffer.from(`${literal},"source":"x"}`, "utf8");
          const plain = /^[\x20-\x7f]*$/.test(t) && !t.includes('"') && !t.includes("\\");
          const ok = words.scan(bytes, 1, bytes.length);
          assert.equal(ok, plain, `${literal}: read from bytes only when ASCII without escapes`);
          if (!ok) {
            left++;
            continue;
          }
          read++;
          assert.equal(words.end, literal.length - 1, `${literal}: stops at the closing quote`);
          const want = tokens(t);
          assert.equal(words.n, want.size, `${literal}: ${[...want].join(" ")}`);
          assert.deepEqual([...words.out.subarray(0, words.n)].sort((x, y) => x - y), hashBytesOf(want), literal);
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true, includeErrorInReport: true },
    );
    assert.ok(read > left && left > 0, `read ${read}, left ${left}`);
  });

  it("keeps compounds apart whose keys hash alike, and numbers apart from the compounds that hold them", () => {
    // Many distinct compounds (so the table grows and its slots collide), repeated in other cases, and numbers that
    // are also parts of compounds seen before, after, or in the same text.
    const words = new ByteTokens();
    const texts: string[] = [];
    for (let i = 0; i < 3000; i++) texts.push(`w${i.toString(36)}x W${i.toString(36).toUpperCase()}X ${i} ${i % 7}.${i % 5} ${i % 5} --f${i % 13} v${i}-${i + 1}`);
    texts.push("1.5 5 5 1", "5 1.5", "10 10.0 0", "--5 5", "a_1 1 a-1");
    for (const t of texts) {
      const bytes = Buffer.from(JSON.stringify(t));
      assert.ok(words.scan(bytes, 1, bytes.length));
      const want = tokens(t);
      assert.equal(words.n, want.size, t);
      assert.deepEqual([...words.out.subarray(0, words.n)].sort((x, y) => x - y), hashBytesOf(want), t);
    }
  });
});

/** What the cold scan must find in a memory file: every line JSON.parse reads as an entry, with its tokens. */
function oracle(file: Buffer, p: { tokens: Set<string>; norm: string; content: string }) {
  const index = new IndexBuilder(64);
  let best: { id: unknown; similarity: number } | undefined;
  let tailFrom = 0;
  let at = 0;
  while (at < file.length) {
    let end = at;
    while (end < file.length && file[end] !== 10 && file[end] !== 13) end++;
    if (end > at) {
      tailFrom = at;
      let v: unknown;
      try {
        v = JSON.parse(file.toString("utf8", at, end).trim());
      } catch {
        v = undefined;
      }
      const e = v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
      if (e && categoryCode(e.category, e.content) !== NO_CATEGORY) {
        const d = describeContent(e.content as string);
        index.add({ offset: at, length: end - at, category: categoryCode(e.category, e.content), normHash: d.normHash, hashes: d.hashes });
        const s = contentSimilarity(p.content, e.content as string);
        if (s >= DUPLICATE_THRESHOLD && (!best || s > best.similarity)) best = { id: e.id, similarity: s };
      }
    }
    at = end + (file[end] === 13 && file[end + 1] === 10 ? 2 : 1);
  }
  return { records: index.records(), best, tailFrom };
}

const entryLine = fc.record({
  id: fc.oneof(fc.uuid(), fc.string({ maxLength: 8 })),
  category: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...CATS) }, { weight: 1, arbitrary: fc.constantFrom("Pattern", "other", "", "patter", "pattern ") }),
  keywords: fc.array(fc.oneof(fc.constantFrom("queue", "retry", "a]", 'q"x', "é"), fc.string({ maxLength: 6 })), { maxLength: 3 }),
  content: fc.oneof({ weight: 4, arbitrary: spacedText }, { weight: 2, arbitrary: asciiText }, { weight: 2, arbitrary: anyText }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }),
  importance: fc.oneof(fc.integer({ min: 1, max: 10 }), fc.constantFrom(1.5, -3, 1e21)),
});

type Entry = { id: string; category: string; keywords: string[]; content: string; importance: number };

/** One line of a memory file: memory-add's layout mostly, and every other shape a file may hold. */
function lineOf(e: Entry, shape: number): string {
  const full = { id: e.id, timestamp: "2026-01-01T00:00:00Z", category: e.category, keywords: e.keywords, content: e.content, source: "t", goal_context: "", importance: e.importance, usage_count: 0 };
  switch (shape) {
    case 0: return JSON.stringify({ ...full, category: e.category.replace(/^p/, "\\u0070") }).replace("\\\\u0070", "\\u0070"); // an escaped category
    case 1: return JSON.stringify({ content: e.content, id: e.id, category: e.category }); // another key order
    case 2: return ` ${JSON.stringify(full)}\t`; // whitespace around it
    case 3: return JSON.stringify(full, null, 1).replace(/\n/g, ""); // spaces inside
    case 4: return JSON.stringify(full).slice(0, 40); // torn
    case 5: return JSON.stringify({ ...full, content: 5 }); // content not a string
    case 6: return "[1,2]";
    case 7: return "";
    case 8: return JSON.stringify(full).replace('"content":"', '"content":"\u0001'); // a raw control character
    default: return JSON.stringify(full);
  }
}

const memoryFile = fc.record({
  lines: fc.array(fc.tuple(entryLine, fc.oneof({ weight: 12, arbitrary: fc.constant(9) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 8 }) })), { minLength: 1, maxLength: 40 }),
  ends: fc.array(fc.constantFrom("\n", "\n", "\n", "\r\n", "\r", "\n\n"), { minLength: 1, maxLength: 5 }),
  last: fc.constantFrom("\n", "", "\r\n"),
  // A few copies of one content (near-duplicates of the probe) and a line longer than a 64 KB read.
  long: fc.boolean(),
});

/** scanEntries on `file` (written to `path`, removed after) with `probe` as the new content, and the oracle's answer. */
function scanFile(path: string, file: Buffer, probe: string) {
  writeFileSync(path, file);
  const ts = tokens(probe);
  const d = describeTokens(ts, probe);
  const p: Probing = { code: 0, content: probe, tokens: ts, norm: normaliseContent(probe), normHash: d.normHash, hashes: d.hashes };
  const fd = openSync(path, "r");
  try {
    const index = new IndexBuilder(64);
    const got = scanEntries(fd, p, index);
    return { got, records: index.records(), want: oracle(file, p) };
  } finally {
    closeSync(fd);
    rmSync(path);
  }
}

describe("the cold scan against JSON.parse and tokens()", () => {
  const dir = mkdtempSync(join(tmpdir(), "do-cold-scan-"));
  let n = 0;
  const scan = (file: Buffer, probe: string) => scanFile(join(dir, `m${n++}.jsonl`), file, probe);

  it(`builds the index records JSON.parse and tokens() define, finds the same duplicate and the same last line (${RUNS} files)`, () => {
    try {
      let found = 0;
      fc.assert(
        fc.property(memoryFile, fc.nat(), ({ lines, ends, last, long }, pick) => {
          const texts = lines.map(([e, shape], i) => lineOf({ ...e, content: long && i === 1 ? `${e.content} ${"wide ".repeat(14_000)}` : e.content }, shape));
          const file = Buffer.from(texts.map((l, i) => l + (i === texts.length - 1 ? last : ends[i % ends.length])).join(""), "utf8");
          // The probe: an entry's own content (a duplicate), reworded, or a text of its own.
          const base = lines[pick % lines.length][0].content;
          const probe = pick % 3 === 0 ? base : pick % 3 === 1 ? `${base} Retry`.toUpperCase() : "zebra crossings at 5 --ports";
          const { got, records, want } = scan(file, probe);
          assert.equal(records.n, want.records.n, "one record per entry");
          assert.ok(records.bytes.equals(want.records.bytes), "the same records, byte for byte");
          assert.equal(got.tailFrom, want.tailFrom, "where the last line starts");
          assert.deepEqual(got.dup && { id: got.dup.id, similarity: got.dup.similarity }, want.best);
          if (want.best) found++;
        }),
        { numRuns: RUNS, seed: SEED },
      );
      assert.ok(found > RUNS / 10, `duplicates found: ${found}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Compounds that all hash alike under the byte tokenizer's key hash (h * 33 ^ byte over 24 bits; built the way an
 * attacker who read byte-tokens.ts would build them): four-character blocks that lead from one state to one state,
 * chained, give 8^levels compounds of one hash.
 */
function collidingCompounds(levels: number): string[] {
  const chars = [..."abcdefghijklmnopqrstuvwxyz0123456789"].map((c) => c.charCodeAt(0));
  let family = [""];
  let state = 0;
  for (let level = 0; level < levels; level++) {
    const buckets = new Map<number, string[]>();
    const firsts = level === 0 ? chars.slice(0, 26) : chars; // a letter first: a compound, not a number
    for (const a of firsts) for (const b of chars) for (const c of chars) for (const d of chars) {
      let h = state;
      for (const x of [a, b, c, d]) h = ((h * 33) ^ x) & 0xffffff;
      const list = buckets.get(h);
      const block = String.fromCharCode(a, b, c, d);
      if (list) list.push(block);
      else buckets.set(h, [block]);
    }
    let best: [number, string[]] = [0, []];
    for (const [h, list] of buckets) if (list.length > best[1].length) best = [h, list];
    family = family.flatMap((p) => best[1].map((block) => p + block));
    state = best[0];
  }
  return family;
}

describe("a memory file written to flood the byte tokenizer's table", () => {
  const family = collidingCompounds(3);

  it("gives up on the table after a bounded walk and leaves every later text to tokens()", () => {
    assert.ok(family.length >= 256, `${family.length} colliding compounds`);
    const words = new ByteTokens();
    let read = 0;
    for (let i = 0; i < family.length; i += 4) {
      const t = family.slice(i, i + 4).join(" ");
      const bytes = Buffer.from(JSON.stringify(t));
      if (!words.scan(bytes, 1, bytes.length)) break;
      read++;
      assert.deepEqual([...words.out.subarray(0, words.n)].sort((x, y) => x - y), hashBytesOf(tokens(t)), t);
    }
    assert.ok(words.flooded, "the flood was noticed");
    assert.ok(read > 0 && read < family.length / 4, `read ${read} texts before giving up`);
    // From then on nothing is read from bytes, however plain.
    const plain = Buffer.from(JSON.stringify("retry the queue worker"));
    assert.equal(words.scan(plain, 1, plain.length), false);
  });

  it("still builds the index and finds the duplicate the string path finds", () => {
    const dir = mkdtempSync(join(tmpdir(), "do-cold-flood-"));
    try {
      const lines: string[] = [];
      for (let i = 0; i < family.length; i += 3) {
        const content = `${family.slice(i, i + 3).join(" ")} retry queue ${i}`;
        lines.push(JSON.stringify({ id: `m${i}`, timestamp: "2026-01-01T00:00:00Z", category: CATS[i % 6], keywords: ["queue"], content, source: "t", goal_context: "", importance: 5, usage_count: 0 }));
      }
      const file = Buffer.from(`${lines.join("\n")}\n`);
      const { got, records, want } = scanFile(join(dir, "memory.jsonl"), file, `${family.slice(300, 303).join(" ")} retry queue 300`);
      assert.ok(records.bytes.equals(want.records.bytes), "the same records, byte for byte");
      assert.equal(got.dup?.id, "m300");
      assert.deepEqual(got.dup && { id: got.dup.id, similarity: got.dup.similarity }, want.best);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
