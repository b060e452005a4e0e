// The run's token budget and what `next` may start under it. The budget is the run's (`budget --tokens`, kept in
// plan.json's `progress.budget` with the execute run it was set for) or, without one, the plan's default
// (`context.tokenBudget`). The run's spend is what record-usage recorded for its attempts and auxiliaries; an
// attempt still running without a record counts at its forecast. A start whose forecast would take the committed
// total past the budget is held back (`waiting`, kind "budget"); when nothing runs and every start is held, the run
// is done with the reason "budget" and the plan stays resumable (the held roles keep their status).
import { join } from "node:path";
import { runSpend } from "./cost.js";
import { briefChars, expectedTokens, firstTierFailures, gatherSamples, roleKind, type Expectation, type Sample } from "./forecast.js";
import type { Decision, StartOrder } from "../plan/scheduler.js";
import { MAX_STATE_BYTES, readJson } from "../../store.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const positive = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v > 0;

/** The id of the unfinished execute run (null: none open). */
export function openRunId(design: string): string | null {
  const r = readJson(join(design, "run-execute.json"), MAX_STATE_BYTES);
  return r.kind === "ok" && isObj(r.value) && typeof r.value.runId === "string" && r.value.completedAt == null ? r.value.runId : null;
}

export interface Budget {
  tokens: number;
  /** "run": set for this execute run (budget --tokens, /do:execute --budget); "plan": the plan's context.tokenBudget. */
  source: "run" | "plan";
}

/** The budget that applies to run `runId`, or null. */
export function budgetFor(plan: unknown, runId: string | null): Budget | null {
  const progress = isObj(plan) && isObj(plan.progress) ? plan.progress : {};
  const b = isObj(progress.budget) ? progress.budget : null;
  if (b && positive(b.tokens) && (b.runId ?? null) === runId) return { tokens: b.tokens, source: "run" };
  const context = isObj(plan) && isObj(plan.context) ? plan.context : {};
  return positive(context.tokenBudget) ? { tokens: context.tokenBudget, source: "plan" } : null;
}

export interface StartCost {
  expectedTokens: number;
  forecast: string;
  /** Set when memory starts the role one tier above its plan's model. */
  escalation?: { from: string; reason: string };
}

export interface BudgetView extends Budget {
  spent: number;
  /** Spent plus the forecast of attempts running without a record and of the starts let through. */
  committed: number;
}

/**
 * `next`'s decision under memory and the budget: first attempts of a role kind that failed on its first tier in
 * earlier runs start one tier up; starts that would pass the budget are held. Returns the decision to answer and
 * the costs of the starts it keeps, by role index.
 */
export function underBudget(
  decision: Decision,
  roles: Obj[],
  plan: unknown,
  design: string,
  runId: string | null,
): { decision: Decision; costs: Map<number, StartCost>; budget: BudgetView | null; stoppedBy: "budget" | null } {
  const budget = budgetFor(plan, runId);
  const firsts = decision.start.some((s) => s.attempt === 1);
  if (!budget && !firsts) return { decision, costs: new Map(), budget: null, stoppedBy: null };
  const samples: Sample[] = gatherSamples(design, plan);
  const costs = new Map<number, StartCost>();
  const expect = (i: number, tier: string): Expectation => expectedTokens(samples, tier, briefChars(roles[i]));
  const start: StartOrder[] = [];
  for (const s of decision.start) {
    let model = s.model;
    let escalation: StartCost["escalation"];
    if (s.attempt === 1 && !s.retry) {
      const advice = firstTierFailures(samples, roleKind(roles[s.roleIndex]?.name), s.model, runId);
      if (advice) {
        model = advice.to;
        escalation = { from: advice.from, reason: advice.reason };
      }
    }
    const e = expect(s.roleIndex, model);
    costs.set(s.roleIndex, { expectedTokens: e.tokens, forecast: e.how, ...(escalation ? { escalation } : {}) });
    start.push(model === s.model ? s : { ...s, model });
  }
  if (!budget) return { decision: { ...decision, start }, costs, budget: null, stoppedBy: null };

  const spent = runSpend(plan, runId);
  let committed = spent;
  for (const r of decision.running) {
    const entry = (Array.isArray(roles[r.roleIndex]?.attemptLog) ? (roles[r.roleIndex].attemptLog as unknown[]) : []).filter(isObj).pop();
    if (!entry || !isObj(entry.usage)) committed += expect(r.roleIndex, r.model).tokens;
  }
  const kept: StartOrder[] = [];
  const waiting = [...decision.waiting];
  for (const s of start) {
    const e = (costs.get(s.roleIndex) as StartCost).expectedTokens;
    if (committed >= budget.tokens || committed + e > budget.tokens) {
      waiting.push({ roleIndex: s.roleIndex, name: s.name, on: [{ roleIndex: s.roleIndex, name: s.name, kind: "budget" }] });
      costs.delete(s.roleIndex);
      continue;
    }
    committed += e;
    kept.push(s);
  }
  const held = start.length - kept.length;
  const view: BudgetView = { ...budget, spent, committed };
  if (held === 0) return { decision: { ...decision, start: kept, waiting }, costs, budget: view, stoppedBy: null };
  waiting.sort((a, b) => a.roleIndex - b.roleIndex);
  const stop = kept.length === 0 && decision.running.length === 0;
  const reason = stop
    ? `budget: the run spent ${spent} of its ${budget.tokens} tokens, and starting ${held === 1 ? "the next attempt" : `the next ${held} attempts`} would pass it (raise it with budget --tokens to go on)`
    : decision.reason;
  return { decision: { ...decision, start: kept, waiting, done: stop, reason }, costs, budget: view, stoppedBy: stop ? "budget" : null };
}

/** What the roles still to run are expected to cost, for the grant question. */
export function planForecast(plan: unknown, design: string, runId: string | null, toRun: Array<{ role: Obj; tier: string }>): {
  tokens: number;
  samples: number;
  roles: Array<{ role: string; tier: string; expectedTokens: number; escalation?: { from: string; reason: string } }>;
} {
  const samples = gatherSamples(design, plan);
  const roles = toRun.map(({ role, tier }) => {
    const advice = firstTierFailures(samples, roleKind(role.name), tier, runId);
    const t = advice ? advice.to : tier;
    const e = expectedTokens(samples, t, briefChars(role));
    return { role: typeof role.name === "string" ? role.name : "", tier: t, expectedTokens: e.tokens, ...(advice ? { escalation: { from: advice.from, reason: advice.reason } } : {}) };
  });
  return { tokens: roles.reduce((s, r) => s + r.expectedTokens, 0), samples: samples.length, roles };
}
