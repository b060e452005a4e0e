// Run state: one file per skill, <design_dir>/run-<skill>.json, that lets an interrupted skill resume at the
// phase after the last checkpoint. The phase list is the single source of truth; a checkpoint is saved before the
// lead acts on the next phase; inputs are hashed so a resume on changed inputs is refused.
import { join } from "node:path";
import { HelperError } from "../../base/errors.js";
import { isObject, sha256 } from "../values.js";
import {
  commaList, confine, confined, listDir, MAX_STATE_BYTES, parseJsonText, pathKind, projectRoots, readBytes, readJson, type DirEntry, type PathAccess,
} from "../../store.js";
import { OWN, runStateOwner } from "../../base/owned.js";

export const SKILLS = ["design", "execute", "recon", "improve", "reflect"] as const;
export type Skill = (typeof SKILLS)[number];

/**
 * Each skill's phases, in order: its SKILL.md's `## N. Name` sections in kebab-case (test/plugin/run-phases.test.ts
 * keeps them equal). run-begin starts a run with these.
 */
export const SKILL_PHASES: Readonly<Record<Skill, readonly string[]>> = {
  design: ["pre-flight", "experts", "cross-review", "plan", "finalize", "reflect-and-report"],
  execute: ["pre-flight", "challenge", "grant", "workers", "verify", "learn", "close"],
  recon: ["pre-flight", "research", "synthesis", "write-and-validate", "reflect-and-report"],
  improve: ["pre-flight", "mode", "analysis", "cross-review", "synthesis", "guards", "finalize", "reflect-and-report"],
  reflect: ["pre-flight", "gather", "analyse", "hypotheses", "plan", "reflect-and-report"],
};

/** The input files run-begin hashes for a skill (a changed one makes the run not resumable), besides `--inputs`. */
export const SKILL_INPUTS: Readonly<Record<Skill, readonly string[]>> = {
  design: [".design/recon.json"],
  execute: [],
  recon: [],
  improve: [],
  reflect: [".design/reflection.jsonl"],
};

export interface Checkpoint {
  phase: string;
  at: string;
  outputs: string[];
  decisions: string;
}

export interface RunInput {
  path: string;
  /** null when the file did not exist when the run started. */
  sha256: string | null;
}

export interface RunState {
  schemaVersion: 1;
  skill: Skill;
  runId: string;
  goal: string;
  goalSha256: string;
  inputs: RunInput[];
  phases: string[];
  completed: Checkpoint[];
  startedAt: string;
  updatedAt: string;
  completedAt: string | null;
  outcome: string | null;
  /** Set by run-complete on a run closed with phases never checkpointed (only outcomes other than completed). */
  skippedPhases?: string[];
}

export const runFileName = (skill: string) => `run-${skill}.json`;
/**
 * The real path of `<design_dir>/run-<skill>.json` under the rule for `access` (a run file that is a symlink out is
 * refused with E_PATH, one inside is followed).
 */
export function runFile(cwd: string, designDir: string, skill: string, access: PathAccess = "write"): string {
  const label = `run state '${join(designDir, runFileName(skill))}'`;
  const path = join(designDir, runFileName(skill));
  return access === "write" ? confine(cwd, label, path, "write", runStateOwner(skill)) : confine(cwd, label, path, "read");
}

/** True for a run-state file name; incomplete ones survive archive, finished ones are archived with their run. */
export function isRunFileName(name: string): boolean {
  return /^run-(design|execute|recon|improve|reflect)\.json$/.test(name);
}

export function hashFile(path: string): string | null {
  const bytes = readBytes(path);
  return bytes === null ? null : sha256(bytes);
}

export function checkSkill(command: string, skill: string): Skill {
  if (!(SKILLS as readonly string[]).includes(skill)) {
    throw new HelperError("E_USAGE", `${command}: unknown skill '${skill}' (one of: ${SKILLS.join(", ")})`);
  }
  return skill as Skill;
}

/** Comma-separated list → trimmed non-empty items. */
export const list = commaList;

function isRunState(v: unknown): v is RunState {
  return (
    isObject(v) && v.schemaVersion === 1 && typeof v.skill === "string" && Array.isArray(v.phases) && Array.isArray(v.completed) &&
    v.phases.every((p) => typeof p === "string") && v.completed.every((c) => isObject(c) && typeof c.phase === "string")
  );
}

/** Parse run-state text; a broken file is an E_SCHEMA error naming it (never silently replaced). */
export function parseRun(text: string, path: string): RunState {
  let v: unknown;
  try {
    v = parseJsonText(text);
  } catch (err) {
    throw new HelperError("E_JSON", `Invalid JSON in run state ${path}: ${(err as Error).message}`);
  }
  if (!isRunState(v)) throw new HelperError("E_SCHEMA", `Invalid run state in ${path}: expected schemaVersion 1 with phases and completed arrays`);
  return v;
}

export type RunRead = { kind: "none" } | { kind: "ok"; run: RunState } | { kind: "broken"; error: string };

export function readRun(path: string): RunRead {
  const r = readJson(path, MAX_STATE_BYTES);
  if (r.kind === "missing") return { kind: "none" };
  if (r.kind === "error") return { kind: "broken", error: `cannot read ${path}: ${r.detail}` };
  if (r.kind === "invalid" || !isRunState(r.value)) return { kind: "broken", error: `${path} is not a valid run state` };
  return { kind: "ok", run: r.value };
}

export function nextPhase(run: RunState): string | null {
  return run.phases[run.completed.length] ?? null;
}

export function ageText(seconds: number): string {
  if (seconds < 90) return `${Math.max(0, Math.round(seconds))} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} d`;
}

export interface RunDigest {
  skill: string;
  runId: string;
  goal: string;
  complete: boolean;
  phases: string[];
  lastPhase: string | null;
  nextPhase: string | null;
  /** Seconds since the last checkpoint (or the start). */
  ageSeconds: number;
  age: string;
  inputsChanged: boolean;
  changed: string[];
  missingOutputs: string[];
  decisions: string[];
  outputs: string[];
}

/** What an incomplete (or finished) run looks like now: where it stopped, how old, whether its inputs changed. */
export function describeRun(run: RunState, cwd: string, nowMs: number, goal?: string): RunDigest {
  const changed: string[] = [];
  if (goal !== undefined && goal.trim() !== "" && sha256(goal.trim()) !== run.goalSha256) changed.push("goal");
  for (const input of run.inputs) {
    // A recorded input that now resolves outside the project is never hashed: it counts as changed.
    const real = typeof input.path === "string" ? confined(cwd, input.path, "read") : null;
    if (real === null || hashFile(real) !== input.sha256) changed.push(input.path);
  }
  const last = run.completed[run.completed.length - 1];
  const since = Date.parse(run.updatedAt);
  const ageSeconds = Number.isFinite(since) ? Math.round((nowMs - since) / 1000) : 0;
  const outputs = run.completed.flatMap((c) => c.outputs);
  return {
    skill: run.skill,
    runId: run.runId,
    goal: run.goal,
    complete: run.completedAt !== null,
    phases: run.phases,
    lastPhase: last?.phase ?? null,
    nextPhase: nextPhase(run),
    ageSeconds,
    age: ageText(ageSeconds),
    inputsChanged: changed.length > 0,
    changed,
    missingOutputs: outputs.filter((p) => {
      const real = typeof p === "string" ? confined(cwd, p, "read") : null;
      return real === null || pathKind(real) === "missing";
    }),
    decisions: run.completed.filter((c) => c.decisions).map((c) => `${c.phase}: ${c.decisions}`),
    outputs,
  };
}

export function designDirFlag(path: "read" | "write") {
  return { type: "string" as const, help: "the .design directory (or a folder inside it)", default: ".design", path };
}

/** The real path of `<design_dir>/history`, confined to the project's .design/ (E_PATH when it links out). */
export function historyDir(cwd: string, designDir: string): string {
  return confine(cwd, `history folder '${join(designDir, "history")}'`, join(designDir, "history"), "write", OWN.history);
}

/**
 * True when the run of `skill` needs no report (not execute, and no plan.json) or `.design/report.html` was written
 * after its run state (by mtime): a closed run whose report is older was closed by a call killed before it wrote
 * the report, and its retry writes it (run-end, run-begin without a plan).
 */
export function reportSinceRunState(cwd: string, skill: string): boolean {
  const { design } = projectRoots(cwd);
  if (!(skill === "execute" || pathKind(join(design, "plan.json")) === "file")) return true;
  let entries: DirEntry[];
  try {
    entries = listDir(design);
  } catch {
    return false;
  }
  const mtime = (name: string) => entries.find((e) => e.name === name)?.mtimeMs;
  const report = mtime("report.html");
  const state = mtime(runFileName(skill));
  return report !== undefined && state !== undefined && report >= state;
}
