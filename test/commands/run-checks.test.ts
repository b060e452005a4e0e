// run-checks and the evidence gate: the helper runs a role's granted checks and spec as the plan spells them, from
// the project root, with a minimal environment and a timeout, records the evidence in the running attempt, and
// update-status completes a role only on passing evidence from that attempt for every check as it reads now.
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planWith, project, withEvidence, type Project } from "../helpers/design-dir.ts";

/** A retry's start carries a reflexion (update-status requires it: lib/attempts/reflexion.ts). */
const REFLEXION = { rootCause: "The check ran before the build", wrongAssumptions: "The brief assumed a built tree", alternative: "Build first, then run the check" };

const P = ".design/plan.json";
const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const runState = { schemaVersion: 1, skill: "execute", runId: "run-1", completedAt: null };

/** A project whose execute run holds an approved grant over `plan`, with role `started` (index) in progress. */
async function granted(t: TestContext, plan: any, files: Record<string, unknown> = {}): Promise<Project> {
  const p = project(t, { [P]: plan, ".design/run-execute.json": runState, ...files });
  const g: any = await p.run("grant", ["--approve"], { consent: true });
  assert.equal(g.recorded, true, JSON.stringify(g));
  return p;
}

async function start(p: Project, i: number): Promise<void> {
  const out: any = await p.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: i, status: "in_progress" }]) });
  assert.equal(out.ok, true, JSON.stringify(out));
}

const complete = (p: Project, i: number) => p.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: i, status: "completed", result: "done" }]) });

const checks = (...cmds: string[]) => cmds.map((c, k) => ({ criterion: `criterion ${k}`, check: c }));

describe("run-checks", () => {
  it("runs each check as the plan spells it, from the project root, and records the evidence in the running attempt [feature:execute/checks-decide-completion] [ac:execute/2]", async (t) => {
    const plan: any = planWith([
      { name: "api", acceptanceCriteria: checks("test -f .design/plan.json && echo root-ok", "printf 'one\\ntwo\\nthree\\n'; echo oops >&2; exit 3") },
      "ui",
    ]);
    const p = await granted(t, plan);
    await start(p, 0);
    const out: any = await p.run("run-checks", ["--role", "0"], { now: Date.UTC(2026, 0, 2) });
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual([out.role, out.roleIndex, out.attempt, out.agent, out.passed, out.recorded, out.summary], ["api", 0, 1, "api", false, true, "1/2 passed"]);
    assert.deepEqual(out.results.map((r: any) => [r.exitCode, r.passed, r.timedOut]), [[0, true, false], [3, false, false]]);
    assert.equal(out.results[0].output, "root-ok");
    assert.equal(out.results[1].output, "one\ntwo\nthree\noops");
    const entry = p.json(P).roles[0].attemptLog[0];
    assert.equal(entry.outcome, "running");
    assert.deepEqual(
      entry.evidence.map((e: any) => [e.kind, e.check, e.sha256, e.exitCode, e.passed, e.ranAt]),
      plan.roles[0].acceptanceCriteria.map((c: any, k: number) => ["check", c.check, sha(c.check), k === 0 ? 0 : 3, k === 0, "2026-01-02T00:00:00Z"]),
    );
    assert.ok(entry.evidence.every((e: any) => Number.isInteger(e.durationMs) && e.durationMs >= 0));
    // The failing check keeps the role from completing, and says which.
    const refused: any = await complete(p, 0);
    assert.equal(refused.code, "E_INVALID");
    assert.match(refused.error, /^Role 0 \(api\) cannot complete without passing evidence from its running attempt: check `printf .*` failed \(exit 3\)/);
    assert.deepEqual(refused.missing.length, 1);
  });

  it("names a role by its exact name too, and refuses an unknown one or a bad timeout", async (t) => {
    const p = await granted(t, planWith([{ name: "api", acceptanceCriteria: checks("true") }]));
    await start(p, 0);
    assert.equal(((await p.run("run-checks", ["--role", "api"])) as any).passed, true);
    for (const role of ["3", "API", "api; touch pwned", "$(touch pwned)"]) {
      const out: any = await p.run("run-checks", ["--role", role]);
      assert.equal(out.code, "E_INVALID", role);
    }
    assert.equal(p.exists("pwned"), false);
    for (const timeout of ["0", "3601"]) assert.equal(((await p.run("run-checks", ["--role", "0", "--timeout", timeout])) as any).code, "E_USAGE");
    assert.equal(((await p.run("run-checks", [])) as any).code, "E_USAGE", "--role is required");
  });

  it("runs nothing without a grant that covers the role's commands, and says why", async (t) => {
    const plan = planWith([{ name: "api", acceptanceCriteria: checks("touch ran-api") }, { name: "done", status: "completed", acceptanceCriteria: checks("touch ran-done") }]);
    // No grant at all.
    const bare = project(t, { [P]: plan, ".design/run-execute.json": runState });
    const none: any = await bare.run("run-checks", ["--role", "0"]);
    assert.equal(none.code, "E_INVALID");
    assert.match(none.error, /^run-checks runs only what the execute grant covers: no grant/);
    // A grant, but the completed role's check was never granted (only roles still to run are).
    const p = await granted(t, plan);
    const done: any = await p.run("run-checks", ["--role", "done"]);
    assert.match(done.error, /the grant does not cover the check `touch ran-done` of role 1 \(done\)/);
    // A check changed after the approval: the grant ends, for every role.
    const changed = p.json(P);
    changed.roles[0].acceptanceCriteria[0].check = "touch ran-api; touch pwned";
    writeFileSync(join(p.dir, P), JSON.stringify(changed));
    const after: any = await p.run("run-checks", ["--role", "0"]);
    assert.match(after.error, /the plan or one of its spec files changed since the grant was approved/);
    // The run ended: no grant.
    writeFileSync(join(p.dir, P), JSON.stringify(plan));
    writeFileSync(join(p.dir, ".design/run-execute.json"), JSON.stringify({ ...runState, completedAt: "2026-01-01T00:00:00Z" }));
    assert.match(((await p.run("run-checks", ["--role", "0"])) as any).error, /has finished/);
    for (const f of ["ran-api", "ran-done", "pwned"]) assert.equal(p.exists(f), false, `${f}: nothing ran`);
  });

  it("gives a check only the documented environment, and kills one that runs past its timeout", async (t) => {
    const plan = planWith([
      { name: "env", acceptanceCriteria: checks('test -z "$DO_SECRET_TOKEN" && test -z "$CLAUDE_CODE_SESSION_ID" && test "$TERM" = dumb && test -n "$PATH" && test "$NO_COLOR" = 1') },
      { name: "slow", acceptanceCriteria: checks("echo started; sleep 30; echo never") },
    ]);
    const p = await granted(t, plan);
    const saved = { a: process.env.DO_SECRET_TOKEN, b: process.env.CLAUDE_CODE_SESSION_ID };
    process.env.DO_SECRET_TOKEN = "s3cret";
    process.env.CLAUDE_CODE_SESSION_ID = "abc";
    t.after(() => {
      for (const [k, v] of [["DO_SECRET_TOKEN", saved.a], ["CLAUDE_CODE_SESSION_ID", saved.b]] as const) v === undefined ? delete process.env[k] : (process.env[k] = v);
    });
    const env: any = await p.run("run-checks", ["--role", "env"]);
    assert.equal(env.passed, true, JSON.stringify(env.results));
    assert.equal(env.recorded, false, "no running attempt: answered, not recorded");
    assert.match(env.note, /no running attempt/);
    await start(p, 1);
    const slow: any = await p.run("run-checks", ["--role", "slow", "--timeout", "1"]);
    assert.deepEqual([slow.passed, slow.results[0].timedOut, slow.results[0].passed], [false, true, false]);
    assert.equal(slow.results[0].output, "started");
    const refused: any = await complete(p, 1);
    assert.match(refused.error, /check `echo started; sleep 30; echo never` failed \(timed out\)/);
  });

  it("runs the role's verification spec and records its file's hash; a changed spec file voids the evidence [ac:execute/2]", async (t) => {
    const spec = { role: "api", path: ".design/specs/spec-api.sh", runCommand: "bash .design/specs/spec-api.sh", sha256: sha("echo spec-ran\n") };
    const plan = planWith([{ name: "api", acceptanceCriteria: checks("true") }], { verificationSpecs: [spec] });
    const p = await granted(t, plan, { ".design/specs/spec-api.sh": "echo spec-ran\n" });
    await start(p, 0);
    const out: any = await p.run("run-checks", ["--role", "0"]);
    assert.deepEqual(out.results.map((r: any) => [r.kind, r.check, r.passed, r.output]), [["check", "true", true, ""], ["spec", spec.runCommand, true, "spec-ran"]]);
    const ev = p.json(P).roles[0].attemptLog[0].evidence[1];
    assert.deepEqual([ev.spec, ev.specSha256], [spec.path, sha("echo spec-ran\n")]);
    // Changed after the run (a worker editing the spec): no completion on that evidence.
    mkdirSync(join(p.dir, ".design/specs"), { recursive: true });
    writeFileSync(join(p.dir, spec.path), "exit 0\n");
    const refused: any = await complete(p, 0);
    assert.match(refused.error, /spec `bash \.design\/specs\/spec-api\.sh`: its spec file \.design\/specs\/spec-api\.sh changed since the run/);
    writeFileSync(join(p.dir, spec.path), "echo spec-ran\n");
    assert.equal(((await complete(p, 0)) as any).ok, true);
  });

  it("records evidence only in the attempt that was running when the checks started", async (t) => {
    const p = await granted(t, planWith([{ name: "api", acceptanceCriteria: checks("true") }]));
    await start(p, 0);
    await p.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: 0, status: "failed" }]) });
    const out: any = await p.run("run-checks", ["--role", "0"]);
    assert.deepEqual([out.passed, out.recorded], [true, false]);
    assert.equal(p.json(P).roles[0].attemptLog[0].evidence, undefined);
  });
});

describe("update-status: no completion without passing evidence from the same attempt", () => {
  const plan = () => planWith([{ name: "api", acceptanceCriteria: checks("npm test", "npm run lint") }, "ui"]);
  const put = (p: Project, doc: any) => writeFileSync(join(p.dir, P), JSON.stringify(doc));

  it("completes a role whose running attempt holds passing evidence for every check", async (t) => {
    const p = project(t, { [P]: withEvidence(plan(), 0) });
    const out: any = await complete(p, 0);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal(p.json(P).roles[0].status, "completed");
  });

  it("says exactly what is missing, and writes nothing", async (t) => {
    const cases: Array<[string, (d: any) => void, RegExp]> = [
      ["no attempt", (d) => { d.roles[0].status = "in_progress"; }, /the role has no running attempt/],
      ["no evidence", (d) => { withEvidence(d, 0); delete d.roles[0].attemptLog[0].evidence; }, /attempt 1 has no evidence: run run-checks for this role/],
      ["one check missing", (d) => { withEvidence(d, 0); d.roles[0].attemptLog[0].evidence.pop(); }, /check `npm run lint`: no evidence from attempt 1/],
      ["a failing check", (d) => withEvidence(d, 0, { failing: ["npm test"] }), /check `npm test` failed \(exit 1\)/],
      ["a changed check", (d) => { withEvidence(d, 0); d.roles[0].acceptanceCriteria[1].check = "npm run lint -- --fix"; }, /check `npm run lint -- --fix`: no evidence from attempt 1/],
      ["a forged hash", (d) => { withEvidence(d, 0); d.roles[0].attemptLog[0].evidence[0].sha256 = sha("other"); }, /check `npm test`: its evidence does not match the check's text/],
      ["a role without checks", (d) => { withEvidence(d, 0); d.roles[0].acceptanceCriteria = []; }, /the role has no check to run/],
    ];
    for (const [what, change, expected] of cases) {
      const doc = plan();
      change(doc);
      const p = project(t, { [P]: doc });
      const before = p.read(P);
      const out: any = await complete(p, 0);
      assert.equal(out.code, "E_INVALID", what);
      assert.match(out.error, expected, what);
      assert.match(out.error, /Run its checks with run-checks --role 0/, what);
      assert.equal(p.read(P), before, `${what}: nothing written`);
    }
  });

  it("takes no evidence from an earlier attempt: a retry proves itself again", async (t) => {
    const p = project(t, { [P]: withEvidence(plan(), 0) });
    const run = (u: unknown) => p.run("update-status", [], { stdin: JSON.stringify(u) });
    assert.equal(((await run([{ roleIndex: 0, status: "failed" }])) as any).ok, true);
    assert.equal(((await run([{ roleIndex: 0, status: "in_progress", reflexion: REFLEXION }])) as any).ok, true);
    const out: any = await complete(p, 0);
    assert.match(out.error, /attempt 2 has no evidence/);
    put(p, withEvidence(p.json(P), 0));
    assert.equal(((await complete(p, 0)) as any).ok, true);
    assert.equal(p.json(P).roles[0].attemptLog.length, 2);
  });

  it("refuses a batch that starts and completes a role at once", async (t) => {
    const p = project(t, { [P]: plan() });
    const out: any = await p.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: 1, status: "in_progress" }, { roleIndex: 1, status: "completed" }]) });
    assert.equal(out.code, "E_INVALID");
    assert.equal(p.json(P).roles[1].status, undefined);
  });
});
