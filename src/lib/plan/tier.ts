// Design's tier for a goal, decided by rules rather than by the lead's feeling: a small goal (one area, nothing
// cross-cutting, nothing high-stakes, no warning from recon or earlier runs) takes the quick path, planned without
// an expert team; anything else the full path. Pure functions: design-tier reads the files and calls them.
import type { Complexity } from "./plan.js";

/** What a quick plan may hold (design-tier --draft holds a draft marked low to it). */
export const QUICK_LIMITS = { roles: 3, areas: 1, depth: 2 } as const;

/** Words that make a goal high-stakes: data, security or a public contract is at risk. */
const HIGH_STAKES =
  /\b(?:migrat\w*|secur\w*|auth|authn|authz|authenticat\w*|authori[sz]\w*|permissions?|encrypt\w*|decrypt\w*|passwords?|secrets?|credentials?|tokens? (?:storage|handling)|payments?|billing|privacy|gdpr|pii|breaking|backward[- ]compat\w*|public (?:api|interface)|(?:database|db) schema|schema change)\b/i;
/** Words that make a goal cross-cutting or large: it reaches past one area, or changes a structure. */
const BROAD =
  /\b(?:all|every|everywhere|across|throughout|(?:whole|entire) (?:codebase|code base|project|repo|repository|app|application|system|monorepo|stack)|refactor\w*|rewrit\w*|redesign\w*|re-?architect\w*|architecture|framework|integrat\w*|upgrade\w*|overhaul\w*|monorepo|new skill|plugin system|cross-cutting)\b/i;
/** A goal this long is rarely one small change. */
const LONG_GOAL_WORDS = 40;

/** Folders that hold areas rather than being one (src/api is an area, src is not). */
const CONTAINERS = new Set(["src", "lib", "app", "apps", "packages", "pkg", "internal", "cmd", "services", "modules", "components", "crates"]);
/** Folders of tests: a role may touch them beside its area without making the plan span two areas. */
const TEST_DIRS = new Set(["test", "tests", "spec", "specs", "__tests__", "e2e", "testdata", "fixtures"]);
/** Files without an extension that sit at a project's root (judged as README.md is). */
const ROOT_FILES = new Set(["makefile", "gnumakefile", "dockerfile", "license", "licence", "copying", "gemfile", "rakefile", "procfile", "justfile", "vagrantfile", "brewfile", "pipfile"]);
/** Folders that are never an area of the project's own source. */
export const NOT_AREAS = new Set(["node_modules", "dist", "build", "out", "coverage", "vendor", "target", "venv", "env", "__pycache__", "history", "tmp"]);

const STOP = new Set(["the", "and", "for", "with", "from", "into", "onto", "that", "this", "these", "those", "add", "make", "when", "then", "than", "its", "their", "our", "your", "use", "using", "new", "all", "not", "but", "are", "was", "has", "have"]);

/** The lower-case words of a text, each also without a plural s. */
export function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(/[a-z0-9][a-z0-9_-]*/g) ?? []) {
    out.add(w);
    if (w.length > 3 && w.endsWith("s")) out.add(w.slice(0, -1));
  }
  return out;
}

/** The words of a text that say something (three letters or more, not a stop word). */
function significant(text: string): Set<string> {
  return new Set([...words(text)].filter((w) => w.length >= 3 && !STOP.has(w)));
}

/** How much two texts are about the same thing: shared significant words over the smaller set. */
export function overlap(a: string, b: string): number {
  const x = significant(a);
  const y = significant(b);
  if (x.size === 0 || y.size === 0) return 0;
  let shared = 0;
  for (const w of x) if (y.has(w)) shared++;
  return shared / Math.min(x.size, y.size);
}

/**
 * The area a project path belongs to: `src/api/x.ts` → `src/api`, `docs/a.md` → `docs`; null for a test folder, and
 * for a file at the project's root (README.md, pyproject.toml, package.json: every role may touch them beside its
 * area; issue 31: counted as an area of their own, they sent a two-role quick draft down the full path).
 */
export function areaOf(path: string): string | null {
  const parts = path.replace(/\\/g, "/").replace(/^\.\//, "").split("/").filter((p) => p && p !== ".");
  const head = parts.findIndex((p) => /[*?[{]/.test(p));
  const clean = head < 0 ? parts : parts.slice(0, head);
  if (clean.length === 0) return null;
  if (clean.some((p) => TEST_DIRS.has(p.toLowerCase()))) return null;
  if (CONTAINERS.has(clean[0].toLowerCase()) && clean.length >= 2 && !/\.[a-z0-9]+$/i.test(clean[1])) return `${clean[0]}/${clean[1]}`;
  if (clean.length === 1 && (/\.[a-z0-9]+$/i.test(clean[0]) || ROOT_FILES.has(clean[0].toLowerCase()))) return null;
  return clean[0];
}

/** The project's areas that a goal names: the last part of the area's path, or its singular, is a word of the goal. */
export function namedAreas(goal: string, areas: readonly string[]): string[] {
  const w = words(goal);
  return areas.filter((a) => {
    if (areaOf(a) === null) return false;
    const last = a.split("/").pop()!.toLowerCase();
    return w.has(last) || (last.length > 3 && last.endsWith("s") && w.has(last.slice(0, -1)));
  });
}

export interface GoalFacts {
  goal: string;
  /** The project's areas (`src/api`, `docs`…), test folders included. */
  areas: readonly string[];
  /** A recon intervention the goal follows, if any. */
  recon?: { title: string; authorityRequired?: string; constraints: number; contradictions: number };
  /** Earlier design or execute runs on a similar goal that did not complete. */
  failedRuns: Array<{ skill: string; goal: string; outcome: string }>;
  /** Remembered mistakes whose keywords the goal shares. */
  mistakes: Array<{ content: string }>;
  /** The lead's own floor (`--min`), from a signal it saw in clarifying the goal. */
  min?: Complexity;
}

export interface Tier {
  complexity: Complexity;
  path: "quick" | "full";
  /** Why, one short sentence each; the quick path's too. */
  signals: string[];
  goalAreas: string[];
  experts: number;
  crossReview: boolean;
  draftReview: boolean;
  specs: "optional" | "mandatory";
  auxiliaries: string[];
}

const RANK: Record<Complexity, number> = { low: 0, medium: 1, high: 2 };

/** The tier of a goal from what is known before anyone studies the code. */
export function goalTier(f: GoalFacts): Tier {
  const signals: string[] = [];
  let level = "low" as Complexity;
  const raise = (to: Complexity, why: string) => {
    signals.push(why);
    if (RANK[to] > RANK[level]) level = to;
  };
  const high = HIGH_STAKES.exec(f.goal);
  if (high) raise("high", `high stakes: the goal touches "${high[0]}"`);
  if (f.recon?.authorityRequired === "org") raise("high", `recon: "${f.recon.title}" needs the organisation's approval`);
  const broad = BROAD.exec(f.goal);
  if (broad) raise("medium", `cross-cutting: the goal says "${broad[0]}"`);
  const goalAreas = namedAreas(f.goal, f.areas);
  if (goalAreas.length >= 2) raise("medium", `several areas: the goal names ${goalAreas.join(", ")}`);
  const length = f.goal.trim().split(/\s+/).length;
  if (length > LONG_GOAL_WORDS) raise("medium", `a long goal (${length} words)`);
  if (f.recon) {
    if (f.recon.authorityRequired === "team") raise("medium", `recon: "${f.recon.title}" needs the team's approval`);
    if (f.recon.contradictions > 0) raise("medium", `recon: researchers disagree on this goal (${f.recon.contradictions} open question${f.recon.contradictions === 1 ? "" : "s"})`);
  }
  for (const r of f.failedRuns.slice(0, 2)) raise("medium", `an earlier ${r.skill} run on a similar goal ended ${r.outcome}: "${r.goal.slice(0, 80)}"`);
  if (f.mistakes.length) raise("medium", `${f.mistakes.length} remembered mistake${f.mistakes.length === 1 ? "" : "s"} on this kind of goal`);
  if (f.min && RANK[f.min] > RANK[level]) raise(f.min, `the lead raised it to ${f.min}`);
  if (level === "low") signals.push(goalAreas.length === 1 ? `one area: ${goalAreas[0]}` : "nothing cross-cutting, high-stakes or contested");
  const quick = level === "low";
  return {
    complexity: level,
    path: quick ? "quick" : "full",
    signals,
    goalAreas,
    experts: quick ? 0 : level === "medium" ? 3 : 4,
    crossReview: !quick,
    draftReview: !quick,
    specs: quick ? "optional" : "mandatory",
    auxiliaries: quick ? ["integration-verifier", "memory-curator"] : ["challenger", "scout", "integration-verifier", "memory-curator"],
  };
}

export interface DraftShape {
  complexity: Complexity | null;
  roles: number;
  areas: string[];
  depth: number;
  /** The draft keeps the promise of its tier (a low one: QUICK_LIMITS; medium and high have none here). */
  fits: boolean;
  reasons: string[];
}

/** The longest dependency chain, in roles (1 for roles without dependencies); cycles count as what was walked. */
function depthOf(roles: Array<{ name: string; deps: string[] }>): number {
  const byName = new Map(roles.map((r) => [r.name, r.deps]));
  const memo = new Map<string, number>();
  const visit = (name: string, seen: Set<string>): number => {
    if (memo.has(name)) return memo.get(name)!;
    if (seen.has(name)) return 0;
    seen.add(name);
    let d = 1;
    for (const dep of byName.get(name) ?? []) if (byName.has(dep)) d = Math.max(d, 1 + visit(dep, seen));
    seen.delete(name);
    memo.set(name, d);
    return d;
  };
  return roles.reduce((m, r) => Math.max(m, visit(r.name, new Set())), 0);
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** How big a draft plan is, and whether a draft marked low stays within the quick path's limits. */
export function draftShape(doc: unknown): DraftShape {
  const plan = obj(doc);
  const c = plan.complexity;
  const complexity = c === "low" || c === "medium" || c === "high" ? c : null;
  const roles = (Array.isArray(plan.roles) ? plan.roles : []).map((r) => {
    const role = obj(r);
    const scope = obj(role.scope);
    return { name: typeof role.name === "string" ? role.name : "", deps: strings(scope.dependencies), paths: [...strings(scope.directories), ...strings(scope.patterns)] };
  });
  const areas = [...new Set(roles.flatMap((r) => r.paths.map(areaOf)).filter((a): a is string => a !== null))].sort();
  const depth = depthOf(roles);
  const reasons: string[] = [];
  if (complexity === null) reasons.push('the draft records no complexity ("low", "medium" or "high" at its top level, from design-tier)');
  if (complexity === "low") {
    if (roles.length > QUICK_LIMITS.roles) reasons.push(`${roles.length} roles: a quick plan has at most ${QUICK_LIMITS.roles}`);
    if (areas.length > QUICK_LIMITS.areas) reasons.push(`${areas.length} areas (${areas.join(", ")}): a quick plan stays in one`);
    if (depth > QUICK_LIMITS.depth) reasons.push(`a dependency chain of ${depth} roles: a quick plan has at most ${QUICK_LIMITS.depth}`);
  }
  return { complexity, roles: roles.length, areas, depth, fits: reasons.length === 0, reasons };
}

export interface Judged {
  complexity: Complexity;
  /** The goal's tier alone, before the draft's shape. */
  goal: Complexity;
  /** Why, one short sentence each (the goal's signals, then the draft's shape). */
  signals: string[];
}

/**
 * The complexity finalize holds a draft to: the goal's tier (goalTier on the draft's goal and what the project
 * knows) and the draft's own shape (more roles, areas or a longer chain than a quick plan holds makes it at least
 * medium), whichever is higher. The draft's own `complexity` is not trusted: a lower one needs a recorded reason
 * (plan-rules.ts, `complexityOverride`).
 */
export function judgeDraft(tier: Pick<Tier, "complexity" | "signals">, shape: Pick<DraftShape, "roles" | "areas" | "depth">): Judged {
  let level = tier.complexity;
  const signals = level === "low" ? [] : [...tier.signals];
  const wide: string[] = [];
  if (shape.roles > QUICK_LIMITS.roles) wide.push(`${shape.roles} roles`);
  if (shape.areas.length > QUICK_LIMITS.areas) wide.push(`${shape.areas.length} areas (${shape.areas.join(", ")})`);
  if (shape.depth > QUICK_LIMITS.depth) wide.push(`a dependency chain of ${shape.depth} roles`);
  if (wide.length) {
    signals.push(`the draft holds ${wide.join(", ")}: more than a quick plan`);
    if (RANK[level] < RANK.medium) level = "medium";
  }
  return { complexity: level, goal: tier.complexity, signals };
}

/** Whether complexity `a` is below `b`. */
export const below = (a: Complexity, b: Complexity) => RANK[a] < RANK[b];
