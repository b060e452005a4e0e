// The attempts of an execute run as the helper records them: what update-status and `next` stamp on an attempt
// they open (when it started, the execute run it belongs to, why it started above the scheduler's tier), and how
// long a running attempt has run against the plan's stall limit (`stallMinutes`, default 30). Liveness is judged by
// the clock, never by counting the lead's turns: a worker that is quiet through a long test run is not stalled
// until its attempt has run longer than the limit.
import { agentLiveness, stallLimitMs } from "./liveness.js";
import { HelperError } from "../../base/errors.js";
import { DEFAULT_STALL_MINUTES, STALL_MINUTES_RANGE } from "../plan/plan.js";
import { firstTierFailures, gatherSamples, roleKind, type Sample } from "../cost/forecast.js";
import type { Decision, SchedulerCore } from "../plan/scheduler.js";
import { openRunId } from "../cost/budget.js";
import { isoSeconds, parseTimestamp } from "../values.js";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { projectRoots } from "../../store.js";
import { crashPoint } from "../../base/crash-point.js";
import type { SnapshotRecord } from "../git/snapshot.js";

type Json = Record<string, unknown>;


/** The plan's stall limit in minutes: its `stallMinutes`, or the default; a bad value is E_SCHEMA. */
export function stallMinutesOf(plan: Json): number {
  const v = plan.stallMinutes;
  if (v === undefined) return DEFAULT_STALL_MINUTES;
  const [lo, hi] = STALL_MINUTES_RANGE;
  if (typeof v !== "number" || !Number.isInteger(v) || v < lo || v > hi) {
    throw new HelperError("E_SCHEMA", `Invalid plan structure: 'stallMinutes' must be an integer from ${lo} to ${hi} (minutes), got ${JSON.stringify(v)}`);
  }
  return v;
}

/**
 * Why an attempt starts above the tier the scheduler gives it (its plan's model, one up per failure), or null: the
 * memory of earlier runs (`next`'s escalation, lib/cost/forecast.ts) when it explains the tier, else the lead's choice.
 */
function escalation(core: SchedulerCore, role: Json, entry: Json, samples: () => Sample[], runId: string | null): { from: string; reason: string } | null {
  const plain = core.tierFor(role);
  const k = core.TIERS.indexOf(plain);
  const model = typeof entry.model === "string" ? entry.model : plain;
  if (k < 0 || core.TIERS.indexOf(model) <= k) return null;
  const advice = entry.attempt === 1 ? firstTierFailures(samples(), roleKind(role.name), plain, runId) : null;
  return { from: plain, reason: advice && advice.to === model ? advice.reason : "started above the scheduler's tier by the lead" };
}

/**
 * The `onOpen` hook of schedulerCore's apply for a command that records starts in `doc` at `nowMs`: the attempt gets
 * `startedAt`, the open execute run's `runId` (read once, when the first attempt opens) and `escalated` when it
 * starts above the scheduler's tier.
 */
export function stampOpen(cwd: string, doc: Json, core: SchedulerCore, nowMs: number, snapshots?: Snapshots): (entry: Json, role: Json) => void {
  const at = isoSeconds(nowMs);
  const design = projectRoots(cwd).design;
  let runId: string | null | undefined;
  let samples: Sample[] | undefined;
  return (entry, role) => {
    entry.startedAt = at;
    if (runId === undefined) runId = openRunId(design);
    if (runId !== null) entry.runId = runId;
    const why = escalation(core, role, entry, () => (samples ??= gatherSamples(design, doc)), runId);
    if (why) entry.escalated = why;
    const snap = typeof role.name === "string" ? snapshots?.get(role.name) : undefined;
    if (snap && snap.attempt === entry.attempt) entry.snapshot = snap.record;
  };
}

/** Whether the project or a folder above it holds a `.git` entry. */
export function underGit(project: string): boolean {
  for (let dir = project; ; ) {
    if (existsSync(join(dir, ".git"))) return true;
    const up = dirname(dir);
    if (up === dir) return false;
    dir = up;
  }
}

/** The snapshot of a role's newest ended attempt, when it recorded one. */
function endedSnapshot(role: Json): SnapshotRecord | null {
  const log = Array.isArray(role.attemptLog) ? (role.attemptLog as unknown[]) : [];
  for (let k = log.length - 1; k >= 0; k--) {
    const e = log[k] as Json;
    if (e && typeof e === "object" && e.outcome !== "running") {
      const snap = e.snapshot as Json | undefined;
      return snap && typeof snap === "object" && typeof snap.tree === "string" ? (snap as unknown as SnapshotRecord) : null;
    }
  }
  return null;
}

/** The snapshots taken for the starts a call is about to record: role name → the attempt it opens and its snapshot. */
export type Snapshots = Map<string, { attempt: number; record: SnapshotRecord }>;

/**
 * Take the snapshot of each role about to open an attempt (lib/git/snapshot.ts), before the plan's lock is taken and the
 * start recorded, so a recorded attempt always names one taken before it (a kill in between leaves an unused
 * snapshot, never a start without one). `starts`: the role and the attempt number it will open.
 */
export async function takeSnapshots(cwd: string, starts: Array<{ role: Json; attempt: number; replaces?: boolean }>, nowMs: number): Promise<Snapshots> {
  const out: Snapshots = new Map();
  if (starts.length === 0) return out;
  const { project } = projectRoots(cwd);
  // No `.git` in the project or a folder above it: no repository (git finds one only that way here, with no GIT_DIR),
  // so nothing is snapshot and no git process (nor child_process) is started.
  if (!underGit(project)) return out;
  const { takeSnapshot } = await import("../git/snapshot.js");
  for (const { role, attempt, replaces } of starts) {
    if (typeof role.name !== "string") continue;
    // A start `next` records in place of an ended attempt (an interrupted one) comes before the lead's clean-attempt,
    // which puts the scope back to that attempt's snapshot: the new attempt starts from the same one.
    const before = replaces ? endedSnapshot(role) : null;
    if (before) {
      out.set(role.name, { attempt, record: before });
      continue;
    }
    const record = await takeSnapshot(project, role, isoSeconds(nowMs));
    // Outside a repository the attempt records nothing: there is nothing git could put back or commit.
    if ("none" in record && (record.none === "not a git repository" || record.none === "git is not installed")) continue;
    out.set(role.name, { attempt, record });
    crashPoint("snapshot:taken");
  }
  return out;
}

export interface RunningAttempt {
  roleIndex: number;
  name: string;
  agent: string;
  model: string;
  attempt: number;
  reportPath: string;
  /** When the attempt was recorded as started (update-status or next), or null when it carries no time. */
  startedAt: string | null;
  /** How long it has run by the clock, or null without a start time. */
  elapsedMs: number | null;
  /** Running longer than the plan's stall limit: the lead stops it and records it failed with `stalled: true`. */
  stalled: boolean;
  /** Past the limit but its transcript was written lately (a long task, not a stall): the last write's time. */
  lastActivityAt?: string | null;
  /** Milliseconds since that write. */
  idleMs?: number | null;
  /** Past the limit and its transcript ends in the agent's final answer: finished, its report is due (finish it). */
  finished?: boolean;
}

/** The open attempt's start time of a role, when its last attempt is running and carries one. */
function startedAtOf(role: Json): string | null {
  const log = Array.isArray(role.attemptLog) ? role.attemptLog : [];
  const last = log[log.length - 1] as Json | undefined;
  if (!last || typeof last !== "object" || last.outcome !== "running") return null;
  return typeof last.startedAt === "string" && parseTimestamp(last.startedAt) > 0 ? last.startedAt : null;
}

/** The scheduler's running attempts with their start, how long each has run at `nowMs`, and whether it stalled. */
export function liveness(roles: Json[], running: Decision["running"], nowMs: number, stallMinutes: number): RunningAttempt[] {
  const limit = stallMinutes * 60_000;
  return running.map((r) => {
    const startedAt = startedAtOf(roles[r.roleIndex]);
    const elapsedMs = startedAt === null ? null : Math.max(0, nowMs - parseTimestamp(startedAt) * 1000);
    return { ...r, startedAt, elapsedMs, stalled: elapsedMs !== null && elapsedMs > limit };
  });
}

/**
 * A second look at the attempts the clock calls stalled: an agent whose transcript in this session was written within
 * the same limit (the plan's stallMinutes; the default 30 lies above the Bash tool's 10-minute ceiling, so a working
 * agent always writes within it) is working on a long task, and one whose transcript ends in its final answer has
 * finished; neither is stalled. Where no transcript is found, the clock decides (lib/attempts/liveness.ts reads them).
 */
export function refineByActivity(running: RunningAttempt[], project: string, nowMs: number, stallMinutes: number, env: NodeJS.ProcessEnv = process.env): RunningAttempt[] {
  const over = running.filter((r) => r.stalled && r.agent);
  if (over.length === 0) return running;
  const seen = agentLiveness(project, env.CLAUDE_CODE_SESSION_ID ?? "", over.map((r) => r.agent), nowMs, stallLimitMs(stallMinutes, env), env);
  const byName = new Map(seen.agents.map((a) => [a.name, a]));
  return running.map((r) => {
    const a = r.stalled ? byName.get(r.agent) : undefined;
    if (!a || !a.found) return r;
    const facts = { lastActivityAt: a.lastActivityAt, idleMs: a.idleMs };
    if (a.finished) return { ...r, ...facts, stalled: false, finished: true };
    return { ...r, ...facts, stalled: a.stalled };
  });
}
