// uuid4 (src/lib/values.ts): random v4 UUIDs from the kernel's random device, node:crypto when it is not usable.
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useRandomSource, uuid4 } from "../../src/lib/values.ts";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Per hex digit outside the fixed version/variant digits: how many distinct values it took over `ids`. */
function spread(ids: string[]): number[] {
  const digits = ids[0].replace(/-/g, "").length;
  return Array.from({ length: digits }, (_, i) => new Set(ids.map((id) => id.replace(/-/g, "")[i])).size);
}

describe("uuid4", () => {
  afterEach(() => useRandomSource("/dev/urandom"));

  it("gives canonical lowercase v4 UUIDs: version nibble 4, variant bits 10", () => {
    for (let i = 0; i < 2000; i++) {
      const id = uuid4();
      assert.match(id, V4);
      const bytes = Buffer.from(id.replace(/-/g, ""), "hex");
      assert.equal(bytes[6] >> 4, 4);
      assert.equal(bytes[8] >> 6, 0b10);
    }
  });

  it("never repeats and uses every random digit (10,000 ids)", () => {
    const ids = Array.from({ length: 10_000 }, () => uuid4());
    assert.equal(new Set(ids).size, ids.length);
    const s = spread(ids);
    // Digit 12 is the version (always 4) and digit 16 the variant (8, 9, a or b); every other digit takes all 16 values.
    s.forEach((n, i) => assert.equal(n, i === 12 ? 1 : i === 16 ? 4 : 16, `hex digit ${i}`));
  });

  it("reads the random device when there is one", { skip: !existsSync("/dev/urandom") }, () => {
    // A character device other than a random one proves the bytes come from the device: /dev/zero gives zeros.
    useRandomSource("/dev/zero");
    assert.equal(uuid4(), "00000000-0000-4000-8000-000000000000");
  });

  it("falls back to node:crypto when the source is missing or not a character device", () => {
    const dir = mkdtempSync(join(tmpdir(), "do-uuid-"));
    try {
      const plain = join(dir, "zeros");
      writeFileSync(plain, Buffer.alloc(64));
      for (const source of [plain, join(dir, "missing"), dir]) {
        useRandomSource(source);
        const ids = Array.from({ length: 500 }, () => uuid4());
        ids.forEach((id) => assert.match(id, V4));
        assert.equal(new Set(ids).size, ids.length, source);
        assert.ok(!ids.includes("00000000-0000-4000-8000-000000000000"), "a regular file's bytes are never used");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
