// `exit` in a check ends the script wherever it stands (inside an `if`, after `&&` or `||`, in a `{ … }` group),
// and only a subshell keeps it in: validate-checks' "exits 0 whatever happens" is held to that. Three sources:
// whole CI `run:` blocks from Python and Rust projects (test/fixtures/checks/exit-blocks.json, sources named
// there), the forms a model writes, and generated scripts whose every outcome real bash runs.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { analyzeCheck, canFail, verifyChecks } from "../../src/lib/checks/checks.ts";

interface Block {
  source: string;
  check: string;
  expect: string[];
  maskers: string[];
  why: string;
  misjudgedBefore: boolean;
}
const blocks = (JSON.parse(readFileSync(join(__dirname, "../fixtures/checks/exit-blocks.json"), "utf8")) as { blocks: Block[] }).blocks;
const codes = (check: string) => analyzeCheck(check).findings.map((f) => `${f.severity}:${f.code}`);

describe("exit in real CI blocks", () => {
  it("names a repository, commit and path for every block", () => {
    for (const b of blocks) assert.match(b.source, /^[\w.-]+\/[\w.-]+@[0-9a-f]{40}:\.github\/\S+\.ya?ml$/);
    assert.ok(blocks.length >= 20);
    assert.ok(blocks.filter((b) => b.misjudgedBefore).length >= 15);
  });

  it("gets exactly the expected findings and maskers on every block (bash -n and python3 included)", async () => {
    const { verdicts, bashAvailable } = await verifyChecks(blocks.map((b) => b.check));
    assert.equal(bashAvailable, true);
    blocks.forEach((b, k) => {
      const got = [...new Set((verdicts[k].findings ?? []).map((f) => f.code))];
      assert.deepEqual(got, b.expect, `${b.source}: ${b.why}\n${verdicts[k].findings?.map((f) => f.message).join("\n")}`);
      assert.deepEqual(analyzeCheck(b.check).maskers, b.maskers, b.source);
      assert.equal(verdicts[k].valid, b.expect.every((c) => c === "masked-step"), b.source);
    });
  });
});

describe("exit ends the script", () => {
  it("keeps a check with a conditional exit 1 able to fail, whatever follows it", () => {
    for (const check of [
      "if ! cargo fmt --check; then echo bad; exit 1; fi; echo done",
      "grep -q TODO src/x.rs && exit 1; echo clean",
      "cargo test || exit 1; echo ok",
      "test -f Cargo.lock || { echo missing; exit 2; }\necho found",
      "case $(uname) in Linux) make test || exit 1 ;; esac; echo ok",
      "fail() { echo \"$1\" >&2; exit 1; }\ncargo test || fail 'tests failed'\necho ok",
      "while read -r f; do test -s \"$f\" || exit 1; done < files.txt; echo ok",
      "[ \"$(git status --porcelain)\" = '' ] && echo clean || exit 1",
    ]) {
      assert.equal(canFail(check), true, check);
      assert.deepEqual(codes(check).filter((c) => c.startsWith("error")), [], check);
    }
  });

  it("still flags what exits 0 whatever happens: exit 0 everywhere, an exit inside a subshell or a pipe", () => {
    assert.deepEqual(codes("npm test; exit 0"), ["error:exit-masked"]);
    assert.deepEqual(codes("if npm test; then exit 0; else exit 0; fi"), ["error:exit-masked"]);
    assert.deepEqual(codes("(npm test || exit 1); echo done"), ["error:exit-masked"]);
    assert.deepEqual(codes("npm test || exit 1 | cat"), ["error:exit-masked"]);
    assert.deepEqual(codes("x=$(npm test || exit 1); echo \"$x\""), ["error:exit-masked"]);
    assert.equal(canFail("npm test; exit 256"), false);
    assert.equal(canFail("npm test; exit 3"), true);
  });

  it("follows a function's exit only while its body is certain: a redefined or recursive one may do anything", () => {
    assert.equal(canFail("f() { echo; }; npm test; f"), false);
    assert.equal(canFail("g() { f() { exit 1; }; }; f() { :; }; g; f"), true);
    assert.equal(canFail("f() { f() { exit 1; }; f; echo; }; f"), true);
  });

  it("reads `cmd && exit 1 || echo` as an inverted command, not a masked one", () => {
    assert.deepEqual(codes("./uv pip install anyio && exit 1 || echo 'Failed as expected'"), []);
    assert.deepEqual(codes("npm test || echo failed"), ["error:exit-masked"]);
  });

  it("names the trailing group that hides the steps before it", () => {
    assert.deepEqual(analyzeCheck("make\n{ echo a; echo b; } >> out").findings, [
      { code: "exit-masked", severity: "error", message: "'; { … }' masks failures: the check exits 0 whatever happens" },
    ]);
  });
});

// ---------------------------------------------------------------- against real bash

/** A script over unknown commands c1…c3 (each may succeed or fail), true/false, echo and exit. */
const script = (): fc.Arbitrary<string> => {
  const leaf = fc.constantFrom("c1", "c2", "c3", "true", "false", "echo x", "exit 0", "exit 1", "exit", ": ok");
  const { tree } = fc.letrec<{ tree: string; list: string }>((tie) => ({
    tree: fc.oneof(
      { maxDepth: 3, depthIdentifier: "s" },
      leaf,
      fc.tuple(tie("tree"), fc.constantFrom("&&", "||", "|", ";", "\n"), tie("tree")).map(([a, op, b]) => `${a} ${op} ${b}`),
      tie("tree").map((a) => `! ${a.replace(/^! /, "")}`),
      tie("list").map((l) => `{ ${l}; }`),
      tie("list").map((l) => `( ${l} )`),
      fc.tuple(tie("list"), tie("list"), fc.option(tie("list"))).map(([c, t, e]) => `if ${c}; then ${t}; ${e === null ? "" : `else ${e}; `}fi`),
      fc.tuple(tie("list"), tie("list")).map(([c, t]) => `if ${c}; then ${t}; elif c3; then echo e; fi`),
      tie("list").map((l) => `f() { ${l}; }; f`),
      tie("list").map((l) => `x=$(${l})`),
    ),
    list: fc.array(tie("tree"), { minLength: 1, maxLength: 3 }).map((xs) => xs.join("; ")),
  }));
  return fc.oneof(tree, fc.tuple(fc.constantFrom("set -e", "set -o pipefail"), tree).map(([s, t]) => `${s}; ${t}`));
};

/** bash -n's verdict: a script it refuses is judged there (shell-syntax), not by the exit analysis. */
const bashReads = (text: string) => spawnSync("bash", ["-n"], { input: text, timeout: 10_000 }).status === 0;

/** Every exit status the script can end with, c1…c3 set each way, as real bash runs it. */
function bashStatuses(text: string): Set<number> {
  const runner = [
    "for v in 000 001 010 011 100 101 110 111; do",
    "  ( c1() { return ${v:0:1}; }; c2() { return ${v:1:1}; }; c3() { return ${v:2:1}; }; eval \"$1\" ) >/dev/null 2>&1",
    "  echo $?",
    "done",
  ].join("\n");
  const r = spawnSync("bash", ["-c", runner, "bash", text], { encoding: "utf8", timeout: 10_000 });
  return new Set(r.stdout.trim().split("\n").map(Number));
}

describe("canFail against real bash", () => {
  const runs = process.env.DO_SOAK === "1" ? 2000 : 150;
  it(`never calls a script that bash can end non-zero one that always exits 0 (${runs} generated scripts)`, () => {
    fc.assert(
      fc.property(script(), (text) => {
        const statuses = bashStatuses(text);
        const bashCanFail = [...statuses].some((s) => s !== 0);
        const ours = canFail(text);
        if (ours === null || !bashReads(text)) return true; // a script bash -n refuses is judged there
        // The analysis may only err towards "can fail" (an unknown command, `exit` with the status before it).
        if (!bashCanFail) return true;
        assert.equal(ours, true, `${JSON.stringify(text)}: bash ends with ${[...statuses]}`);
      }),
      { numRuns: runs, seed: Number(process.env.DO_PROPERTY_SEED ?? 32) },
    );
  });

  it("agrees exactly with bash on scripts without loops of unknown length", () => {
    let agree = 0;
    let total = 0;
    fc.assert(
      fc.property(script(), (text) => {
        const ours = canFail(text);
        if (ours === null || !bashReads(text)) return;
        total++;
        const bashCanFail = [...bashStatuses(text)].some((s) => s !== 0);
        if (ours === bashCanFail) agree++;
        else assert.equal(ours, true, `only over-approximation is allowed: ${JSON.stringify(text)}`);
      }),
      { numRuns: Math.min(runs, 100), seed: 3201 },
    );
    assert.ok(agree / total >= 0.95, `${agree}/${total} agree`);
  });
});
