// update-status: batch status changes under the state machine, recording of completed roles, cascading
// skips after a failure and restoration of cascaded roles after a retry (contract 4.16; D1, D10, D13, D14,
// D17, D27). The whole batch is validated and applied in memory under the plan lock; nothing is written when
// any update is rejected.
import { defineCommand } from "../../lib/command.js";
import { HelperError } from "../../lib/errors.js";
import { PLAN_PATH_WRITE, rolesOf, structure, type Json } from "../../lib/plan.js";
import { schedulerCore, type StatusUpdate } from "../../lib/scheduler.js";
import { parseStdinArray, updatePlan } from "../../lib/plan-update.js";
import { isEmpty, isInt, isObject } from "../../lib/values.js";
import { cleanReflexion, reflexionProblems, retryStarts } from "../../lib/reflexion.js";


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
    if (!starts[k] && u.reflexion) throw new HelperError("E_SCHEMA", `${label}: a reflexion goes only with the start of a retry`);
  });
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

export default defineCommand({
  positionals: [PLAN_PATH_WRITE],
  flags: {},
  stdin: "updates.json",
  async run(ctx, args) {
    const input = await ctx.stdin();
    return updatePlan(ctx.cwd, args.plan_path as string, ["progress"], (doc) => {
      const roles = rolesOf(doc);
      const updates = parseUpdates(input, roles.length);
      checkReflexions(roles, updates);
      const result = schedulerCore().apply(roles, updates, {
        fail: (code, message) => {
          throw new HelperError(code as "E_TRANSITION", message);
        },
        onComplete: (role) => completeRole(doc, role),
      });
      return { write: updates.length > 0, result: { ...result } };
    });
  },
});
