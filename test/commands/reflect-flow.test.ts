// /do:reflect's early endings as the helper sees them (issue 31), each call as skills/reflect/SKILL.md spells it:
// - nothing selected (or nothing to select): the run closes `completed` once hypotheses and plan are checkpointed
//   (skipped), as the skill now says; closing it without them is refused ("phases never checkpointed");
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
  it("nothing selected: completed once hypotheses and plan are checkpointed, refused without them", async (t) => {
    const p = project(t, { ".design/reflection.jsonl": [refl("design", "2026-11-01T00:00:00Z"), refl("design", "2026-11-02T00:00:00Z")] });
    assert.equal((await p.run("run-start", ["reflect", "--phases", PHASES, "--goal", "design"])).ok, true);
    for (const phase of ["pre-flight", "gather", "analyse"]) await p.run("run-checkpoint", ["reflect", "--phase", phase, "--decisions", "done"]);
    const early: any = await p.run("run-complete", ["reflect", "--outcome", "completed"]);
    assert.equal(early.ok, false, "what the old text led to");
    assert.match(early.error, /phases never checkpointed: hypotheses, plan/);
    // What the skill says now: checkpoint this phase (selected: none) and plan (skipped), then close completed.
    assert.match(SKILL, /None selected → checkpoint it\s+\(`selected: none`\) and `plan` \(`skipped: nothing selected`\), then phase 6 \(completed\)/);
    await p.run("run-checkpoint", ["reflect", "--phase", "hypotheses", "--decisions", "selected: none"]);
    await p.run("run-checkpoint", ["reflect", "--phase", "plan", "--decisions", "skipped: nothing selected"]);
    const done: any = await p.run("run-complete", ["reflect", "--outcome", "completed"]);
    assert.equal(done.ok, true, JSON.stringify(done));
    assert.deepEqual(done.skippedPhases, []);
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
