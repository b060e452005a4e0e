// Opening a skill run: the locked part of run-start, shared with run-begin. An earlier run state of the skill moves
// into .design/history/ (with the outputs an unfinished run's checkpoints recorded, so the new run's files cannot
// overwrite them), then the new state is written. What a fresh start must leave in place: the persistent files, and
// the worker reports of completed roles whose dependents have not run yet (their briefs point at those reports).
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { HelperError } from "../../base/errors.js";
import { newId } from "../ids.js";
import { OWN } from "../../base/owned.js";
import { rolesOf, statusOf, type Json } from "../plan/plan.js";
import { describeRun, hashFile, historyDir, parseRun, runFile, runFileName, SKILL_PHASES, type RunDigest, type RunState, type Skill } from "./run-state.js";
import { compactStamp, isObject, isoSeconds, sha256 } from "../values.js";
import {
  argLabel, confine, confined, ensureDir, isInside, makeHistoryFolder, MAX_STATE_BYTES, moveIntoHistory, pathKind, PERSISTENT, readText, resumeMoves, withLock, writeAtomic,
} from "../../store.js";

/**
 * The names (relative to .design/) of the worker reports a pending dependent still needs: `worker-<agent>.json` of
 * every agent of a completed role (its `agent`, its attempts' agents) that some role not yet completed depends on.
 */
export function neededReports(plan: unknown): Set<string> {
  const keep = new Set<string>();
  if (!isObject(plan) || !Array.isArray(plan.roles)) return keep;
  const roles = rolesOf(plan as Json);
  const needed = new Set<string>();
  for (const role of roles) {
    if (statusOf(role) === "completed") continue;
    const deps = isObject(role.scope) && Array.isArray(role.scope.dependencies) ? role.scope.dependencies : [];
    for (const d of deps) if (typeof d === "string") needed.add(d);
  }
  for (const role of roles) {
    if (statusOf(role) !== "completed" || typeof role.name !== "string" || !needed.has(role.name)) continue;
    const agents = [role.agent, ...(Array.isArray(role.attemptLog) ? role.attemptLog.map((a) => (isObject(a) ? a.agent : undefined)) : [])];
    for (const a of agents) if (typeof a === "string" && /^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(a)) keep.add(`worker-${a}.json`);
  }
  return keep;
}

/**
 * The outputs an interrupted run's checkpoints recorded that still exist inside the design dir, relative to it:
 * persistent files (memory, reflections, handoff, recon, history) and `keep` stay, and a path inside another listed
 * one moves with it. `root` is the design dir's real path. An output is moved only when its real path (symlinks
 * followed) is inside that directory, so an output that leads out of the project's .design/ never moves.
 */
function movableOutputs(cwd: string, root: string, run: RunState, keep: ReadonlySet<string>): { move: string[]; kept: string[] } {
  const kept: string[] = [];
  const rels = [...new Set(run.completed.flatMap((c) => (Array.isArray(c.outputs) ? c.outputs : [])))]
    .filter((p): p is string => typeof p === "string")
    .map((p) => relative(root, resolve(cwd, p)))
    .filter((r) => r !== "" && !r.startsWith("..") && !isAbsolute(r) && !PERSISTENT.has(r.split(sep)[0]))
    .filter((r) => {
      const real = confined(cwd, join(root, r), "write", OWN.recordedOutput);
      return real !== null && isInside(root, real) && real !== root && pathKind(join(root, r)) !== "missing";
    })
    .filter((r) => {
      if (!keep.has(r)) return true;
      kept.push(r);
      return false;
    })
    .sort();
  return { move: rels.filter((r) => !rels.some((o) => o !== r && r.startsWith(o + sep))), kept: kept.sort() };
}

/**
 * Why `phases` is not a run of `skill`, or null. Each skill declares its phases (SKILL_PHASES, the SKILL.md sections):
 * a list that names any of them must be all of them, in order, so a run cannot leave out the phases between its first
 * and its last and still close as completed. A list of none of them is a run the skill does not make (the helper's
 * own tests use such lists); it can never close as completed (phasesNotReached).
 */
export function phaseListProblem(skill: Skill, phases: readonly string[]): string | null {
  const declared = SKILL_PHASES[skill];
  if (!phases.some((p) => declared.includes(p))) return null;
  if (phases.length === declared.length && phases.every((p, i) => p === declared[i])) return null;
  const missing = declared.filter((p) => !phases.includes(p));
  const extra = phases.filter((p) => !declared.includes(p));
  const what = [
    missing.length ? `leaves out ${missing.join(", ")}` : "",
    extra.length ? `adds ${extra.join(", ")}` : "",
    !missing.length && !extra.length ? "changes their order" : "",
  ].filter(Boolean).join(" and ");
  return `run-start: a ${skill} run has the phases ${declared.join(",")} in this order; this list ${what} (run-begin ${skill} starts it with them)`;
}

export interface OpenRunOptions {
  skill: Skill;
  phases: string[];
  goal: string;
  inputs: string[];
  /** Archive an unfinished run instead of refusing. */
  fresh: boolean;
  /** The .design dir as given (messages name it). */
  designDir: string;
  now: number;
  /** Worker reports to leave in place on a fresh start (neededReports). */
  keep?: ReadonlySet<string>;
  /** A run state that cannot be read is archived as it is (run-begin) instead of refused. */
  archiveBroken?: boolean;
}

export interface OpenedRun {
  skill: Skill;
  runId: string;
  phases: string[];
  next: string;
  missingInputs: string[];
  archivedTo: string | null;
  archivedOutputs: string[];
  /** Recorded outputs left in place because a pending dependent still needs them. */
  keptOutputs: string[];
  /** The earlier run, as it was, when it was archived unfinished. */
  replaced: RunDigest | null;
  announce: string;
}

/** Start a run of `skill`: under the run file's lock, archive the earlier state (see above) and write the new one. */
export function openRun(cwd: string, o: OpenRunOptions): Promise<OpenedRun> {
  const { skill, phases, designDir } = o;
  if (phases.length === 0) throw new HelperError("E_USAGE", "run-start: --phases needs at least one phase name");
  const dup = phases.find((p, i) => phases.indexOf(p) !== i);
  if (dup) throw new HelperError("E_USAGE", `run-start: phase '${dup}' is listed twice`);
  const wrong = phaseListProblem(skill, phases);
  if (wrong) throw new HelperError("E_USAGE", wrong, { phases: [...SKILL_PHASES[skill]] });
  const root = confine(cwd, argLabel("design-dir", designDir, true), designDir, "write", OWN.designDir);
  const path = runFile(cwd, designDir, skill);
  ensureDir(dirname(path));
  const goal = o.goal.trim();
  const now = o.now;
  return withLock(path, () => {
    // A replaced run a kill left half moved is finished into its history folder before the state is read again.
    resumeMoves(historyDir(cwd, designDir), root);
    const cur = readText(path, MAX_STATE_BYTES);
    let archivedTo: string | null = null;
    let archivedOutputs: string[] = [];
    let keptOutputs: string[] = [];
    let replaced: RunDigest | null = null;
    // An unreadable run state is replaced, as run-start always did; run-begin (archiveBroken) keeps a copy of a
    // broken one in history.
    if (cur.kind === "ok" || (o.archiveBroken && cur.kind === "error" && pathKind(path) === "file")) {
      let old: RunState | null = null;
      try {
        old = cur.kind === "ok" ? parseRun(cur.text, `${designDir}/${runFileName(skill)}`) : null;
      } catch (err) {
        if (!o.archiveBroken) throw err;
      }
      if (old && old.completedAt === null && !o.fresh) {
        throw new HelperError("E_INVALID", `An incomplete ${skill} run exists: resume it, or start over with --fresh`, {
          run: describeRun(old, cwd, now, goal),
        });
      }
      const history = historyDir(cwd, designDir);
      const folder = makeHistoryFolder(history, compactStamp(now));
      const { move: outputs, kept } = old && old.completedAt === null ? movableOutputs(cwd, root, old, o.keep ?? new Set()) : { move: [], kept: [] };
      if (old && old.completedAt === null) replaced = describeRun(old, cwd, now, goal);
      // The run file and the outputs it recorded move as one (a kill leaves a journal the next call finishes); a
      // run file linked to elsewhere inside .design/ has its target moved from there.
      const groups = dirname(path) === root
        ? [{ from: root, names: [basename(path), ...outputs] }]
        : [{ from: dirname(path), names: [basename(path)] }, { from: root, names: outputs }];
      moveIntoHistory(join(history, folder), groups);
      archivedTo = join(designDir, "history", folder);
      archivedOutputs = outputs.map((r) => join(designDir, r));
      keptOutputs = kept.map((r) => join(designDir, r));
    }
    const inputs = o.inputs.map((p) => ({ path: p, sha256: hashFile(resolve(cwd, p)) }));
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
      keptOutputs,
      replaced,
      announce: `${skill}: run started (${phases.length} phases) · next: ${phases[0]}`,
    };
  });
}
