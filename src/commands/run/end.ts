// run-end: one call that closes a skill run: the run's reflection (reflection-add, with the evaluation file or, when
// there is none, a minimal one saying how the run ended), the run state closed with the outcome (run-complete), and,
// for execute and any skill whose project has a plan, the report (.design/report.html and its terminal summary).
// An execute run's close also prunes the snapshot objects no attempt its plan records can need (`snapshotsPruned`).
// Everything that could refuse is checked before the first write: a run that is not open, `completed` with phases
// never checkpointed, an unreadable evaluation all leave every file as it was.
// Keyed by the run: the reflection carries the run's id, so a repeat (the answer lost, a kill between the two writes)
// adds no second reflection: a run already closed answers `alreadyClosed` with the reflection it has, and an open
// run whose reflection is already written is only closed.
import { join, resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { checkSkill, readRun, reportSinceRunState, runFile } from "../../lib/run/run-state.js";
import { crashPoint } from "../../base/crash-point.js";
import { confine, pathKind, projectRoots, readConfined, readJson } from "../../store.js";
import { OWN } from "../../base/owned.js";
import { pruneSnapshots, type Pruned } from "../../lib/git/snapshot-prune.js";
import { writeReport } from "../plan/report.js";
import { appendReflection, recordedReflection } from "../reflection/add.js";
import { EVALUATION_FIELDS, evaluationProblems, OUTCOMES } from "../reflection/evaluation.js";
import { cannotComplete, completeRun, phasesMissingForCompleted, phasesNotReached } from "./complete.js";

const DESIGN = ".design";
const YES = ["true", "1", "yes"];
const NO = ["false", "0", "no"];

/** The evaluation file as an object, or the refusal naming what is wrong with it. */
function readEvaluation(cwd: string, path: string): Record<string, unknown> {
  const r = readConfined(cwd, resolve(cwd, path), readJson);
  if (r.kind === "missing") throw new HelperError("E_NOT_FOUND", `Evaluation file not found: ${path}`);
  if (r.kind === "error") throw new HelperError("E_READ", `Error reading evaluation file ${path}: ${r.detail}`);
  if (r.kind === "invalid") throw new HelperError("E_JSON", `Invalid JSON in evaluation file ${path}: ${r.detail}`);
  const v = r.value;
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new HelperError("E_SCHEMA", `Evaluation must be a JSON object: ${path}`);
  return v as Record<string, unknown>;
}

export default defineCommand({
  positionals: [{ name: "skill", help: "design | execute | recon | improve | reflect" }],
  flags: {
    outcome: { type: "string", required: true, choices: OUTCOMES, help: "how the run ended" },
    "goal-achieved": { type: "string", help: "true or false (default: true only for outcome completed)" },
    eval: { type: "string", path: "read", help: "the evaluation file (e.g. .design/tmp/eval.json); without it a minimal evaluation is recorded" },
    goal: { type: "string", help: "the run's goal for the reflection (default: the goal the run started with)", default: "" },
  },
  async run(ctx, args) {
    const skill = checkSkill("run-end", args.skill as string);
    const outcome = args.outcome as string;
    const given = ((args["goal-achieved"] as string | undefined) ?? "").trim().toLowerCase();
    if (given !== "" && !YES.includes(given) && !NO.includes(given)) {
      throw new HelperError("E_USAGE", `run-end: --goal-achieved must be true or false, got '${args["goal-achieved"] as string}'`);
    }
    const goalAchieved = given === "" ? outcome === "completed" : YES.includes(given);
    const now = ctx.now();

    // Everything that can refuse, before anything is written.
    const state = readRun(runFile(ctx.cwd, DESIGN, skill, "read"));
    if (state.kind === "none") throw new HelperError("E_NOT_FOUND", `No ${skill} run in progress: call run-begin first`);
    if (state.kind === "broken") throw new HelperError("E_SCHEMA", state.error);
    const run = state.run;
    if (run.completedAt !== null) {
      const earlier = recordedReflection(ctx.cwd, skill, run.runId);
      // A run-end killed after closing the run, before its report was written, is finished by its retry: the same
      // outcome, this run's reflection on file, and no report written since the close. Any other repeat of a closed
      // run is answered as it stands, nothing recorded again.
      const recorded = run.outcome === outcome && !reportSinceRunState(ctx.cwd, skill) ? earlier : null;
      if (recorded) {
        const out: Record<string, unknown> = {
          reflection: { id: recorded.id, goalAchieved: recorded.goalAchieved, alreadyRecorded: true },
          run: { runId: run.runId, closed: true, outcome, skippedPhases: run.skippedPhases ?? [] },
          announce: `${skill}: run ${outcome} (already ended; its report written again)`,
          alreadyEnded: true,
        };
        return addReport(ctx.cwd, skill, out, now);
      }
      return {
        alreadyClosed: true,
        reflection: earlier ? { id: earlier.id, goalAchieved: earlier.goalAchieved } : null,
        run: { runId: run.runId, closed: true, outcome: run.outcome, skippedPhases: run.skippedPhases ?? [] },
        announce: `${skill}: run already closed (${run.outcome}): nothing recorded again`,
      };
    }
    const notReached = phasesNotReached(run);
    const lacking = outcome === "completed" ? phasesMissingForCompleted(run) : [];
    if (lacking.length) throw cannotComplete(skill, lacking, "end");
    const evalPath = args.eval as string | undefined;
    const evaluation = evalPath !== undefined && evalPath !== ""
      ? readEvaluation(ctx.cwd, evalPath)
      : {
          summary: `${skill} run ${outcome}${notReached.length ? `; phases not reached: ${notReached.join(", ")}` : ""}`,
          whatWorked: [],
          whatFailed: [],
          doNextTime: [],
          minimal: true,
        };
    const { missing, notArrays } = evaluationProblems(evaluation);
    const warnings = EVALUATION_FIELDS.filter((f) => missing.includes(f) || notArrays.includes(f)).map((f) => `evaluation missing array field: ${f}`);
    const goal = (args.goal as string).trim() || run.goal.trim() || (skill === "execute" ? "no plan" : skill);

    // Three steps, each safe to repeat: the reflection is keyed by the run's id (a retry after a kill finds it and
    // adds none), the close and the report are whole-file writes.
    const reflection = await appendReflection(ctx.cwd, `${DESIGN}/reflection.jsonl`, { skill, goal, outcome, goalAchieved, evaluation, runId: run.runId }, now);
    crashPoint("run-end:reflected");
    const closed = await completeRun(ctx.cwd, DESIGN, skill, outcome, now);
    crashPoint("run-end:closed");
    const pruned = skill === "execute" ? pruneExecuteSnapshots(ctx.cwd) : null;
    const out: Record<string, unknown> = {
      reflection: {
        id: reflection.id, goalAchieved: reflection.goalAchieved, ...(reflection.alreadyRecorded ? { alreadyRecorded: true } : {}),
        ...(reflection.cost ? { cost: reflection.cost } : {}), ...(warnings.length ? { warnings } : {}),
      },
      run: { runId: run.runId, closed: true, outcome, skippedPhases: closed.skippedPhases },
      announce: closed.announce,
      ...(pruned && pruned.objects > 0 ? { snapshotsPruned: pruned } : {}),
    };
    return addReport(ctx.cwd, skill, out, now);
  },
});

/**
 * The snapshot objects no attempt the plan records can need, removed (lib/git/snapshot-prune.ts); a plan that cannot
 * be read keeps them all. Never fails the close: the run is already closed when this runs.
 */
function pruneExecuteSnapshots(cwd: string): Pruned | null {
  try {
    const { design } = projectRoots(cwd);
    confine(cwd, "the snapshot folder .design/snapshots", join(design, "snapshots"), "write", OWN.snapshots);
    const plan = readConfined(cwd, join(design, "plan.json"), readJson);
    if (plan.kind !== "ok") return null;
    return pruneSnapshots(design, plan.value);
  } catch {
    return null;
  }
}

/** For execute and any skill whose project has a plan: the report, written, and its summary in `out`. */
async function addReport(cwd: string, skill: string, out: Record<string, unknown>, now: number): Promise<Record<string, unknown>> {
  const { design } = projectRoots(cwd);
  if (skill === "execute" || pathKind(join(design, "plan.json")) === "file") {
    const r = await writeReport(cwd, `${DESIGN}/plan.json`, now);
    out.report = { path: r.path, link: r.url, summary: r.summary.split("\n"), state: r.state, ...(r.problems.length ? { problems: r.problems } : {}) };
  }
  return out;
}
