import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

const P = ".design/plan.json";

describe("resume-reset", () => {
  it("returns in_progress roles to pending and counts the interrupted attempt", async (t) => {
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
    assert.deepEqual(out, { ok: true, resetRoles: [], noWorkRemaining: false, exitCode: 0 });
  });

  it("says no work remains when every role is finished, failed or skipped", async (t) => {
    const p = project(t, {
      [P]: planWith([
        { name: "a", status: "completed" },
        { name: "b", status: "failed" },
        { name: "c", status: "skipped" },
        { name: "d", status: "blocked" },
      ]),
    });
    assert.equal((await p.run("resume-reset")).noWorkRemaining, true);
  });

  it("says no work remains for a plan without roles", async (t) => {
    const p = project(t, { [P]: { schemaVersion: 4 } });
    assert.deepEqual(await p.run("resume-reset"), { ok: true, resetRoles: [], noWorkRemaining: true, exitCode: 0 });
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
    const p = project(t, { ".design/bad.json": "[", ".design/arr.json": [1] });
    assert.equal((await p.run("resume-reset")).error, "Plan file not found: .design/plan.json");
    assert.match((await p.run("resume-reset", [".design/bad.json"])).error as string, /^Invalid JSON in plan file: /);
    assert.equal((await p.run("resume-reset", [".design/arr.json"])).error, "Invalid plan structure: top-level value must be an object");
  });
});
