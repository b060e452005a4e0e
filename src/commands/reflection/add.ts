// reflection-add: append one run's self-evaluation to reflection.jsonl (contract 4.18). The evaluation comes on
// stdin and must be a JSON object (Fix D23); missing or non-array whatWorked / whatFailed / doNextTime are
// reported in the added `warnings` key without failing. The append is a locked copy-and-rename (contract 1.7).
// An execute run's reflection also carries what the run cost (`cost`, from record-usage's records in plan.json for
// the open execute run), which /do:runs shows and the forecast learns from once the plan is archived.
import { defineCommand } from "../../lib/command/command.js";
import { HelperError, detail, usage } from "../../base/errors.js";
import { isoSeconds, uuid4 } from "../../lib/values.js";
import { argLabel, confine, ensureDir, MAX_JSONL_BYTES, updateText, withAppendedLine } from "../../store.js";
import { readRun, runFile } from "../../lib/run/run-state.js";
import { OWN } from "../../base/owned.js";
import { openRunId } from "../../lib/cost/budget.js";
import { runCost } from "../../lib/cost/cost.js";
import { roleKind } from "../../lib/cost/forecast.js";
import { projectRoots, readConfined, readJson, readText } from "../../store.js";
import { dirname, join } from "node:path";
import { EVALUATION_FIELDS, OUTCOMES, REFLECTION_PATH, SKILLS, evaluationProblems, parseEvaluation } from "./evaluation.js";

const YES = new Set(["true", "1", "yes"]);

export default defineCommand({
  positionals: [{ ...REFLECTION_PATH, path: "write" }],
  stdin: "evaluation.json",
  flags: {
    skill: { type: "string", required: true, help: `skill that ran: ${SKILLS.join(", ")}` },
    goal: { type: "string", required: true, help: "the run's goal" },
    outcome: { type: "string", required: true, help: `how it ended: ${OUTCOMES.join(", ")}` },
    "goal-achieved": { type: "string", help: "true, 1 or yes when the goal was achieved (default false)" },
  },
  async run(ctx, args) {
    const skill = args.skill as string;
    const outcome = args.outcome as string;
    const goal = args.goal as string;
    if (!(SKILLS as readonly string[]).includes(skill)) throw usage(`Invalid skill '${skill}'. Must be one of: ${SKILLS.join(", ")}`);
    if (!(OUTCOMES as readonly string[]).includes(outcome)) {
      throw usage(`Invalid outcome '${outcome}'. Must be one of: ${OUTCOMES.join(", ")}`);
    }
    if (goal === "") throw usage("Goal is required");

    const parsed = parseEvaluation(await ctx.stdin());
    if (!parsed.ok && parsed.reason === "json") throw new HelperError("E_JSON", "Invalid JSON in stdin (expected evaluation object)");
    if (!parsed.ok) throw new HelperError("E_SCHEMA", "Evaluation must be a JSON object");
    const evaluation = parsed.value;

    const { missing, notArrays } = evaluationProblems(evaluation);
    const warnings = EVALUATION_FIELDS.filter((f) => missing.includes(f) || notArrays.includes(f)).map(
      (f) => `evaluation missing array field: ${f}`,
    );

    const goalAchieved = YES.has(((args["goal-achieved"] as string | undefined) ?? "").toLowerCase());
    const added = await appendReflection(ctx.cwd, args.reflection_path as string, { skill, goal, outcome, goalAchieved, evaluation }, ctx.now());
    return { ...added, warnings };
  },
});

/**
 * Append one reflection (already checked: a known skill and outcome, a goal, an evaluation object). An execute
 * run's entry carries the open run's cost. `shown` is the reflection file as given (confined here).
 *
 * One reflection per run: the entry carries `runId`, the open run of its skill (`runId` given by run-end, else read
 * from the skill's run state), and a file that already holds a reflection of that run and skill gets no second one:
 * the answer is that entry's id with `alreadyRecorded: true`. A call killed after its line was written, retried,
 * or run-end retried after a kill between its reflection and its close, so leave one line. Without an open run
 * there is no key and every call appends.
 */
export async function appendReflection(
  cwd: string,
  shown: string,
  r: { skill: string; goal: string; outcome: string; goalAchieved: boolean; evaluation: Record<string, unknown>; runId?: string },
  now: number,
): Promise<Record<string, unknown>> {
  const target = confine(cwd, argLabel("reflection_path", shown, false), shown, "write", OWN.reflection);
  const design = projectRoots(cwd).design;
  const runId = r.runId ?? openRunOf(cwd, r.skill);
  let cost: Record<string, unknown> | null = null;
  if (r.skill === "execute") {
    const plan = readJson(join(design, "plan.json"));
    if (plan.kind === "ok") cost = runCost(plan.value, openRunId(design), roleKind);
  }
  const entry = {
    id: uuid4(), timestamp: isoSeconds(now), skill: r.skill, ...(runId ? { runId } : {}), goal: r.goal, outcome: r.outcome,
    goalAchieved: r.goalAchieved, evaluation: r.evaluation, ...(cost ? { cost } : {}),
  };
  try {
    ensureDir(dirname(target));
  } catch (err) {
    throw new HelperError("E_WRITE", `Error writing reflection file: ${detail(err)}`);
  }
  const earlier = await updateText<Record<string, unknown> | null>(target, (cur) => {
    const found = runId && cur !== null ? reflectionOfRun(cur, r.skill, runId) : null;
    return found ? { text: null, result: found } : { text: withAppendedLine(cur, entry), result: null };
  }, "Error writing reflection file", undefined, MAX_JSONL_BYTES);
  if (earlier) {
    const c = isObject(earlier.cost) ? earlier.cost : null;
    return {
      id: earlier.id, skill: r.skill, outcome: earlier.outcome, goalAchieved: earlier.goalAchieved, alreadyRecorded: true,
      ...(c ? { cost: { tokens: c.tokens, byTier: c.byTier } } : {}),
    };
  }
  return { id: entry.id, skill: r.skill, outcome: r.outcome, goalAchieved: r.goalAchieved, ...(cost ? { cost: { tokens: cost.tokens, byTier: cost.byTier } } : {}) };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The id of the open (not completed) run of `skill`, or undefined. */
function openRunOf(cwd: string, skill: string): string | undefined {
  if (!(SKILLS as readonly string[]).includes(skill)) return undefined;
  const state = readRun(runFile(cwd, ".design", skill, "read"));
  return state.kind === "ok" && state.run.completedAt === null ? state.run.runId : undefined;
}

/** The entry of `text` (reflection.jsonl) recorded for run `runId` of `skill`, or null. */
export function reflectionOfRun(text: string, skill: string, runId: string): Record<string, unknown> | null {
  const needle = JSON.stringify(runId);
  if (!text.includes(needle)) return null;
  for (const line of text.split("\n")) {
    if (!line.includes(needle)) continue;
    try {
      const e = JSON.parse(line) as unknown;
      if (isObject(e) && e.runId === runId && e.skill === skill) return e;
    } catch {
      /* a torn or foreign line is no reflection of this run */
    }
  }
  return null;
}

/** This run's reflection in .design/reflection.jsonl, or null. */
export function recordedReflection(cwd: string, skill: string, runId: string): Record<string, unknown> | null {
  const r = readConfined(cwd, join(projectRoots(cwd).design, "reflection.jsonl"), (p) => readText(p, MAX_JSONL_BYTES));
  return r.kind === "ok" ? reflectionOfRun(r.text, skill, runId) : null;
}
