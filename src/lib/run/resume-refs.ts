// Which refs a new session reads before it goes on with a resumed run: the ones an earlier phase loaded that the
// resumed phase still works from. A phase's own "Read `refs/x.md` now" line loads the rest when the lead gets
// there, so only carry-overs are listed. test/plugin/resume-refs.test.ts keeps this table true to the SKILL.md
// texts (each ref is read in an earlier phase; each earlier ref a phase names is listed for it).
import type { RunState } from "./run-state.js";

/** The experts checkpoint design writes on the quick path (skills/design/SKILL.md, phase 2). */
export const QUICK_PATH_DECISIONS = "skipped: quick path";

/** skill → resumed phase → refs (relative to the skill's folder) an earlier phase loaded. */
export const RESUME_REFS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  design: { finalize: ["refs/plan-template.md"] },
  improve: { analysis: ["refs/analyst-briefs.md"], "cross-review": ["refs/analyst-briefs.md"], finalize: ["refs/improvement-plan.md"] },
  reflect: { hypotheses: ["refs/pattern-analysis.md"] },
  recon: {},
};

/** Read only on design's quick path: the plan phase writes the draft as that ref says. */
export const QUICK_REFS: Readonly<Record<string, readonly string[]>> = { plan: ["refs/quick-path.md"] };

/** The refs to read before resuming `run` at `next`; null for a skill without a table (execute). */
export function resumeRefs(run: Pick<RunState, "skill" | "completed">, next: string | null): string[] | null {
  const table = RESUME_REFS[run.skill];
  if (table === undefined) return null;
  if (next === null) return [];
  const refs = [...(table[next] ?? [])];
  const quick = run.skill === "design" && run.completed.some((c) => c.phase === "experts" && c.decisions.trim() === QUICK_PATH_DECISIONS);
  if (quick) refs.push(...(QUICK_REFS[next] ?? []));
  return refs;
}
