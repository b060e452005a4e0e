// run-checkpoint: record that a phase is done, before the lead acts on the next phase's instructions. Refuses to
// skip a phase and refuses a phase whose declared outputs do not exist; returns the one-line announcement.
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { checkSkill, designDirFlag, list, nextPhase, parseRun, runFile, runFileName } from "../../lib/run/run-state.js";
import { isoSeconds } from "../../lib/values.js";
import { MAX_STATE_BYTES, pathKind, updateText } from "../../store.js";
import { requireGuards } from "../reports/improve-guards.js";
import { phaseRecordProblems } from "../../lib/run/phase-checks.js";
import { refreshLiveReport } from "./live-report.js";

export default defineCommand({
  positionals: [{ name: "skill", help: "design | execute | recon | improve | reflect" }],
  flags: {
    phase: { type: "string", required: true, help: "the phase that is done" },
    outputs: { type: "string", help: "comma-separated files or folders the phase produced (must exist)", default: "", path: "read", list: true },
    decisions: { type: "string", help: "key decisions of the phase, one line", default: "" },
    "design-dir": designDirFlag("write"),
  },
  async run(ctx, args) {
    const skill = checkSkill("run-checkpoint", args.skill as string);
    const phase = (args.phase as string).trim();
    const outputs = list(args.outputs);
    const decisions = (args.decisions as string).trim().replace(/\s*\n\s*/g, " ");
    const missing = outputs.filter((p) => pathKind(resolve(ctx.cwd, p)) === "missing");
    const designDir = args["design-dir"] as string;
    const path = runFile(ctx.cwd, designDir, skill);
    const now = ctx.now();
    if (pathKind(path) === "missing") throw new HelperError("E_NOT_FOUND", `No ${skill} run in progress: call run-start first`);
    // improve's guards phase is done only when the helper's guards pass or their failure was accepted (improve-guards.ts);
    // the reviews leave a record the helper checks (lib/run/phase-checks.ts).
    const accepted = skill === "improve" && phase === "guards" ? requireGuards(ctx.cwd, designDir) : [];
    const record = phaseRecordProblems(ctx.cwd, designDir, skill, phase, outputs, decisions);
    if (record.length) throw new HelperError("E_INVALID", `Cannot checkpoint ${phase}: ${record.join("; ")}`, { problems: record });
    const out = await updateText(path, (text) => {
      if (text === null) throw new HelperError("E_NOT_FOUND", `No ${skill} run in progress: call run-start first`);
      const run = parseRun(text, `${designDir}/${runFileName(skill)}`);
      if (run.completedAt !== null) throw new HelperError("E_INVALID", `The ${skill} run is already complete: call run-start for a new one`);
      if (!run.phases.includes(phase)) {
        throw new HelperError("E_INVALID", `Unknown phase '${phase}' (phases: ${run.phases.join(", ")})`);
      }
      const last = run.completed[run.completed.length - 1];
      const repeat = last?.phase === phase;
      if (!repeat) {
        if (run.completed.some((c) => c.phase === phase)) {
          throw new HelperError("E_INVALID", `Phase '${phase}' is already checkpointed; the run is past it (next: ${nextPhase(run) ?? "complete"})`);
        }
        const expected = nextPhase(run);
        if (expected !== phase) {
          throw new HelperError("E_INVALID", `Cannot checkpoint '${phase}': phase '${expected}' comes first`, { next: expected });
        }
      }
      if (missing.length) {
        throw new HelperError("E_INVALID", `Phase '${phase}' outputs missing: ${missing.join(", ")}`, { missing });
      }
      const entry = { phase, at: isoSeconds(now), outputs, decisions };
      if (repeat) run.completed[run.completed.length - 1] = entry;
      else run.completed.push(entry);
      run.updatedAt = entry.at;
      const index = run.phases.indexOf(phase) + 1;
      const next = nextPhase(run);
      const announce = [
        `${skill} · phase ${index}/${run.phases.length} ${phase}: done`,
        ...(decisions ? [`decisions: ${decisions}`] : []),
        `next: ${next ?? "finish the run"}`,
      ].join(" · ");
      return {
        text: `${JSON.stringify(run, null, 2)}\n`,
        result: { skill, phase, index, total: run.phases.length, next, repeated: repeat, announce, ...(accepted.length ? { acceptedGuards: accepted } : {}) },
      };
    }, undefined, undefined, MAX_STATE_BYTES);
    // execute's checkpoints move the live report on (the phase reached).
    if (skill === "execute") await refreshLiveReport(ctx.cwd, now);
    return out;
  },
});
