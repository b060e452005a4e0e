// Right-sized ceremony (issue 24): a small goal designed on the quick path through the real CLI. The scripted lead
// follows design's SKILL.md call by call: design-tier answers `quick` for a one-area goal, the lead spawns no
// expert, checkpoints the experts and cross-review phases as skipped, writes a one-role draft marked
// `complexity: "low"` with the auxiliaries the answer named, design-tier --draft says it fits, finalize installs it.
// No agent is started, nothing asks for approval, and plan.json records the tier.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ensureClaude, PLUGIN_DIR } from "./lib/claude.ts";
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
        seen.start = yield* helper(lead, "Starting the run.", "run-start", [], { fill: { goal: GOAL } });
        check(digest.plan.state === "none", `plan state ${digest.plan.state}`);
        yield* helper(lead, "Moving stale expert artifacts aside.", "archive", ["--only experts"]);
        yield* helper(lead, "Fetching past learnings.", "memory-search", [], { fill: { goal: GOAL } });
        seen.tier = yield* helper(lead, "The goal is clear; asking the helper for its tier.", "design-tier", ["--goal"], { fill: { "clarified goal": CLARIFIED } });
        check(seen.tier.path === "quick", `design-tier answered ${JSON.stringify(seen.tier)}`);
        yield* helper(lead, "Pre-flight done.", "run-checkpoint", ["--phase pre-flight"], {
          fill: { "clarified goal": CLARIFIED, type: "implementation", complexity: seen.tier.complexity, n: "0" },
        });
        done((yield* calls("Quick path: reading its ref.", lead.ref("quick-path.md"))).results[0]);
        seen.experts = yield* helper(lead, "No experts on the quick path.", "run-checkpoint", ["skipped: quick path"], { fill: { phase: "experts" } });
        seen.review = yield* helper(lead, "No cross-review either.", "run-checkpoint", ["skipped: quick path"], { fill: { phase: "cross-review" } });
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
          skippedAuxiliaries: ["challenger", "scout"].map((name) => ({ name, reason: `design-tier answered the quick path: ${seen.tier.signals.join("; ")}` })),
        };
        done((yield* calls("Draft written.", lead.write(".design/draft/plan.json", draft))).results[0]);
        seen.fits = yield* helper(lead, "Does the draft keep the quick path's limits?", "design-tier", ["--draft"]);
        check(seen.fits.fits === true, `draft does not fit: ${JSON.stringify(seen.fits.reasons)}`);
        yield* helper(lead, "Plan phase done.", "run-checkpoint", ["--phase plan"], { fill: { n: "1", "yes|no": "no", "approved|not reviewed": "not reviewed" } });
        seen.checks = yield* helper(lead, "Checking the checks.", "validate-checks");
        seen.finalize = yield* helper(lead, "Finalizing.", "finalize");
        yield* helper(lead, "Finalized.", "run-checkpoint", ["--phase finalize"], { fill: { n: "0" } });
        done((yield* calls("Evaluating.", lead.write(".design/tmp/eval.json", { whatWorked: ["The quick path planned a one-area goal without experts"], whatFailed: [], doNextTime: ["Keep small goals on the quick path"], expertQuality: "none", crossReviewValue: "skipped", planCompleteness: "complete" }))).results[0]);
        yield* helper(lead, "Recording the reflection.", "reflection-add", [], { fill: { goal: CLARIFIED } });
        seen.complete = yield* helper(lead, "Closing the run.", "run-complete");
      }),
    });
    assertClean(s);
    const helperCalls = s.main.flatMap((r) => r.answer?.tools ?? []).filter((c) => c.name === "Bash" && String(c.input.command).includes("/scripts/plan.js")).length;
    t.diagnostic(`quick path: ${helperCalls} helper calls, ${s.main.length} lead turns, ${s.agents.length} agent requests`);
    // No expert, no agent of any kind: the quick path spawned no one.
    assert.equal(s.agents.length, 0, "an agent was started");
    const agentCalls = s.main.flatMap((r) => r.answer?.tools ?? []).filter((t) => t.name === "Agent");
    assert.deepEqual(agentCalls, []);
    // The helper's decision and what the plan records.
    assert.deepEqual([seen.tier.complexity, seen.tier.experts, seen.tier.crossReview, seen.tier.draftReview], ["low", 0, false, false]);
    assert.deepEqual(seen.tier.goalAreas, ["src/api"]);
    assert.equal(seen.tier.commands.test, "npm test");
    assert.match(seen.experts.announce, /phase 2\/6 experts: done · decisions: skipped: quick path/);
    assert.match(seen.review.announce, /phase 3\/6 cross-review: done · decisions: skipped: quick path/);
    assert.deepEqual([seen.fits.roles, seen.fits.areas, seen.fits.depth], [1, ["src/api"], 1]);
    const plan = project.json(".design/plan.json");
    assert.equal(plan.complexity, "low");
    assert.deepEqual(plan.auxiliaryRoles.map((a: any) => a.name), ["integration-verifier", "memory-curator"], "no challenger, no scout");
    assert.equal(plan.roles.length, 1);
    // The run recorded the goal as given; the clarified one is in the pre-flight decisions.
    const run = project.json(".design/run-design.json");
    assert.equal(run.goal, GOAL);
    assert.match(run.completed[0].decisions, new RegExp(`^goal: ${CLARIFIED}; implementation, low, 0 memories$`));
    assert.notEqual(run.completedAt, null);
    assert.deepEqual(project.list(".design").filter((f: string) => f.startsWith("expert-")), []);
  });
});
