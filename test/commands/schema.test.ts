import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";

const NAMES = [
  "plan", "memory", "reflection", "recon", "expert", "challenger", "scout",
  "integration-verifier", "regression-checker", "memory-curator", "worker-completion", "skill-features",
];

describe("schema", () => {
  it("lists the names without an argument or with --list", async (t) => {
    const p = project(t);
    assert.deepEqual(await p.run("schema"), { ok: true, names: NAMES, exitCode: 0 });
    assert.deepEqual(await p.run("schema", ["--list"]), { ok: true, names: NAMES, exitCode: 0 });
    assert.deepEqual(await p.run("schema", ["recon", "--list"]), { ok: true, names: NAMES, exitCode: 0 });
  });

  it("prints an object JSON Schema for every name", async (t) => {
    const p = project(t);
    for (const name of NAMES) {
      const out = await p.run("schema", [name]);
      assert.equal(out.ok, true, name);
      assert.equal(out.name, name);
      const schema = out.schema as any;
      assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema", name);
      assert.equal(schema.type, "object", name);
      assert.ok(Object.keys(schema.properties).length > 0, name);
    }
  });

  it("describes the recon file with its required fields, enums and limits", async (t) => {
    const schema = (await project(t).run("schema", ["recon"])).schema as any;
    assert.deepEqual(schema.required, ["schemaVersion", "goal", "interventions", "contradictions"]);
    assert.equal(schema.properties.schemaVersion.const, 1);
    assert.equal(schema.properties.interventions.maxItems, 5);
    const iv = schema.properties.interventions.items;
    assert.deepEqual(iv.properties.leverageLevel.type, "integer");
    assert.equal(iv.properties.leverageLevel.minimum, 1);
    assert.equal(iv.properties.leverageLevel.maximum, 7);
    assert.deepEqual(iv.properties.effort.enum, ["trivial", "small", "medium", "large", "transformative", "low", "high"]);
    assert.match(iv.properties.wrongDirection.description, /leverageLevel <= 5/);
  });

  it("describes the checked fields of the reports as required", async (t) => {
    const p = project(t);
    const req = async (name: string) => ((await p.run("schema", [name])).schema as any).required;
    assert.deepEqual(await req("challenger"), ["issues", "summary"]);
    assert.deepEqual(await req("scout"), ["scopeAreas", "discrepancies", "summary"]);
    assert.deepEqual(await req("integration-verifier"), [
      "status", "acceptanceCriteria", "crossRoleIssues", "testResults", "endToEndVerification", "summary",
    ]);
    assert.deepEqual(await req("regression-checker"), ["passed", "changes", "regressions", "summary"]);
    assert.deepEqual(await req("memory-curator"), ["memories", "summary"]);
    assert.deepEqual(await req("worker-completion"), ["role", "achieved", "filesChanged", "acceptanceCriteria"]);
    assert.deepEqual(await req("expert"), ["summary", "verificationProperties"]);
  });

  it("describes each role's attemptLog: one entry per attempt, with its tier, agent, outcome and a retry's reflexion", async (t) => {
    const schema = (await project(t).run("schema", ["plan"])).schema as any;
    const log = schema.properties.roles.items.properties.attemptLog;
    assert.equal(log.type, "array");
    assert.match(log.description, /update-status/);
    const entry = log.items;
    assert.equal(entry.type, "object");
    assert.deepEqual(Object.keys(entry.properties), ["attempt", "model", "agent", "outcome", "reflexion"]);
    assert.deepEqual(Object.keys(entry.properties.reflexion.properties), ["rootCause", "wrongAssumptions", "alternative"]);
    assert.equal(entry.properties.attempt.type, "integer");
    assert.equal(entry.properties.model.type, "string");
    assert.equal(entry.properties.agent.type, "string");
    assert.deepEqual(entry.properties.outcome.enum, ["running", "completed", "failed", "stalled", "interrupted"]);
    assert.deepEqual(schema.properties.roles.items.required, ["name", "goal", "model", "scope", "acceptanceCriteria"], "attemptLog is optional");
  });

  it("rejects an unknown name as a usage error listing the names", async (t) => {
    const out = await project(t).run("schema", ["planner"]);
    assert.equal(out.ok, false);
    assert.equal(out.exitCode, 1);
    assert.equal(out.code, "E_USAGE");
    assert.equal(out.error, `schema: unknown name 'planner' (choose from ${NAMES.join(", ")})`);
    assert.deepEqual(out.names, NAMES);
  });
});
