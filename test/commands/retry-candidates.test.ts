import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

describe("retry-candidates", () => {
  it("lists failed roles with fewer than three attempts, in role order", async (t) => {
    const plan = planWith([
      { name: "a", status: "failed", attempts: 2, result: "tests red", fallback: "use sqlite" },
      { name: "b", status: "failed", attempts: 3, result: "again" },
      { name: "c", status: "pending" },
      { name: "d", status: "failed", attempts: 0, result: "x", model: "opus" },
      { name: "e", status: "blocked", attempts: 0 },
    ]);
    const out = await project(t, { ".design/plan.json": plan }).run("retry-candidates");
    assert.deepEqual(out, {
      ok: true,
      retryable: [
        { roleIndex: 0, name: "a", goal: "Do a", attempts: 2, result: "tests red", model: "opus", baseModel: "sonnet", fallback: "use sqlite", stalls: 0, agent: "a--3" },
        { roleIndex: 3, name: "d", goal: "Do d", attempts: 0, result: "x", model: "opus", baseModel: "opus", fallback: null, stalls: 0, agent: "d" },
      ],
      exitCode: 0,
    });
  });

  it("fills defaults for missing keys but keeps a stored null result", async (t) => {
    const out = await project(t, { "p.json": { roles: [{ status: "failed" }, { name: "b", status: "failed", result: null }] } })
      .run("retry-candidates", ["p.json"]);
    assert.deepEqual(out.retryable, [
      { roleIndex: 0, name: "", goal: "", attempts: 0, result: "", model: "", baseModel: "", fallback: null, stalls: 0, agent: "worker" },
      { roleIndex: 1, name: "b", goal: "", attempts: 0, result: null, model: "", baseModel: "", fallback: null, stalls: 0, agent: "b" },
    ]);
  });

  it("reads null or malformed attempts as 0 instead of crashing [Fix D7]", async (t) => {
    const roles = [null, "2", -1, 1.5, true].map((attempts, i) => ({ name: `r${i}`, status: "failed", attempts }));
    const out = await project(t, { "p.json": { roles } }).run("retry-candidates", ["p.json"]);
    assert.equal(out.ok, true);
    assert.deepEqual((out.retryable as any[]).map((r) => [r.roleIndex, r.attempts]), [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]);
  });

  it("does not treat a role without status as failed [Fix D27]", async (t) => {
    const out = await project(t, { "p.json": { roles: [{ name: "a" }, { name: "b", status: null }] } }).run("retry-candidates", ["p.json"]);
    assert.deepEqual(out.retryable, []);
  });

  it("leaves out a role that stalled twice and escalates from the logged attempts [feature:execute/stall-replaced-once]", async (t) => {
    const log = (outcomes: string[], model = "haiku") => outcomes.map((outcome, k) => ({ attempt: k + 1, model, agent: k ? `x--${k + 1}` : "x", outcome }));
    const out = await project(t, {
      "p.json": {
        roles: [
          { name: "twice", model: "haiku", status: "failed", attempts: 2, attemptLog: log(["stalled", "stalled"]) },
          { name: "once", model: "haiku", status: "failed", attempts: 1, attemptLog: log(["stalled"]) },
          { name: "lost", model: "haiku", status: "failed", attempts: 2, attemptLog: log(["interrupted", "failed"]) },
        ],
      },
    }).run("retry-candidates", ["p.json"]);
    assert.deepEqual((out.retryable as any[]).map((r) => [r.name, r.model, r.stalls, r.agent]), [
      ["once", "sonnet", 1, "once--2"],
      // An interrupted attempt uses budget but does not escalate: only the failed one counts.
      ["lost", "sonnet", 0, "lost--3"],
    ]);
  });

  it("returns an empty list when nothing failed", async (t) => {
    const out = await project(t, { ".design/plan.json": planWith(["a", { name: "b", status: "completed" }]) }).run("retry-candidates");
    assert.deepEqual(out, { ok: true, retryable: [], exitCode: 0 });
  });

  it("fails on a missing plan or a plan of the wrong shape [Fix D7]", async (t) => {
    const p = project(t, { "a.json": "[1, 2]", "b.json": { roles: "ab" } });
    assert.equal((await p.run("retry-candidates")).error, "Plan file not found: .design/plan.json");
    const a = await p.run("retry-candidates", ["a.json"]);
    assert.equal(a.error, "Invalid plan structure: top-level value must be an object");
    assert.equal(a.exitCode, 1);
    assert.equal((await p.run("retry-candidates", ["b.json"])).error, "Invalid plan structure: 'roles' must be an array");
  });
});
