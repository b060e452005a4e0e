// Acceptance-check analysis as the shell sees a check: inline Python after quoting and expansion, exit-code
// maskers, CI expressions, placeholders, prose, finalize's existence-only rule (3.8 reworked), the batched python3
// compiler (3.9, D12) and the batched bash -n.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import {
  analyzeCheck, compilePython, errorAtMask, extractPythonSources, isSurfaceOnly, maskersIn, shellSyntax, verifyChecks,
} from "../../src/lib/checks/checks.ts";

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "do-checks-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An executable shell script standing in for python3 or bash. */
function fakeProgram(t: TestContext, name: string, body: string): string {
  const path = join(tempDir(t), name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** A bash that records each start in `counter`, then runs the real one. */
function countingBash(t: TestContext): { command: string; runs: () => number } {
  const counter = join(tempDir(t), "count");
  const command = fakeProgram(t, "bash", `echo run >> "${counter}"; exec bash "$@"`);
  return { command, runs: () => (existsSync(counter) ? readFileSync(counter, "utf8").split("\n").length - 1 : 0) };
}

const codes = (check: string) => analyzeCheck(check).findings.map((f) => `${f.severity}:${f.code}`);

describe("extractPythonSources: what the shell hands python -c", () => {
  it("honours shell quoting (D12: print(\\\"hi\\\"), adjacent segments, multi-line)", () => {
    assert.deepEqual(extractPythonSources(`python3 -c "print(\\"hi\\")"`), ['print("hi")']);
    assert.deepEqual(extractPythonSources(`python3 -c 'import sys; '"print(sys.argv)" arg`), ["import sys; print(sys.argv)"]);
    assert.deepEqual(extractPythonSources("python3 -c 'import json\nprint(1)'"), ["import json\nprint(1)"]);
    assert.deepEqual(extractPythonSources(`python3 -c $'print(1)\\nprint(2)'`), ["print(1)\nprint(2)"]);
  });

  it("masks what only the shell knows: $VAR, ${…}, $(…), backticks, $((…))", () => {
    assert.deepEqual(extractPythonSources(`python3 -c "import sys; sys.exit($STATUS)"`), ["import sys; sys.exit(_sh_)"]);
    assert.deepEqual(extractPythonSources(`python3 -c "import \${MOD}; print('$(cat f)')"`), ["import _sh_; print('_sh_')"]);
    assert.deepEqual(extractPythonSources("python3 -c \"print(`date`, $((1+2)))\""), ["print(_sh_, _sh_)"]);
    assert.deepEqual(extractPythonSources(`python3 -c "$CODE"`), ["_sh_"]);
  });

  it("keeps single-quoted $ as Python text, and a number a number", () => {
    assert.deepEqual(extractPythonSources(`python3 -c 'print("$x")'`), ['print("$x")']);
    assert.deepEqual(extractPythonSources(`python3 -c "print(1$N, 2.$M)"`), ["print(10, 2.0)"]);
  });

  it("finds python -c after a path containing -c and in every part of a compound command (D12)", () => {
    assert.deepEqual(extractPythonSources(`cd /x-cache && python3 -c 'if x'`), ["if x"]);
    assert.deepEqual(extractPythonSources(`python3 -c 'a=1'; python3 -c "b=2" | python3 -c 'c=3'`), ["a=1", "b=2", "c=3"]);
    assert.deepEqual(extractPythonSources(`[[ $(python -c "print(1)") == 1 ]] && x=$(python3 -c 'print(2)')`), ["print(1)", "print(2)"]);
  });

  it("knows python, python3, python3.12, pypy3 and paths to them, and not python2", () => {
    for (const py of ["python", "python3", "python3.12", "python3.13t", "pypy3", "/usr/bin/python3", ".venv/bin/python"]) {
      assert.deepEqual(extractPythonSources(`${py} -c 'x=1'`), ["x=1"], py);
    }
    assert.deepEqual(extractPythonSources("python2 -c 'print 1'"), []);
  });

  it("reads python's own options before -c: clusters, -W/-X arguments, -m and scripts stop it", () => {
    assert.deepEqual(extractPythonSources(`python3 -I -S -c 'x=1'`), ["x=1"]);
    assert.deepEqual(extractPythonSources(`python3 -Sc 'x=1'`), ["x=1"]);
    assert.deepEqual(extractPythonSources(`python3 -c"x=1"`), ["x=1"]);
    assert.deepEqual(extractPythonSources(`python3 -cx`), ["x"]);
    assert.deepEqual(extractPythonSources(`python3 -W ignore -X dev -c 'x=1'`), ["x=1"]);
    assert.deepEqual(extractPythonSources("python3 -m pytest -c 'x'"), []);
    assert.deepEqual(extractPythonSources("python3 script.py -c 'x'"), []);
    assert.deepEqual(extractPythonSources(`python3 $FLAGS -c 'x'`), []);
  });

  it("looks through runners (env, timeout, uv run, sde --, python -m spin run) but not through echo", () => {
    assert.deepEqual(extractPythonSources(`env A=1 python3 -c 'x=1'`), ["x=1"]);
    assert.deepEqual(extractPythonSources(`A=1 timeout 20 python -c 'x=1'`), ["x=1"]);
    assert.deepEqual(extractPythonSources(`uv run --with pyyaml python -c 'x=1'`), ["x=1"]);
    assert.deepEqual(extractPythonSources(`sde -skx -- python -c 'x=1'`), ["x=1"]);
    assert.deepEqual(extractPythonSources(`python -m spin run python -P -c 'x=1'`), ["x=1"]);
    assert.deepEqual(extractPythonSources(`echo python3 -c 'if x'`), []);
    assert.deepEqual(extractPythonSources(`"$PY" -c 'if x'`), []);
  });

  it("yields nothing for a check the parser cannot read (bash -n judges it)", () => {
    assert.deepEqual(extractPythonSources("python3 -c 'print(1)"), []);
    assert.deepEqual(extractPythonSources("python3 -c print(1)"), []);
    assert.deepEqual(extractPythonSources("npm test"), []);
  });

  it("does not look for python -c inside an extracted source", () => {
    assert.deepEqual(extractPythonSources(`python3 -c "import os; os.system('python3 -c 1')"`), ["import os; os.system('python3 -c 1')"]);
  });
});

describe("errorAtMask", () => {
  const src = (source: string, masks: Array<[number, number]>) => ({ source, masks });

  it("is true for an error on or next to a masked expansion", () => {
    assert.equal(errorAtMask(src("print(3 _sh_ 4)", [[8, 12]]), [1, 7, 1, 14]), true);
    assert.equal(errorAtMask(src("x = 1\ny = a_sh_", [[11, 15]]), [2, 6, 2, 7]), true);
  });

  it("is false for an error elsewhere, or when nothing is masked", () => {
    assert.equal(errorAtMask(src("x = _sh_\nif x", [[4, 8]]), [2, 5, null, null]), false);
    assert.equal(errorAtMask(src("if x", []), [1, 5, 1, 5]), false);
    assert.equal(errorAtMask(src("_sh_", [[0, 4]]), null), false);
  });
});

describe("compilePython", () => {
  it("reports null for a source that compiles and SyntaxError with its line and place for one that does not", async () => {
    const { available, errors, at } = await compilePython(["print(1)", "x = 1\nif x", "def f(:\n  pass"]);
    assert.equal(available, true);
    assert.equal(errors[0], null);
    assert.match(errors[1] as string, /^SyntaxError: .+ at line 2$/);
    assert.match(errors[2] as string, /^SyntaxError: .+ at line 1$/);
    assert.equal(at[0], null);
    assert.equal(at[1]?.[0], 2);
    assert.equal(typeof at[1]?.[1], "number");
  });

  it("reports other failures as Compilation error (NUL bytes)", async () => {
    const { errors } = await compilePython(["print(1)\0"]);
    assert.match(errors[0] as string, /^Compilation error: /);
  });

  it("compiles non-ASCII text", async () => {
    assert.deepEqual((await compilePython(["print('héllo — ✓')"])).errors, [null]);
  });

  it("starts no process and reports available when there is nothing to compile", async (t) => {
    const counter = join(tempDir(t), "count");
    const python = fakeProgram(t, "python3", `echo run >> "${counter}"; exec python3 "$@"`);
    assert.deepEqual(await compilePython([], { command: python }), { available: true, errors: [], at: [] });
    assert.equal(existsSync(counter), false);
  });

  it("is unavailable when python3 cannot be started, does not answer in time, or answers the wrong count", async (t) => {
    assert.equal((await compilePython(["if x"], { command: "/nonexistent/python3" })).available, false);
    const slow = fakeProgram(t, "python3", "exec sleep 5");
    const started = Date.now();
    assert.deepEqual(await compilePython(["print(1)"], { command: slow, timeoutMs: 200 }), { available: false, errors: [null], at: [null] });
    assert.ok(Date.now() - started < 3000);
    const short = fakeProgram(t, "python3", "cat > /dev/null; echo '[null]'");
    assert.equal((await compilePython(["a", "b"], { command: short })).available, false);
  });
});

describe("exit-code maskers", () => {
  it("makes a check that exits 0 whatever happens an error: || true, || :, || echo, || exit 0", () => {
    for (const [check, word] of [["npm test || true", "|| true"], ["npm test||:", "|| :"], ["npm test || echo failed", "|| echo"], ["make check || exit 0", "|| exit 0"]]) {
      const a = analyzeCheck(check);
      assert.deepEqual(a.maskers, [word], check);
      assert.deepEqual(a.findings, [{ code: "exit-masked", severity: "error", message: `'${word}' masks failures: the check exits 0 whatever happens` }]);
    }
  });

  it("flags ; exit 0, ; true and a trailing echo after a command that can fail", () => {
    assert.deepEqual(maskersIn("npm test; exit 0"), ["; exit 0"]);
    assert.deepEqual(maskersIn("npm test; true"), ["; true"]);
    assert.deepEqual(maskersIn("make\necho done"), ["; echo"]);
    assert.deepEqual(codes("npm test; exit 0"), ["error:exit-masked"]);
  });

  it("flags a pipe into tail, head, tee, cat or less without pipefail", () => {
    for (const sink of ["tail -5", "head -n 20", "tee log", "cat", "less"]) {
      assert.deepEqual(codes(`npm test 2>&1 | ${sink}`), ["error:exit-masked"], sink);
    }
    assert.deepEqual(analyzeCheck("npm test | tail -5").findings[0].message, "'| tail' masks failures: the check exits 0 whatever happens");
  });

  it("accepts the pipe under set -o pipefail in any spelling, and when PIPESTATUS is read", () => {
    for (const set of ["set -o pipefail", "set -euo pipefail", "set -eo pipefail", "set -Eeuxo pipefail"]) {
      assert.deepEqual(codes(`${set}; npm test | tail -5`), [], set);
    }
    assert.deepEqual(codes("npm test | tail -5; exit ${PIPESTATUS[0]}"), []);
    // `set` with literal options succeeds: turned on after the pipe, pipefail leaves it exiting 0.
    assert.deepEqual(codes("npm test | tail -5; set -o pipefail"), ["error:exit-masked"]);
    assert.deepEqual(codes("npm test | tail -5; set -o pipefail; npm run lint"), ["warning:masked-step"]);
  });

  it("does not count what keeps the failure: || exit 1, || { echo; exit 1; }, set -e before a trailing echo", () => {
    assert.deepEqual(codes("npm test || exit 1"), []);
    assert.deepEqual(codes("npm test || { echo failed; exit 1; }"), []);
    assert.deepEqual(codes("set -e; npm test; echo done"), []);
    assert.deepEqual(codes("grep -q x f | wc -l"), []);
    assert.deepEqual(codes("true"), []);
    assert.deepEqual(codes("echo hi | tail -1"), []);
  });

  it("flags an if whose every branch succeeds only when it decides the exit status", () => {
    assert.deepEqual(analyzeCheck("if grep -q x f; then echo found; fi").findings, [
      { code: "exit-masked", severity: "error", message: "'if' with no failing branch masks failures: the check exits 0 whatever happens" },
    ]);
    assert.deepEqual(codes("if grep -q x f; then echo yes; else echo no; fi"), ["error:exit-masked"]);
    assert.deepEqual(codes("if ! grep -q x f; then echo missing; exit 1; fi"), []);
    assert.deepEqual(codes("if [ -f a ]; then X=1; fi; npm test"), []);
  });

  it("counts an assignment after || (a status kept for later) only when nothing comes later", () => {
    assert.deepEqual(maskersIn("lint || STATUS=$?"), ["|| STATUS="]);
    assert.deepEqual(analyzeCheck("lint || STATUS=$?").findings[0].message, "'|| STATUS=…' masks failures: the check exits 0 whatever happens");
    assert.deepEqual(codes("lint || STATUS=$?; test || STATUS=$?; exit $STATUS"), []);
  });

  it("warns about a masker that leaves the status to a later command", () => {
    assert.deepEqual(analyzeCheck("npm run build || true && npm test").findings, [
      { code: "masked-step", severity: "warning", message: "'|| true' masks failures" },
    ]);
    assert.deepEqual(codes("rm -rf out || true; npm test | tail -3 && npm run lint"), ["warning:masked-step", "warning:masked-step"]);
    assert.deepEqual(maskersIn("rm -rf out || true; npm test | tail -3 && npm run lint"), ["|| true", "| tail"]);
  });

  it("does not look into function bodies or treat words that only start like a masker as one", () => {
    assert.deepEqual(codes("f() { a || true; }"), []);
    assert.deepEqual(maskersIn("a || trueish"), []);
    assert.deepEqual(maskersIn("a || echoes"), []);
    assert.deepEqual(maskersIn("a | true"), []);
  });
});

describe("CI expressions, placeholders and prose", () => {
  it("flags a ${{ … }} the shell would see, unquoted, double-quoted or single-quoted", () => {
    assert.deepEqual(analyzeCheck("spin build -- ${{ matrix.config.args }}").findings, [
      { code: "ci-expression", severity: "error", message: "'${{ matrix.config.args }}' is a CI expression: only a CI runner fills it in" },
    ]);
    assert.deepEqual(codes(`pytest -k "\${{ matrix.k }}"`), ["error:ci-expression"]);
    assert.deepEqual(codes(`gh pr edit 1 --repo '\${{ github.repository }}'`), ["error:ci-expression"]);
  });

  it("leaves ${{ alone where a pattern tool searches for it, and leaves ${x} and {{.Go}} templates alone", () => {
    assert.deepEqual(codes(`grep -q '\${{ secrets.TOKEN }}' .github/workflows/ci.yml`), []);
    assert.deepEqual(codes(`echo "\${HOME}"`), []);
    assert.deepEqual(codes(`docker ps --format '{{.Names}}'`), []);
  });

  it("flags a template placeholder in command position", () => {
    assert.deepEqual(analyzeCheck("{context.testCommand}").findings, [
      { code: "placeholder", severity: "error", message: "'{context.testCommand}' is a template placeholder, not a command" },
    ]);
    assert.deepEqual(codes("{a,b}"), []);
    assert.deepEqual(codes("find . -name x -exec rm {} +"), []);
  });

  it("flags sentences", () => {
    for (const prose of [
      "All unit tests pass for the new endpoint",
      "10 rapid requests to /api/health — last returns 429",
      "curl -s returns 429 after N requests",
      "npm test exits 0",
      "Verify that the output is correct.",
      "the server should respond with the new header",
    ]) {
      assert.deepEqual(codes(prose), ["error:not-a-command"], prose);
    }
    assert.match(analyzeCheck("npm test exits 0").findings[0].message, /^'npm test exits 0' reads as a sentence, not a command$/);
  });

  it("does not take commands with English-looking arguments for sentences", () => {
    for (const cmd of [
      "echo the tests should pass when the server is up",
      "git commit -m 'the fix for the bug'",
      "grep -r 'should be' src",
      "sudo apt-get install -y git curl make gcc",
      "make all check install",
      "Rscript -e 'testthat::test_dir(\"tests\")'",
      "brew install breezy subversion",
      "gh issue lock $ISSUE_URL --reason off_topic",
      "tox -e fuzz --result-json $python_ver",
    ]) {
      assert.deepEqual(codes(cmd), [], cmd);
    }
  });
});

describe("isSurfaceOnly (existence-only rule, by the parts of a command)", () => {
  const cases: Array<[string, boolean]> = [
    ["grep -q x f", true],
    ["test -f out.json", true],
    ["cat f | grep -c x", true],
    ["! grep x f | wc -l", true],
    ["wc -l f", true],
    ["grep a f && grep b f", true],
    ["test -f a && test -f b", true],
    ["grep x f && exit 1", true],
    ["grep x f || true", true],
    ["[[ -d dist ]] && ls dist", true],
    ["test $(wc -l < skills/execute/SKILL.md) -lt 500", true],
    ["cd web && git diff --exit-code", true],
    ["timeout 5 grep x f", true],
    ["bash -c 'grep -q x f'", true],
    ["echo ok", true],
    ["python3 -m pytest tests/", false],
    ["make; grep x f", false],
    ["grep -q x f && npm test", false],
    ["[ \"$(node -e 'console.log(1)')\" = 1 ]", false],
    ["find . -name '*.py' -exec python {} \\;", false],
    ["git apply --check p.diff", false],
    ["bash -c 'npm test'", false],
    ["curl -sf localhost:8080/health", false],
    ["./bin/tool --version", false],
    ["\"$TOOL\" --version", false],
  ];
  for (const [cmd, expected] of cases) {
    it(`says ${expected ? "yes" : "no"} for \`${cmd}\``, () => assert.equal(isSurfaceOnly(cmd), expected));
  }

  it("recognises grep spellings and cases, and not commands that only start like one", () => {
    assert.equal(isSurfaceOnly("FGREP x f"), true);
    assert.equal(isSurfaceOnly("rg --files-with-matches TODO src"), true);
    assert.equal(isSurfaceOnly("grepx f"), false);
    assert.equal(isSurfaceOnly("cat f | grepper x"), false);
  });

  it("falls back to contract 3.8's text rule for a check it cannot parse", () => {
    assert.equal(isSurfaceOnly("grep -q 'x f"), true);
    assert.equal(isSurfaceOnly("npm test &&"), false);
  });
});

describe("shellSyntax (bash -n)", () => {
  it("reports bash's complaint for each broken check and null for the others", async () => {
    const checks = ["npm test", "npm test &&", "echo 'abc", "if true; then echo", "ls )"];
    const { available, errors } = await shellSyntax(checks, checks.map((c) => analyzeCheck(c).parsed));
    assert.equal(available, true);
    assert.deepEqual(errors, [
      null,
      "Shell syntax error: unexpected end of file",
      "Shell syntax error: unexpected EOF while looking for matching `''",
      "Shell syntax error: unexpected end of file",
      "Shell syntax error near unexpected token `)'",
    ]);
  });

  it("checks every parsed check with one bash when all are valid", async (t) => {
    const bash = countingBash(t);
    const checks = ["npm test", "cat <<EOF\nhi\nEOF", "# only a comment", "for f in *; do echo $f; done", "a &"];
    const { errors } = await shellSyntax(checks, checks.map(() => true), { command: bash.command });
    assert.deepEqual(errors, checks.map(() => null));
    assert.equal(bash.runs(), 1);
  });

  it("splits the batch only until the failing check is alone", async (t) => {
    const bash = countingBash(t);
    const checks = ["a", "b", "c", "d", "e", "f", "g", "ls )"];
    const { errors } = await shellSyntax(checks, checks.map(() => true), { command: bash.command });
    assert.deepEqual(errors.map((e) => e !== null), [false, false, false, false, false, false, false, true]);
    assert.ok(bash.runs() <= 7, `${bash.runs()} runs`);
  });

  it("judges a check that one batch would hide alone: it never joins a batch when the parser refused it", async () => {
    // Alone each is broken; in one script the quote of the first would swallow the second's.
    const checks = ["echo 'a", "b'"];
    const { errors } = await shellSyntax(checks, checks.map((c) => analyzeCheck(c).parsed));
    assert.ok(errors.every((e) => e !== null));
  });

  it("runs nothing the check says", async (t) => {
    const marker = join(tempDir(t), "ran");
    const checks = [`touch ${marker}`, `}; touch ${marker}; {`, `$(touch ${marker})`];
    await shellSyntax(checks, checks.map((c) => analyzeCheck(c).parsed));
    assert.equal(existsSync(marker), false);
  });

  it("is unavailable, with no errors, when bash cannot be started or does not answer", async (t) => {
    assert.deepEqual(await shellSyntax(["ls )"], [true], { command: "/nonexistent/bash" }), { available: false, errors: [null] });
    const slow = fakeProgram(t, "bash", "exec sleep 5");
    assert.deepEqual(await shellSyntax(["ls )"], [false], { command: slow, timeoutMs: 200 }), { available: false, errors: [null] });
  });
});

describe("verifyChecks", () => {
  it("gives the contract's three D12 consequences", async () => {
    const { verdicts, pythonAvailable } = await verifyChecks([
      `python3 -c "print(\\"hi\\")"`,
      `cd /x-cache && python3 -c 'if x'`,
      `python3 -c 'print(1)' && python3 -c 'if x'`,
    ]);
    assert.equal(pythonAvailable, true);
    assert.deepEqual(verdicts[0], { valid: true, error: null });
    assert.equal(verdicts[1].valid, false);
    assert.match(verdicts[1].error as string, /^SyntaxError: .+ at line 1$/);
    assert.deepEqual(verdicts[1].findings?.map((f) => f.code), ["python-syntax"]);
    assert.equal(verdicts[2].error, verdicts[1].error);
  });

  it("judges inline Python after expansion, and leaves an error on a masked expansion to the shell", async () => {
    const { verdicts } = await verifyChecks([
      `python3 -c "import sys; sys.exit($STATUS)"`,
      `python -c "import json,sys;print(json.load(sys.stdin)$1)"`,
      `python3 -c "print(3 $OP 4)"`,
      `python3 -c "x = $A\nif x"`,
    ]);
    assert.deepEqual(verdicts.map((v) => v.valid), [true, true, true, false]);
    assert.match(verdicts[3].error as string, /at line 2$/);
  });

  it("puts errors first and keeps warnings: valid iff no error", async () => {
    const { verdicts } = await verifyChecks(["npm run build || true && npm test | tail -5", "npm run build || true && npm test"]);
    assert.deepEqual(verdicts[0].findings?.map((f) => `${f.severity}:${f.code}`), ["error:exit-masked"]);
    assert.deepEqual(verdicts[1], { valid: true, error: null, findings: [{ code: "masked-step", severity: "warning", message: "'|| true' masks failures" }] });
  });

  it("reports a shell syntax error before anything else about the check", async () => {
    const { verdicts } = await verifyChecks(["echo ${{ x }} &&"]);
    assert.equal(verdicts[0].findings?.[0].code, "shell-syntax");
    assert.equal(verdicts[0].error, "Shell syntax error: unexpected end of file");
  });

  it("compiles every source of every check in one python3 process, and checks the shell in one bash", async (t) => {
    const counter = join(tempDir(t), "count");
    const python = fakeProgram(t, "python3", `echo run >> "${counter}"; exec python3 "$@"`);
    const bash = countingBash(t);
    const { verdicts } = await verifyChecks(
      [`python3 -c 'a=1' && python3 -c 'b=2'`, "npm test", `python3 -c 'if x'`, `python3 -c 'a=1'`],
      { python: { command: python }, shell: { command: bash.command } },
    );
    assert.deepEqual(verdicts.map((v) => v.valid), [true, true, false, true]);
    assert.equal(readFileSync(counter, "utf8"), "run\n");
    assert.equal(bash.runs(), 1);
  });

  it("marks only checks with inline Python as skipped when python3 is unavailable", async () => {
    const { verdicts, pythonAvailable } = await verifyChecks([`python3 -c 'if x'`, "npm test"], {
      python: { command: "/nonexistent/python3" },
    });
    assert.equal(pythonAvailable, false);
    assert.deepEqual(verdicts, [
      { valid: true, error: null, skipped: "python3 unavailable" },
      { valid: true, error: null },
    ]);
  });

  it("reports bashAvailable false and keeps the other findings when bash is missing; shell: false starts none", async (t) => {
    const missing = await verifyChecks(["npm test &&", "npm test || true"], { shell: { command: "/nonexistent/bash" } });
    assert.equal(missing.bashAvailable, false);
    assert.deepEqual(missing.verdicts.map((v) => v.findings?.map((f) => f.code)), [undefined, ["exit-masked"]]);
    const bash = countingBash(t);
    const off = await verifyChecks(["npm test &&"], { shell: false });
    assert.deepEqual(off.verdicts, [{ valid: true, error: null }]);
    assert.equal(bash.runs(), 0);
  });
});

describe("analyzeCheck on text no check should be", () => {
  it("is total on pathological input, and leaves checks over 64 KB to bash -n", () => {
    for (const text of ["$((".repeat(7000), "((".repeat(10000), "$(".repeat(5000), "${".repeat(10000), "`".repeat(20001), "(".repeat(5000), "a | ".repeat(5000) + "b"]) {
      const a = analyzeCheck(text);
      assert.equal(typeof a.parsed, "boolean");
      assert.equal(typeof isSurfaceOnly(text), "boolean");
    }
    assert.equal(analyzeCheck(`npm test -- ${"x ".repeat(40000)}`).parsed, false);
  });
});
