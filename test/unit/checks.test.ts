// Acceptance-check analysis: surface-only detection (contract 3.8), the `|| true` anti-pattern, inline-Python
// extraction with shell quoting and the batched python3 compiler (3.9, D12).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import {
  compilePython, extractPythonSources, isSurfaceOnly, maskingWord, readShellWord, verifyChecks,
} from "../../src/lib/checks.ts";

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "do-checks-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An executable shell script standing in for python3. */
function fakePython(t: TestContext, body: string): string {
  const path = join(tempDir(t), "python3");
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("isSurfaceOnly (3.8)", () => {
  const cases: Array<[string, boolean]> = [
    // the contract's examples
    ["grep -q x f", true],
    ["test -f out.json", true],
    ["cat f | grep -c x", true],
    ["! grep x f | wc -l", true],
    ["python3 -m pytest tests/", false],
    ["grep x f && exit 1", false],
    ["make; grep x f", false],
    ["wc -l f", false],
  ];
  for (const [cmd, expected] of cases) {
    it(`says ${expected ? "yes" : "no"} for \`${cmd}\``, () => assert.equal(isSurfaceOnly(cmd), expected));
  }

  it("recognises egrep, fgrep and rg, at the start or piped, in any case", () => {
    assert.equal(isSurfaceOnly("egrep 'a|b' f"), true);
    assert.equal(isSurfaceOnly("FGREP x f"), true);
    assert.equal(isSurfaceOnly("rg --files-with-matches TODO src"), true);
    assert.equal(isSurfaceOnly("cat f |rg x"), true);
    assert.equal(isSurfaceOnly("  Grep\tx f"), true);
  });

  it("does not take a word that merely starts with grep or rg for the command", () => {
    assert.equal(isSurfaceOnly("grepx f"), false);
    assert.equal(isSurfaceOnly("rgb-check f"), false);
    assert.equal(isSurfaceOnly("cat f | grepper x"), false);
  });

  it("recognises the file tests of test, [ and [[ for each of f e d s r w x", () => {
    for (const x of "fedsrwx") {
      assert.equal(isSurfaceOnly(`test -${x} p`), true, `test -${x}`);
      assert.equal(isSurfaceOnly(`[ -${x} p ]`), true, `[ -${x}`);
      assert.equal(isSurfaceOnly(`[[ -${x} p ]]`), true, `[[ -${x}`);
    }
    assert.equal(isSurfaceOnly("test -n \"$X\""), false);
    assert.equal(isSurfaceOnly("[ -z x ]"), false);
    assert.equal(isSurfaceOnly("test x = y"), false);
  });

  it("strips a leading ! and whitespace before looking", () => {
    assert.equal(isSurfaceOnly("  !  test -f x"), true);
    assert.equal(isSurfaceOnly("!grep x f"), true);
  });

  it("treats anything with && or || as a compound command, || true included", () => {
    assert.equal(isSurfaceOnly("grep x f || true"), false);
    assert.equal(isSurfaceOnly("test -f a && test -f b"), false);
  });
});

describe("maskingWord", () => {
  it("finds || true, || echo and || : with or without spaces", () => {
    assert.equal(maskingWord("npm test || true"), "true");
    assert.equal(maskingWord("npm test ||echo failed"), "echo");
    assert.equal(maskingWord("npm test || :"), ":");
    assert.equal(maskingWord("npm test||:"), ":");
  });

  it("ignores other fallbacks and words that only start with true or echo", () => {
    assert.equal(maskingWord("npm test || exit 1"), null);
    assert.equal(maskingWord("a || trueish"), null);
    assert.equal(maskingWord("a || echoes"), null);
    assert.equal(maskingWord("a | true"), null);
  });
});

describe("readShellWord", () => {
  it("concatenates quoted and unquoted segments up to unquoted whitespace", () => {
    assert.deepEqual(readShellWord(`'ab'"cd"ef gh`, 0), { value: "abcdef", end: 10 });
  });

  it("stops at an unquoted ; & | < > ( or )", () => {
    for (const op of [";", "&", "|", "<", ">", "(", ")"]) {
      assert.equal(readShellWord(`'x=1'${op}rest`, 0)?.value, "x=1", op);
    }
  });

  it("keeps operators and whitespace inside quotes", () => {
    assert.equal(readShellWord(`'a; b | c'`, 0)?.value, "a; b | c");
    assert.equal(readShellWord(`"a && (b)"`, 0)?.value, "a && (b)");
  });

  it("applies double-quote escapes: \\$ \\` \\\" \\\\ yield the character, \\newline nothing, others stay", () => {
    assert.equal(readShellWord(`"\\$HOME \\\` \\" \\\\"`, 0)?.value, '$HOME ` " \\');
    assert.equal(readShellWord(`"a\\\nb"`, 0)?.value, "ab");
    assert.equal(readShellWord(`"a\\nb\\tc"`, 0)?.value, "a\\nb\\tc");
  });

  it("takes single-quoted text literally, backslashes included", () => {
    assert.equal(readShellWord(`'a\\nb\\'`, 0)?.value, "a\\nb\\");
  });

  it("lets an unquoted backslash quote the next character", () => {
    assert.equal(readShellWord(`'a'\\ b c`, 0)?.value, "a b");
    assert.equal(readShellWord(`'a'\\;b`, 0)?.value, "a;b");
  });

  it("returns null for an unterminated quote", () => {
    assert.equal(readShellWord(`'abc`, 0), null);
    assert.equal(readShellWord(`"abc`, 0), null);
    assert.equal(readShellWord(`"abc\\"`, 0), null);
    assert.equal(readShellWord(`'ok'"open`, 0), null);
  });
});

describe("extractPythonSources (3.9)", () => {
  it("honours shell escapes inside double quotes (D12: print(\\\"hi\\\"))", () => {
    assert.deepEqual(extractPythonSources(`python3 -c "print(\\"hi\\")"`), ['print("hi")']);
  });

  it("finds python3 -c after a path containing -c (D12: cd /x-cache)", () => {
    assert.deepEqual(extractPythonSources(`cd /x-cache && python3 -c 'if x'`), ["if x"]);
  });

  it("returns every python3 -c of a compound command, in order (D12)", () => {
    assert.deepEqual(extractPythonSources(`python3 -c 'print(1)' && python3 -c 'if x'`), ["print(1)", "if x"]);
    assert.deepEqual(extractPythonSources(`python3 -c 'a=1'; python3 -c "b=2" | python3 -c 'c=3'`), ["a=1", "b=2", "c=3"]);
  });

  it("accepts spaces or tabs before -c and a quote right after it", () => {
    assert.deepEqual(extractPythonSources(`python3 \t -c\t'x=1'`), ["x=1"]);
    assert.deepEqual(extractPythonSources(`python3 -c"x=1"`), ["x=1"]);
    assert.deepEqual(extractPythonSources(`/usr/bin/python3 -c 'x=1'`), ["x=1"]);
  });

  it("joins adjacent quoted segments into one source", () => {
    assert.deepEqual(extractPythonSources(`python3 -c 'import sys; '"print(sys.argv)" arg`), ["import sys; print(sys.argv)"]);
  });

  it("keeps a multi-line source with its newlines", () => {
    assert.deepEqual(extractPythonSources("python3 -c 'import json\nprint(1)'"), ["import json\nprint(1)"]);
  });

  it("skips occurrences it must not validate: unquoted argument, unterminated quote, other spellings", () => {
    assert.deepEqual(extractPythonSources("python3 -c print(1)"), []);
    assert.deepEqual(extractPythonSources("python3 -c 'print(1)"), []);
    assert.deepEqual(extractPythonSources(`python3 -c "print(1)`), []);
    assert.deepEqual(extractPythonSources("python -c 'if x'"), []);
    assert.deepEqual(extractPythonSources("python3 -m pytest -c 'x'"), []);
    assert.deepEqual(extractPythonSources("python3 -cx 'if x'"), []);
    assert.deepEqual(extractPythonSources("npm test"), []);
  });

  it("still finds a later occurrence after an unterminated or unquoted one", () => {
    assert.deepEqual(extractPythonSources("python3 -c print(1); python3 -c 'if x'"), ["if x"]);
  });

  it("does not look for python3 -c inside an extracted source", () => {
    assert.deepEqual(extractPythonSources(`python3 -c "import os; os.system('python3 -c 1')"`), [
      "import os; os.system('python3 -c 1')",
    ]);
  });
});

describe("compilePython", () => {
  it("reports null for a source that compiles and SyntaxError with the line for one that does not", async () => {
    const { available, errors } = await compilePython(["print(1)", "x = 1\nif x", "def f(:\n  pass"]);
    assert.equal(available, true);
    assert.equal(errors[0], null);
    assert.match(errors[1] as string, /^SyntaxError: .+ at line 2$/);
    assert.match(errors[2] as string, /^SyntaxError: .+ at line 1$/);
  });

  it("reports other failures as Compilation error (NUL bytes)", async () => {
    const { errors } = await compilePython(["print(1)\0"]);
    assert.match(errors[0] as string, /^Compilation error: /);
  });

  it("compiles non-ASCII text", async () => {
    const { errors } = await compilePython(["print('héllo — ✓')"]);
    assert.deepEqual(errors, [null]);
  });

  it("starts no process and reports available when there is nothing to compile", async (t) => {
    const counter = join(tempDir(t), "count");
    const python = fakePython(t, `echo run >> "${counter}"; exec python3 "$@"`);
    assert.deepEqual(await compilePython([], { command: python }), { available: true, errors: [] });
    assert.equal(existsSync(counter), false);
  });

  it("is unavailable when python3 cannot be started", async () => {
    const r = await compilePython(["if x"], { command: "/nonexistent/python3" });
    assert.deepEqual(r, { available: false, errors: [null] });
  });

  it("is unavailable when python3 does not answer in time", async (t) => {
    const python = fakePython(t, "exec sleep 5");
    const started = Date.now();
    const r = await compilePython(["print(1)"], { command: python, timeoutMs: 200 });
    assert.deepEqual(r, { available: false, errors: [null] });
    assert.ok(Date.now() - started < 3000);
  });

  it("is unavailable when the answer is not one outcome per source", async (t) => {
    const python = fakePython(t, "cat > /dev/null; echo '[null]'");
    assert.deepEqual(await compilePython(["a", "b"], { command: python }), { available: false, errors: [null, null] });
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
    assert.equal(verdicts[2].valid, false);
    assert.equal(verdicts[2].error, verdicts[1].error);
  });

  it("reports the first failing source of a check", async () => {
    const { verdicts } = await verifyChecks([`python3 -c 'def f(:' ; python3 -c 'x = 1\nif x'`]);
    assert.match(verdicts[0].error as string, /at line 1$/);
  });

  it("treats checks without inline Python as valid", async () => {
    const { verdicts } = await verifyChecks(["npm test", "python3 -m pytest", "python3 -c print(1)"]);
    assert.deepEqual(verdicts, [
      { valid: true, error: null },
      { valid: true, error: null },
      { valid: true, error: null },
    ]);
  });

  it("compiles every source of every check in one python3 process", async (t) => {
    const counter = join(tempDir(t), "count");
    const python = fakePython(t, `echo run >> "${counter}"; exec python3 "$@"`);
    const { verdicts } = await verifyChecks(
      [`python3 -c 'a=1' && python3 -c 'b=2'`, "npm test", `python3 -c 'if x'`, `python3 -c 'a=1'`],
      { command: python },
    );
    assert.deepEqual(verdicts.map((v) => v.valid), [true, true, false, true]);
    assert.equal(readFileSync(counter, "utf8"), "run\n");
  });

  it("marks only checks with inline Python as skipped when python3 is unavailable", async () => {
    const { verdicts, pythonAvailable } = await verifyChecks([`python3 -c 'if x'`, "npm test"], {
      command: "/nonexistent/python3",
    });
    assert.equal(pythonAvailable, false);
    assert.deepEqual(verdicts, [
      { valid: true, error: null, skipped: "python3 unavailable" },
      { valid: true, error: null },
    ]);
  });
});
