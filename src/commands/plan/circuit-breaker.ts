// circuit-breaker: stop execution when failures doom most of the work that has not run yet (contract 4.8).
// Roles already skipped by the cascade still count as doomed remaining work [Fix D15]; the threshold is
// strictly more than half [Fix D16]; plans of 3 roles or fewer never abort.
import { defineCommand } from "../../lib/command/command.js";
import { dependents } from "../../lib/plan/graph.js";
import { depsOf, loadPlan, PLAN_PATH, rolesOf, statusOf } from "../../lib/plan/plan.js";

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {},
  run(ctx, args) {
    const roles = rolesOf(loadPlan(ctx.cwd, args.plan_path as string));
    const status = roles.map(statusOf);
    const indices = roles.map((_, i) => i);
    const failed = indices.filter((i) => status[i] === "failed" || status[i] === "blocked");
    const affected = dependents(depsOf(roles), failed);

    const totalRoles = roles.length;
    const pendingCount = status.filter((s) => s === "pending").length;
    const skippedCount = status.filter((s) => s === "skipped").length;
    const remainingCount = pendingCount + skippedCount;
    const wouldBeSkipped = [...affected].filter((i) => status[i] === "pending" || status[i] === "skipped").length;
    const shouldAbort = totalRoles > 3 && remainingCount > 0 && wouldBeSkipped > 0.5 * remainingCount;
    return {
      totalRoles,
      pendingCount,
      wouldBeSkipped,
      shouldAbort,
      reason: shouldAbort ? `Circuit breaker: ${wouldBeSkipped}/${remainingCount} remaining roles would be skipped` : "",
      skippedCount,
      remainingCount,
    };
  },
});
