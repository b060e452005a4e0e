import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project, writeFiles } from "../helpers/design-dir.ts";

const P = ".design/plan.json";

describe("resume-reset", () => {
  it("returns in_progress roles to pending and counts the interrupted attempt [feature:execute/resume-after-interruption] [ac:execute/5]", async (t) => {
    const p = project(t, {
      [P]: planWith([
        { name: "a", status: "in_progress", attempts: 1 },
        { name: "b", status: "completed", attempts: 0 },
        { name: "c", status: "in_progress" },
      ]),
    });
    const out = await p.run("resume-reset");
    assert.deepEqual(out, {
      ok: true,
      resetRoles: [
        { roleIndex: 0, name: "a" },
        { roleIndex: 2, name: "c" },
      ],
      noWorkRemaining: false,
      reason: "",
      retryable: 0,
      exitCode: 0,
    });
    const roles = p.json(P).roles;
    assert.deepEqual(roles.map((r: any) => [r.status, r.attempts]), [["pending", 2], ["completed", 0], ["pending", 1]]);
  });

  it("starts attempts from 0 when it is not a non-negative integer", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "a", status: "in_progress", attempts: null }, { name: "b", status: "in_progress", attempts: "2" }]) });
    await p.run("resume-reset");
    assert.deepEqual(p.json(P).roles.map((r: any) => r.attempts), [1, 1]);
  });

  it("reports a role without a name as an empty name", async (t) => {
    const p = project(t, { [P]: { schemaVersion: 4, roles: [{ status: "in_progress" }] } });
    assert.deepEqual((await p.run("resume-reset")).resetRoles, [{ roleIndex: 0, name: "" }]);
  });

  it("counts a missing or null status as remaining work (D27)", async (t) => {
    const p = project(t, { [P]: { schemaVersion: 4, roles: [{ name: "a" }, { name: "b", status: null, result: "x" }] } });
    const out = await p.run("resume-reset");
    assert.deepEqual(out, { ok: true, resetRoles: [], noWorkRemaining: false, reason: "", retryable: 0, exitCode: 0 });
  });

  it("says no work remains when every role is finished, failed for good or skipped", async (t) => {
    const p = project(t, {
      [P]: planWith([
        { name: "a", status: "completed" },
        { name: "b", status: "failed", attempts: 3 },
        { name: "c", status: "skipped" },
        { name: "d", status: "blocked" },
      ]),
    });
    const out = await p.run("resume-reset");
    assert.equal(out.noWorkRemaining, true);
    assert.match(out.reason as string, /^nothing can move: 1\/4 completed; b failed for good \(3 attempts used\)/);
  });

  it("counts retryable failed roles as work, so a re-run retries them [feature:execute/resume-after-interruption] [feature:execute/retry-one-tier-up]", async (t) => {
    const p = project(t, {
      [P]: planWith([
        { name: "a", status: "completed" },
        { name: "b", status: "failed", attempts: 1 },
        { name: "c", status: "skipped", deps: ["b"] },
      ]),
    });
    const out = await p.run("resume-reset");
    assert.equal(out.noWorkRemaining, false);
    assert.equal(out.retryable, 1);
  });

  it("closes the interrupted attempt in the attempt log", async (t) => {
    const log = [{ attempt: 1, model: "haiku", agent: "a", outcome: "running" }];
    const p = project(t, { [P]: planWith([{ name: "a", model: "haiku", status: "in_progress", attemptLog: log }]) });
    await p.run("resume-reset");
    const role = p.json(P).roles[0];
    assert.deepEqual([role.status, role.attempts, role.attemptLog[0].outcome], ["pending", 1, "interrupted"]);
  });

  it("says no work remains for a plan without roles", async (t) => {
    const p = project(t, { [P]: { schemaVersion: 4 } });
    assert.deepEqual(await p.run("resume-reset"), { ok: true, resetRoles: [], noWorkRemaining: true, reason: "the plan has no roles", retryable: 0, exitCode: 0 });
  });

  it("leaves the file byte-for-byte alone when nothing was reset", async (t) => {
    const text = '{"schemaVersion":4,"roles":[{"name":"a","status":"pending"}]}';
    const p = project(t, { [P]: text });
    await p.run("resume-reset");
    assert.equal(p.read(P), text);
  });

  it("keeps unknown fields when it writes", async (t) => {
    const plan = planWith([{ name: "a", status: "in_progress", custom: [1, { x: 2 }] }], { extraTop: "keep" });
    const p = project(t, { [P]: plan });
    await p.run("resume-reset");
    const expected = structuredClone(plan) as any;
    expected.roles[0].status = "pending";
    expected.roles[0].attempts = 1;
    assert.deepEqual(p.json(P), expected);
    assert.deepEqual(p.list(".design"), ["plan.json"]);
  });

  it("reports plan errors with the contract's messages", async (t) => {
    const p = project(t);
    assert.equal((await p.run("resume-reset")).error, "Plan file not found: .design/plan.json");
    writeFiles(p.dir, { ".design/plan.json": "[" });
    assert.match((await p.run("resume-reset", [".design/plan.json"])).error as string, /^Invalid JSON in plan file: /);
    writeFiles(p.dir, { ".design/plan.json": [1] });
    assert.equal((await p.run("resume-reset", [".design/plan.json"])).error, "Invalid plan structure: top-level value must be an object");
  });
});
