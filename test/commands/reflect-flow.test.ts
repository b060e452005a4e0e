// /do:reflect's early endings as the helper sees them (issue 31), each call as skills/reflect/SKILL.md spells it:
// - nothing selected (or nothing to select): the run closes `aborted`, goal not achieved (issue 30's skills make no
//   checkpoint call; closing it `completed` without those phases is refused: "phases never checkpointed");
// - too few runs of the skill analysed: the pre-flight digest counts per skill, so the skill stops before step 5
//   archives the finished plan (the plan and its report stay where the user just saw them).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { planWith, project } from "../helpers/design-dir.ts";

const PHASES = "pre-flight,gather,analyse,hypotheses,plan,reflect-and-report";
const SKILL = readFileSync(resolve(__dirname, "../../skills/reflect/SKILL.md"), "utf8");

const refl = (skill: string, ts: string, outcome = "completed") => ({
  id: `r-${skill}-${ts}`, skill, goal: `${skill} goal`, outcome, goalAchieved: outcome === "completed", timestamp: ts,
  evaluation: { whatWorked: ["x"], whatFailed: ["the checks were surface only"], doNextTime: ["write behavioural checks"] },
});

describe("reflect's early endings [feature:reflect/not-enough-runs]", () => {
  it("nothing selected: the run closes aborted with the goal not achieved; completed would be refused", async (t) => {
    // Issue 30's skills record a phase by the call that produces it; no call produces hypotheses or plan when nothing
    // is selected, so the skill closes the run aborted (the digest never calls an aborted run failed, issue 31).
    const p = project(t, { ".design/reflection.jsonl": [refl("design", "2026-11-01T00:00:00Z"), refl("design", "2026-11-02T00:00:00Z")] });
    assert.equal(((await p.run("run-begin", ["reflect", "--goal", "design"])) as any).ok, true);
    const metrics: any = await p.run("reflect-metrics", [".design/reflection.jsonl", "--skill", "design"]);
    assert.equal(metrics.enoughRuns, true);
    const early: any = await p.run("run-end", ["reflect", "--outcome", "completed"]);
    assert.equal(early.ok, false, "completed without the later phases");
    assert.match(early.error, /phases never checkpointed/);
    assert.match(SKILL, /None selected → phase 6 \(aborted: nothing to\s+plan, `--goal-achieved false`\)/);
    const done: any = await p.run("run-end", ["reflect", "--outcome", "aborted", "--goal-achieved", "false"]);
    assert.equal(done.ok, true, JSON.stringify(done));
    assert.equal(done.run.outcome, "aborted");
  });

  it("too few runs of the skill: the digest counts per skill before the plan would be archived", async (t) => {
    // Three runs in all, one per skill: enough together for a minimum of 2, not for any one skill.
    const p = project(t, {
      ".design/reflection.jsonl": [refl("design", "2026-11-01T00:00:00Z"), refl("execute", "2026-11-02T00:00:00Z"), refl("recon", "2026-11-03T00:00:00Z")],
      ".design/plan.json": planWith([{ name: "api", status: "completed" }]),
    });
    const digest: any = await p.run("preflight", ["reflect"]);
    assert.equal(digest.reflections.evidence, 3, "counted together: above the minimum");
    assert.deepEqual(digest.reflections.evidenceBySkill, { design: 1, execute: 1, recon: 1 });
    assert.ok(Math.max(...Object.values(digest.reflections.evidenceBySkill as Record<string, number>)) < 2, "per skill: below it");
    // The skill compares per skill in step 4, before step 5 archives the plan.
    const pre = SKILL.slice(SKILL.indexOf("## 1. Pre-flight"), SKILL.indexOf("## 2. Gather"));
    const check = pre.indexOf("`reflections.evidenceBySkill`");
    const archive = pre.indexOf("archive .design --include-plan");
    assert.ok(check > 0 && archive > check, "the per-skill count comes before the archive");
    assert.ok(readFileSync(join(p.dir, ".design/plan.json"), "utf8").includes('"api"'), "nothing archived");
  });
});
