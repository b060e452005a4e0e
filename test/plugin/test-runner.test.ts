// scripts/test.mjs, the runner behind `npm test`: it fails on a failing test, on a file that does not load, on a
// folder without tests and on a path that does not exist, and passes when every test passes. Each run starts its
// own worker pool (about a second of CPU per worker), so the cases share runs.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "../..");

function runner(t: { after: (fn: () => void) => void }, files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "do-runner-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const r = spawnSync(process.execPath, ["scripts/test.mjs", dir], { cwd: ROOT, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const passing = 'import { it } from "node:test";\nimport assert from "node:assert/strict";\nit("adds", () => assert.equal(1 + 1, 2));\n';

describe("the test runner (scripts/test.mjs)", () => {
  it("passes when every test of every file passes, and counts them", (t) => {
    const r = runner(t, { "a.test.ts": passing, "b.test.ts": passing, "notes.md": "not a test\n" });
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /^# all 2 files: tests 2, pass 2, fail 0,/m);
  });

  it("fails when one test fails or a file does not load, and still runs the other files", (t) => {
    const failing = 'import { it } from "node:test";\nit("breaks", () => { throw new Error("broken on purpose"); });\n';
    const broken = 'import { it } from "node:test";\nthis is not code\n';
    const r = runner(t, { "a.test.ts": passing, "b.test.ts": failing, "c.test.ts": broken });
    assert.equal(r.code, 1);
    assert.match(r.out, /broken on purpose/);
    assert.match(r.out, /^# all 3 files: tests 2, pass 1, fail 1,/m);
    assert.match(r.out, /^not ok \d+ - .*c\.test\.ts$/m);
    assert.match(r.out, /^ok \d+ - .*a\.test\.ts$/m);
  });

  it("fails on a folder without test files, and on a path that does not exist", (t) => {
    const empty = runner(t, { "readme.md": "nothing here\n" });
    assert.equal(empty.code, 1);
    assert.match(empty.err, /no test files found/);
    const r = spawnSync(process.execPath, ["scripts/test.mjs", "test/no-such.test.ts"], { cwd: ROOT, encoding: "utf8" });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /no such test file or folder: test\/no-such\.test\.ts/);
  });

  it("hands out the longest files first and never two race files at once", async () => {
    const { testQueue } = await import("../../scripts/test-queue.mjs");
    const ms: Record<string, number> = { r1: 90, r2: 80, a: 70, b: 60, c: 10 };
    const q = testQueue(Object.keys(ms), { weight: (f: string) => ms[f], exclusive: (f: string) => f.startsWith("r") });
    assert.equal(q.take(), "r1");
    assert.equal(q.take(), "a", "r2 waits while r1 runs");
    assert.equal(q.take(), "b");
    q.finished("a");
    assert.equal(q.take(), "c");
    assert.equal(q.take(), null, "only r2 is left and r1 still runs: this worker stops");
    q.finished("r1");
    assert.equal(q.take(), "r2");
    assert.equal(q.left(), 0);
    assert.equal(q.take(), null);
  });
});
