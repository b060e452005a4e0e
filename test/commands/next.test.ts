import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

const P = ".design/plan.json";

describe("next", () => {
  it("answers the roles to start with tier, agent, report path and the dependencies' reports [feature:execute/helper-schedules]", async (t) => {
    const p = project(t, {
      [P]: planWith([
        { name: "api", model: "haiku", status: "completed", attemptLog: [{ attempt: 1, model: "haiku", agent: "api", outcome: "completed" }] },
        { name: "ui", model: "haiku", deps: ["api"], status: "failed", attempts: 1 },
        { name: "docs", deps: ["ui"], status: "skipped" },
      ]),
      ".design/worker-api.json": { role: "api" },
    });
    const out = await p.run("next");
    assert.equal(out.ok, true);
    assert.equal(out.done, false);
    assert.deepEqual(out.start, [
      {
        roleIndex: 1, name: "ui", agent: "ui--2", model: "sonnet", attempt: 2, retry: true, from: "failed", previousModel: null, replaces: null,
        reportPath: ".design/worker-ui--2.json",
        dependencies: [{ roleIndex: 0, name: "api", agent: "api", reportPath: ".design/worker-api.json", reportExists: true }],
      },
    ]);
    assert.deepEqual(out.waiting, [{ roleIndex: 2, name: "docs", on: [{ roleIndex: 1, name: "ui", kind: "dependency" }] }]);
    assert.deepEqual(out.counts, { pending: 0, in_progress: 0, completed: 1, failed: 1, skipped: 1, blocked: 0 });
  });

  it("says done with the reason when nothing can move [feature:execute/helper-schedules]", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "a", dirs: ["src/"], status: "failed", attempts: 3 }, { name: "b", dirs: ["src/"], status: "completed" }]) });
    const out = await p.run("next");
    assert.equal(out.done, true);
    assert.equal(out.reason, "nothing can move: 1/2 completed; a failed for good (3 attempts used)");
    assert.deepEqual(out.failedForGood, [{ roleIndex: 0, name: "a", reason: "3 attempts used" }]);
  });

  it("marks a dependency report that is missing", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "a", status: "completed" }, { name: "b", deps: ["a"] }]) });
    const out: any = await p.run("next");
    assert.deepEqual(out.start[0].dependencies, [{ roleIndex: 0, name: "a", agent: "a", reportPath: ".design/worker-a.json", reportExists: false }]);
  });

  it("reads the plan path given and changes no file", async (t) => {
    const p = project(t, { "x/plan.json": planWith(["a"]) });
    const before = p.read("x/plan.json");
    const out: any = await p.run("next", ["x/plan.json"]);
    assert.deepEqual(out.start.map((s: any) => s.agent), ["a"]);
    assert.equal(p.read("x/plan.json"), before);
  });

  it("fails on a missing or malformed plan", async (t) => {
    const p = project(t, { "a.json": "[1]", "b.json": "{" });
    assert.deepEqual(await p.run("next"), { ok: false, error: "Plan file not found: .design/plan.json", code: "E_NOT_FOUND", exitCode: 1 });
    assert.equal((await p.run("next", ["a.json"])).code, "E_SCHEMA");
    assert.equal((await p.run("next", ["b.json"])).code, "E_JSON");
  });
});

describe("update-status: attempts, tiers and retries", () => {
  it("logs each attempt's tier and agent, marks a stall, and retries a failed role directly [feature:execute/retry-one-tier-up]", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "a", model: "haiku", status: "pending" }, { name: "b", deps: ["a"], status: "pending" }]) });
    const T = Date.UTC(2026, 0, 2, 3, 4, 5);
    const run = (u: unknown[]) => p.run("update-status", [], { stdin: JSON.stringify(u), now: T });
    await run([{ roleIndex: 0, status: "in_progress" }]);
    const failed: any = await run([{ roleIndex: 0, status: "failed", stalled: true, result: "stalled" }]);
    assert.deepEqual(failed.cascaded, [{ roleIndex: 1, name: "b", status: "skipped", reason: "dependency on failed/blocked role 0 (a)" }]);
    const retried: any = await run([{ roleIndex: 0, status: "in_progress" }]);
    assert.deepEqual(retried.restored, [{ roleIndex: 1, name: "b", status: "pending" }]);
    const role = p.json(P).roles[0];
    assert.deepEqual(role.attemptLog, [
      { attempt: 1, model: "haiku", agent: "a", outcome: "stalled", startedAt: "2026-01-02T03:04:05Z", endedAt: "2026-01-02T03:04:05Z" },
      { attempt: 2, model: "sonnet", agent: "a--2", outcome: "running", startedAt: "2026-01-02T03:04:05Z" },
    ]);
    assert.equal(role.attempts, 1);
  });

  it("takes the model and agent the lead gives", async (t) => {
    const p = project(t, { [P]: planWith(["a"]) });
    await p.run("update-status", [], { stdin: '[{"roleIndex":0,"status":"in_progress","model":"opus","agent":"a-special"}]', now: Date.UTC(2026, 0, 2) });
    assert.deepEqual(p.json(P).roles[0].attemptLog, [
      { attempt: 1, model: "opus", agent: "a-special", outcome: "running", startedAt: "2026-01-02T00:00:00Z", escalated: { from: "sonnet", reason: "started above the scheduler's tier by the lead" } },
    ]);
  });

  it("refuses malformed model, agent or stalled fields and writes nothing", async (t) => {
    const p = project(t, { [P]: planWith(["a"]) });
    const before = p.read(P);
    for (const [u, msg] of [
      [{ roleIndex: 0, status: "in_progress", model: 3 }, "Update 0: model must be a non-empty string"],
      [{ roleIndex: 0, status: "in_progress", agent: "" }, "Update 0: agent must be a non-empty string"],
      [{ roleIndex: 0, status: "in_progress", stalled: "yes" }, "Update 0: stalled must be a boolean"],
    ] as const) {
      const out = await p.run("update-status", [], { stdin: JSON.stringify([u]) });
      assert.deepEqual([out.code, out.error], ["E_SCHEMA", msg]);
    }
    assert.equal(p.read(P), before);
  });

  it("refuses a direct retry once the budget is spent", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "a", status: "failed", attempts: 3 }]) });
    const out = await p.run("update-status", [], { stdin: '[{"roleIndex":0,"status":"in_progress"}]' });
    assert.equal(out.code, "E_TRANSITION");
    assert.equal(out.error, "Role 0 (a): Invalid transition: failed -> in_progress (no retry left: 3 attempts used). Allowed: pending");
  });
});
