import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

describe("tasklist-data", () => {
  it("gives one payload per role with its dependencies as blockedBy indices", async (t) => {
    const plan = planWith(["a", { name: "b", deps: ["a"], status: "in_progress" }, { name: "c", deps: ["b", "a"], status: "completed" }]);
    const out = await project(t, { ".design/plan.json": plan }).run("tasklist-data");
    assert.deepEqual(out, {
      ok: true,
      roles: [
        { roleIndex: 0, name: "a", goal: "Do a", activeForm: "Working as a", blockedBy: [], status: "pending" },
        { roleIndex: 1, name: "b", goal: "Do b", activeForm: "Working as b", blockedBy: [0], status: "in_progress" },
        { roleIndex: 2, name: "c", goal: "Do c", activeForm: "Working as c", blockedBy: [1, 0], status: "completed" },
      ],
      exitCode: 0,
    });
  });

  it("keeps duplicate dependencies and drops unknown ones", async (t) => {
    const plan = planWith(["a", "b", { name: "c", deps: ["b", "ghost", "a", "b"] }]);
    const out = await project(t, { ".design/plan.json": plan }).run("tasklist-data");
    assert.deepEqual((out.roles as any[])[2].blockedBy, [1, 0, 1]);
  });

  it("resolves a repeated name to the later role", async (t) => {
    const plan = planWith(["x", { name: "x", dirs: ["other/"] }, { name: "c", deps: ["x"] }]);
    const out = await project(t, { ".design/plan.json": plan }).run("tasklist-data");
    assert.deepEqual((out.roles as any[])[2].blockedBy, [1]);
  });

  it("does not read a string of dependencies character by character [Fix D26]", async (t) => {
    const plan = planWith(["a", "b", { name: "c", deps: "ab" as unknown as string[] }]);
    const out = await project(t, { ".design/plan.json": plan }).run("tasklist-data");
    assert.deepEqual((out.roles as any[])[2].blockedBy, []);
  });

  it("defaults a missing name, goal and status, and names a nameless worker 'worker' [Fix D27]", async (t) => {
    const out = await project(t, { "p.json": { roles: [{}, { name: "b", status: null }] } }).run("tasklist-data", ["p.json"]);
    assert.deepEqual(out.roles, [
      { roleIndex: 0, name: "", goal: "", activeForm: "Working as worker", blockedBy: [], status: "pending" },
      { roleIndex: 1, name: "b", goal: "", activeForm: "Working as b", blockedBy: [], status: "pending" },
    ]);
  });

  it("gives no blockers to a role whose scope is null [Fix D7]", async (t) => {
    const out = await project(t, { "p.json": { roles: [{ name: "a", scope: null }] } }).run("tasklist-data", ["p.json"]);
    assert.deepEqual((out.roles as any[])[0].blockedBy, []);
  });

  it("returns no payloads for a plan without roles", async (t) => {
    const out = await project(t, { "p.json": { schemaVersion: 4 } }).run("tasklist-data", ["p.json"]);
    assert.deepEqual(out, { ok: true, roles: [], exitCode: 0 });
  });

  it("fails on a missing plan or a plan of the wrong shape [Fix D7]", async (t) => {
    const p = project(t, { "a.json": '"text"', "b.json": { roles: [3] } });
    const missing = await p.run("tasklist-data");
    assert.equal(missing.error, "Plan file not found: .design/plan.json");
    assert.equal(missing.exitCode, 1);
    assert.equal((await p.run("tasklist-data", ["a.json"])).error, "Invalid plan structure: top-level value must be an object");
    assert.equal((await p.run("tasklist-data", ["b.json"])).error, "Invalid plan structure: roles[0] must be an object");
  });
});
