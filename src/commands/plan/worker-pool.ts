// worker-pool: one persistent worker per runnable role, with a unique slug name (contract 4.6).
// Runnable: pending, and no direct dependency failed, blocked or skipped (pending/in-progress ones are fine:
// the TaskList orders them).
import { defineCommand } from "../../lib/command/command.js";
import { depths } from "../../lib/plan/graph.js";
import { depsOf, loadPlan, PLAN_PATH, rolesOf, statusOf, str } from "../../lib/plan/plan.js";
import { schedulerCore } from "../../lib/plan/scheduler.js";

const DOOMED = new Set(["failed", "blocked", "skipped"]);

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {},
  run(ctx, args) {
    const roles = rolesOf(loadPlan(ctx.cwd, args.plan_path as string));
    const deps = depsOf(roles);
    const status = roles.map(statusOf);
    const runnable = roles
      .map((_, i) => i)
      .filter((i) => status[i] === "pending" && !deps[i].some((d) => DOOMED.has(status[d])));
    if (runnable.length === 0) return { workers: [], maxConcurrency: 0, totalWorkers: 0 };

    const depth = depths(deps);
    const perDepth = new Map<number, number>();
    for (const i of runnable) perDepth.set(depth[i], (perDepth.get(depth[i]) ?? 0) + 1);

    // The scheduler's slug rule, the one `next` and the execute grant name workers by.
    const { slug } = schedulerCore();
    const issued = new Set<string>();
    const workers = runnable.map((i) => {
      const role = roles[i];
      const base = slug(str(role.name));
      let name = base;
      for (let n = 2; issued.has(name); n++) name = `${base}-${n}`;
      issued.add(name);
      return {
        name,
        role: "name" in role ? role.name : "",
        model: "model" in role ? role.model : "sonnet",
        roleIndex: i,
      };
    });
    return { workers, maxConcurrency: Math.max(...perDepth.values()), totalWorkers: workers.length };
  },
});
