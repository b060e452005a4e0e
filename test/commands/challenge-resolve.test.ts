// The challenger's blocking issues as a gate: grant, next and workflow refuse while one is unresolved, and
// challenge-resolve records the resolution (a constraint for the affected roles, or the user's decision).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";
import { blockingOf, validChallengerReport } from "../../src/lib/plan/challenge.ts";
import { auxiliaryErrors } from "../../src/commands/reports/auxiliary.ts";

const P = ".design/plan.json";
const R = ".design/challenger-report.json";
const RUN = { schemaVersion: 1, skill: "execute", runId: "run-1", phases: ["pre-flight"], completed: [], completedAt: null };
const issue = (severity: string, description: string, affectedRoles = ["api"], category = "missing-dependency") => ({
  category, severity, description, affectedRoles, recommendation: "Order them",
});
const REPORT = {
  issues: [
    issue("high-risk", "ui may need the API's error codes", ["ui"]),
    issue("blocking", "api reads a table no role creates", ["api"]),
    issue("blocking", "The plan assumes a queue nobody runs", ["api", "ui"], "invalid-assumption"),
  ],
  summary: "Two blocking issues",
};
const plan = () => planWith([{ name: "api" }, { name: "ui", deps: ["api"] }]);
const setup = (t: any, report: unknown = REPORT) => project(t, { [P]: plan(), [R]: report, ".design/run-execute.json": RUN });

describe("challenge gate", () => {
  it("holds next, grant and workflow while a blocking issue is unresolved, naming each one [feature:execute/challenge-gate]", async (t) => {
    const p = setup(t);
    const before = p.read(P);
    for (const [cmd, what] of [["next", "starting workers"], ["grant", "the grant"], ["workflow", "the workflow"]] as const) {
      const out = await p.run(cmd);
      assert.equal(out.code, "E_INVALID", `${cmd}: ${JSON.stringify(out)}`);
      assert.match(out.error as string, new RegExp(`^The challenger's blocking issues are not resolved, so ${what} is held: issue 1 \\(missing-dependency: api reads a table no role creates\\); issue 2 \\(invalid-assumption: The plan assumes a queue nobody runs\\)\\. Resolve each`));
      assert.match(out.error as string, /recorded with challenge-resolve$/);
      assert.deepEqual((out.unresolved as any[]).map((u) => u.index), [1, 2]);
    }
    assert.equal(p.read(P), before);
    assert.equal(p.exists(".design/workflow.js"), false);
    assert.equal(p.exists(".design/grant.json"), false);
    // grant --revoke still works: ending a grant is never held.
    assert.equal((await p.run("grant", ["--revoke"])).ok, true);
  });

  it("opens once every blocking issue is resolved: a constraint for the roles, or the user's decision [feature:execute/challenge-gate]", async (t) => {
    const p = setup(t);
    const first = await p.run("challenge-resolve", [], { stdin: JSON.stringify([{ issue: 1, constraint: "Create the orders table before the handlers use it" }]), now: Date.UTC(2026, 0, 2, 3, 4, 5) });
    assert.equal(first.ok, true, JSON.stringify(first));
    assert.deepEqual(first.constraintsAdded, [{ role: "api", constraint: "Create the orders table before the handlers use it" }]);
    assert.equal(first.gate, "held");
    assert.deepEqual((first.unresolved as any[]).map((u) => u.index), [2]);
    assert.equal((await p.run("next")).code, "E_INVALID", "issue 2 still holds");
    const second = await p.run("challenge-resolve", [], { stdin: JSON.stringify([{ issue: 2, proceed: "The user: the queue runs in staging; go ahead" }]) });
    assert.equal(second.gate, "open");
    const doc = p.json(P);
    assert.deepEqual(doc.roles[0].constraints, ["Create the orders table before the handlers use it"]);
    assert.equal(doc.roles[1].constraints, undefined, "a decision to proceed adds no constraint");
    assert.deepEqual(doc.challengeResolutions.map((r: any) => [r.index, r.resolution, r.constraint ?? r.decision, r.roles]), [
      [1, "constraint", "Create the orders table before the handlers use it", ["api"]],
      [2, "proceed", "The user: the queue runs in staging; go ahead", undefined],
    ]);
    assert.equal(doc.challengeResolutions[0].at, "2026-01-02T03:04:05Z");
    assert.match(doc.challengeResolutions[0].issue, /^[0-9a-f]{16}$/);
    const next = await p.run("next");
    assert.equal(next.ok, true, JSON.stringify(next));
    assert.deepEqual((next.start as any[]).map((s) => s.name), ["api"]);
    assert.equal((await p.run("grant")).ok, true);
  });

  it("asks again when the report is rewritten with a new blocking issue; a report without one holds nothing", async (t) => {
    const p = setup(t);
    await p.run("challenge-resolve", [], { stdin: JSON.stringify([{ issue: 1, proceed: "go" }, { issue: 2, proceed: "go" }]) });
    assert.equal((await p.run("next")).ok, true);
    const rewritten = { ...REPORT, issues: [REPORT.issues[0], issue("blocking", "api and ui both write src/shared", ["api", "ui"], "overlap"), REPORT.issues[2]] };
    const q = project(t, { [P]: p.json(P), [R]: rewritten });
    const held = await q.run("next");
    assert.deepEqual((held.unresolved as any[]).map((u) => u.index), [1]);
    const none = project(t, { [P]: plan(), [R]: { ...REPORT, issues: [REPORT.issues[0]] } });
    assert.equal((await none.run("next")).ok, true);
    const invalid = project(t, { [P]: plan(), [R]: { summary: "x", issues: [{ severity: "blocking" }] } });
    assert.equal((await invalid.run("next")).ok, true, "an invalid report holds nothing: execute goes on without it");
    assert.equal((await project(t, { [P]: plan() }).run("next")).ok, true, "no report, no gate");
  });

  it("refuses a resolution that is not for a blocking issue, or malformed, and writes nothing", async (t) => {
    const p = setup(t);
    const before = p.read(P);
    const cases: Array<[unknown, string, RegExp]> = [
      [[{ issue: 0, proceed: "x" }], "E_INVALID", /^Resolution 0: issue 0 is not blocking: only blocking issues are gates \(blocking: 1, 2\)$/],
      [[{ issue: 7, proceed: "x" }], "E_NOT_FOUND", /no issue 7 in the report \(3 issues\)/],
      [[{ issue: 1 }], "E_SCHEMA", /give either constraint .* or proceed/],
      [[{ issue: 1, constraint: "a", proceed: "b" }], "E_SCHEMA", /give either/],
      [[{ issue: 1, constraint: "  " }], "E_SCHEMA", /constraint must be a non-empty string/],
      [[{ issue: 1, constraint: "x", roles: ["ghost"] }], "E_NOT_FOUND", /no role named 'ghost'/],
      [[{ issue: 1, proceed: "x", roles: ["api"] }], "E_SCHEMA", /roles go with a constraint/],
      [[{ issue: "1", proceed: "x" }], "E_SCHEMA", /issue must be the index/],
      [[{ issue: 1, proceed: "ok" }, { issue: 0, proceed: "x" }], "E_INVALID", /^Resolution 1: issue 0 is not blocking/],
      [[], "E_SCHEMA", /at least one resolution/],
      [{}, "E_SCHEMA", /Expected JSON array/],
    ];
    for (const [stdin, code, message] of cases) {
      const out = await p.run("challenge-resolve", [], { stdin: JSON.stringify(stdin) });
      assert.equal(out.code, code, JSON.stringify([stdin, out]));
      assert.match(out.error as string, message);
    }
    assert.equal(p.read(P), before, "nothing written");
    const closed = project(t, { [P]: planWith([{ name: "api", status: "completed" }, { name: "ui" }]), [R]: REPORT });
    const out = await closed.run("challenge-resolve", [], { stdin: JSON.stringify([{ issue: 1, constraint: "x" }]) });
    assert.equal(out.code, "E_TRANSITION");
    const skipped = project(t, { [P]: planWith([{ name: "api", status: "skipped" }, { name: "ui" }]), [R]: REPORT });
    const back = await skipped.run("challenge-resolve", [], { stdin: JSON.stringify([{ issue: 1, constraint: "Create the table first" }]) });
    assert.equal(back.ok, true, "a skipped role comes back when its dependency is retried: it takes the constraint");
    const noRoles = project(t, { [P]: planWith([{ name: "other" }]), [R]: REPORT });
    assert.match((await noRoles.run("challenge-resolve", [], { stdin: JSON.stringify([{ issue: 1, constraint: "x" }]) })).error as string, /names no role of the plan \(api\): give roles/);
    const noReport = project(t, { [P]: plan() });
    assert.equal((await noReport.run("challenge-resolve", [], { stdin: "[]" })).code, "E_NOT_FOUND");
  });

  it("judges a report valid exactly as validate-auxiliary-report does", () => {
    const reports: unknown[] = [
      REPORT, { issues: [], summary: "" }, { issues: [] }, { summary: "s" }, [], null, "x",
      { issues: [{ ...REPORT.issues[1], severity: "catastrophic" }], summary: "s" },
      { issues: [{ ...REPORT.issues[1], category: "typo" }], summary: "s" },
      { issues: [{ category: "overlap", severity: "blocking", description: "d", affectedRoles: [] }], summary: "s" },
      { issues: ["x"], summary: "s" }, { issues: {}, summary: "s" }, { issues: [], summary: 1 },
    ];
    for (const r of reports) assert.equal(validChallengerReport(r), auxiliaryErrors("challenger", r).length === 0, JSON.stringify(r));
    assert.deepEqual(blockingOf(REPORT)?.map((b) => b.index), [1, 2]);
  });
});
