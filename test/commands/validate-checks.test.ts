import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

const P = ".design/plan.json";

const withChecks = (...checks: unknown[]) =>
  planWith([{ name: "a", acceptanceCriteria: checks.map((check, j) => ({ criterion: `c${j}`, check })) }]);

describe("validate-checks", () => {
  it("reports one valid result per criterion for a plan without broken Python", async (t) => {
    const p = project(t, {
      [P]: planWith([
        { name: "api", acceptanceCriteria: [{ criterion: "tests", check: "npm test" }, { criterion: "runs", check: "python3 -c 'print(1)'" }] },
        "ui",
      ]),
    });
    const out = await p.run("validate-checks");
    assert.deepEqual(out, {
      ok: true,
      results: [
        { roleIndex: 0, roleName: "api", criterionIndex: 0, criterion: "tests", valid: true, error: null },
        { roleIndex: 0, roleName: "api", criterionIndex: 1, criterion: "runs", valid: true, error: null },
        { roleIndex: 1, roleName: "ui", criterionIndex: 0, criterion: "ui works", valid: true, error: null },
      ],
      exitCode: 0,
    });
  });

  it("fails with exit 1 and the count when a check does not compile (D9)", async (t) => {
    const p = project(t, { [P]: withChecks("python3 -c 'if x'", "npm test") });
    const out = await p.run("validate-checks");
    assert.equal(out.ok, false);
    assert.equal(out.exitCode, 1);
    assert.equal(out.code, "E_INVALID");
    assert.equal(out.error, "1 invalid check command(s)");
    const results = out.results as any[];
    assert.equal(results.length, 2);
    assert.equal(results[0].valid, false);
    assert.match(results[0].error, /^SyntaxError: .+ at line 1$/);
    assert.deepEqual(results[1], { roleIndex: 0, roleName: "a", criterionIndex: 1, criterion: "c1", valid: true, error: null });
  });

  it("holds the contract's D12 consequences", async (t) => {
    const p = project(t, {
      [P]: withChecks(`python3 -c "print(\\"hi\\")"`, `cd /x-cache && python3 -c 'if x'`, `python3 -c 'print(1)' && python3 -c 'if x'`),
    });
    const out = await p.run("validate-checks");
    assert.equal(out.error, "2 invalid check command(s)");
    assert.deepEqual((out.results as any[]).map((r) => r.valid), [true, false, false]);
  });

  it("reports criteria that are not objects, empty checks and non-string checks (D7)", async (t) => {
    const plan = planWith([{ name: "a", acceptanceCriteria: [3, { criterion: "e", check: "" }, { criterion: "m" }, { check: 5 }] }]);
    const out = await project(t, { [P]: plan }).run("validate-checks");
    assert.equal(out.error, "4 invalid check command(s)");
    assert.deepEqual(out.results, [
      { roleIndex: 0, roleName: "a", criterionIndex: 0, criterion: "", valid: false, error: "Criterion must be an object" },
      { roleIndex: 0, roleName: "a", criterionIndex: 1, criterion: "e", valid: false, error: "Empty check command" },
      { roleIndex: 0, roleName: "a", criterionIndex: 2, criterion: "m", valid: false, error: "Empty check command" },
      { roleIndex: 0, roleName: "a", criterionIndex: 3, criterion: "", valid: false, error: "Check must be a string" },
    ]);
  });

  it("names a role without a name key role-<i>", async (t) => {
    const plan = { schemaVersion: 4, roles: [{ name: "a" }, { acceptanceCriteria: [{ criterion: "c", check: "true" }] }] };
    const out = await project(t, { [P]: plan }).run("validate-checks");
    assert.deepEqual(out.results, [{ roleIndex: 1, roleName: "role-1", criterionIndex: 0, criterion: "c", valid: true, error: null }]);
  });

  it("succeeds with no results for a plan without criteria", async (t) => {
    const out = await project(t, { [P]: { schemaVersion: 4, roles: [] } }).run("validate-checks");
    assert.deepEqual(out, { ok: true, results: [], exitCode: 0 });
  });

  it("judges each check as the shell will run it: syntax, maskers, CI expressions, prose, placeholders", async (t) => {
    const p = project(t, {
      [P]: withChecks(
        "npm test &&",
        "if true; then echo",
        "npm test; exit 0",
        "npm test 2>&1 | tail -5",
        "spin build -- ${{ matrix.config.args }}",
        "All unit tests pass for the new endpoint",
        "{context.testCommand}",
        `python3 -c "import json; d=json.load(open('$F')); assert d[\"k\"] == $N"`,
        "npm run build || true && npm test",
        "set -o pipefail; npm test | tail -5",
      ),
    });
    const out = await p.run("validate-checks");
    assert.equal(out.error, "7 invalid check command(s)");
    const results = out.results as any[];
    assert.deepEqual(
      results.map((r) => (r.findings ?? []).map((f: any) => `${f.severity}:${f.code}`)),
      [
        ["error:shell-syntax"],
        ["error:shell-syntax"],
        ["error:exit-masked"],
        ["error:exit-masked"],
        ["error:ci-expression"],
        ["error:not-a-command"],
        ["error:placeholder"],
        [],
        ["warning:masked-step"],
        [],
      ],
    );
    assert.deepEqual(results[0], {
      roleIndex: 0, roleName: "a", criterionIndex: 0, criterion: "c0", valid: false,
      error: "Shell syntax error: unexpected end of file",
      findings: [{ code: "shell-syntax", severity: "error", message: "Shell syntax error: unexpected end of file" }],
    });
    assert.equal(results[2].error, "'; exit 0' masks failures: the check exits 0 whatever happens");
    assert.deepEqual(results.map((r) => r.valid), [false, false, false, false, false, false, false, true, true, true]);
  });

  it("marks Python checks skipped and adds pythonAvailable and bashAvailable false when neither can run", async (t) => {
    const saved = process.env.PATH;
    process.env.PATH = "";
    t.after(() => {
      process.env.PATH = saved;
    });
    const out = await project(t, { [P]: withChecks("python3 -c 'if x'", "npm test") }).run("validate-checks");
    process.env.PATH = saved;
    assert.deepEqual(out, {
      ok: true,
      results: [
        { roleIndex: 0, roleName: "a", criterionIndex: 0, criterion: "c0", valid: true, error: null, skipped: "python3 unavailable" },
        { roleIndex: 0, roleName: "a", criterionIndex: 1, criterion: "c1", valid: true, error: null },
      ],
      pythonAvailable: false,
      bashAvailable: false,
      exitCode: 0,
    });
  });

  it("reports plan errors with the contract's messages", async (t) => {
    const p = project(t, { "x.json": [1] });
    assert.equal((await p.run("validate-checks")).error, "Plan file not found: .design/plan.json");
    assert.equal((await p.run("validate-checks", ["x.json"])).error, "Invalid plan structure: top-level value must be an object");
  });
});
