// No run waits on nobody (issue 29), through the real CLI in print mode: the lead starts the wake-up
// (`plan.js watch`, Bash run_in_background) with its spawns and ends its turn. A worker that never finishes: with the
// plan's stall limit at 1 minute and the print-mode idle ceiling at 40 s (so the wake-up first comes back to be
// started again, keeping the session and the hung worker alive), the lead is woken with no user message, `next`
// names the attempt stalled, the lead stops it and records it (its cost from its transcript), the retry is handed
// out, and the run completes. The same for a design expert that never writes its artifact. A run where nothing
// hangs makes no more lead turns with the wake-up than without.
import { after, before, describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { ensureClaude, PLUGIN_DIR } from "./lib/claude.ts";
import { agent, check, done, flowScript, loadTools, ok, read, turn, waitFor, type Flow } from "./lib/lead.ts";
import { agentScript, agentTable, type AgentPart } from "./lib/agents.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { assertClean, session } from "./lib/session.ts";
import { calls, helper, SkillLead } from "./lib/skill-lead.ts";
import { userText, type TurnContext } from "./lib/stub.ts";
import { brief, close, grantPhase, learn, noChallenge, preflight, readWake, userApproves, verify, watchCall, workerLoop, workersCheckpoint, type Loop } from "./lib/execute-lead.ts";
import { expertArtifact, REQUIRED_AUXILIARIES } from "./lib/fixtures.ts";
import { cliSync } from "../helpers/cli.ts";
import { Browser, chromiumWorks, type Page } from "../helpers/browser.ts";
import { pathToFileURL } from "node:url";

const TIMEOUT = 300_000;
const CEILING = { CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS: "40000" };

function plan(goal: string, roles: Array<{ name: string; dirs: string[]; deps?: string[] }>, extra: object = {}): object {
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
      model: "haiku",
      scope: { directories: r.dirs, patterns: [], dependencies: r.deps ?? [] },
      expertContext: [],
      constraints: [],
      acceptanceCriteria: [{ criterion: "The tests pass", check: "node --test test/" }],
      assumptions: [],
      rollbackTriggers: [],
      fallback: "",
    })),
    auxiliaryRoles: REQUIRED_AUXILIARIES,
    ...extra,
  };
}

function planned(projects: Sample[], goal: string, roles: Array<{ name: string; dirs: string[]; deps?: string[] }>, extra: object = {}): Sample {
  const p = sampleProject();
  projects.push(p);
  p.write(".design/draft/plan.json", plan(goal, roles, extra));
  const r = cliSync(["finalize", ".design/draft/plan.json"], { cwd: p.dir });
  assert.equal(r.json?.ok, true, r.stdout + r.stderr);
  return p;
}

const workerReport = (role: string) => ({
  role,
  achieved: true,
  filesChanged: [],
  acceptanceCriteria: [{ criterion: "The tests pass", passed: true, evidence: "node --test test/: 1 passed" }],
  keyDecisions: [`${role}: kept the module layout`],
  contextForDependents: `${role} is done`,
});
const VERIFIER: AgentPart = {
  file: ".design/integration-verifier-report.json",
  content: { status: "PASS", acceptanceCriteria: [], crossRoleIssues: [], testResults: { command: "node --test test/", exitCode: 0, output: "1 passed" }, endToEndVerification: { tested: false, result: "skipped", details: "none" }, summary: "fine" },
  reply: "done: PASS",
};
const EVAL = { whatWorked: ["the wake-up"], whatFailed: [], doNextTime: ["keep stall limits short in tests"], roleQuality: [], coordinationNotes: "" };

describe("a hung agent wakes the lead through the real CLI", { concurrency: 1 }, () => {
  const projects: Sample[] = [];
  before(() => ensureClaude());
  after(() => cleanup(...projects.map((p) => p.dir)));

  it("/do:execute: a worker that never finishes is found stalled by the wake-up, recorded with its cost, retried, and the run completes [feature:execute/wake-up-on-hang]", { timeout: TIMEOUT }, async (t: TestContext) => {
    const project = planned(projects, "hang and recover", [{ name: "slow", dirs: ["src/db"] }], { stallMinutes: 1 });
    const errors: string[] = [];
    const parts: Record<string, AgentPart> = {
      "worker-slow--2": { file: ".design/worker-slow--2.json", content: workerReport("slow"), reply: "slow: done." },
      "integration-verifier": VERIFIER,
    };
    const table = agentTable(project, parts, errors);
    // The first attempt reads a file (one answer with its usage), then its model never answers again.
    const agents = (b: string) =>
      /^Agent: worker-slow\s*$/m.test(b)
        ? [{ ...turn("Reading the store first.", read(project.path("src/db/store.js"))), usage: { input_tokens: 1200, output_tokens: 300 } }, { text: "Still thinking.", delayMs: 280_000 }]
        : table(b);
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    let loop!: Loop;
    let end: any;
    const stops: any[] = [];
    // The user opens the live report once the run has started, and leaves the page open (Debian's headless Chromium).
    const browser = chromiumWorks() ? Browser.launch() : null;
    t.after(() => browser?.close());
    const url = pathToFileURL(project.path(".design/report.html")).href;
    const statusOf = (page: Page) => page.evaluate<string>(`document.querySelector('#graph a.node[data-role="0"]')?.dataset.status ?? ""`);
    let opened: Promise<{ page: Page; first: string }> | null = null;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      args: userApproves(lead),
      env: CEILING,
      maxTurns: 90,
      timeoutMs: 280_000,
      agents,
      script: flowScript(function* (_first, latest): Flow {
        const begun = yield* preflight(lead);
        check(begun.begin.report?.live === true, `run-begin wrote no live report: ${JSON.stringify(begun.begin.report)}`);
        if (browser) {
          opened = (async () => {
            const page = await browser.page(1280, 1000);
            await page.open(url);
            return { page, first: await statusOf(page) };
          })();
        }
        yield* noChallenge(lead);
        yield* grantPhase(lead);
        for (const r of (yield* calls("Phase 4/7 Workers.", lead.ref("worker-brief.md"), lead.ref("waiting.md"))).results) done(r);
        ({ loop: loop } = { loop: yield* workerLoop(lead, latest, {
          watch: true,
          stalled: function* (d, taskIds) {
            yield* loadTools(latest(), ["TaskStop"]);
            for (const i of d.stalled) {
              const r = d.running.find((x: any) => x.roleIndex === i);
              const stop = (yield* calls(`Stopping ${r.agent}: stalled.`, { name: "TaskStop", input: { task_id: taskIds[r.agent] } })).results[0];
              stops.push(stop);
              done(stop);
              yield* helper(lead, `Recording ${r.agent} as stalled.`, "update-status", ['"stalled": true'], { roleIndex: i });
            }
          },
        }) });
        yield* workersCheckpoint(lead, ["slow--2"], 1, 0, 0, loop.last.reason, loop.watchTask);
        yield* verify(lead, latest, { verifier: "haiku", goal: "achieved" });
        yield* learn(lead, latest, { handoff: "# Handoff\nslow stalled once, its retry completed\n", evaluation: EVAL });
        yield* close(lead, "completed", true, (e) => (end = e));
      }),
    });
    assertClean(s);
    assert.deepEqual(errors, []);
    t.diagnostic(`wakes: ${loop.wakes.map((w) => `${w.wake} after ${w.waitedSeconds} s (${w.progress})`).join(" | ")}; ${s.tally.leadTurns} lead turns`);
    // The wake-up came back first to be started again (under the 40 s ceiling), then with the stall.
    assert.deepEqual(loop.wakes.map((w) => w.wake), ["rearm", "stalled"]);
    assert.ok(loop.wakes[0].waitedSeconds <= 30, JSON.stringify(loop.wakes[0]));
    assert.deepEqual(loop.wakes[1].stalled, ["slow"]);
    assert.match(loop.wakes[1].progress, /^done 0 · running 1 · waiting 0 · failed 0 · 0 tokens so far/);
    // Nobody typed: every lead request after the prompt was started by a tool result or a notification.
    const prompts = (userText(s.main[s.main.length - 1].body).match(/\/do:execute/g) ?? []).length;
    assert.ok(prompts >= 1);
    assert.equal(stops.length, 1);
    assert.match(stops[0].text, /stopped/i);
    const roleDoc = project.json(".design/plan.json").roles[0];
    assert.deepEqual(roleDoc.attemptLog.map((e: any) => [e.agent, e.outcome]), [["slow", "stalled"], ["slow--2", "completed"]]);
    // The stalled attempt's cost, from its transcript: the one answer it got (1,200 in, 300 out).
    const usage = roleDoc.attemptLog[0].usage;
    assert.equal(usage?.source, "transcript", JSON.stringify(roleDoc.attemptLog[0]));
    assert.ok(usage.tokens >= 1500, JSON.stringify(usage));
    assert.equal(roleDoc.status, "completed");
    assert.equal(end.run.outcome, "completed");
    assert.match(project.read(".design/report.html"), new RegExp(usage.tokens.toLocaleString("en-US")));
    assert.doesNotMatch(project.read(".design/report.html"), /http-equiv="refresh"/, "the closed run's report no longer reloads");
    // The page the user opened at the start shows the later state by itself: the role completed after its retry.
    if (!browser) {
      assert.ok(!process.env.CI, "CI must have Chromium: .ci/run installs Debian's chromium");
      t.diagnostic("Chromium is not installed: the live page was not watched");
      return;
    }
    const { page, first } = await opened!;
    assert.equal(first, "pending", "the report as the run started");
    let later = await statusOf(page).catch(() => "");
    for (const deadline = Date.now() + 25_000; later !== "completed" && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 500));
      later = await statusOf(page).catch(() => "");
    }
    assert.equal(later, "completed", "the open page reloaded into the later state");
    assert.deepEqual(page.errors(), [], "no console error");
    assert.deepEqual([...new Set(page.requests())], [url], "no request but the report's own file");
  });

  it("/do:design: an expert that never writes its artifact is found stalled by the wake-up and replaced; the experts phase completes [feature:design/wake-up-on-hang]", { timeout: TIMEOUT }, async (t: TestContext) => {
    const project = sampleProject();
    projects.push(project);
    const GOAL = "add due dates to todos across the api and the store";
    const lead = new SkillLead("design", PLUGIN_DIR, project, GOAL);
    const errors: string[] = [];
    const table = agentTable(
      project,
      {
        "expert-researcher": { file: ".design/expert-researcher.json", content: expertArtifact("researcher"), reply: "done: .design/expert-researcher.json" },
        "expert-architect-2": { file: ".design/expert-architect.json", content: expertArtifact("architect"), reply: "done: .design/expert-architect.json" },
      },
      errors,
    );
    const agents = (b: string) => (/^Agent: expert-architect\s*$/m.test(b) ? [{ ...turn("Reading the store.", read(project.path("src/db/store.js"))) }, { text: "Still thinking.", delayMs: 280_000 }] : table(b));
    const wakes: any[] = [];
    const checks: any[] = [];
    let stop: any;
    const s = await session({
      prompt: `/do:design ${GOAL}`,
      cwd: project.dir,
      env: CEILING,
      agents,
      maxTurns: 60,
      timeoutMs: 280_000,
      script: flowScript(function* (_first, latest): Flow {
        yield* helper(lead, "Phase 1/6 Pre-flight: opening the run.", "run-begin", [], { fill: { goal: GOAL } });
        // design-tier records the pre-flight phase (issue 30); --min medium keeps the full path with its experts.
        const tier = ok((yield* calls("Asking the helper for the tier.", { name: "Bash", input: { command: `${lead.call("design-tier", ["--goal"], { fill: { "clarified goal": GOAL } })} --min medium`, description: "do helper: design-tier" } })).results[0]);
        check(tier.path === "full" && /pre-flight: done/.test(tier.checkpoint), `design-tier: ${JSON.stringify(tier)}`);
        done((yield* calls("Phase 2/6 Experts.", lead.ref("expert-briefs.md"), lead.ref("waiting.md"))).results[0]);
        const spawn = (name: string, as = name) => agent(`${name} expert`, as, "haiku", brief(`expert-${as}`, `You are the ${name}. Goal: ${GOAL}. Write .design/expert-${name}.json.`));
        // The design skill's default stall limit is 15 minutes; the test sets 1 as the lead may (`--stall-minutes`).
        const short = (names: string) => watchCall(lead, ["names still out"], { fill: { "names still out": names }, replace: [["--waiting '{names still out}'", "--waiting '{names still out}' --stall-minutes 1"]] });
        let ctx = yield* calls("Spawning the experts with the wake-up.", spawn("architect"), spawn("researcher"), short("architect,researcher"));
        const architectTask = /agentId:\s*([\w-]+)/.exec(ctx.results[0].text)?.[1] ?? "architect";
        let watchId = ctx.results[2].id;
        yield* waitFor(latest(), [ctx.results[1].id], "Waiting for the experts.");
        checks.push(ok((yield* calls("Checking the researcher's artifact.", lead.run("expert-validate", [], { fill: { name: "researcher", "names still out": "architect" } }))).results[0]));
        // Wait on: the wake-up alone can wake the lead now.
        for (let k = 0; ; k++) {
          check(k < 8, "the wake-up never said stalled");
          let c = latest();
          while (!userText(c.body).includes(`<tool-use-id>${watchId}</tool-use-id>`)) c = yield turn("Waiting for the architect.");
          const w = yield* readWake(lead, latest(), watchId);
          wakes.push(w);
          if (w.wake === "stalled") break;
          const again = yield* calls(`${w.progress}: starting the wake-up again.`, short("architect"));
          watchId = again.results[0].id;
        }
        yield* loadTools(latest(), ["TaskStop"]);
        stop = (yield* calls("The architect stalled: stopping it.", { name: "TaskStop", input: { task_id: architectTask } })).results[0];
        ctx = yield* calls("Replacing it as architect-2, with the wake-up.", spawn("architect", "architect-2"), short("architect-2"));
        const replacement = ctx.results[0].id;
        const lastWatch = ctx.results[1].text;
        yield* waitFor(latest(), [replacement], "Waiting for the replacement.");
        checks.push(ok((yield* calls("Checking the architect's artifact.", lead.run("expert-validate", [], { fill: { name: "architect", "names still out": "" } }))).results[0]));
        // Nothing is out: the check with no one left out recorded the experts phase (issue 30); the wake-up is stopped.
        const task = /ID:\s*(\w+)/.exec(lastWatch)?.[1] ?? "";
        yield* calls("Experts done: stopping the wake-up.", { name: "TaskStop", input: { task_id: task } });
        yield turn("Two experts reported; the test stops here.");
      }),
    });
    assertClean(s);
    assert.deepEqual(errors, []);
    t.diagnostic(`wakes: ${wakes.map((w) => `${w.wake} after ${w.waitedSeconds} s (${w.progress})`).join(" | ")}`);
    assert.equal(wakes[wakes.length - 1].wake, "stalled");
    assert.deepEqual(wakes[wakes.length - 1].stalled, ["architect"]);
    assert.ok(wakes.slice(0, -1).every((w) => w.wake === "rearm"), JSON.stringify(wakes));
    assert.match(String(stop?.text), /stopped/i);
    assert.equal(checks.length, 2);
    const run = project.json(".design/run-design.json");
    assert.deepEqual(run.completed.map((c: any) => c.phase), ["pre-flight", "experts"]);
  });

  it("/do:execute where nothing hangs: the wake-up adds no lead turn (the tallies with and without it)", { timeout: TIMEOUT }, async (t: TestContext) => {
    const tallies: Record<string, any> = {};
    for (const withWatch of [false, true]) {
      const project = planned(projects, "two quick roles", [{ name: "store", dirs: ["src/db"] }, { name: "api", dirs: ["src/api"], deps: ["store"] }]);
      const errors: string[] = [];
      const agents = agentTable(
        project,
        {
          "worker-store": { file: ".design/worker-store.json", content: workerReport("store"), reply: "store: done." },
          "worker-api": { file: ".design/worker-api.json", content: workerReport("api"), reply: "api: done." },
        },
        errors,
      );
      const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
      let loop!: Loop;
      const s = await session({
        prompt: "/do:execute",
        cwd: project.dir,
        args: userApproves(lead),
        maxTurns: 80,
        timeoutMs: 200_000,
        agents,
        label: withWatch ? "execute (wake-up)" : "execute (no wake-up)",
        script: flowScript(function* (_first, latest): Flow {
          yield* preflight(lead);
          yield* noChallenge(lead);
          yield* grantPhase(lead);
          for (const r of (yield* calls("Phase 4/7 Workers.", lead.ref("worker-brief.md"), lead.ref("waiting.md"))).results) done(r);
          loop = yield* workerLoop(lead, latest, { watch: withWatch });
          yield* workersCheckpoint(lead, ["store", "api"], 2, 0, 0, loop.last.reason, loop.watchTask);
          yield turn("Workers done; the test stops here.");
        }),
      });
      assertClean(s);
      assert.deepEqual(errors, []);
      assert.deepEqual(loop.wakes, [], "nothing hung: the wake-up never woke the lead");
      if (withWatch) assert.ok(loop.watchTask, "the wake-up ran until the workers were done");
      assert.deepEqual(project.json(".design/plan.json").roles.map((r: any) => r.status), ["completed", "completed"]);
      tallies[String(withWatch)] = s.tally;
    }
    t.diagnostic(`lead turns without the wake-up ${tallies.false.leadTurns}, with it ${tallies.true.leadTurns}; helper calls ${tallies.false.helperCalls} and ${tallies.true.helperCalls}`);
    assert.ok(tallies.true.leadTurns <= tallies.false.leadTurns, `the wake-up added lead turns: ${tallies.false.leadTurns} → ${tallies.true.leadTurns}`);
  });
});
