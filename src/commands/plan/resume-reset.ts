// resume-reset: after an interrupted execute session, every role still in_progress goes back to pending, its
// interrupted attempt is counted and closed in its attempt log (contract 4.19; D27: a missing or null status
// counts as pending). `noWorkRemaining` is the scheduler's verdict, so a plan whose only open work is retryable
// failed roles still has work: a re-run retries them.
import { defineCommand } from "../../lib/command/command.js";
import { PLAN_PATH_WRITE, rolesOf, str } from "../../lib/plan/plan.js";
import { updatePlan } from "../../lib/plan/plan-update.js";
import { schedulerCore } from "../../lib/plan/scheduler.js";

export default defineCommand({
  positionals: [PLAN_PATH_WRITE],
  flags: {},
  run(ctx, args) {
    return updatePlan(ctx.cwd, args.plan_path as string, [], (doc) => {
      const roles = rolesOf(doc);
      const core = schedulerCore();
      const resetRoles: Array<{ roleIndex: number; name: string }> = [];
      roles.forEach((role, i) => {
        if (role.status !== "in_progress") return;
        core.interrupt(roles, i);
        resetRoles.push({ roleIndex: i, name: str(role.name) });
      });
      const decision = core.decide(roles, ctx.cwd);
      const retryable = roles.filter((r) => core.retryable(r)).length;
      return {
        write: resetRoles.length > 0,
        result: { resetRoles, noWorkRemaining: decision.done, reason: decision.reason, retryable },
      };
    });
  },
});
