// The store reads large files through one reused 64 KB buffer, cutting the text between chunks only where no
// UTF-8 sequence is pending: the result must be exactly readFileSync(path, "utf8"), BOM and invalid bytes included.
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countJsonlFile, readText, scanJsonl, scanJsonlFile } from "../../src/store.ts";
import { MEMORY_LINE_AT } from "../../src/commands/memory/fast-line.ts";

/** A temp folder removed after the test. */
function scratch(t: TestContext, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A seeded pseudo-random sequence in [0, 1), the same on every run. */
function lcg(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

describe("readText", () => {
  it("equals readFileSync(path, 'utf8') around every chunk boundary, with multi-byte, invalid and BOM bytes", (t) => {
    const dir = scratch(t, "do-read-");
    const r = lcg(1);
    const pieces = ["a", "é", "😀", "€", "\ufeff", "\n", "\r\n"].map((s) => Buffer.from(s))
      .concat([[0xff], [0xe2, 0x28], [0x80], [0xf0, 0x9f], [0xc3]].map((b) => Buffer.from(b)));
    for (let k = 0; k < 48; k++) {
      const size = [0, 10, 65535, 65536, 65537, 131071, 131072, 200_000][k % 8] + Math.floor(r() * 5);
      const parts: Buffer[] = [];
      for (let len = 0; len < size; ) {
        const p = pieces[Math.floor(r() * pieces.length)];
        parts.push(p);
        len += p.length;
      }
      const file = join(dir, `f${k}`);
      writeFileSync(file, Buffer.concat(parts));
      assert.deepEqual(readText(file), { kind: "ok", text: readFileSync(file, "utf8") }, `file ${k} (${size} bytes)`);
    }
  });
});

describe("scanJsonlFile", () => {
  it("visits the same entries with the same line numbers and skips the same lines as scanJsonl on the whole text", (t) => {
    const dir = scratch(t, "do-scan-");
    const r = lcg(7);
    const ends = ["\n", "\r\n", "\r", "\n\n", "\r\r\n"];
    const lines = [(i: number) => JSON.stringify({ id: `m${i}`, content: "é😀".repeat(i % 5) + "x".repeat(i % 700) }), () => "{torn", () => "  ", () => "[1]", (i: number) => ` {"id": ${i}} `];
    for (let k = 0; k < 12; k++) {
      let text = "";
      for (let i = 0; text.length < 60_000 + k * 20_000; i++) text += lines[Math.floor(r() * lines.length)](i) + ends[Math.floor(r() * ends.length)];
      if (k % 2) text += lines[0](k); // no final line end
      const file = join(dir, `m${k}.jsonl`);
      writeFileSync(file, text);
      const want: unknown[] = [];
      const wantScan = scanJsonl(readFileSync(file, "utf8"), (v, line) => want.push([line, v]));
      const got: unknown[] = [];
      const gotScan = scanJsonlFile(file, (v, line) => got.push([line, v]));
      assert.deepEqual(gotScan, { kind: "ok", ...wantScan }, `file ${k}`);
      assert.deepEqual(got, want, `file ${k}`);
    }
    assert.deepEqual(scanJsonlFile(join(dir, "missing.jsonl"), () => undefined), { kind: "missing" });
  });
});

describe("countJsonlFile", () => {
  it("counts the entries and skips the lines scanJsonl does, lines in memory-add's layout counted in place", (t) => {
    const dir = scratch(t, "do-count-");
    const r = lcg(11);
    const ends = ["\n", "\r\n", "\r", "\n\n", "\r\r\n", " \n", "\t\r\n"];
    const entry = (i: number, content: string) => JSON.stringify({
      id: `m${i}`, timestamp: "2026-01-01T00:00:00Z", category: "pattern", keywords: ["a", `k${i}`], content,
      source: "s", goal_context: "", importance: 5, usage_count: i % 3,
    });
    const lines = [
      (i: number) => entry(i, "é😀\\\"".repeat(i % 5) + "x".repeat(i % 700)), // memory-add's layout
      (i: number) => entry(i, "y".repeat(70_000 + i)), // longer than the 64 KB buffer
      (i: number) => ` ${entry(i, "lead")}`, // the layout after a space: JSON.parse's path
      (i: number) => `${entry(i, "z")}`.replace('"id"', '"id" '), // another layout
      (i: number) => `${entry(i, "torn")}`.slice(0, 40), // corrupt
      () => "{torn", () => "  ", () => "[1]", () => "\ufeff{}", (i: number) => ` {"id": ${i}} `,
    ];
    let fast = 0;
    for (let k = 0; k < 16; k++) {
      let text = ""; // file 15 stays empty
      for (let i = 0; k < 15 && text.length < 50_000 + k * 25_000; i++) {
        const pick = Math.floor(r() * lines.length);
        if (pick === 1 && r() < 0.7) continue; // a few long lines only
        if (pick === 0) fast++;
        text += lines[pick](i) + ends[Math.floor(r() * ends.length)];
      }
      if (k % 2) text += lines[0](k); // no final line end
      if (k === 14) text += "\r"; // a final lone CR
      const file = join(dir, `m${k}.jsonl`);
      writeFileSync(file, text);
      let want = 0;
      const wantScan = scanJsonl(readFileSync(file, "utf8"), () => want++);
      assert.deepEqual(countJsonlFile(file, MEMORY_LINE_AT), { kind: "ok", count: want, ...wantScan }, `file ${k}`);
    }
    assert.ok(fast > 150, `lines in memory-add's layout: ${fast}`);
    assert.deepEqual(countJsonlFile(join(dir, "missing.jsonl"), MEMORY_LINE_AT), { kind: "missing" });
    assert.equal(countJsonlFile(dir, MEMORY_LINE_AT).kind, "error");
  });

  it("counts in place only what matchMemoryLine accepts", () => {
    const line = JSON.stringify({ id: "a", timestamp: "t", category: "pattern", keywords: [], content: "c", source: "s", goal_context: "", importance: 5, usage_count: 0 });
    const at = (text: string, from: number) => {
      MEMORY_LINE_AT.lastIndex = from;
      return MEMORY_LINE_AT.test(text);
    };
    assert.equal(at(`${line}\n${line}`, 0), true);
    assert.equal(at(`${line}\n${line}`, line.length + 1), true);
    assert.equal(at(`${line}\r\n`, 0), true);
    assert.equal(at(`${line} \n`, 0), false); // trailing space: left to trim and JSON.parse
    assert.equal(at(` ${line}\n`, 0), false);
    assert.equal(at(`${line}x\n`, 0), false);
    assert.equal(at(`x${line}`, 0), false); // sticky: no search further on
  });
});
