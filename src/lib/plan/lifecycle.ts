// The lifecycle context every skill shows at start (contract 4.14): handoff notes, the last two reflections and
// the plan's progress. Pure functions over file reads, so plan-health-summary and preflight read each file once.
import { splitLines, type JsonRead, type JsonlFile, type TextRead } from "../../store.js";
import { isEmpty, isObject, parseTimestamp, pyStr, sortDesc } from "../values.js";

export interface Lifecycle {
  handoff: string;
  reflections: string[];
  plan: string;
}

/** First 5 non-blank lines of handoff.md, trimmed, joined by "\n"; "" when missing or unreadable. */
export function handoffDigest(read: TextRead): string {
  if (read.kind !== "ok") return "";
  return splitLines(read.text)
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .slice(0, 5)
    .join("\n");
}

/** Reflection entries newest first (stable: equal timestamps keep file order). */
export function newestFirst(entries: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return sortDesc([...entries], (e) => parseTimestamp(e.timestamp));
}

const orUnknown = (e: Record<string, unknown>, key: string) => (key in e ? pyStr(e[key]) : "unknown");

/**
 * Whether a run reached its goal, in a word, or "" for an aborted run: it stopped on purpose (too few runs, a plan
 * kept, no plan), which is no failure (issue 31: the digest called such a run "failed").
 */
export function goalWord(e: Record<string, unknown>): string {
  if (e.outcome === "aborted") return "";
  return isEmpty(e.goalAchieved) ? "failed" : "succeeded";
}

/** "<skill>: <outcome> (<succeeded|failed>)" for the two newest reflections ("<skill>: aborted" for an aborted one). */
export function recentReflections(read: JsonlFile): string[] {
  if (read.kind !== "ok") return [];
  return newestFirst(read.entries.map((e) => e.value))
    .slice(0, 2)
    .map((e) => {
      const word = goalWord(e);
      return `${orUnknown(e, "skill")}: ${orUnknown(e, "outcome")}${word ? ` (${word})` : ""}`;
    });
}

/** The plan line: "" without plan.json, progress when readable, else "Plan file exists but cannot be read". */
export function planProgress(read: JsonRead): string {
  if (read.kind === "missing") return "";
  if (read.kind === "ok" && isObject(read.value)) {
    const roles = "roles" in read.value ? read.value.roles : [];
    if (Array.isArray(roles)) {
      const done = roles.filter((r) => isObject(r) && r.status === "completed").length;
      return `Current plan: ${done}/${roles.length} roles completed`;
    }
  }
  return "Plan file exists but cannot be read";
}

export function lifecycle(handoff: TextRead, reflections: JsonlFile, plan: JsonRead): Lifecycle {
  return { handoff: handoffDigest(handoff), reflections: recentReflections(reflections), plan: planProgress(plan) };
}
