import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

describe("circuit-breaker", () => {
  it("aborts when the cascade already skipped most remaining roles [Fix D15] [feature:execute/cascade-and-breaker]", async (t) => {
    const plan = planWith([
      { name: "A", status: "failed" },
      { name: "B", deps: ["A"], status: "skipped" },
      { name: "C", deps: ["A"], status: "skipped" },
      { name: "D" },
    ]);
    const out = await project(t, { ".design/plan.json": plan }).run("circuit-breaker");
    assert.deepEqual(out, {
      ok: true,
      totalRoles: 4,
      pendingCount: 1,
      wouldBeSkipped: 2,
      shouldAbort: true,
      reason: "Circuit breaker: 2/3 remaining roles would be skipped",
      skippedCount: 2,
      remainingCount: 3,
      exitCode: 0,
    });
  });

  it("continues when exactly half of the remaining roles would be skipped [Fix D16]", async (t) => {
    const plan = planWith([
      { name: "A", status: "failed" },
      { name: "B", deps: ["A"] },
      { name: "C", deps: ["A"] },
      "D",
      "E",
    ]);
    const out = await project(t, { ".design/plan.json": plan }).run("circuit-breaker");
    assert.deepEqual(out, {
      ok: true,
      totalRoles: 5,
      pendingCount: 4,
      wouldBeSkipped: 2,
      shouldAbort: false,
      reason: "",
      skippedCount: 0,
      remainingCount: 4,
      exitCode: 0,
    });
  });

  it("counts transitive dependents of blocked roles too", async (t) => {
    const plan = planWith([
      { name: "A", status: "blocked" },
      { name: "B", deps: ["A"] },
      { name: "C", deps: ["B"] },
      { name: "D", status: "completed" },
    ]);
    const out = await project(t, { ".design/plan.json": plan }).run("circuit-breaker");
    assert.equal(out.wouldBeSkipped, 2);
    assert.equal(out.remainingCount, 2);
    assert.equal(out.shouldAbort, true);
    assert.equal(out.reason, "Circuit breaker: 2/2 remaining roles would be skipped");
  });

  it("does not count dependents that already ran or are running", async (t) => {
    const plan = planWith([
      { name: "A", status: "failed" },
      { name: "B", deps: ["A"], status: "completed" },
      { name: "C", deps: ["A"], status: "in_progress" },
      { name: "D", deps: ["A"] },
      "E",
    ]);
    const out = await project(t, { ".design/plan.json": plan }).run("circuit-breaker");
    assert.equal(out.wouldBeSkipped, 1);
    assert.equal(out.remainingCount, 2);
    assert.equal(out.shouldAbort, false);
  });

  it("never aborts a plan of three roles or fewer", async (t) => {
    const plan = planWith([{ name: "A", status: "failed" }, { name: "B", deps: ["A"] }, { name: "C", deps: ["A"] }]);
    const out = await project(t, { ".design/plan.json": plan }).run("circuit-breaker");
    assert.equal(out.wouldBeSkipped, 2);
    assert.equal(out.shouldAbort, false);
    assert.equal(out.reason, "");
  });

  it("does not abort when no role remains to run", async (t) => {
    const plan = planWith([
      { name: "A", status: "failed" },
      { name: "B", status: "completed" },
      { name: "C", status: "completed" },
      { name: "D", deps: ["A"], status: "in_progress" },
    ]);
    const out = await project(t, { ".design/plan.json": plan }).run("circuit-breaker");
    assert.equal(out.remainingCount, 0);
    assert.equal(out.shouldAbort, false);
  });

  it("counts roles without status as pending [Fix D27]", async (t) => {
    const roles = [
      { name: "A", status: "failed" },
      { name: "B", scope: { dependencies: ["A"] } },
      { name: "C", status: null, scope: { dependencies: ["A"] } },
      { name: "D" },
    ];
    const out = await project(t, { "p.json": { roles } }).run("circuit-breaker", ["p.json"]);
    assert.equal(out.pendingCount, 3);
    assert.equal(out.wouldBeSkipped, 2);
    assert.equal(out.shouldAbort, true);
  });

  it("does not read a string of dependencies character by character [Fix D26]", async (t) => {
    const plan = planWith([{ name: "a", status: "failed" }, { name: "b", deps: "a" as unknown as string[] }, "c", "d"]);
    const out = await project(t, { ".design/plan.json": plan }).run("circuit-breaker");
    assert.equal(out.wouldBeSkipped, 0);
  });

  it("treats a null scope as no dependencies [Fix D7]", async (t) => {
    const roles = [{ name: "A", status: "failed" }, { name: "B", scope: null }, { name: "C" }, { name: "D" }];
    const out = await project(t, { "p.json": { roles } }).run("circuit-breaker", ["p.json"]);
    assert.equal(out.ok, true);
    assert.equal(out.wouldBeSkipped, 0);
  });

  it("reports zeros for a plan without roles", async (t) => {
    const out = await project(t, { "p.json": {} }).run("circuit-breaker", ["p.json"]);
    assert.deepEqual(out, {
      ok: true, totalRoles: 0, pendingCount: 0, wouldBeSkipped: 0, shouldAbort: false, reason: "", skippedCount: 0, remainingCount: 0, exitCode: 0,
    });
  });

  it("fails on a missing plan or a plan of the wrong shape [Fix D7]", async (t) => {
    const p = project(t, { "a.json": "7", "b.json": { roles: [{}, []] } });
    assert.equal((await p.run("circuit-breaker")).error, "Plan file not found: .design/plan.json");
    const a = await p.run("circuit-breaker", ["a.json"]);
    assert.equal(a.error, "Invalid plan structure: top-level value must be an object");
    assert.equal(a.exitCode, 1);
    assert.equal((await p.run("circuit-breaker", ["b.json"])).error, "Invalid plan structure: roles[1] must be an object");
  });
});
