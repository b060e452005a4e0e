import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

describe("status", () => {
  it("counts roles per status with a missing status read as pending", async (t) => {
    const p = project(t, { ".design/plan.json": planWith(["a", { name: "b", status: "completed" }, { name: "c", status: null }]) });
    const out = await p.run("status");
    assert.deepEqual(out, { ok: true, schemaVersion: 4, roleCount: 3, counts: { pending: 2, completed: 1 }, isResume: true, exitCode: 0 });
  });

  it("says not_found when there is no plan", async (t) => {
    const out = await project(t).run("status");
    assert.equal(out.ok, false);
    assert.equal(out.error, "not_found");
    assert.equal(out.exitCode, 1);
  });

  it("says invalid_json for a torn file", async (t) => {
    const out = await project(t, { ".design/plan.json": '{"schemaVersion": 4, "roles": [' }).run("status");
    assert.equal(out.error, "invalid_json");
  });

  it("renders a wrong schemaVersion the Python way", async (t) => {
    const p = project(t, { "a.json": [1, 2], "b.json": { schemaVersion: 3, roles: [{}] }, "c.json": { schemaVersion: true } });
    assert.equal((await p.run("status", ["a.json"])).error, "bad_schema (schemaVersion=None, expected 4)");
    assert.equal((await p.run("status", ["b.json"])).error, "bad_schema (schemaVersion=3, expected 4)");
    assert.equal((await p.run("status", ["c.json"])).error, "bad_schema (schemaVersion=True, expected 4)");
  });

  it("separates empty roles from roles of the wrong type", async (t) => {
    const p = project(t, {
      "e.json": { schemaVersion: 4, roles: [] },
      "s.json": { schemaVersion: 4, roles: "ab" },
      "o.json": { schemaVersion: 4, roles: [{}, 3] },
    });
    assert.equal((await p.run("status", ["e.json"])).error, "empty_roles");
    assert.equal((await p.run("status", ["s.json"])).error, "bad_schema (roles must be an array)");
    assert.equal((await p.run("status", ["o.json"])).error, "bad_schema (roles[1] must be an object)");
  });

  it("is not resumed when every role is pending", async (t) => {
    const out = await project(t, { ".design/plan.json": planWith(["a", "b"]) }).run("status");
    assert.equal(out.isResume, false);
  });
});
