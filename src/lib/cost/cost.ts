// What a plan's run cost, from what record-usage put in plan.json: each attempt's `usage` (workers) and
// `progress.auxiliaries` (the auxiliary agents and fix workers of a run). Totals per role, per model tier and per
// execute run; the run's spend is what the budget counts. Pure functions over the parsed plan.

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const tokensOf = (u: unknown): number | null => (isObj(u) && typeof u.tokens === "number" && Number.isFinite(u.tokens) && u.tokens >= 0 ? u.tokens : null);

/** The fields of a role that are its brief (what its worker reads), not its run. */
const RUN_FIELDS = new Set(["status", "result", "attempts", "attemptLog", "directoryOverlaps"]);

/** The size of a role's brief in characters: the JSON of everything but its run fields. */
export function briefChars(role: unknown): number {
  if (!isObj(role)) return 0;
  const brief: Obj = {};
  for (const k of Object.keys(role)) if (!RUN_FIELDS.has(k)) brief[k] = role[k];
  return JSON.stringify(brief).length;
}

/** One attempt of a role, as cost data. */
export interface AttemptCost {
  roleIndex: number;
  role: string;
  attempt: number;
  tier: string;
  agent: string;
  outcome: string;
  runId: string | null;
  /** Null: no usage recorded for it (yet). */
  tokens: number | null;
  toolUses: number | null;
  durationMs: number | null;
  briefChars: number;
}

export function attemptCosts(plan: unknown): AttemptCost[] {
  const roles = isObj(plan) && Array.isArray(plan.roles) ? plan.roles : [];
  const out: AttemptCost[] = [];
  roles.forEach((r, i) => {
    if (!isObj(r)) return;
    const size = briefChars(r);
    const log = Array.isArray(r.attemptLog) ? r.attemptLog.filter(isObj) : [];
    log.forEach((a, k) => {
      const u = isObj(a.usage) ? a.usage : {};
      out.push({
        roleIndex: i,
        role: typeof r.name === "string" ? r.name : "",
        attempt: typeof a.attempt === "number" ? a.attempt : k + 1,
        tier: typeof a.model === "string" ? a.model : typeof r.model === "string" ? r.model : "sonnet",
        agent: typeof a.agent === "string" ? a.agent : "",
        outcome: typeof a.outcome === "string" ? a.outcome : "running",
        runId: typeof a.runId === "string" ? a.runId : null,
        tokens: tokensOf(u),
        toolUses: typeof u.toolUses === "number" ? u.toolUses : null,
        durationMs: typeof u.durationMs === "number" ? u.durationMs : null,
        briefChars: size,
      });
    });
  });
  return out;
}

/** One auxiliary agent's recorded cost (progress.auxiliaries). */
export interface AuxiliaryCost {
  agent: string;
  runId: string | null;
  tier: string;
  tokens: number | null;
}

export function auxiliaryCosts(plan: unknown): AuxiliaryCost[] {
  const progress = isObj(plan) && isObj(plan.progress) ? plan.progress : {};
  const list = Array.isArray(progress.auxiliaries) ? progress.auxiliaries.filter(isObj) : [];
  return list.map((a) => {
    const u = isObj(a.usage) ? a.usage : {};
    return {
      agent: typeof a.agent === "string" ? a.agent : "",
      runId: typeof a.runId === "string" ? a.runId : null,
      tier: typeof u.model === "string" ? u.model : "auxiliary",
      tokens: tokensOf(u),
    };
  });
}

/** What the execute run `runId` has spent so far: its attempts' and its auxiliaries' recorded tokens. */
export function runSpend(plan: unknown, runId: string | null): number {
  if (runId === null) return 0;
  let sum = 0;
  for (const a of attemptCosts(plan)) if (a.runId === runId && a.tokens !== null) sum += a.tokens;
  for (const a of auxiliaryCosts(plan)) if (a.runId === runId && a.tokens !== null) sum += a.tokens;
  return sum;
}

export interface CostSummary {
  /** Recorded tokens in all. */
  tokens: number;
  byRole: Array<{ role: string; tokens: number; attempts: number; unrecorded: number }>;
  byTier: Record<string, number>;
  byRun: Array<{ runId: string; tokens: number }>;
  auxiliaries: Array<{ agent: string; tokens: number }>;
  /** Attempts that ended without usage recorded. */
  unrecorded: number;
}

/** Cost per role, per model tier and per run (attempts without a run id count under "(none)"). */
export function costSummary(plan: unknown): CostSummary {
  const attempts = attemptCosts(plan);
  const aux = auxiliaryCosts(plan);
  const byRole = new Map<string, { role: string; tokens: number; attempts: number; unrecorded: number }>();
  const byTier: Record<string, number> = {};
  const byRun = new Map<string, number>();
  let tokens = 0;
  let unrecorded = 0;
  for (const a of attempts) {
    const row = byRole.get(`${a.roleIndex}`) ?? { role: a.role, tokens: 0, attempts: 0, unrecorded: 0 };
    row.attempts++;
    if (a.tokens === null) {
      if (a.outcome !== "running") {
        row.unrecorded++;
        unrecorded++;
      }
    } else {
      row.tokens += a.tokens;
      tokens += a.tokens;
      byTier[a.tier] = (byTier[a.tier] ?? 0) + a.tokens;
      const run = a.runId ?? "(none)";
      byRun.set(run, (byRun.get(run) ?? 0) + a.tokens);
    }
    byRole.set(`${a.roleIndex}`, row);
  }
  const auxiliaries: CostSummary["auxiliaries"] = [];
  for (const a of aux) {
    if (a.tokens === null) continue;
    tokens += a.tokens;
    auxiliaries.push({ agent: a.agent, tokens: a.tokens });
    const run = a.runId ?? "(none)";
    byRun.set(run, (byRun.get(run) ?? 0) + a.tokens);
  }
  return { tokens, byRole: [...byRole.values()], byTier, byRun: [...byRun].map(([runId, t]) => ({ runId, tokens: t })), auxiliaries, unrecorded };
}

/**
 * What execute run `runId` cost, for its reflection (reflection-add --skill execute): totals, per tier and per role,
 * and each attempt with recorded usage (the forecast's samples once the plan is archived). Null when nothing of the
 * run was recorded.
 */
export function runCost(plan: unknown, runId: string | null, kind: (name: string) => string): Record<string, unknown> | null {
  if (runId === null) return null;
  const attempts = attemptCosts(plan).filter((a) => a.runId === runId && a.tokens !== null);
  const aux = auxiliaryCosts(plan).filter((a) => a.runId === runId && a.tokens !== null);
  if (attempts.length === 0 && aux.length === 0) return null;
  const byTier: Record<string, number> = {};
  const byRole: Record<string, number> = {};
  let tokens = 0;
  let toolUses = 0;
  let durationMs = 0;
  for (const a of attempts) {
    tokens += a.tokens as number;
    toolUses += a.toolUses ?? 0;
    durationMs += a.durationMs ?? 0;
    byTier[a.tier] = (byTier[a.tier] ?? 0) + (a.tokens as number);
    byRole[a.role] = (byRole[a.role] ?? 0) + (a.tokens as number);
  }
  const auxiliaries: Record<string, number> = {};
  for (const a of aux) {
    tokens += a.tokens as number;
    auxiliaries[a.agent] = (auxiliaries[a.agent] ?? 0) + (a.tokens as number);
  }
  return {
    runId,
    tokens,
    toolUses,
    durationMs,
    byTier,
    byRole,
    auxiliaries,
    attempts: attempts.map((a) => ({ role: a.role, kind: kind(a.role), tier: a.tier, attempt: a.attempt, outcome: a.outcome, tokens: a.tokens, briefChars: a.briefChars })),
  };
}
