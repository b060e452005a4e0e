// /do:improve of an installed plugin's skill, end to end on the real CLI (issue 24, Build item 9; its defect: the run's
// `--inputs <target>` answered E_PATH for any target outside the project and the skill said nothing about it).
// A scratch HOME gets obra/superpowers (test/fixtures/skill-list/, cut down) the way a user adds it:
// `claude plugin marketplace add` of a copy of the marketplace folder, then `claude plugin install`. The project is
// the sample project (lib/project.ts); the target, `superpowers:systematic-debugging`, lies outside it.
// The scripted lead follows skills/improve/SKILL.md call by call (lib/skill-lead.ts): skill-find resolves the
// installed skill (a path outside the project, `inProject` false), the run starts without `--inputs` (the skill's
// words for such a target), the analyst's artifact passes expert-validate after the lead waited for it, the plan is
// finalized, and the run closes with its reflection. The analyst also tries an Edit of the installed SKILL.md: the
// CLI refuses it (it would need the user's yes). What execute's grant would say of the plan's scope is asked of the
// helper afterwards: it refuses the target's path as leaving the project. The installed skill's files never change.
// A second session is the README's own example, `/do:improve execute`: skill-find resolves `do:execute` (this
// plugin, loaded with --plugin-dir, outside the project), the run starts without --inputs, and the user stops it
// there (run-end: reflection and close, outcome aborted).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { cliSync } from "../helpers/cli.ts";
import { MARKETPLACES } from "../helpers/skill-project.ts";
import { agentKey } from "./lib/agents.ts";
import { ensureClaude, PLUGIN_DIR, runClaude, scratchHome } from "./lib/claude.ts";
import { REQUIRED_AUXILIARIES } from "./lib/fixtures.ts";
import { agent, check, DENIAL, done, flowScript, read, turn, waitFor, write, type Flow } from "./lib/lead.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { assertClean, session } from "./lib/session.ts";
import { HELPER_COMMAND } from "./lib/tally.ts";
import { calls, helper, SkillLead } from "./lib/skill-lead.ts";
import { startStub, type TurnContext } from "./lib/stub.ts";

const TIMEOUT = 240_000;
const TARGET = "superpowers:systematic-debugging";
const FOCUS = "clarity";
const ARGS = `${TARGET} ${FOCUS}`;
const DIMENSIONS = ["protocolClarity", "constraintEnforcement", "errorHandling", "agentCoordination", "informationFlow", "promptEconomy", "verifiability"];

/** Every file under `dir` (links not followed) with its SHA-256, but the CLI's `.in_use` markers. */
function digestTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || e.name === ".in_use") continue;
    const p = join(e.parentPath, e.name);
    out[relative(dir, p)] = createHash("sha256").update(readFileSync(p)).digest("hex");
  }
  return out;
}

/** Write a project file with the Write tool, reading it first when it exists (the tool refuses otherwise). */
function* put(lead: SkillLead, text: string, rel: string, content: string | object): Generator<any, void, TurnContext> {
  if (lead.project.exists(rel)) done((yield* calls(`${rel} exists: reading it before replacing it.`, lead.readFile(rel))).results[0]);
  done((yield* calls(text, lead.write(rel, content))).results[0]);
}

describe("/do:improve of an installed plugin's skill", { concurrency: 1 }, () => {
  let parent: string;
  let home: string;
  let marketplace: string;
  let project: Sample;

  before(async () => {
    ensureClaude();
    parent = mkdtempSync(join(tmpdir(), "do-e2e-improve-installed-"));
    home = scratchHome();
    // A copy outside this repository (2.1.197 records a marketplace folder's git commit otherwise).
    marketplace = join(parent, "superpowers-dev");
    cpSync(join(MARKETPLACES, "superpowers-dev"), marketplace, { recursive: true });
    const stub = await startStub([]);
    try {
      for (const args of [["plugin", "marketplace", "add", marketplace], ["plugin", "install", "superpowers@superpowers-dev"]]) {
        const r = await runClaude(args, { cwd: tmpdir(), home, stubUrl: stub.url, timeoutMs: 60_000 });
        assert.equal(r.code, 0, r.stdout + r.stderr);
      }
      assert.deepEqual(stub.escapes, []);
    } finally {
      await stub.close();
    }
    project = sampleProject("do-e2e-improve-installed-proj-");
  });

  after(() => cleanup(parent, home, project?.dir));

  it("plans an improvement of superpowers:systematic-debugging without --inputs, without a prompt, and writes nothing outside the project [feature:improve/resolve-target] [feature:improve/snapshot-before-change] [feature:improve/validated-artifacts] [feature:improve/plan-through-finalize] [feature:improve/every-run-reflects]", { timeout: TIMEOUT }, async (t) => {
    // The installed plugin: the marketplace folder Claude Code loads it from, and its copy in the plugin cache (the
    // CLI's own records beside them are its business).
    const installed = () => ({ marketplace: digestTree(marketplace), cache: digestTree(join(home, ".claude", "plugins", "cache")) });
    const before = installed();
    const targetFile = realpathSync(join(marketplace, "skills/systematic-debugging/SKILL.md"));
    const targetText = readFileSync(targetFile, "utf8");

    // Why the skill leaves `--inputs` out for such a target: the helper hashes only project files.
    const other = sampleProject("do-e2e-improve-installed-inputs-");
    try {
      const r = cliSync(["run-begin", "improve", "--goal", ARGS, "--inputs", targetFile], { cwd: other.dir });
      assert.equal(r.json?.code, "E_PATH", r.stdout);
      assert.match(r.json.error, /outside the project/);
      assert.equal(other.exists(".design/run-improve.json"), false, "a refused run-begin starts nothing");
    } finally {
      cleanup(other.dir);
    }

    const lead = new SkillLead("improve", PLUGIN_DIR, project, ARGS);
    const errors: string[] = [];
    const artifact = {
      summary: "systematic-debugging is a short skill whose body says nothing of the steps it names. The worst gap: no order of investigation. Most valuable: name the four phases.",
      skillPath: targetFile,
      focusArea: FOCUS,
      verificationProperties: [{ property: "The skill names its phases in order", category: "invariant", testableVia: `grep -c '^## ' ${targetFile}` }],
      qualityScores: Object.fromEntries(DIMENSIONS.map((d) => [d, { score: d === "protocolClarity" ? 2 : 3, evidence: "line 8: the body is one line" }])),
      findings: [
        {
          location: "lines 6-8",
          issue: "No procedure: the model improvises the investigation",
          severity: "HIGH",
          evidenceType: "simulated",
          hypothesis: { change: "Name the phases in order", predictedEffect: "The model reproduces before it fixes", verification: "a transcript shows a reproduction before the first edit" },
        },
      ],
    };
    // The analyst reads the target (outside the project), then, a misbehaving one, tries to edit it: that Edit needs
    // the user's yes, which nobody gives in -p.
    let readResult = "";
    let editResult = "";
    const agents = (brief: string) => {
      if (agentKey(brief) !== "skill-analyst") {
        errors.push(`unexpected agent brief: ${brief.slice(0, 200)}`);
        return undefined;
      }
      return flowScript(function* (): Flow {
        readResult = (yield turn("Reading the skill.", read(targetFile))).results[0]?.text ?? "";
        editResult = (yield turn("Fixing it myself.", { name: "Edit", input: { file_path: targetFile, old_string: "Body trimmed for the fixture.", new_string: "Body rewritten by an analyst." } })).results[0]?.text ?? "";
        const r = (yield turn("Writing my report.", write(project.path(".design/expert-skill-analyst.json"), JSON.stringify(artifact, null, 2) + "\n"))).results[0];
        if (!r || r.isError) errors.push(`expert-skill-analyst.json: ${r?.text}`);
        for (;;) yield turn("done: .design/expert-skill-analyst.json, 1 findings");
      });
    };

    let found: any;
    let started: any;
    let validated: any;
    let finalized: any;
    let closed: any;
    let told = "";
    let invokingTurnEnded = false;
    const s = await session({
      prompt: `/do:improve ${ARGS}`,
      cwd: project.dir,
      home,
      agents,
      timeoutMs: 180_000,
      script: flowScript(function* (first, latest): Flow {
        const digest = lead.digest(first);
        check(digest.run === null && digest.plan.state === "none", `digest: ${JSON.stringify(digest)}`);
        // 1. Pre-flight: the target as the user typed it, resolved among the installed plugins' skills.
        found = yield* helper(lead, "Phase 1/8 Pre-flight: the target.", "skill-find", [], { fill: { target: TARGET } });
        check(found.resolved === true && found.skill.inProject === false, JSON.stringify(found));
        const path = String(found.skill.path);
        // SKILL.md: a target outside the project → leave out --inputs.
        started = yield* helper(lead, `${path} is outside this project: the roles will edit files outside it, so execute's grant will not cover them (each edit there asks you). Starting the run without --inputs.`, "run-begin", [], {
          replace: [[" --inputs '{target path}'", ""]],
          fill: { arguments: ARGS },
        });
        const read = done((yield* calls("Reading the target.", { name: "Read", input: { file_path: path } })).results[0]);
        check(read.includes("systematic-debugging"), read);
        yield* put(lead, "Snapshot.", ".design/skill-snapshot.md", readFileSync(path, "utf8"));
        yield* helper(lead, "Past improve runs.", "reflection-search", ["--skill improve"]);
        // 2. Mode: a focus was given → targeted, one skill-analyst.
        done((yield* calls("Phase 2/8 Mode: targeted, the user named clarity.", lead.ref("analyst-briefs.md"))).results[0]);
        // 3. Analysis: the analyst in the background; the lead ends its turn and validates after the notification.
        done((yield* calls("Phase 3/8 Analysis.", lead.ref("scoring-rubric.md"))).results[0]);
        let ctx = yield* calls("Spawning the analyst.", agent("clarity analysis", "skill-analyst", "opus", `Agent: skill-analyst\nYou are skill-analyst, analysing the skill file ${path} for a planned improvement. Write .design/expert-skill-analyst.json.`));
        invokingTurnEnded = true;
        ctx = yield* waitFor(latest(), [ctx.results[0].id], "Waiting for the analyst.");
        validated = yield* helper(lead, "Checking the artifact (it records pre-flight, mode and analysis).", "expert-validate", [], { fill: { name: "skill-analyst", "names still out": "" } });
        check(/pre-flight, mode, analysis: done/.test(validated.checkpoint), JSON.stringify(validated));
        // 4. Cross-review: one artifact, skipped. 5. Synthesis: one role whose scope is the installed skill's file.
        done((yield* calls("Phase 5/8 Synthesis.", lead.ref("improvement-plan.md"))).results[0]);
        yield* put(lead, "Writing the draft.", ".design/draft/plan.json", {
          schemaVersion: 4,
          goal: "Improve systematic-debugging: name its phases in order",
          goalType: "meta",
          tier: "simple",
          context: { stack: "Claude Code skill (Markdown prompts)", conventions: ["refs loaded on demand"], testCommand: "node --test test/", buildCommand: null, lsp: null },
          expertArtifacts: [{ name: "skill-analyst", path: ".design/expert-skill-analyst.json", summary: artifact.summary }],
          designDecisions: [],
          verificationSpecs: [],
          roles: [
            {
              name: "phase-namer",
              goal: "Name the investigation's phases in order so that the model reproduces a bug before fixing it; verified by the tests",
              model: "sonnet",
              scope: { directories: [], patterns: [path], dependencies: [] },
              expertContext: [{ expert: "skill-analyst", artifact: ".design/expert-skill-analyst.json", relevance: "finding 1" }],
              constraints: ["Keep the frontmatter unchanged"],
              acceptanceCriteria: [{ criterion: "The project's tests pass", check: "node --test test/" }],
              assumptions: [],
              rollbackTriggers: [],
              fallback: "Add the phases as one list",
              qualityEffects: Object.fromEntries(DIMENSIONS.map((d) => [d, d === "protocolClarity" ? 1 : 0])),
              lineDelta: 0,
            },
          ],
          auxiliaryRoles: [...REQUIRED_AUXILIARIES.map((a) => ({ ...a })), { name: "regression-checker", type: "post-execution", trigger: "after-all-roles-complete", model: "sonnet", goal: "Confirm every section of .design/skill-snapshot.md survives" }],
        });
        // 6. Guards.
        done((yield* calls("Phase 6/8 Guards.", lead.ref("guards.md"))).results[0]);
        const guards = yield* helper(lead, "The helper's guards.", "improve-guards", [], {
          replace: [[".design/expert-{name}.json,.design/expert-{name}.json", ".design/expert-skill-analyst.json"]],
        });
        check(guards.passed === true, JSON.stringify(guards));
        const diff = yield* helper(lead, "Circular-improvement guard.", "plan-diff", [".design/history"]);
        check(diff.archivedPlan === null, JSON.stringify(diff));
        // 7. Finalize.
        finalized = yield* helper(lead, "Phase 7/8 Finalize.", "finalize", [".design/draft/plan.json"]);
        // 8. Reflect and report.
        yield* put(lead, "Phase 8/8.", ".design/tmp/eval.json", {
          whatWorked: ["skill-find resolved the installed skill by its qualified name"],
          whatFailed: [],
          doNextTime: ["Say before execute that edits outside the project each ask the user"],
          targetSkill: TARGET,
          analysisMode: "targeted",
          expertCount: 1,
          qualityScores: Object.fromEntries(DIMENSIONS.map((d) => [d, d === "protocolClarity" ? 2 : 3])),
          findingsCount: 1,
          rolesProduced: 1,
        });
        closed = yield* helper(lead, "Recording and closing.", "run-end", ["improve"], { fill: { "skill name": "systematic-debugging" } });
        told = `One improvement role planned for ${TARGET} (${path}). That file is outside this project: /do:execute's grant will not cover edits there, so each one asks you. Next: /do:execute`;
        yield turn(told);
      }),
    });
    assertClean({ ...s, denials: s.denials.filter((d) => !(d.tool_name === "Edit" && d.tool_input?.file_path === targetFile)) });
    assert.deepEqual(errors, [], "the scripted analyst could not write its report");

    // The skill's words for this case reached the lead, and it passed them on.
    assert.match(s.received, /`inProject` false → tell\s+the user the roles edit files outside this project, which execute's grant never\s+covers: each edit there asks\./);
    assert.match(s.received, /a target outside the project: leave out `--inputs`/);
    assert.equal(s.run.json.result, told);

    // skill-find: the installed skill, found where Claude Code loads it (the local marketplace folder).
    assert.equal(found.skill.qualifiedName, TARGET);
    assert.deepEqual([found.skill.source, found.skill.plugin, found.skill.kind], ["installed", "superpowers", "skill"], JSON.stringify(found.skill));
    assert.equal(realpathSync(found.skill.path), targetFile);
    assert.equal(found.skill.features, null);
    // run-begin: no E_PATH, no inputs.
    assert.equal(started.action, "start", JSON.stringify(started));
    assert.equal(validated.valid ?? true, true, JSON.stringify(validated));
    assert.equal(project.read(".design/skill-snapshot.md"), targetText);
    assert.deepEqual(project.json(".design/plan.json").roles[0].scope.patterns, [found.skill.path]);

    // No helper call asked the user, and calls after the invoking turn (expert-validate onwards) ran unasked.
    assert.ok(invokingTurnEnded);
    // Read from the lead's last request: every helper call after its "Waiting" turn, and what the CLI answered.
    const msgs: any[] = s.main[s.main.length - 1].body.messages;
    const waited = msgs.findIndex((m) => m.role === "assistant" && JSON.stringify(m.content).includes("Waiting for the analyst."));
    assert.ok(waited > 0, "the lead ended its invoking turn to wait");
    const uses = new Map<string, string>();
    const answers = new Map<string, string>();
    msgs.forEach((m, i) => {
      for (const b of Array.isArray(m.content) ? m.content : []) {
        if (i > waited && b.type === "tool_use" && b.name === "Bash" && HELPER_COMMAND.test(String(b.input?.command))) uses.set(b.id, String(b.input.command));
        if (b.type === "tool_result") answers.set(b.tool_use_id, typeof b.content === "string" ? b.content : (b.content ?? []).map((x: any) => x.text ?? "").join("\n"));
      }
    });
    const later = [...uses].map(([id, command]) => ({ command: /plan\.js" ([a-z-]+)/.exec(command)?.[1], answer: answers.get(id) ?? "" }));
    assert.deepEqual(later.map((c) => c.command), ["expert-validate", "improve-guards", "plan-diff", "finalize", "run-end"]);
    for (const c of later) assert.ok(!DENIAL.test(c.answer) && c.answer.includes('"ok":true'), `${c.command} after the wait: ${c.answer.slice(0, 300)}`);
    assert.equal(s.tally.skill, "improve");
    assert.equal(s.tally.helperDenied, 0);
    assert.ok(s.tally.helperCalls <= 9, `helperCalls=${s.tally.helperCalls}, over improve's cap of 9`);
    t.diagnostic(`tally improve (installed target): helperCalls=${s.tally.helperCalls} leadTurns=${s.tally.leadTurns} estIn=${s.tally.estIn}`);

    // The analyst read the target; its Edit of the installed file was refused by the CLI (it needs a prompt) and changed nothing.
    assert.match(readResult, /systematic-debugging/, readResult);
    assert.match(editResult, DENIAL, editResult);
    t.diagnostic(`the analyst's Edit of the installed SKILL.md: ${editResult.split("\n")[0]}`);

    // The run closed with its reflection.
    assert.equal(closed.run.outcome, "completed", "run-end answered");
    const run = project.json(".design/run-improve.json");
    assert.deepEqual(run.inputs, [], "no input hashed: the target is not a project file");
    assert.equal(run.runId, started.run.runId);
    assert.ok(run.completedAt && run.outcome === "completed", JSON.stringify(run));
    const reflections = project.jsonl(".design/reflection.jsonl");
    assert.deepEqual(reflections.map((r) => [r.skill, r.outcome, r.evaluation?.targetSkill]), [["improve", "completed", TARGET]]);

    // What execute's grant says of this plan: the scope outside the project is refused, by name and reason.
    const g = cliSync(["grant", ".design/plan.json"], { cwd: project.dir });
    assert.equal(g.json?.ok, true, g.stdout + g.stderr);
    assert.deepEqual(g.json.edits, []);
    assert.deepEqual(g.json.refused, [{ value: found.skill.path, role: "phase-namer", reason: "leaves the project" }]);
    assert.ok(g.json.summary.includes(`Not granted: ${found.skill.path} (leaves the project)`), JSON.stringify(g.json.summary));
    assert.equal(g.json.recorded, false);
    assert.equal(project.exists(".design/grant.json"), false);

    // Nothing outside the project changed: the installed plugin's files are byte for byte as installed.
    assert.deepEqual(installed(), before);
    assert.equal(readFileSync(targetFile, "utf8"), targetText);
  });

  it("/do:improve execute, the README's own example: the plugin's skill is resolved outside the project and the run starts without --inputs [feature:improve/resolve-target] [feature:improve/every-run-reflects]", { timeout: TIMEOUT }, async () => {
    const p = sampleProject("do-e2e-improve-execute-");
    try {
      const lead = new SkillLead("improve", PLUGIN_DIR, p, "execute");
      const skillFile = join(PLUGIN_DIR, "skills/execute/SKILL.md");
      const text = readFileSync(skillFile, "utf8");
      let found: any;
      let started: any;
      let told = "";
      const s = await session({
        prompt: "/do:improve execute",
        cwd: p.dir,
        home,
        maxTurns: 12,
        script: flowScript(function* (first): Flow {
          check(lead.digest(first).run === null, "no earlier run");
          found = yield* helper(lead, "Phase 1/8 Pre-flight: the target.", "skill-find", [], { fill: { target: "execute" } });
          check(found.resolved === true, JSON.stringify(found));
          started = yield* helper(lead, "Starting without --inputs: the target is outside this project.", "run-begin", [], {
            replace: [[" --inputs '{target path}'", ""]],
            fill: { arguments: "execute" },
          });
          // The user stops here: the run still ends with its reflection and close, in one call (outcome aborted).
          yield* put(lead, "Stopping: recording the run.", ".design/tmp/eval.json", { whatWorked: ["skill-find resolved do:execute"], whatFailed: [], doNextTime: ["Run the analysis"], targetSkill: "do:execute" });
          yield* helper(lead, "Recording and closing.", "run-end", ["improve"], {
            fill: { "skill name": "execute" },
            replace: [["--outcome completed", "--outcome aborted"], ["--goal-achieved true", "--goal-achieved false"]],
          });
          told = `do:execute lives at ${found.skill.path}, outside this project: its roles would edit files there, which execute's grant never covers. Stopped before the analysis.`;
          yield turn(told);
        }),
      });
      assertClean(s);
      assert.equal(s.tally.helperDenied, 0);
      assert.equal(s.tally.helperCalls, 3);
      assert.deepEqual([found.skill.qualifiedName, found.skill.inProject], ["do:execute", false], JSON.stringify(found));
      assert.equal(realpathSync(found.skill.path), realpathSync(skillFile));
      assert.equal(started.action, "start", JSON.stringify(started));
      const run = p.json(".design/run-improve.json");
      assert.deepEqual([run.inputs, run.outcome, run.goal], [[], "aborted", "execute"]);
      assert.ok(run.completedAt);
      assert.deepEqual(p.jsonl(".design/reflection.jsonl").map((r) => [r.skill, r.outcome]), [["improve", "aborted"]]);
      assert.equal(s.run.json.result, told);
      assert.equal(readFileSync(skillFile, "utf8"), text);
    } finally {
      cleanup(p.dir);
    }
  });
});
