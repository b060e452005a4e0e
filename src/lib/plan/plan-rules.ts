// The seed's planning rules that finalize enforces beyond the contract's validation (seed 001, /do:design):
// - specs for complex plans: verification specs are mandatory for complex goals (4+ roles, or a goal design's
//   tier calls complex or high-stakes: a new skill, an API integration, several areas, or whose `complexity` from
//   design-tier is medium or high), unless the plan records why none apply (`specsWaiver`: no test command in the
//   stack, or a docs/config-only change);
// - auxiliaries always run: integration-verifier is listed in every plan, challenger in every plan but a quick one;
// - scout when the goal touches code: a plan whose goalType is implementation (or that records none) lists a scout,
//   unless it is a quick one.
// - the memory curator always runs: memory-curator (post-execution) is listed in every plan (seed 001: "Memory-curator
//   runs post-execution"; auxiliary selection is independent of complexity);
// - a dropped auxiliary is a recorded decision: a quick plan leaves out challenger and scout only with a reason in
//   `skippedAuxiliaries` ({name, reason}), which execute's report and the grant show;
// - complexity judged by the helper (issue 32): when finalize passes its own judgement (tier.ts judgeDraft: the goal's
//   tier from what the project knows, and the draft's shape), a draft's `complexity` below it is refused unless the
//   draft records why as `complexityOverride` {from: the judged level, reason}; the rules below then hold the plan to
//   the higher level. A draft that records no complexity is held to its goal's tier when that is above low.
// A quick plan is design-tier's quick path (`complexity: "low"`, at most QUICK_LIMITS.roles roles): it lists
// integration-verifier and memory-curator, and execute skips the auxiliaries a plan does not list (issue 24 item 6).
// Each issue names its rule, so the lead knows which rule it broke and what satisfies it. Pure: no I/O.
import { arrayOf, COMPLEXITIES, rolesOf, type Complexity, type Json } from "./plan.js";
import { below, QUICK_LIMITS, type Judged } from "./tier.js";
import { isObject, pyStr } from "../values.js";

/** design's complexity tiers (skills/design/SKILL.md, pre-flight step 8). */
export const TIERS = ["simple", "complex", "high-stakes"] as const;
/** design's goal types: implementation changes code, meta changes prompts or process, research answers a question. */
export const GOAL_TYPES = ["implementation", "meta", "research"] as const;
/** Why a complex plan may have no specs (seed 001: specs need a stack that runs tests; docs/config-only goals). */
export const SPEC_WAIVERS = ["no-test-command", "docs-config-only"] as const;
/** Seed 001: 4+ roles make a goal complex. */
export const COMPLEX_ROLES = 4;

export const RULES = {
  classification: "Rule 'plan classification'",
  specs: "Rule 'specs for complex plans'",
  auxiliaries: "Rule 'auxiliaries always run'",
  scout: "Rule 'scout when the goal touches code'",
  complexity: "Rule 'complexity judged by the helper'",
  skipped: "Rule 'a dropped auxiliary has a recorded reason'",
} as const;

/** The fewest words of a recorded reason (a dropped auxiliary, a complexity below the judged one). */
export const MIN_REASON_WORDS = 5;

/** The auxiliary roles every plan lists, with the type each must have, and whether a quick plan may leave it out. */
const ALWAYS: ReadonlyArray<readonly [string, string, boolean]> = [
  ["challenger", "pre-execution", true],
  ["integration-verifier", "post-execution", false],
  ["memory-curator", "post-execution", false],
];

const text = (v: unknown) => typeof v === "string" && v.trim() !== "";
const reasoned = (v: unknown) => typeof v === "string" && v.trim().split(/\s+/).length >= MIN_REASON_WORDS;

/**
 * The complexity the rules hold `doc` to: its own, or the helper's judgement when that is higher and the draft gives
 * no accepted `complexityOverride`; null when neither says (a plan not made by design, judged by nobody).
 */
export function effectiveComplexity(doc: Json, judged?: Judged | null): Complexity | null {
  const own = (COMPLEXITIES as readonly unknown[]).includes(doc.complexity) ? (doc.complexity as Complexity) : null;
  if (!judged) return own;
  // A plan that claims no complexity (not design's: improve, reflect, a hand-made one) claims no quick path either,
  // so its shape is held by the older rules (4+ roles); only its goal's own tier applies.
  if (own === null) return judged.goal === "low" ? null : judged.goal;
  if (!below(own, judged.complexity)) return own;
  return overrideAccepted(doc, judged) ? own : judged.complexity;
}

function overrideAccepted(doc: Json, judged: Judged): boolean {
  const o = doc.complexityOverride;
  return isObject(o) && o.from === judged.complexity && reasoned(o.reason);
}

/** The auxiliaries a plan records as left out on purpose, with their reasons (`skippedAuxiliaries`). */
function skippedReasons(doc: Json, issues: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const list = doc.skippedAuxiliaries;
  if (list === undefined) return out;
  if (!Array.isArray(list)) {
    issues.push(`${RULES.skipped}: skippedAuxiliaries must be a list of {"name", "reason"}`);
    return out;
  }
  list.forEach((e, i) => {
    if (!isObject(e) || !text(e.name) || !reasoned(e.reason)) {
      issues.push(`${RULES.skipped}: skippedAuxiliaries[${i}] must be {"name": the auxiliary, "reason": why this plan does without it, ${MIN_REASON_WORDS}+ words}`);
    } else out.set(e.name as string, e.reason as string);
  });
  return out;
}

/** Why a plan is complex (role count, seeds' tier, its complexity as the rules hold it), or null for a simple one. */
export function complexity(doc: Json, level: Complexity | null = effectiveComplexity(doc)): string | null {
  const n = rolesOf(doc).length;
  const why: string[] = [];
  if (n >= COMPLEX_ROLES) why.push(`${n} roles`);
  if (doc.tier === "complex" || doc.tier === "high-stakes") why.push(`tier ${doc.tier as string}`);
  if (level === "medium" || level === "high") why.push(`complexity ${level}`);
  return why.length ? why.join(", ") : null;
}

/** design-tier's quick path: complexity low and no more roles than a quick plan may hold. */
export function isQuick(doc: Json, level: Complexity | null = effectiveComplexity(doc)): boolean {
  return level === "low" && rolesOf(doc).length <= QUICK_LIMITS.roles;
}

/**
 * Every seed rule the plan breaks, one sentence each, in a fixed order. `judged`: finalize's own judgement of the
 * plan's complexity (tier.ts judgeDraft), when it made one.
 */
export function seedRuleIssues(doc: Json, judged?: Judged | null): string[] {
  const issues: string[] = [];
  const level = effectiveComplexity(doc, judged);
  const own = (COMPLEXITIES as readonly unknown[]).includes(doc.complexity) ? (doc.complexity as Complexity) : null;
  if (judged && own !== null && below(own, judged.complexity) && !overrideAccepted(doc, judged)) {
    issues.push(
      `${RULES.complexity}: the draft says complexity ${own}, the helper judges ${judged.complexity} ` +
        `(${judged.signals.join("; ")}); set complexity to ${judged.complexity} and plan as that path asks (design-tier's ` +
        `answer for it), or record why this plan is lower as complexityOverride {"from": "${judged.complexity}", "reason": "…"}`,
    );
  }
  if (doc.tier !== undefined && !(TIERS as readonly unknown[]).includes(doc.tier)) {
    issues.push(`${RULES.classification}: tier must be one of ${TIERS.join(", ")} (got '${pyStr(doc.tier)}')`);
  }
  if (doc.goalType !== undefined && !(GOAL_TYPES as readonly unknown[]).includes(doc.goalType)) {
    issues.push(`${RULES.classification}: goalType must be one of ${GOAL_TYPES.join(", ")} (got '${pyStr(doc.goalType)}')`);
  }

  const waiver = doc.specsWaiver;
  const context = isObject(doc.context) ? doc.context : {};
  const touchesCode = doc.goalType === undefined || doc.goalType === "implementation";
  if (waiver !== undefined) {
    if (!isObject(waiver) || !(SPEC_WAIVERS as readonly unknown[]).includes(waiver.reason) || !text(waiver.detail)) {
      issues.push(`${RULES.specs}: specsWaiver must be {"reason": ${SPEC_WAIVERS.join(" | ")}, "detail": why no spec applies}`);
    } else if (waiver.reason === "no-test-command" && (text(context.testCommand) || text(context.buildCommand))) {
      const cmd = text(context.testCommand) ? `testCommand '${context.testCommand as string}'` : `buildCommand '${context.buildCommand as string}'`;
      issues.push(`${RULES.specs}: specsWaiver says no-test-command, but context has ${cmd}: specs can run, so write them`);
    } else if (waiver.reason === "docs-config-only" && touchesCode) {
      const what = doc.goalType === undefined ? "the plan records no goalType (taken to change code)" : "goalType is implementation (it changes code)";
      issues.push(`${RULES.specs}: specsWaiver says docs-config-only, but ${what}: write specs, or record goalType meta or research`);
    }
  }
  const why = complexity(doc, level);
  const specs = arrayOf(doc.verificationSpecs);
  if (why !== null && specs.length === 0 && waiver === undefined) {
    issues.push(
      `${RULES.specs}: the plan is complex (${why}) and has no verificationSpecs; write a spec for the roles ` +
        `(design's refs/verification-specs.md), or record why none applies as specsWaiver ` +
        `{"reason": ${SPEC_WAIVERS.join(" | ")}, "detail": "…"}`,
    );
  }

  const aux = arrayOf(doc.auxiliaryRoles).filter(isObject);
  const quick = isQuick(doc, level);
  const skipped = skippedReasons(doc, issues);
  const unrecorded = (name: string) => {
    if (!skipped.has(name)) {
      issues.push(
        `${RULES.skipped}: the quick plan leaves out ${name}; record why as skippedAuxiliaries ` +
          `[{"name": "${name}", "reason": "…"}] (design-tier's signals for the quick path say it), or list it`,
      );
    }
  };
  for (const [name, type, quickMayOmit] of ALWAYS) {
    const found = aux.find((a) => a.name === name);
    if (!found && quickMayOmit && quick) {
      unrecorded(name);
      continue;
    }
    const who = quickMayOmit ? `every plan but a quick one (complexity low, at most ${QUICK_LIMITS.roles} roles) runs it` : "every plan runs it";
    if (!found) issues.push(`${RULES.auxiliaries}: auxiliaryRoles must list ${name} (type ${type}); ${who}`);
    else if (found.type !== type) issues.push(`${RULES.auxiliaries}: ${name} must have type ${type} (got '${pyStr(found.type)}')`);
  }
  if (touchesCode) {
    const scout = aux.find((a) => a.name === "scout");
    const what = doc.goalType === undefined ? "a plan with no goalType recorded is taken to touch code" : "goalType implementation touches code";
    if (!scout) {
      if (quick) unrecorded("scout");
      else {
        issues.push(
          `${RULES.scout}: ${what}; list a scout (type pre-execution) in auxiliaryRoles, or record goalType meta or ` +
            `research (a quick plan, complexity low with at most ${QUICK_LIMITS.roles} roles, may leave it out)`,
        );
      }
    } else if (scout.type !== "pre-execution") {
      issues.push(`${RULES.scout}: scout must have type pre-execution (got '${pyStr(scout.type)}')`);
    }
  }
  for (const name of skipped.keys()) {
    if (aux.some((a) => a.name === name)) issues.push(`${RULES.skipped}: ${name} is both listed in auxiliaryRoles and recorded as skipped`);
  }
  return issues;
}
