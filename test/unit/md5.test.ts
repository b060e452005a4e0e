import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { md5Hex } from "../../src/lib/workspace/md5.ts";

// team-name's tag of the cwd is an MD5 computed in JavaScript (so the call does not load node:crypto): it must be
// node:crypto's MD5 for every input, across block boundaries and in UTF-8.
describe("md5Hex", () => {
  it("matches the RFC 1321 test suite", () => {
    assert.equal(md5Hex(""), "d41d8cd98f00b204e9800998ecf8427e");
    assert.equal(md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
    assert.equal(md5Hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
    assert.equal(md5Hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890"), "57edf4a22be3c955ac49da2e2107b67a");
  });

  it("equals node:crypto's MD5 on paths of every length around the block sizes, and on non-ASCII text", () => {
    const inputs: string[] = [];
    for (let n = 0; n < 200; n++) inputs.push(`/home/user/${"p".repeat(n)}`.slice(0, n));
    inputs.push("/tmp/проект/デザイン", "/a/😀/b", "C:\\Users\\x y\\dir");
    for (const s of inputs) assert.equal(md5Hex(s), createHash("md5").update(s, "utf8").digest("hex"), JSON.stringify(s));
  });
});
