// The store reads large files through one reused 64 KB buffer, cutting the text between chunks only where no
// UTF-8 sequence is pending: the result must be exactly readFileSync(path, "utf8"), BOM and invalid bytes included.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readText, scanJsonl, scanJsonlFile } from "../../src/store.ts";

describe("readText", () => {
  it("equals readFileSync(path, 'utf8') around every chunk boundary, with multi-byte, invalid and BOM bytes", (t) => {
    const dir = mkdtempSync(join(tmpdir(), "do-read-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    let seed = 1;
    const r = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
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
    const dir = mkdtempSync(join(tmpdir(), "do-scan-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    let seed = 7;
    const r = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
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
