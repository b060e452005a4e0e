// Proof and price of every role through the real CLI (`claude -p "/do:execute" --plugin-dir`), the lead following
// skills/execute/SKILL.md call for call:
// - a worker that claims success while its check fails is not completed: run-checks (approved by the hook under the
//   grant) records the failing evidence, update-status refuses the completion, and `finish` records it failed;
// - what each worker cost comes from its own transcript (`finish` records it), with the numbers the stub reported;
// - a run stops on its budget (`next` ends with `stoppedBy: "budget"`, the plan resumable) and goes on when the
//   budget is raised.
// The grant is approved the way the user approves it: the grant-approve.js call, allowed for this session.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CLAUDE_CODE_VERSION, ensureClaude, PLUGIN_DIR, scratchHome } from "./lib/claude.ts";
import { agent, check, done, flowScript, helperJson, ok, turn, waitFor, type Flow } from "./lib/lead.ts";
import { finishCall, grantPhase, noChallenge, preflight } from "./lib/execute-lead.ts";
import { agentTable, type AgentPart } from "./lib/agents.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { assertClean, session } from "./lib/session.ts";
import { calls, helper, SkillLead } from "./lib/skill-lead.ts";
import { substitute } from "./lib/prompts.ts";
import type { Script, TurnContext, Usage } from "./lib/stub.ts";
import { cliSync } from "../helpers/cli.ts";
import { QUICK_SKIPS, REQUIRED_AUXILIARIES } from "./lib/fixtures.ts";

const TIMEOUT = 180_000;
/** A check the sample project fails until a worker really adds due dates. */
const DUE_CHECK = "grep -q dueDate src/db/store.js";
const TEST_CHECK = "node --test test/";

interface RoleSpec {
  name: string;
  model: string;
  dirs: string[];
  checks: string[];
  deps?: string[];
}

/**
 * A quick plan (complexity low, at most 3 roles): finalize lets it leave out challenger and scout, so phase 2 has
 * nothing to spawn; it lists integration-verifier, which every plan runs (phase 5, which these tests never reach).
 */
function planned(projects: Sample[], goal: string, roles: RoleSpec[]): Sample {
  const p = sampleProject();
  projects.push(p);
  p.write(".design/draft/plan.json", {
    schemaVersion: 4,
    goal,
    complexity: "low",
    context: { stack: "Node 20, CommonJS, node:test", conventions: [], testCommand: "npm test", buildCommand: null, lsp: null },
    expertArtifacts: [],
    designDecisions: [],
    verificationSpecs: [],
    roles: roles.map((r) => ({
      name: r.name,
      goal: `${r.name} does its part of: ${goal}`,
      model: r.model,
      scope: { directories: r.dirs, patterns: [], dependencies: r.deps ?? [] },
      expertContext: [],
      constraints: [],
      acceptanceCriteria: r.checks.map((c, k) => ({ criterion: `check ${k + 1} holds`, check: c })),
      assumptions: [],
      rollbackTriggers: [],
      fallback: "",
    })),
    auxiliaryRoles: REQUIRED_AUXILIARIES.filter((a) => a.name === "integration-verifier" || a.name === "memory-curator").map((a) => ({ ...a })),
    skippedAuxiliaries: QUICK_SKIPS,
    // Roles in two areas make finalize judge the plan medium; these tests keep it small on purpose, and say so.
    ...(new Set(roles.flatMap((r) => r.dirs)).size > 1
      ? { complexityOverride: { from: "medium", reason: "two small roles across the store and the API, to test the proof of each check" } }
      : {}),
  });
  const r = cliSync(["finalize", ".design/draft/plan.json"], { cwd: p.dir });
  assert.equal(r.json?.ok, true, r.stdout);
  return p;
}

/** The grant-approve.js call exactly as SKILL.md writes it, substituted. */
function approveCall(lead: SkillLead): string {
  const line = lead.prompt.body.split("\n").find((l) => l.includes("scripts/grant-approve.js"));
  const m = line && /`(node "\$\{CLAUDE_SKILL_DIR\}\/scripts\/grant-approve\.js" [^`]+)`/.exec(line);
  if (!m) throw new Error("SKILL.md no longer writes the grant-approve.js call");
  return substitute(m[1], lead.prompt, PLUGIN_DIR, "");
}

/** The session's yes to that one call: what the user answers when Claude Code asks about it. */
const userApproves = (lead: SkillLead) => ["--allowedTools", `Bash(${approveCall(lead)})`];

function report(role: string, claims: boolean, files: string[] = []): object {
  return {
    role,
    achieved: claims,
    filesChanged: files,
    acceptanceCriteria: [{ criterion: "check 1 holds", passed: claims, evidence: claims ? "all green" : "failed" }],
    keyDecisions: claims ? [`${role}: kept it simple`] : [],
    contextForDependents: claims ? `${role} is done` : "",
  };
}

const U = (input: number, output: number, cacheWrite: number, cacheRead: number): Usage => ({
  input_tokens: input,
  output_tokens: output,
  cache_creation_input_tokens: cacheWrite,
  cache_read_input_tokens: cacheRead,
});
/** What a worker's three requests report (the sum: 12,968 tokens; the last request alone: 4,378). */
const WORKER_USAGE = [U(1000, 40, 200, 3000), U(100, 50, 0, 4200), U(7, 60, 11, 4300)];
const WORKER_SPEND = 12_968;

/**
 * A worker that really does its role (adds due dates), reporting real usage per request: it reads a file of its
 * scope, writes its change and its report in one turn, and ends.
 */
function costlyWorker(project: Sample, role: string, read: string, file: string): Script {
  const change = "const todos = new Map();\nconst dueDate = (t) => t.due ?? null;\nmodule.exports = { todos, dueDate };\n";
  return [
    { text: "Reading my scope.", tools: [{ name: "Read", input: { file_path: project.path(read) } }], usage: WORKER_USAGE[0] },
    {
      text: "Adding due dates and writing my report.",
      tools: [
        { name: "Write", input: { file_path: project.path(file), content: change } },
        { name: "Write", input: { file_path: project.path(`.design/worker-${role}.json`), content: JSON.stringify(report(role, true, [file]), null, 2) } },
      ],
      usage: WORKER_USAGE[1],
    },
    { text: `${role}: done.`, usage: WORKER_USAGE[2] },
  ];
}

/** The `<usage>` of one agent's task notification, as the CLI delivered it to the lead. */
function notifiedUsage(ctx: TurnContext, toolUseId: string): { tokens: number; toolUses: number; durationMs: number } {
  const text = JSON.stringify(ctx.body.messages);
  const block = [...text.matchAll(/<task-notification>([\s\S]*?)<\/task-notification>/g)].map((m) => m[1]).find((b) => b.includes(toolUseId));
  const num = (tag: string) => Number(new RegExp(`<${tag}>(\\d+)</${tag}>`).exec(block ?? "")?.[1] ?? NaN);
  return { tokens: num("subagent_tokens"), toolUses: num("tool_uses"), durationMs: num("duration_ms") };
}

/** Pre-flight, challenge (none), grant (approved through grant-approve.js), as SKILL.md spells them. */
function* upToWorkers(lead: SkillLead): Generator<any, any, TurnContext> {
  const { begin } = yield* preflight(lead);
  check(begin.action === "start", JSON.stringify(begin));
  yield* noChallenge(lead);
  const { proposal } = yield* grantPhase(lead);
  return { begin, proposal };
}

/** next (which records the start), the worker spawned, its notification. */
function* startOne(lead: SkillLead, latest: () => TurnContext, text = ""): Generator<any, { st: any; ctx: TurnContext; id: string }, TurnContext> {
  const d = yield* helper(lead, "Asking the helper what to start.", "next");
  const st = d.start[0];
  check(st?.recorded === true, JSON.stringify(d));
  const spawn = yield* calls(`Spawning ${st.agent}.`, agent(`work on ${st.name}`, st.agent, st.model, `Agent: worker-${st.agent}\nRole: ${st.name}. Report to ${st.reportPath}.${text}`));
  const ctx = yield* waitFor(latest(), [spawn.results[0].id], "Waiting for the worker.");
  return { st, ctx, id: spawn.results[0].id };
}

describe(`proof and price through claude -p (Claude Code ${CLAUDE_CODE_VERSION})`, { concurrency: 1 }, () => {
  const projects: Sample[] = [];
  const homes: string[] = [];
  before(() => ensureClaude());
  after(() => cleanup(...projects.map((p) => p.dir), ...homes));

  it("a worker that claims success with a failing check is not completed [feature:execute/checks-decide-completion]", { timeout: TIMEOUT }, async () => {
    const roles: RoleSpec[] = [{ name: "store-dev", model: "haiku", dirs: ["src/db"], checks: [DUE_CHECK, TEST_CHECK] }];
    const project = planned(projects, "add due dates", roles);
    const errors: string[] = [];
    // The worker does nothing and reports every criterion passed.
    const parts: Record<string, AgentPart> = { "worker-store-dev": { file: ".design/worker-store-dev.json", content: report("store-dev", true), reply: "store-dev: all done, every check passed." } };
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    let checks: any;
    let refused: any;
    let finished: any;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      args: userApproves(lead),
      maxTurns: 40,
      timeoutMs: 150_000,
      agents: agentTable(project, parts, errors),
      script: flowScript(function* (_first, latest): Flow {
        yield* upToWorkers(lead);
        done((yield* calls("Phase 4/7 Workers.", lead.ref("worker-brief.md"))).results[0]);
        const { st } = yield* startOne(lead, latest);
        checks = yield* helper(lead, "Checking store-dev.", "run-checks", [], { fill: { roleIndex: String(st.roleIndex) } });
        // A lead that took the report's word anyway: the helper refuses.
        refused = helperJson((yield* calls("store-dev says it is done.", lead.run("update-status", ['"stalled": true'], { roleIndex: st.roleIndex, replace: [['"status": "failed", "stalled": true, "result": "stalled"', '"status": "completed", "result": "done"']] }))).results[0]);
        finished = ok((yield* calls("store-dev finished.", finishCall(lead, st.agent))).results[0]);
        yield turn(`store-dev claimed success but its check failed: ${finished.result}`);
      }),
    });
    assertClean(s);
    assert.deepEqual(errors, []);
    assert.deepEqual([checks.passed, checks.recorded, checks.summary], [false, true, "1/2 passed"]);
    assert.deepEqual(checks.results.map((r: any) => [r.check, r.exitCode, r.passed]), [[DUE_CHECK, 1, false], [TEST_CHECK, 0, true]]);
    assert.equal(refused.ok, false);
    assert.equal(refused.code, "E_INVALID");
    assert.match(refused.error, /check `grep -q dueDate src\/db\/store\.js` failed \(exit 1\)/);
    const role = project.json(".design/plan.json").roles[0];
    assert.equal(role.status, "failed");
    assert.equal(finished.status, "failed");
    assert.match(finished.result, /grep -q dueDate src\/db\/store\.js/, "the failing check is named");
    assert.ok(!finished.commit?.sha, "a failed role was committed");
    const attempt = role.attemptLog[0];
    assert.equal(attempt.outcome, "failed");
    assert.deepEqual(attempt.evidence.map((e: any) => [e.check, e.passed]), [[DUE_CHECK, false], [TEST_CHECK, true]]);
    assert.match(attempt.evidence[1].output, /# pass 1/);
    assert.equal(typeof attempt.runId, "string");
  });

  it("what a worker cost comes from its own transcript: the notification's subagent_tokens is not its spend [feature:execute/cost-recorded]", { timeout: TIMEOUT }, async (t) => {
    const roles: RoleSpec[] = [{ name: "store-dev", model: "haiku", dirs: ["src/db"], checks: [DUE_CHECK, TEST_CHECK] }];
    const project = planned(projects, "add due dates", roles);
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    let recorded: any;
    let notified: any;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      args: userApproves(lead),
      maxTurns: 40,
      timeoutMs: 150_000,
      agents: (brief) => (/^Agent: worker-store-dev$/m.test(brief) ? costlyWorker(project, "store-dev", "src/db/store.js", "src/db/store.js") : undefined),
      script: flowScript(function* (_first, latest): Flow {
        yield* upToWorkers(lead);
        const { st, ctx, id } = yield* startOne(lead, latest);
        notified = notifiedUsage(ctx, id);
        // One call: the cost from the agent's own transcript, the report, the checks, the status, the commit.
        recorded = ok((yield* calls("store-dev finished.", finishCall(lead, st.agent))).results[0]);
        check(recorded.status === "completed", JSON.stringify(recorded));
        yield turn("store-dev completed.");
      }),
    });
    assertClean(s);
    t.diagnostic(`notification <usage>: ${JSON.stringify(notified)}; transcript: ${recorded.usage.tokens} tokens, ${recorded.usage.toolUses} tool uses, ${recorded.usage.durationMs} ms`);
    const usage = project.json(".design/plan.json").roles[0].attemptLog[0].usage;
    assert.deepEqual([usage.source, usage.tokens, usage.requests, usage.toolUses], ["transcript", WORKER_SPEND, 3, 3]);
    assert.deepEqual([usage.inputTokens, usage.outputTokens, usage.cacheCreationTokens, usage.cacheReadTokens], [1107, 150, 211, 11500]);
    assert.equal(recorded.usage.tokens, WORKER_SPEND);
    // The notification agrees on tool uses, and its token count is far below the spend: the last request's size.
    assert.equal(notified.toolUses, 3);
    assert.ok(notified.tokens < WORKER_SPEND / 2, `subagent_tokens ${notified.tokens}`);
    if (CLAUDE_CODE_VERSION === "2.1.332") assert.equal(notified.tokens, 7 + 60 + 11 + 4300);
    const summary = cliSync(["summary", ".design/plan.json"], { cwd: project.dir }).json;
    assert.deepEqual(summary.cost.byTier, { haiku: WORKER_SPEND });
  });

  it("a run stops on its budget, the plan resumable, and goes on when the budget is raised [feature:execute/budget-stops]", { timeout: TIMEOUT * 2 }, async () => {
    const roles: RoleSpec[] = [
      { name: "store-dev", model: "haiku", dirs: ["src/db"], checks: [DUE_CHECK, TEST_CHECK] },
      { name: "api-dev", model: "haiku", dirs: ["src/api"], checks: [TEST_CHECK], deps: ["store-dev"] },
    ];
    const project = planned(projects, "due dates under a budget", roles);
    // One user across both sessions: the same HOME holds the grant key that signed the run's grant.
    const home = scratchHome();
    homes.push(home);
    const workers = (brief: string): Script | undefined => {
      if (/^Agent: worker-store-dev$/m.test(brief)) return costlyWorker(project, "store-dev", "src/db/store.js", "src/db/store.js");
      if (/^Agent: worker-api-dev$/m.test(brief)) return costlyWorker(project, "api-dev", "src/api/server.js", "src/api/due.js");
      return undefined;
    };
    /** Phase 4's loop until next says done: each worker finished through the helper (cost, checks, status). */
    const loop = function* (lead: SkillLead, latest: () => TurnContext): Generator<any, any, TurnContext> {
      for (let round = 0; ; round++) {
        check(round < 4, "too many rounds");
        const d = yield* helper(lead, "Asking the helper what to start.", "next");
        if (d.done) return d;
        for (const st of d.start) {
          const spawn = yield* calls(`Spawning ${st.agent}.`, agent(`work on ${st.name}`, st.agent, st.model, `Agent: worker-${st.agent}\nRole: ${st.name}.`));
          yield* waitFor(latest(), [spawn.results[0].id], "Waiting for the worker.");
          const f = ok((yield* calls(`${st.name} finished.`, finishCall(lead, st.agent))).results[0]);
          check(f.status === "completed", JSON.stringify(f));
        }
      }
    };
    // Session 1: --budget 20000. store-dev (no forecast yet) runs and spends 12,968; api-dev's forecast (store-dev's
    // recorded cost) would take the run to 25,936: next holds it and the run stops on its budget.
    const lead1 = new SkillLead("execute", PLUGIN_DIR, project, "--budget 20000");
    let stop: any;
    let proposal: any;
    const s1 = await session({
      prompt: "/do:execute --budget 20000",
      cwd: project.dir,
      home,
      args: userApproves(lead1),
      maxTurns: 50,
      timeoutMs: 150_000,
      agents: workers,
      script: flowScript(function* (_first, latest): Flow {
        ({ proposal } = yield* upToWorkers(lead1));
        stop = yield* loop(lead1, latest);
        yield turn(`Stopped: ${stop.reason}. Raise the budget to go on.`);
      }),
    });
    assertClean(s1);
    assert.ok(proposal.summary.includes("Budget: 20,000 tokens for this run (set with --budget); no worker starts once its forecast would pass it."), proposal.summary.join("\n"));
    assert.ok(proposal.summary.includes("No forecast yet: no earlier attempt recorded what it cost."));
    assert.deepEqual([stop.done, stop.stoppedBy, stop.budget.spent], [true, "budget", WORKER_SPEND]);
    assert.match(stop.reason, /^budget: the run spent 12968 of its 20000 tokens/);
    assert.deepEqual(stop.waiting.map((w: any) => [w.name, w.on[0].kind]), [["api-dev", "budget"]]);
    let plan = project.json(".design/plan.json");
    assert.deepEqual(plan.roles.map((r: any) => r.status ?? "pending"), ["completed", "pending"]);
    // Still stopped for anyone who asks again with the same budget: the plan waits, resumable.
    assert.equal(cliSync(["next", ".design/plan.json"], { cwd: project.dir }).json.stoppedBy, "budget");

    // Session 2: /do:execute --budget 40000 resumes the run at its workers phase, raises the budget, and goes on.
    const lead2 = new SkillLead("execute", PLUGIN_DIR, project, "--budget 40000");
    let resumed: any;
    let last: any;
    const s2 = await session({
      prompt: "/do:execute --budget 40000",
      cwd: project.dir,
      home,
      maxTurns: 50,
      timeoutMs: 150_000,
      agents: workers,
      script: flowScript(function* (_first, latest): Flow {
        // run-begin with the raised budget: the stopped run can resume; resumed, it records the new budget.
        const pre = yield* preflight(lead2);
        resumed = pre.begin;
        check(pre.first.action === "ask-resume" && resumed.action === "resumed" && resumed.resume.nextPhase === "workers", JSON.stringify(pre));
        last = yield* loop(lead2, latest);
        yield turn(`Done: ${last.reason}`);
      }),
    });
    assertClean(s2);
    assert.deepEqual([last.done, last.stoppedBy], [true, null]);
    assert.match(last.reason, /all 2 roles completed/);
    plan = project.json(".design/plan.json");
    assert.deepEqual(plan.roles.map((r: any) => r.status), ["completed", "completed"]);
    assert.deepEqual(plan.progress.budget.tokens, 40_000);
    const runId = project.json(".design/run-execute.json").runId;
    assert.ok(plan.roles.every((r: any) => r.attemptLog[0].runId === runId && r.attemptLog[0].usage.tokens === WORKER_SPEND), "one run, both attempts' spend recorded");
  });
});
