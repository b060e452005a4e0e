// design-tier: right-sized ceremony for /do:design. With --goal, the tier of the goal (low → the quick path, planned
// without an expert team; medium or high → the full path) from the goal's words, the project's areas, recon.json,
// earlier runs (reflection.jsonl) and remembered mistakes (memory.jsonl), plus the project's test and build commands
// the quick plan needs. With --draft, whether a draft marked low kept the quick path's limits (roles, areas, depth).
// Reads only inside the project. Its one write: the open design run's checkpoints (lib/run-record.ts): --goal
// records pre-flight (the clarified goal and the tier), --draft on a draft that fits records experts and
// cross-review as skipped on the quick path.
import { join, resolve } from "node:path";
import { defineCommand } from "../../lib/command.js";
import { HelperError } from "../../lib/errors.js";
import { COMPLEXITIES, type Complexity } from "../../lib/plan.js";
import { draftShape, goalTier, NOT_AREAS, overlap, QUICK_LIMITS, words, type GoalFacts } from "../../lib/tier.js";
import { isObject } from "../../lib/values.js";
import { QUICK_PATH_DECISIONS } from "../../lib/resume-refs.js";
import { recordPhases } from "../../lib/run-record.js";
import { listDir, pathKind, readConfined, readJson, readJsonl, readText } from "../../store.js";

const CONTAINERS = new Set(["src", "lib", "app", "apps", "packages", "pkg", "internal", "cmd", "services", "modules", "components", "crates"]);
const MAX_AREAS = 60;
/** Earlier runs and memories looked at: the newest ones. */
const RECENT = 200;
/** Goals this alike are "a similar goal". */
const SIMILAR = 0.6;

/** The project's areas: its top-level folders, and the folders inside source containers (src/api). */
function projectAreas(root: string): string[] {
  const dirs = (dir: string) => {
    try {
      return listDir(dir)
        .filter((e) => !e.isSymlink && !e.name.startsWith(".") && !NOT_AREAS.has(e.name) && pathKind(join(dir, e.name)) === "directory")
        .map((e) => e.name);
    } catch {
      return [];
    }
  };
  const out: string[] = [];
  for (const top of dirs(root)) {
    const inner = CONTAINERS.has(top.toLowerCase()) ? dirs(join(root, top)) : [];
    if (inner.length) out.push(...inner.map((d) => `${top}/${d}`));
    else out.push(top);
    if (out.length >= MAX_AREAS) break;
  }
  return out.slice(0, MAX_AREAS);
}

/** The project's own test and build commands where a manifest names them (what a quick plan's checks run). */
function projectCommands(root: string): { test: string | null; build: string | null } {
  const pkg = readJson(join(root, "package.json"), 1 << 20);
  if (pkg.kind === "ok" && isObject(pkg.value) && isObject(pkg.value.scripts)) {
    const s = pkg.value.scripts;
    return { test: typeof s.test === "string" ? "npm test" : null, build: typeof s.build === "string" ? "npm run build" : null };
  }
  if (pathKind(join(root, "Cargo.toml")) === "file") return { test: "cargo test", build: "cargo build" };
  if (pathKind(join(root, "go.mod")) === "file") return { test: "go test ./...", build: "go build ./..." };
  if (["pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini"].some((f) => pathKind(join(root, f)) === "file")) return { test: "python3 -m pytest", build: null };
  const make = readText(join(root, "Makefile"), 1 << 20);
  if (make.kind === "ok") return { test: /^test:/m.test(make.text) ? "make test" : null, build: /^build:/m.test(make.text) ? "make build" : null };
  return { test: null, build: null };
}

/** The recon intervention the goal follows (its designGoal or title alike), with what recon says around it. */
function reconFor(root: string, goal: string): GoalFacts["recon"] {
  const r = readConfined(root, join(root, ".design", "recon.json"), (p) => readJson(p, 4 << 20));
  if (r.kind !== "ok" || !isObject(r.value) || !Array.isArray(r.value.interventions)) return undefined;
  const contradictions = Array.isArray(r.value.contradictions) ? r.value.contradictions.length : 0;
  let best: { iv: Record<string, unknown>; score: number } | undefined;
  for (const iv of r.value.interventions) {
    if (!isObject(iv)) continue;
    const text = [iv.designGoal, iv.title, iv.name].filter((x) => typeof x === "string").join(" ");
    const score = overlap(goal, text);
    if (score >= SIMILAR && (!best || score > best.score)) best = { iv, score };
  }
  if (!best) return undefined;
  const iv = best.iv;
  return {
    title: String(iv.title ?? iv.name ?? iv.designGoal ?? "").slice(0, 80),
    authorityRequired: typeof iv.authorityRequired === "string" ? iv.authorityRequired : undefined,
    constraints: Array.isArray(iv.constraints) ? iv.constraints.length : 0,
    contradictions,
  };
}

/** The newest lines of a .design/ JSONL file, read only where it lies inside the project. */
function recentLines(root: string, path: string): Record<string, unknown>[] {
  const f = readConfined(root, path, readJsonl);
  if (f.kind !== "ok") return [];
  return f.entries.slice(-RECENT).map((e) => e.value).filter(isObject);
}

export default defineCommand({
  positionals: [],
  flags: {
    goal: { type: "string", help: "the clarified goal: answers its tier, what the path runs, the project's areas and commands" },
    draft: { type: "string", help: "a draft plan: whether one marked low kept the quick path's limits", path: "read" },
    min: { type: "string", help: "low | medium | high: the lowest tier to answer (a signal the lead saw that the rules do not)" },
  },
  async run(ctx, args) {
    const goal = typeof args.goal === "string" ? args.goal.trim() : undefined;
    const draft = args.draft as string | undefined;
    if ((goal === undefined) === (draft === undefined)) throw new HelperError("E_USAGE", "design-tier: give exactly one of --goal or --draft");
    if (draft !== undefined) {
      const r = readJson(resolve(ctx.cwd, draft));
      if (r.kind === "missing") throw new HelperError("E_NOT_FOUND", `${draft} not found: write the draft first`);
      if (r.kind !== "ok") throw new HelperError(r.kind === "invalid" ? "E_JSON" : "E_READ", `${draft}: ${r.detail}`);
      const shape = draftShape(r.value);
      const rec = shape.fits
        ? await recordPhases(ctx.cwd, "design", "cross-review", ctx.now(), { experts: QUICK_PATH_DECISIONS, "cross-review": QUICK_PATH_DECISIONS })
        : null;
      return { ...shape, limits: QUICK_LIMITS, ...(rec ? { checkpoint: rec.announce } : {}) };
    }
    if (!goal) throw new HelperError("E_USAGE", "design-tier: --goal is empty; ask the user for the goal first");
    const min = args.min as string | undefined;
    if (min !== undefined && !(COMPLEXITIES as readonly string[]).includes(min)) throw new HelperError("E_USAGE", `design-tier: --min must be low, medium or high, not '${min}'`);
    const root = ctx.cwd;
    const failedRuns = recentLines(root, join(root, ".design", "reflection.jsonl"))
      .filter((r) => (r.skill === "design" || r.skill === "execute") && (r.outcome === "failed" || r.outcome === "partial") && typeof r.goal === "string" && overlap(goal, r.goal) >= SIMILAR)
      .reverse()
      .map((r) => ({ skill: String(r.skill), goal: String(r.goal), outcome: String(r.outcome) }));
    const goalWords = words(goal);
    const mistakes = recentLines(root, join(root, ".design", "memory.jsonl"))
      .filter((m) => m.category === "mistake" && Array.isArray(m.keywords) && m.keywords.filter((k) => typeof k === "string" && goalWords.has(k.toLowerCase())).length >= 2)
      .map((m) => ({ content: String(m.content ?? "").slice(0, 120) }));
    const areas = projectAreas(root);
    const tier = goalTier({ goal, areas, recon: reconFor(root, goal), failedRuns, mistakes, min: min as Complexity | undefined });
    const rec = await recordPhases(ctx.cwd, "design", "pre-flight", ctx.now(), `goal: ${goal}; ${tier.complexity}, ${tier.path} path`);
    return {
      ...tier,
      ...(rec ? { checkpoint: rec.announce } : {}),
      areas,
      commands: projectCommands(root),
      ...(tier.path === "quick" ? { limits: QUICK_LIMITS } : {}),
    };
  },
});
