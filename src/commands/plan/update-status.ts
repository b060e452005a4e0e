// update-status: batch status changes under the state machine, recording of completed roles, cascading
// skips after a failure and restoration of cascaded roles after a retry (contract 4.16; D1, D10, D13, D14,
// D17, D27). The whole batch is validated and applied in memory under the plan lock; nothing is written when
// any update is rejected. A role completes only on evidence: its running attempt must hold passing evidence,
// recorded by run-checks, for each of its checks and its spec as they read now (lib/checks/evidence.ts). Each attempt
// entry gets its start and end time and the execute run it belongs to.
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { evidenceGaps, specFileHash } from "../../lib/checks/evidence.js";
import { loadPlan, PLAN_PATH_WRITE, rolesOf, structure, type Json } from "../../lib/plan/plan.js";
import { stampOpen, takeSnapshots, underGit, type Snapshots } from "../../lib/attempts/attempts.js";
import { schedulerCore, type SchedulerCore, type StatusUpdate } from "../../lib/plan/scheduler.js";
import { parseStdinArray, updatePlan } from "../../lib/plan/plan-update.js";
import { isEmpty, isInt, isObject, isoSeconds, sha256 } from "../../lib/values.js";
import { cleanReflexion, reflexionProblems, retryStarts } from "../../lib/attempts/reflexion.js";
import { projectRoots } from "../../store.js";
import { measureUsage } from "../run/record-usage.js";
import { refreshLiveReport } from "../run/live-report.js";


/** Parse and validate the whole batch before anything changes (contract 4.16 steps 3-4). */
function parseUpdates(text: string, roleCount: number): StatusUpdate[] {
  const batch = parseStdinArray(text);
  return batch.map((u, k): StatusUpdate => {
    const bad = (message: string) => new HelperError("E_SCHEMA", `Update ${k}: ${message}`);
    if (!isObject(u)) throw bad("must be an object");
    const i = u.roleIndex;
    if (!isInt(i)) throw bad("roleIndex must be an integer");
    if (i < 0 || i >= roleCount) throw bad(`roleIndex ${i} out of range (0..${roleCount - 1})`);
    if (!isEmpty(u.status) && typeof u.status !== "string") throw bad("status must be a string");
    if (u.model !== undefined && (typeof u.model !== "string" || u.model === "")) throw bad("model must be a non-empty string");
    if (u.agent !== undefined && (typeof u.agent !== "string" || u.agent === "")) throw bad("agent must be a non-empty string");
    if (u.stalled !== undefined && typeof u.stalled !== "boolean") throw bad("stalled must be a boolean");
    if (u.reflexion !== undefined) {
      const problems = reflexionProblems(u.reflexion);
      if (problems.length) throw bad(problems.join("; "));
    }
    return {
      roleIndex: i,
      status: isEmpty(u.status) ? null : (u.status as string),
      hasResult: Object.prototype.hasOwnProperty.call(u, "result"),
      result: u.result,
      model: u.model as string | undefined,
      agent: u.agent as string | undefined,
      stalled: u.stalled as boolean | undefined,
      ...(u.reflexion !== undefined ? { reflexion: cleanReflexion(u.reflexion as Record<string, unknown>) } : {}),
    };
  });
}

/**
 * Seed 001's reflexion before a retry: every update that starts a retry carries one, and only those do. Checked
 * on the batch as a whole before anything changes (a retry the state machine refuses is left to it).
 */
function checkReflexions(roles: Json[], updates: StatusUpdate[]): void {
  const core = schedulerCore();
  const starts = retryStarts(roles, updates);
  updates.forEach((u, k) => {
    const role = roles[u.roleIndex];
    const label = `Update ${k}: Role ${u.roleIndex} (${typeof role.name === "string" ? role.name : ""})`;
    if (starts[k] && !u.reflexion) {
      if (core.statusOf(role) === "failed" && !core.retryable(role)) return; // no retry left: the state machine says so
      const last = core.logOf(role).slice(-1)[0];
      const failure = typeof role.result === "string" && role.result !== "" ? `: ${role.result}` : "";
      throw new HelperError(
        "E_INVALID",
        `${label}: a retry needs a reflexion before it starts: {"rootCause", "wrongAssumptions", "alternative"} on this ` +
          `in_progress update (the previous attempt${last ? ` ${last.attempt} ended ${last.outcome}` : " failed"}${failure})`,
      );
    }
    // A start repeated for an attempt already running is judged against that attempt (repeatedStart).
    if (!starts[k] && u.reflexion && !(u.status === "in_progress" && core.statusOf(role) === "in_progress")) {
      throw new HelperError("E_SCHEMA", `${label}: a reflexion goes only with the start of a retry`);
    }
  });
}

/**
 * An in_progress update for a role already in_progress: the start `next` recorded (or an earlier update-status),
 * repeated by a lead that records each start as before. When its model, agent and reflexion (each where given) are
 * the running attempt's, it changes nothing and the answer says `alreadyRecorded`; a different start is refused,
 * since the running attempt would silently keep another agent or tier. Returns whether the update is such a repeat.
 */
function repeatedStart(role: Json, i: number, u: StatusUpdate): boolean {
  if (u.status !== "in_progress") return false;
  const log = Array.isArray(role.attemptLog) ? role.attemptLog : [];
  const open = log[log.length - 1];
  if (!isObject(open) || open.outcome !== "running") return true; // no attempt to compare with: nothing changes, as before
  const differs: string[] = [];
  if (u.model !== undefined && u.model !== open.model) differs.push(`model ${u.model}`);
  if (u.agent !== undefined && u.agent !== open.agent) differs.push(`agent ${u.agent}`);
  if (u.reflexion) {
    const kept = isObject(open.reflexion) ? open.reflexion : {};
    if (Object.entries(u.reflexion).some(([k, v]) => kept[k] !== v)) differs.push("another reflexion");
  }
  if (differs.length === 0) return true;
  const name = typeof role.name === "string" ? role.name : "";
  throw new HelperError(
    "E_TRANSITION",
    `Role ${i} (${name}): attempt ${String(open.attempt)} is already recorded as started (agent ${String(open.agent)}, model ` +
      `${String(open.model)}); this start names ${differs.join(", ")}. Record that attempt's outcome first`,
  );
}

/**
 * Record a completed role in progress.completedRoles. Its brief stays whole (the contract trimmed it): the
 * integration verifier, fix workers and re-checks need its checks and scope, and the execute grant fingerprints
 * everything in the plan but the run fields, so a status update must change nothing else. `trimmed` in the answer
 * still lists the roles the batch completed.
 */
function completeRole(doc: Json, role: Json): void {
  if (!("progress" in doc)) doc.progress = {};
  const progress = doc.progress as Json; // guarded to be an object when present
  if (!("completedRoles" in progress)) progress.completedRoles = [];
  if (!Array.isArray(progress.completedRoles)) throw structure("'progress.completedRoles' must be an array");
  if (!isEmpty(role.name) && !progress.completedRoles.includes(role.name)) progress.completedRoles.push(role.name);
}

/** The refusal of a completion without passing evidence: what is missing, and the call that records it. */
function noEvidence(role: Json, i: number, gaps: string[]): HelperError {
  const name = typeof role.name === "string" ? role.name : "";
  return new HelperError(
    "E_INVALID",
    `Role ${i} (${name}) cannot complete without passing evidence from its running attempt: ${gaps.join("; ")}. ` +
      `Run its checks with run-checks --role ${i}; a role whose checks fail is recorded failed.`,
    { roleIndex: i, missing: gaps },
  );
}

/**
 * Apply a parsed batch to the plan document in memory (the caller holds the plan's lock and writes it): the
 * reflexion gate, the state machine with its cascade and restoration, and the evidence gate on every completion.
 * Each attempt it opens is stamped as `next` stamps it (lib/attempts/attempts.ts). Throws a HelperError on the first update
 * refused, having changed nothing the caller then writes. `repeated` lists the roles whose update only repeated a
 * start already recorded (by `next`).
 */
export function applyUpdates(
  doc: Json,
  updates: StatusUpdate[],
  env: { cwd: string; project: string; now: number; snapshots?: Snapshots },
): ReturnType<SchedulerCore["apply"]> & { repeated: number[] } {
  const roles = rolesOf(doc);
  checkReflexions(roles, updates);
  const at = isoSeconds(env.now);
  const core = schedulerCore();
  const repeated: number[] = [];
  const result = core.apply(roles, updates, {
    fail: (code, message) => {
      throw new HelperError(code as "E_TRANSITION", message);
    },
    beforeComplete: (role, i) => {
      const gaps = evidenceGaps(doc, i, sha256, (path) => specFileHash(env.project, path, sha256));
      if (gaps.length) throw noEvidence(role, i, gaps);
    },
    onOpen: stampOpen(env.cwd, doc, core, env.now, env.snapshots),
    onSame: (role, i, u) => {
      if (repeatedStart(role, i, u)) repeated.push(i);
    },
    onClose: (entry) => {
      entry.endedAt = at;
      // An attempt closed without its cost (a stalled or stopped worker, recorded failed here) gets it from its
      // transcript like any other, so the run's spend and the budget count it; none found: nothing recorded.
      if (!isObject(entry.usage) && typeof entry.agent === "string" && entry.agent !== "") {
        const measured = measureUsage(env.cwd, entry.agent, {}, env.now);
        if ("record" in measured) entry.usage = measured.record;
      }
    },
    onComplete: (role) => completeRole(doc, role),
  });
  return { ...result, repeated };
}

/** The roles a batch would open an attempt of (in_progress for a role not running), read without the lock. */
function opening(cwd: string, path: string, input: string): Array<{ role: Json; attempt: number }> {
  if (!underGit(projectRoots(cwd).project)) return [];
  try {
    const roles = rolesOf(loadPlan(cwd, path));
    const core = schedulerCore();
    const updates = parseUpdates(input, roles.length);
    return updates
      .filter((u) => u.status === "in_progress" && core.statusOf(roles[u.roleIndex]) !== "in_progress")
      .map((u) => ({ role: roles[u.roleIndex], attempt: core.nextAttempt(roles[u.roleIndex]) }));
  } catch {
    return [];
  }
}

export default defineCommand({
  positionals: [PLAN_PATH_WRITE],
  flags: {},
  stdin: "updates.json",
  async run(ctx, args) {
    const input = await ctx.stdin();
    const project = projectRoots(ctx.cwd).project;
    const now = ctx.now();
    // The snapshot of each attempt this batch opens (a retry's start), taken before the plan's lock (lib/attempts/attempts.ts).
    const snapshots = await takeSnapshots(ctx.cwd, opening(ctx.cwd, args.plan_path as string, input), now);
    const out = await updatePlan(ctx.cwd, args.plan_path as string, ["progress"], (doc) => {
      const updates = parseUpdates(input, rolesOf(doc).length);
      const { repeated, ...result } = applyUpdates(doc, updates, { cwd: ctx.cwd, project, now, snapshots });
      // A batch that only repeats recorded starts leaves the file as it is.
      const onlyRepeats = repeated.length === updates.length && !updates.some((u) => u.hasResult);
      const already = repeated.length ? { alreadyRecorded: true, alreadyRecordedRoles: [...new Set(repeated)] } : {};
      return { write: updates.length > 0 && !onlyRepeats, result: { ...result, ...already } };
    });
    await refreshLiveReport(ctx.cwd, ctx.now());
    return out;
  },
});
