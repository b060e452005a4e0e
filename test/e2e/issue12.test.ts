// Issue 12's skill behaviours through the real CLI (`claude -p "/do:<skill> …" --plugin-dir`), each in its own
// copy of the sample project: improve resolves a project skill by part of its name and answers an ambiguous one with
// candidates; recon run again with a recon.json in place keeps it (the new one goes to recon-2.json); design started
// over with a plan in progress is told not to archive it; reflect takes counts the test knows from the helper.
// The scripted lead runs every helper call exactly as the SKILL.md spells it.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ensureClaude, PLUGIN_DIR } from "./lib/claude.ts";
import { check, done, flowScript, ok, turn, type Flow } from "./lib/lead.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { GOAL, RECON_GOAL, reconDoc } from "./lib/fixtures.ts";
import { assertClean, session } from "./lib/session.ts";
import { SkillLead } from "./lib/skill-lead.ts";
import { cliSync } from "../helpers/cli.ts";
import type { ToolCall, TurnContext } from "./lib/stub.ts";

const TIMEOUT = 120_000;

function* calls(text: string, ...tools: ToolCall[]): Generator<any, TurnContext, TurnContext> {
  const ctx: TurnContext = yield turn(text, ...tools);
  check(ctx.results.length === tools.length, `expected ${tools.length} results, got ${ctx.results.length}`);
  return ctx;
}

function* helper(lead: SkillLead, text: string, command: string, contains: string[] = [], fill: Parameters<SkillLead["call"]>[2] = {}): Generator<any, any, TurnContext> {
  return ok((yield* calls(text, lead.run(command, contains, fill))).results[0]);
}

describe("issue 12 behaviours through claude -p", { concurrency: 1 }, () => {
  const projects: Sample[] = [];
  before(() => ensureClaude());
  after(() => cleanup(...projects.map((p) => p.dir)));
  const fresh = () => {
    const p = sampleProject();
    projects.push(p);
    return p;
  };

  it("/do:improve finds a project skill by part of its name, and answers an ambiguous name with candidates", { timeout: TIMEOUT }, async () => {
    const project = fresh();
    project.write(".claude/skills/greet-formal/SKILL.md", "---\nname: greet-formal\ndescription: Use when a formal greeting is wanted.\n---\n\n# Formal\n");
    project.write(".claude/skills/farewell/SKILL.md", "---\nname: farewell\ndescription: Use when saying goodbye.\n---\n\n# Bye\n");
    const lead = new SkillLead("improve", PLUGIN_DIR, project, "farew clarity");
    let partial: any;
    let ambiguous: any;
    const s = await session({
      prompt: "/do:improve farew clarity",
      cwd: project.dir,
      maxTurns: 5,
      script: flowScript(function* (): Flow {
        partial = yield* helper(lead, "Resolving the target.", "skill-find", [], { fill: { target: "farew" } });
        ambiguous = yield* helper(lead, "And a name that fits two.", "skill-find", [], { fill: { target: "gree" } });
        yield turn("Which greet skill do you mean?");
      }),
    });
    assertClean(s);
    assert.deepEqual([partial.match, partial.skill.path, partial.skill.inProject], ["partial", ".claude/skills/farewell/SKILL.md", true]);
    assert.deepEqual([ambiguous.match, ambiguous.resolved], ["ambiguous", false]);
    assert.deepEqual(ambiguous.candidates.map((c: any) => c.name).sort(), ["greet", "greet-formal"]);
    assert.match(ambiguous.advice, /Ask the user/);
  });

  it("/do:recon run again keeps the existing recon.json and writes recon-2.json", { timeout: TIMEOUT }, async () => {
    const project = fresh();
    project.write(".design/recon.json", JSON.stringify(reconDoc(), null, 2));
    const before = project.read(".design/recon.json");
    const lead = new SkillLead("recon", PLUGIN_DIR, project, RECON_GOAL);
    let ranked: any;
    let digest: any;
    const s = await session({
      prompt: `/do:recon ${RECON_GOAL}`,
      cwd: project.dir,
      maxTurns: 5,
      script: flowScript(function* (first): Flow {
        digest = lead.digest(first);
        done((yield* calls("The user keeps the old recon: writing the draft.", lead.write(".design/tmp/recon-draft.json", reconDoc()))).results[0]);
        ranked = yield* helper(lead, "Ranking.", "recon-rank");
        yield turn("Written to recon-2.json; the previous recon is kept.");
      }),
    });
    assertClean(s);
    assert.equal(digest.recon.exists, true);
    assert.match(digest.nextStep, /ask whether to replace it/);
    assert.deepEqual([ranked.collision, ranked.writtenTo, ranked.file], [true, ".design/recon-2.json", "recon-2.json"]);
    assert.equal(project.read(".design/recon.json"), before);
    assert.equal(project.json(".design/recon-2.json").interventions[0].rank, 1);
  });

  it("/do:design started over with a plan in progress is told not to archive it", { timeout: TIMEOUT }, async () => {
    const project = fresh();
    const plan = {
      schemaVersion: 4, goal: "earlier goal",
      roles: [
        { name: "a", goal: "A", model: "sonnet", scope: { directories: ["src/a"], patterns: [], dependencies: [] }, acceptanceCriteria: [{ criterion: "ok", check: "node --test test/" }], status: "completed", attempts: 0, result: "done", directoryOverlaps: [] },
        { name: "b", goal: "B", model: "sonnet", scope: { directories: ["src/b"], patterns: [], dependencies: [] }, acceptanceCriteria: [{ criterion: "ok", check: "node --test test/" }], status: "pending", attempts: 0, result: null, directoryOverlaps: [] },
      ],
    };
    project.write(".design/plan.json", JSON.stringify(plan, null, 2));
    assert.equal(cliSync(["run-start", "design", "--phases", "pre-flight,experts,cross-review,plan,finalize,reflect-and-report", "--goal", GOAL], { cwd: project.dir }).json.ok, true);
    assert.equal(cliSync(["run-checkpoint", "design", "--phase", "pre-flight"], { cwd: project.dir }).json.ok, true);
    const lead = new SkillLead("design", PLUGIN_DIR, project, GOAL);
    let status: any;
    let digest: any;
    const s = await session({
      prompt: `/do:design ${GOAL}`,
      cwd: project.dir,
      maxTurns: 5,
      script: flowScript(function* (first): Flow {
        digest = lead.digest(first);
        status = yield* helper(lead, "An earlier run stopped: comparing.", "run-status", [], { fill: { goal: GOAL } });
        yield turn("Start over without archiving: a plan is in progress. Keep it or archive it?");
      }),
    });
    assertClean(s);
    assert.deepEqual([digest.run.startOver.archive, digest.run.startOver.ask], [false, true]);
    assert.deepEqual([status.startOver.planState, status.startOver.archive], ["in_progress", false]);
    assert.match(status.startOver.advice, /^A plan is in progress \(1 of 2 roles completed\): do not archive now/);
    assert.equal(project.json(".design/plan.json").roles[1].status, "pending", "the plan is where it was");
  });

  it("/do:reflect takes its counts from reflect-metrics", { timeout: TIMEOUT }, async () => {
    const project = fresh();
    const day = (d: number) => `2026-11-0${d}T10:00:00Z`;
    const lines = [
      [1, "failed", "acceptance check needs a database"],
      [2, "failed", "the check needed a database again"],
      [3, "completed", "flaky network in the e2e suite"],
    ].map(([d, outcome, failed]) => JSON.stringify({ id: `r${d}`, timestamp: day(d as number), skill: "execute", goal: `g${d}`, outcome, goalAchieved: outcome === "completed", evaluation: { whatWorked: [], whatFailed: [failed], doNextTime: ["Give checks their own fixture"] } }));
    project.write(".design/reflection.jsonl", lines.join("\n") + "\n");
    const lead = new SkillLead("reflect", PLUGIN_DIR, project, "execute");
    let metrics: any;
    const s = await session({
      prompt: "/do:reflect execute",
      cwd: project.dir,
      maxTurns: 5,
      script: flowScript(function* (): Flow {
        metrics = yield* helper(lead, "Phase 2/6 Gather.", "reflect-metrics", [], { fill: { skill: "execute" } });
        yield turn("One active pattern over two runs.");
      }),
    });
    assertClean(s);
    assert.equal(metrics.runs.total, 3);
    assert.deepEqual(metrics.patterns.map((p: any) => [p.runs, p.status, p.confidence]), [[2, "active", "medium"], [1, "active", "anecdotal"]]);
    assert.equal(metrics.unaddressedFeedback[0].runs, 3);
  });
});
