import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { availableParallelism, tmpdir } from "node:os";
import { cli } from "../helpers/cli.ts";
import { commandNames } from "../../src/registry.ts";
import { HelperError } from "../../src/base/errors.ts";
import { asProcess, bundleCommands, childEnv, parallelism, selfTestCases, startOrder, summaryLine, uncovered, verdict } from "../../src/commands/workspace/self-test.ts";
import { run } from "../../src/main.ts";

describe("self-test", () => {
  it("has a case for every command of the registry", () => {
    assert.deepEqual(uncovered(commandNames, selfTestCases), []);
  });

  it("learns the registry's commands from the bundle's --help, not from an import of the registry", async () => {
    const calls: string[][] = [];
    const inProcess = async (argv: string[], cwd: string) => {
      calls.push(argv);
      const { exitCode, output } = await run(argv, { cwd, now: () => Date.now(), stdin: async () => "" });
      return { code: exitCode, stdout: `${JSON.stringify(output)}\n` };
    };
    assert.deepEqual(await bundleCommands(inProcess, tmpdir()), commandNames);
    assert.deepEqual(calls, [["--help"]]);
    // A bundle that lists nothing (not ours, or broken) is an internal error, not a pass with no command to cover.
    for (const stdout of ["", "{\"ok\":true}\n", "{\"ok\":true,\"commands\":[]}\n", "{\"ok\":true,\"commands\":[1]}\n"]) {
      await assert.rejects(bundleCommands(async () => ({ code: 0, stdout }), tmpdir()), (err: unknown) => {
        assert.ok(err instanceof HelperError);
        assert.equal(err.code, "E_INTERNAL");
        return true;
      });
    }
  });

  it("names a command without a case as a failure", () => {
    assert.deepEqual(uncovered(["status", "brand-new"], [{ command: "status" }]), ["brand-new"]);
    assert.throws(
      () => verdict([{ command: "status", passed: true, error: null }], ["brand-new"]),
      (err: unknown) => {
        assert.ok(err instanceof HelperError);
        assert.equal(err.message, "1 self-test(s) failed");
        const results = err.extra.results as Array<{ command: string; error: string }>;
        assert.deepEqual(results.at(-1), { command: "brand-new", passed: false, error: "no self-test case for this command" });
        return true;
      },
    );
  });

  it("fails when one case fails, and counts skipped cases apart", () => {
    assert.throws(() => verdict([{ command: "a", passed: true, error: null }, { command: "b", passed: false, error: "x" }], []), /1 self-test\(s\) failed/);
    assert.deepEqual(verdict([{ command: "a", passed: true, error: null }, { command: "b", passed: true, error: null, skipped: "python3 unavailable" }], []), {
      passed: 1,
      failed: 0,
      skipped: 1,
      results: [{ command: "a", passed: true, error: null }, { command: "b", passed: true, error: null, skipped: "python3 unavailable" }],
    });
  });

  it("passes as a process of the built bundle, reporting every case", async () => {
    const r = await cli(["self-test"], { cwd: tmpdir() });
    assert.equal(r.code, 0, r.stdout.slice(0, 2000));
    assert.equal(r.json.failed, 0);
    assert.equal(r.json.results.length, selfTestCases.length);
    assert.ok(r.json.results.every((x: { passed: boolean }) => x.passed));
    // A person reads one line on stderr; stdout stays the one JSON document.
    assert.match(r.stderr, new RegExp(`^self-test: ${r.json.passed} passed, 0 failed(, \\d+ skipped)? \\(\\d+\\.\\d s\\)\\n$`));
    assert.equal(r.stdout.trim().split("\n").length, 1);
  });

  it("words its summary line for a person, and has none for --help or a usage error", () => {
    assert.equal(summaryLine({ passed: 47, failed: 0, skipped: 0 }, 2140), "self-test: 47 passed, 0 failed (2.1 s)");
    assert.equal(summaryLine({ ok: false, passed: 45, failed: 1, skipped: 1 }, 980), "self-test: 45 passed, 1 failed, 1 skipped (1.0 s)");
    assert.equal(summaryLine({ ok: true, command: "self-test", usage: "self-test" }, 50), undefined);
    assert.equal(summaryLine({ ok: false, error: "x", code: "E_USAGE" }, 50), undefined);
  });

  it("runs as many children at a time as the machine has cores, plus one", () => {
    assert.equal(parallelism(), Math.max(2, availableParallelism() + 1));
  });

  it("starts its children without NODE_EXTRA_CA_CERTS, every other variable kept", () => {
    const env = childEnv({ PATH: "/bin", NODE_EXTRA_CA_CERTS: "/etc/ssl/certs/ca-certificates.crt", NODE_OPTIONS: "--no-warnings", HOME: "/h" });
    assert.deepEqual(env, { PATH: "/bin", NODE_OPTIONS: "--no-warnings", HOME: "/h" });
    assert.deepEqual(childEnv({ PATH: "/bin" }), { PATH: "/bin" });
  });

  it("starts the slow cases first, then the others in their order, each once", () => {
    assert.deepEqual(startOrder([{}, { slow: true }, {}, { slow: true }, {}]), [1, 3, 0, 2, 4]);
    const order = startOrder(selfTestCases);
    assert.deepEqual([...order].sort((a, b) => a - b), selfTestCases.map((_, i) => i));
    assert.ok(selfTestCases[order[0]].slow, "a slow case (the one python3 start) goes first");
  });

  it("starts python3 in one case only: no other fixture plan holds inline Python", () => {
    const python = selfTestCases.filter((c) => JSON.stringify(c.files(Date.now())).includes("python3 -c"));
    assert.deepEqual(python.map((c) => c.name), ["validate-checks (invalid)"]);
  });

  it("runs each command's first case as a child process and its further cases in-process", () => {
    assert.deepEqual(asProcess([{ command: "a" }, { command: "b" }, { command: "a" }, { command: "a" }]), [true, true, false, false]);
    const flags = asProcess(selfTestCases);
    const children = selfTestCases.filter((_, i) => flags[i]).map((c) => c.command);
    assert.deepEqual([...children].sort(), [...commandNames].sort(), "every registry command exactly once as a process");
    assert.ok(flags.filter((f) => !f).length > 0, "some commands have further cases");
  });
});
