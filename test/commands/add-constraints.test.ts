import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project, writeFiles } from "../helpers/design-dir.ts";

const P = ".design/plan.json";
type T = Parameters<typeof project>[0];

const stdin = (batch: unknown) => ({ stdin: typeof batch === "string" ? batch : JSON.stringify(batch) });

const basePlan = () =>
  planWith([
    { name: "api-developer", constraints: ["Keep the REST paths"] },
    { name: "ui", custom: { keep: true } },
    { name: "done", status: "completed" },
    { name: "cut", status: "skipped" },
  ]);

/** A batch that must be rejected: returns the error after checking the plan did not change. */
async function rejected(t: T, batch: unknown, plan: unknown = basePlan()): Promise<{ error: string; code: string }> {
  const p = project(t, { [P]: plan });
  const before = p.read(P);
  const out = await p.run("add-constraints", [], stdin(batch));
  assert.equal(out.ok, false);
  assert.equal(out.exitCode, 1);
  assert.equal(p.read(P), before, "plan.json must be byte-identical after a rejected batch");
  return { error: out.error as string, code: out.code as string };
}

describe("add-constraints", () => {
  it("appends trimmed constraints to a role named in the batch [feature:execute/challenge-before-work]", async (t) => {
    const p = project(t, { [P]: basePlan() });
    const out = await p.run("add-constraints", [], stdin([{ role: "api-developer", constraints: ["  Use the existing pg pool in src/db/pool.ts \n"] }]));
    assert.deepEqual(out, {
      ok: true,
      added: [{ roleIndex: 0, name: "api-developer", constraints: ["Use the existing pg pool in src/db/pool.ts"] }],
      duplicates: 0,
      exitCode: 0,
    });
    assert.deepEqual(p.json(P).roles[0].constraints, ["Keep the REST paths", "Use the existing pg pool in src/db/pool.ts"]);
  });

  it("addresses a role by index and creates its constraints list, keeping other fields", async (t) => {
    const p = project(t, { [P]: { ...basePlan(), extraTop: 1 } });
    const out = await p.run("add-constraints", [], stdin([{ roleIndex: 1, constraints: ["No new dependencies"] }]));
    assert.deepEqual(out.added, [{ roleIndex: 1, name: "ui", constraints: ["No new dependencies"] }]);
    const expected = { ...basePlan(), extraTop: 1 } as any;
    expected.roles[1].constraints = ["No new dependencies"];
    assert.deepEqual(p.json(P), expected);
    assert.deepEqual(p.list(".design"), ["plan.json"]);
  });

  it("skips constraints already present (exact match, also within the batch) and counts them", async (t) => {
    const p = project(t, { [P]: basePlan() });
    const out = await p.run(
      "add-constraints",
      [],
      stdin([
        { role: "api-developer", constraints: ["Keep the REST paths", "keep the REST paths", "New"] },
        { roleIndex: 0, constraints: [" New "] },
        { role: "ui", constraints: ["A", "A"] },
      ]),
    );
    assert.deepEqual(out.added, [
      { roleIndex: 0, name: "api-developer", constraints: ["keep the REST paths", "New"] },
      { roleIndex: 1, name: "ui", constraints: ["A"] },
    ]);
    assert.equal(out.duplicates, 3);
    assert.deepEqual(p.json(P).roles[0].constraints, ["Keep the REST paths", "keep the REST paths", "New"]);
  });

  it("writes nothing when every constraint is already present", async (t) => {
    const p = project(t, { [P]: basePlan() });
    const before = p.read(P);
    const out = await p.run("add-constraints", [], stdin([{ role: "api-developer", constraints: ["Keep the REST paths"] }]));
    assert.deepEqual(out, { ok: true, added: [], duplicates: 1, exitCode: 0 });
    assert.equal(p.read(P), before);
  });

  it("accepts an empty batch without writing", async (t) => {
    const p = project(t, { [P]: basePlan() });
    const before = p.read(P);
    assert.deepEqual(await p.run("add-constraints", [], stdin("[]")), { ok: true, added: [], duplicates: 0, exitCode: 0 });
    assert.equal(p.read(P), before);
  });

  it("accepts pending, in-progress and failed roles", async (t) => {
    const plan = planWith([{ name: "a", status: "in_progress" }, { name: "b", status: "failed" }, { name: "c", status: "blocked" }]);
    const p = project(t, { [P]: plan });
    const out = await p.run("add-constraints", ["--", P], stdin([0, 1, 2].map((i) => ({ roleIndex: i, constraints: ["x"] }))));
    assert.deepEqual((out.added as any[]).map((a) => a.roleIndex), [0, 1, 2]);
  });

  it("rejects bad stdin", async (t) => {
    assert.equal((await rejected(t, "nope")).error, "Invalid JSON in stdin");
    assert.equal((await rejected(t, "")).error, "Invalid JSON in stdin");
    assert.equal((await rejected(t, { role: "ui" })).error, "Expected JSON array in stdin");
    assert.equal((await rejected(t, ["x"])).error, "Update 0: must be an object");
  });

  it("wants exactly one of role and roleIndex", async (t) => {
    assert.equal((await rejected(t, [{ constraints: ["x"] }])).error, "Update 0: role or roleIndex is required");
    assert.equal(
      (await rejected(t, [{ role: "ui", roleIndex: 1, constraints: ["x"] }])).error,
      "Update 0: give either role or roleIndex, not both",
    );
  });

  it("rejects a role name that is empty, unknown or shared by two roles", async (t) => {
    assert.equal((await rejected(t, [{ role: "", constraints: ["x"] }])).error, "Update 0: role must be a non-empty string");
    assert.equal((await rejected(t, [{ role: 3, constraints: ["x"] }])).error, "Update 0: role must be a non-empty string");
    const unknown = await rejected(t, [{ role: "ghost", constraints: ["x"] }]);
    assert.deepEqual(unknown, { error: "Update 0: no role named 'ghost'", code: "E_NOT_FOUND" });
    const twins = planWith(["a", "x", "a"]);
    assert.equal((await rejected(t, [{ role: "a", constraints: ["x"] }], twins)).error, "Update 0: role name 'a' is ambiguous (roles 0, 2)");
  });

  it("rejects a roleIndex that is not an integer (booleans included) or out of range", async (t) => {
    for (const bad of [true, "1", 1.5, null]) {
      assert.equal((await rejected(t, [{ roleIndex: bad, constraints: ["x"] }])).error, "Update 0: roleIndex must be an integer");
    }
    assert.equal((await rejected(t, [{ roleIndex: 4, constraints: ["x"] }])).error, "Update 0: roleIndex 4 out of range (0..3)");
    assert.equal((await rejected(t, [{ roleIndex: -1, constraints: ["x"] }])).error, "Update 0: roleIndex -1 out of range (0..3)");
  });

  it("wants a non-empty array of non-empty strings", async (t) => {
    const msg = "Update 0: constraints must be a non-empty array of strings";
    assert.equal((await rejected(t, [{ role: "ui" }])).error, msg);
    assert.equal((await rejected(t, [{ role: "ui", constraints: [] }])).error, msg);
    assert.equal((await rejected(t, [{ role: "ui", constraints: "x" }])).error, msg);
    assert.equal((await rejected(t, [{ role: "ui", constraints: ["ok", "  "] }])).error, 'Update 0: constraints[1] must be a non-empty string (got "  ")');
    assert.equal((await rejected(t, [{ role: "ui", constraints: [5] }])).error, "Update 0: constraints[0] must be a non-empty string (got 5)");
  });

  it("refuses completed and skipped roles", async (t) => {
    const done = await rejected(t, [{ role: "done", constraints: ["x"] }]);
    assert.equal(done.error, "Role 2 (done): cannot add constraints to a completed role");
    assert.equal((await rejected(t, [{ roleIndex: 3, constraints: ["x"] }])).error, "Role 3 (cut): cannot add constraints to a skipped role");
  });

  it("refuses a role whose constraints is not an array", async (t) => {
    const plan = planWith([{ name: "a", constraints: "free text" }]);
    assert.equal((await rejected(t, [{ role: "a", constraints: ["x"] }], plan)).error, "Role 0 (a): 'constraints' must be an array");
  });

  it("validates the whole batch before changing anything", async (t) => {
    const { error } = await rejected(t, [
      { role: "ui", constraints: ["fine"] },
      { role: "done", constraints: ["refused"] },
    ]);
    assert.equal(error, "Role 2 (done): cannot add constraints to a completed role");
  });

  it("reports plan errors before stdin errors", async (t) => {
    const p = project(t);
    assert.equal((await p.run("add-constraints", [], stdin("nope"))).error, "Plan file not found: .design/plan.json");
    assert.equal(p.exists(".design"), false);
    writeFiles(p.dir, { ".design/plan.json": [] });
    assert.equal(
      (await p.run("add-constraints", [".design/plan.json"], stdin("nope"))).error,
      "Invalid plan structure: top-level value must be an object",
    );
  });
});
