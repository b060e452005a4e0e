import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";

const issue = (over: Record<string, unknown> = {}) => ({
  category: "scope-gap",
  severity: "blocking",
  description: "No role owns the migrations",
  affectedRoles: ["db"],
  recommendation: "Add migrations to db's scope",
  ...over,
});

async function check(t: any, type: string, report: unknown) {
  return project(t, { "r.json": report }).run("validate-auxiliary-report", ["r.json", "--type", type]);
}

describe("validate-auxiliary-report", () => {
  it("summarises a valid challenger report with its blocking count", async (t) => {
    const out = await check(t, "challenger", { issues: [issue(), issue({ severity: "low-risk" })], summary: "Two gaps" });
    assert.deepEqual(out, {
      ok: true,
      valid: true,
      artifactSummary: { type: "challenger", summary: "Two gaps", issueCount: 2, blockingCount: 1 },
      // the agent's usage is recorded in the plan (issue 24): there is none here
      usage: { recorded: false, agent: "challenger", reason: "no .design/plan.json to record it in" },
      exitCode: 0,
    });
  });

  it("accepts --type before the path and --type=value", async (t) => {
    const p = project(t, { "r.json": { issues: [], summary: "" } });
    assert.equal((await p.run("validate-auxiliary-report", ["--type", "challenger", "r.json"])).ok, true);
    assert.equal((await p.run("validate-auxiliary-report", ["--type=challenger", "r.json"])).ok, true);
  });

  it("rejects a missing or unknown --type as an argument error", async (t) => {
    const p = project(t, { "r.json": { issues: [], summary: "" } });
    const missing = await p.run("validate-auxiliary-report", ["r.json"]);
    assert.equal(missing.code, "E_USAGE");
    assert.equal(missing.error, "validate-auxiliary-report: missing required flag --type");
    const bad = await p.run("validate-auxiliary-report", ["r.json", "--type", "critic"]);
    assert.equal(bad.code, "E_USAGE");
    assert.equal(bad.exitCode, 1);
    assert.match(bad.error as string, /--type/);
  });

  it("summarises scout, integration-verifier, regression-checker and memory-curator reports", async (t) => {
    const scout = await check(t, "scout", { scopeAreas: [], discrepancies: [{}, {}], summary: "s" });
    assert.deepEqual(scout.artifactSummary, { type: "scout", summary: "s", discrepancyCount: 2 });
    const iv = await check(t, "integration-verifier", {
      status: "FAIL",
      acceptanceCriteria: [],
      crossRoleIssues: [],
      testResults: {},
      endToEndVerification: {},
      summary: "broken",
    });
    assert.deepEqual(iv.artifactSummary, { type: "integration-verifier", summary: "broken", status: "FAIL" });
    const rc = await check(t, "regression-checker", { passed: false, changes: [1], regressions: [1, 2], summary: "r" });
    assert.deepEqual(rc.artifactSummary, { type: "regression-checker", summary: "r", passed: false, regressionCount: 2 });
    const mc = await check(t, "memory-curator", { memories: [{}, {}, {}], summary: "m" });
    assert.deepEqual(mc.artifactSummary, { type: "memory-curator", summary: "m", memoryCount: 3 });
  });

  it("reports file errors like expert-validate", async (t) => {
    const p = project(t, { "bad.json": "[", "dir/x": "" });
    assert.equal((await p.run("validate-auxiliary-report", ["no.json", "--type", "scout"])).error, "Artifact file not found: no.json");
    assert.match((await p.run("validate-auxiliary-report", ["dir", "--type", "scout"])).error as string, /^Error reading artifact: /);
    assert.match((await p.run("validate-auxiliary-report", ["bad.json", "--type", "scout"])).error as string, /^Invalid JSON in artifact: /);
  });

  it("rejects a non-object report [Fix D7]", async (t) => {
    assert.equal((await check(t, "scout", [1])).error, "Schema validation failed: report must be a JSON object");
  });

  it("lists absent fields in the type's order, then wrong types with Python type names", async (t) => {
    assert.equal(
      (await check(t, "integration-verifier", { bad: "data" })).error,
      "Schema validation failed: Missing required fields: status, acceptanceCriteria, crossRoleIssues, testResults, endToEndVerification, summary",
    );
    assert.equal(
      (await check(t, "challenger", { issues: {}, summary: 3 })).error,
      "Schema validation failed: Field 'issues' must be list, got dict; Field 'summary' must be str, got int",
    );
    assert.equal(
      (await check(t, "regression-checker", { passed: "yes", changes: null, summary: 1.5 })).error,
      "Schema validation failed: Missing required fields: regressions; Field 'passed' must be bool, got str; " +
        "Field 'changes' must be list, got NoneType; Field 'summary' must be str, got float",
    );
    assert.equal(
      (await check(t, "integration-verifier", {
        status: "PASS", acceptanceCriteria: [], crossRoleIssues: [], testResults: [], endToEndVerification: true, summary: "",
      })).error,
      "Schema validation failed: Field 'testResults' must be dict, got list; Field 'endToEndVerification' must be dict, got bool",
    );
  });

  it("checks challenger issues only when the fields are right", async (t) => {
    const out = await check(t, "challenger", {
      issues: [3, { category: "scope-gap" }, issue({ category: "style", severity: "minor" })],
      summary: "s",
    });
    assert.equal(
      out.error,
      "Schema validation failed: issues[0] must be an object; " +
        "issues[1]: missing severity, description, affectedRoles, recommendation; " +
        "issues[2]: invalid category 'style'; issues[2]: invalid severity 'minor'",
    );
    const skipped = await check(t, "challenger", { issues: [3] });
    assert.equal(skipped.error, "Schema validation failed: Missing required fields: summary");
  });

  it("requires an integration-verifier status of PASS or FAIL", async (t) => {
    const out = await check(t, "integration-verifier", {
      status: "pass", acceptanceCriteria: [], crossRoleIssues: [], testResults: {}, endToEndVerification: {}, summary: "",
    });
    assert.equal(out.error, "Schema validation failed: status must be 'PASS' or 'FAIL', got 'pass'");
  });
});
