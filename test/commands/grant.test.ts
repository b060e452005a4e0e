import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";
import { globMatch, grantAllows, planFingerprint, planWorkers, readGrant } from "../../src/lib/grant.ts";

const P = ".design/plan.json";
const run = (over: Record<string, unknown> = {}) => ({ schemaVersion: 1, skill: "execute", runId: "run-1", completedAt: null, ...over });

function fixture() {
  const plan: any = planWith(
    [
      { name: "api", dirs: ["src/api/"], acceptanceCriteria: [{ criterion: "tests", check: "npm test -- api" }] },
      { name: "ui", dirs: ["src/ui/"], patterns: ["docs/**/*.md"], deps: ["api"], acceptanceCriteria: [{ criterion: "ui", check: "npm test -- api" }] },
      { name: "done", status: "completed", dirs: ["lib/"], acceptanceCriteria: [{ criterion: "x", check: "make lib" }] },
      { name: "sneaky", dirs: [".design/", "../elsewhere", "**"], acceptanceCriteria: [{ criterion: "y", check: "make sneaky" }] },
    ],
    { context: { testCommand: "npm test", buildCommand: "npm run build" }, verificationSpecs: [{ role: "api", path: ".design/specs/api.test.ts", runCommand: "npx tsx --test .design/specs/api.test.ts" }] },
  );
  plan.roles[1].scope.patterns = ["docs/**/*.md"];
  return plan;
}

describe("grant", () => {
  it("proposes the edits and exact commands of the roles still to run, refusing what reaches .design or outside", async (t) => {
    const p = project(t, { [P]: fixture(), ".design/run-execute.json": run() });
    const out: any = await p.run("grant");
    assert.equal(out.recorded, false);
    assert.equal(p.exists(".design/grant.json"), false);
    assert.deepEqual(out.edits, [
      { value: "src/api/", roles: ["api"], kind: "directory" },
      { value: "src/ui/", roles: ["ui"], kind: "directory" },
      { value: "docs/**/*.md", roles: ["ui"], kind: "pattern" },
    ]);
    assert.deepEqual(out.commands.map((c: any) => [c.value, c.kind, c.roles]), [
      ["npm test -- api", "check", ["api", "ui"]],
      ["make sneaky", "check", ["sneaky"]],
      ["npx tsx --test .design/specs/api.test.ts", "spec", ["api"]],
      ["npm run build", "build", ["(plan)"]],
      ["npm test", "test", ["(plan)"]],
    ]);
    assert.deepEqual(out.refused.map((r: any) => [r.value, r.reason]), [
      [".design/", "inside .design/ (plan and specs stay the lead's)"],
      ["../elsewhere", "leaves the project"],
      ["**", "covers the whole project"],
    ]);
    assert.equal(out.runId, "run-1");
    assert.match(out.summary[0], /^Workers may edit files under: src\/api\/, src\/ui\/, docs\/\*\*\/\*\.md$/);
  });

  it("records an approved grant that the hook's reader accepts while the run and plan hold [feature:execute/grant-binds-workers]", async (t) => {
    const p = project(t, { [P]: fixture(), ".design/run-execute.json": run() });
    const out: any = await p.run("grant", ["--approve"], { now: Date.UTC(2026, 10, 24, 1, 0, 0) });
    assert.equal(out.recorded, true);
    assert.equal(out.approvedAt, "2026-11-24T01:00:00Z");
    const g = readGrant(p.dir);
    assert.ok(g);
    assert.equal(g.planFingerprint, planFingerprint(fixture()));
    const allows = (tool: string, x: Record<string, string>) => grantAllows(g, { tool, ...x }, p.dir);
    assert.equal(allows("Edit", { filePath: "src/api/orders.ts" }), true);
    assert.equal(allows("Write", { filePath: `${p.dir}/docs/guide/intro.md` }), true);
    assert.equal(allows("Write", { filePath: "docs/intro.txt" }), false);
    assert.equal(allows("Edit", { filePath: "lib/x.ts" }), false, "a completed role's scope is not granted");
    assert.equal(allows("Edit", { filePath: ".design/plan.json" }), false);
    assert.equal(allows("Edit", { filePath: "src/api/../../.design/plan.json" }), false);
    assert.equal(allows("Edit", { filePath: "/etc/passwd" }), false);
    assert.equal(allows("Bash", { command: "npm test -- api" }), true);
    assert.equal(allows("Bash", { command: "npm test -- api && rm -rf /" }), false);
    assert.equal(allows("Bash", { command: "make lib" }), false);
    assert.equal(allows("Read", { filePath: "src/api/x.ts" }), false);
  });

  it("lapses when the run finishes, a new run starts, the plan changes or the grant is revoked [feature:execute/grant-binds-workers]", async (t) => {
    const p = project(t, { [P]: fixture(), ".design/run-execute.json": run() });
    await p.run("grant", ["--approve"]);
    assert.ok(readGrant(p.dir));
    // Statuses and trimming during the run keep the fingerprint.
    await p.run("update-status", [], { stdin: '[{"roleIndex":0,"status":"in_progress"},{"roleIndex":0,"status":"completed"}]' });
    assert.ok(readGrant(p.dir), "update-status keeps the plan's fingerprint");
    const q = project(t, { [P]: fixture(), ".design/run-execute.json": run({ completedAt: "2026-11-24T01:00:00Z" }), ".design/grant.json": p.json(".design/grant.json") });
    assert.equal(readGrant(q.dir), null);
    const r = project(t, { [P]: fixture(), ".design/run-execute.json": run({ runId: "run-2" }), ".design/grant.json": p.json(".design/grant.json") });
    assert.equal(readGrant(r.dir), null);
    const changed = fixture();
    changed.roles[0].goal = "Something else";
    const s = project(t, { [P]: changed, ".design/run-execute.json": run(), ".design/grant.json": p.json(".design/grant.json") });
    assert.equal(readGrant(s.dir), null);
    await p.run("grant", ["--revoke"]);
    assert.equal(readGrant(p.dir), null);
  });

  it("refuses to approve without an unfinished execute run, and bad flag combinations", async (t) => {
    const p = project(t, { [P]: fixture() });
    const out = await p.run("grant", ["--approve"]);
    assert.deepEqual([out.code, out.error], ["E_INVALID", "No unfinished execute run: start it with run-start execute before approving a grant"]);
    assert.equal(p.exists(".design/grant.json"), false);
    assert.equal((await p.run("grant", ["--approve", "--revoke"])).code, "E_USAGE");
    assert.equal((await p.run("grant", ["nope.json"])).code, "E_NOT_FOUND");
  });

  it("reads no grant from a missing, corrupt or foreign file", async (t) => {
    assert.equal(readGrant(project(t, {}).dir), null);
    assert.equal(readGrant(project(t, { ".design/grant.json": "{", [P]: fixture(), ".design/run-execute.json": run() }).dir), null);
    assert.equal(readGrant(project(t, { ".design/grant.json": { version: 2 }, [P]: fixture(), ".design/run-execute.json": run() }).dir), null);
  });
});

describe("grant: glob matching", () => {
  it("spans directories with ** and stays within one with * and ?", () => {
    assert.equal(globMatch("docs/**/*.md", "docs/a.md"), true);
    assert.equal(globMatch("docs/**/*.md", "docs/x/y/a.md"), true);
    assert.equal(globMatch("docs/*.md", "docs/x/a.md"), false);
    assert.equal(globMatch("src/?.ts", "src/a.ts"), true);
    assert.equal(globMatch("src/a.ts", "src/a_ts"), false);
  });
});

describe("planWorkers: the worker names of each role", () => {
  it("maps the recorded names and the names the scheduler gives every attempt to the role", () => {
    const plan = {
      roles: [
        { name: "API Server", agent: "api-dev", attemptLog: [{ attempt: 1, model: "haiku", agent: "api-first", outcome: "failed" }] },
        { name: "api server", attempts: 4 },
        { name: "Docs" },
      ],
    };
    const w = planWorkers(plan);
    for (const n of ["api-dev", "api-first", "api-server", "api-server--2", "api-server--3"]) assert.equal(w.get(n), "API Server", n);
    // A second role with the same slug gets worker-pool's -2, and a name for each attempt it may still make.
    for (const n of ["api-server-2", "api-server-2--2", "api-server-2--5"]) assert.equal(w.get(n), "api server", n);
    assert.equal(w.get("api-server-2--6"), undefined);
    for (const n of ["docs", "docs--2", "docs--3"]) assert.equal(w.get(n), "Docs", n);
    assert.equal(w.get("docs--4"), undefined);
  });

  it("maps a name two roles claim to null", () => {
    const w = planWorkers({ roles: [{ name: "a" }, { name: "b", agent: "a--2" }] });
    assert.equal(w.get("a--2"), null);
    assert.equal(w.get("b"), "b");
  });

  it("answers an empty map for a plan without roles", () => {
    assert.equal(planWorkers(null).size, 0);
    assert.equal(planWorkers({ roles: "x" }).size, 0);
  });
});
