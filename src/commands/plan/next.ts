// next: the execute scheduler's answer for the plan as it stands: the roles to start now (model tier, agent name,
// report path, the reports of their dependencies), what runs, what waits and on what, what failed for good, the
// circuit breaker, and `done` with the reason when nothing can move. Read-only; the lead acts on it and records
// each outcome with update-status, then asks again. Memory and the budget (lib/budget.ts) come on top: a first
// attempt of a role kind that failed on its first tier in earlier runs starts one tier up (`escalation`), each start
// carries its forecast (`expectedTokens`), and a start that would pass the run's token budget is held back; when
// that leaves nothing to start or wait for, the run is done with `stoppedBy: "budget"`.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command.js";
import { openRunId, underBudget } from "../../lib/budget.js";
import { loadPlan, PLAN_PATH, rolesOf } from "../../lib/plan.js";
import { schedulerCore } from "../../lib/scheduler.js";
import { refuseWhileChallenged } from "../../lib/challenge.js";
import { projectRoots } from "../../store.js";

/**
 * A retry's previous attempt, for the reflexion update-status requires before the retry starts: its number, how
 * it ended, the role's result (what the lead recorded), and the worker's report.
 */
function failureOf(role: Record<string, unknown>, cwd: string) {
  const core = schedulerCore();
  const last = core.logOf(role).filter((e) => e.outcome !== "running").slice(-1)[0];
  const report = last && typeof last.agent === "string" ? core.reportPath(last.agent) : null;
  return {
    attempt: last ? last.attempt : core.attemptsOf(role),
    outcome: last ? last.outcome : "failed",
    result: typeof role.result === "string" ? role.result : role.result === undefined ? null : JSON.stringify(role.result),
    report,
    reportExists: report !== null && existsSync(resolve(cwd, report)),
    reflexion: "required: rootCause, wrongAssumptions, alternative on the in_progress update",
  };
}

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {},
  run(ctx, args) {
    const plan = loadPlan(ctx.cwd, args.plan_path as string);
    refuseWhileChallenged(ctx.cwd, plan, "starting workers");
    const roles = rolesOf(plan);
    const design = projectRoots(ctx.cwd).design;
    const { decision, costs, budget, stoppedBy } = underBudget(schedulerCore().decide(roles, ctx.cwd), roles, plan, design, openRunId(design));
    // A dependency's report that is gone cannot hand its context on: say so, so the lead falls back to the result.
    const start = decision.start.map((s) => ({
      ...s,
      ...costs.get(s.roleIndex),
      dependencies: s.dependencies.map((d) => ({ ...d, reportExists: existsSync(resolve(ctx.cwd, d.reportPath)) })),
      ...(s.retry ? { failure: failureOf(roles[s.roleIndex], ctx.cwd) } : {}),
    }));
    return { ...decision, start, budget, stoppedBy };
  },
});
