// run-begin: one call that opens a skill run. It reads what the skill's pre-flight used to ask for one call at a
// time (the plan's state and summary, an earlier run and whether it can be resumed, the health of .design/, the
// lifecycle context, for execute git's status) and then starts, resumes or declines to start the run, answering
// `action`:
//   start        a run was started (`restartedBecause` when an earlier one could not be resumed and was archived);
//   ask-resume   an earlier run can be resumed and neither --resume nor --fresh was given: nothing written;
//   resumed      --resume on a resumable run;
//   no-plan / invalid-plan   execute without a usable plan.json: a run is started and closed as aborted (goal
//                `no plan`, a reflection recorded), so the lead only tells the user;
//   finished     execute on a plan with no work left whose last run closed: nothing started, nothing re-verified.
// For execute it also does the rest of the pre-flight: interrupted roles back to pending (resume-reset), the run's
// budget (--budget), the pre-flight checkpoint, and, when no work is left, the skipped checkpoints of challenge,
// grant and workers, so the run goes on at verify.
import { crashPoint } from "../../base/crash-point.js";
// For design, recon and improve, reflect (issue 30) a start also does what their pre-flights asked for call by call:
// a finished plan goes to history (design, improve, reflect: nobody wants it), earlier expert artifacts are set aside
// (design, recon, improve: archive --only experts' rule), the goal's memories come with the answer (`memories`,
// memory-search's ranking), design gets recon.json's summary (`recon`), and a resume names the refs to read first
// (`resume.refs`). recon's pre-flight is recorded here; the other skills' phases by the calls that produce them.
// Why one file: its pieces (opening, endWithoutPlan, choose, resetPlan, executeFacts, startExtras) are the steps of one
// call in their order, sharing what `opening` read; apart, each would be a module of one caller.
import { join } from "node:path";
import { defineCommand, type Context } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { refuseWhileGranted, END_GRANT_FLAG } from "../../lib/grant/grant-hold.js";
import { lifecycle } from "../../lib/plan/lifecycle.js";
import { guardPlan, PLAN_PATH, rolesOf, str, type Json } from "../../lib/plan/plan.js";
import { updatePlan } from "../../lib/plan/plan-update.js";
import { neededReports, openRun } from "../../lib/run/run-open.js";
import {
  checkSkill, describeRun, list, nextPhase, parseRun, readRun, runFile, runFileName, SKILL_INPUTS, SKILL_PHASES, type RunState,
  type Skill,
} from "../../lib/run/run-state.js";
import { schedulerCore } from "../../lib/plan/scheduler.js";
import { isObject, isoSeconds } from "../../lib/values.js";
import {
  MAX_STATE_BYTES, pathKind, projectRoots, readConfined, readJson, readJsonl, readText, updateText, type JsonRead,
} from "../../store.js";
import { standing } from "./budget.js";
import { planSummary } from "../plan/summary.js";
import { appendReflection, recordedReflection } from "../reflection/add.js";
import { completeRun } from "./complete.js";
import { resumeRefs } from "../../lib/run/resume-refs.js";
import { recordPhases } from "../../lib/run/run-record.js";
import { archiveDesign } from "../workspace/archive.js";
import { healthOf } from "../workspace/health-check.js";
import { digestPlan } from "../workspace/preflight.js";

const DESIGN = ".design";
/** Execute's phases a run with no work left skips (checkpointed as skipped) on its way to verify. */
const SKIPPED_WITHOUT_WORK = ["challenge", "grant", "workers"];

type Action = "start" | "ask-resume" | "resumed" | "no-plan" | "invalid-plan" | "finished";

/** Append checkpoints for `phases` that come next in order (each only while it is the run's next phase). */
async function checkpoint(cwd: string, skill: Skill, entries: Array<{ phase: string; decisions: string }>, now: number): Promise<string[]> {
  const path = runFile(cwd, DESIGN, skill);
  return updateText<string[]>(path, (text) => {
    if (text === null) throw new HelperError("E_NOT_FOUND", `No ${skill} run in progress`);
    const run = parseRun(text, `${DESIGN}/${runFileName(skill)}`);
    const done: string[] = [];
    for (const e of entries) {
      if (run.completedAt !== null || nextPhase(run) !== e.phase) continue;
      run.completed.push({ phase: e.phase, at: isoSeconds(now), outputs: [], decisions: e.decisions });
      done.push(e.phase);
    }
    if (done.length === 0) return { text: null, result: done };
    run.updatedAt = isoSeconds(now);
    return { text: `${JSON.stringify(run, null, 2)}\n`, result: done };
  }, undefined, undefined, MAX_STATE_BYTES);
}

/** The plan as a guarded document, or why it cannot be used. */
function usablePlan(read: JsonRead): { plan: Json } | { problem: string } {
  const digest = digestPlan(read);
  if (digest.state === "none") return { problem: "none" };
  if (digest.state === "invalid" || read.kind !== "ok") return { problem: digest.error ?? "invalid" };
  try {
    return { plan: guardPlan(read.value, ["auxiliaryRoles", "progress"]) };
  } catch (err) {
    return { problem: (err as Error).message };
  }
}

/** Whether the plan has work left: a role running or the scheduler not done (retryable failures are work). */
function workLeft(plan: Json, root: string): { work: boolean; reason: string } {
  const roles = rolesOf(plan);
  const core = schedulerCore();
  const decision = core.decide(roles, root);
  return { work: roles.some((r) => core.statusOf(r) === "in_progress") || !decision.done, reason: decision.reason };
}

function summaryOf(plan: Json) {
  const s = planSummary(plan);
  return { goal: s.goal, roles: s.roleCount, depth: s.maxDepth, modelMix: s.modelDistribution, auxiliaryRoles: s.auxiliaryRoles, depthSummary: s.depthSummary, cost: s.cost };
}

/** A missing plan is execute's problem only: the other skills plan, research or learn without one. */
function withoutPlanAdvice<T extends { issues: string[] }>(execute: boolean, h: T): T {
  return execute ? h : { ...h, issues: h.issues.filter((i) => !i.startsWith("plan.json not found")) };
}

/** Skills whose pre-flight sets earlier expert artifacts aside; skills that write a plan (a finished one goes). */
const EXPERT_SKILLS: readonly Skill[] = ["design", "recon", "improve"];
const PLAN_WRITERS: readonly Skill[] = ["design", "improve", "reflect"];
const MEMORY_LIMIT: Partial<Record<Skill, number>> = { design: 5, recon: 3, improve: 5 };

/** What a design, recon, improve or reflect run gets besides its state: see the header. */
async function startExtras(ctx: Context, skill: Skill, goal: string, action: Action, now: number, endGrant: unknown): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const cwd = ctx.cwd;
  if (action === "start") {
    const archived: string[] = [];
    const plan = digestPlan(readConfined(cwd, join(projectRoots(cwd).design, "plan.json"), readJson));
    if (PLAN_WRITERS.includes(skill) && plan.state === "done") {
      const r = await archiveDesign(ctx, { endGrant });
      if ("archived" in r) archived.push(...(r.archived as string[]));
    }
    if (EXPERT_SKILLS.includes(skill)) {
      // Recon's own researchers write the names recon.json cites: its run sets them aside too (--include-recon).
      const r = await archiveDesign(ctx, { only: "experts", includeRecon: skill === "recon", endGrant });
      if ("archived" in r) archived.push(...(r.archived as string[]));
    }
    if (archived.length) out.setAside = archived;
  }
  const limit = MEMORY_LIMIT[skill];
  if (limit !== undefined && goal !== "") {
    const search = (await import("../memory/search.js")).default;
    try {
      const found = (await search.run(ctx, { memory_path: `${DESIGN}/memory.jsonl`, goal, limit })) as { memories: Array<Record<string, unknown>> };
      out.memories = found.memories.map((m) => ({ id: m.id, category: m.category, content: m.content, importance: m.importance }));
    } catch {
      out.memories = [];
    }
  }
  if (skill === "design" && pathKind(join(projectRoots(cwd).design, "recon.json")) === "file") {
    const summary = (await import("../recon/summary.js")).default;
    try {
      out.recon = await summary.run(ctx, { recon_path: `${DESIGN}/recon.json` });
    } catch (err) {
      out.recon = { error: (err as Error).message };
    }
  }
  if (skill === "recon" && action === "start") {
    const n = Array.isArray(out.memories) ? out.memories.length : 0;
    const rec = await recordPhases(cwd, "recon", "pre-flight", now, `${n} memories`);
    if (rec) out.checkpoint = rec.announce;
  }
  return out;
}

/** What run-begin read before deciding anything: the skill, the plan, the earlier run, and the facts it reports. */
interface Opening {
  ctx: Context;
  skill: Skill;
  cwd: string;
  now: number;
  project: string;
  design: string;
  execute: boolean;
  phases: string[];
  usable: ReturnType<typeof usablePlan>;
  plan: Json | null;
  goal: string;
  inputs: string[];
  runRead: ReturnType<typeof readRun>;
  prior: RunState | null;
  open: boolean;
  /** .design/'s health and the lifecycle context, read when called (after the call's writes). */
  facts: () => Record<string, unknown>;
}

function opening(ctx: Context, skill: Skill, args: Record<string, unknown>): Opening {
  const cwd = ctx.cwd;
  const now = ctx.now();
  const { project, design } = projectRoots(cwd);
  const execute = skill === "execute";
  const planRead: JsonRead = readConfined(cwd, join(design, "plan.json"), readJson);
  const usable = usablePlan(planRead);
  const plan = "plan" in usable ? usable.plan : null;
  const runRead = readRun(runFile(cwd, DESIGN, skill, "read"));
  const prior: RunState | null = runRead.kind === "ok" ? runRead.run : null;
  const facts = () => {
    const read = <T>(name: string, reader: (p: string) => T) => readConfined(cwd, join(design, name), reader);
    const designKind = pathKind(design);
    return {
      health: designKind === "directory" ? withoutPlanAdvice(execute, (({ healthy: _h, ...f }) => f)(healthOf(cwd, design, now))) : { issues: [], warnings: [] },
      lifecycle: lifecycle(read("handoff.md", readText), read("reflection.jsonl", readJsonl), planRead),
    };
  };
  return {
    ctx, skill, cwd, now, project, design, execute, usable, plan, runRead, prior, facts,
    phases: [...SKILL_PHASES[skill]],
    goal: execute ? (plan ? str(plan.goal) : "no plan") : (args.goal as string).trim(),
    inputs: [...new Set([...SKILL_INPUTS[skill], ...list(args.inputs)])],
    open: prior !== null && prior.completedAt === null,
  };
}

/** execute without a usable plan: a run opened and closed as aborted, so the lead only tells the user. */
async function endWithoutPlan(o: Opening): Promise<Record<string, unknown>> {
  const { cwd, skill, prior, open, now, phases, usable } = o;
  const action: Action = "problem" in usable && usable.problem === "none" ? "no-plan" : "invalid-plan";
  const problem = "problem" in usable ? usable.problem : "";
  const evaluation = {
    summary: action === "no-plan" ? "No plan to execute" : `plan.json cannot be executed: ${problem}`,
    whatWorked: [],
    whatFailed: [],
    doNextTime: [action === "no-plan" ? "Run /do:design <goal> before /do:execute" : "Re-run /do:design to write a valid plan"],
    minimal: true,
  };
  // Safe to repeat. A call killed before it closed its run left it open, unchecked, goal "no plan": the retry
  // ends that run (its reflection keyed by its id) instead of opening a second one. While the last run is such
  // a run, closed, for the same reason (its reflection says so), the answer is that run again with the report
  // rewritten: a call killed before its report, or before it answered, adds no second aborted run.
  const left = open && prior !== null && prior.goal === "no plan" && prior.completed.length === 0 ? prior : null;
  const earlier = !open && prior !== null && prior.goal === "no plan" && prior.outcome === "aborted" ? recordedReflection(cwd, skill, prior.runId) : null;
  const ended = earlier && isObject(earlier.evaluation) && earlier.evaluation.summary === evaluation.summary ? earlier : null;
  const opened = ended || left ? (prior as RunState) : await openRun(cwd, { skill, phases, goal: "no plan", inputs: [], fresh: true, designDir: DESIGN, now, archiveBroken: true });
  crashPoint("run-begin:opened");
  const reflection = ended ?? (await appendReflection(cwd, ".design/reflection.jsonl", { skill, goal: "no plan", outcome: "aborted", goalAchieved: false, evaluation, runId: opened.runId }, now));
  crashPoint("run-begin:reflected");
  if (!ended) await completeRun(cwd, DESIGN, skill, "aborted", now);
  crashPoint("run-begin:closed");
  // Every run ends with its report (issue 19), this one too: the aborted run, why, and the history.
  const { writeReport } = await import("../plan/report.js");
  const r = await writeReport(cwd, `${DESIGN}/plan.json`, now);
  return {
    action,
    report: { path: r.path, link: r.url, summary: r.summary.split("\n") },
    announce: action === "no-plan" ? "execute: no plan: run /do:design <goal> first" : `execute: plan.json is invalid (${problem}): run /do:design again`,
    run: { runId: opened.runId, phases, nextPhase: null, closed: true, outcome: "aborted" },
    reflection: { id: reflection.id },
    ...(action === "invalid-plan" ? { error: problem } : {}),
    resetRoles: [],
    noWorkRemaining: true,
    ...o.facts(),
  };
}

/** execute on a finished plan whose last run closed: the answer that starts nothing, or null when work is left. */
function finishedAnswer(o: Opening, plan: Json): Record<string, unknown> | null {
  const left = workLeft(plan, o.project);
  if (left.work) return null;
  const prior = o.prior;
  return {
    action: "finished" as Action,
    announce: `execute: the plan is finished (${left.reason}): nothing to run; /do:reflect to learn from it or /do:design for a new goal`,
    run: prior ? { runId: prior.runId, phases: prior.phases, nextPhase: null, closed: true, outcome: prior.outcome } : null,
    resetRoles: [],
    noWorkRemaining: true,
    reason: left.reason,
    summary: summaryOf(plan),
    ...o.facts(),
  };
}

/** An earlier unfinished run: ask (the answer, nothing written), resume, or start over (why, when it is archived). */
function choose(o: Opening, fresh: boolean, resume: boolean): { answer: Record<string, unknown> } | { action: Action; restartedBecause?: string } {
  const { runRead, open, prior, skill } = o;
  if (runRead.kind === "broken") return { action: "start", restartedBecause: `the earlier run's state cannot be read (${runRead.error})` };
  if (!open || prior === null) return { action: "start" };
  const d = describeRun(prior, o.cwd, o.now, o.goal);
  const resumable = !d.inputsChanged && d.missingOutputs.length === 0;
  const why = [...d.changed.map((c) => `${c} changed`), ...d.missingOutputs.map((m) => `${m} is gone`)].join(", ");
  if (!fresh && !resumable) return { action: "start", restartedBecause: `the earlier run cannot be resumed: ${why}` };
  if (!fresh && !resume) {
    return {
      answer: {
        action: "ask-resume" as Action,
        announce: `${skill}: an interrupted run stopped after ${d.lastPhase ?? "its start"} ${d.age} ago: ask the user "Resume from ${d.nextPhase}?", then call run-begin again with --resume or --fresh`,
        run: { runId: prior.runId, phases: prior.phases, nextPhase: d.nextPhase },
        resume: { nextPhase: d.nextPhase, lastPhase: d.lastPhase, age: d.age, outputs: d.outputs, decisions: d.decisions },
        ...(o.execute && o.plan ? { summary: summaryOf(o.plan) } : {}),
        ...o.facts(),
      },
    };
  }
  return { action: resume ? "resumed" : "start" };
}

interface PlanReset {
  resetRoles: Array<{ roleIndex: number; name: string }>;
  noWorkRemaining: boolean;
  reason: string;
  toRun: number;
  planAfter: Json | null;
}

/** execute's resume-reset and the budget, in one locked write of plan.json. */
async function resetPlan(o: Opening, budget: number | undefined, runId: string): Promise<PlanReset> {
  const out: PlanReset = { resetRoles: [], noWorkRemaining: false, reason: "", toRun: 0, planAfter: o.plan };
  if (!o.execute || !o.plan) return out;
  out.planAfter = await updatePlan<Json>(o.cwd, PLAN_PATH.default, ["auxiliaryRoles", "progress"], (doc) => {
    const roles = rolesOf(doc);
    const core = schedulerCore();
    roles.forEach((role, i) => {
      if (role.status !== "in_progress") return;
      core.interrupt(roles, i);
      out.resetRoles.push({ roleIndex: i, name: str(role.name) });
    });
    if (budget !== undefined) {
      if (!isObject(doc.progress)) doc.progress = {};
      const progress = doc.progress as Json;
      if (budget === 0) delete progress.budget;
      else progress.budget = { tokens: budget, runId, setAt: isoSeconds(o.now) };
    }
    const decision = core.decide(roles, o.project);
    out.noWorkRemaining = decision.done;
    out.reason = decision.reason;
    out.toRun = roles.filter((r) => core.statusOf(r) !== "completed" && core.permanentReason(r) === "").length;
    return { write: out.resetRoles.length > 0 || budget !== undefined, result: doc };
  });
  return out;
}

/** execute's git status and budget in the answer (and the announcement's git line). */
async function executeFacts(o: Opening, out: Record<string, unknown>, planAfter: Json, budget: number | undefined, runId: string): Promise<void> {
  out.summary = summaryOf(planAfter);
  const { gitStatus } = await import("../../lib/git/git-status.js");
  const git = gitStatus(o.project);
  out.git = git;
  const gitLine = !git.repo
    ? `not a git repository${git.error ? ` (${git.error})` : ""}: nothing will be committed`
    : git.dirtyCount > 0 ? `the work tree has ${git.dirtyCount} changed file(s) outside .design/: commits leave them alone` : "";
  if (gitLine) out.announce = `${out.announce as string} · ${gitLine}`;
  const b = standing(planAfter, o.design, runId);
  if (b.budget || budget !== undefined) out.budget = { ...b, set: budget !== undefined };
}

export default defineCommand({
  positionals: [{ name: "skill", help: "design | execute | recon | improve | reflect" }],
  flags: {
    fresh: { type: "boolean", help: "start over: archive an unfinished run of the skill (and its recorded outputs) first" },
    resume: { type: "boolean", help: "resume the unfinished run of the skill (started anew when it cannot be resumed)" },
    budget: { type: "int", help: "execute: the run's token budget (0 removes it)" },
    goal: { type: "string", help: "the run's goal or arguments (execute takes the plan's goal)", default: "" },
    inputs: { type: "string", help: "comma-separated input files to hash besides the skill's own", default: "", path: "read", list: true },
    "end-grant": END_GRANT_FLAG,
  },
  async run(ctx, args) {
    const skill = checkSkill("run-begin", args.skill as string);
    const fresh = args.fresh === true;
    const resume = args.resume === true;
    if (fresh && resume) throw new HelperError("E_USAGE", "run-begin: --fresh and --resume exclude each other");
    const budget = args.budget as number | undefined;
    if (budget !== undefined && budget < 0) throw new HelperError("E_USAGE", "run-begin: --budget must be 0 or more");
    if (budget !== undefined && skill !== "execute") throw new HelperError("E_USAGE", "run-begin: --budget is for execute only");
    const o = opening(ctx, skill, args);
    const { cwd, now, execute, plan, prior, open, runRead, goal } = o;

    if (execute && plan === null) return endWithoutPlan(o);
    if (execute && plan !== null && !open && runRead.kind !== "broken") {
      const finished = finishedAnswer(o, plan);
      if (finished) return finished;
    }
    const chosen = choose(o, fresh, resume);
    if ("answer" in chosen) return chosen.answer;
    const { action, restartedBecause } = chosen;

    let runId: string;
    let runPhases: string[];
    let opened: Awaited<ReturnType<typeof openRun>> | null = null;
    if (action === "resumed") {
      runId = (prior as RunState).runId;
      runPhases = (prior as RunState).phases;
    } else {
      if (open || runRead.kind === "broken") refuseWhileGranted(ctx, args["end-grant"], "starting the run over");
      opened = await openRun(cwd, { skill, phases: o.phases, goal, inputs: o.inputs, fresh: true, designDir: DESIGN, now, archiveBroken: true, keep: plan ? neededReports(plan) : new Set() });
      runId = opened.runId;
      runPhases = o.phases;
      crashPoint("run-begin:opened");
    }

    const out: Record<string, unknown> = { action };
    const { resetRoles, noWorkRemaining, reason, toRun, planAfter } = await resetPlan(o, budget, runId);

    crashPoint("run-begin:plan-reset");
    // The pre-flight checkpoint (execute), and the phases a run without work skips.
    let skippedPhases: string[] = [];
    let checkpointed: string[] = [];
    if (execute && plan) {
      const entries = [{ phase: "pre-flight", decisions: `${resetRoles.length} roles reset, ${toRun} to run` }];
      if (noWorkRemaining) for (const phase of SKIPPED_WITHOUT_WORK) entries.push({ phase, decisions: "skipped: no work remaining" });
      checkpointed = await checkpoint(cwd, skill, entries, now);
      skippedPhases = checkpointed.filter((p) => p !== "pre-flight");
    }
    const state = readRun(runFile(cwd, DESIGN, skill, "read"));
    const next = state.kind === "ok" ? nextPhase(state.run) : null;

    out.announce = [
      action === "resumed" ? `${skill}: run resumed · next: ${next}` : `${skill}: run started (${runPhases.length} phases) · next: ${next}`,
      ...(restartedBecause ? [`started over because ${restartedBecause}`] : []),
      ...(resetRoles.length ? [`${resetRoles.length} interrupted role(s) back to pending: ${resetRoles.map((r) => r.name).join(", ")}`] : []),
      ...(noWorkRemaining ? [`no work remaining (${reason}): ${skippedPhases.length ? `skipped ${skippedPhases.join(", ")}` : "nothing skipped"}`] : []),
    ].join(" · ");
    out.run = { runId, phases: runPhases, nextPhase: next };
    // The live report (issue 29): written now, kept current by the commands that change the run's state while it
    // is open (commands/run/live-report.ts), reloading itself in the user's browser.
    if (execute && planAfter && !noWorkRemaining) {
      const { writeReport } = await import("../plan/report.js");
      const r = await writeReport(cwd, `${DESIGN}/plan.json`, now);
      if (r.url) {
        out.report = { path: r.path, link: r.url, live: true };
        out.announce = `${out.announce as string} · live report: ${r.url}`;
      }
    }
    if (action === "resumed" && prior) {
      const d = describeRun(prior, cwd, now, goal);
      const refs = resumeRefs(prior, next);
      out.resume = { nextPhase: next, lastPhase: d.lastPhase, age: d.age, outputs: d.outputs, decisions: d.decisions, ...(refs ? { refs } : {}) };
    }
    if (restartedBecause) out.restartedBecause = restartedBecause;
    if (opened?.archivedTo) {
      out.archivedTo = opened.archivedTo;
      out.archivedOutputs = opened.archivedOutputs;
      out.keptOutputs = opened.keptOutputs;
    }
    if (opened?.missingInputs.length) out.missingInputs = opened.missingInputs;
    if (execute) Object.assign(out, { resetRoles, noWorkRemaining, reason, checkpointed, skippedPhases });
    Object.assign(out, o.facts());
    if (execute && planAfter) await executeFacts(o, out, planAfter, budget, runId);
    else if (!execute) {
      Object.assign(out, await startExtras(ctx, skill, goal, action, now, args["end-grant"]));
      const after = readRun(runFile(cwd, DESIGN, skill, "read"));
      if (after.kind === "ok") (out.run as Record<string, unknown>).nextPhase = nextPhase(after.run);
      out.plan = digestPlan(readConfined(cwd, join(o.design, "plan.json"), readJson));
    }
    return out;
  },
});
