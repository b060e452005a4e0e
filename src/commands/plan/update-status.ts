// update-status: batch status changes under the state machine, with trimming of completed roles, cascading
// skips after a failure and restoration of cascaded roles after a retry (contract 4.16; D1, D10, D13, D14,
// D17, D27). The whole batch is validated and applied in memory under the plan lock; nothing is written when
// any update is rejected.
import { defineCommand } from "../../lib/command.js";
import { HelperError } from "../../lib/errors.js";
import { ancestors, dependents, type Deps } from "../../lib/graph.js";
import { attemptsOf, depsOf, PLAN_PATH_WRITE, rolesOf, statusOf, str, structure, type Json } from "../../lib/plan.js";
import { parseStdinArray, updatePlan } from "../../lib/plan-update.js";
import { isEmpty, isInt, isObject } from "../../lib/values.js";

/** The state machine of contract 2.1; every other status is terminal. */
const ALLOWED: Record<string, readonly string[]> = {
  pending: ["in_progress"],
  in_progress: ["completed", "failed"],
  failed: ["pending"],
};

const FAILURE_LIKE = new Set(["failed", "blocked"]);
const CAUSES = new Set(["failed", "blocked", "skipped"]);
const KEPT_ON_COMPLETION = new Set(["name", "goal", "status", "result", "model", "scope", "attempts"]);

interface Update {
  roleIndex: number;
  status: string | null;
  hasResult: boolean;
  result: unknown;
}

/** Parse and validate the whole batch before anything changes (contract 4.16 steps 3-4). */
function parseUpdates(text: string, roleCount: number): Update[] {
  const batch = parseStdinArray(text);
  return batch.map((u, k): Update => {
    const bad = (message: string) => new HelperError("E_SCHEMA", `Update ${k}: ${message}`);
    if (!isObject(u)) throw bad("must be an object");
    const i = u.roleIndex;
    if (!isInt(i)) throw bad("roleIndex must be an integer");
    if (i < 0 || i >= roleCount) throw bad(`roleIndex ${i} out of range (0..${roleCount - 1})`);
    if (!isEmpty(u.status) && typeof u.status !== "string") throw bad("status must be a string");
    return {
      roleIndex: i,
      status: isEmpty(u.status) ? null : (u.status as string),
      hasResult: Object.prototype.hasOwnProperty.call(u, "result"),
      result: u.result,
    };
  });
}

function label(role: Json, i: number): string {
  return `Role ${i} (${str(role.name)})`;
}

/** Trim a completed role to its outcome fields and record it in progress.completedRoles. */
function completeRole(doc: Json, role: Json): void {
  for (const key of Object.keys(role)) if (!KEPT_ON_COMPLETION.has(key)) delete role[key];
  if ("scope" in role) {
    const scope = role.scope;
    role.scope = { dependencies: isObject(scope) && "dependencies" in scope ? scope.dependencies : [] };
  }
  if (!("progress" in doc)) doc.progress = {};
  const progress = doc.progress as Json; // guarded to be an object when present
  if (!("completedRoles" in progress)) progress.completedRoles = [];
  if (!Array.isArray(progress.completedRoles)) throw structure("'progress.completedRoles' must be an array");
  if (!isEmpty(role.name) && !progress.completedRoles.includes(role.name)) progress.completedRoles.push(role.name);
}

function cascadeReason(roles: Json[], deps: Deps, i: number, newlyFailed: Set<number>): string {
  const ds = deps[i];
  if (ds.length === 0) return "unknown dependency failure";
  const d = ds.find((x) => newlyFailed.has(x) || CAUSES.has(statusOf(roles[x]))) ?? ds[0];
  return `dependency on failed/blocked role ${d} (${str(roles[d].name)})`;
}

export default defineCommand({
  positionals: [PLAN_PATH_WRITE],
  flags: {},
  stdin: "updates.json",
  async run(ctx, args) {
    const input = await ctx.stdin();
    return updatePlan(ctx.cwd, args.plan_path as string, ["progress"], (doc) => {
      const roles = rolesOf(doc);
      const deps = depsOf(roles);
      const updates = parseUpdates(input, roles.length);

      const updated: number[] = [];
      const trimmed: number[] = [];
      const newlyFailed = new Set<number>();
      const resetForRetry = new Set<number>();
      for (const u of updates) {
        const i = u.roleIndex;
        const role = roles[i];
        let changedTo: string | null = null;
        if (u.status !== null) {
          const current = statusOf(role);
          if (u.status !== current) {
            const allowed = ALLOWED[current] ?? [];
            if (!allowed.includes(u.status)) {
              const list = allowed.length ? allowed.join(", ") : "none (terminal state)";
              throw new HelperError(
                "E_TRANSITION",
                `${label(role, i)}: Invalid transition: ${current} -> ${u.status}. Allowed: ${list}`,
              );
            }
            role.status = u.status;
            changedTo = u.status;
            updated.push(i);
            if (FAILURE_LIKE.has(u.status)) newlyFailed.add(i);
            if (current === "in_progress" && u.status === "failed") role.attempts = attemptsOf(role) + 1;
            if (current === "failed" && u.status === "pending") resetForRetry.add(i);
          }
        }
        if (u.hasResult) role.result = u.result;
        if (changedTo === "completed") {
          completeRole(doc, role);
          trimmed.push(i);
        }
      }

      const cascaded: Json[] = [];
      const toSkip = [...dependents(deps, newlyFailed)].sort((a, b) => a - b);
      for (const i of toSkip) {
        if (statusOf(roles[i]) !== "pending") continue;
        const reason = cascadeReason(roles, deps, i, newlyFailed);
        roles[i].status = "skipped";
        cascaded.push({ roleIndex: i, name: str(roles[i].name), status: "skipped", reason });
      }

      const restored: Json[] = [];
      if (resetForRetry.size > 0) {
        const retried = dependents(deps, resetForRetry);
        roles.forEach((role, i) => {
          if (statusOf(role) !== "skipped" || !retried.has(i)) return;
          for (const a of ancestors(deps, i)) if (FAILURE_LIKE.has(statusOf(roles[a]))) return;
          role.status = "pending";
          restored.push({ roleIndex: i, name: str(role.name), status: "pending" });
        });
      }

      return { write: updates.length > 0, result: { updated, cascaded, trimmed, restored } };
    });
  },
});
