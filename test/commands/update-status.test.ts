import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { planWith, project, withEvidence, type RoleInit } from "../helpers/design-dir.ts";

const P = ".design/plan.json";
/** A retry's reflexion, the three parts update-status requires on its in_progress update. */
const REFLEXION = { rootCause: "The check ran before the build", wrongAssumptions: "The brief assumed a built tree", alternative: "Build first, then run the check" };

/** Run update-status with the given batch on a fresh plan; returns the project and the output. */
async function run(t: Parameters<typeof project>[0], plan: unknown, batch: unknown, argv: string[] = [], now?: number) {
  const p = project(t, { [P]: plan });
  const out = await p.run("update-status", argv, { stdin: typeof batch === "string" ? batch : JSON.stringify(batch), now });
  return { p, out };
}

/** Run a batch that must be rejected: returns the error, after checking that the plan file did not change. */
async function rejected(t: Parameters<typeof project>[0], plan: unknown, batch: unknown): Promise<string> {
  const p = project(t, { [P]: plan });
  const before = p.read(P);
  const out = await p.run("update-status", [], { stdin: typeof batch === "string" ? batch : JSON.stringify(batch) });
  assert.equal(out.ok, false);
  assert.equal(out.exitCode, 1);
  assert.equal(p.read(P), before, "plan.json must be byte-identical after a rejected batch");
  assert.deepEqual(p.list(".design"), ["plan.json"], "no lock or temp file left");
  return out.error as string;
}

const roles = (...r: Array<string | RoleInit>) => planWith(r);

describe("update-status: transitions", () => {
  it("moves a pending role to in_progress and persists it", async (t) => {
    const { p, out } = await run(t, roles({ name: "a", status: "pending" }, "b"), [{ roleIndex: 0, status: "in_progress" }]);
    assert.deepEqual(out, { ok: true, updated: [0], cascaded: [], trimmed: [], restored: [], exitCode: 0 });
    assert.equal(p.json(P).roles[0].status, "in_progress");
  });

  it("reads a missing or null status as pending (D27)", async (t) => {
    const { p, out } = await run(t, roles("a", { name: "b", status: null }), [
      { roleIndex: 0, status: "in_progress" },
      { roleIndex: 1, status: "in_progress" },
    ]);
    assert.deepEqual(out.updated, [0, 1]);
    assert.deepEqual(p.json(P).roles.map((r: any) => r.status), ["in_progress", "in_progress"]);
  });

  it("applies updates in order, each seeing the previous ones, and may list an index twice", async (t) => {
    const { p, out } = await run(t, roles("a"), [
      { roleIndex: 0, status: "in_progress" },
      { roleIndex: 0, status: "failed" },
      { roleIndex: 0, status: "pending" },
    ]);
    assert.deepEqual(out.updated, [0, 0, 0]);
    assert.equal(p.json(P).roles[0].status, "pending");
  });

  it("names the allowed targets of each state in a fixed order (D10)", async (t) => {
    const cases: Array<[string | null, string, string]> = [
      ["pending", "completed", "Allowed: in_progress"],
      ["in_progress", "pending", "Allowed: completed, failed"],
      ["failed", "completed", "Allowed: pending, in_progress"],
      ["completed", "pending", "Allowed: none (terminal state)"],
      ["skipped", "pending", "Allowed: none (terminal state)"],
      ["blocked", "pending", "Allowed: none (terminal state)"],
      ["weird", "pending", "Allowed: none (terminal state)"],
    ];
    for (const [from, to, allowed] of cases) {
      const error = await rejected(t, roles({ name: "api", status: from }), [{ roleIndex: 0, status: to }]);
      assert.equal(error, `Role 0 (api): Invalid transition: ${from} -> ${to}. ${allowed}`);
    }
  });

  it("rejects an unknown target status as a transition", async (t) => {
    const error = await rejected(t, roles("api"), [{ roleIndex: 0, status: "done" }]);
    assert.equal(error, "Role 0 (api): Invalid transition: pending -> done. Allowed: in_progress");
  });

  it("labels a role without a name with empty parentheses", async (t) => {
    const plan = { schemaVersion: 4, roles: [{ status: "completed" }] };
    const error = await rejected(t, plan, [{ roleIndex: 0, status: "failed" }]);
    assert.equal(error, "Role 0 (): Invalid transition: completed -> failed. Allowed: none (terminal state)");
  });

  it("reports a forbidden transition with code E_TRANSITION", async (t) => {
    const { out } = await run(t, roles({ name: "a", status: "completed" }), [{ roleIndex: 0, status: "failed" }]);
    assert.equal(out.code, "E_TRANSITION");
  });
});

describe("update-status: same status and result (D17)", () => {
  it("accepts the current status as a no-op and still stores the result", async (t) => {
    const { p, out } = await run(t, roles({ name: "a", status: "failed", attempts: 1, result: "old" }), [
      { roleIndex: 0, status: "failed", result: "old\n\n--- Retry 1 Reflexion ---" },
    ]);
    assert.deepEqual(out, { ok: true, updated: [], cascaded: [], trimmed: [], restored: [], exitCode: 0 });
    const role = p.json(P).roles[0];
    assert.equal(role.status, "failed");
    assert.equal(role.attempts, 1, "a no-op does not consume an attempt");
    assert.equal(role.result, "old\n\n--- Retry 1 Reflexion ---");
  });

  it("accepts completed -> completed on a trimmed role without touching it", async (t) => {
    const { p, out } = await run(t, roles({ name: "a", status: "completed" }), [{ roleIndex: 0, status: "completed" }]);
    assert.deepEqual(out.updated, []);
    assert.deepEqual(out.trimmed, []);
    assert.ok("acceptanceCriteria" in p.json(P).roles[0]);
  });

  it("stores any JSON result, null included, with or without a status", async (t) => {
    const { p } = await run(t, roles("a", "b", "c"), [
      { roleIndex: 0, result: { files: ["x"], n: 2 } },
      { roleIndex: 1, result: null, status: "" },
      { roleIndex: 2, status: null },
    ]);
    const r = p.json(P).roles;
    assert.deepEqual(r[0].result, { files: ["x"], n: 2 });
    assert.equal(r[1].result, null);
    assert.equal("result" in r[2], false, "no result key, no result stored");
    assert.deepEqual(r.map((x: any) => x.status), [undefined, undefined, undefined]);
  });
});

describe("update-status: attempts (D13)", () => {
  it("counts in_progress -> failed as an attempt", async (t) => {
    const { p } = await run(t, roles({ name: "a", status: "in_progress", attempts: 1 }), [{ roleIndex: 0, status: "failed" }]);
    assert.equal(p.json(P).roles[0].attempts, 2);
  });

  it("starts from 0 when attempts is missing or not a non-negative integer", async (t) => {
    const { p } = await run(
      t,
      roles({ name: "a", status: "in_progress" }, { name: "b", status: "in_progress", attempts: "x" }, { name: "c", status: "in_progress", attempts: -2 }),
      [0, 1, 2].map((i) => ({ roleIndex: i, status: "failed" })),
    );
    assert.deepEqual(p.json(P).roles.map((r: any) => r.attempts), [1, 1, 1]);
  });

  it("does not count other transitions", async (t) => {
    const p = project(t, { [P]: roles({ name: "a", status: "failed", attempts: 1 }, { name: "b", attempts: 0 }) });
    const step = (batch: unknown) => p.run("update-status", [], { stdin: JSON.stringify(batch) });
    assert.equal((await step([{ roleIndex: 0, status: "pending" }, { roleIndex: 0, status: "in_progress", reflexion: REFLEXION }])).ok, true);
    writeFileSync(join(p.dir, P), JSON.stringify(withEvidence(p.json(P), 0)));
    assert.equal((await step([{ roleIndex: 0, status: "completed" }, { roleIndex: 1, status: "in_progress" }])).ok, true);
    assert.deepEqual(p.json(P).roles.map((r: any) => r.attempts), [1, 0]);
  });

  it("gives a role three attempts across fail/retry cycles [feature:execute/retry-one-tier-up]", async (t) => {
    const p = project(t, { [P]: roles({ name: "a", status: "pending", attempts: 0 }) });
    for (let k = 0; k < 3; k++) {
      const fail = [{ roleIndex: 0, status: "in_progress" }, { roleIndex: 0, status: "failed" }];
      const batch = k === 0 ? fail : [{ roleIndex: 0, status: "pending" }, { ...fail[0], reflexion: REFLEXION }, fail[1]];
      assert.equal((await p.run("update-status", [], { stdin: JSON.stringify(batch) })).ok, true);
    }
    assert.equal(p.json(P).roles[0].attempts, 3);
  });
});

describe("update-status: completion keeps the brief", () => {
  it("changes only the run fields of a completed role: its checks, scope and constraints stay for later phases", async (t) => {
    const plan = roles("base", {
      name: "api",
      deps: ["base"],
      status: "in_progress",
      attempts: 1,
      constraints: ["c"],
      expertContext: [],
      directoryOverlaps: [2],
      fallback: "f",
      custom: "x",
    });
    withEvidence(plan, 1);
    const before = JSON.parse(JSON.stringify((plan as any).roles[1]));
    const { p, out } = await run(t, plan, [{ roleIndex: 1, status: "completed", result: "done" }], [], Date.UTC(2026, 0, 2));
    assert.deepEqual(out.trimmed, [1], "the answer still lists the roles the batch completed");
    assert.deepEqual(p.json(P).roles[1], {
      ...before,
      status: "completed",
      result: "done",
      attemptLog: [{ ...before.attemptLog[0], outcome: "completed", endedAt: "2026-01-02T00:00:00Z", result: "done" }],
    });
  });

  it("leaves every scope as it was, with or without one", async (t) => {
    const plan = {
      schemaVersion: 4,
      roles: [
        { name: "a", status: "in_progress", scope: { directories: ["src/"] }, acceptanceCriteria: [{ criterion: "x", check: "true" }] },
        { name: "b", status: "in_progress", scope: null, acceptanceCriteria: [{ criterion: "x", check: "true" }] },
        { name: "c", status: "in_progress", acceptanceCriteria: [{ criterion: "x", check: "true" }] },
      ],
    };
    for (const i of [0, 1, 2]) withEvidence(plan, i);
    const { p } = await run(t, plan, [0, 1, 2].map((i) => ({ roleIndex: i, status: "completed" })));
    const r = p.json(P).roles;
    assert.deepEqual(r[0].scope, { directories: ["src/"] });
    assert.equal(r[1].scope, null);
    assert.equal("scope" in r[2], false);
  });

  it("creates progress.completedRoles and appends each name once, in completion order", async (t) => {
    const plan = withEvidence(withEvidence(roles("a", "b"), 0), 1);
    const { p } = await run(t, plan, [
      { roleIndex: 1, status: "completed" },
      { roleIndex: 0, status: "completed" },
    ]);
    assert.deepEqual(p.json(P).progress, { completedRoles: ["b", "a"] });
  });

  it("adds to an existing progress object, keeping its other fields and not repeating a name", async (t) => {
    const plan = withEvidence(withEvidence(roles("a", "b"), 0), 1);
    const p1 = { ...plan, progress: { note: "keep" } };
    const { p } = await run(t, p1, [{ roleIndex: 0, status: "completed" }]);
    assert.deepEqual(p.json(P).progress, { note: "keep", completedRoles: ["a"] });
    const p2 = { ...plan, progress: { completedRoles: ["b"] } };
    const second = await run(t, p2, [{ roleIndex: 1, status: "completed" }]);
    assert.deepEqual(second.p.json(P).progress.completedRoles, ["b"]);
  });

  it("does not list a role whose name is empty", async (t) => {
    const plan = withEvidence({ schemaVersion: 4, roles: [{ name: "", status: "in_progress", acceptanceCriteria: [{ criterion: "x", check: "true" }] }] }, 0);
    const { p } = await run(t, plan, [{ roleIndex: 0, status: "completed" }]);
    assert.deepEqual(p.json(P).progress, { completedRoles: [] });
  });

  it("refuses a progress that is not an object, before reading stdin", async (t) => {
    const error = await rejected(t, { ...roles("a"), progress: 5 }, "not json");
    assert.equal(error, "Invalid plan structure: 'progress' must be an object");
  });

  it("refuses a completedRoles that is not a list and writes nothing", async (t) => {
    const plan = { ...withEvidence(roles("a"), 0), progress: { completedRoles: "a" } };
    const error = await rejected(t, plan, [{ roleIndex: 0, status: "completed" }]);
    assert.equal(error, "Invalid plan structure: 'progress.completedRoles' must be an array");
  });
});

describe("update-status: cascade", () => {
  it("skips pending dependents of a failed role, transitively, with a reason [feature:execute/cascade-and-breaker]", async (t) => {
    const plan = roles({ name: "a", status: "in_progress" }, { name: "b", deps: ["a"] }, { name: "c", deps: ["b"] }, "d");
    const { p, out } = await run(t, plan, [{ roleIndex: 0, status: "failed", result: "boom" }]);
    assert.deepEqual(out, {
      ok: true,
      updated: [0],
      cascaded: [
        { roleIndex: 1, name: "b", status: "skipped", reason: "dependency on failed/blocked role 0 (a)" },
        { roleIndex: 2, name: "c", status: "skipped", reason: "dependency on failed/blocked role 1 (b)" },
      ],
      trimmed: [],
      restored: [],
      exitCode: 0,
    });
    assert.deepEqual(p.json(P).roles.map((r: any) => r.status), ["failed", "skipped", "skipped", undefined]);
  });

  it("names the first dependency that failed, not simply the first dependency", async (t) => {
    const plan = roles({ name: "ok", status: "completed" }, { name: "bad", status: "in_progress" }, { name: "x", deps: ["ok", "bad"] });
    const { out } = await run(t, plan, [{ roleIndex: 1, status: "failed" }]);
    assert.equal((out.cascaded as any[])[0].reason, "dependency on failed/blocked role 1 (bad)");
  });

  it("counts a dependency already failed or blocked as a cause", async (t) => {
    const plan = roles(
      { name: "old", status: "blocked" },
      { name: "new", status: "in_progress" },
      { name: "x", deps: ["old", "new"] },
    );
    const { out } = await run(t, plan, [{ roleIndex: 1, status: "failed" }]);
    assert.equal((out.cascaded as any[])[0].reason, "dependency on failed/blocked role 0 (old)");
  });

  it("leaves roles in other states alone but cascades through them, falling back to the first dependency", async (t) => {
    const plan = roles(
      { name: "a", status: "in_progress" },
      { name: "b", deps: ["a"], status: "in_progress" },
      { name: "c", deps: ["b"] },
      { name: "d", deps: ["a"], status: "completed" },
    );
    const { p, out } = await run(t, plan, [{ roleIndex: 0, status: "failed" }]);
    assert.deepEqual(out.cascaded, [
      { roleIndex: 2, name: "c", status: "skipped", reason: "dependency on failed/blocked role 1 (b)" },
    ]);
    assert.deepEqual(p.json(P).roles.map((r: any) => r.status), ["failed", "in_progress", "skipped", "completed"]);
  });

  it("cascades to roles whose status is missing (D27)", async (t) => {
    const plan = { schemaVersion: 4, roles: [{ name: "a", status: "in_progress" }, { name: "b", scope: { dependencies: ["a"] } }] };
    const { out } = await run(t, plan, [{ roleIndex: 0, status: "failed" }]);
    assert.deepEqual((out.cascaded as any[]).map((c) => c.roleIndex), [1]);
  });

  it("does not cascade on a same-status failed update", async (t) => {
    const plan = roles({ name: "a", status: "failed" }, { name: "b", deps: ["a"] });
    const { out } = await run(t, plan, [{ roleIndex: 0, status: "failed", result: "again" }]);
    assert.deepEqual(out.cascaded, []);
  });
});

describe("update-status: restoration after a retry (D14)", () => {
  it("runs the contract's example: fail A, retry A, complete A, and B is runnable again", async (t) => {
    const p = project(t, { [P]: roles({ name: "A", status: "in_progress" }, { name: "B", deps: ["A"] }) });
    const step = async (batch: unknown) => p.run("update-status", [], { stdin: JSON.stringify(batch) });

    const fail = await step([{ roleIndex: 0, status: "failed" }]);
    assert.deepEqual((fail.cascaded as any[]).map((c) => c.roleIndex), [1]);
    assert.equal(p.json(P).roles[1].status, "skipped");

    const retry = await step([{ roleIndex: 0, status: "pending" }, { roleIndex: 0, status: "in_progress", reflexion: REFLEXION }]);
    assert.deepEqual(retry.restored, [{ roleIndex: 1, name: "B", status: "pending" }]);
    assert.equal(p.json(P).roles[1].status, "pending");

    writeFileSync(join(p.dir, P), JSON.stringify(withEvidence(p.json(P), 0)));
    const done = await step([{ roleIndex: 0, status: "completed" }]);
    assert.deepEqual(done.restored, []);
    assert.deepEqual(p.json(P).roles.map((r: any) => r.status), ["completed", "pending"]);
  });

  it("restores a whole chain, in ascending order", async (t) => {
    const plan = roles({ name: "a", status: "failed" }, { name: "b", deps: ["a"], status: "skipped" }, { name: "c", deps: ["b"], status: "skipped" });
    const { out } = await run(t, plan, [{ roleIndex: 0, status: "pending" }]);
    assert.deepEqual(out.restored, [
      { roleIndex: 1, name: "b", status: "pending" },
      { roleIndex: 2, name: "c", status: "pending" },
    ]);
  });

  it("keeps a role skipped while another of its ancestors is still failed or blocked", async (t) => {
    const plan = roles(
      { name: "a", status: "failed" },
      { name: "x", status: "failed" },
      { name: "y", status: "blocked" },
      { name: "b", deps: ["a", "x"], status: "skipped" },
      { name: "c", deps: ["a", "y"], status: "skipped" },
      { name: "d", deps: ["a"], status: "skipped" },
    );
    const { p, out } = await run(t, plan, [{ roleIndex: 0, status: "pending" }]);
    assert.deepEqual(out.restored, [{ roleIndex: 5, name: "d", status: "pending" }]);
    assert.deepEqual(p.json(P).roles.map((r: any) => r.status), ["pending", "failed", "blocked", "skipped", "skipped", "pending"]);
  });

  it("leaves skipped roles that do not depend on the retried role alone", async (t) => {
    const plan = roles({ name: "a", status: "failed" }, { name: "z", status: "skipped" });
    const { out } = await run(t, plan, [{ roleIndex: 0, status: "pending" }]);
    assert.deepEqual(out.restored, []);
  });
});

describe("update-status: input validation (D1)", () => {
  const plan = roles("a", "b");

  it("rejects stdin that is not JSON, empty stdin, and JSON that is not an array", async (t) => {
    assert.equal(await rejected(t, plan, "not json"), "Invalid JSON in stdin");
    assert.equal(await rejected(t, plan, ""), "Invalid JSON in stdin");
    assert.equal(await rejected(t, plan, "{}"), "Expected JSON array in stdin");
  });

  it("rejects an element that is not an object", async (t) => {
    assert.equal(await rejected(t, plan, [5]), "Update 0: must be an object");
    assert.equal(await rejected(t, plan, [{ roleIndex: 0 }, [0]]), "Update 1: must be an object");
  });

  it("rejects a missing, non-integer, string or boolean roleIndex", async (t) => {
    for (const bad of [{}, { roleIndex: "0" }, { roleIndex: true }, { roleIndex: 1.5 }, { roleIndex: null }]) {
      assert.equal(await rejected(t, plan, [{ ...bad, status: "in_progress" }]), "Update 0: roleIndex must be an integer");
    }
  });

  it("rejects a negative or too-large roleIndex instead of wrapping or ignoring it", async (t) => {
    assert.equal(await rejected(t, plan, [{ roleIndex: -1, status: "in_progress" }]), "Update 0: roleIndex -1 out of range (0..1)");
    assert.equal(await rejected(t, plan, [{ roleIndex: 2, status: "in_progress" }]), "Update 0: roleIndex 2 out of range (0..1)");
    assert.equal(await rejected(t, { schemaVersion: 4, roles: [] }, [{ roleIndex: 0 }]), "Update 0: roleIndex 0 out of range (0..-1)");
  });

  it("accepts 1.0 as the integer 1", async (t) => {
    const { out } = await run(t, plan, "[{\"roleIndex\": 1.0, \"status\": \"in_progress\"}]");
    assert.deepEqual(out.updated, [1]);
  });

  it("rejects a non-empty status that is not a string", async (t) => {
    assert.equal(await rejected(t, plan, [{ roleIndex: 0, status: 3 }]), "Update 0: status must be a string");
    assert.equal(await rejected(t, plan, [{ roleIndex: 0, status: ["in_progress"] }]), "Update 0: status must be a string");
    assert.equal(await rejected(t, plan, [{ roleIndex: 0, status: true }]), "Update 0: status must be a string");
  });

  it("writes nothing when a later element of the batch is bad", async (t) => {
    const error = await rejected(t, plan, [{ roleIndex: 0, status: "in_progress" }, { roleIndex: 9, status: "failed" }]);
    assert.equal(error, "Update 1: roleIndex 9 out of range (0..1)");
  });

  it("writes nothing when a later transition is forbidden, even after cascading changes in memory", async (t) => {
    const p2 = roles({ name: "a", status: "in_progress" }, { name: "b", deps: ["a"] });
    const error = await rejected(t, p2, [
      { roleIndex: 0, status: "failed", result: "x" },
      { roleIndex: 1, status: "completed" },
    ]);
    assert.equal(error, "Role 1 (b): Invalid transition: pending -> completed. Allowed: in_progress");
  });

  it("validates every element before applying any (a bad element after a bad transition wins)", async (t) => {
    const error = await rejected(t, roles({ name: "a", status: "completed" }), [
      { roleIndex: 0, status: "pending" },
      { roleIndex: 5 },
    ]);
    assert.equal(error, "Update 1: roleIndex 5 out of range (0..0)");
  });

  it("accepts an empty batch and leaves the file as it was", async (t) => {
    const p = project(t, { [P]: plan });
    const before = p.read(P);
    const out = await p.run("update-status", [], { stdin: "[]" });
    assert.deepEqual(out, { ok: true, updated: [], cascaded: [], trimmed: [], restored: [], exitCode: 0 });
    assert.equal(p.read(P), before);
  });
});

describe("update-status: plan errors come first", () => {
  it("reports a missing plan before bad stdin, and creates no lock or folder", async (t) => {
    const p = project(t);
    const out = await p.run("update-status", [], { stdin: "not json" });
    assert.equal(out.error, "Plan file not found: .design/plan.json");
    assert.equal(out.code, "E_NOT_FOUND");
    assert.equal(p.exists(".design"), false);
  });

  it("reports an unparsable plan before bad stdin", async (t) => {
    const p = project(t, { [P]: "{ torn" });
    const out = await p.run("update-status", [], { stdin: "not json" });
    assert.match(out.error as string, /^Invalid JSON in plan file: /);
  });

  it("reports a plan that is not an object", async (t) => {
    assert.equal(await rejected(t, [1, 2], []), "Invalid plan structure: top-level value must be an object");
    assert.equal(await rejected(t, { schemaVersion: 4, roles: [1] }, []), "Invalid plan structure: roles[0] must be an object");
  });

  it("reports a plan path that is a directory", async (t) => {
    const p = project(t, { ".design/plan.json/x.txt": "x" });
    const out = await p.run("update-status", [".design/plan.json"], { stdin: "[]" });
    assert.match(out.error as string, /^Error reading plan file: .*is a directory, not a regular file$/);
  });
});

describe("update-status: the written file", () => {
  it("keeps unknown fields at every level and writes 2-space JSON with a final newline", async (t) => {
    const plan = { ...roles({ name: "a", custom: { deep: [1] } }, "b"), extraTop: { keep: true }, goal: "g" };
    const { p } = await run(t, plan, [{ roleIndex: 0, status: "in_progress" }], [], Date.UTC(2026, 0, 2));
    const expected = structuredClone(plan) as any;
    expected.roles[0].status = "in_progress";
    expected.roles[0].attemptLog = [{ attempt: 1, model: "sonnet", agent: "a", outcome: "running", startedAt: "2026-01-02T00:00:00Z" }];
    assert.deepEqual(p.json(P), expected);
    assert.equal(p.read(P), `${JSON.stringify(expected, null, 2)}\n`);
    assert.deepEqual(p.list(".design"), ["plan.json"]);
  });

  it("writes to the plan path given as an argument, absolute or relative, and to no other file", async (t) => {
    const p = project(t, { ".design/plan.json": roles("a"), ".design/plans/x.json": roles("a") });
    const out = await p.run("update-status", [join(p.dir, ".design/plan.json")], { stdin: '[{"roleIndex":0,"status":"in_progress"}]' });
    assert.equal(out.ok, true);
    assert.equal(p.json(".design/plan.json").roles[0].status, "in_progress");
    const other = await p.run("update-status", [".design/plans/x.json"], { stdin: '[{"roleIndex":0,"status":"in_progress"}]' });
    assert.equal(other.code, "E_PATH");
    assert.equal(p.json(".design/plans/x.json").roles[0].status, undefined);
  });
});
