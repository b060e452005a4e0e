// retry-candidates: failed roles with retry budget left, i.e. fewer than MAX_ATTEMPTS unsuccessful attempts
// (contract 4.7). An attempts value that is not a non-negative integer reads as 0 (contract 3.11).
import { defineCommand } from "../../lib/command.js";
import { attemptsOf, loadPlan, PLAN_PATH, rolesOf, statusOf } from "../../lib/plan.js";

const MAX_ATTEMPTS = 3;

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {},
  run(ctx, args) {
    const roles = rolesOf(loadPlan(ctx.cwd, args.plan_path as string));
    const retryable = [];
    for (const [i, role] of roles.entries()) {
      const attempts = attemptsOf(role);
      if (statusOf(role) !== "failed" || attempts >= MAX_ATTEMPTS) continue;
      retryable.push({
        roleIndex: i,
        name: "name" in role ? role.name : "",
        goal: "goal" in role ? role.goal : "",
        attempts,
        result: "result" in role ? role.result : "",
        model: "model" in role ? role.model : "",
        fallback: "fallback" in role ? role.fallback : null,
      });
    }
    return { retryable };
  },
});
