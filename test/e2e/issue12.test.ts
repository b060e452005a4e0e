// Issue 12's skill behaviours through the real CLI (`claude -p "/do:<skill> …" --plugin-dir`), each in its own
// copy of the sample project: improve resolves a project skill by part of its name and stops to ask about an
// ambiguous one with the helper's candidates; recon moves an earlier run's expert artifacts aside, keeps an existing
// recon.json (the new one goes to recon-2.json) and replaces it only once the user said so (a resumed session);
// design started over with a plan in progress keeps the plan (the helper refuses to move it without the flag) and
// archives it with --include-plan after the user's yes; reflect takes counts the test knows from the helper.
// The scripted lead runs every helper call exactly as the SKILL.md spells it. A user's answer is the prompt of a
// second session that resumes the first (`--resume <session_id>`, same HOME): `-p` offers no AskUserQuestion.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ensureClaude, PLUGIN_DIR, scratchHome } from "./lib/claude.ts";
import { rmSync } from "node:fs";
import { check, done, flowScript, helperJson, ok, turn, type Flow } from "./lib/lead.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { GOAL, RECON_GOAL, reconDoc } from "./lib/fixtures.ts";
import { assertClean, session } from "./lib/session.ts";
import { calls, helper, SkillLead } from "./lib/skill-lead.ts";
import { cliSync } from "../helpers/cli.ts";
import type { ToolCall, TurnContext } from "./lib/stub.ts";

const TIMEOUT = 120_000;

/** A helper call that must run and answer ok:false (the helper refusing); returns its JSON. */
function* refused(lead: SkillLead, text: string, command: string, contains: string[] = [], fill: Parameters<SkillLead["call"]>[2] = {}): Generator<any, any, TurnContext> {
  const r = (yield* calls(text, lead.run(command, contains, fill))).results[0];
  const doc = helperJson(r);
  check(doc.ok === false, `${command} should have been refused: ${r.text}`);
  return doc;
}

describe("issue 12 behaviours through claude -p", { concurrency: 1 }, () => {
  const projects: Sample[] = [];
  before(() => ensureClaude());
  after(() => cleanup(...projects.map((p) => p.dir)));
  const homes: string[] = [];
  after(() => {
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });
  const fresh = () => {
    const p = sampleProject();
    projects.push(p);
    return p;
  };
  /** A HOME kept across two sessions, so the second can resume the first. */
  const home = () => {
    const h = scratchHome();
    homes.push(h);
    return h;
  };

  it("/do:improve finds a project skill by part of its name, and stops to ask about an ambiguous name with candidates [feature:improve/resolve-target]", { timeout: TIMEOUT }, async () => {
    const project = fresh();
    project.write(".claude/skills/greet-formal/SKILL.md", "---\nname: greet-formal\ndescription: Use when a formal greeting is wanted.\n---\n\n# Formal\n");
    project.write(".claude/skills/farewell/SKILL.md", "---\nname: farewell\ndescription: Use when saying goodbye.\n---\n\n# Bye\n");
    const lead = new SkillLead("improve", PLUGIN_DIR, project, "farew clarity");
    let partial: any;
    let ambiguous: any;
    let question = "";
    const s = await session({
      prompt: "/do:improve farew clarity",
      cwd: project.dir,
      maxTurns: 5,
      script: flowScript(function* (): Flow {
        partial = yield* helper(lead, "Resolving the target.", "skill-find", [], { fill: { target: "farew" } });
        ambiguous = yield* helper(lead, "And a name that fits two.", "skill-find", [], { fill: { target: "gree" } });
        // The skill: `ambiguous` → ask with the candidates (qualifiedName, source, path), start nothing before the answer.
        question = `"gree" fits ${ambiguous.candidates.length} skills. Which one? ${ambiguous.candidates.map((c: any) => `${c.qualifiedName} (${c.source}, ${c.path})`).join("; ")}`;
        yield turn(question);
      }),
    });
    assertClean(s);
    assert.match(s.received, /`ambiguous` → AskUserQuestion with the `candidates`\s+\(qualifiedName,\s+source, path\)/);
    assert.deepEqual([partial.match, partial.skill.path, partial.skill.inProject], ["partial", ".claude/skills/farewell/SKILL.md", true]);
    assert.deepEqual([ambiguous.match, ambiguous.resolved], ["ambiguous", false]);
    assert.deepEqual(ambiguous.candidates.map((c: any) => c.name).sort(), ["greet", "greet-formal"]);
    assert.ok(ambiguous.candidates.every((c: any) => typeof c.path === "string" && c.path.endsWith("SKILL.md")), JSON.stringify(ambiguous.candidates));
    assert.match(ambiguous.advice, /Ask the user/);
    assert.equal(s.run.json.result, question, "the session ends on the question");
    for (const c of ambiguous.candidates) assert.ok(s.run.json.result.includes(c.path), c.path);
    assert.equal(project.exists(".design/run-improve.json"), false, "no run starts before the user answers");
  });

  it("/do:recon run again moves the earlier expert artifacts aside, keeps the existing recon.json and writes recon-2.json [feature:recon/keep-existing-recon] [feature:recon/stale-artifacts-aside]", { timeout: TIMEOUT }, async () => {
    const project = fresh();
    project.write(".design/recon.json", JSON.stringify(reconDoc(), null, 2));
    project.write(".design/expert-codebase-analyst.json", JSON.stringify({ summary: "an earlier run's findings", findings: [] }));
    const before = project.read(".design/recon.json");
    const lead = new SkillLead("recon", PLUGIN_DIR, project, RECON_GOAL);
    let ranked: any;
    let digest: any;
    let moved: any;
    let stale: any;
    const s = await session({
      prompt: `/do:recon ${RECON_GOAL}`,
      cwd: project.dir,
      maxTurns: 6,
      script: flowScript(function* (first): Flow {
        digest = lead.digest(first);
        // The user keeps the old recon (asked from the digest); run-begin sets the earlier researcher artifacts aside.
        moved = yield* helper(lead, "A fresh run: earlier researcher artifacts go to history.", "run-begin", [], { fill: { goal: RECON_GOAL } });
        stale = yield* refused(lead, "The earlier artifact can no longer pass as this run's.", "expert-validate", [], { fill: { name: "codebase-analyst", "names still out": "codebase-analyst" } });
        done((yield* calls("The user keeps the old recon: writing the draft.", lead.write(".design/tmp/recon-draft.json", reconDoc()))).results[0]);
        ranked = yield* helper(lead, "Ranking.", "recon-rank");
        yield turn("Written to recon-2.json; the previous recon is kept.");
      }),
    });
    assertClean(s);
    assert.equal(digest.recon.exists, true);
    assert.match(digest.nextStep, /ask whether to replace it/);
    assert.deepEqual(moved.setAside, ["expert-codebase-analyst.json"]);
    assert.ok(project.list(".design/history").some((h: string) => project.exists(`.design/history/${h}/expert-codebase-analyst.json`)));
    assert.equal(stale.code, "E_NOT_FOUND", JSON.stringify(stale));
    assert.deepEqual([ranked.collision, ranked.writtenTo, ranked.file], [true, ".design/recon-2.json", "recon-2.json"]);
    assert.equal(project.read(".design/recon.json"), before);
    assert.equal(project.json(".design/recon-2.json").interventions[0].rank, 1);
  });

  it("/do:recon replaces the existing recon.json only after the user said so [feature:recon/replace-on-user-word]", { timeout: 2 * TIMEOUT }, async () => {
    const project = fresh();
    const old = reconDoc();
    project.write(".design/recon.json", JSON.stringify(old, null, 2));
    const before = project.read(".design/recon.json");
    const lead = new SkillLead("recon", PLUGIN_DIR, project, RECON_GOAL);
    const h = home();
    let digest: any;
    const asked = await session({
      prompt: `/do:recon ${RECON_GOAL}`,
      cwd: project.dir,
      home: h,
      maxTurns: 3,
      script: flowScript(function* (first): Flow {
        digest = lead.digest(first);
        yield turn(`The previous recon has ${digest.recon.interventionCount} interventions. Replace it (it moves to .design/history/) or keep it (this run writes .design/recon-2.json)?`);
      }),
    });
    assertClean(asked);
    assert.equal(project.read(".design/recon.json"), before, "asking changes nothing");
    const sessionId = asked.run.json.session_id;
    assert.equal(typeof sessionId, "string");

    let ranked: any;
    const draft = reconDoc();
    const s = await session({
      prompt: "Replace it",
      cwd: project.dir,
      home: h,
      args: ["--resume", sessionId],
      maxTurns: 4,
      script: flowScript(function* (first): Flow {
        check(JSON.stringify(first.body.messages).includes("Replace it (it moves to .design/history/) or keep it"), "the resumed session holds the question");
        done((yield* calls("Replacing, as you said: writing the draft.", lead.write(".design/tmp/recon-draft.json", draft))).results[0]);
        // Phase 4: "add --replace when the user chose to replace the previous recon".
        ranked = ok((yield* calls("Ranking.", { name: "Bash", input: { command: `${lead.call("recon-rank")} --replace`, description: "do helper: recon-rank" } })).results[0]);
        yield turn("The new recon replaced the old one; the old one is in history.");
      }),
    });
    assertClean(s);
    assert.deepEqual([ranked.collision, ranked.writtenTo], [false, ".design/recon.json"]);
    assert.match(ranked.previousMovedTo, /^\.design\/history\/[^/]+\/recon\.json$/);
    assert.equal(project.read(ranked.previousMovedTo), before);
    assert.equal(project.exists(".design/recon-2.json"), false);
    assert.equal(project.json(".design/recon.json").interventions[0].rank, 1);
  });

  it("/do:design started over with a plan in progress keeps it, and archives it with the explicit flag after the user's yes [feature:design/keep-plan-unless-user-agrees]", { timeout: 2 * TIMEOUT }, async () => {
    const project = fresh();
    const plan = {
      schemaVersion: 4, goal: "earlier goal",
      roles: [
        { name: "a", goal: "A", model: "sonnet", scope: { directories: ["src/a"], patterns: [], dependencies: [] }, acceptanceCriteria: [{ criterion: "ok", check: "node --test test/" }], status: "completed", attempts: 0, result: "done", directoryOverlaps: [] },
        { name: "b", goal: "B", model: "sonnet", scope: { directories: ["src/b"], patterns: [], dependencies: [] }, acceptanceCriteria: [{ criterion: "ok", check: "node --test test/" }], status: "pending", attempts: 0, result: null, directoryOverlaps: [] },
      ],
    };
    const PHASES = "pre-flight,experts,cross-review,plan,finalize,reflect-and-report";
    project.write(".design/plan.json", JSON.stringify(plan, null, 2));
    const planText = project.read(".design/plan.json");
    assert.equal(cliSync(["run-start", "design", "--phases", PHASES, "--goal", GOAL], { cwd: project.dir }).json.ok, true);
    assert.equal(cliSync(["run-checkpoint", "design", "--phase", "pre-flight"], { cwd: project.dir }).json.ok, true);
    // What the stopped run left besides the plan.
    project.write(".design/expert-architect.json", JSON.stringify({ summary: "from the stopped run" }));
    project.write(".design/draft/plan.json", "{}");
    const lead = new SkillLead("design", PLUGIN_DIR, project, GOAL);
    const h = home();
    let digest: any;
    let plain: any;
    const question = "A plan is in progress (1 of 2 roles completed). Keep it (run /do:execute) or archive it and plan anew?";
    const s = await session({
      prompt: `/do:design ${GOAL}`,
      cwd: project.dir,
      home: h,
      maxTurns: 4,
      script: flowScript(function* (first): Flow {
        digest = lead.digest(first);
        // A lead that skipped the question could not move the plan: the helper refuses without the flag.
        plain = yield* refused(lead, "Trying the plain archive.", "archive", ["--include-plan"], { replace: [[" --include-plan", ""]] });
        // The plan state is asked about before any run starts (SKILL.md, pre-flight step 2).
        yield turn(question);
      }),
    });
    assertClean(s);
    assert.deepEqual([digest.plan.state, digest.run.startOver.archive, digest.run.startOver.ask], ["in_progress", false, true]);
    assert.deepEqual([plain.code, plain.planState], ["E_INVALID", "in_progress"]);
    assert.equal(project.read(".design/plan.json"), planText, "the plan is where it was, byte for byte");
    assert.equal(s.run.json.result, question);

    // The user's yes, in a session resuming the first: now the plan goes, with the explicit flag; then a fresh run.
    let archived: any;
    let started: any;
    const yes = await session({
      prompt: "Archive it and plan anew",
      cwd: project.dir,
      home: h,
      args: ["--resume", s.run.json.session_id],
      maxTurns: 4,
      script: flowScript(function* (first): Flow {
        check(JSON.stringify(first.body.messages).includes("archive it and plan anew?"), "the resumed session holds the question");
        archived = yield* helper(lead, "Archiving the plan, as you chose.", "archive", ["--include-plan"]);
        started = yield* helper(lead, "Starting afresh.", "run-begin", [], { fill: { goal: GOAL }, replace: [[" --goal ", " --fresh --goal "]] });
        yield turn("The plan is in history; planning anew.");
      }),
    });
    assertClean(yes);
    assert.ok(archived.archived.includes("plan.json") && archived.archived.includes("expert-architect.json"), JSON.stringify(archived));
    assert.equal(project.exists(".design/plan.json"), false);
    assert.deepEqual(project.json(`${archived.archivedTo}/plan.json`).roles.map((r: any) => r.status), ["completed", "pending"]);
    assert.equal(started.action, "start");
    assert.match(started.archivedTo, /^\.design\/history\//, "the stopped run's state went to history");
  });

  it("/do:reflect takes its counts from reflect-metrics [feature:reflect/metrics-from-helper]", { timeout: TIMEOUT }, async () => {
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
