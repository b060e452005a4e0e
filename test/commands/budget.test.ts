// The budget and the forecast: `next` starts no attempt once the run's recorded spend plus that attempt's forecast
// would pass the budget (chains, diamonds, retries, escalations), ends with `stoppedBy: "budget"` leaving the plan
// resumable, and goes on when the budget is raised; forecasts come from synthetic histories (archived plans,
// reflections); memory starts a role kind that failed on its first tier one tier up, recorded with the reason.
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { planWith, project, withEvidence, type Project } from "../helpers/design-dir.ts";
import { expectedTokens, firstTierFailures, gatherSamples, roleKind, type Sample } from "../../src/lib/cost/forecast.ts";

const P = ".design/plan.json";
const RUN = "run-1";
const runState = { schemaVersion: 1, skill: "execute", runId: RUN, completedAt: null };

/** An archived plan whose roles' attempts cost what `rows` say: [role, tier, attempt, outcome, tokens]. */
function pastPlan(runId: string, rows: Array<[string, string, number, string, number]>): object {
  const names = [...new Set(rows.map((r) => r[0]))];
  const plan: any = planWith(names);
  for (const [name, tier, attempt, outcome, tokens] of rows) {
    const role = plan.roles[names.indexOf(name)];
    (role.attemptLog ??= []).push({ attempt, model: tier, agent: name, outcome, runId, usage: { tokens } });
    role.status = outcome === "completed" ? "completed" : "failed";
  }
  return plan;
}

/** Earlier runs where every sonnet attempt cost 1000 tokens and every opus attempt 3000. */
const HISTORY = {
  ".design/history/20260101T000000Z/plan.json": pastPlan("old-1", [["x", "sonnet", 1, "completed", 1000], ["y", "sonnet", 1, "completed", 1000]]),
  ".design/history/20260102T000000Z/plan.json": pastPlan("old-2", [["z", "sonnet", 1, "completed", 1000], ["w", "opus", 1, "completed", 3000]]),
};

const put = (p: Project, doc: unknown) => writeFileSync(join(p.dir, P), JSON.stringify(doc, null, 2));
const next = (p: Project) => p.run("next") as Promise<any>;
const upd = async (p: Project, batch: unknown[]) => {
  const out: any = await p.run("update-status", [], { stdin: JSON.stringify(batch) });
  assert.equal(out.ok, true, JSON.stringify(out));
  return out;
};

/** Start the roles `next` says, as the lead does. */
async function startAll(p: Project, d: any): Promise<void> {
  for (const s of d.start) await upd(p, [{ roleIndex: s.roleIndex, status: "in_progress", model: s.model, agent: s.agent }]);
}

/** A role's running attempt spent `tokens` (what record-usage records) and ended `outcome` (on evidence if completed). */
async function finish(p: Project, i: number, tokens: number, outcome: "completed" | "failed"): Promise<void> {
  const doc = p.json(P);
  doc.roles[i].attemptLog.at(-1).usage = { tokens, source: "transcript" };
  put(p, outcome === "completed" ? withEvidence(doc, i) : doc);
  await upd(p, [{ roleIndex: i, status: outcome }]);
}

/** A project with an open execute run and, by default, the synthetic history. */
function budgeted(t: TestContext, plan: unknown, files: Record<string, unknown> = HISTORY): Project {
  return project(t, { [P]: plan, ".design/run-execute.json": runState, ...files });
}

async function setBudget(p: Project, tokens: number): Promise<any> {
  const out: any = await p.run("budget", ["--tokens", String(tokens)], { now: Date.UTC(2026, 0, 5) });
  assert.equal(out.ok, true, JSON.stringify(out));
  return out;
}

describe("budget: next starts nothing the budget cannot pay for [feature:execute/budget-stops] [ac:execute/4]", () => {
  it("a chain stops before the attempt that would pass it, keeps the plan resumable, and goes on when it is raised", async (t) => {
    const p = budgeted(t, planWith(["a", { name: "b", deps: ["a"] }, { name: "c", deps: ["b"] }]));
    const set = await setBudget(p, 2500);
    assert.deepEqual(set.budget, { tokens: 2500, source: "run" });
    assert.deepEqual(p.json(P).progress.budget, { tokens: 2500, runId: RUN, setAt: "2026-01-05T00:00:00Z" });
    let d = await next(p);
    assert.deepEqual(d.start.map((s: any) => [s.name, s.expectedTokens]), [["a", 1000]]);
    assert.match(d.start[0].forecast, /mean of 3 earlier sonnet attempts/);
    assert.deepEqual([d.budget.spent, d.budget.committed], [0, 1000]);
    await startAll(p, d);
    await finish(p, 0, 1200, "completed");
    d = await next(p);
    assert.deepEqual(d.start.map((s: any) => s.name), ["b"], "1200 spent + 1000 expected fits in 2500");
    await startAll(p, d);
    await finish(p, 1, 1100, "completed");
    d = await next(p);
    assert.deepEqual([d.done, d.stoppedBy, d.start], [true, "budget", []]);
    assert.match(d.reason, /^budget: the run spent 2300 of its 2500 tokens, and starting the next attempt would pass it/);
    assert.deepEqual(d.waiting.map((w: any) => [w.name, w.on.map((o: any) => o.kind)]), [["c", ["budget"]]]);
    assert.equal(p.json(P).roles[2].status ?? "pending", "pending", "the held role keeps its status");
    // Raised: the run goes on.
    await setBudget(p, 5000);
    d = await next(p);
    assert.deepEqual([d.done, d.stoppedBy, d.start.map((s: any) => s.name)], [false, null, ["c"]]);
  });

  it("a diamond starts what fits beside what already runs, counting a running attempt at its forecast", async (t) => {
    const plan = planWith(["a", { name: "b", deps: ["a"] }, { name: "c", deps: ["a"] }, { name: "d", deps: ["b", "c"] }]);
    const p = budgeted(t, plan);
    await setBudget(p, 2500);
    await startAll(p, await next(p));
    await finish(p, 0, 1000, "completed");
    const d = await next(p);
    assert.deepEqual(d.start.map((s: any) => s.name), ["b"], "1000 spent + 1000 for b fits; c would make 3000");
    assert.deepEqual(d.waiting.find((w: any) => w.name === "c").on.map((o: any) => o.kind), ["budget"]);
    assert.equal(d.done, false);
    await startAll(p, d);
    // b runs without a record: it counts at its forecast, so c is still held, and nothing is done while b runs.
    const again = await next(p);
    assert.deepEqual([again.done, again.start.length, again.budget.committed], [false, 0, 2000]);
  });

  it("counts retries and escalations: a failed attempt's spend, and the retry's higher-tier forecast", async (t) => {
    const p = budgeted(t, planWith(["a", "b"]));
    await setBudget(p, 4000);
    const first = await next(p);
    assert.deepEqual(first.start.map((s: any) => [s.name, s.model, s.expectedTokens]), [["a", "sonnet", 1000], ["b", "sonnet", 1000]]);
    await startAll(p, first);
    await finish(p, 0, 1500, "failed");
    await finish(p, 1, 800, "completed");
    // a's retry runs one tier up (opus), forecast 3000: 2300 + 3000 passes 4000.
    const d = await next(p);
    assert.deepEqual([d.done, d.stoppedBy], [true, "budget"]);
    assert.deepEqual([d.budget.spent, d.waiting[0].name], [2300, "a"]);
    await setBudget(p, 6000);
    const retry = await next(p);
    assert.deepEqual(retry.start.map((s: any) => [s.name, s.model, s.attempt, s.retry, s.expectedTokens]), [["a", "opus", 2, true, 3000]]);
  });

  it("without a forecast (no history), starts until the spend reaches the budget", async (t) => {
    const p = budgeted(t, planWith(["a", { name: "b", deps: ["a"] }]), {});
    await setBudget(p, 1000);
    const d = await next(p);
    assert.deepEqual(d.start.map((s: any) => [s.name, s.expectedTokens, s.forecast]), [["a", 0, "no earlier attempt recorded its cost"]]);
    await startAll(p, d);
    await finish(p, 0, 1000, "completed");
    const stop = await next(p);
    assert.deepEqual([stop.done, stop.stoppedBy], [true, "budget"]);
  });

  it("takes the plan's tokenBudget when the run set none, and the run's over it; a finished run's budget no more", async (t) => {
    const plan = planWith(["a"], { context: { tokenBudget: 500 } });
    const p = budgeted(t, plan);
    assert.deepEqual((await next(p)).budget, { tokens: 500, source: "plan", spent: 0, committed: 0 });
    const held = await next(p);
    assert.deepEqual([held.done, held.stoppedBy], [true, "budget"], "a 1000-token forecast does not fit 500");
    await setBudget(p, 2000);
    assert.deepEqual((await next(p)).start.map((s: any) => s.name), ["a"]);
    writeFileSync(join(p.dir, ".design/run-execute.json"), JSON.stringify({ ...runState, runId: "run-2" }));
    assert.equal((await next(p)).budget.source, "plan", "another run: the plan's default again");
  });

  it("the budget command answers where the run stands and refuses to set one without an open run", async (t) => {
    const p = budgeted(t, planWith(["a", "b"]));
    const show: any = await p.run("budget");
    assert.deepEqual([show.set, show.budget, show.spent, show.remaining, show.forecast.tokens, show.forecast.samples], [false, null, 0, null, 2000, 4]);
    const q = project(t, { [P]: planWith(["a"]) });
    const refused: any = await q.run("budget", ["--tokens", "100"]);
    assert.equal(refused.code, "E_INVALID");
    assert.equal(q.exists(".design/run-execute.json"), false);
    assert.equal(((await p.run("budget", ["--tokens", "-5"])) as any).code, "E_USAGE");
    await setBudget(p, 100);
    await setBudget(p, 0);
    assert.equal(p.json(P).progress.budget, undefined, "--tokens 0 removes the run's budget");
  });

  it("keeps the workflow path out of a budgeted run: its agents' spend is known only at its end", async (t) => {
    const p = budgeted(t, planWith(["a"]));
    await setBudget(p, 10_000);
    const out: any = await p.run("workflow");
    assert.equal(out.code, "E_INVALID");
    assert.match(out.error, /A token budget \(10000\) needs the loop/);
  });
});

describe("the forecast, from synthetic histories [feature:execute/forecast-and-memory]", () => {
  const s = (over: Partial<Sample>): Sample => ({ role: "r", kind: "r", tier: "sonnet", attempt: 1, outcome: "completed", tokens: 1000, briefChars: 500, runId: null, from: "history", ...over });

  it("averages the attempts on the same tier whose briefs are nearest in size, else says it has none on that tier", () => {
    const samples = [
      s({ tokens: 100, briefChars: 100 }), s({ tokens: 200, briefChars: 200 }), s({ tokens: 10_000, briefChars: 5000 }),
      s({ tokens: 300, briefChars: 300 }), s({ tokens: 400, briefChars: 400 }), s({ tokens: 500, briefChars: 500 }), s({ tokens: 9000, briefChars: 4000, tier: "opus" }),
    ];
    assert.deepEqual(expectedTokens(samples, "sonnet", 250), { tokens: 300, basis: 5, how: "mean of 5 earlier sonnet attempts with briefs nearest in size" });
    assert.equal(expectedTokens(samples, "sonnet", 4800).tokens, Math.round((10_000 + 500 + 400 + 300 + 200) / 5));
    assert.deepEqual(expectedTokens(samples, "opus", 10), { tokens: 9000, basis: 1, how: "mean of 1 earlier opus attempt with briefs nearest in size" });
    assert.match(expectedTokens([s({ tier: "opus" })], "haiku", 10).how, /on other tiers \(none yet on haiku\)/);
    assert.deepEqual(expectedTokens([], "haiku", 10), { tokens: 0, basis: 0, how: "no earlier attempt recorded its cost" });
  });

  it("gathers archived plans, execute reflections and the plan itself, each attempt once", async (t) => {
    const reflection = { id: "r1", timestamp: "2026-01-03T00:00:00Z", skill: "execute", goal: "g", outcome: "completed", goalAchieved: true, evaluation: {}, cost: { runId: "old-2", attempts: [{ role: "z", tier: "sonnet", attempt: 1, outcome: "completed", tokens: 1000, briefChars: 300 }, { role: "v", tier: "haiku", attempt: 1, outcome: "failed", tokens: 50, briefChars: 10 }] } };
    const current: any = pastPlan(RUN, [["a", "haiku", 1, "failed", 70]]);
    const p = project(t, { [P]: current, ...HISTORY, ".design/reflection.jsonl": [reflection, { ...reflection, skill: "design", cost: { runId: "x", attempts: [{ role: "q", tier: "opus", tokens: 1, attempt: 1 }] } }] });
    const got = gatherSamples(join(p.dir, ".design"), current);
    assert.deepEqual(got.map((x) => [x.role, x.tier, x.tokens, x.from]).sort(), [
      ["a", "haiku", 70, "plan"],
      ["v", "haiku", 50, "reflection"],
      ["w", "opus", 3000, "history"],
      ["x", "sonnet", 1000, "history"],
      ["y", "sonnet", 1000, "history"],
      ["z", "sonnet", 1000, "history"],
    ]);
  });

  it("remembers a role kind that failed on its first tier: twice, at least half the time, and completed one tier up", () => {
    const fail = (runId: string) => s({ kind: "api", tier: "haiku", outcome: "failed", runId });
    const up = s({ kind: "api", tier: "sonnet", attempt: 2, outcome: "completed", runId: "r1" });
    const advice = firstTierFailures([fail("r1"), fail("r2"), s({ kind: "api", tier: "haiku", runId: "r3" }), up], "api", "haiku", RUN);
    assert.deepEqual(advice, { from: "haiku", to: "sonnet", reason: "api failed its first attempt on haiku in 2 of 3 earlier runs and completed on sonnet" });
    assert.equal(firstTierFailures([fail("r1"), up], "api", "haiku", RUN), null, "once is not a pattern");
    assert.equal(firstTierFailures([fail("r1"), fail("r2"), ...["r3", "r4", "r5"].map((r) => s({ kind: "api", tier: "haiku", runId: r })), up], "api", "haiku", RUN), null, "2 of 5 is less than half");
    assert.equal(firstTierFailures([fail("r1"), fail("r2")], "api", "haiku", RUN), null, "never completed above");
    assert.equal(firstTierFailures([fail(RUN), fail(RUN), up], "api", "haiku", RUN), null, "this run's own attempts are not memory");
    assert.equal(firstTierFailures([fail("r1"), fail("r2"), up], "api", "opus", RUN), null, "nothing above opus");
    assert.equal(roleKind("API_Developer-2"), "api-developer");
  });

  it("starts such a role one tier up with the reason, which update-status records in the attempt log", async (t) => {
    const history = {
      ".design/history/20260101T000000Z/plan.json": pastPlan("h1", [["api-1", "haiku", 1, "failed", 500], ["api-1", "sonnet", 2, "completed", 900]]),
      ".design/history/20260102T000000Z/plan.json": pastPlan("h2", [["api", "haiku", 1, "failed", 400], ["api", "sonnet", 2, "completed", 800]]),
    };
    const p = project(t, { [P]: planWith([{ name: "api-2", model: "haiku" }, { name: "docs", model: "haiku" }]), ".design/run-execute.json": runState, ...history });
    const d = await next(p);
    const api = d.start.find((s: any) => s.name === "api-2");
    assert.equal(api.model, "sonnet");
    assert.deepEqual(api.escalation, { from: "haiku", reason: "api failed its first attempt on haiku in 2 of 2 earlier runs and completed on sonnet" });
    assert.equal(api.expectedTokens, 850);
    assert.equal(d.start.find((s: any) => s.name === "docs").model, "haiku", "another kind keeps its tier");
    await startAll(p, d);
    const entry = p.json(P).roles[0].attemptLog[0];
    assert.deepEqual([entry.model, entry.escalated], ["sonnet", api.escalation]);
    assert.equal(p.json(P).roles[1].attemptLog[0].escalated, undefined);
  });

  it("shows the grant question the budget and the forecast with its basis, or that there is none yet", async (t) => {
    const p = budgeted(t, planWith(["a", "b"]));
    await setBudget(p, 50_000);
    const g: any = await p.run("grant");
    assert.ok(g.summary.includes("Budget: 50,000 tokens for this run (set with --budget); no worker starts once its forecast would pass it."), g.summary.join("\n"));
    assert.ok(g.summary.includes("Forecast: about 2,000 tokens for the 2 roles to run, one attempt each (from 4 earlier attempts with recorded usage)."), g.summary.join("\n"));
    const fresh = project(t, { [P]: planWith(["a"]), ".design/run-execute.json": runState });
    const none: any = await fresh.run("grant");
    assert.ok(none.summary.includes("No token budget for this run (/do:execute --budget <tokens> sets one)."));
    assert.ok(none.summary.includes("No forecast yet: no earlier attempt recorded what it cost."));
  });
});
