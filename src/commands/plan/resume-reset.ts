// resume-reset: after an interrupted execute session, every role still in_progress goes back to pending and
// its interrupted attempt is counted (contract 4.19; D27: a missing or null status counts as pending).
import { defineCommand } from "../../lib/command.js";
import { attemptsOf, PLAN_PATH_WRITE, rolesOf, statusOf, str } from "../../lib/plan.js";
import { updatePlan } from "../../lib/plan-update.js";

export default defineCommand({
  positionals: [PLAN_PATH_WRITE],
  flags: {},
  run(ctx, args) {
    return updatePlan(ctx.cwd, args.plan_path as string, [], (doc) => {
      const roles = rolesOf(doc);
      const resetRoles: Array<{ roleIndex: number; name: string }> = [];
      roles.forEach((role, i) => {
        if (role.status !== "in_progress") return;
        role.status = "pending";
        role.attempts = attemptsOf(role) + 1;
        resetRoles.push({ roleIndex: i, name: str(role.name) });
      });
      const noWorkRemaining = !roles.some((role) => statusOf(role) === "pending");
      return { write: resetRoles.length > 0, result: { resetRoles, noWorkRemaining } };
    });
  },
});
