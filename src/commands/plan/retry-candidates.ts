// retry-candidates: failed roles with retry budget left (contract 4.7), as the scheduler sees them: fewer than
// MAX_ATTEMPTS unsuccessful attempts and not stalled twice. `model` is the tier the retry runs on (one above each
// failed attempt, haiku → sonnet → opus); `baseModel` is the plan's. An attempts value that is not a
// non-negative integer reads as 0 (contract 3.11).
import { defineCommand } from "../../lib/command/command.js";
import { loadPlan, PLAN_PATH, rolesOf } from "../../lib/plan/plan.js";
import { schedulerCore } from "../../lib/plan/scheduler.js";

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {},
  run(ctx, args) {
    const roles = rolesOf(loadPlan(ctx.cwd, args.plan_path as string));
    const core = schedulerCore();
    const bases = core.baseNames(roles);
    const retryable = [];
    for (const [i, role] of roles.entries()) {
      if (!core.retryable(role)) continue;
      const attempt = core.nextAttempt(role);
      retryable.push({
        roleIndex: i,
        name: "name" in role ? role.name : "",
        goal: "goal" in role ? role.goal : "",
        attempts: core.attemptsOf(role),
        result: "result" in role ? role.result : "",
        model: "model" in role ? core.tierFor(role) : "",
        baseModel: "model" in role ? role.model : "",
        fallback: "fallback" in role ? role.fallback : null,
        stalls: core.stallsOf(role),
        agent: core.agentName(bases[i], attempt),
      });
    }
    return { retryable };
  },
});
