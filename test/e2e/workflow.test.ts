// execute's Workflow path (`/do:execute --workflow`) measured on the real CLI, in the default permission mode, on a
// small plan (db, then api which depends on db) in a git project. What it proves, and keeps true until a CLI changes:
// - the lead's tools: Workflow is offered on 2.1.332, 2.1.330 and 2.1.197 alike (WORKFLOW_OFFERED); where it is absent
//   (played by --disallowedTools Workflow), or where the Workflow call is refused (in -p nobody can answer its
//   "Review dynamic workflow" prompt, as when a user declines it), execute takes the Agent-tool loop and the same
//   plan completes;
// - with the user's approval of the Workflow call and of the grant: the workflow's agents (agent_type
//   "workflow-subagent") go through the plugin's PreToolUse hook, which approves their Edit of the role's source
//   and their check under the grant; an Edit outside every scope is denied, and the agent is told so in its
//   tool_result; each agent returns its report through StructuredOutput; the lead gets the script's return value in
//   the <task-notification> and replays it with update-status;
// - without the grant: the same Edit and check are denied; the role fails, its dependent is skipped, the run ends;
// - a run interrupted after its first agent leaves plan.json without any status (the script's updates reach the
//   lead only at the end), and a new session cannot resume it: resumeFromRunId finds no journal.
// Why execute keeps this path opt-in: test/e2e/README.md, "The Workflow tool, as measured".
import { after, before, describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLAUDE_CODE_VERSION, ensureClaude, PLUGIN_DIR, scratchHome } from "./lib/claude.ts";
import { agent, bash, check, DENIAL, done, flowScript, hasTool, loadTools, notifications, ok, read, turn, waitFor, write, type Flow } from "./lib/lead.ts";
import { agentTable, type AgentPart } from "./lib/agents.ts";
import { cleanup, pluginCopy, sampleProject, type Sample } from "./lib/project.ts";
import { assertClean, session } from "./lib/session.ts";
import { calls, helper, SkillLead } from "./lib/skill-lead.ts";
import { finishCall, grantPhase, noChallenge, preflight, workerLoop } from "./lib/execute-lead.ts";
import { offeredTools, type Script, type ToolCall, type ToolResult, type TurnContext } from "./lib/stub.ts";
import { cliSync } from "../helpers/cli.ts";
import { REQUIRED_AUXILIARIES } from "./lib/fixtures.ts";

const TIMEOUT = 240_000;
/** Releases measured: whether the lead is offered the Workflow tool. Any other release is only reported. */
const WORKFLOW_OFFERED: Record<string, boolean> = { "2.1.197": true, "2.1.330": true, "2.1.332": true };
/**
 * Releases measured: what resumeFromRunId does with a run started by another session (killed CLI, new `claude -p`):
 * refused (no journal), or launched with nothing replayed (every agent runs again).
 */
const RESUME_FROM_ANOTHER_SESSION: Record<string, "refused" | "reruns-all"> = { "2.1.197": "reruns-all", "2.1.330": "refused", "2.1.332": "refused" };
/** Releases measured: whether the end notification names the run's journal.jsonl and counts the agents. */
const NOTIFICATION_JOURNAL: Record<string, boolean> = { "2.1.197": false, "2.1.330": true, "2.1.332": true };
/**
 * Releases measured: whether a workflow agent's sidecar (subagents/workflows/<run>/agent-<id>.meta.json) carries its
 * agent() label, by which the hook binds it to its own role's grant; without it the agent is unnamed and gets
 * nothing of the grant, like an Agent-tool agent started without a name (so on such a release the workflow's
 * agents need the user's own permission rules).
 */
const LABEL_IN_SIDECAR: Record<string, boolean> = { "2.1.197": false, "2.1.330": true, "2.1.332": true };
/** Releases measured: whether a workflow agent's prompt arrives framed as computed text ("[Workflow harness …"). */
const PROMPT_FRAMED: Record<string, boolean> = { "2.1.197": false, "2.1.330": true, "2.1.332": true };
const CHECK = "node --test test/";
const ROLES = [
  { name: "db", dirs: ["src/db"], deps: [] as string[], edit: "src/db/store.js", from: "const todos = new Map();" },
  { name: "api", dirs: ["src/api"], deps: ["db"], edit: "src/api/server.js", from: "const { todos } = require('../db/store');" },
];
/** An Edit outside every role's scope: no grant covers it. */
const OUTSIDE = { edit: "package.json", from: '"private": true', to: '"private": true, "type": "commonjs"' };

function planDoc(goal: string): object {
  return {
    schemaVersion: 4,
    goal,
    context: { stack: "Node 20, CommonJS, node:test", conventions: [], testCommand: null, buildCommand: null, lsp: null },
    expertArtifacts: [],
    designDecisions: [],
    verificationSpecs: [],
    roles: ROLES.map((r) => ({
      name: r.name,
      goal: `${r.name} does its part of: ${goal}`,
      model: "haiku",
      scope: { directories: r.dirs, patterns: [], dependencies: r.deps },
      expertContext: [],
      constraints: [],
      acceptanceCriteria: [{ criterion: "The tests pass", check: CHECK }],
      assumptions: [],
      rollbackTriggers: [],
      fallback: "",
    })),
    auxiliaryRoles: REQUIRED_AUXILIARIES,
  };
}

/** How many commits the project's branch has. */
function gitCount(p: Sample): number {
  return Number(spawnSync("git", ["rev-list", "--count", "HEAD"], { cwd: p.dir, encoding: "utf8" }).stdout.trim() || 0);
}

function helperSync(p: Sample, args: string[], stdin?: string): any {
  const r = cliSync(args, { cwd: p.dir, stdin });
  assert.equal(r.json?.ok, true, `${args.join(" ")}: ${r.stdout} ${r.stderr}`);
  return r.json;
}

function planned(projects: Sample[], goal: string): Sample {
  const p = sampleProject();
  projects.push(p);
  p.write(".design/draft/plan.json", planDoc(goal));
  helperSync(p, ["finalize", ".design/draft/plan.json"]);
  return p;
}

/**
 * A copy of this plugin whose hooks.json runs a wrapper around dist/permit.js: it logs every event the hook gets
 * (tool, input, agent_type, permission_mode) with the hook's answer, and passes the answer on unchanged.
 */
function loggingPlugin(): { dir: string; log: () => any[] } {
  const dir = pluginCopy(PLUGIN_DIR, "do-e2e-wfplugin-");
  const logFile = join(dir, "hook-log.jsonl");
  writeFileSync(
    join(dir, "dist", "log-permit.js"),
    `const fs = require("fs"), cp = require("child_process"), path = require("path");
let raw = "";
process.stdin.on("data", (c) => (raw += c));
process.stdin.on("end", () => {
  const r = cp.spawnSync(process.execPath, [path.join(__dirname, "permit.js")], { input: raw, encoding: "utf8", env: process.env });
  let ev = {};
  try { ev = JSON.parse(raw); } catch {}
  fs.appendFileSync(${JSON.stringify(logFile)}, JSON.stringify({ tool: ev.tool_name, input: ev.tool_input, agentType: ev.agent_type ?? null, mode: ev.permission_mode ?? null, allowed: /"permissionDecision":"allow"/.test(r.stdout) }) + "\\n");
  process.stdout.write(r.stdout);
});
`,
  );
  const hooks = join(dir, "hooks", "hooks.json");
  writeFileSync(hooks, readFileSync(hooks, "utf8").replace("dist/permit.js", "dist/log-permit.js"));
  return {
    dir,
    log: () => (existsSync(logFile) ? readFileSync(logFile, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []),
  };
}

/** Phases 1-3 as SKILL.md spells them (no challenger or scout; the grant approved or declined), then the ref. */
function* upToWorkers(lead: SkillLead, approve: boolean): Generator<any, void, TurnContext> {
  const { begin } = yield* preflight(lead);
  check(begin.action === "start", JSON.stringify(begin));
  yield* noChallenge(lead);
  yield* grantPhase(lead, approve);
  done((yield* calls("Phase 4/7 Workers.", lead.ref("worker-brief.md"))).results[0]);
}

/** The workflow path's start: `workflow` compiles the plan (with each role's memories), then the Workflow call. */
function* launchWorkflow(lead: SkillLead, extra: Record<string, unknown> = {}): Generator<any, { compiled: any; launch: ToolResult }, TurnContext> {
  done((yield* calls("The workflow path.", lead.ref("workflow-path.md"))).results[0]);
  const ctx = yield* calls("Compiling the plan into a workflow.", lead.run("workflow"));
  const compiled = ok(ctx.results[0]);
  yield* loadTools(ctx, ["Workflow"]);
  const next: TurnContext = yield turn("Running the plan as a workflow.", { name: "Workflow", input: { scriptPath: ".design/workflow.js", ...extra } });
  return { compiled, launch: next.results[0] };
}

/** One worker of the loop path, keyed `Agent: worker-<agent>` by the lead's brief. */
function loopWorker(role: (typeof ROLES)[number]): AgentPart {
  return {
    work: [{ edit: role.edit, from: role.from, to: `${role.from} // ${role.name} (loop)` }, { bash: CHECK }],
    file: `.design/worker-${role.name}.json`,
    content: (results) => report(role, results.every((r) => !r.isError && !DENIAL.test(r.text)), [role.edit]),
    reply: `${role.name}: done.`,
  };
}

function report(role: (typeof ROLES)[number], achieved: boolean, files: string[], evidence = ""): any {
  return {
    role: role.name,
    achieved,
    filesChanged: achieved ? files : [],
    acceptanceCriteria: [{ criterion: "The tests pass", passed: achieved, evidence: evidence || (achieved ? `${CHECK}: 1 passed` : `${CHECK}: not run`) }],
    keyDecisions: achieved ? [`${role.name}: kept the module layout`] : [],
    contextForDependents: achieved ? `${role.name} is done` : "",
  };
}

interface WfSeen {
  agent: string;
  brief: string;
  tools: string[];
  system: string;
  results: ToolResult[];
  structured?: ToolResult;
}

/**
 * Workflow agents, told apart by the worker line of the generated prompt ("You are <agent>, the worker for role
 * <i>"): each edits its role's source, runs the check, optionally tries an Edit outside every scope, writes its
 * report file, and returns the report through StructuredOutput (what the agent() schema asks for).
 */
function workflowAgents(project: Sample, seen: WfSeen[], opts: { outside?: string; cross?: string; onStart?: (agent: string) => void } = {}): (brief: string) => Script | undefined {
  return (brief) => {
    // Before a retry the workflow asks one more agent for the reflexion update-status requires.
    const rx = /You are reflecting on attempt (\d+) of role (\d+) \("([^"]+)"\)/.exec(brief);
    if (rx) {
      const answer = {
        rootCause: `${rx[3]}: its Edit and its check were denied (attempt ${rx[1]})`,
        wrongAssumptions: "The brief assumed the workers may edit their scope",
        alternative: "Ask the user for the grant before another attempt",
      };
      return flowScript(function* () {
        yield turn("My reflexion.", { name: "StructuredOutput", input: answer });
        yield turn("");
      });
    }
    const m = /You are (\S+), the worker for role (\d+)/.exec(brief);
    if (!m) return undefined;
    const [, agentName, idx] = m;
    const role = ROLES[Number(idx)];
    return flowScript(function* (first) {
      opts.onStart?.(agentName);
      const rec: WfSeen = { agent: agentName, brief, tools: [...offeredTools(first.body).callable], system: JSON.stringify(first.body.system), results: [] };
      seen.push(rec);
      const path = project.path(role.edit);
      done((yield turn("Reading my source.", read(path))).results[0]);
      rec.results.push((yield turn("Editing my source.", { name: "Edit", input: { file_path: path, old_string: role.from, new_string: `${role.from} // ${role.name} (workflow)` } })).results[0]);
      rec.results.push((yield turn("Running my check.", bash(CHECK, "Run the role's acceptance check"))).results[0]);
      if (opts.outside === agentName) {
        const pkg = project.path(OUTSIDE.edit);
        done((yield turn("Reading package.json.", read(pkg))).results[0]);
        rec.results.push((yield turn("Editing outside my scope.", { name: "Edit", input: { file_path: pkg, old_string: OUTSIDE.from, new_string: OUTSIDE.to } })).results[0]);
      }
      if (opts.cross === agentName) {
        // Inside the grant's union of scopes, but another role's: a worker's grant covers its own role only.
        const other = ROLES[(Number(idx) + 1) % ROLES.length];
        const otherPath = project.path(other.edit);
        done((yield turn("Reading another role's source.", read(otherPath))).results[0]);
        rec.results.push((yield turn("Editing another role's source.", { name: "Edit", input: { file_path: otherPath, old_string: other.from, new_string: `${other.from} // ${role.name} (not mine)` } })).results[0]);
      }
      const refused = rec.results.filter((r) => r.isError || DENIAL.test(r.text));
      const own = rec.results.slice(0, 2);
      const achieved = own.every((r) => !r.isError && !DENIAL.test(r.text));
      const evidence = refused.length ? refused.map((r) => `denied: ${r.name} (${r.text.split("\n")[0].slice(0, 100)})`).join("; ") : `${CHECK}: 1 passed`;
      const body = report(role, achieved, [role.edit], evidence);
      const reportPath = project.path(`.design/worker-${agentName}.json`);
      if (existsSync(reportPath)) done((yield turn("Reading my earlier report.", read(reportPath))).results[0]);
      done((yield turn("Writing my report.", write(reportPath, JSON.stringify(body, null, 2) + "\n"))).results[0]);
      rec.structured = (yield turn("Returning my report.", { name: "StructuredOutput", input: body })).results[0];
      yield turn("");
    });
  };
}

/** The script's return value, from the <task-notification> of the Workflow call. */
function workflowResult(ctx: TurnContext, id: string): { status: string; value: any; raw: string } {
  const n = notifications(ctx.body).filter((x) => x.toolUseId === id).pop();
  if (!n) throw new Error(`no notification for ${id}`);
  let value: any;
  try {
    value = JSON.parse(n.result);
  } catch {
    value = undefined;
  }
  return { status: n.status, value, raw: n.result };
}

/** The whole <task-notification> block of one tool call (the last one). */
function notificationBlock(ctx: TurnContext, id: string): string {
  const all = JSON.stringify(ctx.body.messages).replace(/\\n/g, "\n").replace(/\\"/g, '"');
  const blocks = [...all.matchAll(/<task-notification>[\s\S]*?<\/task-notification>/g)].map((m) => m[0]).filter((b) => b.includes(`<tool-use-id>${id}</tool-use-id>`));
  if (!blocks.length) throw new Error(`no notification for ${id}`);
  return blocks[blocks.length - 1];
}

/**
 * After the workflow returns: replay its updates, write missing reports, then `finish` each role its agent reported
 * done (`completions`): the helper records the cost, re-runs the checks under the grant and records the role
 * completed only on that evidence (failed otherwise), and commits its files.
 */
function* replay(lead: SkillLead, value: any): Generator<any, { update: any; finished: any[] }, TurnContext> {
  done((yield* calls("Recording the workflow's updates.", lead.write(".design/tmp/updates.json", value.updates))).results[0]);
  const update = yield* helper(lead, "Replaying them on plan.json.", "update-status", ["< .design/tmp/updates.json"]);
  for (const [agentName, rep] of Object.entries<any>(value.reports)) {
    const rel = `.design/worker-${agentName}.json`;
    if (!lead.project.exists(rel)) done((yield* calls(`Writing ${agentName}'s report.`, lead.write(rel, rep))).results[0]);
  }
  const finished: any[] = [];
  for (const c of value.completions ?? []) finished.push(ok((yield* calls(`${c.agent} finished.`, finishCall(lead, c.agent))).results[0]));
  return { update, finished };
}

describe(`execute's Workflow path through claude -p (Claude Code ${CLAUDE_CODE_VERSION})`, { concurrency: 1 }, () => {
  const projects: Sample[] = [];
  const plugins: string[] = [];
  before(() => ensureClaude());
  after(() => cleanup(...projects.map((p) => p.dir), ...plugins));

  const offered = WORKFLOW_OFFERED[CLAUDE_CODE_VERSION];
  const needsWorkflow = (t: TestContext): boolean => {
    if (offered === true) return true;
    t.skip(offered === false ? `Claude Code ${CLAUDE_CODE_VERSION} has no Workflow tool (the first test proves the Agent-tool path)` : `Claude Code ${CLAUDE_CODE_VERSION} not measured: add it to WORKFLOW_OFFERED`);
    return false;
  };

  // Two ways the workflow path is unavailable: the CLI offers no Workflow tool (a release without it, played here by
  // --disallowedTools Workflow), or its call is refused (in -p nobody answers the review prompt, as a user declines).
  for (const absent of [false, true]) {
    const how = absent ? "the tool is absent" : "its call is refused";
    it(`--workflow where ${how}: the Agent-tool loop runs the same plan [feature:execute/workflow-fallback] [feature:execute/checks-decide-completion]`, { timeout: TIMEOUT }, async (t) => {
      const project = planned(projects, `wf: loop when ${how}`);
      const errors: string[] = [];
      const agents = agentTable(project, Object.fromEntries(ROLES.map((r) => [`worker-${r.name}`, loopWorker(r)])), errors);
      const lead = new SkillLead("execute", PLUGIN_DIR, project, "--workflow");
      let toolOffered: boolean | undefined;
      let refusal: ToolResult | undefined;
      const nexts: any[] = [];
      const s = await session({
        prompt: "/do:execute --workflow",
        cwd: project.dir,
        maxTurns: 80,
        timeoutMs: 200_000,
        // The user's approval of the grant (the grant-approve.js call Claude Code asks about), which -p cannot ask.
        args: [...(absent ? ["--disallowedTools", "Workflow"] : []), "--allowedTools", lead.approval("grant-approve")],
        agents,
        script: flowScript(function* (first, latest): Flow {
          toolOffered = hasTool(first, "Workflow");
          yield* upToWorkers(lead, true);
          // In -p nobody answers the CLI's "Review dynamic workflow" prompt: the call is refused, as when a user
          // declines; nothing was recorded, so the loop starts at once.
          if (toolOffered) refusal = (yield* launchWorkflow(lead)).launch;
          const loop = yield* workerLoop(lead, latest);
          nexts.push(...loop.answers);
          yield turn("All roles completed through the Agent-tool loop.");
        }),
      });
      assertClean(s);
      assert.deepEqual(errors, []);
      if (absent) assert.equal(toolOffered, false, "the lead was offered Workflow despite --disallowedTools Workflow");
      else if (offered === undefined) t.diagnostic(`Claude Code ${CLAUDE_CODE_VERSION}: Workflow offered to the lead: ${toolOffered}`);
      else assert.equal(toolOffered, offered, `the lead ${offered ? "lacks" : "has"} the Workflow tool on ${CLAUDE_CODE_VERSION}`);
      if (toolOffered) {
        // The refusal is the CLI's own: the Workflow call asks the user (not the plugin's hook, which never sees it).
        assert.ok(refusal?.isError, `the Workflow call ran without the user's approval: ${refusal?.text}`);
        assert.match(refusal!.text, /Review dynamic workflow before running/);
        // Unlike a refused call outside a skill, it is not listed in -p's permission_denials.
        assert.deepEqual(s.denials, []);
      }
      assert.match(nexts.at(-1).reason, /all 2 roles completed/);
      assert.deepEqual(project.json(".design/plan.json").roles.map((r: any) => r.status), ["completed", "completed"]);
      for (const r of ROLES) assert.match(project.read(r.edit), new RegExp(`${r.name} \\(loop\\)`));
    });
  }

  it("with the user's approval of the Workflow call and the grant: the hook sees the workflow's agents and approves exactly the granted calls, each agent only its own role's (none where the sidecar names no agent) [feature:execute/workflow-path]", { timeout: TIMEOUT }, async (t) => {
    if (!needsWorkflow(t)) return;
    const project = planned(projects, "wf: granted");
    const plugin = loggingPlugin();
    plugins.push(plugin.dir);
    const lead = new SkillLead("execute", plugin.dir, project, "--workflow");
    const seen: WfSeen[] = [];
    let launched: any;
    let result: any;
    let replayed: any;
    let lastCtx: TurnContext | undefined;
    const s = await session({
      prompt: "/do:execute --workflow",
      cwd: project.dir,
      pluginDir: plugin.dir,
      // The user's approval of the grant-approve.js call and of the Workflow call ("Review dynamic workflow before
      // running"), which -p cannot ask.
      args: ["--allowedTools", lead.approval("grant-approve"), "Workflow"],
      maxTurns: 60,
      timeoutMs: 200_000,
      agents: workflowAgents(project, seen, { outside: "db", cross: "db" }),
      script: flowScript(function* (first, latest): Flow {
        yield* upToWorkers(lead, true);
        launched = yield* launchWorkflow(lead);
        done(launched.launch);
        const ctx = yield* waitFor(latest(), [launched.launch.id], "Waiting for the workflow.");
        lastCtx = ctx;
        result = workflowResult(ctx, launched.launch.id);
        check(result.value?.updates, `workflow result: ${result.raw.slice(0, 500)}`);
        replayed = yield* replay(lead, result.value);
        yield turn("The workflow built the plan.");
      }),
    });
    assertClean(s);
    const labelled = LABEL_IN_SIDECAR[CLAUDE_CODE_VERSION];
    if (labelled === false) {
      // The sidecar names no workflow agent: to the hook each one is an agent without a name, which the grant gives
      // nothing. db's own Edit and check are refused as without a grant, three attempts, and api never starts.
      assert.deepEqual(seen.map((x) => x.agent), ["db", "db--2", "db--3"]);
      // The first attempt also tries an Edit outside every scope and one in api's scope (the retries do not).
      for (const a of seen) assert.ok(a.results.length >= 2 && a.results.every((r) => r.isError && DENIAL.test(r.text)), `${a.agent}: ${a.results.map((r) => r.text.slice(0, 100))}`);
      const unnamed = plugin.log().filter((e) => e.agentType === "workflow-subagent");
      const allowed = (tool: string, pred: (e: any) => boolean) => unnamed.filter((e) => e.tool === tool && pred(e)).map((e) => e.allowed);
      assert.deepEqual(allowed("Bash", (e) => e.input.command === CHECK), [false, false, false]);
      assert.deepEqual(allowed("Edit", (e) => /src\/(db|api)\//.test(e.input.file_path)), [false, false, false, false]);
      assert.deepEqual(allowed("Write", (e) => /\.design\/worker-db(--\d)?\.json$/.test(e.input.file_path)), [true, true, true], "their reports under .design/ stay approved");
      assert.equal(project.read("src/db/store.js"), "const todos = new Map();\nmodule.exports = { todos };\n");
      assert.deepEqual(result.value.statuses, ["failed", "skipped"]);
      return;
    }
    // The launch answers at once with the run's handles; the agents run in the background.
    assert.match(launched.launch.text, /^Workflow launched in background\. Task ID: \S+/);
    assert.match(launched.launch.text, /Run ID: wf_\S+/);
    assert.match(launched.launch.text, /Transcript dir: .*\/\.claude\/projects\/.*\/subagents\/workflows\/wf_/);
    assert.deepEqual(launched.compiled.startsNow.map((x: any) => x.name), ["db"]);
    // The agents: dependency order, the generated prompt framed as computed text, StructuredOutput offered and asked for.
    assert.deepEqual(seen.map((x) => x.agent), ["db", "api"]);
    for (const a of seen) {
      const framed = /^\[Workflow harness — computed task\][\s\S]*carries no user authority[\s\S]*\n  You are /.test(a.brief);
      if (PROMPT_FRAMED[CLAUDE_CODE_VERSION] === undefined) t.diagnostic(`workflow agent prompt framed: ${framed}`);
      else assert.equal(framed, PROMPT_FRAMED[CLAUDE_CODE_VERSION], a.brief.slice(0, 300));
      assert.ok(a.tools.includes("StructuredOutput") && a.tools.includes("Edit") && a.tools.includes("Bash"), a.tools.join(","));
      assert.ok(!a.tools.includes("Agent") && !a.tools.includes("Workflow"), `a workflow agent may start agents: ${a.tools.join(",")}`);
      assert.match(a.system, /MUST call the StructuredOutput tool exactly once/);
      // A StructuredOutput the schema accepts ends the agent: no request follows it.
      assert.equal(a.structured, undefined, `the agent went on after StructuredOutput: ${a.structured?.text}`);
    }
    assert.match(seen[1].brief, /db: db is done/, "api got db's context");
    // Their source edits and checks ran under the grant; the Edit outside every scope was denied and told to the agent.
    const db = seen[0].results;
    // Where the sidecar names a workflow agent by its agent() label, db's grant does not cover the api role's source.
    if (labelled === undefined) t.diagnostic(`workflow agent's cross-role Edit denied: ${db[3]?.isError}`);
    const crossDenied = labelled ?? db[3]?.isError === true;
    assert.deepEqual(db.map((r) => [r.name, r.isError]), [["Edit", false], ["Bash", false], ["Edit", true], ["Edit", crossDenied]]);
    assert.match(db[2].text, /Claude requested permissions to write to .*package\.json/);
    if (crossDenied) assert.match(db[3].text, /Claude requested permissions to write to .*src\/api\/server\.js/);
    assert.equal(/not mine/.test(project.read("src/api/server.js")), !crossDenied);
    assert.deepEqual(seen[1].results.map((r) => [r.name, r.isError]), [["Edit", false], ["Bash", false]]);
    for (const r of ROLES) assert.match(project.read(r.edit), new RegExp(`${r.name} \\(workflow\\)`));
    assert.doesNotMatch(project.read("package.json"), /commonjs/);
    // The hook saw every call of the workflow's agents, in the default mode, and approved exactly the granted ones.
    const agentCalls = plugin.log().filter((e) => e.agentType === "workflow-subagent");
    assert.ok(agentCalls.length >= 10, `hook saw ${agentCalls.length} workflow-agent calls`);
    assert.ok(agentCalls.every((e) => e.mode === "default"), JSON.stringify(agentCalls.map((e) => e.mode)));
    const decided = (tool: string, pred: (e: any) => boolean) => agentCalls.filter((e) => e.tool === tool && pred(e)).map((e) => e.allowed);
    assert.deepEqual(decided("Edit", (e) => /src\/(db|api)\//.test(e.input.file_path)), [true, !crossDenied, true]);
    assert.deepEqual(decided("Bash", (e) => e.input.command === CHECK), [true, true]);
    assert.deepEqual(decided("Edit", (e) => e.input.file_path.endsWith("package.json")), [false]);
    assert.deepEqual(decided("Write", (e) => /\.design\/worker-(db|api)\.json$/.test(e.input.file_path)), [true, true]);
    // Outside -p's own record: the agents' denied Edit is not in permission_denials (only the lead's would be).
    assert.deepEqual(s.denials, []);
    // What the lead receives: the script's return value in the notification, with the updates and reports.
    assert.equal(result.status, "completed");
    assert.deepEqual(result.value.statuses, ["completed", "completed"]);
    assert.match(result.value.reason, /all 2 roles completed/);
    assert.deepEqual(Object.keys(result.value.reports).sort(), ["api", "db"]);
    const block = notificationBlock(lastCtx!, launched.launch.id).replace(result.raw, "…");
    const journal = /Per-agent results: \S+\/journal\.jsonl/.test(block) && /<agents_done>2<\/agents_done><agents_error>0<\/agents_error>/.test(block);
    if (NOTIFICATION_JOURNAL[CLAUDE_CODE_VERSION] === undefined) t.diagnostic(`notification: ${block}`);
    else assert.equal(journal, NOTIFICATION_JOURNAL[CLAUDE_CODE_VERSION], `notification: ${block}`);
    // execute replays it: statuses, attemptLog and results in plan.json; the reports on disk; the checks pass.
    // One entry per update replayed (each role's start; its completion waits for run-checks).
    assert.deepEqual(replayed.update.updated, [0, 1]);
    assert.deepEqual(result.value.completions.map((c: any) => [c.roleIndex, c.agent]), [[0, "db"], [1, "api"]]);
    const plan = project.json(".design/plan.json");
    assert.deepEqual(plan.roles.map((r: any) => [r.status, r.attemptLog.map((a: any) => [a.attempt, a.agent, a.outcome])]), [
      ["completed", [[1, "db", "completed"]]],
      ["completed", [[1, "api", "completed"]]],
    ]);
    for (const r of ROLES) assert.equal(project.json(`.design/worker-${r.name}.json`).achieved, true);
    assert.ok(replayed.finished.length === 2 && replayed.finished.every((f: any) => f.status === "completed"), JSON.stringify(replayed.finished));
    for (const r of plan.roles) assert.ok(r.attemptLog[0].evidence.every((e: any) => e.passed === true && e.check === CHECK), "completed on the helper's evidence");
    t.diagnostic(`notification result: ${result.raw.length} chars; hook saw ${agentCalls.length} workflow-agent calls`);
  });

  // Issue 24: a role the workflow reported completed must not stay completed when the lead's re-check fails. The
  // workflow's agents do their work and pass their check; then the tree changes under them (here: a failing test
  // lands before the lead re-checks), and `finish` records each role failed on the helper's own evidence.
  it("the workflow says done, the lead's re-check does not: finish records the roles failed, nothing is committed [feature:execute/checks-decide-completion]", { timeout: TIMEOUT }, async (t) => {
    if (!needsWorkflow(t)) return;
    if (LABEL_IN_SIDECAR[CLAUDE_CODE_VERSION] === false) return t.skip(`Claude Code ${CLAUDE_CODE_VERSION}: the workflow's agents get nothing of the grant, so none completes`);
    const project = planned(projects, "wf: re-check fails");
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "--workflow");
    const seen: WfSeen[] = [];
    let result: any;
    let replayed: any;
    const commitsBefore = gitCount(project);
    const s = await session({
      prompt: "/do:execute --workflow",
      cwd: project.dir,
      args: ["--allowedTools", lead.approval("grant-approve"), "Workflow"],
      maxTurns: 60,
      timeoutMs: 200_000,
      agents: workflowAgents(project, seen),
      script: flowScript(function* (_first, latest): Flow {
        yield* upToWorkers(lead, true);
        const { launch } = yield* launchWorkflow(lead);
        done(launch);
        result = workflowResult(yield* waitFor(latest(), [launch.id], "Waiting for the workflow."), launch.id);
        check(result.value?.statuses?.every((x: string) => x === "completed"), result.raw.slice(0, 500));
        // What the workflow's agents claimed no longer holds when the lead checks.
        project.write("test/late.test.js", "require('node:test')('late', () => { throw new Error('broken after the workflow'); });\n");
        replayed = yield* replay(lead, result.value);
        yield turn("The workflow said done; the checks said otherwise.");
      }),
    });
    assertClean(s);
    assert.deepEqual(result.value.statuses, ["completed", "completed"], "the workflow reported both done");
    assert.deepEqual(replayed.finished.map((f: any) => f.status), ["failed", "failed"]);
    for (const f of replayed.finished) assert.match(f.result, /node --test test\//, f.result);
    const plan = project.json(".design/plan.json");
    assert.deepEqual(plan.roles.map((r: any) => r.status === "completed"), [false, false], JSON.stringify(plan.roles.map((r: any) => [r.status, r.result])));
    assert.equal(gitCount(project), commitsBefore, "a role the checks failed was committed");
  });

  it("without the grant: the workflow's agents are denied their Edit and check, the role fails, its dependent is skipped", { timeout: TIMEOUT }, async (t) => {
    if (!needsWorkflow(t)) return;
    const project = planned(projects, "wf: no grant");
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "--workflow");
    const seen: WfSeen[] = [];
    let result: any;
    const s = await session({
      prompt: "/do:execute --workflow",
      cwd: project.dir,
      args: ["--allowedTools", "Workflow"],
      maxTurns: 60,
      timeoutMs: 200_000,
      agents: workflowAgents(project, seen),
      script: flowScript(function* (first, latest): Flow {
        yield* upToWorkers(lead, false);
        const { launch } = yield* launchWorkflow(lead);
        done(launch);
        result = workflowResult(yield* waitFor(latest(), [launch.id], "Waiting for the workflow."), launch.id);
        check(result.value?.updates, result.raw.slice(0, 500));
        yield* replay(lead, result.value);
        yield turn("db failed: its Edit and its check were denied without a grant.");
      }),
    });
    assertClean(s);
    // db's three attempts (one tier up each time), each denied; api never starts: it depends on db.
    assert.deepEqual(seen.map((x) => x.agent), ["db", "db--2", "db--3"]);
    for (const a of seen) {
      const [edit, chk] = a.results;
      assert.ok(edit.isError && /Claude requested permissions to write to .*store\.js/.test(edit.text), edit.text);
      assert.ok(chk.isError && /requires approval/.test(chk.text), chk.text);
    }
    assert.equal(project.read("src/db/store.js"), "const todos = new Map();\nmodule.exports = { todos };\n");
    assert.deepEqual(result.value.statuses, ["failed", "skipped"]);
    const plan = project.json(".design/plan.json");
    assert.deepEqual(plan.roles.map((r: any) => r.status), ["failed", "skipped"]);
    assert.deepEqual(plan.roles[0].attemptLog.map((a: any) => [a.attempt, a.model, a.agent, a.outcome]), [
      [1, "haiku", "db", "failed"],
      [2, "sonnet", "db--2", "failed"],
      [3, "opus", "db--3", "failed"],
    ]);
    // Each retry started with the reflexion an agent of the workflow wrote (update-status refuses a retry without).
    assert.deepEqual(plan.roles[0].attemptLog.map((a: any) => a.reflexion?.rootCause ?? null), [
      null,
      "db: its Edit and its check were denied (attempt 1)",
      "db: its Edit and its check were denied (attempt 2)",
    ]);
    assert.match(plan.roles[0].result, /failed: The tests pass/);
    assert.match(result.value.reason, /nothing can move/);
    // The denial reaches the lead only through the worker's report (its evidence names the denied calls).
    assert.match(project.json(".design/worker-db.json").acceptanceCriteria[0].evidence, /denied: Edit .*denied: Bash/);
  });

  it("interrupted after its first agent: plan.json has no status, and a new session cannot resume the run", { timeout: TIMEOUT }, async (t) => {
    if (!needsWorkflow(t)) return;
    const project = planned(projects, "wf: interrupted");
    const home = scratchHome();
    // Where the sidecar names no workflow agent, the grant gives them nothing: the user's own rules let them work.
    const agentRules = LABEL_IN_SIDECAR[CLAUDE_CODE_VERSION] === false ? ["Edit(src/**)", `Bash(${CHECK})`] : [];
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "--workflow");
    const seen: WfSeen[] = [];
    let kill: (() => void) | undefined;
    let runId = "";
    const first = await session({
      prompt: "/do:execute --workflow",
      cwd: project.dir,
      home,
      args: ["--allowedTools", lead.approval("grant-approve"), "Workflow", ...agentRules],
      maxTurns: 60,
      timeoutMs: 200_000,
      onStart: (k) => (kill = k),
      // The CLI dies as the second agent (api) starts: db has finished and written its report.
      agents: workflowAgents(project, seen, { onStart: (a) => a === "api" && kill?.() }),
      script: flowScript(function* (f, latest): Flow {
        yield* upToWorkers(lead, true);
        const { launch } = yield* launchWorkflow(lead);
        runId = /Run ID: (\S+)/.exec(done(launch))?.[1] ?? "";
        yield* waitFor(latest(), [launch.id], "Waiting for the workflow.");
        yield turn("unreachable");
      }),
    });
    assert.notEqual(first.run.code, 0, "the CLI was killed");
    assert.match(runId, /^wf_/);
    assert.deepEqual(seen.map((x) => x.agent), ["db", "api"]);
    // What survives: db's source edit and report; plan.json knows nothing of it (updates come back only at the end).
    assert.match(project.read("src/db/store.js"), /db \(workflow\)/);
    assert.equal(project.json(".design/worker-db.json").achieved, true);
    assert.deepEqual(project.json(".design/plan.json").roles.map((r: any) => r.status ?? "pending"), ["pending", "pending"]);
    // A new session (what /do:execute again is) asks to resume that run.
    let resumed: ToolResult | undefined;
    let result: any;
    const seen2: WfSeen[] = [];
    const second = await session({
      prompt: "resume the workflow",
      cwd: project.dir,
      home,
      args: ["--allowedTools", "Workflow", ...agentRules],
      maxTurns: 8,
      timeoutMs: 200_000,
      agents: workflowAgents(project, seen2),
      script: flowScript(function* (f, latest): Flow {
        yield* loadTools(f, ["Workflow"]);
        resumed = (yield turn("Resuming.", { name: "Workflow", input: { scriptPath: ".design/workflow.js", resumeFromRunId: runId } })).results[0];
        if (!resumed.isError) result = workflowResult(yield* waitFor(latest(), [resumed.id], "Waiting for the workflow."), resumed.id);
        yield turn("Done.");
      }),
    });
    cleanup(home);
    assertClean(second);
    const across = RESUME_FROM_ANOTHER_SESSION[CLAUDE_CODE_VERSION];
    t.diagnostic(`resumeFromRunId from a new session: ${resumed!.text.slice(0, 160)}; agents run again: ${seen2.map((x) => x.agent).join(",")}`);
    if (across === undefined) return;
    if (across === "refused") {
      assert.ok(resumed?.isError, `resumeFromRunId in a new session: ${resumed?.text}`);
      assert.match(resumed!.text, /journal for workflow run wf_\S+ is not on disk.*nothing to resume/s);
      assert.deepEqual(seen2, []);
      return;
    }
    // This release launches it but replays nothing: db, which had finished, runs again before api.
    assert.ok(!resumed?.isError, `resumeFromRunId in a new session: ${resumed?.text}`);
    assert.deepEqual(seen2.map((x) => x.agent), ["db", "api"]);
    assert.deepEqual(result.value.statuses, ["completed", "completed"]);
    // The script replays starts only; what its agents reported done comes back as completions, for the lead to
    // check with run-checks before anything is recorded completed.
    assert.deepEqual(result.value.updates.map((u: any) => [u.roleIndex, u.status]), [
      [0, "in_progress"],
      [1, "in_progress"],
    ]);
    assert.deepEqual(result.value.completions.map((c: any) => [c.roleIndex, c.agent]), [[0, "db"], [1, "api"]]);
  });
});
