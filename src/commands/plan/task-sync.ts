// task-sync: plan.json mirrored into the session's task list (seed 001: ".design/plan.json is the authoritative
// state; the TaskList is a derived view"). stdin: the tasks the session has now, as TaskList shows them,
// `[{"id", "subject", "status", "blockedBy"}]` (`[]` before the first sync). The answer says which TaskCreate and
// TaskUpdate calls bring the list in line with the plan: one task per role, named by the role, its status derived
// from the role's (a role failed for good, skipped or blocked is closed with its state in the subject), blocked by
// its dependencies' tasks. Nothing is stored: the next sync starts again from plan.json and the list. Read-only.
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { depsOf, loadPlan, PLAN_PATH, rolesOf, str, type Json } from "../../lib/plan/plan.js";
import { parseStdinArray } from "../../lib/plan/plan-update.js";
import { schedulerCore } from "../../lib/plan/scheduler.js";
import { isObject } from "../../lib/values.js";

export type TaskStatus = "pending" | "in_progress" | "completed";

interface Task {
  id: string;
  subject: string;
  status: string;
  blockedBy: string[];
}

/** What the role's task should show: its status, and its subject (the role's name, with a closed role's end). */
export function taskView(role: Json, core = schedulerCore()): { subject: string; status: TaskStatus } {
  const name = str(role.name);
  const s = core.statusOf(role);
  if (s === "completed") return { subject: name, status: "completed" };
  if (s === "in_progress") return { subject: name, status: "in_progress" };
  if (s === "pending") return { subject: name, status: "pending" };
  if (s === "failed" && core.permanentReason(role) === "") return { subject: name, status: "pending" }; // will be retried
  return { subject: `${name} (${s === "failed" ? "failed" : s})`, status: "completed" };
}

/** The role a task mirrors: its subject is the role's name, alone or with a closed role's end in brackets. */
function roleOfTask(subject: string, names: readonly string[]): number {
  const m = /^(.*) \((failed|skipped|blocked)\)$/.exec(subject);
  const i = names.indexOf(subject);
  return i >= 0 ? i : m ? names.indexOf(m[1]) : -1;
}

function parseTasks(text: string): Task[] {
  return parseStdinArray(text).map((t, k) => {
    const bad = (m: string) => new HelperError("E_SCHEMA", `Task ${k}: ${m}`);
    if (!isObject(t)) throw bad("must be an object");
    const id = typeof t.id === "number" ? String(t.id) : t.id;
    if (typeof id !== "string" || id.trim() === "") throw bad("id must be the task's id");
    if (typeof t.subject !== "string") throw bad("subject must be a string");
    if (typeof t.status !== "string") throw bad("status must be a string");
    const blockedBy = t.blockedBy === undefined ? [] : t.blockedBy;
    if (!Array.isArray(blockedBy) || !blockedBy.every((b) => typeof b === "string" || typeof b === "number")) throw bad("blockedBy must be a list of task ids");
    return { id: id.trim().replace(/^#/, ""), subject: t.subject, status: t.status, blockedBy: blockedBy.map((b) => String(b).replace(/^#/, "")) };
  });
}

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {},
  stdin: "tasks.json",
  async run(ctx, args) {
    const tasks = parseTasks(await ctx.stdin());
    const doc = loadPlan(ctx.cwd, args.plan_path as string);
    const roles = rolesOf(doc);
    const names = roles.map((r) => str(r.name));
    const core = schedulerCore();
    const deps = depsOf(roles);

    const taskOf = new Map<number, Task>();
    const extra: Task[] = [];
    const unmatched: string[] = [];
    for (const t of tasks) {
      if (t.status === "deleted") continue;
      const i = roleOfTask(t.subject, names);
      if (i < 0) unmatched.push(t.id);
      else if (taskOf.has(i)) extra.push(t);
      else taskOf.set(i, t);
    }

    const create: Array<Record<string, unknown>> = [];
    const update: Array<Record<string, unknown>> = [];
    roles.forEach((role, i) => {
      const view = taskView(role, core);
      const task = taskOf.get(i);
      const after = deps[i].map((d) => names[d]);
      if (!task) {
        create.push({
          roleIndex: i,
          subject: view.subject,
          description: `${str(role.goal)}${after.length ? ` (after ${after.join(", ")})` : ""}. A view of .design/plan.json roles[${i}].`,
          activeForm: `Working as ${names[i]}`,
          ...(view.status !== "pending" ? { thenStatus: view.status } : {}),
        });
        return;
      }
      const change: Record<string, unknown> = {};
      if (task.status !== view.status) change.status = view.status;
      if (task.subject !== view.subject) change.subject = view.subject;
      const missing = [...new Set(deps[i])].map((d) => taskOf.get(d)?.id).filter((id): id is string => id !== undefined && !task.blockedBy.includes(id));
      if (missing.length) change.addBlockedBy = missing;
      if (Object.keys(change).length) update.push({ taskId: task.id, roleIndex: i, ...change });
    });
    for (const t of extra) update.push({ taskId: t.id, status: "deleted", reason: "a second task for the same role" });

    return {
      inSync: create.length === 0 && update.length === 0,
      create,
      update,
      unmatched,
      ...(create.length ? { next: "After the TaskCreate calls, run TaskList and task-sync again: it then adds the dependencies between the new tasks" } : {}),
    };
  },
});
