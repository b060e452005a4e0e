// Cost per role, per model tier and per run, where the user sees it: summary, the report (/do:plan-status) and the
// run's reflection (/do:runs), from the usage record-usage put in plan.json.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

const P = ".design/plan.json";

function costedPlan(): any {
  const plan: any = planWith(["api", { name: "ui", deps: ["api"] }, "docs"]);
  plan.roles[0].status = "completed";
  plan.roles[0].attemptLog = [
    { attempt: 1, model: "haiku", agent: "api", outcome: "failed", runId: "run-1", usage: { tokens: 1000, toolUses: 4, durationMs: 5000 } },
    { attempt: 2, model: "sonnet", agent: "api--2", outcome: "completed", runId: "run-2", usage: { tokens: 3000, toolUses: 9, durationMs: 20000 } },
  ];
  plan.roles[1].status = "completed";
  plan.roles[1].attemptLog = [{ attempt: 1, model: "sonnet", agent: "ui", outcome: "completed", runId: "run-2", usage: { tokens: 2000, toolUses: 5, durationMs: 9000 } }];
  plan.roles[2].status = "failed";
  plan.roles[2].attemptLog = [{ attempt: 1, model: "sonnet", agent: "docs", outcome: "failed", runId: "run-2" }];
  plan.progress = { auxiliaries: [{ agent: "challenger", runId: "run-2", usage: { tokens: 500 } }] };
  return plan;
}

describe("cost per role, tier and run [feature:execute/cost-recorded]", () => {
  it("summary adds it up, and counts attempts that ended without a record", async (t) => {
    const out: any = await project(t, { [P]: costedPlan() }).run("summary");
    assert.deepEqual(out.cost, {
      tokens: 6500,
      byRole: [
        { role: "api", tokens: 4000, attempts: 2, unrecorded: 0 },
        { role: "ui", tokens: 2000, attempts: 1, unrecorded: 0 },
        { role: "docs", tokens: 0, attempts: 1, unrecorded: 1 },
      ],
      byTier: { haiku: 1000, sonnet: 5000 },
      byRun: [{ runId: "run-1", tokens: 1000 }, { runId: "run-2", tokens: 5500 }],
      auxiliaries: [{ agent: "challenger", tokens: 500 }],
      unrecorded: 1,
    });
  });

  it("the report shows each role's tokens and the totals by tier, with the auxiliaries", async (t) => {
    const p = project(t, { [P]: costedPlan() });
    const out: any = await p.run("report");
    assert.equal(out.ok, true);
    assert.match(out.summary, /✔ api\s+sonnet\s+2 attempts\s+4,000 tok/);
    assert.match(out.summary, /\nCost: 6,500 tokens \(haiku 1,000, sonnet 5,000, auxiliaries 500\) over 2 runs; 1 attempt without a usage record, not in this sum\n/);
    const html = p.read(".design/report.html");
    assert.match(html, /<h2 id="cost-h">Cost<\/h2>/);
    assert.match(html, /<tr><td>haiku<\/td><td>1,000<\/td><\/tr>/);
    assert.match(html, /<tr><td>run-2<\/td><td>5,500<\/td><\/tr>/);
    assert.match(html, /<tr><td>challenger<\/td><td>500<\/td><\/tr>/);
    assert.match(html, /1 finished attempt without a usage record/);
  });

  it("an execute reflection carries its run's cost, each attempt a sample for later forecasts", async (t) => {
    const p = project(t, { [P]: costedPlan(), ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "run-2", completedAt: null } });
    const out: any = await p.run("reflection-add", ["--skill", "execute", "--goal", "g", "--outcome", "partial"], { stdin: JSON.stringify({ whatWorked: [], whatFailed: [], doNextTime: [] }) });
    assert.deepEqual(out.cost, { tokens: 5500, byTier: { sonnet: 5000 } });
    const entry = p.read(".design/reflection.jsonl").trim().split("\n").map((l) => JSON.parse(l))[0];
    assert.equal(entry.cost.runId, "run-2");
    assert.deepEqual(entry.cost.byRole, { api: 3000, ui: 2000 });
    assert.deepEqual(entry.cost.auxiliaries, { challenger: 500 });
    assert.deepEqual([entry.cost.toolUses, entry.cost.durationMs], [14, 29000]);
    assert.deepEqual(entry.cost.attempts.map((a: any) => [a.role, a.kind, a.tier, a.attempt, a.outcome, a.tokens, a.briefChars > 0]), [
      ["api", "api", "sonnet", 2, "completed", 3000, true],
      ["ui", "ui", "sonnet", 1, "completed", 2000, true],
    ]);
    // Another skill's reflection, or no open run: no cost.
    const design: any = await p.run("reflection-add", ["--skill", "design", "--goal", "g", "--outcome", "completed"], { stdin: "{}" });
    assert.equal(design.cost, undefined);
  });
});
