// Feature files (skills/<name>/skill.json, seed 004) through the real CLI: Claude Code reads none of them (neither
// the plugin's five nor a project skill's), and /do:improve hands a target's declared features to its analysts,
// whose scores of every feature the helper checks (expert-validate --features), approved by the plugin's hook after
// the lead has ended its turn. The scripted lead runs every helper call exactly as SKILL.md spells it.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureClaude, PLUGIN_DIR } from "./lib/claude.ts";
import { agent, check, done, flowScript, ok, read, turn, waitFor, write, type Flow } from "./lib/lead.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { SKILLS } from "./lib/prompts.ts";
import { assertClean, session } from "./lib/session.ts";
import { calls, helper, SkillLead } from "./lib/skill-lead.ts";
import type { Script } from "./lib/stub.ts";

const TIMEOUT = 120_000;
const TARGET = ".claude/skills/greet";
const GREET_FEATURES = {
  goal: "Greet the user by name in one friendly line.",
  acceptance_criteria: ["The greeting names the user", "No greeting goes out without a name"],
  features: [
    {
      name: "greet-by-name",
      test_scenario: "Given the user gave their name, When /greet runs, Then the answer greets them by that name.",
      expected_result: "One line that contains the user's name.",
    },
    {
      name: "ask-for-missing-name",
      test_scenario: "Given no name was given, When /greet runs, Then the skill asks for the name before greeting.",
      expected_result: "A question for the name, and no greeting yet.",
    },
  ],
};

/** The texts of a feature file that would show up in a request had Claude Code read the file. */
function markers(doc: { goal: string; features: { test_scenario: string }[] }): string[] {
  return [doc.goal, ...doc.features.map((f) => f.test_scenario)];
}

describe("feature files through claude -p", { concurrency: 1 }, () => {
  let project: Sample;
  before(() => {
    ensureClaude();
    project = sampleProject();
    project.write(`${TARGET}/skill.json`, JSON.stringify(GREET_FEATURES, null, 2) + "\n");
  });
  after(() => cleanup(project?.dir));

  it("/do:improve saves the target's declared features for its analysts and checks that each one is scored [feature:improve/declared-features] [feature:improve/snapshot-before-change]", { timeout: TIMEOUT }, async () => {
    const lead = new SkillLead("improve", PLUGIN_DIR, project, "greet");
    const names = GREET_FEATURES.features.map((f) => f.name);
    let found: any;
    let validated: any;
    let analystRead = "";
    const analyst: Script = flowScript(function* (): Flow {
      // The analyst reads the declared features the lead saved, then scores the prose against each of them.
      analystRead = done((yield turn("Reading the declared features.", read(project.path(".design/skill-features.json")))).results[0]);
      const artifact = {
        summary: "The greet skill asks for a missing name but never says how to greet once it has one.",
        verificationProperties: [{ property: "A missing name is asked for", category: "invariant", testableVia: "grep -n ask SKILL.md" }],
        qualityScores: Object.fromEntries(
          ["protocolClarity", "constraintEnforcement", "errorHandling", "agentCoordination", "informationFlow", "promptEconomy", "verifiability"].map((d) => [d, { score: 3, evidence: "line 7: one rule, no fallback" }]),
        ),
        featureScores: names.map((feature) => ({ feature, score: feature === "greet-by-name" ? 3 : 5, evidence: "line 7: 'Say hello to the user by name. If no name is given, ask for it.'" })),
      };
      done((yield turn("Writing my artifact.", write(project.path(".design/expert-skill-analyst.json"), JSON.stringify(artifact, null, 2) + "\n"))).results[0]);
      for (;;) yield turn("done: .design/expert-skill-analyst.json, 1 finding");
    });
    const s = await session({
      prompt: "/do:improve greet",
      cwd: project.dir,
      maxTurns: 12,
      agents: (brief) => (/^Agent: skill-analyst$/m.test(brief) ? analyst : undefined),
      script: flowScript(function* (first, latest): Flow {
        lead.digest(first);
        found = yield* helper(lead, "Resolving the target.", "skill-find", [], { fill: { target: "greet" } });
        check(found.resolved === true && typeof found.skill.features === "string", JSON.stringify(found));
        let ctx = yield* calls("Reading the target and its declared features.", lead.readFile(found.skill.path), lead.readFile(found.skill.features));
        ctx.results.forEach((r) => done(r));
        ctx = yield* calls(
          "Snapshot, and the declared features for the analysts.",
          lead.write(".design/skill-snapshot.md", project.read(`${TARGET}/SKILL.md`)),
          lead.write(".design/skill-features.json", project.read(`${TARGET}/skill.json`)),
        );
        ctx.results.forEach((r) => done(r));
        ctx = yield* calls("Phase 3 Analysis.", lead.ref("analyst-briefs.md"), lead.ref("scoring-rubric.md"));
        check(/Declared features: /.test(done(ctx.results[0])) && /## Declared features/.test(done(ctx.results[1])), "the refs say nothing of declared features");
        ctx = yield* calls(
          "Spawning the analyst (targeted: the skill is short).",
          agent("greet analysis", "skill-analyst", "opus", `Agent: skill-analyst\nYou are skill-analyst, analysing ${TARGET}/SKILL.md.\nDeclared features: .design/skill-features.json\nWrite .design/expert-skill-analyst.json.`),
        );
        done(ctx.results[0]);
        yield* waitFor(latest(), [ctx.results[0].id], "Waiting for the analyst.");
        // After the lead ended its turn, only the plugin's hook can approve this call.
        validated = ok((yield* calls("Checking the artifact against the declared features.", lead.run("expert-validate", ["--scores"], { fill: { name: "skill-analyst", "names still out": "skill-analyst" }, replace: [[" --scores", " --scores --features .design/skill-features.json"]] }))).results[0]);
        yield turn("The analyst scored both declared features.");
      }),
    });
    assertClean(s);
    assert.equal(found.skill.path, `${TARGET}/SKILL.md`);
    assert.equal(found.skill.features, `${TARGET}/skill.json`);
    assert.equal(project.read(".design/skill-features.json"), project.read(`${TARGET}/skill.json`));
    assert.equal(project.read(".design/skill-snapshot.md"), project.read(`${TARGET}/SKILL.md`));
    for (const n of names) assert.ok(analystRead.includes(n), `the analyst did not see ${n}: ${analystRead.slice(0, 300)}`);
    const { waiting, ...verdict } = validated;
    assert.deepEqual(verdict, { ok: true, valid: true, featuresScored: 2 });
    // The analyst named in --waiting is found by its name in this session and has finished.
    assert.deepEqual(waiting.agents.map((a: any) => [a.name, a.found, a.finished, a.stalled]), [["skill-analyst", true, true, false]]);
    assert.deepEqual(project.json(".design/expert-skill-analyst.json").featureScores.map((f: any) => f.feature), names);
  });

  it("Claude Code reads none of them: no text of the plugin's or a project skill's skill.json reaches the model", { timeout: TIMEOUT }, async () => {
    const s = await session({ prompt: "/do:improve greet", cwd: project.dir, maxTurns: 2, script: [{ text: "ok" }] });
    assertClean(s);
    const request = JSON.stringify(s.main[0].body);
    // The session did load the plugin's skills and the project's greet skill (their descriptions are listed).
    assert.ok(request.includes("Use when the user wants a greeting."), "the project skill is not listed");
    assert.ok(s.received.includes("# Improve"), "the improve skill did not arrive");
    const files = [...SKILLS.map((name) => join(PLUGIN_DIR, "skills", name, "skill.json")), project.path(`${TARGET}/skill.json`)];
    for (const file of files) {
      for (const text of markers(JSON.parse(readFileSync(file, "utf8")))) {
        assert.ok(!request.includes(JSON.stringify(text).slice(1, -1)), `${file} reached the model: ${text}`);
      }
    }
  });
});
