// Right-sized ceremony (issue 24): a small goal designed on the quick path through the real CLI. The scripted lead
// follows design's SKILL.md call by call: run-begin opens the run, design-tier answers `quick` for a one-area goal
// (and records pre-flight), the lead spawns no expert, writes a one-role draft marked `complexity: "low"` with the
// auxiliaries the answer named, design-tier --draft says it fits (and records experts and cross-review as skipped),
// finalize installs it (plan, finalize), run-end closes the run. No agent is started, nothing asks for approval,
// plan.json records the tier, and the whole run takes at most 6 helper calls (issue 30).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CLAUDE_CODE_VERSION, ensureClaude, PLUGIN_DIR } from "./lib/claude.ts";
import { check, done, flowScript, type Flow } from "./lib/lead.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { assertClean, session } from "./lib/session.ts";
import { calls, helper, SkillLead } from "./lib/skill-lead.ts";

const GOAL = "add due dates to the todo API";
const CLARIFIED = "add an optional ISO due date to each todo served by the API";

describe("/do:design on the quick path", () => {
  let project: Sample;
  before(() => {
    ensureClaude();
    project = sampleProject();
  });
  after(() => cleanup(project?.dir));

  it("a one-area goal is planned without experts, and the plan records complexity low [feature:design/quick-path]", { timeout: 240_000 }, async (t) => {
    const lead = new SkillLead("design", PLUGIN_DIR, project, GOAL);
    const seen: Record<string, any> = {};
    const s = await session({
      prompt: `/do:design ${GOAL}`,
      cwd: project.dir,
      maxTurns: 30,
      script: flowScript(function* (first): Flow {
        const digest = lead.digest(first);
        check(!digest.run, "no earlier run");
        check(digest.plan.state === "none", `plan state ${digest.plan.state}`);
        seen.start = yield* helper(lead, "Opening the run.", "run-begin", [], { fill: { goal: GOAL } });
        check(seen.start.action === "start" && Array.isArray(seen.start.memories), JSON.stringify(seen.start));
        seen.tier = yield* helper(lead, "The goal is clear; asking the helper for its tier.", "design-tier", ["--goal"], { fill: { "clarified goal": CLARIFIED } });
        check(seen.tier.path === "quick", `design-tier answered ${JSON.stringify(seen.tier)}`);
        done((yield* calls("Quick path: reading its ref.", lead.ref("quick-path.md"))).results[0]);
        done((yield* calls("Writing the plan.", lead.ref("plan-template.md"))).results[0]);
        const aux = (name: string) => ({
          name,
          type: "post-execution",
          trigger: "after-all-roles-complete",
          model: "sonnet",
          goal: name === "memory-curator" ? "Keep what this run teaches" : "Check the due dates work end to end",
        });
        const draft = {
          schemaVersion: 4,
          goal: CLARIFIED,
          complexity: seen.tier.complexity,
          context: { stack: "Node.js", conventions: [], testCommand: seen.tier.commands.test, buildCommand: seen.tier.commands.build, lsp: null },
          expertArtifacts: [],
          designDecisions: [],
          verificationSpecs: [],
          roles: [
            {
              name: "api-developer",
              goal: "Each todo may carry an optional ISO due date that the API accepts, validates and returns",
              model: "sonnet",
              scope: { directories: seen.tier.goalAreas, patterns: ["test/*.test.js"], dependencies: [] },
              constraints: ["Keep the list function's signature unchanged"],
              acceptanceCriteria: [{ criterion: "The test suite passes with due-date tests", check: "node --test test/" }],
              assumptions: [],
              rollbackTriggers: [],
            },
          ],
          auxiliaryRoles: seen.tier.auxiliaries.map(aux),
        };
        done((yield* calls("Draft written.", lead.write(".design/draft/plan.json", draft))).results[0]);
        seen.fits = yield* helper(lead, "Does the draft keep the quick path's limits?", "design-tier", ["--draft"]);
        check(seen.fits.fits === true, `draft does not fit: ${JSON.stringify(seen.fits.reasons)}`);
        seen.finalize = yield* helper(lead, "Finalizing (it judges the checks too).", "finalize");
        done((yield* calls("Evaluating.", lead.write(".design/tmp/eval.json", { whatWorked: ["The quick path planned a one-area goal without experts"], whatFailed: [], doNextTime: ["Keep small goals on the quick path"], expertQuality: "none", crossReviewValue: "skipped", planCompleteness: "complete" }))).results[0]);
        seen.end = yield* helper(lead, "Recording the reflection and closing the run.", "run-end");
      }),
    });
    assertClean(s);
    t.diagnostic(`quick path on ${CLAUDE_CODE_VERSION}: ${s.tally.helperCalls} helper calls (cap 6), ${s.tally.leadTurns} lead turns, ${s.agents.length} agent requests, skill text ~${s.tally.skillTokens} tokens on invoke`);
    assert.ok(s.tally.helperCalls <= 6, `${s.tally.helperCalls} helper calls on the quick path, over its cap of 6`);
    // No expert, no agent of any kind: the quick path spawned no one.
    assert.equal(s.agents.length, 0, "an agent was started");
    const agentCalls = s.main.flatMap((r) => r.answer?.tools ?? []).filter((t) => t.name === "Agent");
    assert.deepEqual(agentCalls, []);
    // The helper's decision and what the plan records.
    assert.deepEqual([seen.tier.complexity, seen.tier.experts, seen.tier.crossReview, seen.tier.draftReview], ["low", 0, false, false]);
    assert.deepEqual(seen.tier.goalAreas, ["src/api"]);
    assert.equal(seen.tier.commands.test, "npm test");
    assert.match(seen.tier.checkpoint, /phase 1\/6 pre-flight: done/);
    assert.match(seen.fits.checkpoint, /phase 3\/6 experts, cross-review: done/);
    assert.match(seen.finalize.checkpoint, /phase 5\/6 plan, finalize: done/);
    assert.equal(seen.end.run.outcome, "completed");
    assert.deepEqual([seen.fits.roles, seen.fits.areas, seen.fits.depth], [1, ["src/api"], 1]);
    const plan = project.json(".design/plan.json");
    assert.equal(plan.complexity, "low");
    assert.deepEqual(plan.auxiliaryRoles.map((a: any) => a.name), ["integration-verifier", "memory-curator"], "no challenger, no scout");
    assert.equal(plan.roles.length, 1);
    // The run recorded the goal as given; the clarified one is in the pre-flight decisions.
    const run = project.json(".design/run-design.json");
    assert.equal(run.goal, GOAL);
    assert.match(run.completed[0].decisions, new RegExp(`^goal: ${CLARIFIED}; low, quick path$`));
    assert.deepEqual(run.completed.slice(1, 3).map((c: any) => c.decisions), ["skipped: quick path", "skipped: quick path"]);
    assert.notEqual(run.completedAt, null);
    assert.deepEqual(project.list(".design").filter((f: string) => f.startsWith("expert-")), []);
  });
});
