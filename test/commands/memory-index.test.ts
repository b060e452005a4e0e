// memory-add's duplicate-gate index (src/commands/memory/dup-index.ts), kept beside memory files of 256 KB and
// more: it must give exactly the verdict of a full comparison with every entry, notice when the file changed
// behind its back, survive being corrupted, and keep the append byte-exact.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, linkSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli } from "../helpers/cli.ts";
import { project } from "../helpers/design-dir.ts";
import { bufferSource, crc32, describe as describeContent, hashBytes, HEADER, scanIndex, serialise, useJsCrc, type IndexEntry } from "../../src/commands/memory/dup-index.ts";
import { contentSimilarity } from "../../src/commands/memory/scoring.ts";
import { DUPLICATE_THRESHOLD, INDEX_MIN_BYTES } from "../../src/commands/memory/add.ts";

const MEM = ".design/memory.jsonl";
const INDEX = ".design/.memory.jsonl.index";
const CATS = ["pattern", "mistake", "convention", "approach", "failure", "procedure"];
const OTHER = "harbour violin glacier pancake lantern orchid meteor saddle quartz tundra walrus bamboo".split(" ");
const WORDS = "api rest auth cache queue worker schema migration index parser router store lock retry backoff metric trace config deploy build".split(" ");

function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

/** About 300 KB of entries with a small vocabulary (so many contents are close), a corrupt line and CRLF ends. */
function bigMemory(): { text: string; entries: Array<Record<string, unknown>> } {
  const rnd = rng(3);
  const w = () => WORDS[Math.floor(rnd() * WORDS.length)];
  const entries: Array<Record<string, unknown>> = [];
  const lines: string[] = [];
  // The same stopping point as measuring lines.join("\n") after every entry, without building that string each time.
  let joined = -1;
  for (let i = 0; joined < INDEX_MIN_BYTES + 40_000; i++) {
    const e = { id: `m-${i}`, timestamp: "2026-01-01T00:00:00Z", category: CATS[i % 6], keywords: [w()], content: `${w()} ${w()} ${w()} ${w()} ${w()} notes ${i % 50}`, source: "t", goal_context: "", importance: 5, usage_count: 0 };
    entries.push(e);
    lines.push(i % 97 === 5 ? ` ${JSON.stringify(e, null, 0)} ` : JSON.stringify(e));
    joined += lines[lines.length - 1].length + 1;
    if (i === 10) {
      lines.push('{"id": "torn", "content": "half a line');
      joined += lines[lines.length - 1].length + 1;
    }
  }
  if (joined !== lines.join("\n").length) throw new Error("bigMemory: length bookkeeping is off");
  return { text: lines.join("\r\n") + "\r\n", entries };
}

/**
 * The verdict of a plain comparison with every entry of any category: the gate's definition (issue 31: a learning
 * filed under another category is still the same learning). `_category`: the new entry's, which does not narrow it.
 */
function reference(entries: Array<Record<string, unknown>>, _category: string, content: string) {
  let best: { id: unknown; similarity: number } | undefined;
  for (const e of entries) {
    if (!CATS.includes(String(e.category)) || typeof e.content !== "string") continue;
    const s = contentSimilarity(content, e.content);
    if (s >= DUPLICATE_THRESHOLD && (!best || s > best.similarity)) best = { id: e.id, similarity: s };
  }
  return best;
}

/** The content's first word as its keyword: it passes the specificity gate by naming what the content is about. */
const add = (category: string, content: string) => ["--category", category, "--keywords", content.match(/\p{L}[\p{L}\p{N}-]+/u)?.[0].toLowerCase() ?? "k", "--content", content];

/** The categories an index file has records for (its header, dup-index.ts), by name. */
function indexCategories(buf: Buffer): string[] {
  const mask = buf.readUInt32LE(68);
  return CATS.filter((_, i) => mask & (1 << i));
}

/** An index file's records, in its order: where each line is, its category code, normalised-text hash and token hashes. */
function indexRecords(buf: Buffer): Array<{ offset: number; length: number; category: number; normHash: number; hashes: string }> {
  const n = buf.readUInt32LE(8);
  const out = [];
  let at = HEADER;
  for (let i = 0; i < n; i++) {
    const m = buf.readUInt32LE(at + 8);
    const nb = m >>> 4;
    out.push({ offset: buf.readUInt32LE(at), length: buf.readUInt32LE(at + 4), category: m & 15, normHash: buf.readUInt32LE(at + 12), hashes: buf.subarray(at + 16, at + 16 + nb).toString("hex") });
    at += 16 + ((nb + 3) & ~3);
  }
  assert.equal(at, buf.length, "the records fill the index");
  return out;
}

describe("memory-add on a large memory file (duplicate-gate index)", () => {
  it("builds the index on the first add and then gives the full comparison's verdict on every probe", async (t) => {
    const { text, entries } = bigMemory();
    const p = project(t, { [MEM]: text });
    const first = await p.run("memory-add", add("pattern", "a completely new learning about zebra crossings"));
    assert.equal(first.ok, true);
    assert.ok(p.exists(INDEX), "the index is written beside the file");
    const rnd = rng(11);
    const w = () => WORDS[Math.floor(rnd() * WORDS.length)];
    let refused = 0;
    let landed = 0;
    for (let k = 0; k < 40; k++) {
      const category = CATS[k % 6];
      // A copy of an entry (refused), a probe from the fixture's own vocabulary (often a near-duplicate at this
      // threshold), or one that mixes in other words (usually new).
      const probe = k % 4 === 0 ? String(entries[(k * 37) % entries.length].content).toUpperCase()
        : k % 4 === 1 ? `${w()} ${w()} ${w()} ${w()} ${w()} notes ${k % 50}`
        : `${w()} ${w()} ${OTHER[(k * 7) % OTHER.length]} ${OTHER[(k * 11 + 3) % OTHER.length]} ${OTHER[(k * 13 + 5) % OTHER.length]} notes ${k % 50}`;
      const cat = k % 4 === 0 ? String(entries[(k * 37) % entries.length].category) : category;
      const expected = reference(entries, cat, probe);
      const out = await p.run("memory-add", add(cat, probe));
      if (expected) {
        refused++;
        assert.deepEqual([out.ok, out.gate, out.duplicateOf], [false, "duplicate", expected.id], probe);
      } else {
        landed++;
        assert.equal(out.ok, true, `${probe}: ${out.error}`);
        entries.push({ id: out.id, category: cat, content: probe });
      }
    }
    assert.ok(refused > 5 && landed > 5, `refused ${refused}, landed ${landed}`);
    const after = p.read(MEM);
    assert.ok(after.startsWith(text), "every old byte is kept, the corrupt line and CRLF ends included");
    assert.ok(after.includes('{"id": "torn", "content": "half a line\r\n'));
  });

  it("notices an edit behind its back (same size, in place) and rebuilds", async (t) => {
    const { text } = bigMemory();
    const p = project(t, { [MEM]: text });
    assert.equal((await p.run("memory-add", add("pattern", "first add builds the index for zebra"))).ok, true);
    // Rewrite entry m-0's content in place, keeping the file's size: it becomes the text added next.
    const path = join(p.dir, MEM);
    const cur = readFileSync(path, "utf8");
    const m0 = cur.slice(0, cur.indexOf("\r\n"));
    const old = JSON.parse(m0).content as string;
    const replacement = "x".repeat(old.length);
    writeFileSync(path, cur.replace(m0, m0.replace(old, replacement)));
    const out = await p.run("memory-add", add(String(JSON.parse(m0).category), replacement.toUpperCase()));
    assert.deepEqual([out.ok, out.duplicateOf, out.similarity], [false, "m-0", 1]);
  });

  it("ignores a corrupt or foreign index and rebuilds it", async (t) => {
    const { text, entries } = bigMemory();
    const p = project(t, { [MEM]: text });
    assert.equal((await p.run("memory-add", add("pattern", "first add builds the index for zebra"))).ok, true);
    const good = readFileSync(join(p.dir, INDEX));
    for (const bad of [Buffer.alloc(good.length), Buffer.from("not an index"), Buffer.concat([good, Buffer.from([1])]), Buffer.from(good.map((b, i) => (i === good.length - 1 ? b ^ 1 : b)))]) {
      writeFileSync(join(p.dir, INDEX), bad);
      const e = entries[entries.length - 3];
      const out = await p.run("memory-add", add(String(e.category), ` ${String(e.content)} `));
      assert.deepEqual([out.ok, out.duplicateOf], [false, e.id]);
    }
    assert.equal((await p.run("memory-add", add("pattern", "another new zebra learning after the rebuild"))).ok, true);
    assert.ok(p.exists(INDEX));
  });

  it("finds every entry of the category whatever its line looks like: UTF-8, escapes, another key order, an escaped category, CRLF", async (t) => {
    const { text, entries } = bigMemory();
    const base = { timestamp: "2026-01-01T00:00:00Z", category: "approach", keywords: ["k"], source: "t", goal_context: "", importance: 5, usage_count: 0 };
    const odd = [
      { id: "ja-1", ...base, content: "CIのキャッシュキーにはロックファイルのハッシュを含める。" },
      { id: "quote-1", ...base, content: 'Quote "$ARGUMENTS" never\nand keep it out of shell lines' },
      { id: "esc-1", ...base, content: "an escaped category name is still that category" },
    ];
    const lines = odd.map((e) => (e.id === "esc-1" ? JSON.stringify(e).replace('"approach"', '"appro\\u0061ch"') : JSON.stringify(e)));
    const legacy = { id: "order-1", content: "legacy key order entries still count for the gate", category: "approach" };
    lines.push(JSON.stringify(legacy));
    entries.push(...odd, legacy);
    const p = project(t, { [MEM]: text + lines.join("\r\n") + "\r\n" });
    // Each probe is refused by the entry a plain comparison names, whether the index is missing (first add) or fresh.
    const probes: Array<[string, string]> = [
      ["approach", "CIでは、キャッシュキーにロックファイルのハッシュを含める"],
      ["approach", 'quote "$ARGUMENTS" never, and keep it out of shell lines'],
      ["approach", "An escaped category name is still that category!"],
      ["approach", "Legacy key order entries still count for the gate"],
    ];
    for (const fresh of [false, true]) {
      for (const [category, content] of probes) {
        if (!fresh) rmSync(join(p.dir, INDEX), { force: true });
        const expected = reference(entries, category, content);
        assert.ok(expected, content);
        const out = await p.run("memory-add", add(category, content));
        assert.deepEqual([out.gate, out.duplicateOf], ["duplicate", expected.id], `${fresh ? "fresh index" : "no index"}: ${content}`);
      }
    }
  });

  it("reads every line in one pass: lines naming no category, blank lines and bare CR ends give no record, the others one each", async (t) => {
    const { text, entries } = bigMemory();
    const base = { timestamp: "2026-01-01T00:00:00Z", keywords: ["k"], source: "t", goal_context: "", importance: 5, usage_count: 0 };
    const unknown = { id: "odd-1", ...base, category: "hunch", content: "an unknown category names none of the six" };
    const notString = { id: "odd-2", ...base, category: "approach", content: 17 };
    const after = { id: "after-1", ...base, category: "failure", content: "the entry after the odd lines is still compared and refused" };
    const tail = [JSON.stringify(unknown), "", "   ", "[1,2]", JSON.stringify(notString), JSON.stringify(after)].join("\r");
    const file = `${text}${tail}\n`;
    const p = project(t, { [MEM]: file });
    const out = await p.run("memory-add", add("failure", "The entry after the odd lines is still compared and refused!"));
    assert.deepEqual([out.gate, out.duplicateOf], ["duplicate", "after-1"]);
    // One record per entry of a category with text content, in file order, each pointing at its own line.
    const records = indexRecords(readFileSync(join(p.dir, INDEX)));
    const expected = [...entries, unknown, notString, after].filter((e) => CATS.includes(String(e.category)) && typeof e.content === "string");
    assert.equal(records.length, expected.length);
    const bytes = Buffer.from(file, "utf8");
    records.forEach((r, i) => {
      assert.equal(JSON.parse(bytes.subarray(r.offset, r.offset + r.length).toString("utf8")).id, expected[i].id);
      assert.equal(r.category, CATS.indexOf(String(expected[i].category)));
    });
  });

  it("refuses the same learning filed again under another category, reworded, in a large file as in a small one (issue 31)", async (t) => {
    const learning = "This repository installs dependencies with pnpm; npm install breaks the lockfile and its workspaces";
    const reworded = "Use pnpm, never npm install, for dependencies here: npm breaks the pnpm lockfile and the workspaces";
    const { text } = bigMemory();
    for (const [what, start] of [["large", text], ["small", ""]] as const) {
      const p = project(t, { [MEM]: start });
      const first: any = await p.run("memory-add", add("convention", learning));
      assert.equal(first.ok, true, `${what}: ${first.error}`);
      const again: any = await p.run("memory-add", add("mistake", reworded));
      assert.deepEqual([again.ok, again.gate, again.duplicateOf, again.existing?.category], [false, "duplicate", first.id, "convention"], `${what}: ${JSON.stringify(again)}`);
      assert.equal(p.exists(INDEX), what === "large");
    }
  });

  it("is not written for a small memory file", async (t) => {
    const p = project(t, { [MEM]: '{"id":"a","category":"pattern","content":"small"}\n' });
    assert.equal((await p.run("memory-add", add("pattern", "a small file needs no index"))).ok, true);
    assert.deepEqual(p.list(".design"), ["memory.jsonl"]);
  });

  describe("append-only upkeep", () => {
    /** The index a rebuild writes for the file as it is now: remove it, and let a refused add of `dupOf` rebuild it. */
    async function rebuiltIndex(p: { dir: string; run: (n: string, a: string[]) => Promise<Record<string, unknown>> }, dupOf: Record<string, unknown>) {
      unlinkSync(join(p.dir, INDEX));
      const out = await p.run("memory-add", add(String(dupOf.category), String(dupOf.content)));
      assert.equal(out.gate, "duplicate", "the rebuild probe must be refused (it changes nothing)");
      return readFileSync(join(p.dir, INDEX));
    }

    it("appends one record per add, in place, after a first add that indexes every category, and ends where rebuilds end", async (t) => {
      const { text, entries } = bigMemory();
      const p = project(t, { [MEM]: text });
      assert.equal((await p.run("memory-add", add("pattern", "zebra crossings need a first index"))).ok, true);
      assert.deepEqual(indexCategories(readFileSync(join(p.dir, INDEX))), CATS, "the gate compares every category: a first add indexes them all");
      assert.equal(indexRecords(readFileSync(join(p.dir, INDEX))).length, entries.filter((e) => CATS.includes(String(e.category)) && typeof e.content === "string").length + 1);
      const ino = statSync(join(p.dir, INDEX)).ino;
      let size = statSync(join(p.dir, INDEX)).size;
      const added: Array<Record<string, unknown>> = [];
      for (let k = 0; k < 8; k++) {
        const category = CATS[k % 6];
        const content = `zebra learning ${k} about ${"abcdefghij".slice(0, k + 1)} crossings and lights`;
        const out = await p.run("memory-add", add(category, content));
        assert.equal(out.ok, true, String(out.error));
        added.push({ category, content });
        const st = statSync(join(p.dir, INDEX));
        assert.equal(st.ino, ino, "the index is appended to, not replaced");
        assert.ok(st.size - size <= 16 + 64, `one record: ${st.size - size} bytes`);
        size = st.size;
      }
      const incremental = indexRecords(readFileSync(join(p.dir, INDEX)));
      assert.deepEqual(indexCategories(readFileSync(join(p.dir, INDEX))), CATS);
      const rebuilt = indexRecords(await rebuiltIndex(p, added[0]));
      assert.deepEqual(rebuilt, incremental.sort((a, b) => a.offset - b.offset), "the same records as a rebuild");
    });

    it("rebuilds after lines appended by another program, and sees them", async (t) => {
      const { text } = bigMemory();
      const p = project(t, { [MEM]: text });
      assert.equal((await p.run("memory-add", add("pattern", "zebra crossings need a first index"))).ok, true);
      const ino = statSync(join(p.dir, INDEX)).ino;
      const foreign = { id: "foreign-1", category: "mistake", content: "a foreign program wrote this zebra line", keywords: ["x"] };
      appendFileSync(join(p.dir, MEM), `${JSON.stringify(foreign)}\n`);
      const out = await p.run("memory-add", add("mistake", "A foreign program wrote this zebra line"));
      assert.deepEqual([out.ok, out.duplicateOf, out.similarity], [false, "foreign-1", 1]);
      assert.notEqual(statSync(join(p.dir, INDEX)).ino, ino, "a stale index is replaced by a rebuilt one");
      assert.equal((await p.run("memory-add", add("mistake", "after the rebuild a new zebra learning lands"))).ok, true);
    });

    it("rebuilds a truncated index, or one with a record changed, and gives the full comparison's verdict", async (t) => {
      const { text, entries } = bigMemory();
      const p = project(t, { [MEM]: text });
      assert.equal((await p.run("memory-add", add("pattern", "zebra crossings need a first index"))).ok, true);
      assert.equal((await p.run("memory-add", add("mistake", "a second zebra add appends a record"))).ok, true);
      const good = readFileSync(join(p.dir, INDEX));
      const damage: Array<[string, () => void]> = [
        ["the last record cut off", () => truncateSync(join(p.dir, INDEX), good.length - 16)],
        ["cut inside the header", () => truncateSync(join(p.dir, INDEX), 40)],
        ["a token hash of an early record changed", () => writeFileSync(join(p.dir, INDEX), Buffer.from(good.map((b, i) => (i === HEADER + 17 ? b ^ 0x40 : b))))],
        ["a record's category changed", () => writeFileSync(join(p.dir, INDEX), Buffer.from(good.map((b, i) => (i === HEADER + 8 ? b ^ 1 : b))))],
      ];
      for (const [what, harm] of damage) {
        writeFileSync(join(p.dir, INDEX), good);
        harm();
        const e = entries[(what.length * 31) % entries.length];
        const expected = reference(entries, String(e.category), String(e.content).toUpperCase());
        const out = await p.run("memory-add", add(String(e.category), String(e.content).toUpperCase()));
        assert.deepEqual([out.ok, out.duplicateOf], [false, expected?.id], what);
        // Rebuilt whole: the next add of that category appends one record to it in place.
        const { ino, size } = statSync(join(p.dir, INDEX));
        const i = damage.findIndex(([w]) => w === what);
        const fresh = `${OTHER[3 * i]} ${OTHER[3 * i + 1]} ${OTHER[3 * i + 2]}`;
        const next = await p.run("memory-add", add(String(e.category), fresh));
        assert.equal(next.ok, true, `${what}: ${next.error}`);
        const after = statSync(join(p.dir, INDEX));
        assert.ok(after.ino === ino && after.size > size && after.size - size <= 16 + 64, `${what}: rebuilt whole`);
      }
    });

    it("never writes through a symlinked or hard-linked index", async (t) => {
      const { text } = bigMemory();
      const p = project(t, { [MEM]: text });
      assert.equal((await p.run("memory-add", add("pattern", "zebra crossings need a first index"))).ok, true);
      const good = readFileSync(join(p.dir, INDEX));
      const outside = mkdtempSync(join(tmpdir(), "do-outside-"));
      t.after(() => rmSync(outside, { recursive: true, force: true }));
      const victim = join(outside, "victim");
      for (const link of ["symlink", "hardlink"] as const) {
        writeFileSync(victim, good);
        unlinkSync(join(p.dir, INDEX));
        if (link === "symlink") symlinkSync(victim, join(p.dir, INDEX));
        else linkSync(victim, join(p.dir, INDEX));
        const text = link === "symlink" ? "a symbolic link in place of the index must never be followed by this zebra add" : "an index with a second hard link stays untouched when the harbour crane lands";
        assert.equal((await p.run("memory-add", add("failure", text))).ok, true);
        assert.deepEqual(readFileSync(victim), good, `${link}: the linked file is unchanged`);
        assert.equal(statSync(join(p.dir, INDEX)).nlink, 1);
        writeFileSync(victim, good);
      }
    });

    it("keeps the gate exact under concurrent adds (separate processes, one lock)", { timeout: 60_000 }, async (t) => {
      const { text } = bigMemory();
      const p = project(t, { [MEM]: text });
      assert.equal((await p.run("memory-add", add("pattern", "zebra crossings need a first index"))).ok, true);
      // Eight processes: four distinct learnings, each sent twice at once. Exactly one of each pair lands.
      const contents = ["harbour cranes lifting", "violin strings tuning", "glacier melting slowly", "pancake batter resting"].map((w) => `concurrent zebra note: ${w}`);
      const runs = await Promise.all([...contents, ...contents].map((c) => cli(["memory-add", ...add("convention", c)], { cwd: p.dir })));
      for (const c of contents) {
        const mine = runs.filter((_, i) => contents[i % 4] === c);
        assert.deepEqual(mine.map((r) => r.json.ok).sort(), [false, true], c);
        assert.equal(mine.find((r) => !r.json.ok)?.json.gate, "duplicate");
      }
      const lines = p.read(MEM).split(/\r?\n/).filter((l) => l.includes("concurrent zebra"));
      assert.equal(lines.length, 4);
      const convention = (r: { category: number }) => r.category === CATS.indexOf("convention");
      const incremental = indexRecords(readFileSync(join(p.dir, INDEX))).filter(convention).sort((a, b) => a.offset - b.offset);
      assert.deepEqual(indexRecords(await rebuiltIndex(p, { category: "convention", content: contents[0] })).filter(convention), incremental);
    });

    it("computes the same CRC-32 in JavaScript as zlib's, chained or whole", () => {
      const rnd = rng(5);
      const data = Buffer.from(Array.from({ length: 5000 }, () => Math.floor(rnd() * 256)));
      // A large `total` makes crc32 load zlib's (small data alone goes to the JavaScript loop first).
      const native = [crc32(data, 0, Infinity), crc32(data.subarray(1234), crc32(data.subarray(0, 1234), 0, Infinity), Infinity), crc32(Buffer.alloc(0), 0, Infinity)];
      useJsCrc(true);
      try {
        const js = [crc32(data), crc32(data.subarray(1234), crc32(data.subarray(0, 1234))), crc32(Buffer.alloc(0))];
        assert.deepEqual(js, native);
        assert.equal(crc32(Buffer.from("123456789")), 0xcbf43926);
      } finally {
        useJsCrc(false);
      }
      assert.equal(native[0], native[1]);
    });
  });

  it("lets through exactly the entries whose hash bound reaches the threshold (the early stop changes nothing)", () => {
    // The bound scanIndex applies: same category, and common / (|A| + |B| - common) at or above the threshold, where
    // common counts the entry's 8-bit token hashes that the new content has too (or, with no tokens on both sides,
    // the same normalised-text hash).
    const rnd = rng(21);
    const vocab = WORDS.concat("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda".split(" "));
    const text = (n: number) => Array.from({ length: n }, () => vocab[Math.floor(rnd() * vocab.length)]).join(" ");
    const entries: IndexEntry[] = [];
    let offset = 0;
    for (let i = 0; i < 3000; i++) {
      // One entry with more tokens than a 64 KB read holds; some without any.
      const content = i === 1500 ? Array.from({ length: 70_000 }, (_, k) => `w${k}`).join(" ") : i % 97 === 0 ? "" : text(1 + Math.floor(rnd() * 14));
      const d = describeContent(content);
      entries.push({ offset, length: 10, category: i % 3, normHash: d.normHash, hashes: d.hashes });
      offset += 11;
    }
    const st = { dev: 1n, ino: 2n, size: BigInt(offset), mtimeNs: 3n, ctimeNs: 4n } as unknown as import("node:fs").BigIntStats;
    const tailBytes = Buffer.from("tail");
    const buf = serialise(entries, st, hashBytes(tailBytes));
    const bound = DUPLICATE_THRESHOLD - 1e-9;
    let found = 0;
    for (let k = 0; k < 300; k++) {
      const base = entries[Math.floor(rnd() * entries.length)];
      const content = k % 5 === 0 ? "" : k % 2 ? text(1 + Math.floor(rnd() * 14)) : `${text(1)} ${text(Math.floor(rnd() * 3))}`;
      const d = describeContent(content);
      const probe = { category: k % 3, hashes: d.hashes, normHash: d.normHash, size: d.size, threshold: DUPLICATE_THRESHOLD };
      const want = entries.filter((e) => {
        if (e.category !== probe.category) return false;
        const na = probe.hashes.length;
        const nb = e.hashes.length;
        if (na === 0 || nb === 0) return na === 0 && nb === 0 && e.normHash === probe.normHash;
        // Each of the entry's hash bytes that the new content also has counts (a repeated byte counts again).
        const common = [...e.hashes].filter((h) => probe.hashes.includes(h)).length;
        return Math.min(na, nb) / Math.max(na, nb) >= bound && common / (na + nb - common) >= bound;
      }).map((e) => ({ offset: e.offset, length: e.length }));
      const got = scanIndex(bufferSource(buf), st, () => tailBytes, probe);
      if (k === 0) {
        // A changed byte anywhere (a skipped record's included) or a missing one: not trusted.
        for (const at of [70, 40_000, buf.length - 1]) {
          const bad = Buffer.from(buf);
          bad[at] ^= 1;
          assert.equal(scanIndex(bufferSource(bad), st, () => tailBytes, probe), undefined, `byte ${at}`);
        }
        assert.equal(scanIndex(bufferSource(buf.subarray(0, buf.length - 4)), st, () => tailBytes, probe), undefined);
      }
      assert.ok(got, "a whole, fresh index is trusted");
      assert.deepEqual(got.found, want, `probe ${k} (near entry at ${base.offset})`);
      found += want.length;
    }
    assert.ok(found > 100, `entries let through: ${found}`);
  });
});
