import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

describe("worker-pool", () => {
  it("gives one worker per pending role, even when its dependencies have not finished", async (t) => {
    const plan = planWith([
      { name: "API Developer", model: "opus" },
      { name: "db", deps: ["API Developer"] },
      { name: "done", status: "completed" },
      { name: "busy", status: "in_progress" },
    ]);
    const out = await project(t, { ".design/plan.json": plan }).run("worker-pool");
    assert.deepEqual(out, {
      ok: true,
      workers: [
        { name: "api-developer", role: "API Developer", model: "opus", roleIndex: 0 },
        { name: "db", role: "db", model: "sonnet", roleIndex: 1 },
      ],
      maxConcurrency: 1,
      totalWorkers: 2,
      exitCode: 0,
    });
  });

  it("leaves out pending roles with a failed, blocked or skipped direct dependency", async (t) => {
    const plan = planWith([
      { name: "f", status: "failed" },
      { name: "b", status: "blocked" },
      { name: "s", status: "skipped" },
      { name: "on-f", deps: ["f"] },
      { name: "on-b", deps: ["b"] },
      { name: "on-s", deps: ["s"] },
      { name: "on-on-f", deps: ["on-f"] },
    ]);
    const out = await project(t, { ".design/plan.json": plan }).run("worker-pool");
    // only direct dependencies are checked: on-on-f depends on a pending role
    assert.deepEqual((out.workers as any[]).map((w) => w.roleIndex), [6]);
  });

  it("measures concurrency as the largest group of runnable roles at one depth", async (t) => {
    const plan = planWith([
      { name: "a", status: "completed" },
      { name: "b", deps: ["a"] },
      { name: "c", deps: ["a"] },
      { name: "d", deps: ["a"] },
      "e",
      { name: "f", deps: ["b", "c"] },
    ]);
    const out = await project(t, { ".design/plan.json": plan }).run("worker-pool");
    assert.equal(out.totalWorkers, 5);
    assert.equal(out.maxConcurrency, 3); // b, c, d at depth 2; a is completed and not counted at depth 1
  });

  it("makes worker names unique with -2, -3 and the first unused suffix", async (t) => {
    const plan = planWith([
      { name: "API Developer" },
      { name: "api_developer" },
      { name: "api-developer-2" },
      { name: "  Api -- Developer!! " },
    ]);
    const out = await project(t, { ".design/plan.json": plan }).run("worker-pool");
    assert.deepEqual((out.workers as any[]).map((w) => w.name), ["api-developer", "api-developer-2", "api-developer-2-2", "api-developer-3"]);
  });

  it("names a worker 'worker' when nothing of its role name is left", async (t) => {
    const out = await project(t, { "p.json": { roles: [{}, { name: "!!!" }, { name: null }] } }).run("worker-pool", ["p.json"]);
    assert.deepEqual(out.workers, [
      { name: "worker", role: "", model: "sonnet", roleIndex: 0 },
      { name: "worker-2", role: "!!!", model: "sonnet", roleIndex: 1 },
      { name: "worker-3", role: null, model: "sonnet", roleIndex: 2 },
    ]);
  });

  it("treats a role without status as pending [Fix D27]", async (t) => {
    const out = await project(t, { "p.json": { schemaVersion: 4, roles: [{ name: "a" }] } }).run("worker-pool", ["p.json"]);
    assert.deepEqual(out.workers, [{ name: "a", role: "a", model: "sonnet", roleIndex: 0 }]);
    assert.equal(out.maxConcurrency, 1);
  });

  it("returns no workers and zero concurrency when nothing is runnable", async (t) => {
    const plan = planWith([{ name: "a", status: "completed" }, { name: "b", status: "failed" }, { name: "c", deps: ["b"] }]);
    const out = await project(t, { ".design/plan.json": plan }).run("worker-pool");
    assert.deepEqual(out, { ok: true, workers: [], maxConcurrency: 0, totalWorkers: 0, exitCode: 0 });
  });

  it("does not read a string of dependencies character by character [Fix D26]", async (t) => {
    const plan = planWith([{ name: "a", status: "failed" }, { name: "b", deps: "a" as unknown as string[] }]);
    const out = await project(t, { ".design/plan.json": plan }).run("worker-pool");
    assert.deepEqual((out.workers as any[]).map((w) => w.name), ["b"]);
  });

  it("runs roles whose scope is null [Fix D7]", async (t) => {
    const out = await project(t, { "p.json": { roles: [{ name: "a", scope: null }] } }).run("worker-pool", ["p.json"]);
    assert.equal(out.totalWorkers, 1);
  });

  it("fails on a missing plan or a plan of the wrong shape [Fix D7]", async (t) => {
    const p = project(t, { "a.json": "null", "b.json": { roles: null } });
    assert.equal((await p.run("worker-pool")).error, "Plan file not found: .design/plan.json");
    const a = await p.run("worker-pool", ["a.json"]);
    assert.equal(a.error, "Invalid plan structure: top-level value must be an object");
    assert.equal(a.exitCode, 1);
    assert.equal((await p.run("worker-pool", ["b.json"])).error, "Invalid plan structure: 'roles' must be an array");
  });
});
