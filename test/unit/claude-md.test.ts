// CLAUDE.md stays a map and the rules: at most MAX_WORDS words (the rest lives beside the code it explains, in each
// folder's README.md and each module's header), and every file or folder it names in backticks exists.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "../..");
const MAX_WORDS = 2500;
const text = readFileSync(join(ROOT, "CLAUDE.md"), "utf8");

/** Words as `wc -w` counts them: runs of non-space. */
export const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

describe("CLAUDE.md", () => {
  it(`is at most ${MAX_WORDS} words`, () => {
    const n = words(text);
    assert.ok(n <= MAX_WORDS, `CLAUDE.md has ${n} words: move the how into the README.md or header beside the code`);
  });

  it("names only files and folders that exist", () => {
    const named = [...text.matchAll(/`((?:src|test|scripts|bench|skills|commands|hooks|dev|docs)\/[^`\s]*)`/g)].map((m) => m[1]);
    assert.ok(named.length > 20, "reads the paths CLAUDE.md names");
    const missing = named.filter((p) => !/[<*…]/.test(p) && !existsSync(join(ROOT, p.replace(/[.,;:]$/, ""))));
    assert.deepEqual([...new Set(missing)], [], "paths CLAUDE.md names that do not exist");
  });

  it("counts words as wc -w does", () => {
    assert.equal(words("  a b\n\tc `d e`  "), 5);
  });
});
