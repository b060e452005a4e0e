// What design-tier and finalize know about a goal before anyone studies the code: the project's areas (its top-level
// folders and the folders inside source containers), the recon intervention the goal follows, earlier runs on a
// similar goal that did not complete, and remembered mistakes the goal shares keywords with. Reads only inside the
// project (recon.json, reflection.jsonl, memory.jsonl under .design/, a listing of the project's folders); writes
// nothing. goalTier (tier.ts) turns them into a tier.
import { join } from "node:path";
import type { Complexity } from "./plan.js";
import { NOT_AREAS, overlap, words, type GoalFacts } from "./tier.js";
import { isObject } from "../values.js";
import { listDir, pathKind, readConfined, readJson, readJsonl } from "../../store.js";

const CONTAINERS = new Set(["src", "lib", "app", "apps", "packages", "pkg", "internal", "cmd", "services", "modules", "components", "crates"]);
const MAX_AREAS = 60;
/** Earlier runs and memories looked at: the newest ones. */
const RECENT = 200;
/** Goals this alike are "a similar goal". */
const SIMILAR = 0.6;

/** The project's areas: its top-level folders, and the folders inside source containers (src/api). */
export function projectAreas(root: string): string[] {
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

/** Everything goalTier needs for `goal` in the project at `root` (`min`: the lead's floor). */
export function goalFacts(root: string, goal: string, min?: Complexity): GoalFacts {
  const failedRuns = recentLines(root, join(root, ".design", "reflection.jsonl"))
    .filter((r) => (r.skill === "design" || r.skill === "execute") && (r.outcome === "failed" || r.outcome === "partial") && typeof r.goal === "string" && overlap(goal, r.goal) >= SIMILAR)
    .reverse()
    .map((r) => ({ skill: String(r.skill), goal: String(r.goal), outcome: String(r.outcome) }));
  const goalWords = words(goal);
  const mistakes = recentLines(root, join(root, ".design", "memory.jsonl"))
    .filter((m) => m.category === "mistake" && Array.isArray(m.keywords) && m.keywords.filter((k) => typeof k === "string" && goalWords.has(k.toLowerCase())).length >= 2)
    .map((m) => ({ content: String(m.content ?? "").slice(0, 120) }));
  return { goal, areas: projectAreas(root), recon: reconFor(root, goal), failedRuns, mistakes, ...(min ? { min } : {}) };
}
