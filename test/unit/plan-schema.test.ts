// The zod schema of plan.json v4 (contract 2.1): what it accepts, how its errors read, what it documents.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { check } from "../../src/schemas/common.ts";
import { AuxiliaryRoleSchema, PlanSchema, RoleSchema, RoleStatusSchema, VerificationSpecSchema } from "../../src/schemas/plan.ts";
import { planWith } from "../helpers/design-dir.ts";

/** The issues of an invalid plan (fails the test when the plan is valid). */
function issuesOf(plan: unknown): string[] {
  const r = check(PlanSchema, plan);
  assert.equal(r.ok, false, "expected the plan to be rejected");
  return r.ok ? [] : r.issues;
}

describe("PlanSchema", () => {
  it("accepts the test fixture plan and a finalized one with every optional field", () => {
    assert.equal(check(PlanSchema, planWith(["a", "b"])).ok, true);
    const full = planWith(
      [
        {
          name: "api",
          status: "in_progress",
          attempts: 2,
          result: { any: "json" },
          directoryOverlaps: [1],
          constraints: ["use pg"],
          expertContext: [{ expert: "architect", artifact: ".design/expert-architect.json", relevance: "layout" }],
          assumptions: [{ text: "pg is up", severity: "blocking" }],
          rollbackTriggers: ["pg missing"],
          fallback: null,
        },
        { name: "ui", status: null },
      ],
      {
        context: { stack: "node", conventions: "eslint", testCommand: null, buildCommand: "npm run build", lsp: { ts: true } },
        expertArtifacts: [{ name: "architect", path: ".design/expert-architect.json", summary: "s" }],
        interfaceContracts: ".design/interfaces.json",
        designDecisions: [{ conflict: "c", experts: ["a", "b"], decision: "d", reasoning: "r" }],
        verificationSpecs: [{ role: "api", path: ".design/specs/a.test.ts", runCommand: "npx tsx a", properties: ["p"], sha256: "old" }],
        auxiliaryRoles: [{ name: "challenger", type: "pre-execution", goal: "g", trigger: "before-execution", model: "opus" }],
        progress: { completedRoles: [] },
      },
    );
    assert.deepEqual(check(PlanSchema, full), { ok: true, value: full });
  });

  it("keeps unknown fields at every level", () => {
    const plan = planWith([{ name: "a", custom: { x: 1 } }], { extraTop: [1, 2] });
    (plan.roles as any)[0].scope.extraScope = true;
    (plan.roles as any)[0].acceptanceCriteria[0].note = "n";
    const r = check(PlanSchema, plan);
    assert.equal(r.ok, true);
    assert.deepEqual(r.ok && r.value, plan);
  });

  it("reads errors as path: message", () => {
    const plan = planWith(["a", "b", "c", { name: "d", acceptanceCriteria: [{ criterion: "x", check: 3 }] }]);
    assert.deepEqual(issuesOf(plan), ["roles[3].acceptanceCriteria[0].check: Invalid input: expected string, received number"]);
  });

  it("requires schemaVersion 4 and 1 to 8 roles", () => {
    assert.equal(issuesOf({ ...planWith(["a"]), schemaVersion: 3 })[0].startsWith("schemaVersion: "), true);
    assert.equal(issuesOf({ schemaVersion: 4 })[0].startsWith("roles: "), true);
    assert.equal(issuesOf(planWith([]))[0].startsWith("roles: "), true);
    const nine = planWith(Array.from({ length: 9 }, (_, i) => `r${i}`));
    assert.equal(issuesOf(nine)[0].startsWith("roles: "), true);
  });

  it("requires the brief fields of a role", () => {
    const issues = issuesOf({ schemaVersion: 4, roles: [{}] });
    for (const field of ["name", "goal", "model", "scope", "acceptanceCriteria"]) {
      assert.ok(issues.some((m) => m.startsWith(`roles[0].${field}: `)), `${field} in ${issues.join(" | ")}`);
    }
  });

  it("limits status to the six statuses or null", () => {
    assert.deepEqual(
      issuesOf(planWith([{ name: "a", status: "done" }])).map((m) => m.split(":")[0]),
      ["roles[0].status"],
    );
    for (const s of ["pending", "in_progress", "completed", "failed", "skipped", "blocked", null]) {
      assert.equal(check(PlanSchema, planWith([{ name: "a", status: s }])).ok, true, String(s));
    }
  });

  it("wants attempts a non-negative integer and directoryOverlaps integers", () => {
    assert.equal(check(PlanSchema, planWith([{ name: "a", attempts: -1 }])).ok, false);
    assert.equal(check(PlanSchema, planWith([{ name: "a", attempts: 1.5 }])).ok, false);
    assert.equal(check(PlanSchema, planWith([{ name: "a", attempts: "1" }])).ok, false);
    assert.equal(check(PlanSchema, planWith([{ name: "a", directoryOverlaps: [1.5] }])).ok, false);
    assert.equal(check(PlanSchema, planWith([{ name: "a", directoryOverlaps: ["1"] }])).ok, false);
  });

  it("wants string arrays where the contract says arr<str>", () => {
    assert.deepEqual(issuesOf(planWith([{ name: "a", constraints: [3] }])), [
      "roles[0].constraints[0]: Invalid input: expected string, received number",
    ]);
    assert.equal(check(PlanSchema, planWith([{ name: "a", constraints: "x" }])).ok, false);
    assert.equal(check(PlanSchema, planWith([{ name: "a", deps: [1] as any }])).ok, false);
  });
});

describe("the part schemas", () => {
  it("RoleStatusSchema lists the six statuses", () => {
    assert.deepEqual(RoleStatusSchema.options, ["pending", "in_progress", "completed", "failed", "skipped", "blocked"]);
  });

  it("RoleSchema rejects an empty criteria list and an unknown assumption severity", () => {
    const role = planWith(["a"]).roles as any[];
    assert.equal(RoleSchema.safeParse({ ...role[0], acceptanceCriteria: [] }).success, false);
    assert.equal(RoleSchema.safeParse({ ...role[0], assumptions: [{ text: "t", severity: "high" }] }).success, false);
  });

  it("AuxiliaryRoleSchema checks type and trigger against the contract's values", () => {
    const aux = { name: "scout", type: "pre-execution", goal: "g", trigger: "after-design" };
    assert.equal(AuxiliaryRoleSchema.safeParse(aux).success, true);
    assert.equal(AuxiliaryRoleSchema.safeParse({ ...aux, type: "during" }).success, false);
    assert.equal(AuxiliaryRoleSchema.safeParse({ ...aux, trigger: "later" }).success, false);
  });

  it("VerificationSpecSchema accepts any previous sha256 text and null properties", () => {
    const spec = { role: "a", path: "p", runCommand: "r" };
    assert.equal(VerificationSpecSchema.safeParse({ ...spec, sha256: "old", properties: null }).success, true);
    assert.equal(VerificationSpecSchema.safeParse({ ...spec, runCommand: "" }).success, false);
  });
});

describe("JSON Schema output", () => {
  it("documents the plan with descriptions and keeps objects open", () => {
    const js = z.toJSONSchema(PlanSchema) as any;
    assert.equal(js.type, "object");
    assert.deepEqual([...js.required].sort(), ["roles", "schemaVersion"]);
    assert.match(js.description, /plan\.json/);
    const role = js.properties.roles.items;
    assert.deepEqual([...role.required].sort(), ["acceptanceCriteria", "goal", "model", "name", "scope"]);
    assert.match(role.properties.attempts.description, /attempts < 3/);
    const status = role.properties.status.anyOf;
    assert.deepEqual(status[0].enum, ["pending", "in_progress", "completed", "failed", "skipped", "blocked"]);
    assert.match(status[0].description, /missing or null status reads as pending/);
    assert.deepEqual(status[1], { type: "null" });
    assert.notEqual(js.additionalProperties, false);
  });
});
