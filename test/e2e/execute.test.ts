// Execute's scenarios through the real CLI (`claude -p "/do:execute" --plugin-dir`), each on its own small plan in
// a fresh copy of the sample project, the scripted lead following skills/execute/SKILL.md call by call through
// lib/execute-lead.ts: no plan; a finished plan; the grant nobody approved; an overlap whose holder fails for good;
// a retry one tier up after clean-attempt undid the failed attempt's partial work; the grant binding each worker to
// its role; an invalid challenger report; a stall judged by the clock; an interruption in phase 4 resumed (and
// started over) with the dependent's memories and context; a run that fails; a clean 4-role run with every
// auxiliary in at most 25 helper calls, committed by the helper without a git prompt. Every run that closes leaves
// `.design/report.html` naming its outcome, and the lead shows its file:// link (issue 19).
import { after, before, describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { BEHAVIOUR, CLAUDE_CODE_VERSION, ensureClaude, PLUGIN_DIR, scratchHome } from "./lib/claude.ts";
import { agent, bash, check, DENIAL, done, flowScript, helperJson, loadTools, ok, sendMessage, turn, waitFor, type Flow } from "./lib/lead.ts";
import { agentScript, agentTable, type AgentPart } from "./lib/agents.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { assertClean, session, type Session } from "./lib/session.ts";
import { calls, helper, SkillLead } from "./lib/skill-lead.ts";
import { offeredTools, type TurnContext } from "./lib/stub.ts";
import {
  brief,
  challenge,
  close,
  grantPhase,
  helperCalls,
  learn,
  noChallenge,
  preflight,
  REFLEXION,
  userApproves,
  verify,
  workerLoop,
  workersCheckpoint,
  type Loop,
} from "./lib/execute-lead.ts";
import { cliSync } from "../helpers/cli.ts";
import { REQUIRED_AUXILIARIES } from "./lib/fixtures.ts";
import { withEvidence } from "../helpers/design-dir.ts";

const TIMEOUT = 180_000;

interface RoleSpec {
  name: string;
  model: string;
  dirs: string[];
  patterns?: string[];
  deps?: string[];
}

function planDoc(goal: string, roles: RoleSpec[], aux: object[] = REQUIRED_AUXILIARIES, extra: object = {}): object {
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
      scope: { directories: r.dirs, patterns: r.patterns ?? [], dependencies: r.deps ?? [] },
      expertContext: [],
      constraints: [],
      acceptanceCriteria: [{ criterion: "The tests pass", check: "node --test test/" }],
      assumptions: [],
      rollbackTriggers: [],
      fallback: "",
    })),
    auxiliaryRoles: aux,
    ...extra,
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
function planned(projects: Sample[], goal: string, roles: RoleSpec[], aux: object[] = REQUIRED_AUXILIARIES, extra: object = {}, files: Record<string, string> = {}): Sample {
  const p = sampleProject();
  projects.push(p);
  for (const [rel, text] of Object.entries(files)) p.write(rel, text);
  p.write(".design/draft/plan.json", planDoc(goal, roles, aux, extra));
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

const VERIFIER_OK = {
  status: "PASS",
  acceptanceCriteria: [],
  crossRoleIssues: [],
  testResults: { command: "node --test test/", exitCode: 0, output: "1 passed" },
  endToEndVerification: { tested: false, result: "skipped", details: "no user-facing entry point" },
  summary: "The completed roles fit together.",
};
const verifierPart: AgentPart = { file: ".design/integration-verifier-report.json", content: VERIFIER_OK, reply: "done: .design/integration-verifier-report.json, PASS" };

function evaluation(note: string): object {
  return { whatWorked: [note], whatFailed: [], doNextTime: ["Keep acceptance checks scoped to a role's files"], roleQuality: [], coordinationNotes: "" };
}

/** Phases 5-7 after the workers: the verifier when listed and something completed, the handoff, run-end. */
function* closeRun(lead: SkillLead, latest: () => TurnContext, o: { verifier: boolean; outcome: "completed" | "partial" | "failed"; goal: "achieved" | "partial" | "not achieved" }, got: (end: any) => void): Generator<any, void, TurnContext> {
  yield* verify(lead, latest, { verifier: o.verifier ? "haiku" : undefined, goal: o.goal });
  yield* learn(lead, latest, { handoff: `# Handoff: ${lead.project.json(".design/plan.json").goal}\nRun: outcome ${o.outcome}\n`, evaluation: evaluation(`outcome ${o.outcome}`) });
  yield* close(lead, o.outcome, o.outcome === "completed", got);
}

/** What issue 19 asks of every run: the report exists, names the outcome, and the lead showed its link. */
function assertReport(project: Sample, s: Session, outcome: string, end?: any): void {
  assert.ok(project.exists(".design/report.html"), "no .design/report.html");
  const html = project.read(".design/report.html");
  assert.match(html, new RegExp(`\\b${outcome}\\b`, "i"), `the report does not name the outcome ${outcome}`);
  assert.ok(end?.report?.link, "no report link in the answer");
  const link = end.report.link;
  assert.ok(String(s.run.json?.result ?? "").includes(link), `the lead did not show ${link}: ${s.run.json?.result}`);
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

/** Pre-flight (work must remain), no challenge, the grant, then phase 4's loop until `next` says done. */
function* throughWorkers(lead: SkillLead, latest: () => TurnContext, hooks: Parameters<typeof workerLoop>[2] = {}): Generator<any, { begin: any; loop: Loop }, TurnContext> {
  const { begin } = yield* preflight(lead);
  check(begin.action === "start" && begin.noWorkRemaining === false, `run-begin: ${JSON.stringify(begin)}`);
  yield* noChallenge(lead);
  yield* grantPhase(lead);
  done((yield* calls("Phase 4/7 Workers.", lead.ref("worker-brief.md"))).results[0]);
  return { begin, loop: yield* workerLoop(lead, latest, hooks) };
}

function gitLog(p: Sample): string[] {
  return spawnSync("git", ["log", "--format=%s", "--name-only"], { cwd: p.dir, encoding: "utf8" }).stdout.split("\n").filter(Boolean);
}

describe(`execute scenarios through claude -p (Claude Code ${CLAUDE_CODE_VERSION})`, { concurrency: 1 }, () => {
  const projects: Sample[] = [];
  before(() => ensureClaude());
  after(() => cleanup(...projects.map((p) => p.dir)));

  it("no plan: run-begin closes the run as aborted, the lead sends the user to /do:design and shows the report [feature:execute/no-plan]", { timeout: TIMEOUT }, async () => {
    const project = sampleProject();
    projects.push(project);
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    let begin: any;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      maxTurns: 8,
      script: flowScript(function* (first): Flow {
        const digest = lead.digest(first);
        check(digest.plan.state === "none" && digest.run === null, JSON.stringify(digest.plan));
        ({ begin } = yield* preflight(lead));
        check(begin.action === "no-plan", JSON.stringify(begin));
        yield turn(`${begin.reason}\nRun /do:design <goal> first, then /do:execute.\nThe run's picture: ${begin.report?.link}`);
      }),
    });
    clean(s, []);
    assert.equal(s.tally.helperCalls, 1, "nothing but run-begin");
    const rows = project.jsonl(".design/reflection.jsonl");
    assert.deepEqual(rows.map((r) => [r.skill, r.goal, r.outcome, r.goalAchieved]), [["execute", "no plan", "aborted", false]]);
    assert.equal(project.json(".design/run-execute.json").outcome, "aborted");
    assert.equal(project.exists(".design/plan.json"), false);
    assert.match(s.run.json.result, /\/do:design/);
    assertReport(project, s, "aborted", begin);
  });

  it("a finished plan: run-begin answers finished; nothing runs again, no verify, no learn, no new reflection [feature:execute/no-plan]", { timeout: TIMEOUT }, async () => {
    const roles: RoleSpec[] = [{ name: "store-dev", model: "haiku", dirs: ["src/db"] }];
    const project = planned(projects, "a plan already built", roles);
    helperSync(project, ["run-start", "execute", "--phases", "pre-flight,challenge,grant,workers,verify,learn,close", "--goal", "a plan already built"]);
    helperSync(project, ["update-status", ".design/plan.json"], JSON.stringify([{ roleIndex: 0, status: "in_progress" }]));
    project.write(".design/plan.json", withEvidence(project.json(".design/plan.json"), 0));
    helperSync(project, ["update-status", ".design/plan.json"], JSON.stringify([{ roleIndex: 0, status: "completed", result: "store done" }]));
    // The verify checkpoint records the goal review's verdict (src/lib/run/phase-checks.ts).
    for (const phase of ["pre-flight", "challenge", "grant", "workers", "verify", "learn"]) helperSync(project, ["run-checkpoint", "execute", "--phase", phase, "--decisions", phase === "verify" ? "goal achieved, 0 fix rounds" : "done"]);
    helperSync(project, ["reflection-add", ".design/reflection.jsonl", "--skill", "execute", "--goal", "a plan already built", "--outcome", "completed", "--goal-achieved", "true"], JSON.stringify(evaluation("built")));
    helperSync(project, ["run-complete", "execute", "--outcome", "completed"]);
    const runBefore = project.read(".design/run-execute.json");
    const reflBefore = project.read(".design/reflection.jsonl");
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    let begin: any;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      maxTurns: 8,
      script: flowScript(function* (): Flow {
        ({ begin } = yield* preflight(lead));
        check(begin.action === "finished", JSON.stringify(begin));
        yield turn(`${begin.reason} /do:plan-status shows it.`);
      }),
    });
    clean(s, []);
    assert.equal(s.tally.helperCalls, 1);
    assert.equal(project.read(".design/run-execute.json"), runBefore, "a run was started or re-verified");
    assert.equal(project.read(".design/reflection.jsonl"), reflBefore, "a reflection was recorded");
    assert.equal(project.exists(".design/integration-verifier-report.json"), false);
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
        script: flowScript(function* (_first, latest): Flow {
          const { begin } = yield* preflight(lead);
          check(begin.action === "start", JSON.stringify(begin));
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

  it("a re-run with only a retryable failed role: clean-attempt undoes the failed attempt's work inside its scope, the retry runs one tier up [feature:execute/retry-one-tier-up]", { timeout: TIMEOUT }, async () => {
    const roles: RoleSpec[] = [
      { name: "store-dev", model: "haiku", dirs: ["src/db"] },
      { name: "page-dev", model: "haiku", dirs: ["src/ui"] },
    ];
    const project = planned(projects, "retry the page", roles);
    // The user's own uncommitted work inside page-dev's scope before the first run: an edit of the tracked page and a
    // new untracked file. It must survive the failed attempt, its clean-up and the retry byte for byte.
    const original = project.read("src/ui/index.html");
    const userPage = original + "<!-- the user's uncommitted edit -->\n";
    const userNotes = "the user's untracked notes\n";
    project.write("src/ui/index.html", userPage);
    project.write("src/ui/notes.md", userNotes);
    // The first run: store-dev completed, page-dev failed once on haiku after changing its page, adding a draft and
    // (outside its scope, so never the helper's to touch) the README; run closed.
    helperSync(project, ["run-start", "execute", "--phases", "pre-flight,challenge,grant,workers,verify,learn,close", "--goal", "retry the page"]);
    helperSync(project, ["update-status", ".design/plan.json"], JSON.stringify([{ roleIndex: 0, status: "in_progress" }, { roleIndex: 1, status: "in_progress" }]));
    project.write(".design/plan.json", withEvidence(project.json(".design/plan.json"), 0)); // what that run's run-checks recorded
    helperSync(project, ["update-status", ".design/plan.json"], JSON.stringify([{ roleIndex: 0, status: "completed", result: "store done" }, { roleIndex: 1, status: "failed", result: "attempt 1: tests failed" }]));
    helperSync(project, ["run-complete", "execute", "--outcome", "partial"]);
    project.write(".design/worker-page-dev.json", report("page-dev", false, { filesChanged: ["src/ui/index.html", "src/ui/draft.html", "README.md"] }));
    const page = project.read("src/ui/index.html");
    const readme = project.read("README.md");
    project.write("src/ui/index.html", page + "<p>half-written</p>\n");
    project.write("src/ui/draft.html", "<p>draft</p>\n");
    project.write("README.md", readme + "a note outside the role's scope\n");
    const errors: string[] = [];
    // The retry's report claims the user's files too, though it did not touch them: commit must leave them out.
    const retried = report("page-dev", true, { filesChanged: ["src/ui/index.html", "src/ui/notes.md"] });
    const agents = agentTable(project, { "worker-page-dev--2": { file: ".design/worker-page-dev--2.json", content: retried, reply: "page-dev: done." } }, errors);
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    let loop!: Loop;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      // Only the grant's approval: the clean-up is the helper's call, no git command asks the user.
      args: userApproves(lead),
      maxTurns: 60,
      timeoutMs: 150_000,
      agents,
      script: flowScript(function* (first, latest): Flow {
        const digest = lead.digest(first);
        check(digest.run === null && digest.plan.counts.failed === 1, JSON.stringify(digest));
        ({ loop } = yield* throughWorkers(lead, latest));
        yield* workersCheckpoint(lead, ["page-dev--2"], 1, 0, 0, loop.last.reason);
        yield turn("page-dev completed on its retry.");
      }),
    });
    clean(s, errors);
    const run = project.json(".design/run-execute.json");
    assert.deepEqual(run.completed.map((c: any) => c.phase), ["pre-flight", "challenge", "grant", "workers"]);
    const first = loop.answers[0];
    assert.deepEqual(
      first.start.map((x: any) => [x.name, x.agent, x.attempt, x.retry, x.recorded, x.from, x.previousModel, x.model, x.replaces]),
      [["page-dev", "page-dev--2", 2, true, false, "failed", "haiku", "sonnet", { agent: "page-dev", outcome: "failed" }]],
    );
    assert.equal(loop.spawned["page-dev--2"].model, "sonnet");
    // clean-attempt: the tracked page back to the user's uncommitted version (not HEAD's), the new draft removed, the
    // user's untracked notes and the README (outside the scope) untouched.
    assert.equal(loop.cleaned.length, 1);
    assert.deepEqual(loop.cleaned[0].restored, ["src/ui/index.html"]);
    assert.deepEqual(loop.cleaned[0].removed, ["src/ui/draft.html"]);
    assert.equal(page, userPage);
    assert.equal(project.exists("src/ui/draft.html"), false);
    // After the retry and its finish: the user's bytes, uncommitted, byte for byte.
    assert.equal(project.read("src/ui/index.html"), userPage);
    assert.equal(project.read("src/ui/notes.md"), userNotes);
    const headPage = spawnSync("git", ["show", "HEAD:src/ui/index.html"], { cwd: project.dir, encoding: "utf8" });
    assert.equal(headPage.stdout, original, "the user's edit was not committed under the role's name");
    assert.equal(spawnSync("git", ["cat-file", "-e", "HEAD:src/ui/notes.md"], { cwd: project.dir }).status !== 0, true, "nor the user's notes");
    assert.equal(project.read("README.md"), readme + "a note outside the role's scope\n");
    assert.match(loop.last.reason, /all 2 roles completed/);
    const plan = project.json(".design/plan.json");
    assert.equal(plan.roles[1].status, "completed");
    assert.deepEqual(
      plan.roles[1].attemptLog.map((e: any) => [e.attempt, e.model, e.agent, e.outcome]),
      [
        [1, "haiku", "page-dev", "failed"],
        [2, "sonnet", "page-dev--2", "completed"],
      ],
    );
    assert.deepEqual(plan.roles[1].attemptLog[1].reflexion, REFLEXION);
  });

  it("an overlap whose holder fails for good: the waiting role runs once the lock is free; the partial run closes with its report [feature:execute/overlaps-serialised]", { timeout: TIMEOUT * 2 }, async () => {
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
        "integration-verifier": verifierPart,
      },
      errors,
    );
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    let loop!: Loop;
    let end: any;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      args: userApproves(lead),
      maxTurns: 90,
      timeoutMs: 200_000,
      agents,
      script: flowScript(function* (_first, latest): Flow {
        ({ loop } = yield* throughWorkers(lead, latest));
        yield* workersCheckpoint(lead, ["holder--3", "waiter"], 1, 1, 1, loop.last.reason);
        yield* closeRun(lead, latest, { verifier: true, outcome: "partial", goal: "partial" }, (e) => (end = e));
      }),
    });
    clean(s, errors);
    const [a0, a1] = loop.answers;
    // First answer: the holder's last attempt (opus: two failures escalated it twice), the waiter waits on the overlap.
    assert.deepEqual(a0.start.map((x: any) => [x.name, x.attempt, x.model]), [["holder", 3, "opus"]]);
    assert.deepEqual(a0.waiting.find((w: any) => w.name === "waiter")?.on.map((o: any) => [o.name, o.kind]), [["holder", "overlap"]]);
    assert.deepEqual(a0.waiting.find((w: any) => w.name === "after-holder")?.on.map((o: any) => [o.name, o.kind]), [["holder", "dependency"]]);
    // The holder failed for good: the lock is released, the waiter starts; the dependent cannot run.
    assert.deepEqual(a1.start.map((x: any) => x.name), ["waiter"]);
    assert.deepEqual(a1.failedForGood.map((f: any) => f.name), ["holder"]);
    assert.equal(loop.finished["holder--3"].status, "failed");
    assert.match(JSON.stringify(loop.finished["holder--3"].cascaded), /after-holder/);
    const last = loop.last;
    assert.equal(last.done, true);
    assert.deepEqual(last.start, []);
    assert.deepEqual(last.running, []);
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
    assert.equal(project.json(".design/run-execute.json").outcome, "partial");
    assertReport(project, s, "partial", end);
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
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    let loop!: Loop;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      args: userApproves(lead),
      maxTurns: 70,
      timeoutMs: 150_000,
      agents,
      script: flowScript(function* (_first, latest): Flow {
        ({ loop } = yield* throughWorkers(lead, latest));
        yield* workersCheckpoint(lead, ["store-dev--3", "api-dev"], 1, 1, 0, loop.last.reason);
        yield turn(`Workers done: ${loop.last.reason}`);
      }),
    });
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
    assert.match(project.json(".design/worker-store-dev--3.json").acceptanceCriteria[0].evidence, /^denied: Edit src\/ui\/index\.html/);
    const plan = project.json(".design/plan.json");
    assert.deepEqual(plan.roles.map((r: any) => [r.name, r.status, r.attemptLog.at(-1).agent]), [
      ["store-dev", "failed", "store-dev--3"],
      ["api-dev", "completed", "api-dev"],
    ]);
    assert.deepEqual(loop.last.failedForGood.map((f: any) => f.name), ["store-dev"]);
    // finish committed the completed role's reported file, and only it.
    assert.ok(loop.finished["api-dev"].commit?.sha, JSON.stringify(loop.finished["api-dev"].commit));
    assert.deepEqual(loop.finished["api-dev"].commit.files, ["src/api/server.js"]);
    assert.ok(!("sha" in (loop.finished["store-dev--3"].commit ?? {})), "a failed role was committed");
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
      script: flowScript(function* (_first, latest): Flow {
        yield* preflight(lead);
        done((yield* calls("Phase 2/7 Challenge.", lead.ref("pre-execution-briefs.md"))).results[0]);
        let ctx = yield* calls("Spawning the challenger.", agent("challenge the plan", "challenger", "sonnet", brief("challenger", "You are the challenger. Write .design/challenger-report.json.")));
        const id = ctx.results[0].id;
        yield* waitFor(latest(), [id], "Waiting for the challenger.");
        verdicts.push(helperJson((yield* calls("Validating its report.", lead.run("validate-auxiliary-report", ["--type challenger"]))).results[0]));
        check(verdicts[0].ok === false, JSON.stringify(verdicts[0]));
        yield* loadTools(latest(), ["SendMessage"]);
        ctx = yield* calls("Sending the challenger the error once.", sendMessage("challenger", "report invalid", `Your report is invalid: ${verdicts[0].error}. Fix it.`));
        sent = ctx.results[0];
        yield* waitFor(latest(), [sent.id], "Waiting for the challenger's correction.");
        verdicts.push(helperJson((yield* calls("Validating again.", lead.run("validate-auxiliary-report", ["--type challenger"]))).results[0]));
        check(verdicts[1].ok === false, JSON.stringify(verdicts[1]));
        yield* noChallenge(lead);
        // After a wait, -p has no one to ask: "no answer possible → no grant" (the hook asks for --approve).
        yield* grantPhase(lead, false);
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

  // Liveness by the clock (issue 24): the plan's stall limit is short here, and the workers that finish do so after
  // it has passed, so each `next` that follows a finish names the attempt that has run too long. No turn is counted:
  // the lead asks for no status, it stops what `next` calls stalled.
  it("a stalled worker, judged by the clock, is stopped and replaced once on a stronger model; after a second stall it is not retried [feature:execute/stall-replaced-once]", { timeout: TIMEOUT * 2 }, async (t: TestContext) => {
    const STALL_MINUTES = 1;
    const LATE_MS = STALL_MINUTES * 60_000 + 4_000;
    const roles: RoleSpec[] = [
      { name: "slow", model: "haiku", dirs: ["src/db"] },
      { name: "quick", model: "haiku", dirs: ["src/api"] },
      { name: "late", model: "haiku", dirs: ["src/ui"], deps: ["quick"] },
    ];
    const project = planned(projects, "stall and replace", roles, REQUIRED_AUXILIARIES, { stallMinutes: STALL_MINUTES });
    const errors: string[] = [];
    const parts: Record<string, AgentPart> = {
      "worker-quick": { file: ".design/worker-quick.json", content: report("quick", true), reply: "quick: done." },
      "worker-late": { file: ".design/worker-late.json", content: report("late", true), reply: "late: done." },
    };
    // Both attempts of slow never answer (the stub holds their first turn); quick and late answer after the limit.
    const stalled: string[] = [];
    const agents = (b: string) => {
      const key = /^Agent: (\S+)/m.exec(b)?.[1] ?? "";
      if (key === "worker-slow" || key === "worker-slow--2") {
        stalled.push(key);
        return () => ({ text: "Still working.", delayMs: 600_000 });
      }
      const part = parts[key];
      if (!part) return agentTable(project, parts, errors)(b);
      const script = agentScript(project, part, errors) as (ctx: TurnContext) => any;
      let first = true;
      return (ctx: TurnContext) => {
        const turnOut = script(ctx);
        if (first) {
          first = false;
          return { ...turnOut, delayMs: LATE_MS };
        }
        return turnOut;
      };
    };
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    const stops: any[] = [];
    const stalls: any[] = [];
    let loop!: Loop;
    let taskStopDeferred: boolean | undefined;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      args: userApproves(lead),
      maxTurns: 90,
      timeoutMs: 240_000,
      agents,
      script: flowScript(function* (_first, latest): Flow {
        const o = offeredTools(latest().body);
        taskStopDeferred = !o.callable.has("TaskStop") && o.deferred.has("TaskStop");
        ({ loop } = yield* throughWorkers(lead, latest, {
          stalled: function* (d, taskIds) {
            yield* loadTools(latest(), ["TaskStop"]);
            for (const i of d.stalled) {
              const run = d.running.find((r: any) => r.roleIndex === i);
              check(run && run.elapsedMs > STALL_MINUTES * 60_000, `stalled without the clock: ${JSON.stringify(d.running)}`);
              const stop = (yield* calls(`Stopping ${run.agent}: ${Math.round(run.elapsedMs / 1000)} s without a report.`, { name: "TaskStop", input: { task_id: taskIds[run.agent] } })).results[0];
              stops.push(stop);
              done(stop);
              stalls.push(yield* helper(lead, `Recording ${run.agent} as stalled.`, "update-status", ['"stalled": true'], { roleIndex: i }));
            }
          },
        }));
        yield* workersCheckpoint(lead, ["quick", "late"], 2, 1, 0, loop.last.reason);
        yield turn(`Workers done: ${loop.last.reason}`);
      }),
    });
    clean(s, errors);
    t.diagnostic(`TaskStop ${taskStopDeferred ? "is deferred (loaded through ToolSearch)" : "is offered directly"}; stop results: ${stops.map((x) => x.text.slice(0, 80)).join(" | ")}`);
    assert.deepEqual(stalled, ["worker-slow", "worker-slow--2"]);
    if (BEHAVIOUR) assert.equal(taskStopDeferred, BEHAVIOUR.deferredSendMessage, "TaskStop is deferred exactly where SendMessage is");
    assert.equal(stops.length, 2);
    for (const x of stops) assert.match(x.text, /stopped/i);
    assert.equal(stalls.length, 2);
    // No status message was sent: nothing asked a silent worker how it was doing.
    assert.ok(!s.main.some((r) => (r.answer?.tools ?? []).some((x) => x.name === "SendMessage")), "the lead pinged a worker");
    const retry = loop.starts.find((x: any) => x.agent === "slow--2");
    assert.deepEqual([retry.attempt, retry.retry, retry.model, retry.previousModel, retry.replaces], [2, true, "sonnet", "haiku", { agent: "slow", outcome: "stalled" }]);
    assert.equal(loop.spawned["slow--2"].model, "sonnet");
    // Stopped before the replacement was spawned, by the request order of the lead's calls.
    const order = s.main.flatMap((r) => (r.answer?.tools ?? []).map((x) => (x.name === "Agent" ? `Agent ${x.input.name}` : x.name)));
    assert.ok(order.indexOf("TaskStop") < order.indexOf("Agent slow--2"), order.join(","));
    const last = loop.last;
    assert.equal(last.done, true);
    assert.deepEqual(last.failedForGood.map((f: any) => f.name), ["slow"]);
    assert.match(JSON.stringify(last.failedForGood), /stalled twice/);
    const plan = project.json(".design/plan.json");
    assert.deepEqual(plan.roles.map((r: any) => [r.name, r.status]), [["slow", "failed"], ["quick", "completed"], ["late", "completed"]]);
    assert.deepEqual(plan.roles[0].attemptLog.map((e: any) => [e.attempt, e.model, e.agent, e.outcome]), [
      [1, "haiku", "slow", "stalled"],
      [2, "sonnet", "slow--2", "stalled"],
    ]);
    // The retry's reflexion survived its own stall.
    assert.deepEqual(plan.roles[0].attemptLog[1].reflexion, REFLEXION);
  });

  // Issue 24: resuming mid-workers lost the memories chosen per role, cleaned nothing for the interrupted attempt,
  // and "start over" archived the reports dependents need. `next` hands each start its memories, clean-attempt
  // undoes what the interrupted attempt left in its scope, and a fresh start keeps the completed roles' reports.
  for (const choice of ["resume", "fresh"] as const) {
    it(`an interruption in phase 4 after one role completed, then /do:execute again (${choice === "resume" ? "resumed" : "started over"}): the dependent gets its memories and its dependency's context, the interrupted attempt is cleaned [feature:execute/resume-after-interruption]`, { timeout: TIMEOUT * 2 }, async (t: TestContext) => {
      const roles: RoleSpec[] = [
        { name: "base", model: "haiku", dirs: ["src/db"] },
        { name: "user", model: "haiku", dirs: ["src/api"], deps: ["base"] },
      ];
      const project = planned(projects, "resume with context", roles);
      const MEMORY = "API handlers import dueDate from src/db/store.js instead of parsing dates themselves";
      helperSync(project, ["memory-add", ".design/memory.jsonl", "--category", "convention", "--keywords", "api,user,dates,context", "--content", MEMORY, "--importance", "7", "--surprise", "the handlers parsed dates three different ways before", "--source", "design", "--goal-context", "resume with context"]);
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
      // One user across both sessions: the grant key signed in the first stays in this HOME.
      const home = scratchHome();
      t.after(() => cleanup(home));
      // First session: killed right after `next` recorded `user` started, before its agent was spawned.
      let kill: () => void = () => {};
      let killed = false;
      let firstUser: any;
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
        script: flowScript(function* (_first, latest): Flow {
          yield* throughWorkers(lead1, latest, {
            beforeSpawn: (st) => {
              if (st.name === "user") {
                firstUser = st;
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
      assert.ok(firstUser.memories.some((m: any) => m.content === MEMORY), `next handed user no memory: ${JSON.stringify(firstUser.memories)}`);
      let plan = project.json(".design/plan.json");
      assert.deepEqual(plan.roles.map((r: any) => [r.name, r.status]), [["base", "completed"], ["user", "in_progress"]]);
      // What the interrupted worker had begun in its scope.
      project.write("src/api/partial.js", "// half of user's work\n");

      const lead2 = new SkillLead("execute", PLUGIN_DIR, project, "");
      let pre: any;
      let loop!: Loop;
      const s2 = await session({
        prompt: "/do:execute",
        cwd: project.dir,
        home,
        args: userApproves(lead2),
        maxTurns: 70,
        timeoutMs: 150_000,
        agents,
        script: flowScript(function* (first, latest): Flow {
          check(lead2.digest(first).run !== null, "the digest shows no interrupted run");
          pre = yield* preflight(lead2, choice);
          check(pre.first.action === "ask-resume", JSON.stringify(pre.first));
          if (choice === "resume") {
            check(pre.begin.action === "resumed" && pre.begin.resume.nextPhase === "workers", JSON.stringify(pre.begin));
          } else {
            check(pre.begin.action === "start", JSON.stringify(pre.begin));
            yield* noChallenge(lead2);
            yield* grantPhase(lead2);
          }
          done((yield* calls("Phase 4/7 Workers.", lead2.ref("worker-brief.md"))).results[0]);
          loop = yield* workerLoop(lead2, latest);
          yield* workersCheckpoint(lead2, ["base", "user--2"], 2, 0, 0, loop.last.reason);
          yield turn("Both roles completed.");
        }),
      });
      clean(s2, errors);
      assert.match(JSON.stringify(pre.begin.resetRoles), /\buser\b/, JSON.stringify(pre.begin));
      const st = loop.answers[0].start[0];
      assert.deepEqual([st.name, st.agent, st.attempt, st.model, st.replaces], ["user", "user--2", 2, "haiku", { agent: "user", outcome: "interrupted" }], "an interrupted attempt uses budget, not a tier");
      assert.deepEqual(st.dependencies.map((d: any) => [d.name, d.reportPath, d.reportExists]), [["base", ".design/worker-base.json", true]]);
      assert.deepEqual(loop.cleaned.map((c: any) => c.removed), [["src/api/partial.js"]]);
      assert.equal(project.exists("src/api/partial.js"), false);
      const prompts = agentCalls(s2).map((a) => String(a.prompt));
      assert.equal(prompts.length, 1);
      // The prompt names the brief file next wrote; the brief holds base's context and the memory (issue 30).
      assert.ok(prompts[0].includes(`Read your brief first: ${st.brief}.`), `the prompt does not name the brief: ${prompts[0]}`);
      const briefText = project.read(st.brief);
      assert.ok(briefText.includes(CONTEXT), `the dependent's brief lacks base's context: ${briefText}`);
      assert.ok(briefText.includes(MEMORY), `the dependent's brief lacks its memory: ${briefText}`);
      assert.ok(project.exists(".design/worker-base.json"), "the report the dependent needs was archived");
      plan = project.json(".design/plan.json");
      assert.deepEqual(plan.roles.map((r: any) => [r.name, r.status]), [["base", "completed"], ["user", "completed"]]);
      assert.deepEqual(plan.roles[1].attemptLog.map((e: any) => [e.attempt, e.outcome]), [[1, "interrupted"], [2, "completed"]]);
      t.diagnostic(`interrupted run: ${s1.run.ms} ms, ${choice}: ${s2.run.ms} ms, ${s2.tally.helperCalls} helper calls`);
    });
  }

  it("a run whose only role fails for good closes as failed, with its report [feature:execute/learn-and-close]", { timeout: TIMEOUT }, async () => {
    const roles: RoleSpec[] = [{ name: "doomed", model: "haiku", dirs: ["src/db"] }];
    const project = planned(projects, "a run that fails", roles);
    earlierFailures(project, 0, 2);
    const errors: string[] = [];
    const agents = agentTable(project, { "worker-doomed--3": { file: ".design/worker-doomed--3.json", content: report("doomed", false), reply: "doomed: failed." } }, errors);
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    let end: any;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      args: userApproves(lead),
      maxTurns: 50,
      timeoutMs: 150_000,
      agents,
      script: flowScript(function* (_first, latest): Flow {
        const { loop } = yield* throughWorkers(lead, latest);
        yield* workersCheckpoint(lead, ["doomed--3"], 0, 1, 0, loop.last.reason);
        // Nothing completed: no verifier.
        yield* closeRun(lead, latest, { verifier: false, outcome: "failed", goal: "not achieved" }, (e) => (end = e));
      }),
    });
    clean(s, errors);
    assert.equal(project.json(".design/plan.json").roles[0].status, "failed");
    assert.equal(project.json(".design/run-execute.json").outcome, "failed");
    assert.deepEqual(project.jsonl(".design/reflection.jsonl").map((r) => [r.skill, r.outcome]), [["execute", "failed"]]);
    assertReport(project, s, "failed", end);
  });

  // Issue 24's target: a clean 4-role execute with every auxiliary in at most 25 helper calls, each completed
  // role committed by the helper (no git prompt in a granted run), the report written and shown.
  it("a clean 4-role run with challenger, scout, verifier, regression checker and curator: at most 25 helper calls, every role committed without a prompt [feature:execute/checks-decide-completion]", { timeout: TIMEOUT * 2 }, async (t: TestContext) => {
    const roles: RoleSpec[] = [
      { name: "store", model: "haiku", dirs: ["src/db"] },
      { name: "api", model: "haiku", dirs: ["src/api"], deps: ["store"] },
      { name: "page", model: "haiku", dirs: ["src/ui"], deps: ["store"] },
      { name: "docs", model: "haiku", dirs: [], patterns: ["README.md"], deps: ["api", "page"] },
    ];
    const aux = [
      ...REQUIRED_AUXILIARIES,
      { name: "regression-checker", type: "post-execution", trigger: "after-all-roles-complete", model: "haiku", goal: "Nothing that worked before is lost" },
    ];
    // Four roles make a complex plan: finalize wants a verification spec (store's), which finish runs with its check.
    const spec = { role: "store", path: ".design/specs/spec-store.sh", runCommand: "sh .design/specs/spec-store.sh", properties: ["The store still loads"] };
    const project = planned(projects, "due dates end to end", roles, aux, { verificationSpecs: [spec] }, { ".design/draft/specs/spec-store.sh": "#!/bin/sh\nnode -e \"require('./src/db/store.js')\"\n" });
    const EDITS: Record<string, { edit: string; from: string; to: string }> = {
      store: { edit: "src/db/store.js", from: "const todos = new Map();", to: "const todos = new Map(); // due dates" },
      api: { edit: "src/api/server.js", from: "return [...todos.values()];", to: "return [...todos.values()]; // with due dates" },
      page: { edit: "src/ui/index.html", from: "<title>todos</title>", to: "<title>todos with due dates</title>" },
      docs: { edit: "README.md", from: "# todo-api", to: "# todo-api (todos may carry a due date)" },
    };
    const errors: string[] = [];
    const parts: Record<string, AgentPart> = {
      challenger: { file: ".design/challenger-report.json", content: { issues: [], summary: "Sound plan." }, reply: "done: .design/challenger-report.json, 0 issues, 0 blocking" },
      scout: { file: ".design/scout-report.json", content: { scopeAreas: [], discrepancies: [], verificationSpecs: [], summary: "The scopes exist." }, reply: "done: .design/scout-report.json, 0 discrepancies" },
      "integration-verifier": verifierPart,
      "regression-checker": { file: ".design/regression-checker-report.json", content: { passed: true, changes: [], regressions: [], summary: "Nothing lost." }, reply: "done: .design/regression-checker-report.json, passed true" },
      "memory-curator": {
        file: ".design/memory-curator-report.json",
        content: { memories: [{ category: "convention", keywords: ["due-dates", "store"], importance: 6, content: "Due dates live in src/db/store.js; the API and the page only read them" }], boost: [], decay: [], rejected: [], summary: "Kept 1 of 1." },
        reply: "done: .design/memory-curator-report.json, 1 memories",
      },
    };
    for (const r of roles) {
      parts[`worker-${r.name}`] = { work: [EDITS[r.name], { bash: "node --test test/" }], file: `.design/worker-${r.name}.json`, content: report(r.name, true, { filesChanged: [EDITS[r.name].edit] }), reply: `done: .design/worker-${r.name}.json, achieved true` };
    }
    const agents = agentTable(project, parts, errors);
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    let loop!: Loop;
    let end: any;
    let applied: any;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      args: userApproves(lead),
      maxTurns: 100,
      timeoutMs: 240_000,
      agents,
      script: flowScript(function* (_first, latest): Flow {
        const { begin } = yield* preflight(lead);
        check(begin.action === "start" && begin.git?.repo === true, JSON.stringify(begin));
        yield* challenge(lead, latest, { challenger: "sonnet", scout: "haiku" });
        yield* grantPhase(lead);
        done((yield* calls("Phase 4/7 Workers.", lead.ref("worker-brief.md"))).results[0]);
        loop = yield* workerLoop(lead, latest);
        yield* workersCheckpoint(lead, roles.map((r) => r.name), 4, 0, 0, loop.last.reason);
        yield* verify(lead, latest, { verifier: "haiku", regression: "haiku", goal: "achieved" });
        ({ applied } = yield* learn(lead, latest, { handoff: "# Handoff: due dates end to end\nRun: outcome completed\n", evaluation: evaluation("four roles in one pass"), curator: "haiku" }));
        yield* close(lead, "completed", true, (e) => (end = e));
      }),
    });
    clean(s, errors);
    const count = helperCalls(s.main);
    t.diagnostic(`clean 4-role execute: ${s.tally.helperCalls} helper calls, ${s.tally.leadTurns} lead turns, ${s.tally.tokensIn + s.tally.tokensOut} tokens reported`);
    assert.equal(s.tally.helperDenied, 0);
    assert.ok(s.tally.helperCalls <= 25, `${s.tally.helperCalls} helper calls:\n${count.join("\n")}`);
    // Every completed role committed by the helper, exactly its reported file; nothing asked the user.
    const log = gitLog(project);
    for (const r of roles) {
      const f = loop.finished[r.name];
      assert.equal(f.status, "completed", JSON.stringify(f));
      assert.deepEqual(f.commit?.files, [EDITS[r.name].edit], JSON.stringify(f.commit));
      assert.ok(log.includes(EDITS[r.name].edit), `${EDITS[r.name].edit} not in git log: ${log.join(" | ")}`);
    }
    assert.equal(spawnSync("git", ["status", "--porcelain", "--", "src", "README.md"], { cwd: project.dir, encoding: "utf8" }).stdout, "", "a role's file was left uncommitted");
    assert.deepEqual(s.denials, [], "a call asked the user");
    assert.equal(applied.stored.length, 1, JSON.stringify(applied));
    // The auxiliaries' usage was recorded by validate-auxiliary-report.
    assert.ok(count.every((c) => !/ record-usage /.test(c)), "a separate record-usage call");
    assert.equal(project.json(".design/run-execute.json").outcome, "completed");
    assertReport(project, s, "completed", end);
  });
});
