// tasklist-data: one TaskCreate payload per role, in role order (contract 4.5).
import { defineCommand } from "../../lib/command/command.js";
import { depsOf, loadPlan, PLAN_PATH, rolesOf, statusOf } from "../../lib/plan/plan.js";
import { pyStr } from "../../lib/values.js";

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {},
  run(ctx, args) {
    const roles = rolesOf(loadPlan(ctx.cwd, args.plan_path as string));
    const deps = depsOf(roles);
    return {
      roles: roles.map((role, i) => ({
        roleIndex: i,
        name: "name" in role ? role.name : "",
        goal: "goal" in role ? role.goal : "",
        activeForm: `Working as ${"name" in role ? pyStr(role.name) : "worker"}`,
        blockedBy: deps[i],
        status: statusOf(role),
      })),
    };
  },
});
