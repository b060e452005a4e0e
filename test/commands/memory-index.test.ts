// memory-add's duplicate-gate index (src/commands/memory/dup-index.ts), kept beside memory files of 256 KB and
// more: it must give exactly the verdict of a full comparison with every entry, notice when the file changed
// behind its back, survive being corrupted, and keep the append byte-exact.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { project } from "../helpers/design-dir.ts";
import { contentSimilarity } from "../../src/commands/memory/scoring.ts";
import { INDEX_MIN_BYTES } from "../../src/commands/memory/add.ts";

const MEM = ".design/memory.jsonl";
const INDEX = ".design/.memory.jsonl.index";
const CATS = ["pattern", "mistake", "convention", "approach", "failure", "procedure"];
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
  for (let i = 0; lines.join("\n").length < INDEX_MIN_BYTES + 40_000; i++) {
    const e = { id: `m-${i}`, timestamp: "2026-01-01T00:00:00Z", category: CATS[i % 6], keywords: [w()], content: `${w()} ${w()} ${w()} ${w()} ${w()} notes ${i % 50}`, source: "t", goal_context: "", importance: 5, usage_count: 0 };
    entries.push(e);
    lines.push(i % 97 === 5 ? ` ${JSON.stringify(e, null, 0)} ` : JSON.stringify(e));
    if (i === 10) lines.push('{"id": "torn", "content": "half a line');
  }
  return { text: lines.join("\r\n") + "\r\n", entries };
}

/** The verdict of a plain comparison with every entry: the gate's definition. */
function reference(entries: Array<Record<string, unknown>>, category: string, content: string) {
  let best: { id: unknown; similarity: number } | undefined;
  for (const e of entries) {
    if (e.category !== category || typeof e.content !== "string") continue;
    const s = contentSimilarity(content, e.content);
    if (s >= 0.8 && (!best || s > best.similarity)) best = { id: e.id, similarity: s };
  }
  return best;
}

const add = (category: string, content: string) => ["--category", category, "--keywords", "k", "--content", content];

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
      const probe = k % 4 === 0 ? String(entries[(k * 37) % entries.length].content).toUpperCase() : `${w()} ${w()} ${w()} ${w()} ${w()} notes ${k % 50}`;
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

  it("is not written for a small memory file", async (t) => {
    const p = project(t, { [MEM]: '{"id":"a","category":"pattern","content":"small"}\n' });
    assert.equal((await p.run("memory-add", add("pattern", "a small file needs no index"))).ok, true);
    assert.deepEqual(p.list(".design"), ["memory.jsonl"]);
  });
});
