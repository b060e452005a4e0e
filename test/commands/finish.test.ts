// finish: one call when a worker finishes: its cost, its report, its checks under the grant, its outcome on that
// evidence, and the commit of its reported files; nothing recorded on an invalid report.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planWith } from "../helpers/design-dir.ts";
import { gitProject, PLAN, type GitProject } from "../helpers/git-project.ts";

const checks = (...cmds: string[]) => cmds.map((c, k) => ({ criterion: `criterion ${k}`, check: c }));
const plan = (apiChecks = checks("grep -q ready src/api/a.ts")): any =>
  planWith([{ name: "api", acceptanceCriteria: apiChecks }, { name: "ui", deps: ["api"], acceptanceCriteria: checks("true") }]);
const files = { "src/api/a.ts": "draft\n", "src/ui/u.ts": "ui\n" };
const report = (over: Record<string, unknown> = {}) =>
  JSON.stringify({ role: "api", achieved: true, filesChanged: ["src/api/a.ts", "src/api/b.ts"], acceptanceCriteria: [{ criterion: "ready", passed: true, evidence: "grep" }], ...over });

async function started(p: GitProject, agent = "api-dev"): Promise<void> {
  const out: any = await p.run("update-status", [PLAN], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", agent }]) });
  assert.equal(out.ok, true, JSON.stringify(out));
}
const finish = (p: GitProject, ...extra: string[]) => p.run("finish", [PLAN, "--agent", "api-dev", "--tokens", "1200", ...extra]);

describe("finish", () => {
  it("a valid report and passing checks: usage, evidence, completed and committed in one call", async (t) => {
    const p = await gitProject(t, plan(), files);
    await started(p);
    p.write("src/api/a.ts", "ready\n");
    p.write("src/api/b.ts", "new\n");
    p.write("src/ui/u.ts", "not the api role's\n");
    p.write(".design/worker-api-dev.json", report());
    const out: any = await finish(p);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual([out.roleIndex, out.role, out.agent, out.attempt, out.status, out.result], [0, "api", "api-dev", 1, "completed", "1/1 checks passed"]);
    assert.deepEqual(out.report, { valid: true, path: ".design/worker-api-dev.json" });
    assert.deepEqual([out.evidence.passed, out.evidence.summary], [true, "1/1 passed"]);
    assert.equal(out.usage.tokens, 1200);
    assert.deepEqual(out.commit.files, ["src/api/a.ts", "src/api/b.ts"]);
    assert.equal(out.commit.sha, p.git("rev-parse", "HEAD").trim());
    assert.equal(p.git("log", "-1", "--format=%s").trim(), "api: 1/1 checks passed");
    assert.deepEqual(p.status(), [" M src/ui/u.ts"], "the other role's file is left alone");
    const role = p.json(PLAN).roles[0];
    assert.equal(role.status, "completed");
    const entry = role.attemptLog[0];
    assert.deepEqual([entry.outcome, entry.usage.tokens, entry.evidence.length, entry.evidence[0].passed], ["completed", 1200, 1, true]);
    // Finished once: a second call records nothing again and commits nothing twice (it would complete a commit a kill
    // interrupted).
    const head = p.git("rev-parse", "HEAD").trim();
    const again: any = await finish(p);
    assert.equal(again.ok, true, JSON.stringify(again));
    assert.deepEqual([again.alreadyRecorded, again.status, again.commit.sha], [true, "completed", null]);
    assert.match(again.commit.note, /as HEAD has them/);
    assert.equal(p.git("rev-parse", "HEAD").trim(), head);
    assert.equal(p.json(PLAN).roles[0].attemptLog.length, 1);
  });

  it("a failing check: failed, naming the check, nothing committed, dependents cascaded", async (t) => {
    const p = await gitProject(t, plan(checks("grep -q ready src/api/a.ts", "test -f src/api/missing.ts")), files);
    await started(p);
    p.write("src/api/a.ts", "ready\n");
    p.write(".design/worker-api-dev.json", report());
    const head = p.git("rev-parse", "HEAD").trim();
    const out: any = await finish(p, "--message", "api: done");
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal(out.status, "failed");
    assert.match(out.result, /^check `test -f src\/api\/missing\.ts` failed \(exit 1\)$/);
    assert.deepEqual([out.evidence.passed, out.evidence.summary], [false, "1/2 passed"]);
    assert.match(out.commit.skipped, /failed: nothing is committed/);
    assert.equal(p.git("rev-parse", "HEAD").trim(), head);
    assert.deepEqual(out.cascaded.map((c: any) => [c.name, c.status]), [["ui", "skipped"]], "its dependent waits as skipped");
    const role = p.json(PLAN).roles[0];
    assert.deepEqual([role.status, role.result, role.attemptLog[0].outcome], ["failed", out.result, "failed"]);
  });

  it("a report that says it failed is taken at its word: no check runs", async (t) => {
    const p = await gitProject(t, plan(checks("touch ran-check")), files);
    await started(p);
    p.write(".design/worker-api-dev.json", report({ achieved: true, acceptanceCriteria: [{ criterion: "orders listed", passed: false, evidence: "404" }] }));
    const out: any = await finish(p);
    assert.deepEqual([out.ok, out.status, out.result, out.evidence], [true, "failed", 'the worker reports the criterion "orders listed" not passed', null]);
    assert.equal(p.exists("ran-check"), false);
  });

  it("an invalid or missing report records nothing and hands back the error and the schema; --give-up records failed", async (t) => {
    const p = await gitProject(t, plan(checks("touch ran-check")), files);
    await started(p);
    const before = p.read(PLAN);
    const missing: any = await finish(p);
    assert.deepEqual([missing.ok, missing.code, missing.status, missing.recorded, missing.roleIndex], [false, "E_INVALID", null, false, 0]);
    assert.deepEqual([missing.report.valid, missing.report.error], [false, "Report file not found: .design/worker-api-dev.json"]);
    p.write(".design/worker-api-dev.json", JSON.stringify({ role: "api", achieved: "yes" }));
    const invalid: any = await finish(p);
    assert.equal(invalid.report.valid, false);
    assert.match(invalid.report.error, /^Schema validation failed: Missing required fields: filesChanged, acceptanceCriteria; Field 'achieved' must be bool, got str$/);
    assert.deepEqual(invalid.report.schema.required, ["role", "achieved", "filesChanged", "acceptanceCriteria"]);
    assert.equal(p.read(PLAN), before, "nothing recorded");
    assert.equal(p.exists("ran-check"), false, "no check ran");
    const gave: any = await finish(p, "--give-up");
    assert.equal(gave.ok, true, JSON.stringify(gave));
    assert.deepEqual([gave.status, gave.result, gave.evidence], ["failed", "its completion report stayed invalid after one correction", null]);
    assert.equal(p.json(PLAN).roles[0].status, "failed");
    assert.equal(p.exists("ran-check"), false);
  });

  it("runs no check and records nothing without a grant; refuses a report that is a link out of the project", async (t) => {
    const p = await gitProject(t, plan(checks("touch ran-check")), files, { grant: false });
    await started(p);
    p.write(".design/worker-api-dev.json", report());
    const before = p.read(PLAN);
    const out: any = await finish(p);
    assert.equal(out.code, "E_INVALID");
    assert.match(out.error, /^finish runs the role's checks only under the execute grant: no grant/);
    assert.equal(p.read(PLAN), before);
    assert.equal(p.exists("ran-check"), false);
    const q = await gitProject(t, plan(), files);
    await started(q);
    const secret = join(q.outside, "report.json");
    writeFileSync(secret, report());
    symlinkSync(secret, join(q.dir, ".design/worker-api-dev.json"));
    const link: any = await finish(q);
    assert.equal(link.code, "E_PATH");
    assert.equal(((await q.run("finish", [PLAN, "--agent", "nobody"])) as any).code, "E_NOT_FOUND");
    assert.equal(((await q.run("finish", [PLAN, "--agent", "Bad Name"])) as any).code, "E_USAGE");
    assert.equal(((await q.run("finish", [".design/x.json", "--agent", "api-dev"])) as any).code, "E_PATH", "finish writes only plan.json");
  });

  it("outside a git repository the role still completes; the commit says why it was skipped", async (t) => {
    const p = await gitProject(t, plan(), files, { repo: false });
    await started(p);
    p.write("src/api/a.ts", "ready\n");
    p.write(".design/worker-api-dev.json", report());
    const out: any = await finish(p);
    assert.deepEqual([out.ok, out.status, out.commit], [true, "completed", { skipped: "not a git repository" }]);
  });
});
