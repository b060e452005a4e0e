// summary: goal, role depths, model mix and auxiliary roles of a plan, for the lead's report (contract 4.3), and
// what its agents cost so far (record-usage's records: per role, per model tier, per execute run).
import { defineCommand } from "../../lib/command/command.js";
import { depths } from "../../lib/plan/graph.js";
import { arrayOf, depsOf, loadPlan, PLAN_PATH, rolesOf, type Json } from "../../lib/plan/plan.js";
import { byCodePoint, pyStr } from "../../lib/values.js";
import { costSummary } from "../../lib/cost/cost.js";

/** A field as text inside a message: missing → the default, anything else as Python's str() shows it. */
function text(role: Json, key: string, missing: string): string {
  return key in role ? pyStr(role[key]) : missing;
}

/** The summary of a guarded plan (loadPlan with auxiliaryRoles). */
export function planSummary(plan: Json) {
  const roles = rolesOf(plan);
  const depth = depths(depsOf(roles));

  const depthSummary: Record<string, string[]> = {};
  for (const d of [...new Set(depth)].sort((a, b) => a - b)) depthSummary[String(d)] = [];
  roles.forEach((role, i) => {
    depthSummary[String(depth[i])].push(`Role ${i}: ${text(role, "name", "")} (${text(role, "model", "")})`);
  });

  const models = new Map<string, number>();
  for (const role of roles) {
    const model = text(role, "model", "unknown");
    models.set(model, (models.get(model) ?? 0) + 1);
  }
  const modelDistribution = [...models]
    .sort(([a], [b]) => byCodePoint(a, b))
    .map(([model, count]) => `${count} ${model}`)
    .join(", ");

  return {
    goal: "goal" in plan ? plan.goal : "",
    roleCount: roles.length,
    maxDepth: depth.length ? Math.max(...depth) : 0,
    depthSummary,
    modelDistribution,
    auxiliaryRoles: arrayOf(plan.auxiliaryRoles).map((aux) => {
      const a = aux as Json;
      return "name" in a ? a.name : "";
    }),
    cost: costSummary(plan),
  };
}

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {},
  run(ctx, args) {
    return planSummary(loadPlan(ctx.cwd, args.plan_path as string, ["auxiliaryRoles"]));
  },
});
