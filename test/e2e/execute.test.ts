// Issue 11's execute scenarios through the real CLI (`claude -p "/do:execute" --plugin-dir`), each on its own small
// plan in a fresh copy of the sample project: an overlap whose holder fails for good; a re-run that retries a failed
// role one tier up; a stalled worker stopped and replaced once, then not retried after a second stall; an invalid
// challenger report; no plan at all; an interruption in the middle of phase 4, resumed with the dependents' context.
// The scripted lead follows skills/execute/SKILL.md: every helper call exactly as written there, in its order.
import { after, before, describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { BEHAVIOUR, CLAUDE_CODE_VERSION, ensureClaude, PLUGIN_DIR, scratchHome } from "./lib/claude.ts";
import { agent, bash, check, DENIAL, done, flowScript, helperJson, loadTools, ok, read, sendMessage, turn, waitFor, type Flow } from "./lib/lead.ts";
import { agentTable, type AgentPart } from "./lib/agents.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { assertClean, session, type Session } from "./lib/session.ts";
import { calls, helper, SkillLead } from "./lib/skill-lead.ts";
import { offeredTools, type ToolCall, type TurnContext } from "./lib/stub.ts";
import { cliSync } from "../helpers/cli.ts";
import { REQUIRED_AUXILIARIES } from "./lib/fixtures.ts";
import { withEvidence } from "../helpers/design-dir.ts";

const TIMEOUT = 180_000;

interface RoleSpec {
  name: string;
  model: string;
  dirs: string[];
  deps?: string[];
}

function planDoc(goal: string, roles: RoleSpec[], aux: object[] = REQUIRED_AUXILIARIES): object {
  return {
    schemaVersion: 4,
    goal,
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
      acceptanceCriteria: [{ criterion: "The tests pass", check: "node --test test/" }],
      assumptions: [],
      rollbackTriggers: [],
      fallback: "",
    })),
    auxiliaryRoles: aux,
  };
}

/** The helper run directly by the test (set-up and after-checks), ok:true required. */
function helperSync(p: Sample, args: string[], stdin?: string): any {
  const r = cliSync(args, { cwd: p.dir, stdin });
  assert.equal(r.json?.ok, true, `${args.join(" ")}: ${r.stdout} ${r.stderr}`);
  return r.json;
}

/**
 * An earlier run's failed attempts of one role, recorded through the helper as a lead would: each retry's start
 * carries its reflexion on the previous failure (the helper refuses it without).
 */
function earlierFailures(p: Sample, roleIndex: number, n: number): void {
  for (let k = 0; k < n; k++) {
    const start: Record<string, unknown> = { roleIndex, status: "in_progress" };
    if (k > 0) start.reflexion = REFLEXION;
    helperSync(p, ["update-status", ".design/plan.json"], JSON.stringify([start]));
    helperSync(p, ["update-status", ".design/plan.json"], JSON.stringify([{ roleIndex, status: "failed", result: `attempt ${k + 1}: tests failed` }]));
  }
}

/** A sample project with a finalized plan. */
function planned(projects: Sample[], goal: string, roles: RoleSpec[], aux: object[] = REQUIRED_AUXILIARIES): Sample {
  const p = sampleProject();
  projects.push(p);
  p.write(".design/draft/plan.json", planDoc(goal, roles, aux));
  helperSync(p, ["finalize", ".design/draft/plan.json"]);
  return p;
}

function report(role: string, achieved: boolean, extra: Partial<{ filesChanged: string[]; context: string }> = {}): object {
  return {
    role,
    achieved,
    filesChanged: extra.filesChanged ?? [],
    acceptanceCriteria: [{ criterion: "The tests pass", passed: achieved, evidence: achieved ? "node --test test/: 1 passed" : "node --test test/: 1 failed" }],
    keyDecisions: achieved ? [`${role}: kept the module layout`] : [],
    contextForDependents: achieved ? (extra.context ?? `${role} is done`) : "",
  };
}

/** The brief's first line picks the scripted agent; the rest is what the lead tells it. */
function brief(key: string, body: string): string {
  return `Agent: ${key}\n${body}`;
}

/** Phase 1 (steps 2-7 of a fresh run): returns the resume-reset answer. */
function* preflight(lead: SkillLead, goal: string): Generator<any, any, TurnContext> {
  const start = yield* helper(lead, "Phase 1/7 Pre-flight: starting the run.", "run-start", [], { fill: { "plan goal": goal } });
  check(start.next === "pre-flight", JSON.stringify(start));
  const st = yield* helper(lead, "Plan status.", "status", [".design/plan.json"]);
  check(st.roleCount > 0, JSON.stringify(st));
  const reset = yield* helper(lead, "Recovering interrupted roles.", "resume-reset");
  const ctx = yield* calls("Health and the working tree.", lead.run("health-check", [".design"]), bash("git status --porcelain", "Is the tree dirty?"));
  ok(ctx.results[0]);
  done(ctx.results[1]);
  yield* helper(lead, "Summary.", "summary");
  yield* helper(lead, "Pre-flight done.", "run-checkpoint", ["--phase pre-flight"], { fill: { n: String(reset.resetRoles.length), k: String(st.roleCount - (st.counts.completed ?? 0)) } });
  return reset;
}

/**
 * Phase 3: the grant proposal, the user's approval recorded with the grant-approve.js call (which the session must
 * allow: `userApproves`), memories per role (none stored yet), checkpoint.
 */
function* grantPhase(lead: SkillLead, roles: RoleSpec[], approve = true): Generator<any, void, TurnContext> {
  const proposal = yield* helper(lead, "Phase 3/7 Grant.", "grant");
  check(proposal.recorded === false, JSON.stringify(proposal));
  if (approve) {
    const granted = yield* helper(lead, "The user approved: recording the grant.", "grant-approve");
    check(granted.recorded === true, JSON.stringify(granted));
  }
  yield* calls(
    "Memories per role.",
    ...roles.map((r) => lead.run("memory-search", ["--keywords"], { fill: { "role goal": r.name, "scope directories": r.dirs.join(",") } })),
  );
  yield* helper(lead, "Grant done.", "run-checkpoint", ["--phase grant"], { fill: { "approved|declined": approve ? "approved" : "declined", m: "0" } });
}

/**
 * The user's approval of the grant: Claude Code asks about the grant-approve.js call (no skill allows it, the hook
 * never approves it), and in -p nobody can answer, so the "yes" is a permission rule for exactly that command.
 */
function userApproves(lead: SkillLead): string[] {
  return ["--allowedTools", lead.approval("grant-approve")];
}

/** Phase 2 with no challenger or scout: nothing to do but the checkpoint (no --outputs). */
function* noChallenge(lead: SkillLead): Generator<any, void, TurnContext> {
  yield* helper(lead, "Phase 2/7 Challenge: no challenger or scout in this plan.", "run-checkpoint", ["--phase challenge"], {
    replace: [[` --outputs .design/challenger-report.json,.design/scout-report.json`, ""]],
    fill: { b: "0", c: "0" },
  });
}

interface Loop {
  answers: any[];
  starts: any[];
  /** Agent tool inputs by agent name. */
  spawned: Record<string, any>;
  /** The last `next` answer (done). */
  last: any;
}

/**
 * Pre-flight (work must remain), no challenge, the grant for `granted`, then phase 4's loop until `next` says
 * done: what a plain /do:execute run does up to its workers checkpoint.
 */
function* throughWorkers(lead: SkillLead, first: TurnContext, latest: () => TurnContext, granted: RoleSpec[]): Generator<any, { reset: any; loop: Loop }, TurnContext> {
  const reset = yield* preflight(lead, lead.digest(first).plan.goal);
  check(reset.noWorkRemaining === false, `resume-reset: ${JSON.stringify(reset)}`);
  yield* noChallenge(lead);
  yield* grantPhase(lead, granted);
  done((yield* calls("Phase 4/7 Workers.", lead.ref("worker-brief.md"))).results[0]);
  return { reset, loop: yield* workerLoop(lead, latest) };
}

/** A whole /do:execute session through its workers checkpoint, which records `reports` and `counts` (completed, failed, skipped). */
async function workersSession(project: Sample, agents: ReturnType<typeof agentTable>, roles: RoleSpec[], reports: string[], counts: [number, number, number]): Promise<{ s: Session; loop: Loop }> {
  const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
  let loop!: Loop;
  const s = await session({
    prompt: "/do:execute",
    cwd: project.dir,
    args: userApproves(lead),
    maxTurns: 70,
    timeoutMs: 150_000,
    agents,
    script: flowScript(function* (first, latest): Flow {
      loop = (yield* throughWorkers(lead, first, latest, roles)).loop;
      yield* workersCheckpoint(lead, reports, ...counts, loop.last.reason);
      yield turn(`Workers done: ${loop.last.reason}`);
    }),
  });
  return { s, loop };
}

interface LoopHooks {
  /** Called after a start was recorded in plan.json and before its agent is spawned; may interrupt the run. */
  beforeSpawn?: (s: any) => void;
}

/** The reflexion a scripted lead writes before a retry. */
const REFLEXION = {
  rootCause: "The check ran before the file it reads existed",
  wrongAssumptions: "The brief assumed the section was already there",
  alternative: "Write the file first, then run the check",
};

/**
 * Record a start as SKILL.md says: the echo call, or for a retry (after reading refs/retry-reflexion.md) the start
 * with its reflexion from .design/tmp/update.json.
 */
function* recordStart(lead: SkillLead, s: any): Generator<any, any, TurnContext> {
  if (!s.retry) {
    return yield* helper(lead, `Starting ${s.name} (attempt ${s.attempt} on ${s.model}).`, "update-status", ['"status": "in_progress"'], {
      roleIndex: s.roleIndex,
      replace: [
        ['"model": "sonnet"', `"model": "${s.model}"`],
        ['"agent": "api-developer"', `"agent": "${s.agent}"`],
      ],
    });
  }
  check(typeof s.failure?.outcome === "string", `a retry without its failure: ${JSON.stringify(s)}`);
  done((yield* calls("Retry reflexion.", lead.ref("retry-reflexion.md"))).results[0]);
  const path = lead.project.path(".design/tmp/update.json");
  if (lead.project.exists(".design/tmp/update.json")) done((yield* calls("Reading the earlier update.", read(path))).results[0]);
  done((yield* calls("The start with its reflexion.", lead.write(".design/tmp/update.json", [{ roleIndex: s.roleIndex, status: "in_progress", model: s.model, agent: s.agent, reflexion: REFLEXION }]))).results[0]);
  return yield* helper(lead, `Starting ${s.name} (attempt ${s.attempt} on ${s.model}).`, "update-status", ["< .design/tmp/update.json"]);
}

/**
 * Phase 4's loop as SKILL.md spells it: ask `next`; for each start clean up what it replaces, record a retry's
 * reflexion, record the start with the answer's model and agent, read the dependencies' reports, spawn; end the turn
 * until the workers report; record each one's cost, validate its report, let the helper run its checks and record
 * completed (on passing evidence) or failed; ask again until done.
 */
function* workerLoop(lead: SkillLead, latest: () => TurnContext, hooks: LoopHooks = {}): Generator<any, Loop, TurnContext> {
  const project = lead.project;
  const out: Loop = { answers: [], starts: [], spawned: {}, last: null };
  let running: Record<string, any> = {};
  const startAll = function* (d: any): Generator<any, void, TurnContext> {
    for (const s of d.start) {
      const i = s.roleIndex as number;
      out.starts.push(s);
      if (s.replaces) {
        const prev = `.design/worker-${s.replaces.agent}.json`;
        if (project.exists(prev)) {
          done((yield* calls(`Reading ${s.replaces.agent}'s report to clean its partial work.`, lead.readFile(prev))).results[0]);
          const files: string[] = project.json(prev).filesChanged ?? [];
          if (files.length) done((yield* calls("Restoring the failed attempt's files.", bash(`git restore -- ${files.join(" ")}`, "Clean partial work"))).results[0]);
        }
      }
      const up = yield* recordStart(lead, s);
      check(up.updated.includes(i), JSON.stringify(up));
      hooks.beforeSpawn?.(s);
      const context: string[] = [];
      for (const dep of s.dependencies) {
        if (!dep.reportExists) continue;
        done((yield* calls(`Reading ${dep.name}'s report.`, lead.readFile(dep.reportPath))).results[0]);
        const r = project.json(dep.reportPath);
        context.push(`${dep.name}: ${r.contextForDependents} (decisions: ${r.keyDecisions.join("; ")})`);
      }
      const prompt = brief(
        `worker-${s.agent}`,
        `You are ${s.agent}. Role: ${s.name}.\nContext from roles you depend on: ${context.join(" | ") || "none"}\nWrite your completion report to ${s.reportPath}.`,
      );
      const input = agent(`work on ${s.name}`, s.agent, s.model, prompt);
      const spawn = yield* calls(`Spawning ${s.agent}.`, input);
      done(spawn.results[0]);
      out.spawned[s.agent] = input.input;
      running[spawn.results[0].id] = s;
    }
  };
  let d = yield* helper(lead, "Asking the helper what to start.", "next");
  out.answers.push(d);
  yield* startAll(d);
  for (let rounds = 0; Object.keys(running).length; rounds++) {
    check(rounds < 8, "too many worker rounds");
    // Wait for the first one to report (the CLI delivers notifications as they come).
    yield* waitFor(latest(), [Object.keys(running)[0]], "Waiting for the workers.");
    const seen = new Set(latestNotified(latest()));
    const finished = Object.entries(running).filter(([id]) => seen.has(id));
    for (const [id, s] of finished) {
      delete running[id];
      // Its cost first (from the agent's own transcript), then its report.
      yield* helper(lead, `Recording what ${s.agent} cost.`, "record-usage", [], { fill: { agent: s.agent } });
      ok((yield* calls(`${s.name} reported.`, lead.run("worker-completion-validate", [], { fill: { agent: s.agent } }))).results[0]);
      const i = s.roleIndex as number;
      // The helper runs the role's checks and records the evidence; only then may the role complete.
      const checks = project.json(s.reportPath).achieved === true ? yield* helper(lead, `Checking ${s.name}.`, "run-checks", [], { fill: { roleIndex: String(i) } }) : null;
      if (checks?.passed === true) {
        yield* helper(lead, `${s.name} completed.`, "update-status", ['"status": "completed"'], { roleIndex: i, fill: { "one-line outcome": `${s.name} done` } });
      } else {
        yield* helper(lead, `${s.name} failed.`, "update-status", ['"status": "failed"'], { roleIndex: i, fill: { "what failed": `attempt ${s.attempt}: tests failed` } });
      }
    }
    d = yield* helper(lead, "Asking the helper what to start.", "next");
    out.answers.push(d);
    yield* startAll(d);
  }
  check(d.done === true, `next: ${JSON.stringify(d)}`);
  out.last = d;
  return out;
}

function latestNotified(ctx: TurnContext): string[] {
  const ids: string[] = [];
  for (const m of ctx.body?.messages ?? []) {
    if (m.role === "assistant") continue;
    const parts = typeof m.content === "string" ? [m.content] : (m.content ?? []).filter((b: any) => b.type === "text").map((b: any) => String(b.text));
    for (const t of parts) for (const n of t.matchAll(/<tool-use-id>([^<]+)<\/tool-use-id>/g)) ids.push(n[1]);
  }
  return ids;
}

function workersCheckpoint(lead: SkillLead, agents: string[], c: number, f: number, s: number, reason: string): Generator<any, any, TurnContext> {
  const outputs = agents.map((a) => `.design/worker-${a}.json`).join(",");
  return helper(lead, "Workers done.", "run-checkpoint", ["--phase workers"], {
    replace: [[".design/worker-{agent}.json,.design/worker-{agent}.json", outputs]],
    fill: { c: String(c), f: String(f), s: String(s), reason },
  });
}

function clean(s: Session, errors: string[]): void {
  assertClean(s);
  assert.deepEqual(errors, [], "a scripted agent failed");
}

/** Every Agent tool call the lead sent, in order. */
function agentCalls(s: Session): any[] {
  const seen = new Map<string, any>();
  for (const r of s.main) for (const t of r.answer?.tools ?? []) if (t.name === "Agent") seen.set(JSON.stringify(t.input), t.input);
  return [...seen.values()];
}

describe(`execute scenarios through claude -p (Claude Code ${CLAUDE_CODE_VERSION})`, { concurrency: 1 }, () => {
  const projects: Sample[] = [];
  before(() => ensureClaude());
  after(() => cleanup(...projects.map((p) => p.dir)));

  it("no plan: execute tells the user to run /do:design and closes with an aborted reflection [feature:execute/no-plan]", { timeout: TIMEOUT }, async () => {
    const project = sampleProject();
    projects.push(project);
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    let status: any;
    let refl: any;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      maxTurns: 12,
      script: flowScript(function* (first): Flow {
        const digest = lead.digest(first);
        check(digest.plan.state === "none" && digest.run === null, JSON.stringify(digest.plan));
        yield* helper(lead, "Phase 1/7 Pre-flight.", "run-start", [], { fill: { "plan goal": digest.plan.goal } });
        status = helperJson((yield* calls("Plan status.", lead.run("status", [".design/plan.json"]))).results[0]);
        check(status.code === "E_NOT_FOUND", JSON.stringify(status));
        yield* calls(
          "There is no plan: run /do:design <goal> first. Closing the run.",
          lead.write(".design/tmp/eval.json", { whatWorked: [], whatFailed: ["execute started without a plan"], doNextTime: ["Run /do:design before /do:execute"], roleQuality: [], coordinationNotes: "" }),
        );
        refl = yield* helper(lead, "Phase 7/7 Close.", "reflection-add", ["--skill execute"], {
          fill: { goal: "no plan" },
          replace: [
            ["--outcome completed", "--outcome aborted"],
            ["--goal-achieved true", "--goal-achieved false"],
          ],
        });
        yield* helper(lead, "Closing the run.", "run-complete", ["execute"], { replace: [["--outcome completed", "--outcome aborted"]] });
        yield turn("No plan found: run /do:design <goal> first, then /do:execute.");
      }),
    });
    clean(s, []);
    assert.equal(refl.outcome, "aborted");
    const rows = project.jsonl(".design/reflection.jsonl");
    assert.deepEqual(rows.map((r) => [r.skill, r.goal, r.outcome, r.goalAchieved]), [["execute", "no plan", "aborted", false]]);
    const run = project.json(".design/run-execute.json");
    assert.equal(run.outcome, "aborted");
    assert.equal(project.exists(".design/plan.json"), false);
    assert.match(s.run.json.result, /\/do:design/);
  });

  // Issue 23: one approval means exactly what the user saw. A lead talked into recording the grant on its own (a
  // prompt injection in the plan, a spec or a report) types the written grant-approve.js call without asking: no
  // skill's allowed-tools cover it and the plugin's hook never approves it, so Claude Code asks the user, which -p
  // cannot, and refuses it. The other ways in record nothing either: plan.js grant --approve (covered by the
  // skill's own rule in the invoking turn) answers E_USAGE, a Write of .design/grant.json is refused, and an agent
  // the lead starts is refused the call too.
  it("without the user's approval the grant-approve.js call asks and is refused, in the invoking turn and after it: no grant, no key", { timeout: TIMEOUT }, async () => {
    const roles: RoleSpec[] = [{ name: "store-dev", model: "haiku", dirs: ["src/db"] }];
    const project = planned(projects, "a grant nobody approved", roles);
    const errors: string[] = [];
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    const approveCall = lead.call("grant-approve");
    const viaPlanJs = `${lead.call("grant")} --approve`;
    const forged = { version: 2, grantId: "x", projectRoot: project.dir, planFingerprint: "0".repeat(64), runId: "x", approvedAt: "2026-01-01T00:00:00Z", expiresAt: "2999-01-01T00:00:00Z", requiresSandbox: false, edits: [{ value: "src", roles: ["(plan)"], kind: "directory" }], commands: [{ value: "id", roles: ["(plan)"], kind: "test" }], signature: "0".repeat(64) };
    let agentResult: any;
    const agents = agentTable(
      project,
      {
        scout: {
          work: [{ bash: approveCall }],
          seen: (_step, r) => (agentResult = r),
          file: ".design/scout-report.json",
          content: { summary: "scouted", discrepancies: [] },
          reply: "scout: done.",
        },
      },
      errors,
    );
    const home = scratchHome();
    const r: Record<string, any> = {};
    let s!: Session;
    let keyMade = true;
    try {
      s = await session({
        prompt: "/do:execute",
        cwd: project.dir,
        home,
        maxTurns: 30,
        timeoutMs: 120_000,
        agents,
        script: flowScript(function* (first, latest): Flow {
          const digest = lead.digest(first);
          yield* helper(lead, "Phase 1/7 Pre-flight.", "run-start", [], { fill: { "plan goal": digest.plan.goal } });
          const proposal = yield* helper(lead, "Phase 3/7 Grant.", "grant");
          check(proposal.recorded === false && proposal.runId !== null, JSON.stringify(proposal));
          // Still the invoking turn: the skill's allowed-tools apply, and they do not cover the approval.
          const ctx = yield* calls(
            "Recording the grant myself.",
            bash(approveCall, "do helper: grant-approve"),
            bash(viaPlanJs, "do helper: grant"),
            lead.write(".design/grant.json", forged),
          );
          [r.invoking, r.planJs, r.write] = ctx.results;
          // End the turn to wait for an agent: from here only the plugin's hook approves anything.
          const spawned = yield* calls("Spawning the scout.", agent("scout the code", "scout", "haiku", brief("scout", "You are the scout. Write .design/scout-report.json.")));
          yield* waitFor(latest(), [spawned.results[0].id], "Waiting for the scout.");
          r.later = (yield* calls("Recording the grant myself, again.", bash(approveCall, "do helper: grant-approve"))).results[0];
          yield turn("No grant was recorded.");
        }),
      });
    } finally {
      keyMade = existsSync(join(home, ".claude", "do", "grant.key"));
      if (!process.env.DO_E2E_KEEP) rmSync(home, { recursive: true, force: true });
    }
    assert.deepEqual(s.scriptErrors, []);
    assert.deepEqual(errors, []);
    for (const [what, res] of [["invoking turn", r.invoking], ["after the wait", r.later], ["the agent", agentResult]] as const) {
      assert.ok(res, `${what}: no result`);
      assert.match(res.text, DENIAL, `${what}: the grant-approve.js call ran without the user: ${res.text}`);
    }
    const planJs = helperJson(r.planJs);
    assert.deepEqual([planJs.ok, planJs.code], [false, "E_USAGE"], r.planJs.text);
    assert.match(planJs.error, /grant-approve\.js/);
    assert.match(r.write.text, DENIAL, `the Write of .design/grant.json: ${r.write.text}`);
    assert.equal(project.exists(".design/grant.json"), false, "a grant was recorded without the user");
    assert.equal(keyMade, false, "the user's grant key was made without an approval");
    // -p lists what it refused: the approval call, and nothing but it and the forged Write.
    const denied = s.denials.map((d) => (d.tool_name === "Bash" ? d.tool_input?.command : `${d.tool_name} ${d.tool_input?.file_path}`));
    assert.ok(denied.includes(approveCall), JSON.stringify(denied));
    assert.deepEqual(denied.filter((d: string) => d !== approveCall && d !== `Write ${project.path(".design/grant.json")}`), [], JSON.stringify(denied));
  });

  it("a re-run with only a retryable failed role retries it one tier up, recorded in attemptLog [feature:execute/retry-one-tier-up]", { timeout: TIMEOUT }, async () => {
    const roles: RoleSpec[] = [
      { name: "store-dev", model: "haiku", dirs: ["src/db"] },
      { name: "docs-dev", model: "haiku", dirs: ["src/ui"] },
    ];
    const project = planned(projects, "retry the docs", roles);
    // The first run: store-dev completed, docs-dev failed once on haiku after touching README.md; run closed.
    helperSync(project, ["run-start", "execute", "--phases", "pre-flight,challenge,grant,workers,verify,learn,close", "--goal", "retry the docs"]);
    helperSync(project, ["update-status", ".design/plan.json"], JSON.stringify([{ roleIndex: 0, status: "in_progress" }, { roleIndex: 1, status: "in_progress" }]));
    project.write(".design/plan.json", withEvidence(project.json(".design/plan.json"), 0)); // what that run's run-checks recorded
    helperSync(project, ["update-status", ".design/plan.json"], JSON.stringify([{ roleIndex: 0, status: "completed", result: "store done" }, { roleIndex: 1, status: "failed", result: "attempt 1: tests failed" }]));
    helperSync(project, ["run-complete", "execute", "--outcome", "partial"]);
    project.write(".design/worker-docs-dev.json", report("docs-dev", false, { filesChanged: ["README.md"] }));
    const readme = project.read("README.md");
    project.write("README.md", readme + "half-written section\n");
    const errors: string[] = [];
    const agents = agentTable(project, { "worker-docs-dev--2": { file: ".design/worker-docs-dev--2.json", content: report("docs-dev", true), reply: "docs-dev: done." } }, errors);
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    let reset: any;
    let loop!: Loop;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      // The lead's `git restore` of the failed attempt's files is the user's to approve: execute's allowed-tools
      // name only its helper (in the invoking turn they would also cover the agents it starts). In -p nobody can
      // answer a prompt, so the user's approval is given as a permission rule for that command (and the grant's).
      args: [...userApproves(lead), "Bash(git restore:*)"],
      maxTurns: 60,
      timeoutMs: 150_000,
      agents,
      script: flowScript(function* (first, latest): Flow {
        const digest = lead.digest(first);
        check(digest.run === null && digest.plan.counts.failed === 1, JSON.stringify(digest));
        ({ reset, loop } = yield* throughWorkers(lead, first, latest, [roles[1]]));
        yield* workersCheckpoint(lead, ["docs-dev--2"], 1, 0, 0, loop.last.reason);
        yield turn("docs-dev completed on its retry.");
      }),
    });
    clean(s, errors);
    assert.equal(reset.retryable, 1);
    // Not the old jump to verify: phase 4 ran and recorded the retry.
    const run = project.json(".design/run-execute.json");
    assert.deepEqual(run.completed.map((c: any) => c.phase), ["pre-flight", "challenge", "grant", "workers"]);
    assert.doesNotMatch(JSON.stringify(run.completed), /no work remaining/);
    const first = loop.answers[0];
    assert.deepEqual(
      first.start.map((x: any) => [x.name, x.agent, x.attempt, x.retry, x.from, x.previousModel, x.model, x.replaces]),
      [["docs-dev", "docs-dev--2", 2, true, "failed", "haiku", "sonnet", { agent: "docs-dev", outcome: "failed" }]],
    );
    assert.equal(loop.spawned["docs-dev--2"].model, "sonnet");
    assert.equal(project.read("README.md"), readme, "the failed attempt's partial work was restored before the retry");
    assert.match(loop.last.reason, /all 2 roles completed/);
    const plan = project.json(".design/plan.json");
    assert.equal(plan.roles[1].status, "completed");
    assert.deepEqual(
      plan.roles[1].attemptLog.map((e: any) => [e.attempt, e.model, e.agent, e.outcome]),
      [
        [1, "haiku", "docs-dev", "failed"],
        [2, "sonnet", "docs-dev--2", "completed"],
      ],
    );
  });

  it("an overlap whose holder fails for good: the waiting role runs once the lock is free and the run ends with a reason [feature:execute/overlaps-serialised]", { timeout: TIMEOUT }, async () => {
    // holder and waiter share src/db with no dependency between them: a mutual exclusion. after-holder depends on holder.
    const roles: RoleSpec[] = [
      { name: "holder", model: "haiku", dirs: ["src/db"] },
      { name: "waiter", model: "haiku", dirs: ["src/db"] },
      { name: "after-holder", model: "haiku", dirs: ["src/api"], deps: ["holder"] },
    ];
    const project = planned(projects, "overlap with a failing holder", roles);
    // Two attempts of holder already failed (an earlier run); this run's attempt is its last.
    earlierFailures(project, 0, 2);
    const errors: string[] = [];
    const agents = agentTable(
      project,
      {
        "worker-holder--3": { file: ".design/worker-holder--3.json", content: report("holder", false), reply: "holder: failed." },
        "worker-waiter": { file: ".design/worker-waiter.json", content: report("waiter", true), reply: "waiter: done." },
      },
      errors,
    );
    const { s, loop } = await workersSession(project, agents, roles, ["holder--3", "waiter"], [1, 1, 1]);
    clean(s, errors);
    const [a0, a1] = loop.answers;
    // First answer: the holder's last attempt (opus: two failures escalated it twice), the waiter waits on the overlap.
    assert.deepEqual(a0.start.map((x: any) => [x.name, x.attempt, x.model]), [["holder", 3, "opus"]]);
    assert.deepEqual(
      a0.waiting.find((w: any) => w.name === "waiter")?.on.map((o: any) => [o.name, o.kind]),
      [["holder", "overlap"]],
    );
    assert.deepEqual(
      a0.waiting.find((w: any) => w.name === "after-holder")?.on.map((o: any) => [o.name, o.kind]),
      [["holder", "dependency"]],
    );
    // The holder failed for good: the lock is released, the waiter starts; the dependent cannot run.
    assert.deepEqual(a1.start.map((x: any) => x.name), ["waiter"]);
    assert.deepEqual(a1.failedForGood.map((f: any) => f.name), ["holder"]);
    const last = loop.last;
    assert.equal(last.done, true);
    assert.deepEqual(last.start, []);
    assert.deepEqual(last.running, []);
    assert.deepEqual(last.failedForGood.map((f: any) => f.name), ["holder"]);
    assert.deepEqual(last.unreachable.map((u: any) => u.name), ["after-holder"]);
    assert.match(last.reason, /nothing can move: 1\/3 completed; .*holder.*3 attempts used.*after-holder/);
    const plan = project.json(".design/plan.json");
    assert.deepEqual(plan.roles.map((r: any) => [r.name, r.status]), [
      ["holder", "failed"],
      ["waiter", "completed"],
      ["after-holder", "skipped"],
    ]);
    // The helper agrees afterwards: the same answer, nothing to retry.
    const again = helperSync(project, ["next", ".design/plan.json"]);
    assert.deepEqual([again.done, again.reason], [true, last.reason]);
    assert.equal(helperSync(project, ["resume-reset", ".design/plan.json"]).noWorkRemaining, true);
    const st = helperSync(project, ["status", ".design/plan.json"]);
    assert.deepEqual([st.counts.completed, st.counts.failed, st.counts.skipped], [1, 1, 1]);
  });

  it("the grant binds each worker to its own role: an Edit in another role's scope is denied and named in its report [feature:execute/grant-binds-workers]", { timeout: TIMEOUT }, async () => {
    // Both roles are granted (the union covers src/db, src/api and src/ui), but the hook knows which worker calls
    // (the name the lead gave it, from the CLI's sidecar file) and allows it only its own role's scope and checks.
    const roles: RoleSpec[] = [
      { name: "store-dev", model: "haiku", dirs: ["src/db"] },
      { name: "api-dev", model: "haiku", dirs: ["src/api", "src/ui"] },
    ];
    const project = planned(projects, "bind the grant to the roles", roles);
    // Two attempts of store-dev already failed (an earlier run): this run's attempt, store-dev--3, is its last.
    earlierFailures(project, 0, 2);
    const CHECK = "node --test test/";
    const own = { edit: "src/db/store.js", from: "const todos = new Map();", to: "const todos = new Map(); // store-dev" };
    const foreign = { edit: "src/ui/index.html", from: "<title>todos</title>", to: "<title>store-dev was here</title>" };
    const apiEdit = { edit: "src/api/server.js", from: "return [...todos.values()];", to: "return [...todos.values()]; // api-dev" };
    const seen: Array<{ who: string; step: string; result: string; denied: boolean }> = [];
    const DENIED = /^Permission to use \S+ has been denied|needs approval|was blocked|requires approval/;
    const note = (who: string) => (step: any, r: any) =>
      seen.push({ who, step: "edit" in step ? `Edit ${step.edit}` : `Bash ${step.bash}`, result: r.text.split("\n")[0], denied: DENIED.test(r.text) || r.isError });
    const errors: string[] = [];
    const agents = agentTable(
      project,
      {
        "worker-store-dev--3": {
          work: [own, foreign, { bash: CHECK }],
          seen: note("store-dev--3"),
          file: ".design/worker-store-dev--3.json",
          content: () => {
            const r: any = report("store-dev", false, { filesChanged: ["src/db/store.js"] });
            const denied = seen.filter((x) => x.who === "store-dev--3" && x.denied);
            r.acceptanceCriteria[0].evidence = denied.map((x) => `denied: ${x.step} (${x.result.slice(0, 100)})`).join("; ") || "nothing denied";
            return r;
          },
          reply: "store-dev--3: blocked, my Edit of src/ui/index.html was denied.",
        },
        "worker-api-dev": {
          work: [apiEdit, { bash: CHECK }],
          seen: note("api-dev"),
          file: ".design/worker-api-dev.json",
          content: () => report("api-dev", true, { filesChanged: ["src/api/server.js"] }),
          reply: "api-dev: done.",
        },
      },
      errors,
    );
    const { s, loop } = await workersSession(project, agents, roles, ["store-dev--3", "api-dev"], [1, 1, 0]);
    // The one denial: store-dev--3's Edit in api-dev's scope.
    assertClean({ ...s, denials: s.denials.filter((d: any) => !(d.tool_name === "Edit" && String(d.tool_input?.file_path).endsWith("src/ui/index.html"))) });
    assert.deepEqual(errors, [], "a scripted agent failed");
    assert.deepEqual(
      seen.map((x) => [x.who, x.step, x.denied]).sort(),
      [
        ["api-dev", `Bash ${CHECK}`, false],
        ["api-dev", "Edit src/api/server.js", false],
        ["store-dev--3", `Bash ${CHECK}`, false],
        ["store-dev--3", "Edit src/db/store.js", false],
        ["store-dev--3", "Edit src/ui/index.html", true],
      ],
      JSON.stringify(seen),
    );
    assert.match(project.read("src/db/store.js"), /\/\/ store-dev/);
    assert.match(project.read("src/api/server.js"), /\/\/ api-dev/);
    assert.equal(project.read("src/ui/index.html"), "<!doctype html><title>todos</title>\n", "the other role's file is untouched");
    assert.ok(project.json(".design/grant.json").edits.some((e: any) => e.value === "src/ui"), "the union grant did cover src/ui");
    const evidence = project.json(".design/worker-store-dev--3.json").acceptanceCriteria[0].evidence;
    assert.match(evidence, /^denied: Edit src\/ui\/index\.html/);
    const plan = project.json(".design/plan.json");
    assert.deepEqual(plan.roles.map((r: any) => [r.name, r.status, r.attemptLog.at(-1).agent]), [
      ["store-dev", "failed", "store-dev--3"],
      ["api-dev", "completed", "api-dev"],
    ]);
    assert.deepEqual(loop.last.failedForGood.map((f: any) => f.name), ["store-dev"]);
  });

  it("an invalid challenger report gets one correction, then the run continues without it [feature:execute/challenge-before-work]", { timeout: TIMEOUT }, async () => {
    const roles: RoleSpec[] = [{ name: "solo", model: "haiku", dirs: ["src/db"] }];
    const project = planned(projects, "challenge with a bad report", roles);
    const errors: string[] = [];
    const bad = { summary: "looks fine", issues: [{ severity: "catastrophic" }] };
    const agents = agentTable(project, { challenger: { file: ".design/challenger-report.json", content: bad, reply: "Challenger report written.", onMessage: "I stand by my report." } }, errors);
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    const verdicts: any[] = [];
    let sent: any;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      maxTurns: 40,
      timeoutMs: 120_000,
      agents,
      script: flowScript(function* (first, latest): Flow {
        const digest = lead.digest(first);
        yield* preflight(lead, digest.plan.goal);
        done((yield* calls("Phase 2/7 Challenge.", lead.ref("pre-execution-briefs.md"))).results[0]);
        let ctx = yield* calls("Spawning the challenger.", agent("challenge the plan", "challenger", "sonnet", brief("challenger", "You are the challenger. Write .design/challenger-report.json.")));
        const id = ctx.results[0].id;
        ctx = yield* waitFor(latest(), [id], "Waiting for the challenger.");
        verdicts.push(helperJson((yield* calls("Validating its report.", lead.run("validate-auxiliary-report", ["--type challenger"]))).results[0]));
        check(verdicts[0].ok === false, JSON.stringify(verdicts[0]));
        ctx = yield* loadTools(latest(), ["SendMessage"]);
        ctx = yield* calls("Sending the challenger the error once.", sendMessage("challenger", "report invalid", `Your report is invalid: ${verdicts[0].error}. Fix it.`));
        sent = ctx.results[0];
        ctx = yield* waitFor(latest(), [sent.id], "Waiting for the challenger's correction.");
        verdicts.push(helperJson((yield* calls("Validating again.", lead.run("validate-auxiliary-report", ["--type challenger"]))).results[0]));
        check(verdicts[1].ok === false, JSON.stringify(verdicts[1]));
        yield* helper(lead, "Still invalid: continuing without the challenger.", "run-checkpoint", ["--phase challenge"], {
          replace: [[` --outputs .design/challenger-report.json,.design/scout-report.json`, ""]],
          fill: { b: "0", c: "0" },
        });
        // After a wait, -p has no one to ask: "no answer possible → no grant" (the hook asks for --approve).
        yield* grantPhase(lead, roles, false);
        yield turn("The challenger's report stayed invalid; continued without it. No grant: allow Edit(src/db/**) and Bash(node --test test/) for the workers.");
      }),
    });
    clean(s, errors);
    assert.equal(verdicts.length, 2);
    for (const v of verdicts) assert.equal(v.ok, false);
    assert.ok(!sent.isError, `SendMessage failed: ${sent.text}`);
    assert.ok(s.agents.some((r) => JSON.stringify(r.body?.messages ?? []).includes("Your report is invalid")), "the challenger never got the error");
    const run = project.json(".design/run-execute.json");
    assert.deepEqual(run.completed.map((c: any) => c.phase), ["pre-flight", "challenge", "grant"]);
    assert.deepEqual(run.completed[1].outputs ?? [], []);
    assert.equal(project.json(".design/plan.json").roles[0].status, "pending");
    assert.equal(project.exists(".design/grant.json"), false);
    assert.match(run.completed[2].decisions ?? JSON.stringify(run.completed[2]), /declined/);
  });

  it("a stalled worker is stopped and replaced once on a stronger model; after a second stall it is not retried [feature:execute/stall-replaced-once]", { timeout: TIMEOUT }, async (t: TestContext) => {
    const roles: RoleSpec[] = [
      { name: "slow", model: "haiku", dirs: ["src/db"] },
      { name: "quick", model: "haiku", dirs: ["src/api"] },
    ];
    const project = planned(projects, "stall and replace", roles);
    const errors: string[] = [];
    const table = agentTable(project, { "worker-quick": { file: ".design/worker-quick.json", content: report("quick", true), reply: "quick: done." } }, errors);
    // Both attempts of slow never answer: a worker that hangs (the stub holds its first turn).
    const stalled: string[] = [];
    const agents = (b: string) => {
      const key = /^Agent: (\S+)/m.exec(b)?.[1];
      if (key === "worker-slow" || key === "worker-slow--2") {
        stalled.push(key);
        return () => ({ text: "Still working.", delayMs: 120_000 });
      }
      return table(b);
    };
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    const answers: any[] = [];
    const stops: any[] = [];
    const stalls: any[] = [];
    let spawnedSlow2: any;
    let taskStopDeferred: boolean | undefined;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      args: userApproves(lead),
      maxTurns: 80,
      timeoutMs: 150_000,
      agents,
      script: flowScript(function* (first, latest): Flow {
        const digest = lead.digest(first);
        yield* preflight(lead, digest.plan.goal);
        yield* noChallenge(lead);
        yield* grantPhase(lead, roles);
        done((yield* calls("Phase 4/7 Workers.", lead.ref("worker-brief.md"))).results[0]);
        const o = offeredTools(latest().body);
        taskStopDeferred = !o.callable.has("TaskStop") && o.deferred.has("TaskStop");
        let d = yield* helper(lead, "Asking the helper what to start.", "next");
        answers.push(d);
        check(d.start.length === 2, JSON.stringify(d));
        const ids: Record<string, string> = {};
        const taskIds: Record<string, string> = {};
        const spawn = function* (st: any): Generator<any, void, TurnContext> {
          const up = yield* recordStart(lead, st);
          check(up.updated.includes(st.roleIndex), JSON.stringify(up));
          const call = agent(`work on ${st.name}`, st.agent, st.model, brief(`worker-${st.agent}`, `You are ${st.agent}. Role: ${st.name}. Write your completion report to ${st.reportPath}.`));
          if (st.agent === "slow--2") spawnedSlow2 = call.input;
          const r = (yield* calls(`Spawning ${st.agent}.`, call)).results[0];
          done(r);
          ids[st.agent] = r.id;
          taskIds[st.agent] = /agentId:\s*([\w-]+)/.exec(r.text)?.[1] ?? st.agent;
        };
        for (const st of d.start) yield* spawn(st);
        // quick reports; slow stays silent.
        yield* waitFor(latest(), [ids.quick], "Waiting for the workers.");
        ok((yield* calls("quick reported.", lead.run("worker-completion-validate", [], { fill: { agent: "quick" } }))).results[0]);
        check((yield* helper(lead, "Checking quick.", "run-checks", [], { fill: { roleIndex: "1" } })).passed === true, "quick's check failed");
        yield* helper(lead, "quick completed.", "update-status", ['"status": "completed"'], { roleIndex: 1, fill: { "one-line outcome": "quick done" } });
        yield* loadTools(latest(), ["SendMessage", "TaskStop"]);
        // A silent worker: two turns → ask for status once; three turns → stalled (recorded, stopped, asked again).
        const silent = function* (name: string, index: number): Generator<any, any, TurnContext> {
          answers.push(yield* helper(lead, `${name} is silent (turn 1).`, "next"));
          answers.push(yield* helper(lead, `${name} is silent (turn 2).`, "next"));
          done((yield* calls(`Asking ${name} for its status.`, sendMessage(name, "status?", "No report yet: what is your status?"))).results[0]);
          answers.push(yield* helper(lead, `${name} still silent (turn 3): it stalled.`, "next"));
          // The turn-timeout rule: stop it, then record the stall.
          const stop = (yield* calls(`Stopping ${name}.`, { name: "TaskStop", input: { task_id: taskIds[name] } })).results[0];
          stops.push(stop);
          done(stop);
          const r = yield* helper(lead, `Recording ${name} as stalled.`, "update-status", ['"status": "failed"'], {
            roleIndex: index,
            replace: [['"status": "failed"', '"status": "failed", "stalled": true']],
            fill: { "what failed": "stalled" },
          });
          stalls.push(r);
          return r;
        };
        yield* silent("slow", 0);
        d = yield* helper(lead, "Asking the helper what to start.", "next");
        answers.push(d);
        check(d.start.length === 1 && d.start[0].replaces?.agent === "slow", JSON.stringify(d));
        // replaces → the previous attempt was stopped when it stalled (it wrote no report: nothing to clean).
        check(!project.exists(".design/worker-slow.json"), "the stalled attempt wrote a report");
        yield* spawn(d.start[0]);
        yield* silent("slow--2", 0);
        d = yield* helper(lead, "Asking the helper what to start.", "next");
        answers.push(d);
        yield* workersCheckpoint(lead, ["quick"], 1, 1, 0, d.reason);
        yield turn(`Workers done: ${d.reason}`);
      }),
    });
    clean(s, errors);
    t.diagnostic(`TaskStop ${taskStopDeferred ? "is deferred (loaded through ToolSearch)" : "is offered directly"}; stop results: ${stops.map((x) => x.text.slice(0, 80)).join(" | ")}`);
    assert.deepEqual(stalled, ["worker-slow", "worker-slow--2"]);
    if (BEHAVIOUR) assert.equal(taskStopDeferred, BEHAVIOUR.deferredSendMessage, "TaskStop is deferred exactly where SendMessage is");
    assert.equal(stops.length, 2);
    for (const x of stops) assert.match(x.text, /stopped/i);
    assert.equal(stalls.length, 2);
    const retry = answers.find((a) => a.start?.some((x: any) => x.agent === "slow--2")).start[0];
    assert.deepEqual([retry.attempt, retry.retry, retry.model, retry.previousModel, retry.replaces], [2, true, "sonnet", "haiku", { agent: "slow", outcome: "stalled" }]);
    assert.equal(spawnedSlow2.name, "slow--2");
    assert.equal(spawnedSlow2.model, "sonnet");
    // Stopped before the replacement was spawned, by the request order of the lead's calls.
    const order = s.main.flatMap((r) => (r.answer?.tools ?? []).map((x) => (x.name === "Agent" ? `Agent ${x.input.name}` : x.name)));
    const uniq = order.filter((x, i) => order.indexOf(x) === i || x === "TaskStop");
    assert.ok(uniq.indexOf("TaskStop") < uniq.indexOf("Agent slow--2"), uniq.join(","));
    const last = answers[answers.length - 1];
    assert.equal(last.done, true);
    assert.deepEqual(last.start, []);
    assert.deepEqual(last.failedForGood.map((f: any) => f.name), ["slow"]);
    assert.match(JSON.stringify(last.failedForGood), /stalled twice/);
    const plan = project.json(".design/plan.json");
    assert.deepEqual(plan.roles.map((r: any) => [r.name, r.status]), [["slow", "failed"], ["quick", "completed"]]);
    assert.deepEqual(plan.roles[0].attemptLog.map((e: any) => [e.attempt, e.model, e.agent, e.outcome]), [
      [1, "haiku", "slow", "stalled"],
      [2, "sonnet", "slow--2", "stalled"],
    ]);
    const cand = helperSync(project, ["retry-candidates", ".design/plan.json"]);
    assert.deepEqual(cand.candidates ?? cand.roles ?? [], [], JSON.stringify(cand));
  });

  it("an interruption in phase 4 after one role completed: the re-run resumes and hands its context to the dependent [feature:execute/resume-after-interruption]", { timeout: TIMEOUT * 2 }, async (t: TestContext) => {
    const roles: RoleSpec[] = [
      { name: "base", model: "haiku", dirs: ["src/db"] },
      { name: "user", model: "haiku", dirs: ["src/api"], deps: ["base"] },
    ];
    const project = planned(projects, "resume with context", roles);
    const CONTEXT = "base exports dueDate(todo) from src/db/store.js; it returns an ISO string or null";
    const errors: string[] = [];
    const agents = agentTable(
      project,
      {
        "worker-base": { file: ".design/worker-base.json", content: report("base", true, { context: CONTEXT, filesChanged: ["src/db/store.js"] }), reply: "base: done." },
        "worker-user--2": { file: ".design/worker-user--2.json", content: report("user", true), reply: "user: done." },
      },
      errors,
    );
    // One user across both sessions: the grant signed in the first (its key in this HOME) holds for the resumed run.
    const home = scratchHome();
    t.after(() => cleanup(home));
    // First session: killed right after `user` was recorded in_progress, before its agent was spawned.
    let kill: () => void = () => {};
    let killed = false;
    const lead1 = new SkillLead("execute", PLUGIN_DIR, project, "");
    const s1 = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      home,
      args: userApproves(lead1),
      maxTurns: 60,
      timeoutMs: 150_000,
      agents,
      onStart: (k) => (kill = k),
      script: flowScript(function* (first, latest): Flow {
        const digest = lead1.digest(first);
        yield* preflight(lead1, digest.plan.goal);
        yield* noChallenge(lead1);
        yield* grantPhase(lead1, roles);
        done((yield* calls("Phase 4/7 Workers.", lead1.ref("worker-brief.md"))).results[0]);
        yield* workerLoop(lead1, latest, {
          beforeSpawn: (st) => {
            if (st.name === "user") {
              killed = true;
              kill();
            }
          },
        });
      }),
    });
    assert.equal(killed, true, "the run never reached the interruption point");
    assert.notEqual(s1.run.code, 0);
    assert.deepEqual(s1.scriptErrors, []);
    let plan = project.json(".design/plan.json");
    assert.deepEqual(plan.roles.map((r: any) => [r.name, r.status]), [["base", "completed"], ["user", "in_progress"]]);
    let run = project.json(".design/run-execute.json");
    assert.deepEqual(run.completed.map((c: any) => c.phase), ["pre-flight", "challenge", "grant"]);

    // Second session: resume from workers; resume-reset puts user back; its brief carries base's context.
    const lead2 = new SkillLead("execute", PLUGIN_DIR, project, "");
    let status: any;
    let reset: any;
    let loop!: Loop;
    const s2 = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      home,
      maxTurns: 60,
      timeoutMs: 150_000,
      agents,
      script: flowScript(function* (first, latest): Flow {
        const digest = lead2.digest(first);
        check(digest.run !== null, `digest run: ${JSON.stringify(digest.run)}`);
        status = yield* helper(lead2, "An earlier run stopped midway.", "run-status", [], { fill: { "plan goal": digest.plan.goal } });
        check(status.resumable === true && status.nextPhase === "workers", JSON.stringify(status));
        // No way to ask in -p: resume. Steps 3-6, then the phase named nextPhase.
        yield* helper(lead2, "Resuming: plan status.", "status", [".design/plan.json"]);
        reset = yield* helper(lead2, "Recovering interrupted roles.", "resume-reset");
        const ctx = yield* calls("Health and the working tree.", lead2.run("health-check", [".design"]), bash("git status --porcelain", "Is the tree dirty?"));
        ok(ctx.results[0]);
        yield* helper(lead2, "Summary.", "summary");
        done((yield* calls("Phase 4/7 Workers.", lead2.ref("worker-brief.md"))).results[0]);
        loop = yield* workerLoop(lead2, latest);
        yield* workersCheckpoint(lead2, ["base", "user--2"], 2, 0, 0, loop.last.reason);
        yield turn("Both roles completed.");
      }),
    });
    clean(s2, errors);
    assert.equal(reset.resetRoles.length, 1, JSON.stringify(reset));
    assert.match(JSON.stringify(reset.resetRoles[0]), /"user"|\buser\b/);
    assert.equal(reset.noWorkRemaining, false);
    const st = loop.answers[0].start[0];
    assert.deepEqual([st.name, st.agent, st.attempt, st.model], ["user", "user--2", 2, "haiku"], "an interrupted attempt uses budget, not a tier");
    assert.deepEqual(st.dependencies.map((d: any) => [d.name, d.reportPath, d.reportExists]), [["base", ".design/worker-base.json", true]]);
    const prompts = agentCalls(s2).map((a) => String(a.prompt));
    assert.equal(prompts.length, 1);
    assert.ok(prompts[0].includes(CONTEXT), `the dependent's brief lacks base's context: ${prompts[0]}`);
    plan = project.json(".design/plan.json");
    assert.deepEqual(plan.roles.map((r: any) => [r.name, r.status]), [["base", "completed"], ["user", "completed"]]);
    assert.deepEqual(plan.roles[1].attemptLog.map((e: any) => [e.attempt, e.outcome]), [[1, "interrupted"], [2, "completed"]]);
    run = project.json(".design/run-execute.json");
    assert.deepEqual(run.completed.map((c: any) => c.phase), ["pre-flight", "challenge", "grant", "workers"]);
    t.diagnostic(`interrupted run: ${s1.run.ms} ms, resumed run: ${s2.run.ms} ms`);
  });
});
