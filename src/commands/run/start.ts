// run-start: begin a skill run with its ordered phase list and the hashes of its inputs. An incomplete run of the
// same skill is never overwritten: the call is refused unless --fresh, which archives the old state first, with the
// outputs its checkpoints recorded, so the new run's files cannot overwrite them.
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { END_GRANT_FLAG, refuseWhileGranted } from "../../lib/grant-hold.js";
import { defineCommand } from "../../lib/command.js";
import { HelperError } from "../../lib/errors.js";
import {
  checkSkill, describeRun, designDirFlag, hashFile, historyDir, list, parseRun, runFile, runFileName, type RunState,
} from "../../lib/run-state.js";
import { newId } from "../../lib/ids.js";
import { compactStamp, isoSeconds, sha256 } from "../../lib/values.js";
import {
  argLabel, confine, confined, ensureDir, MAX_STATE_BYTES, isInside, makeHistoryFolder, moveEntries, pathKind, PERSISTENT, readText, withLock,
  writeAtomic,
} from "../../store.js";
import { OWN } from "../../lib/owned.js";

/**
 * The outputs an interrupted run's checkpoints recorded that still exist inside the design dir, relative to it:
 * persistent files (memory, reflections, handoff, recon, history) stay, and a path inside another listed one
 * moves with it. `root` is the design dir's real path. An output is moved only when its real path (symlinks
 * followed) is inside that directory, so an output that leads out of the project's .design/ never moves.
 */
function movableOutputs(cwd: string, root: string, run: RunState): string[] {
  const rels = [...new Set(run.completed.flatMap((c) => c.outputs))]
    .filter((p): p is string => typeof p === "string")
    .map((p) => relative(root, resolve(cwd, p)))
    .filter((r) => r !== "" && !r.startsWith("..") && !isAbsolute(r) && !PERSISTENT.has(r.split(sep)[0]))
    .filter((r) => {
      const real = confined(cwd, join(root, r), "write", OWN.recordedOutput);
      return real !== null && isInside(root, real) && real !== root && pathKind(join(root, r)) !== "missing";
    })
    .sort();
  return rels.filter((r) => !rels.some((o) => o !== r && r.startsWith(o + sep)));
}

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
    const phases = list(args.phases);
    if (phases.length === 0) throw new HelperError("E_USAGE", "run-start: --phases needs at least one phase name");
    const dup = phases.find((p, i) => phases.indexOf(p) !== i);
    if (dup) throw new HelperError("E_USAGE", `run-start: phase '${dup}' is listed twice`);
    const designDir = args["design-dir"] as string;
    const root = confine(ctx.cwd, argLabel("design-dir", designDir, true), designDir, "write", OWN.designDir);
    const path = runFile(ctx.cwd, designDir, skill);
    ensureDir(dirname(path));
    const goal = (args.goal as string).trim();
    const now = ctx.now();
    return withLock(path, () => {
      const cur = readText(path, MAX_STATE_BYTES);
      let archivedTo: string | null = null;
      let archivedOutputs: string[] = [];
      if (cur.kind === "ok") {
        const old = parseRun(cur.text, `${designDir}/${runFileName(skill)}`);
        if (old.completedAt === null && !args.fresh) {
          throw new HelperError("E_INVALID", `An incomplete ${skill} run exists: resume it, or start over with --fresh`, {
            run: describeRun(old, ctx.cwd, now, goal),
          });
        }
        const history = historyDir(ctx.cwd, designDir);
        const folder = makeHistoryFolder(history, compactStamp(now));
        const outputs = old.completedAt === null ? movableOutputs(ctx.cwd, root, old) : [];
        if (dirname(path) === root) moveEntries(root, [basename(path), ...outputs], join(history, folder));
        else {
          // The run file is a symlink to elsewhere inside .design/: its target moves on its own.
          moveEntries(dirname(path), [basename(path)], join(history, folder));
          try {
            moveEntries(root, outputs, join(history, folder));
          } catch (err) {
            moveEntries(join(history, folder), [basename(path)], dirname(path));
            throw err;
          }
        }
        archivedTo = join(designDir, "history", folder);
        archivedOutputs = outputs.map((r) => join(designDir, r));
      }
      const inputs = list(args.inputs).map((p) => ({ path: p, sha256: hashFile(resolve(ctx.cwd, p)) }));
      const state: RunState = {
        schemaVersion: 1,
        skill,
        runId: newId(),
        goal,
        goalSha256: sha256(goal),
        inputs,
        phases,
        completed: [],
        startedAt: isoSeconds(now),
        updatedAt: isoSeconds(now),
        completedAt: null,
        outcome: null,
      };
      writeAtomic(path, `${JSON.stringify(state, null, 2)}\n`);
      return {
        skill,
        runId: state.runId,
        phases,
        next: phases[0],
        missingInputs: inputs.filter((i) => i.sha256 === null).map((i) => i.path),
        archivedTo,
        archivedOutputs,
        announce: `${skill}: run started (${phases.length} phases) · next: ${phases[0]}`,
      };
    });
  },
});
