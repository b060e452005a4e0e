// overlap-matrix: which roles that no dependency path orders touch overlapping territory (contract 4.4, 3.4).
// For each i, the later roles j that must wait for it; the execute lead turns each into a blockedBy edge j → i.
import { defineCommand } from "../../lib/command/command.js";
import { overlapWaits, territoriesOf } from "../../lib/plan/graph.js";
import { depsOf, loadPlan, PLAN_PATH, rolesOf, type Json } from "../../lib/plan/plan.js";

/** What the rule needs of the plan; the parsed plan itself is unreachable once this returns (less for the GC to copy). */
function inputsOf(doc: Json, root: string) {
  const roles = rolesOf(doc);
  return { territories: territoriesOf(roles, root), deps: depsOf(roles) };
}

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {},
  run(ctx, args) {
    const { territories, deps } = inputsOf(loadPlan(ctx.cwd, args.plan_path as string), ctx.cwd);
    const waits = overlapWaits(territories, deps);
    const matrix: Record<string, number[]> = {};
    waits.forEach((js, i) => {
      if (js.length) matrix[String(i)] = js;
    });
    return { matrix };
  },
});
