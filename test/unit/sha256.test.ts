// The JavaScript SHA-256 that short inputs go through (src/lib/sha256.ts) against node:crypto's, and the helper's
// sha256 on both sides of the size at which it hands over to node:crypto.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fc from "fast-check";
import { JS_BUDGET, sha256Small } from "../../src/lib/sha256.ts";
import { sha256 } from "../../src/lib/values.ts";

const nodeHash = (d: string | Uint8Array) => createHash("sha256").update(d).digest("hex");

describe("sha256 in JavaScript", () => {
  it("gives the published digests of FIPS 180-4's examples", () => {
    assert.equal(sha256Small(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert.equal(sha256Small("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert.equal(sha256Small("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  });

  it("equals node:crypto for every length around the block and padding boundaries", () => {
    for (let n = 0; n <= 300; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 131 + n * 7) & 255);
      assert.equal(sha256Small(bytes), nodeHash(bytes), `length ${n}`);
    }
  });

  it("equals node:crypto on random bytes and on text in any script", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 5000 }), (b) => sha256Small(b) === nodeHash(b)), { numRuns: 300 });
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), (s) => sha256Small(s) === nodeHash(s)), { numRuns: 300 });
  });

  it("is what the helper's sha256 gives, before, across and after its JavaScript budget is spent", () => {
    // One process's sequence: small texts within the budget, one that crosses it, then anything.
    const sizes = [0, 10, JS_BUDGET - 600, 500, 200, 1, JS_BUDGET, 3, 70_000];
    for (const n of sizes) {
      const b = Buffer.alloc(n, 0x61 + (n % 7));
      assert.equal(sha256(b), nodeHash(b), `${n} bytes`);
      assert.equal(sha256(b.toString("latin1")), nodeHash(b), `${n} characters`);
      const wide = "é".repeat(Math.ceil(n / 2));
      assert.equal(sha256(wide), nodeHash(wide), `${wide.length} two-byte characters`);
    }
  });
});
