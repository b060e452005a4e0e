// The forecast: what a role's attempt is expected to cost, from what earlier attempts cost. The samples are the
// attempts with recorded usage in the plans archived under `.design/history/*/plan.json`, in the run costs that
// execute's reflections carry (`cost.attempts`), and in the current plan; the same attempt (run, role, attempt)
// counts once. An attempt's expected tokens: the mean of the (at most five) samples on its model tier whose briefs
// are nearest in size to its own; with none on that tier, the nearest on any tier (said so); with no sample at
// all, no forecast (0, and the basis says there is none yet).
//
// The same samples give memory that sets defaults: a role kind (its name without a trailing number) whose first
// attempts on its plan tier failed in at least two earlier runs, more often than not, and that completed on the
// tier above, may start there (`firstTierFailures`).
import { join } from "node:path";
import { attemptCosts, briefChars } from "./cost.js";
import { readJson, readJsonl, listDir } from "../../store.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Archived plans read, newest first (each is a bounded read). */
const MAX_HISTORY = 20;
const MAX_PLAN_BYTES = 4 << 20;
/** Samples averaged for one forecast. */
const NEAREST = 5;
const TIERS = ["haiku", "sonnet", "opus"];

export interface Sample {
  role: string;
  kind: string;
  tier: string;
  attempt: number;
  outcome: string;
  tokens: number;
  briefChars: number;
  runId: string | null;
  /** Where it comes from: "history", "reflection" or "plan". */
  from: string;
}

/** A role's kind: its name, lowercased, without a trailing number ("api-developer-2" → "api-developer"). */
export function roleKind(name: unknown): string {
  const s = typeof name === "string" ? name.toLowerCase().replace(/[\s_]+/g, "-").replace(/[^a-z0-9-]/g, "") : "";
  return s.replace(/-?\d+$/, "").replace(/^-+|-+$/g, "") || s;
}

function fromPlan(plan: unknown, from: string): Sample[] {
  const roles = isObj(plan) && Array.isArray(plan.roles) ? plan.roles : [];
  return attemptCosts(plan)
    .filter((a) => a.tokens !== null && a.outcome !== "running")
    .map((a) => ({
      role: a.role,
      kind: roleKind(isObj(roles[a.roleIndex]) ? (roles[a.roleIndex] as Obj).name : a.role),
      tier: a.tier,
      attempt: a.attempt,
      outcome: a.outcome,
      tokens: a.tokens as number,
      briefChars: a.briefChars,
      runId: a.runId,
      from,
    }));
}

function fromReflection(entry: Obj): Sample[] {
  const cost = isObj(entry.cost) ? entry.cost : null;
  const list = cost && Array.isArray(cost.attempts) ? cost.attempts.filter(isObj) : [];
  const runId = cost && typeof cost.runId === "string" ? cost.runId : null;
  return list.flatMap((a) =>
    typeof a.tokens === "number" && a.tokens >= 0 && typeof a.tier === "string"
      ? [{
          role: typeof a.role === "string" ? a.role : "",
          kind: roleKind(a.kind ?? a.role),
          tier: a.tier,
          attempt: typeof a.attempt === "number" ? a.attempt : 1,
          outcome: typeof a.outcome === "string" ? a.outcome : "",
          tokens: a.tokens,
          briefChars: typeof a.briefChars === "number" ? a.briefChars : 0,
          runId,
          from: "reflection",
        }]
      : [],
  );
}

/** Every cost sample of the project: history, reflections, the current plan; each attempt once. */
export function gatherSamples(design: string, plan: unknown): Sample[] {
  const all: Sample[] = [];
  let folders: string[] = [];
  try {
    folders = listDir(join(design, "history"))
      .filter((e) => !e.isSymlink)
      .map((e) => e.name)
      .sort()
      .reverse()
      .slice(0, MAX_HISTORY);
  } catch {
    /* no history */
  }
  for (const f of folders) {
    const r = readJson(join(design, "history", f, "plan.json"), MAX_PLAN_BYTES);
    if (r.kind === "ok") all.push(...fromPlan(r.value, "history"));
  }
  const refl = readJsonl(join(design, "reflection.jsonl"));
  if (refl.kind === "ok") for (const e of refl.entries) if (isObj(e.value) && e.value.skill === "execute") all.push(...fromReflection(e.value));
  all.push(...fromPlan(plan, "plan"));
  const seen = new Set<string>();
  return all.filter((s) => {
    if (s.runId === null) return true;
    const key = `${s.runId}\0${s.role}\0${s.attempt}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export interface Expectation {
  tokens: number;
  /** How many samples it rests on (0: no forecast). */
  basis: number;
  /** In words: "mean of 3 earlier sonnet attempts with briefs of similar size", "no earlier attempt recorded its cost". */
  how: string;
}

/** What an attempt on `tier` of a role with a brief of `size` characters is expected to cost. */
export function expectedTokens(samples: readonly Sample[], tier: string, size: number): Expectation {
  const same = samples.filter((s) => s.tier === tier);
  const pool = same.length ? same : samples;
  if (pool.length === 0) return { tokens: 0, basis: 0, how: "no earlier attempt recorded its cost" };
  const nearest = [...pool].sort((a, b) => Math.abs(a.briefChars - size) - Math.abs(b.briefChars - size)).slice(0, NEAREST);
  const tokens = Math.round(nearest.reduce((s, x) => s + x.tokens, 0) / nearest.length);
  const n = nearest.length;
  const how = same.length
    ? `mean of ${n} earlier ${tier} attempt${n === 1 ? "" : "s"} with briefs nearest in size`
    : `mean of ${n} earlier attempt${n === 1 ? "" : "s"} on other tiers (none yet on ${tier})`;
  return { tokens, basis: n, how };
}

export interface TierAdvice {
  from: string;
  to: string;
  reason: string;
}

/**
 * Whether a role of kind `kind`, planned on `tier`, should start one tier up: its kind's first attempts on that
 * tier failed (or stalled) in at least two earlier runs and in at least half of them, and the kind completed on the
 * tier above. Only the samples of other runs than `runId` count.
 */
export function firstTierFailures(samples: readonly Sample[], kind: string, tier: string, runId: string | null): TierAdvice | null {
  const k = TIERS.indexOf(tier);
  if (k < 0 || k === TIERS.length - 1) return null;
  const mine = samples.filter((s) => s.kind === kind && s.from !== "plan" && (runId === null || s.runId !== runId));
  const firsts = mine.filter((s) => s.attempt === 1 && s.tier === tier);
  const failed = firsts.filter((s) => s.outcome === "failed" || s.outcome === "stalled").length;
  if (failed < 2 || failed * 2 < firsts.length) return null;
  const up = TIERS[k + 1];
  if (!mine.some((s) => s.tier === up && s.outcome === "completed")) return null;
  return { from: tier, to: up, reason: `${kind} failed its first attempt on ${tier} in ${failed} of ${firsts.length} earlier runs and completed on ${up}` };
}

/** briefChars of a role (re-exported for the commands that forecast). */
export { briefChars };
