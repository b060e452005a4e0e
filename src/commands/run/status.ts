// run-status: describe a skill's run: where it stopped, how old the last checkpoint is, and whether its inputs
// (goal text, hashed input files) changed since it started, and which refs a resumed session reads first.
import { join, resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { resumeRefs } from "../../lib/run/resume-refs.js";
import { checkSkill, describeRun, designDirFlag, readRun, runFile } from "../../lib/run/run-state.js";
import { readJson } from "../../store.js";
import { digestPlan, startOverFor } from "../workspace/preflight.js";

export default defineCommand({
  positionals: [{ name: "skill", help: "design | execute | recon | improve | reflect" }],
  flags: {
    goal: { type: "string", help: "the goal of the new invocation, compared with the run's", default: "" },
    "design-dir": designDirFlag("read"),
  },
  run(ctx, args) {
    const skill = checkSkill("run-status", args.skill as string);
    const r = readRun(runFile(ctx.cwd, args["design-dir"] as string, skill, "read"));
    if (r.kind === "none") return { skill, exists: false, resumable: false };
    if (r.kind === "broken") throw new HelperError("E_SCHEMA", r.error);
    const digest = describeRun(r.run, ctx.cwd, ctx.now(), args.goal as string);
    // What a start-over may archive depends on the plan that is there now, whoever wrote it.
    const plan = digestPlan(readJson(join(resolve(ctx.cwd, args["design-dir"] as string), "plan.json")));
    const refs = resumeRefs(r.run, digest.nextPhase);
    return {
      exists: true,
      resumable: !digest.complete && !digest.inputsChanged && digest.missingOutputs.length === 0,
      ...digest,
      // The refs a resumed session reads first (what earlier phases loaded and the next one still uses).
      ...(refs === null ? {} : { refs }),
      startOver: startOverFor(skill, plan),
    };
  },
});
