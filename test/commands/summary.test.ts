import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

describe("summary", () => {
  it("groups roles by depth and counts models, a missing model as unknown", async (t) => {
    const plan = planWith([
      "a",
      { name: "b", deps: ["a"], model: "opus" },
      { name: "c", deps: ["a"], model: undefined }, // undefined: the key is left out of the file
      { name: "d", deps: ["b", "c"], model: "haiku" },
      "e",
    ]);
    const out = await project(t, { ".design/plan.json": plan }).run("summary");
    assert.deepEqual(out, {
      ok: true,
      goal: "Test goal",
      roleCount: 5,
      maxDepth: 3,
      depthSummary: {
        "1": ["Role 0: a (sonnet)", "Role 4: e (sonnet)"],
        "2": ["Role 1: b (opus)", "Role 2: c ()"],
        "3": ["Role 3: d (haiku)"],
      },
      modelDistribution: "1 haiku, 1 opus, 2 sonnet, 1 unknown",
      auxiliaryRoles: ["challenger", "scout", "integration-verifier", "memory-curator"],
      cost: { tokens: 0, byRole: [], byTier: {}, byRun: [], auxiliaries: [], unrecorded: 0 },
      exitCode: 0,
    });
  });

  it("reports an empty plan with depth 0 and no models", async (t) => {
    const out = await project(t, { "p.json": { schemaVersion: 4 } }).run("summary", ["p.json"]);
    assert.deepEqual(out, {
      ok: true, goal: "", roleCount: 0, maxDepth: 0, depthSummary: {}, modelDistribution: "", auxiliaryRoles: [],
      cost: { tokens: 0, byRole: [], byTier: {}, byRun: [], auxiliaries: [], unrecorded: 0 }, exitCode: 0,
    });
  });

  it("renders a missing name as empty text and a null model as None", async (t) => {
    const out = await project(t, { "p.json": { roles: [{ model: null }, { name: "b", model: "sonnet" }] } }).run("summary", ["p.json"]);
    assert.deepEqual(out.depthSummary, { "1": ["Role 0:  (None)", "Role 1: b (sonnet)"] });
    assert.equal(out.modelDistribution, "1 None, 1 sonnet");
  });

  it("sorts models by code point, as Python does", async (t) => {
    const roles = ["\u{1F600}", "\uFF5E", "haiku", "Opus"].map((model, i) => ({ name: `r${i}`, model }));
    const out = await project(t, { "p.json": { roles } }).run("summary", ["p.json"]);
    assert.equal(out.modelDistribution, "1 Opus, 1 haiku, 1 \uFF5E, 1 \u{1F600}");
  });

  it("lists auxiliary role names in order, a missing name as empty text", async (t) => {
    const plan = planWith(["a"], { auxiliaryRoles: [{ name: "challenger" }, { type: "post-execution" }, { name: "scout" }] });
    const out = await project(t, { ".design/plan.json": plan }).run("summary");
    assert.deepEqual(out.auxiliaryRoles, ["challenger", "", "scout"]);
  });

  it("reports the 999-based depths of a cyclic plan", async (t) => {
    const plan = planWith([{ name: "a", deps: ["b"] }, { name: "b", deps: ["a"] }, { name: "c", deps: ["a"] }]);
    const out = await project(t, { ".design/plan.json": plan }).run("summary");
    assert.equal(out.maxDepth, 1002);
    assert.deepEqual(out.depthSummary, { "1000": ["Role 1: b (sonnet)"], "1001": ["Role 0: a (sonnet)"], "1002": ["Role 2: c (sonnet)"] });
  });

  it("treats a null scope as no dependencies instead of crashing [Fix D7]", async (t) => {
    const out = await project(t, { "p.json": { roles: [{ name: "a", scope: null }, { name: "b", scope: { dependencies: ["a"] } }] } })
      .run("summary", ["p.json"]);
    assert.equal(out.ok, true);
    assert.deepEqual(out.depthSummary, { "1": ["Role 0: a ()"], "2": ["Role 1: b ()"] });
  });

  it("ignores a string of dependencies instead of reading its characters [Fix D26]", async (t) => {
    const plan = planWith(["a", "b", { name: "c", deps: "ab" as unknown as string[] }]);
    const out = await project(t, { ".design/plan.json": plan }).run("summary");
    assert.equal(out.maxDepth, 1);
  });

  it("rejects auxiliaryRoles that is not an array of objects [Fix D7]", async (t) => {
    const p = project(t, {
      "a.json": planWith(["a"], { auxiliaryRoles: "scout" }),
      "b.json": planWith(["a"], { auxiliaryRoles: [{ name: "scout" }, 3] }),
    });
    const a = await p.run("summary", ["a.json"]);
    assert.equal(a.error, "Invalid plan structure: 'auxiliaryRoles' must be an array");
    assert.equal(a.exitCode, 1);
    assert.equal((await p.run("summary", ["b.json"])).error, "Invalid plan structure: auxiliaryRoles[1] must be an object");
  });

  it("rejects a plan whose top level is not an object or whose roles are not an array [Fix D7]", async (t) => {
    const p = project(t, { "a.json": [1, 2], "b.json": { roles: { a: 1 } }, "c.json": { roles: [{}, "x"] } });
    const a = await p.run("summary", ["a.json"]);
    assert.equal(a.ok, false);
    assert.equal(a.error, "Invalid plan structure: top-level value must be an object");
    assert.equal(a.exitCode, 1);
    assert.equal((await p.run("summary", ["b.json"])).error, "Invalid plan structure: 'roles' must be an array");
    assert.equal((await p.run("summary", ["c.json"])).error, "Invalid plan structure: roles[1] must be an object");
  });

  it("reports a missing, unreadable or torn plan file", async (t) => {
    const p = project(t, { "torn.json": '{"roles": [', "dir.json/x": "" });
    const missing = await p.run("summary");
    assert.equal(missing.error, "Plan file not found: .design/plan.json");
    assert.equal(missing.exitCode, 1);
    assert.match((await p.run("summary", ["torn.json"])).error as string, /^Invalid JSON in plan file: /);
    assert.match((await p.run("summary", ["dir.json"])).error as string, /^Error reading plan file: /);
  });
});
