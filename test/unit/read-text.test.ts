// The store reads large files through one reused 64 KB buffer, cutting the text between chunks only where no
// UTF-8 sequence is pending: the result must be exactly readFileSync(path, "utf8"), BOM and invalid bytes included.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readText } from "../../src/store.ts";

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
