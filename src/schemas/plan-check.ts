// A zod-free twin of PlanSchema's verdict (schemas/plan.ts): true exactly when PlanSchema.safeParse(doc) succeeds.
// finalize runs it on every call, and loads zod only to word the issues of a plan it refuses, so the common path
// (a plan that passes) never inflates, compiles and builds the zod schemas (~100 ms). The unit test
// test/unit/plan-check.test.ts proves the two agree on valid plans and on thousands of mutations of them; a
// change to PlanSchema must be mirrored here (that test fails until it is).
import { ATTEMPT_OUTCOMES, COMPLEXITIES, MODEL_TIERS, ROLE_STATUSES, STALL_MINUTES_RANGE } from "../lib/plan/plan.js";
import { GOAL_TYPES, SPEC_WAIVERS, TIERS } from "../lib/plan/plan-rules.js";

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown) => typeof v === "string";
const nonEmpty = (v: unknown) => typeof v === "string" && v.length >= 1;
const strArray = (v: unknown) => Array.isArray(v) && v.every(str);
/** z.number().int().nonnegative(): a safe integer >= 0. */
const count = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
/** `.optional()`: absent or undefined passes, else the check. */
const opt = (o: Json, k: string, ok: (v: unknown) => boolean) => o[k] === undefined || ok(o[k]);
const nullOpt = (o: Json, k: string, ok: (v: unknown) => boolean) => o[k] === undefined || o[k] === null || ok(o[k]);
const arrayOf = (ok: (v: unknown) => boolean) => (v: unknown) => Array.isArray(v) && v.every(ok);

const STATUSES: readonly unknown[] = ROLE_STATUSES;
const OUTCOMES: readonly unknown[] = ATTEMPT_OUTCOMES;
const MODELS: readonly unknown[] = MODEL_TIERS;
const model = (v: unknown) => MODELS.includes(v);
/** z.number().int().positive(). */
const positive = (v: unknown) => count(v) && (v as number) >= 1;
const AUX_TYPES: readonly unknown[] = ["pre-execution", "post-execution", "per-role"];
const AUX_TRIGGERS: readonly unknown[] = ["after-design", "before-execution", "after-role-complete", "after-all-roles-complete"];

const scope = (v: unknown) =>
  isObj(v) && opt(v, "directories", strArray) && opt(v, "patterns", strArray) && opt(v, "dependencies", strArray);

const expertContext = (v: unknown) => isObj(v) && nonEmpty(v.expert) && nonEmpty(v.artifact) && opt(v, "relevance", str);

const criterion = (v: unknown) => isObj(v) && nonEmpty(v.criterion) && nonEmpty(v.check);

const reflexion = (v: unknown) => isObj(v) && str(v.rootCause) && str(v.wrongAssumptions) && str(v.alternative);

const attemptEntry = (v: unknown) =>
  isObj(v) && opt(v, "attempt", positive) && opt(v, "model", nonEmpty) && opt(v, "agent", nonEmpty) && opt(v, "outcome", (o) => OUTCOMES.includes(o)) &&
  opt(v, "reflexion", reflexion);

const run = (v: unknown) => isObj(v) && nonEmpty(v.command) && opt(v, "args", (a) => a === "none" || a === "plain") && opt(v, "why", str);

const assumption = (v: unknown) =>
  isObj(v) && nonEmpty(v.text) && opt(v, "severity", (s) => s === "blocking" || s === "non-blocking");

function role(v: unknown): boolean {
  return (
    isObj(v) &&
    nonEmpty(v.name) &&
    nonEmpty(v.goal) &&
    model(v.model) &&
    scope(v.scope) &&
    opt(v, "expertContext", arrayOf(expertContext)) &&
    opt(v, "constraints", strArray) &&
    opt(v, "runs", arrayOf(run)) &&
    Array.isArray(v.acceptanceCriteria) && v.acceptanceCriteria.length >= 1 && v.acceptanceCriteria.every(criterion) &&
    opt(v, "assumptions", arrayOf(assumption)) &&
    opt(v, "rollbackTriggers", strArray) &&
    nullOpt(v, "fallback", str) &&
    nullOpt(v, "status", (s) => STATUSES.includes(s)) &&
    opt(v, "attempts", count) &&
    opt(v, "attemptLog", arrayOf(attemptEntry)) &&
    opt(v, "directoryOverlaps", arrayOf(count))
  );
}

const auxiliary = (v: unknown) =>
  isObj(v) && nonEmpty(v.name) && AUX_TYPES.includes(v.type) && nonEmpty(v.goal) && AUX_TRIGGERS.includes(v.trigger) && opt(v, "model", model) &&
  opt(v, "runs", arrayOf(run));

const spec = (v: unknown) =>
  isObj(v) && nonEmpty(v.role) && nonEmpty(v.path) && nonEmpty(v.runCommand) && nullOpt(v, "properties", strArray) && opt(v, "sha256", str);

const context = (v: unknown) =>
  isObj(v) &&
  opt(v, "stack", str) &&
  opt(v, "conventions", (c) => str(c) || strArray(c)) &&
  nullOpt(v, "testCommand", str) &&
  nullOpt(v, "buildCommand", str) &&
  opt(v, "grantRequiresSandbox", (b) => typeof b === "boolean") &&
  opt(v, "tokenBudget", positive);

const expertArtifact = (v: unknown) => isObj(v) && opt(v, "name", str) && opt(v, "path", str) && opt(v, "summary", str);

const decision = (v: unknown) =>
  isObj(v) && opt(v, "conflict", str) && opt(v, "experts", strArray) && opt(v, "decision", str) && opt(v, "reasoning", str);

const progress = (v: unknown) => isObj(v) && opt(v, "completedRoles", strArray);

/** True exactly when PlanSchema accepts `doc`. */
export function matchesPlanSchema(doc: unknown): boolean {
  return (
    isObj(doc) &&
    doc.schemaVersion === 4 &&
    opt(doc, "goal", str) &&
    opt(doc, "tier", (t) => (TIERS as readonly unknown[]).includes(t)) &&
    opt(doc, "goalType", (t) => (GOAL_TYPES as readonly unknown[]).includes(t)) &&
    opt(doc, "specsWaiver", (w) => isObj(w) && (SPEC_WAIVERS as readonly unknown[]).includes(w.reason) && nonEmpty(w.detail)) &&
    opt(doc, "complexity", (c) => (COMPLEXITIES as readonly unknown[]).includes(c)) &&
    opt(doc, "complexityOverride", (o) => isObj(o) && (COMPLEXITIES as readonly unknown[]).includes(o.from) && nonEmpty(o.reason)) &&
    opt(doc, "skippedAuxiliaries", arrayOf((e) => isObj(e) && nonEmpty(e.name) && nonEmpty(e.reason))) &&
    opt(doc, "context", context) &&
    opt(doc, "stallMinutes", (m) => count(m) && (m as number) >= STALL_MINUTES_RANGE[0] && (m as number) <= STALL_MINUTES_RANGE[1]) &&
    opt(doc, "expertArtifacts", arrayOf(expertArtifact)) &&
    opt(doc, "interfaceContracts", str) &&
    opt(doc, "designDecisions", arrayOf(decision)) &&
    nullOpt(doc, "verificationSpecs", arrayOf(spec)) &&
    Array.isArray(doc.roles) && doc.roles.length >= 1 && doc.roles.length <= 8 && doc.roles.every(role) &&
    nullOpt(doc, "auxiliaryRoles", arrayOf(auxiliary)) &&
    opt(doc, "progress", progress)
  );
}
