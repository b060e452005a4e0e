// A house a newcomer reads in ten minutes: no source file over about 400 lines without the reason it is one file,
// stated in its header ("Why one file: …"). Generated files (json-schemas.ts, specs.ts) are exempt.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const SRC = resolve(__dirname, "../../src");
const LIMIT = 420;
const GENERATED = ["schemas/json-schemas.ts", "hooks/specs.ts"];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

describe("source file sizes", () => {
  it(`a file over ${LIMIT} lines says in its header why it is one file`, () => {
    const unexplained = files(SRC)
      .filter((f) => !GENERATED.includes(relative(SRC, f).split("\\").join("/")))
      .filter((f) => {
        const lines = readFileSync(f, "utf8").split("\n");
        if (lines.length <= LIMIT) return false;
        const header = lines.slice(0, 40).filter((l) => l.startsWith("//")).join(" ");
        return !/Why one file: \S/.test(header);
      })
      .map((f) => relative(SRC, f));
    assert.deepEqual(unexplained, []);
  });
});
