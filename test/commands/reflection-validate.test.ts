import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { project } from "../helpers/design-dir.ts";
import { EvaluationSchema, OutcomeSchema, ReflectionEntrySchema, SkillSchema } from "../../src/schemas/reflection.ts";

const valid = { whatWorked: ["a"], whatFailed: [], doNextTime: [1, { x: 2 }], roleQuality: "fine" };

describe("reflection-validate", () => {
  it("accepts an object with the three array fields, whatever their elements and other keys", async (t) => {
    const out = await project(t).run("reflection-validate", [], { stdin: JSON.stringify(valid) });
    assert.deepEqual(out, { ok: true, valid: true, exitCode: 0 });
  });

  it("lists absent fields in the contract's order [feature:reflect/validated-reflection]", async (t) => {
    const out = await project(t).run("reflection-validate", [], { stdin: '{"whatFailed": "not checked yet"}' });
    assert.deepEqual([out.ok, out.error, out.code, out.exitCode], [false, "Missing required fields: whatWorked, doNextTime", "E_SCHEMA", 1]);
  });

  it("lists present fields that are not arrays", async (t) => {
    const out = await project(t).run("reflection-validate", [], { stdin: '{"doNextTime": "x", "whatWorked": null, "whatFailed": []}' });
    assert.deepEqual([out.ok, out.error], [false, "Fields must be arrays: whatWorked, doNextTime"]);
  });

  it("refuses text that is not JSON, empty stdin included", async (t) => {
    const p = project(t);
    for (const stdin of ["", "{oops"]) {
      const out = await p.run("reflection-validate", [], { stdin });
      assert.equal(out.ok, false);
      assert.equal(out.code, "E_JSON");
      assert.match(out.error as string, /^Invalid JSON in evaluation: /);
    }
  });

  it("refuses JSON that is not an object instead of crashing (Fix D7)", async (t) => {
    const p = project(t);
    for (const stdin of ['"whatWorked whatFailed doNextTime"', "[]", "null"]) {
      const out = await p.run("reflection-validate", [], { stdin });
      assert.deepEqual([out.ok, out.error, out.exitCode], [false, "Evaluation must be a JSON object", 1]);
    }
  });

  it("agrees with EvaluationSchema on what is valid", async (t) => {
    const p = project(t);
    const cases = [valid, {}, { whatWorked: [], whatFailed: [] }, { whatWorked: [], whatFailed: [], doNextTime: "x" }, { whatWorked: [], whatFailed: [], doNextTime: [] }];
    for (const c of cases) {
      const out = await p.run("reflection-validate", [], { stdin: JSON.stringify(c) });
      assert.equal(out.ok, EvaluationSchema.safeParse(c).success, JSON.stringify(c));
    }
  });

  it("exposes the skill and outcome enums and prints the schemas as JSON Schema with descriptions", () => {
    assert.deepEqual(SkillSchema.options, ["design", "execute", "improve", "reflect", "recon"]);
    assert.deepEqual(OutcomeSchema.options, ["completed", "partial", "failed", "aborted"]);
    const schema = z.toJSONSchema(ReflectionEntrySchema) as any;
    assert.deepEqual(schema.required, ["id", "timestamp", "skill", "goal", "outcome", "goalAchieved", "evaluation"]);
    assert.deepEqual(schema.properties.evaluation.required, ["whatWorked", "whatFailed", "doNextTime"]);
    assert.ok(Object.values(schema.properties).every((prop: any) => typeof prop.description === "string"));
  });
});
