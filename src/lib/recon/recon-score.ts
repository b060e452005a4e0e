// Recon scoring and validation as pure functions (contract 2.4, 4.25, 4.26, 7): data in, data out, no I/O.
// compositeScore = pyRound(tierWeight[level] × confidenceMultiplier / effortMultiplier, 2).
import { isEmpty, isInt, isObject, pyRound, pyStr } from "../values.js";

export type Json = Record<string, unknown>;

export interface LeverageLevel {
  level: number;
  name: string;
  weight: number;
  group: string;
}

/** Software-adjusted Meadows levels with their Abson groups and tier weights (contract 2.4). */
export const LEVELS: readonly LeverageLevel[] = [
  { level: 1, name: "paradigm", weight: 5, group: "Intent" },
  { level: 2, name: "goals", weight: 4, group: "Intent" },
  { level: 3, name: "rules", weight: 6, group: "Design" },
  { level: 4, name: "information_flows", weight: 5, group: "Design" },
  { level: 5, name: "feedback_loops", weight: 6, group: "Feedbacks" },
  { level: 6, name: "structure", weight: 7, group: "Feedbacks" },
  { level: 7, name: "parameters", weight: 1, group: "Parameters" },
];

export const LEVERAGE_GROUPS = ["Intent", "Design", "Feedbacks", "Parameters"] as const;
export const CONFIDENCES = ["high", "medium", "low"] as const;
/** The canonical five-level effort scale. */
export const EFFORTS = ["trivial", "small", "medium", "large", "transformative"] as const;
/** [Seed] aliases of the three-level scale: low = small, high = large. */
export const EFFORT_ALIASES: Readonly<Record<string, string>> = { low: "small", high: "large" };

const CONFIDENCE_MULT: Readonly<Record<string, number>> = { high: 1.0, medium: 0.7, low: 0.4 };
const EFFORT_MULT: Readonly<Record<string, number>> = {
  trivial: 0.5,
  small: 1.0,
  medium: 2.0,
  large: 4.0,
  transformative: 8.0,
};

const has = (table: Readonly<Record<string, unknown>>, key: unknown): key is string =>
  typeof key === "string" && Object.prototype.hasOwnProperty.call(table, key);

/** A leverage level 1..7; booleans and non-integers are not levels [Fix D22]. */
export function isLevel(v: unknown): v is number {
  return isInt(v) && v >= 1 && v <= 7;
}

export function levelInfo(level: number): LeverageLevel {
  return LEVELS[level - 1];
}

export function confidenceMultiplier(confidence: unknown): number | undefined {
  return has(CONFIDENCE_MULT, confidence) ? CONFIDENCE_MULT[confidence] : undefined;
}

/** Effort multiplier, aliases included; undefined for anything else. */
export function effortMultiplier(effort: unknown): number | undefined {
  if (has(EFFORT_MULT, effort)) return EFFORT_MULT[effort];
  if (has(EFFORT_ALIASES, effort)) return EFFORT_MULT[EFFORT_ALIASES[effort]];
  return undefined;
}

/** The score of one intervention, or undefined when level, confidence or effort is not valid. */
export function compositeScore(level: unknown, confidence: unknown, effort: unknown): number | undefined {
  if (!isLevel(level)) return undefined;
  const c = confidenceMultiplier(confidence);
  const e = effortMultiplier(effort);
  if (c === undefined || e === undefined) return undefined;
  return pyRound((levelInfo(level).weight * c) / e, 2);
}

export interface ReconValidation {
  interventions: Json[];
  ranking: number[];
  warnings: string[];
}

/** Failure of recon validation: the contract's message (first failure wins). */
export class ReconInvalid extends Error {
  constructor(
    message: string,
    readonly kind: "structure" | "schema" = "schema",
  ) {
    super(message);
    this.name = "ReconInvalid";
  }
}

/** The most interventions recon.json holds (contract 2.4); recon-rank cuts a longer draft to this many. */
export const MAX_INTERVENTIONS = 5;

/**
 * Steps 1 (structure) to 6 of contract 4.25 on a parsed recon document. Throws ReconInvalid. `limit` is the most
 * interventions accepted: recon-validate keeps the contract's 5, recon-rank takes a draft of any length. Beyond the
 * contract (seed 001): no `suggestedRoles`, at the top or in an intervention, and every research finding complete.
 */
export function validateRecon(doc: unknown, limit: number = MAX_INTERVENTIONS): ReconValidation {
  if (!isObject(doc)) throw new ReconInvalid("Invalid recon structure: top-level value must be an object", "structure");
  const version = doc.schemaVersion;
  if (!(typeof version === "number" && version === 1)) {
    throw new ReconInvalid(`Invalid schemaVersion: expected 1, got ${pyStr(version)}`);
  }
  const absent: string[] = [];
  if (!("goal" in doc)) absent.push("goal");
  if (!("scope" in doc) && !("context" in doc)) absent.push("scope");
  if (!("interventions" in doc)) absent.push("interventions");
  if (!("contradictions" in doc)) absent.push("contradictions");
  if (absent.length) throw new ReconInvalid(`Missing required fields: ${absent.join(", ")}`);
  const list = doc.interventions;
  if (!Array.isArray(list)) throw new ReconInvalid("interventions must be an array");
  if (list.length > limit) throw new ReconInvalid(`Too many interventions: ${list.length} > ${limit}`);
  if ("suggestedRoles" in doc) throw new ReconInvalid(NO_ROLES("suggestedRoles"));
  checkFindings(doc.researchFindings);

  const warnings: string[] = [];
  const scored = list.map((item, i) => {
    const score = checkIntervention(item, i, warnings);
    return { ...(item as Json), compositeScore: score, score };
  });
  // Ties are broken by what the interventions say, never by the order the lead wrote them in (the lead does not
  // rank): the deeper leverage (lower level) first, then the title, then (identical in both) the draft order.
  const level = (iv: Json) => (typeof iv.leverageLevel === "number" ? iv.leverageLevel : 99);
  const name = (iv: Json) => String("title" in iv ? iv.title : (iv.name ?? ""));
  const ranking = scored
    .map((iv, i) => ({ i, s: iv.compositeScore, l: level(iv), t: name(iv) }))
    .sort((a, b) => b.s - a.s || a.l - b.l || (a.t < b.t ? -1 : a.t > b.t ? 1 : 0) || a.i - b.i)
    .map((x) => x.i);
  return { interventions: scored, ranking, warnings };
}

const REQUIRED_INTERVENTION_FIELDS = ["title", "leverageLevel", "leverageGroup", "designGoal", "confidence", "effort"];

/** The four places a research finding comes from (seed 001's finding fields). */
export const FINDING_DOMAINS = ["codebase", "literature", "comparative", "theoretical"] as const;

/** Seed 001: recon hands design a goal and constraints, never roles. */
const NO_ROLES = (where: string) =>
  `${where} is not allowed: recon hands /do:design a designGoal and constraints, never roles (put what a role would do in constraints)`;

/**
 * Each finding of `researchFindings` (when the document has them) with the fields seed 001 gives a finding: `id`,
 * `domain` (codebase, literature, comparative or theoretical), `source`, `summary`, `implications` (non-empty
 * text) and `relevantLeverageLevels` (a non-empty list of levels 1-7). Ids are unique: interventions cite them.
 */
export function findingProblems(findings: unknown): string[] {
  if (findings === undefined) return [];
  if (!Array.isArray(findings)) return ["researchFindings must be an array"];
  const problems: string[] = [];
  const ids = new Set<string>();
  findings.forEach((f, i) => {
    const at = `researchFindings[${i}]`;
    if (!isObject(f)) {
      problems.push(`${at} must be an object`);
      return;
    }
    const text = (k: string) => typeof f[k] === "string" && (f[k] as string).trim() !== "";
    const absent = ["id", "source", "summary", "implications"].filter((k) => !text(k));
    if (absent.length) problems.push(`${at}: ${absent.join(", ")} must be non-empty text`);
    if (!(FINDING_DOMAINS as readonly unknown[]).includes(f.domain)) {
      problems.push(`${at}: domain must be one of ${FINDING_DOMAINS.join(", ")}, got '${pyStr(f.domain)}'`);
    }
    const levels = f.relevantLeverageLevels;
    if (!Array.isArray(levels) || levels.length === 0 || !levels.every(isLevel)) {
      problems.push(`${at}: relevantLeverageLevels must be a non-empty list of leverage levels 1-7`);
    }
    if (text("id")) {
      if (ids.has(f.id as string)) problems.push(`${at}: id '${f.id as string}' is used twice`);
      ids.add(f.id as string);
    }
  });
  return problems;
}

function checkFindings(findings: unknown): void {
  const problems = findingProblems(findings);
  if (problems.length) throw new ReconInvalid(problems.length === 1 ? problems[0] : `${problems[0]} (and ${problems.length - 1} more: ${problems.slice(1).join("; ")})`);
}

/** Steps 5a-5h and 6 for intervention i: its score, or a thrown ReconInvalid. Pushes warnings. */
function checkIntervention(item: unknown, i: number, warnings: string[]): number {
  const label = `Intervention ${i}`;
  if (!isObject(item)) throw new ReconInvalid(`${label}: must be an object`);
  if ("suggestedRoles" in item) throw new ReconInvalid(`${label}: ${NO_ROLES("suggestedRoles")}`);
  const absent = REQUIRED_INTERVENTION_FIELDS.filter((f) => !(f in item) && !(f === "title" && "name" in item));
  if (absent.length) throw new ReconInvalid(`${label}: missing fields ${absent.join(", ")}`);
  const level = item.leverageLevel;
  if (!isLevel(level)) throw new ReconInvalid(`${label}: leverageLevel must be integer 1-7, got ${pyStr(level)}`);
  const group = item.leverageGroup;
  if (!(typeof group === "string" && (LEVERAGE_GROUPS as readonly string[]).includes(group))) {
    throw new ReconInvalid(`${label}: invalid leverageGroup '${pyStr(group)}'`);
  }
  if (level <= 5 && isEmpty(item.wrongDirection)) {
    throw new ReconInvalid(`${label}: wrongDirection required for leverageLevel ${level}`);
  }
  if (confidenceMultiplier(item.confidence) === undefined) {
    throw new ReconInvalid(`${label}: invalid confidence '${pyStr(item.confidence)}'`);
  }
  if (effortMultiplier(item.effort) === undefined) {
    throw new ReconInvalid(`${label}: invalid effort '${pyStr(item.effort)}'`);
  }
  const info = levelInfo(level);
  if (group !== info.group) {
    warnings.push(`${label}: leverageGroup '${group}' does not match leverageLevel ${level} (expected '${info.group}')`);
  }
  if ("leverageName" in item && item.leverageName !== info.name) {
    warnings.push(
      `${label}: leverageName '${pyStr(item.leverageName)}' does not match leverageLevel ${level} (expected '${info.name}')`,
    );
  }
  if (isEmpty(item.designGoal)) warnings.push(`${label}: designGoal is empty`);
  return compositeScore(level, item.confidence, item.effort) as number;
}

/** One topInterventions entry of recon-summary (contract 4.26): stored score first, else computed [Fix D21]. */
export function summarizeIntervention(item: Json): Json {
  const stored = item.compositeScore;
  const score =
    typeof stored === "number"
      ? stored
      : (compositeScore(item.leverageLevel, item.confidence, item.effort) ?? 0);
  return {
    rank: "rank" in item ? item.rank : 0,
    title: "title" in item ? item.title : "name" in item ? item.name : "",
    designGoal: "designGoal" in item ? item.designGoal : "",
    // What design puts into every brief (skills/design, pre-flight step 5): the hard rules the research established.
    constraints: Array.isArray(item.constraints) ? item.constraints.filter((c) => typeof c === "string") : [],
    leverageGroup: "leverageGroup" in item ? item.leverageGroup : "",
    compositeScore: score,
    score,
  };
}

/**
 * Overall confidence of a recon: mean of the confidence multipliers (anything unknown counts as low), summed left
 * to right; ≥ 0.85 high, ≥ 0.55 medium, else low; "unknown" without interventions.
 */
export function confidenceOverall(confidences: readonly unknown[]): string {
  if (confidences.length === 0) return "unknown";
  let sum = 0;
  for (const c of confidences) sum += confidenceMultiplier(c) ?? 0.4;
  const mean = sum / confidences.length;
  return mean >= 0.85 ? "high" : mean >= 0.55 ? "medium" : "low";
}

export interface ReconRanking {
  /** The recon document to store: the draft with its interventions cut, ranked and scored. */
  doc: Json;
  /** Titles and scores of the interventions kept, best first. */
  kept: Array<{ rank: number; title: unknown; compositeScore: number }>;
  /** The interventions below the cut, best first (also stored as `deferredInterventions`). */
  cut: Array<{ title: unknown; compositeScore: number }>;
  additionalFindings: number;
  warnings: string[];
}

/** The top-level fields of recon.json v1 (contract 2.4), plus `deferredInterventions`, which recon-rank adds. */
export const RECON_FIELDS: readonly string[] = [
  "schemaVersion", "goal", "scope", "context", "sources", "researchFindings", "interventions", "contradictions",
  "knowledgeGaps", "additionalFindings", "deferredInterventions", "timestamp",
];

function citedIds(interventions: readonly Json[]): Set<string> {
  const ids = new Set<string>();
  for (const iv of interventions) {
    for (const key of ["supportingFindings", "evidence"]) {
      const refs = iv[key];
      if (Array.isArray(refs)) for (const r of refs) if (typeof r === "string") ids.add(r);
    }
  }
  return ids;
}

/**
 * recon-rank on a parsed draft: validate every intervention (recon-validate's rules, any number of them), score,
 * order by compositeScore (ties: the lower leverage level, then the title, then draft order), keep the best MAX_INTERVENTIONS with `rank` 1..n, `compositeScore`
 * and its alias `score`, and count what was left out:
 * - `additionalFindings`: with a `researchFindings` list, the findings no kept intervention cites (in
 *   `supportingFindings` or `evidence`; a finding without an id is never cited); without one, the number of
 *   interventions cut;
 * - `deferredInterventions`: the cut interventions' titles and scores, best first, so nothing the lead wrote is lost.
 * `timestamp` is set when the draft has none. Top-level fields recon.json does not define are left out (and named
 * in a warning). Throws ReconInvalid like validateRecon.
 */
export function rankRecon(draft: unknown, nowIso: string): ReconRanking {
  const { interventions, ranking, warnings } = validateRecon(draft, Number.POSITIVE_INFINITY);
  const doc = draft as Json;
  const ordered = ranking.map((i) => interventions[i]);
  const keptIvs: Json[] = ordered.slice(0, MAX_INTERVENTIONS).map((iv, i) => ({ ...iv, rank: i + 1 }));
  const cutIvs = ordered.slice(MAX_INTERVENTIONS);
  const title = (iv: Json) => ("title" in iv ? iv.title : iv.name);
  let additionalFindings = cutIvs.length;
  if (Array.isArray(doc.researchFindings)) {
    const cited = citedIds(keptIvs);
    additionalFindings = doc.researchFindings.filter((f) => !(isObject(f) && typeof f.id === "string" && cited.has(f.id))).length;
  }
  const cut = cutIvs.map((iv) => ({ title: title(iv), compositeScore: iv.compositeScore as number }));
  // Only the fields recon.json v1 defines, in the draft's order: a draft is a file anyone may write, and whatever
  // else it carries (a grant's or a plan's keys) must not reach a file the helper wrote.
  const out: Json = {};
  const dropped: string[] = [];
  for (const key of Object.keys(doc)) {
    if (RECON_FIELDS.includes(key)) out[key] = doc[key];
    else dropped.push(key);
  }
  out.interventions = keptIvs;
  out.additionalFindings = additionalFindings;
  if (cut.length) out.deferredInterventions = cut;
  else delete out.deferredInterventions;
  if (isEmpty(out.timestamp)) out.timestamp = nowIso;
  return {
    doc: out,
    kept: keptIvs.map((iv) => ({ rank: iv.rank as number, title: title(iv), compositeScore: iv.compositeScore as number })),
    cut,
    additionalFindings,
    // Warnings name interventions by their index in the draft, which the lead wrote.
    warnings: dropped.length
      ? [...warnings, `Left out fields recon.json does not define: ${dropped.map((k) => `'${k}'`).join(", ")}`]
      : warnings,
  };
}
