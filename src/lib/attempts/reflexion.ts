// Reflexion before a retry (seed 001: "Retry budget: max 3 attempts per role with reflexion (analyze root cause,
// incorrect assumptions, alternative approaches before retry)"). update-status refuses a retry's start (a role that
// failed before moving to in_progress) without a reflexion of the three parts, and refuses a reflexion on a start
// that is not a retry; the reflexion is kept on the attempt it led to (attemptLog[k].reflexion). `next` gives the
// previous attempt's failure to reflect on. Pure functions; the scheduler decides what a retry is the same way.
import { isObject } from "../values.js";

/** The seed's three parts, as update fields, with the titles a person reads. */
export const REFLEXION_PARTS = [
  ["rootCause", "Root cause"],
  ["wrongAssumptions", "Wrong assumptions"],
  ["alternative", "Alternative"],
] as const;
export type Reflexion = Record<(typeof REFLEXION_PARTS)[number][0], string>;

/** A part shorter than this says nothing a next attempt could use. */
export const MIN_PART = 10;

/** What is wrong with a reflexion: each part a sentence of its own, the three not the same text. */
export function reflexionProblems(v: unknown): string[] {
  if (!isObject(v)) return [`reflexion must be an object with ${REFLEXION_PARTS.map(([k]) => k).join(", ")}`];
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const [key] of REFLEXION_PARTS) {
    const t = typeof v[key] === "string" ? (v[key] as string).trim() : "";
    if (t.length < MIN_PART) problems.push(`reflexion.${key} must say it in at least ${MIN_PART} characters`);
    else if (seen.has(t.toLowerCase())) problems.push(`reflexion.${key} repeats reflexion.${seen.get(t.toLowerCase())}`);
    else seen.set(t.toLowerCase(), key);
  }
  return problems;
}

/** The reflexion as stored: the three parts, trimmed, nothing else. */
export function cleanReflexion(v: Record<string, unknown>): Reflexion {
  return Object.fromEntries(REFLEXION_PARTS.map(([k]) => [k, (v[k] as string).trim()])) as Reflexion;
}

/** The reflexion as the worker's brief and the seed's format show it. */
export function reflexionText(r: Reflexion, attempt: number): string {
  return [`--- Retry ${attempt} Reflexion ---`, ...REFLEXION_PARTS.map(([k, title]) => `${title}: ${r[k]}`)].join("\n");
}

interface RoleState {
  status: string;
  /** Failed attempts so far (stalls included), as the scheduler counts them. */
  failures: number;
}

/** Failed attempts of a role: its log's failed and stalled entries, or (no log) its attempts count. */
export function failuresOf(role: Record<string, unknown>): number {
  const log = Array.isArray(role.attemptLog) ? role.attemptLog.filter(isObject) : [];
  if (log.length === 0) return typeof role.attempts === "number" && Number.isInteger(role.attempts) && role.attempts > 0 ? role.attempts : 0;
  return log.filter((e) => e.outcome === "failed" || e.outcome === "stalled").length;
}

/**
 * For each update of a batch, in order, whether it starts a retry: it moves to in_progress a role that is failed
 * or has failed before (what `next` marks `retry`). Later updates see the earlier ones (a workflow replays
 * failed, then in_progress, in one batch). Updates without a status, or to the status the role has, change nothing.
 */
export function retryStarts(roles: ReadonlyArray<Record<string, unknown>>, updates: ReadonlyArray<{ roleIndex: number; status: string | null; stalled?: boolean }>): boolean[] {
  const state = new Map<number, RoleState>();
  const of = (i: number): RoleState => {
    let s = state.get(i);
    if (!s) {
      const raw = roles[i].status;
      state.set(i, (s = { status: typeof raw === "string" ? raw : "pending", failures: failuresOf(roles[i]) }));
    }
    return s;
  };
  return updates.map((u) => {
    if (u.status === null) return false;
    const s = of(u.roleIndex);
    if (u.status === s.status) return false;
    const retry = u.status === "in_progress" && (s.status === "failed" || s.failures > 0);
    if (s.status === "in_progress" && u.status === "failed") s.failures++;
    s.status = u.status;
    return retry;
  });
}
