// reflection-add: append one run's self-evaluation to reflection.jsonl (contract 4.18). The evaluation comes on
// stdin and must be a JSON object (Fix D23); missing or non-array whatWorked / whatFailed / doNextTime are
// reported in the added `warnings` key without failing. The append is a locked copy-and-rename (contract 1.7).
// An execute run's reflection also carries what the run cost (`cost`, from record-usage's records in plan.json for
// the open execute run), which /do:runs shows and the forecast learns from once the plan is archived.
import { defineCommand } from "../../lib/command.js";
import { HelperError, usage } from "../../lib/errors.js";
import { isoSeconds, uuid4 } from "../../lib/values.js";
import { appendJsonl, argLabel, confine } from "../../store.js";
import { OWN } from "../../lib/owned.js";
import { openRunId } from "../../lib/budget.js";
import { runCost } from "../../lib/cost.js";
import { roleKind } from "../../lib/forecast.js";
import { projectRoots, readJson } from "../../store.js";
import { join } from "node:path";
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
 */
export async function appendReflection(
  cwd: string,
  shown: string,
  r: { skill: string; goal: string; outcome: string; goalAchieved: boolean; evaluation: Record<string, unknown>; runId?: string },
  now: number,
): Promise<Record<string, unknown>> {
  const target = confine(cwd, argLabel("reflection_path", shown, false), shown, "write", OWN.reflection);
  let cost: Record<string, unknown> | null = null;
  if (r.skill === "execute") {
    const design = projectRoots(cwd).design;
    const plan = readJson(join(design, "plan.json"));
    if (plan.kind === "ok") cost = runCost(plan.value, openRunId(design), roleKind);
  }
  const entry = { id: uuid4(), timestamp: isoSeconds(now), skill: r.skill, goal: r.goal, outcome: r.outcome, goalAchieved: r.goalAchieved, evaluation: r.evaluation, ...(cost ? { cost } : {}), ...(r.runId ? { runId: r.runId } : {}) };
  await appendJsonl(target, entry, "Error writing reflection file");
  return { id: entry.id, skill: r.skill, outcome: r.outcome, goalAchieved: r.goalAchieved, ...(cost ? { cost: { tokens: cost.tokens, byTier: cost.byTier } } : {}) };
}
