// workflow: compile plan.json into a Claude Code Workflow script (.design/workflow.js) that runs the plan with
// agent() calls, decided by the same scheduler as `next`. The lead passes the file to the Workflow tool as
// `scriptPath`, and when the workflow returns, replays its `updates` through update-status. Refuses a plan with
// roles in progress (resume-reset first) and a plan with nothing to do.
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { projectPath } from "../../lib/grant/grant.js";
import { loadPlan, PLAN_PATH, rolesOf, str } from "../../lib/plan/plan.js";
import { schedulerCore } from "../../lib/plan/scheduler.js";
import { isObject } from "../../lib/values.js";
import { JSON_SCHEMAS } from "../../schemas/json-schemas.js";
import { confine, ensureDir, projectRoots, readJson, updateText } from "../../store.js";
import { budgetFor, openRunId } from "../../lib/cost/budget.js";
import { OWN } from "../../base/owned.js";
import { workflowScript } from "./workflow-script.js";
import { memoriesFor } from "../memory/for-roles.js";
import { refuseWhileChallenged } from "../../lib/plan/challenge.js";

export const WORKFLOW_PATH = ".design/workflow.js";

/** What a role completed before this run hands its dependents: its report's context, else its result line. */
function priorContext(cwd: string, roles: Record<string, unknown>[]): Record<string, string> {
  const core = schedulerCore();
  const bases = core.baseNames(roles);
  const out: Record<string, string> = {};
  roles.forEach((role, i) => {
    if (core.statusOf(role) !== "completed") return;
    const report = readJson(resolve(cwd, core.reportPath(core.completedAgent(roles, i, bases))));
    const parts: string[] = [];
    if (report.kind === "ok" && isObject(report.value)) {
      const v = report.value;
      if (typeof v.contextForDependents === "string" && v.contextForDependents) parts.push(v.contextForDependents);
      if (Array.isArray(v.keyDecisions) && v.keyDecisions.length) parts.push(`Key decisions: ${v.keyDecisions.map(String).join("; ")}`);
    }
    if (parts.length === 0 && typeof role.result === "string" && role.result) parts.push(role.result);
    if (parts.length) out[String(i)] = parts.join("\n");
  });
  return out;
}

/** Without `--memories`: per role still to do, the memories `next` would hand its start (memory/for-roles.ts). */
function chosenMemories(cwd: string, roles: Record<string, unknown>[], nowMs: number, warnings: string[]): Record<string, string[]> {
  const core = schedulerCore();
  const todo = roles.flatMap((r, i) => (core.statusOf(r) === "completed" ? [] : [i]));
  const out: Record<string, string[]> = {};
  for (const [i, list] of memoriesFor(cwd, roles, todo, nowMs, warnings)) if (list.length) out[String(i)] = list.map((m) => m.content);
  return out;
}

/** `--memories`: a JSON object {role name: [memory line, ...]} inside the project, keyed here by role index. */
function memoriesFrom(cwd: string, path: string | undefined, roles: Record<string, unknown>[]): Record<string, string[]> {
  if (path === undefined) return {};
  if (projectPath(cwd, path) === null) throw new HelperError("E_USAGE", `workflow: --memories must name a file inside the project: ${path}`);
  const r = readJson(resolve(cwd, path));
  if (r.kind === "missing") throw new HelperError("E_NOT_FOUND", `Memories file not found: ${path}`);
  if (r.kind === "error") throw new HelperError("E_READ", `Error reading memories file: ${r.detail}`);
  if (r.kind === "invalid") throw new HelperError("E_JSON", `Invalid JSON in memories file: ${r.detail}`);
  const v = r.value;
  if (!isObject(v) || Object.values(v).some((x) => !Array.isArray(x) || x.some((m) => typeof m !== "string"))) {
    throw new HelperError("E_SCHEMA", "Memories file must map role names to arrays of strings");
  }
  const out: Record<string, string[]> = {};
  roles.forEach((role, i) => {
    const list = typeof role.name === "string" && Object.prototype.hasOwnProperty.call(v, role.name) ? (v[role.name] as string[]) : [];
    if (list.length) out[String(i)] = list;
  });
  return out;
}

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {
    memories: { type: "string", path: "read", help: "JSON file {role name: [memory line, ...]} of the memories chosen per role (default: the best 3 of .design/memory.jsonl per role, as next hands them)" },
  },
  async run(ctx, args) {
    const planPath = args.plan_path as string;
    const doc = loadPlan(ctx.cwd, planPath);
    refuseWhileChallenged(ctx.cwd, doc, "the workflow");
    const roles = rolesOf(doc);
    const core = schedulerCore();
    const warnings: string[] = [];
    const memories = args.memories !== undefined ? memoriesFrom(ctx.cwd, args.memories as string, roles) : chosenMemories(ctx.cwd, roles, ctx.now(), warnings);
    const decision = core.decide(roles, ctx.cwd);
    if (decision.running.length > 0) {
      throw new HelperError("E_INVALID", "Roles are in progress: run resume-reset first, then compile the workflow", {
        running: decision.running.map((r) => r.name),
      });
    }
    if (decision.done) throw new HelperError("E_INVALID", `Nothing to run: ${decision.reason}`, { reason: decision.reason });
    const budget = budgetFor(doc, openRunId(projectRoots(ctx.cwd).design));
    if (budget) {
      throw new HelperError("E_INVALID", `A token budget (${budget.tokens}) needs the loop: a workflow's agents report what they spent only when it ends`, { budget });
    }
    // The Workflow tool's validator knows no draft 2020-12 meta-schema: an agent() schema naming it in `$schema` is
    // refused ("no schema with key or ref", measured on 2.1.330) and every worker dies before it starts.
    const { $schema: _metaSchema, ...reportSchema } = JSON_SCHEMAS["worker-completion"] as Record<string, unknown>;
    const script = workflowScript({
      planPath,
      root: ctx.cwd,
      goal: str(doc.goal),
      roles,
      priorContext: priorContext(ctx.cwd, roles),
      memories,
      reportSchema,
    });
    ensureDir(resolve(ctx.cwd, ".design"));
    const target = confine(ctx.cwd, "workflow script", WORKFLOW_PATH, "write", OWN.workflow);
    await updateText(target, () => ({ text: script, result: null }), "Error writing workflow script");
    return {
      path: WORKFLOW_PATH,
      bytes: Buffer.byteLength(script, "utf8"),
      roles: roles.length,
      startsNow: decision.start.map((s) => ({ name: s.name, agent: s.agent, model: s.model })),
      call: { scriptPath: WORKFLOW_PATH },
      memories: Object.values(memories).reduce((n, list) => n + list.length, 0),
      ...(warnings.length ? { warnings } : {}),
    };
  },
});
