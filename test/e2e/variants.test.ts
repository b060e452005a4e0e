// Issue 24 item 1 through the real CLI: once the lead has ended its invoking turn (the skill's allowed-tools no
// longer apply), it types the helper calls the way a model does, with harmless decoration: a `cd <root> &&` prefix,
// a trailing `2>&1`, the helper path unquoted, a quoted-delimiter here-doc or `cat .design/<file> |` as stdin,
// `'\''` inside single-quoted text, spaces after the commas of a list, the report file as an argument, skill-find
// with a path or `plugin:name`. The plugin's hook approves each (no denial) and the helper answers ok with the data
// as typed; the shapes that must stay refused (a pipe into tee, a here-doc that expands `$(…)`) are still denied
// and run nothing. /do:remember's boost, answered in a later turn of the session, runs without approval too; with
// the hook removed from a copy of the plugin it is denied (the control: the command's allowed-tools do not cover it).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { cliSync } from "../helpers/cli.ts";
import { ensureClaude, PLUGIN_DIR, scratchHome } from "./lib/claude.ts";
import { DESIGN_SPEC, DESIGN_SPEC_TEXT, designPlan, GOAL } from "./lib/fixtures.ts";
import { agent, bash, done, flowScript, helperJson, ok, read, turn, waitFor, write, type Flow } from "./lib/lead.ts";
import { cleanup, pluginCopy, sampleProject, type Sample } from "./lib/project.ts";
import { commandPrompt, substitute } from "./lib/prompts.ts";
import { assertClean, session } from "./lib/session.ts";
import type { ToolResult } from "./lib/stub.ts";

const TIMEOUT = 180_000;
/** How many of executeVariants' calls come before the user approves the grant: run-begin, next, grant. */
const BEFORE_GRANT = 3;

describe("decorated helper calls after the invoking turn, through claude -p", { concurrency: 1 }, () => {
  const projects: Sample[] = [];
  const dirs: string[] = [];
  before(() => ensureClaude());
  after(() => {
    cleanup(...projects.map((p) => p.dir), ...dirs);
  });
  const fresh = () => {
    const p = sampleProject();
    projects.push(p);
    return p;
  };

  /** A finalized plan, then /do:execute whose lead waits for an agent and types the calls its own way. */
  async function executeVariants(pluginDir: string) {
    const project = fresh();
    project.write(".design/draft/plan.json", designPlan());
    // The plan's verification spec beside the draft, as /do:design writes it: run-checks runs it for role 0.
    project.write(`.design/draft/specs/${basename(DESIGN_SPEC.path)}`, DESIGN_SPEC_TEXT);
    const fin = cliSync(["finalize", ".design/draft/plan.json"], { cwd: project.dir });
    assert.equal(fin.json?.ok, true, fin.stdout);
    const report = { role: "schema-designer", achieved: true, filesChanged: [], acceptanceCriteria: [{ criterion: "tests", passed: true, evidence: "node --test: 1 passed" }] };
    project.write(".design/worker-schema-designer.json", report);
    const helperPath = join(pluginDir, "skills/execute/scripts/plan.js");
    const h = `node "${helperPath}"`;
    project.write(".design/tmp/tasks.json", []);
    // The user's "yes" to the grant-approve.js call as SKILL.md writes it (Claude Code asks about it; -p cannot, so
    // the answer is a permission rule for exactly that command): the grant lets run-checks record the evidence a
    // completion needs. It is the user's approval, not the hook's, so it is neither in `calls` nor in `refused`.
    const grantApprove = `node "${join(pluginDir, "skills/execute/scripts/grant-approve.js")}" .design/plan.json`;
    const calls: string[] = [
      `cd "${project.dir}" && ${h} run-begin execute 2>&1`,
      `node ${helperPath} next .design/plan.json 2>&1`,
      `cd ${project.dir} && node ${helperPath} grant .design/plan.json`,
      `${h} run-checks .design/plan.json --role 0 2>&1`,
      `echo '[{"roleIndex": 0, "status": "completed", "result": "it'\\''s stored"}]' | ${h} update-status .design/plan.json`,
      `${h} update-status .design/plan.json <<'EOF'\n${JSON.stringify([{ roleIndex: 3, status: "failed", result: "docs failed" }])}\nEOF`,
      `cat .design/tmp/tasks.json | ${h} task-sync .design/plan.json`,
      `${h} run-checkpoint execute --phase challenge --outputs '.design/plan.json, .design/worker-schema-designer.json' --decisions 'it'\\''s ready, 1 role to run'`,
    ];
    // Must stay refused: each is denied, and runs nothing.
    const refused: string[] = [
      `${h} next .design/plan.json 2>&1 | tee .design/tmp/status.txt`,
      `${h} update-status .design/plan.json <<EOF\n[{"roleIndex": 1, "status": "failed", "result": "$(touch pwned)"}]\nEOF`,
    ];
    let results: ToolResult[] = [];
    let approval: ToolResult | undefined;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      pluginDir,
      args: ["--allowedTools", `Bash(${grantApprove})`],
      maxTurns: 10,
      agents: () => [{ text: "Ready." }],
      script: flowScript(function* (_first, latest): Flow {
        const spawned = yield turn("Spawning an agent first.", agent("probe", "probe", "haiku", "Agent: probe\nReply with one line."));
        done(spawned.results[0]);
        yield* waitFor(latest(), [spawned.results[0].id], "Waiting for the agent.");
        // The run first (the grant binds to it), then the user's approval, then the rest of the calls.
        const begun = (yield turn("The agent reported; the helper calls, typed my way.", ...calls.slice(0, BEFORE_GRANT).map((c) => bash(c)))).results;
        approval = (yield turn("The user approved the grant: recording it.", bash(grantApprove))).results[0];
        results = [...begun, ...(yield turn("The rest of the calls.", ...[...calls.slice(BEFORE_GRANT), ...refused].map((c) => bash(c)))).results];
        yield turn("Done.");
      }),
    });
    return { project, calls, refused, results, approval, s };
  }

  it("/do:execute: the lead's decorated calls are approved by the hook and the helper gets the data as typed", { timeout: TIMEOUT }, async () => {
    const { project, calls, refused, results, approval, s } = await executeVariants(PLUGIN_DIR);
    assert.equal(s.agents.length > 0, true, "the agent never ran");
    assert.equal(ok(approval).recorded, true, "the user's approval recorded the grant");
    assert.deepEqual([s.run.timedOut, s.run.code, s.scriptErrors, s.escapes], [false, 0, [], []]);
    assert.equal(results.length, calls.length + refused.length);
    // The CLI may drop a leading `cd <its cwd> && ` from the command it records (2.1.332 does for the unquoted form).
    const answers = calls.map((c, i) => {
      assert.ok([c, c.replace(/^cd \S+ && /, "")].includes(results[i].input?.command as string), `${results[i].input?.command} for ${c}`);
      return ok(results[i]);
    });
    assert.deepEqual(
      s.denials.map((d: any) => d.tool_input.command),
      refused,
      "only the shapes that must stay refused needed approval",
    );
    // Refused in the release's words ("needed approval", or its own check of an expanding here-doc): no helper answer.
    for (const r of results.slice(calls.length)) assert.throws(() => ok(r));
    assert.equal(existsSync(join(project.dir, "pwned")), false);
    assert.equal(project.exists(".design/tmp/status.txt"), false);
    // The data arrived as typed: the apostrophes, the list entries without their spaces, the here-doc's JSON.
    const run = project.json(".design/run-execute.json");
    assert.equal(run.goal, GOAL);
    assert.equal(answers[0].action, "start");
    assert.deepEqual(answers[1].start.map((x: any) => [x.name, x.recorded]), [["schema-designer", true], ["docs-writer", true]]);
    assert.equal(answers[2].recorded, false);
    // The completion below stands on the evidence run-checks recorded, not on the report's word.
    assert.equal(answers[3].passed, true, JSON.stringify(answers[3]));
    const plan = project.json(".design/plan.json");
    assert.equal(plan.roles[0].status, "completed");
    assert.equal(plan.roles[0].result, "it's stored");
    assert.equal(plan.roles[0].attemptLog[0].agent, "schema-designer", "next recorded the start");
    assert.deepEqual([plan.roles[3].status, plan.roles[3].result], ["failed", "docs failed"], "the here-doc's update");
    assert.equal(plan.roles[1].status ?? "pending", "pending", "the refused here-doc changed nothing");
    assert.ok(Array.isArray(answers[6].create), JSON.stringify(answers[6]));
    const checkpoint = project.json(".design/run-execute.json").completed[1];
    assert.deepEqual([checkpoint.phase, checkpoint.outputs, checkpoint.decisions], ["challenge", [".design/plan.json", ".design/worker-schema-designer.json"], "it's ready, 1 role to run"]);
  });

  it("/do:execute without the plugin's hook (control): every one of those calls needs approval", { timeout: TIMEOUT }, async () => {
    const copy = pluginCopy(PLUGIN_DIR);
    dirs.push(copy);
    rmSync(join(copy, "hooks"), { recursive: true, force: true });
    const { project, calls, refused, results, approval, s } = await executeVariants(copy);
    assert.equal(results.length, calls.length + refused.length);
    assert.equal(s.denials.length, calls.length + refused.length, JSON.stringify(s.denials.map((d: any) => d.tool_input.command)));
    for (const r of results) assert.throws(() => ok(r));
    assert.equal(project.exists(".design/run-execute.json"), false);
    // The user's approval still lets grant-approve.js run, but with no execute run started there is nothing to grant.
    assert.throws(() => ok(approval));
    assert.equal(project.exists(".design/grant.json"), false);
  });

  it("/do:improve: skill-find takes a path and plugin:name after the invoking turn", { timeout: TIMEOUT }, async () => {
    const project = fresh();
    const h = `node "${join(PLUGIN_DIR, "skills/improve/scripts/plan.js")}"`;
    const calls = [`${h} skill-find .claude/skills/greet/SKILL.md`, `${h} skill-find do:execute --source plugin 2>&1`, `${h} skill-find Greet`];
    let results: ToolResult[] = [];
    const s = await session({
      prompt: "/do:improve greet clarity",
      cwd: project.dir,
      maxTurns: 8,
      agents: () => [{ text: "Ready." }],
      script: flowScript(function* (_first, latest): Flow {
        const spawned = yield turn("Spawning an agent first.", agent("probe", "probe", "haiku", "Agent: probe\nReply with one line."));
        done(spawned.results[0]);
        yield* waitFor(latest(), [spawned.results[0].id], "Waiting for the agent.");
        results = (yield turn("Resolving the target.", ...calls.map((c) => bash(c)))).results;
        yield turn("Done.");
      }),
    });
    assertClean(s);
    const [byPath, byPlugin, byName] = results.map((r) => ok(r));
    assert.deepEqual([byPath.match, byPath.skill.path], ["exact", ".claude/skills/greet/SKILL.md"]);
    assert.deepEqual([byPlugin.match, byPlugin.skill.qualifiedName], ["exact", "do:execute"]);
    assert.deepEqual([byName.match, byName.skill.name], ["exact", "greet"]);
  });

  /** /do:remember twice (stored, then a near-duplicate the lead asks about), then the user's yes in a resumed turn. */
  async function rememberThenBoost(pluginDir: string): Promise<{ write: ToolResult | undefined; boost: ToolResult | undefined; denials: any[]; project: Sample; boostCall: string }> {
    const project = fresh();
    const home = scratchHome();
    dirs.push(home);
    const p = commandPrompt(pluginDir, "remember");
    const [add, boostCall] = [...p.body.matchAll(/`(node "\$\{CLAUDE_PLUGIN_ROOT\}\/dist\/plan\.js"[^`]*)`/g)].map((m) => substitute(m[1], p, pluginDir, ""));
    const learning = "npm test needs DATABASE_URL set; use npm run test:unit without a database";
    const file = project.path(".design/tmp/remember.json");
    const entry = { category: "mistake", keywords: ["npm-test", "database"], importance: 6, content: learning, source: "user" };
    writeFileSync(join(project.dir, ".keep"), "");
    const first = await session({
      prompt: `/do:remember ${learning}`,
      cwd: project.dir,
      home,
      pluginDir,
      maxTurns: 4,
      script: flowScript(function* (): Flow {
        const back = yield turn("Filing it.", write(file, JSON.stringify(entry)), bash(add));
        done(back.results[0]);
        ok(back.results[1]);
        yield turn("Remembered.");
      }),
    });
    assertClean(first);
    let id = "";
    const asked = await session({
      prompt: `/do:remember ${learning}`,
      cwd: project.dir,
      home,
      pluginDir,
      maxTurns: 4,
      script: flowScript(function* (): Flow {
        const back = yield turn("Filing it.", write(file, JSON.stringify(entry)), bash(add));
        const dup = helperJson(back.results[1]);
        if (dup.gate !== "duplicate") throw new Error(`expected a duplicate: ${back.results[1].text}`);
        id = dup.existing.id;
        yield turn(`Already remembered: "${dup.existing.content}". Boost that memory instead?`);
      }),
    });
    assertClean(asked);
    let boost: ToolResult | undefined;
    let written: ToolResult | undefined;
    const yes = await session({
      prompt: "Yes, boost it",
      cwd: project.dir,
      home,
      pluginDir,
      args: ["--resume", asked.run.json.session_id],
      maxTurns: 5,
      script: flowScript(function* (): Flow {
        // A file written before, in another turn: the Write tool wants it read first (2.1.197).
        done((yield turn("Reading the input file.", read(file))).results[0]);
        const back = yield turn("Boosting it.", write(file, JSON.stringify({ id })), bash(boostCall));
        [written, boost] = back.results;
        yield turn("Boosted.");
      }),
    });
    assert.equal(yes.run.timedOut, false);
    assert.deepEqual(yes.scriptErrors, []);
    return { write: written, boost, denials: yes.denials, project, boostCall };
  }

  it("/do:remember: the boost the user agrees to in a later turn (and its file) runs without approval", { timeout: 2 * TIMEOUT }, async () => {
    const { write: written, boost, denials, project } = await rememberThenBoost(PLUGIN_DIR);
    assert.deepEqual(denials, []);
    done(written);
    assert.deepEqual([ok(boost).action, ok(boost).importance], ["boosted", 7]);
    assert.equal(project.jsonl(".design/memory.jsonl").length, 1);
  });

  it("/do:remember without the plugin's hook (control): the later boost needs approval", { timeout: 2 * TIMEOUT }, async () => {
    const copy = pluginCopy(PLUGIN_DIR);
    dirs.push(copy);
    rmSync(join(copy, "hooks"), { recursive: true, force: true });
    const { boost, denials, project, boostCall } = await rememberThenBoost(copy);
    // The command's allowed-tools covered its first turn only: in the later turn its Write and its call both ask.
    assert.deepEqual(denials.map((d: any) => d.tool_input.command ?? d.tool_input.file_path), [project.path(".design/tmp/remember.json"), boostCall]);
    assert.throws(() => helperJson(boost!), /needed approval/);
    assert.equal(project.jsonl(".design/memory.jsonl")[0].importance, 6, "nothing boosted");
  });
});
