// reflect-metrics: everything /do:reflect used to count by hand, in one answer: the runs of one skill by outcome,
// recurring failure patterns with their temporal status and confidence, the trend, advice repeated across runs, and
// the handoff's open items. Without --skill it picks the skill with the most failed or partial runs. Its one write:
// the open reflect run's pre-flight and gather checkpoints (lib/run/run-record.ts).
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError, usage } from "../../base/errors.js";
import {
  HIGH_CONFIDENCE_RUNS, MEDIUM_CONFIDENCE_RUNS, MIN_SHARED_WORDS, RECENT_RUNS, REPEATED_ADVICE_RUNS, SIMILARITY,
  TREND_DELTA, TREND_MIN_RUNS, computeMetrics, handoffItems, memoryRefs,
} from "../../lib/reflection/reflect-metrics.js";
import { SKILLS } from "../../lib/run/run-state.js";
import { readJsonl, readText, scanJsonlFile } from "../../store.js";
import { recordPhases } from "../../lib/run/run-record.js";

/** The skill with the most failed or partial runs; ties go to the one with more runs, then to the order of SKILLS. */
export function pickSkill(entries: readonly Record<string, unknown>[]): { skill: string | null; bySkill: Record<string, { runs: number; failedOrPartial: number }> } {
  const bySkill: Record<string, { runs: number; failedOrPartial: number }> = {};
  for (const e of entries) {
    if (typeof e.skill !== "string") continue;
    const s = (bySkill[e.skill] ??= { runs: 0, failedOrPartial: 0 });
    s.runs++;
    if (e.outcome === "failed" || e.outcome === "partial") s.failedOrPartial++;
  }
  const order = (k: string) => { const i = (SKILLS as readonly string[]).indexOf(k); return i < 0 ? SKILLS.length : i; };
  const best = Object.keys(bySkill).sort(
    (a, b) => bySkill[b].failedOrPartial - bySkill[a].failedOrPartial || bySkill[b].runs - bySkill[a].runs || order(a) - order(b) || (a < b ? -1 : 1),
  )[0];
  return { skill: best ?? null, bySkill };
}

/**
 * The fields of a reflection that pickSkill and computeMetrics read, with the same values (an evaluation that is an
 * object keeps its two lists; anything else stays as it was, and is then ignored as before).
 */
function slim(e: Record<string, unknown>): Record<string, unknown> {
  const ev = e.evaluation;
  const evaluation = typeof ev === "object" && ev !== null && !Array.isArray(ev)
    ? { whatFailed: (ev as Record<string, unknown>).whatFailed, doNextTime: (ev as Record<string, unknown>).doNextTime }
    : ev;
  return { skill: e.skill, outcome: e.outcome, timestamp: e.timestamp, goal: e.goal, goalAchieved: e.goalAchieved, evaluation };
}

/**
 * Why `hypothesize` is empty, in a sentence for the user (issue 31: reflect asked a question with no options, and
 * `--min-runs 1` looked as if one run could give a hypothesis). One run that did not fail or abort is anecdotal
 * whatever the minimum: only a failed or aborted run, a pattern seen in two runs or advice repeated in
 * REPEATED_ADVICE_RUNS runs gives one.
 */
function whyNoHypothesis(runs: number, m: ReturnType<typeof computeMetrics>): string {
  if (runs === 0) return "no runs of this skill are recorded";
  const active = m.patterns.filter((p) => p.status === "active");
  if (m.patterns.length === 0) return `none of the ${runs} run${runs === 1 ? "" : "s"} recorded a failure to learn from`;
  if (active.length === 0) return "every failure pattern is resolved or likely resolved, and no advice was repeated";
  return (
    `the ${active.length} active pattern${active.length === 1 ? " was" : "s were each"} seen in one run that neither failed nor aborted ` +
    `(anecdotal), and no advice was repeated in ${REPEATED_ADVICE_RUNS} runs: one such run never gives a hypothesis, whatever --min-runs says`
  );
}

export default defineCommand({
  positionals: [{ name: "reflection_path", help: "reflection file (JSONL)", default: ".design/reflection.jsonl" }],
  flags: {
    skill: { type: "string", help: "the skill whose runs to analyse; omitted: the one with the most failed or partial runs" },
    "min-runs": { type: "int", help: "runs needed for an analysis (enoughRuns)", default: 2 },
    memory: { type: "string", path: "read", help: "memory file whose entries can confirm a pattern resolved", default: ".design/memory.jsonl" },
    handoff: { type: "string", path: "read", help: "handoff notes whose open items are reported", default: ".design/handoff.md" },
  },
  async run(ctx, args) {
    const minRuns = args["min-runs"] as number;
    if (minRuns < 1) throw usage("reflect-metrics: --min-runs must be at least 1");
    // Each line kept as the fields read below only: the rest of a parsed line dies young (at 50,000 reflections
    // the whole objects, kept, were most of the garbage collector's work).
    const entries: Record<string, unknown>[] = [];
    const read = scanJsonlFile(resolve(ctx.cwd, args.reflection_path as string), (e) => entries.push(slim(e)));
    if (read.kind === "error") throw new HelperError("E_READ", `Error reading reflection file: ${read.detail}`);
    // Reflect's own aborted runs (too few runs, a plan kept) record no evidence about any skill: counted, they would
    // fill the minimum with reflect's own waiting.
    const all = entries.filter((e) => !(e.skill === "reflect" && e.outcome === "aborted"));
    const picked = pickSkill(all);
    const asked = (args.skill as string | undefined) ?? "";
    const skill = asked !== "" ? asked : picked.skill;
    const mine = skill === null ? [] : all.filter((e) => e.skill === skill);

    const mem = readJsonl(resolve(ctx.cwd, args.memory as string));
    const memories = mem.kind === "ok" ? memoryRefs(mem.entries.map((e) => e.value)) : [];
    const handoffRead = readText(resolve(ctx.cwd, args.handoff as string));
    const metrics = computeMetrics(mine, memories);
    const rec = mine.length >= minRuns
      ? await recordPhases(ctx.cwd, "reflect", "gather", ctx.now(), `skill ${skill}, ${mine.length} runs, at least ${minRuns}`)
      : null;
    const noHypothesisBecause = metrics.hypothesize.length ? null : whyNoHypothesis(mine.length, metrics);
    return {
      ...(rec ? { checkpoint: rec.announce } : {}),
      skill,
      skillChosen: asked === "" && skill !== null,
      ...(asked === "" ? { chosenBecause: skill === null ? "no reflections recorded" : `most failed or partial runs (${picked.bySkill[skill].failedOrPartial} of ${picked.bySkill[skill].runs})` } : {}),
      bySkill: picked.bySkill,
      enoughRuns: mine.length >= minRuns,
      minRuns,
      skippedLines: read.kind === "ok" ? read.skipped : 0,
      ownAbortedIgnored: entries.length - all.length,
      ...metrics,
      ...(noHypothesisBecause ? { noHypothesisBecause } : {}),
      handoff: handoffItems(handoffRead.kind === "ok" ? handoffRead.text : null),
      rules: {
        sameCause: `at least ${MIN_SHARED_WORDS} shared content words, covering ${SIMILARITY * 100}% of the shorter text`,
        active: `seen in one of the ${RECENT_RUNS} most recent runs`,
        confirmedResolved: "a memory about it recorded at or after its last occurrence",
        confidence: `high from ${HIGH_CONFIDENCE_RUNS} runs, medium ${MEDIUM_CONFIDENCE_RUNS}, low 1 failed or aborted run, anecdotal 1 other run`,
        unaddressed: `advice repeated in ${REPEATED_ADVICE_RUNS} or more runs`,
        hypothesize: "each active pattern whose confidence is not anecdotal, and each unaddressed advice",
        trend: `success rate of the newer half against the older, change of ${TREND_DELTA} or more; needs ${TREND_MIN_RUNS} runs`,
      },
    };
  },
});
