// newId (src/lib/ids.ts): the ids whose format the contract leaves open (run ids), from nanoid's customRandom over
// the kernel's random device. Memory and reflection ids stay UUID v4 (test/unit/uuid.test.ts).
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { newId } from "../../src/lib/ids.ts";
import { useRandomSource } from "../../src/lib/values.ts";

const NANOID = /^[A-Za-z0-9_-]{21}$/;

describe("newId", () => {
  afterEach(() => useRandomSource("/dev/urandom"));

  it("gives 21 characters of the URL-safe alphabet, never repeated, every character used (10,000 ids)", () => {
    const ids = Array.from({ length: 10_000 }, () => newId());
    ids.forEach((id) => assert.match(id, NANOID));
    assert.equal(new Set(ids).size, ids.length);
    // 64 symbols at each of the 21 positions: all of them show up over 10,000 draws.
    for (let i = 0; i < 21; i++) assert.equal(new Set(ids.map((id) => id[i])).size, 64, `position ${i}`);
  });

  it("takes its bytes from the random device", { skip: !existsSync("/dev/zero") }, () => {
    // /dev/zero is a character device that gives zeros: nanoid maps byte 0 to the alphabet's first symbol, "u".
    useRandomSource("/dev/zero");
    assert.equal(newId(), "u".repeat(21));
  });
});
