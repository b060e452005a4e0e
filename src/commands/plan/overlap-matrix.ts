// overlap-matrix: which roles that no dependency path orders touch overlapping territory (contract 4.4, 3.4).
// For each i, the later roles j that must wait for it; the execute lead turns each into a blockedBy edge j → i.
import { defineCommand } from "../../lib/command.js";
import { overlapWaits } from "../../lib/graph.js";
import { depsOf, loadPlan, PLAN_PATH, rolesOf, territoryOf } from "../../lib/plan.js";

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {},
  run(ctx, args) {
    const roles = rolesOf(loadPlan(ctx.cwd, args.plan_path as string));
    const waits = overlapWaits(roles.map(territoryOf), depsOf(roles));
    const matrix: Record<string, number[]> = {};
    waits.forEach((js, i) => {
      if (js.length) matrix[String(i)] = js;
    });
    return { matrix };
  },
});
