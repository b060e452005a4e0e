// budget: the execute run's token budget. `--tokens N` sets it for the current run (plan.json `progress.budget`,
// bound to the run's id; `--tokens 0` removes it, leaving the plan's default `context.tokenBudget` if any); without
// it, only answers where the run stands: the budget that applies, what the run spent, and what the roles still to
// run are forecast to cost. `next` holds back any start that would pass it (lib/cost/budget.ts).
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { budgetFor, openRunId, planForecast } from "../../lib/cost/budget.js";
import { runSpend } from "../../lib/cost/cost.js";
import { loadPlan, PLAN_PATH_WRITE, rolesOf, type Json } from "../../lib/plan/plan.js";
import { updatePlan } from "../../lib/plan/plan-update.js";
import { schedulerCore } from "../../lib/plan/scheduler.js";
import { isoSeconds } from "../../lib/values.js";
import { projectRoots } from "../../store.js";

/** Where the run stands against its budget. */
export function standing(plan: Json, design: string, runId: string | null) {
  const core = schedulerCore();
  const roles = rolesOf(plan);
  const toRun = roles.filter((r) => core.statusOf(r) !== "completed" && core.permanentReason(r) === "").map((role) => ({ role, tier: core.tierFor(role) }));
  const forecast = planForecast(plan, design, runId, toRun);
  const budget = budgetFor(plan, runId);
  const spent = runSpend(plan, runId);
  return { runId, budget, spent, remaining: budget ? Math.max(0, budget.tokens - spent) : null, forecast };
}

export default defineCommand({
  positionals: [PLAN_PATH_WRITE],
  flags: {
    tokens: { type: "int", help: "the run's budget in tokens (0 removes the run's budget)" },
  },
  async run(ctx, args) {
    const tokens = args.tokens as number | undefined;
    const design = projectRoots(ctx.cwd).design;
    const runId = openRunId(design);
    if (tokens === undefined) return { set: false, ...standing(loadPlan(ctx.cwd, args.plan_path as string), design, runId) };
    if (tokens < 0) throw new HelperError("E_USAGE", "budget: --tokens must be 0 or more");
    if (runId === null) throw new HelperError("E_INVALID", "budget: no unfinished execute run to set a budget for (run-begin execute first)");
    const plan = await updatePlan(ctx.cwd, args.plan_path as string, ["progress"], (doc) => {
      if (!("progress" in doc)) doc.progress = {};
      const progress = doc.progress as Json;
      if (tokens === 0) delete progress.budget;
      else progress.budget = { tokens, runId, setAt: isoSeconds(ctx.now()) };
      return { write: true, result: doc };
    });
    return { set: true, ...standing(plan, design, runId) };
  },
});
