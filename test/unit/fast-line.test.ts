import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MEMORY_LINE_AT, matchMemoryLine, parseMemoryLine } from "../../src/commands/memory/fast-line.ts";

// Deterministic pseudo-random source, so a failure reproduces.
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const ALPHABET = ['a', 'Z', '0', ' ', '"', "\\", "/", "\n", "\t", "\u0001", "\u001f", "é", "\u2028", "😀", "{", "}", ",", ":", "[", "]"];

function randomString(r: () => number): string {
  let out = "";
  const n = Math.floor(r() * 12);
  for (let i = 0; i < n; i++) out += ALPHABET[Math.floor(r() * ALPHABET.length)];
  return out;
}

function randomNumber(r: () => number): number {
  const pick = Math.floor(r() * 6);
  return [0, 7, -3, 1.5, 1e21, -2.5e-7][pick];
}

function entry(r: () => number) {
  return {
    id: randomString(r),
    timestamp: randomString(r),
    category: randomString(r),
    keywords: Array.from({ length: Math.floor(r() * 4) }, () => randomString(r)),
    content: randomString(r),
    source: randomString(r),
    goal_context: randomString(r),
    importance: randomNumber(r),
    usage_count: randomNumber(r),
  };
}

describe("the memory line fast path", () => {
  it("reads memory-add's own layout exactly as JSON.parse does", () => {
    const r = rng(1);
    for (let i = 0; i < 3000; i++) {
      const line = JSON.stringify(entry(r));
      assert.deepEqual(parseMemoryLine(line), JSON.parse(line), line);
    }
  });

  it("never accepts a line JSON.parse would reject, nor reads one differently", () => {
    const r = rng(2);
    let accepted = 0;
    for (let i = 0; i < 5000; i++) {
      const good = JSON.stringify(entry(r));
      const at = Math.floor(r() * good.length);
      const mutated = r() < 0.5 ? good.slice(0, at) + good.slice(at + 1) : good.slice(0, at) + ALPHABET[Math.floor(r() * ALPHABET.length)] + good.slice(at);
      const fast = parseMemoryLine(mutated);
      if (fast === undefined) continue;
      accepted++;
      assert.deepEqual(fast, JSON.parse(mutated), mutated);
    }
    assert.ok(accepted > 0, "some harmless mutations (inside strings) are still read");
  });

  it("counts (MEMORY_LINE_AT, at a line's start) exactly the lines it reads (matchMemoryLine), valid, mutated or in other layouts", () => {
    const r = rng(3);
    const isMemoryLine = (line: string) => {
      MEMORY_LINE_AT.lastIndex = 0;
      return MEMORY_LINE_AT.test(line);
    };
    let both = 0;
    for (let i = 0; i < 4000; i++) {
      const good = JSON.stringify(entry(r));
      const at = Math.floor(r() * good.length);
      const lines = [good, good.slice(0, at) + good.slice(at + 1), good.slice(0, at) + ALPHABET[Math.floor(r() * ALPHABET.length)] + good.slice(at), ` ${good}`, JSON.stringify(JSON.parse(good), null, 1)];
      for (const line of lines) {
        assert.equal(isMemoryLine(line), matchMemoryLine(line) !== null, line);
        if (isMemoryLine(line)) both++;
      }
    }
    assert.ok(both > 4000, "every untouched line and some mutated ones are counted");
  });

  it("leaves other layouts to JSON.parse", () => {
    const e = { id: "a", timestamp: "t", category: "c", keywords: [], content: "x", source: "s", goal_context: "", importance: 5, usage_count: 0 };
    assert.ok(parseMemoryLine(JSON.stringify(e)));
    assert.equal(parseMemoryLine(JSON.stringify(e, null, 1)), undefined, "whitespace");
    assert.equal(parseMemoryLine(JSON.stringify({ ...e, extra: 1 })), undefined, "an extra key");
    const { importance: _i, ...noImportance } = e;
    assert.equal(parseMemoryLine(JSON.stringify(noImportance)), undefined, "a missing key");
    assert.equal(parseMemoryLine(JSON.stringify({ ...e, keywords: "a,b" })), undefined, "string keywords (legacy)");
    assert.equal(parseMemoryLine(JSON.stringify({ ...e, importance: "5" })), undefined, "a string importance");
    assert.equal(parseMemoryLine('{"id":"a\\x"}'), undefined);
  });

  it("rejects escapes JSON does not have", () => {
    const base = JSON.stringify({ id: "a", timestamp: "t", category: "c", keywords: [], content: "CONTENT", source: "s", goal_context: "", importance: 5, usage_count: 0 });
    for (const bad of ["\\x41", "\\u12", "\\'", "\\a", "\u0007"]) assert.equal(parseMemoryLine(base.replace("CONTENT", bad)), undefined, bad);
    for (const good of ["\\u0041", "\\/", "\\b\\f\\n\\r\\t", '\\"', "\\\\"]) {
      const line = base.replace("CONTENT", good);
      assert.deepEqual(parseMemoryLine(line), JSON.parse(line), good);
    }
  });
});
