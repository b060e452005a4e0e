// run-complete: mark a skill run finished; its state is then archived with the run's other artifacts. Seed 003's
// completion rule: a run is `completed` only when every declared phase before the last was checkpointed; another
// outcome (partial, failed, aborted) closes the run anyway and records the phases it never reached.
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { checkSkill, designDirFlag, parseRun, runFile, runFileName, SKILL_PHASES, SKILLS, type Skill } from "../../lib/run/run-state.js";
import { isoSeconds } from "../../lib/values.js";
import { MAX_STATE_BYTES, pathKind, updateText } from "../../store.js";

const OUTCOMES = ["completed", "partial", "failed", "aborted"] as const;

export default defineCommand({
  positionals: [{ name: "skill", help: "design | execute | recon | improve | reflect" }],
  flags: {
    outcome: { type: "string", choices: OUTCOMES, default: "completed", help: "how the run ended" },
    "design-dir": designDirFlag("write"),
  },
  async run(ctx, args) {
    const skill = checkSkill("run-complete", args.skill as string);
    return completeRun(ctx.cwd, args["design-dir"] as string, skill, args.outcome as string, ctx.now());
  },
});

/** The phases before the last that were never checkpointed (the last is the one a run closes, an early stop included). */
export function phasesNotReached(run: { phases: string[]; completed: Array<{ phase: string }> }): string[] {
  const done = new Set(run.completed.map((c) => c.phase));
  return run.phases.slice(0, -1).filter((p) => !done.has(p));
}

/**
 * What outcome `completed` still lacks: the phases not reached, and, for a run whose list is not its skill's
 * declared one (SKILL_PHASES: an older state, a list of none of them), the declared phases before the last never
 * checkpointed, so no run closes as completed without the phases its skill declares.
 */
export function phasesMissingForCompleted(run: { skill: string; phases: string[]; completed: Array<{ phase: string }> }): string[] {
  const own = phasesNotReached(run);
  if (!(SKILLS as readonly string[]).includes(run.skill)) return own;
  const declared = SKILL_PHASES[run.skill as Skill];
  if (run.phases.length === declared.length && run.phases.every((p, i) => p === declared[i])) return own;
  const done = new Set(run.completed.map((c) => c.phase));
  return [...own, ...declared.slice(0, -1).filter((p) => !done.has(p) && !own.includes(p))];
}

/** The refusal of outcome `completed` while `phases` were never checkpointed (`verb`: the command's word for closing). */
export function cannotComplete(skill: string, phases: string[], verb: "close" | "end"): HelperError {
  return new HelperError(
    "E_INVALID",
    `Cannot complete the ${skill} run: phases never checkpointed: ${phases.join(", ")}. Checkpoint them, or ${verb} the run with --outcome partial, failed or aborted`,
    { skippedPhases: phases },
  );
}

/** Close the open run of `skill` with `outcome` (an already closed one is left as it is: `alreadyComplete`). */
export function completeRun(cwd: string, designDir: string, skill: string, outcome: string, now: number): Promise<Record<string, unknown>> {
  const path = runFile(cwd, designDir, skill);
  if (pathKind(path) === "missing") throw new HelperError("E_NOT_FOUND", `No ${skill} run in progress: call run-start first`);
  return updateText<Record<string, unknown>>(path, (text) => {
    if (text === null) throw new HelperError("E_NOT_FOUND", `No ${skill} run in progress: call run-start first`);
    const run = parseRun(text, `${designDir}/${runFileName(skill)}`);
    if (run.completedAt !== null) {
      return { text: null, result: { skill, outcome: run.outcome, skippedPhases: [], alreadyComplete: true, announce: `${skill}: run already finished (${run.outcome})` } };
    }
    const skippedPhases = phasesNotReached(run);
    const missing = outcome === "completed" ? phasesMissingForCompleted(run) : [];
    if (missing.length) throw cannotComplete(skill, missing, "close");
    run.completedAt = isoSeconds(now);
    if (skippedPhases.length) run.skippedPhases = skippedPhases;
    run.updatedAt = run.completedAt;
    run.outcome = outcome;
    const announce = `${skill}: run ${run.outcome}${skippedPhases.length ? ` · phases not reached: ${skippedPhases.join(", ")}` : ""}`;
    return { text: `${JSON.stringify(run, null, 2)}\n`, result: { skill, outcome: run.outcome, skippedPhases, alreadyComplete: false, announce } };
  }, undefined, undefined, MAX_STATE_BYTES);
}
