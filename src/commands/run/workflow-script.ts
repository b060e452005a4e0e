// The text of the Workflow script that runs a plan (Claude Code's Workflow tool, 2.1.330): plain JavaScript that
// starts with a pure-literal `meta`, then the plan's roles, the worker-report JSON Schema, the scheduler's own
// source (schedulerSource(): schedulerCore's parts, the same code `next` and `update-status` run) and a loop: ask
// the scheduler, start an agent() per role to start, wait for the first to finish, record its outcome through the
// scheduler's apply, repeat until the scheduler says done. Before a retry, one more agent() writes the reflexion
// update-status requires (root cause, wrong assumptions, alternative: lib/attempts/reflexion.ts); without a usable one
// the role is not retried here and the lead's loop takes it over. The script returns the update-status batch that
// replays the run on plan.json, the roles its agents reported done (`completions`: the lead runs each one's checks
// with run-checks and only then records it completed, since a role completes only on evidence the helper recorded),
// the reports, and the scheduler's final reason. Workflow scripts get no filesystem and may not call Date.now() or
// Math.random(); this one needs neither.
import { schedulerSource } from "../../lib/plan/scheduler.js";
import { MIN_PART } from "../../lib/attempts/reflexion.js";

export interface WorkflowInput {
  planPath: string;
  /** The project's absolute path: the scheduler places absolute scope paths with it. */
  root: string;
  goal: string;
  roles: unknown[];
  /** Per role index: the context of a role that completed before this run (its report's text), or absent. */
  priorContext: Record<string, string>;
  /** Per role index: the memories the lead chose for it (one line each). */
  memories: Record<string, string[]>;
  reportSchema: unknown;
}

const LOOP = String.raw`
const core = SCHEDULER();
const roles = PLAN.roles;
const updates = [];
const completions = [];
const reports = {};
const starts = [];
const context = Object.assign({}, PLAN.priorContext);
const earlier = {};
const inflight = new Map();
const held = new Map();
const fail = (code, message) => {
  throw new Error(code + ": " + message);
};

function record(u, agentName) {
  // A completion is not replayed: the role stays in_progress with its attempt open until run-checks proves it.
  if (u.status === "completed") completions.push({ roleIndex: u.roleIndex, agent: agentName, result: u.result });
  else updates.push(u);
  const parsed = {
    roleIndex: u.roleIndex,
    status: u.status,
    hasResult: Object.prototype.hasOwnProperty.call(u, "result"),
    result: u.result,
    model: u.model,
    agent: u.agent,
    stalled: u.stalled,
    reflexion: u.reflexion,
  };
  return core.apply(roles, [parsed], { fail });
}

const PARTS = ["rootCause", "wrongAssumptions", "alternative"];
const REFLEXION_SCHEMA = {
  type: "object",
  properties: {
    rootCause: { type: "string", minLength: MIN_PART, description: "What actually went wrong (not the symptom)" },
    wrongAssumptions: { type: "string", minLength: MIN_PART, description: "Which belief in the brief or the approach turned out false" },
    alternative: { type: "string", minLength: MIN_PART, description: "What different approach the next attempt takes" },
  },
  required: PARTS,
  additionalProperties: false,
};

/** The three parts, trimmed, when each says something and no two say the same; else null. */
function usable(r) {
  if (!r || typeof r !== "object") return null;
  const out = {};
  const seen = new Set();
  for (const k of PARTS) {
    const t = typeof r[k] === "string" ? r[k].trim() : "";
    if (t.length < MIN_PART || seen.has(t.toLowerCase())) return null;
    seen.add(t.toLowerCase());
    out[k] = t;
  }
  return out;
}

async function reflect(s) {
  const prev = s.replaces ? s.replaces.agent : "";
  const report = prev && reports[prev] ? JSON.stringify(reports[prev]) : "none";
  const prompt = [
    "You are reflecting on attempt " + (s.attempt - 1) + " of role " + s.roleIndex + " (\"" + s.name + "\") of the plan in " + PLAN.planPath + ", which did not succeed. Its brief is " + PLAN.planPath + " -> roles[" + s.roleIndex + "]. You change no file.",
    "How it ended: " + (earlier[s.roleIndex] || "failed"),
    "Its worker's report: " + report,
    "Answer as the structured output: rootCause (what actually went wrong, not the symptom), wrongAssumptions (which belief in the brief or the approach turned out false), alternative (what the next attempt does differently; the role's fallback is the first candidate). One or two specific sentences each.",
  ].join("\n\n");
  try {
    return usable(await agent(prompt, { label: s.agent + "-reflexion", phase: "Workers", schema: REFLEXION_SCHEMA, model: core.TIERS.includes(s.model) ? s.model : undefined }));
  } catch (err) {
    return null;
  }
}

function contextOf(report) {
  const parts = [];
  if (report && typeof report.contextForDependents === "string" && report.contextForDependents) parts.push(report.contextForDependents);
  if (report && Array.isArray(report.keyDecisions) && report.keyDecisions.length) parts.push("Key decisions: " + report.keyDecisions.join("; "));
  return parts.join("\n");
}

function judge(report, error) {
  if (report === null || report === undefined || typeof report !== "object") {
    return { status: "failed", stalled: true, result: "stalled: no report" + (error ? " (" + error + ")" : "") };
  }
  const criteria = Array.isArray(report.acceptanceCriteria) ? report.acceptanceCriteria : [];
  const failed = criteria.filter((c) => !c || c.passed !== true);
  if (report.achieved === true && criteria.length > 0 && failed.length === 0) {
    const files = Array.isArray(report.filesChanged) ? report.filesChanged.length : 0;
    return { status: "completed", result: "completed: " + criteria.length + " criteria passed, " + files + " files changed" };
  }
  const what = failed.map((c) => (c && typeof c.criterion === "string" ? c.criterion : "a criterion")).join("; ");
  return { status: "failed", result: "failed: " + (what || (criteria.length ? "not achieved" : "no criteria reported")) };
}

function prompt(s) {
  const deps = s.dependencies.map((d) => "- " + d.name + ": " + (context[d.roleIndex] || "(no context reported)")).join("\n");
  return [
    "You are " + s.agent + ", the worker for role " + s.roleIndex + " (\"" + s.name + "\") of the plan in " + PLAN.planPath + ".",
    "Overall goal: " + PLAN.goal,
    "Your brief is " + PLAN.planPath + " -> roles[" + s.roleIndex + "]: goal, scope, constraints, acceptanceCriteria, assumptions, rollbackTriggers, fallback, expertContext. Read it first.",
    "Context from roles you depend on:\n" + (deps || "none"),
    "Earlier attempt: " + (earlier[s.roleIndex] || (s.retry ? "a previous attempt did not succeed" : "first attempt")),
    "Past learnings:\n" + ((PLAN.memories[s.roleIndex] || []).map((m) => "- " + m).join("\n") || "none"),
    "Rules: work only inside your scope (directories and patterns); follow every constraint; if a blocking assumption proves false or a rollback trigger fires, stop, leave the code working and report achieved false; use the fallback if the first approach fails; do not edit " + PLAN.planPath + " or any file under .design/specs/.",
    "Before you report, run each acceptance criterion's check command exactly as written, as its own shell command, and record its exit code and decisive output line as evidence; then run your role's verification spec (plan.json verificationSpecs, if one names your role). achieved is true only when every check and the spec pass.",
    "Your final answer is your completion report (role, achieved, filesChanged, acceptanceCriteria with criterion/passed/evidence, keyDecisions, contextForDependents) as the structured output. Also write the same JSON to " + s.reportPath + ".",
  ].join("\n\n");
}

phase("Workers");
let decision = core.decide(roles, PLAN.root);
for (;;) {
  decision = core.decide(roles, PLAN.root);
  for (const s of decision.start) {
    if (held.has(s.roleIndex)) continue;
    const start = { roleIndex: s.roleIndex, status: "in_progress", model: s.model, agent: s.agent };
    if (s.retry) {
      const reflexion = await reflect(s);
      if (!reflexion) {
        held.set(s.roleIndex, s.name);
        log("no usable reflexion for " + s.agent + ": the lead retries " + s.name);
        continue;
      }
      start.reflexion = reflexion;
      earlier[s.roleIndex] = (earlier[s.roleIndex] || "failed") + "\n--- Retry " + s.attempt + " Reflexion ---\nRoot cause: " + reflexion.rootCause + "\nWrong assumptions: " + reflexion.wrongAssumptions + "\nAlternative: " + reflexion.alternative;
    }
    record(start, s.agent);
    starts.push({ roleIndex: s.roleIndex, agent: s.agent, model: s.model, attempt: s.attempt });
    log("start " + s.agent + " on " + s.model + (s.retry ? " (attempt " + s.attempt + ")" : ""));
    const opts = { label: s.agent, phase: "Workers", schema: REPORT_SCHEMA };
    if (core.TIERS.includes(s.model)) opts.model = s.model;
    const job = agent(prompt(s), opts).then(
      (report) => ({ s, report, error: "" }),
      (err) => ({ s, report: null, error: String((err && err.message) || err) }),
    );
    inflight.set(s.roleIndex, job);
  }
  if (inflight.size === 0) break;
  const { s, report, error } = await Promise.race(inflight.values());
  inflight.delete(s.roleIndex);
  const outcome = judge(report, error);
  if (report && typeof report === "object") reports[s.agent] = report;
  const u = { roleIndex: s.roleIndex, status: outcome.status, result: outcome.result };
  if (outcome.stalled) u.stalled = true;
  const effect = record(u, s.agent);
  if (outcome.status === "completed") context[s.roleIndex] = contextOf(report);
  else earlier[s.roleIndex] = outcome.result;
  log(s.agent + ": " + outcome.result);
  for (const c of effect.cascaded) log("skipped " + c.name + ": " + c.reason);
}
const waitingForLead = [...held.values()];
const reason = waitingForLead.length && !decision.done ? "retries left to the lead (no usable reflexion): " + waitingForLead.join(", ") : decision.reason;
log(reason);
return { done: decision.done && waitingForLead.length === 0, reason, updates, completions, starts, reports, statuses: roles.map(core.statusOf) };
`;

/**
 * Every character outside printable ASCII written as a \u escape (only string literals, regexes and comments can
 * hold one, where the escape means the same): the Workflow tool refuses a script with control or invisible
 * characters, which a plan's text could carry.
 */
function asciiOnly(text: string): string {
  return text.replace(/[^\x20-\x7e\n]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The whole script. `meta` stays a pure literal; the data follow as JSON literals. */
export function workflowScript(input: WorkflowInput): string {
  const meta = {
    name: "do-execute",
    description: "Build the plan in .design/plan.json: one worker agent per role, dependencies first, retries one model tier up",
    phases: [{ title: "Workers", detail: "one agent per role, in the order the do scheduler decides" }],
  };
  const plan = { planPath: input.planPath, root: input.root, goal: input.goal, roles: input.roles, priorContext: input.priorContext, memories: input.memories };
  const text = [
    "// Generated by the do plugin's helper (`workflow`) from plan.json. Do not edit: regenerate it.",
    `export const meta = ${JSON.stringify(meta, null, 2)};`,
    "",
    "// Bundlers may wrap functions in __name(); a no-op keeps the embedded scheduler self-contained.",
    "var __name = (fn) => fn;",
    `const PLAN = ${JSON.stringify(plan)};`,
    `const REPORT_SCHEMA = ${JSON.stringify(input.reportSchema)};`,
    `const SCHEDULER = ${schedulerSource()};`,
    `const MIN_PART = ${MIN_PART};`,
    LOOP,
  ].join("\n");
  return asciiOnly(text);
}
