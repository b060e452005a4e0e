// run-start: begin a skill run with its ordered phase list and the hashes of its inputs. An incomplete run of the
// same skill is never overwritten: the call is refused unless --fresh, which archives the old state first, with the
// outputs its checkpoints recorded, so the new run's files cannot overwrite them (lib/run/run-open.ts; the worker
// reports a pending dependent still needs stay).
import { join } from "node:path";
import { END_GRANT_FLAG, refuseWhileGranted } from "../../lib/grant/grant-hold.js";
import { defineCommand } from "../../lib/command/command.js";
import { checkSkill, designDirFlag, list } from "../../lib/run/run-state.js";
import { neededReports, openRun } from "../../lib/run/run-open.js";
import { projectRoots, readConfined, readJson } from "../../store.js";

export default defineCommand({
  positionals: [{ name: "skill", help: "design | execute | recon | improve | reflect" }],
  flags: {
    phases: { type: "string", required: true, help: "comma-separated phase names, in order" },
    goal: { type: "string", help: "the run's goal or arguments (hashed to detect a changed goal on resume)", default: "" },
    inputs: { type: "string", help: "comma-separated input files to hash (spec, plan, recon.json ...)", default: "", path: "read", list: true },
    fresh: { type: "boolean", help: "archive an incomplete run of this skill and start anew" },
    "design-dir": designDirFlag("write"),
    "end-grant": END_GRANT_FLAG,
  },
  async run(ctx, args) {
    const skill = checkSkill("run-start", args.skill as string);
    if (args.fresh) refuseWhileGranted(ctx, args["end-grant"], "starting a fresh run");
    const plan = args.fresh ? readConfined(ctx.cwd, join(projectRoots(ctx.cwd).design, "plan.json"), readJson) : null;
    const { replaced: _replaced, ...opened } = await openRun(ctx.cwd, {
      skill,
      phases: list(args.phases),
      goal: args.goal as string,
      inputs: list(args.inputs),
      fresh: args.fresh === true,
      designDir: args["design-dir"] as string,
      now: ctx.now(),
      keep: plan && plan.kind === "ok" ? neededReports(plan.value) : new Set(),
    });
    return opened;
  },
});
