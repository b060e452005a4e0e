// Improve's quality rules as pure functions (seed 001): analysts score seven dimensions 1-5 with evidence; a plan
// may not make any dimension worse (regression safety); the improved skill stays within its size budget (token
// budget). expert-validate checks the scores; improve-guards computes both guards from the analysts' scores, the
// draft plan's declared effects and the skill snapshot. No I/O here.
import { isInt, isObject } from "../values.js";

/** The seven dimensions, as artifact keys, in the seed's order. */
export const DIMENSIONS = [
  "protocolClarity",
  "constraintEnforcement",
  "errorHandling",
  "agentCoordination",
  "informationFlow",
  "promptEconomy",
  "verifiability",
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** The seed's names of the dimensions, for messages a person reads. */
export const DIMENSION_TITLES: Record<Dimension, string> = {
  protocolClarity: "Protocol Clarity",
  constraintEnforcement: "Constraint Enforcement",
  errorHandling: "Error Handling",
  agentCoordination: "Agent Coordination",
  informationFlow: "Information Flow",
  promptEconomy: "Prompt Economy",
  verifiability: "Verifiability",
};

export type Scores = Record<Dimension, number>;

/** What is wrong with an artifact's `qualityScores`: every dimension present, score an integer 1-5, evidence text. */
export function qualityScoreProblems(scores: unknown): string[] {
  if (scores === undefined) return [`qualityScores is missing: score ${DIMENSIONS.join(", ")} (1-5, with evidence)`];
  if (!isObject(scores)) return ["qualityScores must be an object keyed by dimension"];
  const problems: string[] = [];
  const absent = DIMENSIONS.filter((d) => !(d in scores));
  if (absent.length) problems.push(`qualityScores misses ${absent.join(", ")}`);
  for (const d of DIMENSIONS) {
    if (!(d in scores)) continue;
    const s = scores[d];
    if (!isObject(s)) {
      problems.push(`qualityScores.${d} must be {score, evidence}`);
      continue;
    }
    if (!isInt(s.score) || s.score < 1 || s.score > 5) problems.push(`qualityScores.${d}.score must be an integer from 1 to 5`);
    if (typeof s.evidence !== "string" || s.evidence.trim() === "") problems.push(`qualityScores.${d}.evidence must be a non-empty string`);
  }
  const unknown = Object.keys(scores).filter((k) => !(DIMENSIONS as readonly string[]).includes(k));
  if (unknown.length) problems.push(`qualityScores has unknown dimensions: ${unknown.join(", ")} (use ${DIMENSIONS.join(", ")})`);
  return problems;
}

/** The scores of a valid `qualityScores` object. */
export function scoresOf(scores: Record<string, unknown>): Scores {
  const out = {} as Scores;
  for (const d of DIMENSIONS) out[d] = (scores[d] as { score: number }).score;
  return out;
}

/** Per dimension the lowest score any analyst gave (cross-review keeps the lower one of a dispute). */
export function baseline(all: readonly Scores[]): Scores {
  const out = {} as Scores;
  for (const d of DIMENSIONS) out[d] = Math.min(...all.map((s) => s[d]));
  return out;
}

/** A role's declared effect on each dimension: -1 (worse), 0, +1 (better); every dimension named. */
export function effectProblems(effects: unknown, label: string): string[] {
  if (!isObject(effects)) return [`${label}: qualityEffects must be an object with all seven dimensions (-1, 0 or 1 each)`];
  const problems: string[] = [];
  const absent = DIMENSIONS.filter((d) => !(d in effects));
  if (absent.length) problems.push(`${label}: qualityEffects misses ${absent.join(", ")}`);
  for (const [k, v] of Object.entries(effects)) {
    if (!(DIMENSIONS as readonly string[]).includes(k)) problems.push(`${label}: qualityEffects has unknown dimension ${k}`);
    else if (!(v === -1 || v === 0 || v === 1)) problems.push(`${label}: qualityEffects.${k} must be -1, 0 or 1`);
  }
  return problems;
}

export interface RoleEffects {
  role: string;
  effects: Scores;
}

export interface RegressionResult {
  passed: boolean;
  before: Scores;
  after: Scores;
  /** Every role that makes a dimension worse. */
  regressions: Array<{ role: string; dimension: Dimension; title: string }>;
  /** Dimensions whose predicted score falls below the baseline once all roles are applied. */
  netLosses: Dimension[];
}

/** Regression safety: no role may make a dimension worse, and no dimension may end below where it started. */
export function regressionGuard(before: Scores, roles: readonly RoleEffects[]): RegressionResult {
  const after = { ...before };
  const regressions: RegressionResult["regressions"] = [];
  for (const r of roles) {
    for (const d of DIMENSIONS) {
      after[d] += r.effects[d];
      if (r.effects[d] < 0) regressions.push({ role: r.role, dimension: d, title: DIMENSION_TITLES[d] });
    }
  }
  for (const d of DIMENSIONS) after[d] = Math.max(1, Math.min(5, after[d]));
  const netLosses = DIMENSIONS.filter((d) => after[d] < before[d]);
  return { passed: regressions.length === 0 && netLosses.length === 0, before, after, regressions, netLosses };
}

/** About four characters per token: the estimate test/plugin uses for the plugin's own skills. */
export const approxTokens = (text: string) => Math.ceil(text.length / 4);

export interface SkillSize {
  path: string;
  lines: number;
  tokens: number;
}

/**
 * The skills a snapshot holds: improve writes one target's exact text, or several, each under a `# <path>.md`
 * line. A snapshot without such lines is one skill, named `fallback`.
 */
export function snapshotSkills(text: string, fallback: string): SkillSize[] {
  const lines = text.split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  const heads: Array<{ at: number; path: string }> = [];
  lines.forEach((l, i) => {
    const m = /^# (\S+\.md)\s*$/.exec(l);
    if (m) heads.push({ at: i, path: m[1] });
  });
  if (heads.length === 0) return [{ path: fallback, lines: lines.length, tokens: approxTokens(text) }];
  return heads.map((h, k) => {
    const body = lines.slice(h.at + 1, k + 1 < heads.length ? heads[k + 1].at : lines.length);
    return { path: h.path, lines: body.length, tokens: approxTokens(body.join("\n")) };
  });
}

export interface BudgetLimits {
  maxLines: number;
  maxGrowthPercent: number;
  maxTokens: number;
}

export interface BudgetTarget {
  path: string;
  lines: { before: number; after: number };
  tokens: { before: number; after: number };
  growthPercent: number;
  problems: string[];
}

/**
 * Token budget: each target's size after the roles' declared line changes (`deltas`, lines added minus lines
 * removed or moved to refs/), against the limits. Tokens after are estimated at the target's own tokens per line.
 */
/**
 * Growth of at most this many lines always passes the growth guard: on a short skill a one-line change is more than
 * 10 %, and a percentage alone would refuse any change to it (issue 30).
 */
export const GROWTH_FLOOR_LINES = 10;

export function budgetGuard(targets: readonly SkillSize[], deltas: ReadonlyMap<string, number>, limits: BudgetLimits): { passed: boolean; targets: BudgetTarget[] } {
  const out = targets.map((t): BudgetTarget => {
    const delta = deltas.get(t.path) ?? 0;
    const after = Math.max(0, t.lines + delta);
    const perLine = t.lines > 0 ? t.tokens / t.lines : 0;
    const tokensAfter = Math.max(0, Math.round(t.tokens + delta * perLine));
    const growthPercent = t.lines > 0 ? Math.round(((after - t.lines) / t.lines) * 1000) / 10 : after > 0 ? 100 : 0;
    const problems: string[] = [];
    if (after >= limits.maxLines) problems.push(`${after} lines after the roles (must stay under ${limits.maxLines})`);
    if (growthPercent > limits.maxGrowthPercent && after - t.lines > GROWTH_FLOOR_LINES) {
      problems.push(`grows ${growthPercent} % (${after - t.lines} lines; at most ${limits.maxGrowthPercent} % or ${GROWTH_FLOOR_LINES} lines)`);
    }
    if (tokensAfter > limits.maxTokens) problems.push(`~${tokensAfter} tokens after the roles (budget ${limits.maxTokens})`);
    return { path: t.path, lines: { before: t.lines, after }, tokens: { before: t.tokens, after: tokensAfter }, growthPercent, problems };
  });
  return { passed: out.every((t) => t.problems.length === 0), targets: out };
}
