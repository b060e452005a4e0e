// preflight: the compact digest a skill injects before the model reads its text. It must never fail: every
// problem is reported inside the JSON (`problems`), and the command always exits 0 with ok:true. Each file is
// read once; no zod, no big arrays (the output lands in the prompt).
import { join, resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { detail } from "../../base/errors.js";
import { goalWord, lifecycle, newestFirst, type Lifecycle } from "../../lib/plan/lifecycle.js";
import { attemptsOf, statusOf } from "../../lib/plan/plan.js";
import { teamNameFor } from "../../lib/workspace/team-name.js";
import { describeRun, readRun, runFileName } from "../../lib/run/run-state.js";
import { isEmpty, isObject, pyStr } from "../../lib/values.js";
import {
  isInside, outsideMessage, pathKind, projectRoots, readConfined, readJson, readJsonl, readText, realPath, countJsonlFile,
  type JsonRead, type JsonlFile, type TextRead,
} from "../../store.js";
import { MEMORY_LINE_AT } from "../memory/fast-line.js";

export const PREFLIGHT_SKILLS = ["design", "execute", "improve", "recon", "reflect"] as const;
const MAX_ATTEMPTS = 3;

export type PlanState = "none" | "ready" | "in_progress" | "done" | "invalid";

export interface PlanDigest {
  state: PlanState;
  roleCount: number;
  counts: Record<string, number>;
  goal: string;
  isResume: boolean;
  error?: string;
}

/** Classify plan.json with status's checks and error codes (contract 4.2). */
export function digestPlan(read: JsonRead): PlanDigest {
  const digest: PlanDigest = { state: "none", roleCount: 0, counts: {}, goal: "", isResume: false };
  if (read.kind === "missing") return digest;
  const invalid = (error: string): PlanDigest => ({ ...digest, state: "invalid", error });
  if (read.kind !== "ok") return invalid("invalid_json");
  const doc = read.value;
  if (isObject(doc) && typeof doc.goal === "string") digest.goal = doc.goal.slice(0, 120);
  const version = isObject(doc) ? doc.schemaVersion : undefined;
  if (!(typeof version === "number" && version === 4)) return invalid(`bad_schema (schemaVersion=${pyStr(version)}, expected 4)`);
  const roles = (doc as Record<string, unknown>).roles;
  if (roles !== undefined && roles !== null && !Array.isArray(roles)) return invalid("bad_schema (roles must be an array)");
  if (!Array.isArray(roles) || roles.length === 0) return invalid("empty_roles");
  const bad = roles.findIndex((r) => !isObject(r));
  if (bad >= 0) return invalid(`bad_schema (roles[${bad}] must be an object)`);
  let open = false;
  for (const role of roles as Record<string, unknown>[]) {
    const s = statusOf(role);
    digest.counts[s] = (digest.counts[s] ?? 0) + 1;
    if (s === "pending" || s === "in_progress" || (s === "failed" && attemptsOf(role) < MAX_ATTEMPTS)) open = true;
  }
  digest.roleCount = roles.length;
  digest.isResume = Object.keys(digest.counts).some((s) => s !== "pending");
  digest.state = !digest.isResume ? "ready" : open ? "in_progress" : "done";
  return digest;
}

/** What starting over may do to the files of a stopped run, given the plan that is there now. */
export interface StartOver {
  planState: PlanState;
  /** True when the plan may go to history without asking anyone (run-begin archives a finished one itself). */
  archive: boolean;
  /** True when a plan someone may still want is there: the user decides (the skill's plan-state step asks). */
  ask: boolean;
  advice: string;
}

/** Skills that write plan.json and so archive before they start over. */
const PLAN_WRITERS: readonly string[] = ["design", "improve", "reflect"];

/**
 * Start-over advice for a plan-writing skill (design, improve, reflect): archive only a finished plan or none; an
 * unexecuted, in-progress or broken plan is never archived without asking. Other skills never archive on a start
 * over: recon and execute only start a fresh run. Undefined for an unknown skill.
 */
export function startOverFor(skill: string | null, plan: PlanDigest): StartOver | undefined {
  if (skill === null) return undefined;
  const planState = plan.state;
  if (skill === "recon") {
    return { planState, archive: false, ask: false, advice: "Start over with run-begin --fresh (it sets the earlier runs' expert artifacts aside); recon never archives the plan" };
  }
  if (!PLAN_WRITERS.includes(skill)) {
    return { planState, archive: false, ask: false, advice: "Start over with run-begin --fresh; this skill never archives on a start-over" };
  }
  const fresh = "run-begin --fresh (it moves the stopped run's recorded outputs to history)";
  const keep =
    "ask the user first whether to keep it or archive it (on their yes archive .design --include-plan; keep it: nothing starts), then " + fresh;
  switch (planState) {
    case "none":
      return { planState, archive: true, ask: false, advice: `No plan in the way: ${fresh}` };
    case "done":
      return { planState, archive: true, ask: false, advice: `The plan is finished: ${fresh}, which also archives it` };
    case "ready":
      return { planState, archive: false, ask: true, advice: `An unexecuted plan exists (${plan.roleCount} roles): ${keep}` };
    case "in_progress":
      return { planState, archive: false, ask: true, advice: `A plan is in progress (${plan.counts.completed ?? 0} of ${plan.roleCount} roles completed): ${keep}` };
    case "invalid":
      return { planState, archive: false, ask: true, advice: `plan.json is broken (${plan.error}): ${keep}` };
  }
}

/** An unfinished run of the asking skill, compact: where it stopped and whether it can be resumed. */
export interface RunFacts {
  lastPhase: string | null;
  nextPhase: string | null;
  age: string;
  inputsChanged: boolean;
  changed: string[];
  missingOutputs: string[];
  goal: string;
  resumable: boolean;
  startOver?: StartOver;
}

interface Facts {
  skill: string | null;
  run?: RunFacts | null;
  plan: PlanDigest;
  reflectionCount: number;
  recon: { exists: boolean; interventionCount?: number };
}

/** Plan-writing skills (design, improve, reflect) must not silently replace a plan someone may still want. */
function planGuard(plan: PlanDigest): string | undefined {
  switch (plan.state) {
    case "in_progress":
      return "A plan is in progress: ask before replacing it";
    case "ready":
      return "An unexecuted plan exists: ask before replacing it (or run /do:execute)";
    case "invalid":
      return `plan.json is broken (${plan.error}): ask before replacing it`;
    case "done":
      return "The previous plan is finished: archive it before writing a new one";
    default:
      return undefined;
  }
}

/** One short sentence for the lead. */
export function nextStep(f: Facts): string {
  const { plan } = f;
  if (f.run) {
    const why = [...f.run.changed.map((c) => `${c} changed`), ...f.run.missingOutputs.map((o) => `${o} is gone`)];
    if (!f.run.resumable) return `An interrupted ${f.skill} run cannot be resumed (${why.join(", ")}): tell the user why in one line; run-begin archives it and starts over`;
    return `An interrupted ${f.skill} run stopped after ${f.run.lastPhase ?? "its start"} ${f.run.age} ago: ask the user "Resume from ${f.run.nextPhase}?"`;
  }
  switch (f.skill) {
    case "execute":
      switch (plan.state) {
        case "none":
          return "No plan: run /do:design first";
        case "invalid":
          return `plan.json is invalid (${plan.error}): fix it or run /do:design again`;
        case "ready":
          return "Plan ready: execute it from the start";
        case "in_progress":
          return "A plan is in progress: resume it (resume-reset first)";
        case "done":
          return "The plan is already done: suggest /do:reflect or a new /do:design";
      }
      break;
    case "design":
      return planGuard(plan) ?? "No plan yet: design one for the goal";
    case "improve":
      return planGuard(plan) ?? "No plan in the way: analyse the target skill";
    case "reflect":
      if (f.reflectionCount === 0) return "No reflections yet: run a skill first, there is nothing to reflect on";
      return planGuard(plan) ?? `${f.reflectionCount} reflection(s) to analyse`;
    case "recon":
      if (!f.recon.exists) return "No previous recon: start the research";
      return f.recon.interventionCount === undefined
        ? "A previous recon.json exists but cannot be read: ask whether to replace it (it moves to history) or keep it (this run writes recon-2.json)"
        : `A previous recon.json exists (${f.recon.interventionCount} interventions): ask whether to replace it (it moves to history) or keep it (this run writes recon-2.json)`;
  }
  return `Pass the skill name (${PREFLIGHT_SKILLS.join(", ")}) to preflight`;
}

/** "<n> unparsable line(s) skipped (lines 3, 7)"; at most five line numbers listed. */
function skippedProblem(file: string, lines: readonly number[]): string {
  const shown = lines.slice(0, 5).join(", ") + (lines.length > 5 ? ", ..." : "");
  return `${file}: ${lines.length} unparsable line(s) skipped (lines ${shown})`;
}

/**
 * memory.jsonl is only counted here, so it is scanned 64 KB at a time without keeping its entries (a memory file
 * can hold tens of thousands); lines in memory-add's own layout skip JSON.parse.
 */
function memoryFacts(path: string | null, problems: string[]): { count: number; skippedLines: number } {
  if (path === null) return { count: 0, skippedLines: 0 };
  const scan = countJsonlFile(path, MEMORY_LINE_AT);
  if (scan.kind === "error") problems.push(`memory.jsonl: cannot read: ${scan.detail}`);
  if (scan.kind !== "ok") return { count: 0, skippedLines: 0 };
  if (scan.skipped) problems.push(skippedProblem("memory.jsonl", scan.skippedLines));
  return { count: scan.count, skippedLines: scan.skipped };
}

function jsonlFacts(file: string, read: JsonlFile, problems: string[]): { count: number; skippedLines: number } {
  if (read.kind === "error") problems.push(`${file}: cannot read: ${read.detail}`);
  if (read.kind !== "ok") return { count: 0, skippedLines: 0 };
  if (read.skipped) problems.push(skippedProblem(file, read.skippedLines));
  return { count: read.entries.length, skippedLines: read.skipped };
}

/**
 * The runs /do:reflect may learn from: every reflection but reflect's own aborted runs (too few runs, a plan kept),
 * which record no evidence about any skill (reflect-metrics leaves them out the same way).
 */
function evidenceCount(read: JsonlFile): number {
  if (read.kind !== "ok") return 0;
  return read.entries.filter((e) => !(e.value.skill === "reflect" && e.value.outcome === "aborted")).length;
}

/**
 * The same runs per skill: /do:reflect compares the skill it analyses (or, none named, the one with the most) with
 * its minimum here, before it archives anything (issue 31: counted together, it archived the finished plan and only
 * then found one run per skill).
 */
function evidenceBySkill(read: JsonlFile): Record<string, number> {
  const by: Record<string, number> = {};
  if (read.kind !== "ok") return by;
  for (const { value: e } of read.entries) {
    if (typeof e.skill !== "string" || (e.skill === "reflect" && e.outcome === "aborted")) continue;
    by[e.skill] = (by[e.skill] ?? 0) + 1;
  }
  return by;
}

function lastForSkill(read: JsonlFile, skill: string | null): string | null {
  if (read.kind !== "ok" || skill === null) return null;
  const mine = newestFirst(read.entries.map((e) => e.value).filter((e) => e.skill === skill));
  if (mine.length === 0) return null;
  const e = mine[0];
  const outcome = "outcome" in e ? pyStr(e.outcome) : "unknown";
  const word = goalWord(e);
  return `${outcome}${word ? ` ${word}` : ""} ${"timestamp" in e ? pyStr(e.timestamp) : "unknown"}`;
}

function reconFacts(read: JsonRead, problems: string[]): Facts["recon"] {
  if (read.kind === "missing") return { exists: false };
  if (read.kind === "error") problems.push(`recon.json: cannot read: ${read.detail}`);
  else if (read.kind === "invalid") problems.push(`recon.json: invalid JSON: ${read.detail}`);
  else if (!isObject(read.value)) problems.push("recon.json: top-level value is not an object");
  else if (read.value.interventions === undefined) return { exists: true, interventionCount: 0 };
  else if (!Array.isArray(read.value.interventions)) problems.push("recon.json: interventions is not an array");
  else return { exists: true, interventionCount: read.value.interventions.length };
  return { exists: true };
}

function digest(cwd: string, skillArg: string | undefined, designDir: string, nowMs: number): Record<string, unknown> {
  const problems: string[] = [];
  let skill: string | null = null;
  if (skillArg === undefined || skillArg === "") problems.push(`skill: missing (expected one of ${PREFLIGHT_SKILLS.join(", ")})`);
  else if (!(PREFLIGHT_SKILLS as readonly string[]).includes(skillArg)) {
    problems.push(`skill: unknown '${skillArg}' (expected one of ${PREFLIGHT_SKILLS.join(", ")})`);
  } else skill = skillArg;

  // preflight must exit 0, so a design_dir outside the project is a problem in the digest, not an E_PATH failure.
  const dir = resolve(cwd, designDir);
  const real = realPath(dir);
  const inside = isInside(projectRoots(cwd).project, real);
  if (!inside) problems.push(outsideMessage(`design_dir '${designDir}'`, real, "read"));
  const kind = inside ? pathKind(dir) : "missing";
  const usable = kind === "directory";
  if (kind !== "missing" && !usable) problems.push(`${designDir}: not a directory`);
  const missing = { kind: "missing" } as const;
  const read = <T>(name: string, reader: (p: string) => T) => readConfined(cwd, join(dir, name), reader);
  const planRead: JsonRead = usable ? read("plan.json", readJson) : missing;
  const handoffRead: TextRead = usable ? read("handoff.md", readText) : missing;
  // memory.jsonl is only counted (memoryFacts), through the same read rule.
  const memoryPath = usable ? read("memory.jsonl", (real): string | null => real) : null;
  if (memoryPath !== null && typeof memoryPath !== "string") problems.push(`memory.jsonl: cannot read: ${memoryPath.detail}`);
  const reflectionRead: JsonlFile = usable ? read("reflection.jsonl", readJsonl) : missing;
  const reconRead: JsonRead = usable ? read("recon.json", readJson) : missing;

  const plan = digestPlan(planRead);
  if (plan.state === "invalid") problems.push(`plan.json: ${plan.error}`);
  if (handoffRead.kind === "error") problems.push(`handoff.md: cannot read: ${handoffRead.detail}`);
  const life: Lifecycle = lifecycle(handoffRead, reflectionRead, planRead);
  const memory = memoryFacts(typeof memoryPath === "string" ? memoryPath : null, problems);
  const reflections = {
    ...jsonlFacts("reflection.jsonl", reflectionRead, problems),
    evidence: evidenceCount(reflectionRead),
    ...(skill === "reflect" ? { evidenceBySkill: evidenceBySkill(reflectionRead) } : {}),
    lastForSkill: lastForSkill(reflectionRead, skill),
  };
  const recon = reconFacts(reconRead, problems);
  let run: RunFacts | null = null;
  if (usable && skill) {
    const runPath = realPath(join(dir, runFileName(skill)));
    const r: ReturnType<typeof readRun> = isInside(projectRoots(cwd).project, runPath)
      ? readRun(runPath)
      : { kind: "broken", error: outsideMessage(runFileName(skill), runPath, "read") };
    if (r.kind === "broken") problems.push(`${runFileName(skill)}: ${r.error}`);
    else if (r.kind === "ok" && r.run.completedAt === null) {
      const d = describeRun(r.run, cwd, nowMs);
      run = {
        lastPhase: d.lastPhase, nextPhase: d.nextPhase, age: d.age, inputsChanged: d.inputsChanged, changed: d.changed,
        missingOutputs: d.missingOutputs, goal: d.goal.slice(0, 120), resumable: !d.inputsChanged && d.missingOutputs.length === 0,
        startOver: startOverFor(skill, plan),
      };
    }
  }
  return {
    skill: skillArg ?? null,
    teamName: skillArg ? teamNameFor(skillArg, cwd) : null,
    plan,
    lifecycle: life,
    memory,
    reflections,
    recon,
    run,
    nextStep: nextStep({ skill, run, plan, reflectionCount: reflections.evidence, recon }),
    problems,
  };
}

export default defineCommand({
  positionals: [
    { name: "skill", help: "the skill asking (design, execute, improve, recon, reflect)", optional: true },
    { name: "design_dir", help: "design directory", default: ".design" },
  ],
  flags: {},
  run(ctx, args) {
    const skill = args.skill as string | undefined;
    try {
      return digest(ctx.cwd, skill, args.design_dir as string, ctx.now());
    } catch (err) {
      return {
        skill: skill ?? null,
        teamName: null,
        plan: { state: "invalid", roleCount: 0, counts: {}, goal: "", isResume: false, error: "internal_error" },
        lifecycle: { handoff: "", reflections: [], plan: "" },
        memory: { count: 0, skippedLines: 0 },
        reflections: { count: 0, skippedLines: 0, evidence: 0, lastForSkill: null },
        recon: { exists: false },
        run: null,
        nextStep: "Preflight failed: run the skill's own checks",
        problems: [`preflight: ${detail(err)}`],
      };
    }
  },
});
