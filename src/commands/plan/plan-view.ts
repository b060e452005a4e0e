// plan-view: the plan at a glance for a person, ready to show as it is: counts, a Mermaid dependency graph
// coloured by status, what runs next, and the last runs' outcomes. Always exits 0 (commands inject it with a
// !-line, which must not fail), reporting a missing or broken plan inside its output.
import { dirname, resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { hasCycle } from "../../lib/plan/graph.js";
import { newestFirst } from "../../lib/plan/lifecycle.js";
import { attemptsOf, depsOf, guardPlan, PLAN_PATH, rolesOf, statusOf, str, type Json } from "../../lib/plan/plan.js";
import { isEmpty, isObject, parseTimestamp, pyStr } from "../../lib/values.js";
import { readConfined, readJson, readJsonl } from "../../store.js";

const STYLE: Record<string, string> = {
  pending: "fill:#eeeeee,stroke:#999999",
  in_progress: "fill:#fff3cd,stroke:#d39e00",
  completed: "fill:#d4edda,stroke:#28a745",
  failed: "fill:#f8d7da,stroke:#dc3545",
  skipped: "fill:#e2e3e5,stroke:#6c757d,stroke-dasharray:4",
  blocked: "fill:#f8d7da,stroke:#721c24",
};

const label = (s: string) => s.replace(/"/g, "#quot;").replace(/[<>]/g, "");

export interface NextRole {
  roleIndex: number;
  name: string;
  state: "running" | "ready" | "waiting" | "retryable";
  waitingFor?: string[];
}

/** Roles that are running, can start now, wait on unfinished dependencies, or failed with budget left. */
export function nextUp(roles: readonly Json[]): NextRole[] {
  const deps = depsOf(roles);
  const out: NextRole[] = [];
  roles.forEach((role, i) => {
    const s = statusOf(role);
    const name = str(role.name);
    if (s === "in_progress") out.push({ roleIndex: i, name, state: "running" });
    else if (s === "failed" && attemptsOf(role) < 3) out.push({ roleIndex: i, name, state: "retryable" });
    else if (s === "pending") {
      const open = deps[i].filter((d) => statusOf(roles[d]) !== "completed").map((d) => str(roles[d].name));
      out.push(open.length ? { roleIndex: i, name, state: "waiting", waitingFor: [...new Set(open)] } : { roleIndex: i, name, state: "ready" });
    }
  });
  return out;
}

export function mermaid(roles: readonly Json[]): string {
  const deps = depsOf(roles);
  const lines = ["graph TD"];
  roles.forEach((role, i) => lines.push(`  r${i}["${label(str(role.name) || `role ${i}`)}<br/>${label(statusOf(role))}"]:::${statusOf(role).replace(/[^a-z_]/g, "")}`));
  deps.forEach((ds, i) => {
    for (const d of new Set(ds)) lines.push(`  r${d} --> r${i}`);
  });
  const used = new Set(roles.map((r) => statusOf(r)));
  for (const [s, css] of Object.entries(STYLE)) if (used.has(s)) lines.push(`  classDef ${s} ${css}`);
  return lines.join("\n");
}

function lastRuns(cwd: string, reflectionPath: string): string[] {
  const r = readConfined(cwd, reflectionPath, readJsonl);
  if (r.kind !== "ok") return [];
  return newestFirst(r.entries.map((e) => e.value))
    .slice(0, 3)
    .map((e) => {
      const ts = parseTimestamp(e.timestamp);
      const when = ts ? new Date(ts * 1000).toISOString().slice(0, 16).replace("T", " ") : "unknown time";
      return `${pyStr(e.skill ?? "unknown")}: ${pyStr(e.outcome ?? "unknown")} (${isEmpty(e.goalAchieved) ? "goal not met" : "goal met"}), ${when}`;
    });
}

function markdown(goal: string, counts: Record<string, number>, graph: string, next: NextRole[], runs: string[], cycle: boolean): string {
  const parts = [`**Plan:** ${goal || "(no goal)"}`, "", `**Roles:** ${Object.entries(counts).map(([s, n]) => `${n} ${s}`).join(", ")}`];
  if (cycle) parts.push("", "Warning: the dependencies form a cycle; run finalize to see where.");
  parts.push("", "```mermaid", graph, "```", "", "**Next:**");
  if (next.length === 0) parts.push("- nothing left to run");
  for (const n of next) {
    const what = n.state === "waiting" ? `waits for ${n.waitingFor?.join(", ")}` : n.state === "ready" ? "ready to start" : n.state === "running" ? "running" : "failed, can be retried";
    parts.push(`- ${n.name}: ${what}`);
  }
  parts.push("", "**Last runs:**");
  if (runs.length === 0) parts.push("- none recorded");
  for (const r of runs) parts.push(`- ${r}`);
  return parts.join("\n");
}

export default defineCommand({
  // Not confined by confineArgs: plan-view always exits 0, so a plan path outside the project reads as an
  // unreadable plan (the E_PATH wording is in `problems`) and nothing outside is read.
  positionals: [{ ...PLAN_PATH, path: undefined }],
  flags: {},
  run(ctx, args) {
    const path = args.plan_path as string;
    const abs = resolve(ctx.cwd, path);
    const r = readConfined(ctx.cwd, abs, readJson);
    const runs = r.kind === "error" ? [] : lastRuns(ctx.cwd, resolve(dirname(abs), "reflection.jsonl"));
    const none = (state: string, problem: string) => ({
      state,
      problems: [problem],
      lastRuns: runs,
      markdown: `${problem}\n\n**Last runs:**\n${runs.length ? runs.map((x) => `- ${x}`).join("\n") : "- none recorded"}`,
    });
    if (r.kind === "missing") return none("none", `No plan at ${path}: run /do:design <goal> to make one.`);
    if (r.kind !== "ok") return none("invalid", `${path} cannot be read: ${r.kind === "invalid" ? "invalid JSON" : r.detail}`);
    let doc: Json;
    try {
      doc = guardPlan(r.value);
    } catch (err) {
      return none("invalid", `${path} is not a plan: ${(err as Error).message}`);
    }
    const roles = rolesOf(doc);
    const counts: Record<string, number> = {};
    for (const role of roles) counts[statusOf(role)] = (counts[statusOf(role)] ?? 0) + 1;
    const deps = depsOf(roles);
    const cycle = hasCycle(deps);
    const graph = mermaid(roles);
    const next = nextUp(roles);
    const goal = str(doc.goal);
    // Done as preflight and /do:execute see it: nothing left to run or retry (a role that used its 3 attempts stays failed).
    const open = (x: Json) => ["pending", "in_progress"].includes(statusOf(x)) || (statusOf(x) === "failed" && attemptsOf(x) < 3);
    const done = roles.length > 0 && !roles.some(open);
    return {
      state: roles.length === 0 ? "empty" : done ? "done" : Object.keys(counts).some((s) => s !== "pending") ? "in_progress" : "ready",
      goal,
      roleCount: roles.length,
      counts,
      next,
      lastRuns: runs,
      mermaid: graph,
      markdown: markdown(goal, counts, graph, next, runs, cycle),
      problems: isObject(doc) && doc.schemaVersion !== 4 ? [`schemaVersion is ${pyStr(doc.schemaVersion)}, expected 4`] : [],
    };
  },
});
