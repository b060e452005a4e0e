// validate-checks' analysis on real shell lines (test/fixtures/checks/README.md says where each came from): every
// line must get exactly the finding codes it expects. A code too many is a false alarm, one too few a miss; both
// counts must be zero.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { extractPythonSources, isSurfaceOnly, verifyChecks } from "../../src/lib/checks/checks.ts";

interface Line {
  section: "ci" | "python" | "known-bad";
  check: string;
  source: string;
  expect: string[];
  python?: number;
  surfaceOnly?: boolean;
  why?: string;
}

const corpus = JSON.parse(readFileSync(join(__dirname, "../fixtures/checks/corpus.json"), "utf8")) as {
  commits: Record<string, string>;
  lines: Line[];
};
const lines = corpus.lines;

describe("the check corpus", () => {
  it("names a source for every line: a repository with its commit, and a path", () => {
    for (const l of lines) {
      const m = /^([\w.-]+\/[\w.-]+)(?:@([0-9a-f]{40}))?:(.+)$/.exec(l.source);
      assert.ok(m, `bad source ${l.source}`);
      assert.ok(m[2] || /^[0-9a-f]{40}$/.test(corpus.commits[m[1]] ?? ""), `no commit for ${l.source}`);
    }
    const sections = new Set(lines.map((l) => l.section));
    assert.deepEqual([...sections].sort(), ["ci", "known-bad", "python"]);
  });

  it("gets exactly the expected findings on every line: no false alarm, no miss", async (t) => {
    const { verdicts, pythonAvailable, bashAvailable } = await verifyChecks(lines.map((l) => l.check));
    assert.equal(pythonAvailable, true);
    assert.equal(bashAvailable, true);
    const falseAlarms: string[] = [];
    const misses: string[] = [];
    lines.forEach((l, k) => {
      const got = new Set((verdicts[k].findings ?? []).map((f) => f.code));
      for (const code of got) if (!l.expect.includes(code)) falseAlarms.push(`${l.source}: ${code} on ${JSON.stringify(l.check)}: ${verdicts[k].findings?.map((f) => f.message).join("; ")}`);
      for (const code of l.expect) if (!got.has(code)) misses.push(`${l.source}: no ${code} on ${JSON.stringify(l.check)}`);
      assert.equal(verdicts[k].valid, l.expect.every((c) => c === "masked-step"), `${l.source}: valid`);
    });
    const expected = lines.reduce((n, l) => n + l.expect.length, 0);
    t.diagnostic(`${lines.length} lines, ${expected} expected findings: ${falseAlarms.length} false alarms, ${misses.length} misses`);
    assert.deepEqual(falseAlarms, []);
    assert.deepEqual(misses, []);
  });

  it("flags every known-bad line and no line of real CI or Python that expects nothing", () => {
    assert.ok(lines.filter((l) => l.section === "known-bad").every((l) => l.expect.length > 0));
    const clean = lines.filter((l) => l.section !== "known-bad" && l.expect.length === 0);
    assert.ok(clean.length >= 150, `only ${clean.length} clean lines`);
  });

  it("hands Python the sources the shell would: one per python -c, masked where the shell alone knows", () => {
    for (const l of lines) {
      if (l.python === undefined) continue;
      assert.equal(extractPythonSources(l.check).length, l.python, `${l.source}: ${l.check}`);
    }
    const masked = lines.filter((l) => extractPythonSources(l.check).some((s) => s.includes("_sh_")));
    assert.ok(masked.length >= 8, `only ${masked.length} lines pass shell text into Python`);
  });

  it("applies finalize's existence-only rule to every part of a command", () => {
    for (const l of lines) {
      if (l.surfaceOnly !== undefined) assert.equal(isSurfaceOnly(l.check), l.surfaceOnly, `${l.source}: ${l.check}`);
    }
  });
});
