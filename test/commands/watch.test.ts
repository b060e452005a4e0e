// watch: the lead's wake-up while agents are out (issue 29). It exits at once when the lead is needed (an agent past
// its stall limit with a quiet transcript, a worker attempt past the plan's stallMinutes, the run closed), after a
// grace when every agent out finished and nothing was done, and at its time bound otherwise ("rearm"), never earlier;
// in a reply round only answers written after it started count. The transcripts are the real CLI's
// (test/fixtures/transcripts/), aged here. And the hook approves it for the lead of the four skills that wait.
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, realpathSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { claudeSession } from "../helpers/claude-session.ts";
import { planWith, project, type Project } from "../helpers/design-dir.ts";
import { projectFolderName } from "../../src/lib/cost/usage.ts";
import { permits, type HookInput } from "../../src/hooks/permit.ts";
import { watchBoundMs } from "../../src/commands/run/watch.ts";

const P = ".design/plan.json";
const FIXTURES = resolve(__dirname, "../fixtures/transcripts");
const SESSION = "7c1e4b2a-9d3f-4e60-8b15-2a6f0c9e4d83";
const MIN = 60_000;

function transcript(finished: boolean): string {
  const all = readFileSync(join(FIXTURES, "2.1.332", "agent-probe.jsonl"), "utf8").trim().split("\n");
  const cut = all.findIndex((l) => l.includes('"tool_result"')) + 1;
  return (finished ? all : all.slice(0, cut)).join("\n") + "\n";
}

/** Plant agent `name`'s transcript, last written `idleMs` before the real clock's now. */
function plant(config: string, p: Project, name: string, finished: boolean, idleMs: number): void {
  const dir = join(config, "projects", projectFolderName(realpathSync(p.dir)), SESSION, "subagents");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `agent-${name}-id.jsonl`);
  writeFileSync(file, transcript(finished));
  writeFileSync(join(dir, `agent-${name}-id.meta.json`), JSON.stringify({ agentType: "general-purpose", name }));
  const at = (Date.now() - idleMs) / 1000;
  utimesSync(file, at, at);
}

const OPEN_RUN = { ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "run-1", completedAt: null } };
const run = (p: Project, argv: string[]) => p.run("watch", argv, { now: Date.now() }) as Promise<any>;

describe("watch: wakes the lead only when it is needed [feature:execute/helper-schedules]", () => {
  it("an expert quiet past the limit wakes it at once with what to do; working ones do not (design, recon, improve)", async (t) => {
    const config = claudeSession(t, SESSION);
    const p = project(t, { ".design/run-design.json": "" });
    plant(config, p, "busy", false, 9 * MIN);
    plant(config, p, "quiet", false, 16 * MIN);
    for (const skill of ["design", "recon", "improve"]) {
      const t0 = Date.now();
      const out = await run(p, [skill, "--waiting", "busy,quiet", "--max-seconds", "30"]);
      assert.equal(out.ok, true, JSON.stringify(out));
      assert.ok(Date.now() - t0 < 5000, "a stall wakes the lead at once");
      assert.deepEqual([out.wake, out.stalled], ["stalled", ["quiet"]]);
      assert.match(out.action, /TaskStop.*replacement/);
      assert.equal(out.progress, "2 agents: 0 finished · 1 working · 1 stalled");
    }
  });

  it("a model request retried again and again is no sign of life: trailing api-request lines leave the agent quiet", async (t) => {
    const config = claudeSession(t, SESSION);
    const p = project(t);
    // Both written just now; the retrying one's last line is a request (2.1.332 writes one per attempt) after a
    // tool result recorded days ago (the fixture's own timestamps).
    plant(config, p, "alive", false, 0);
    plant(config, p, "retrying", false, 0);
    const dir = join(config, "projects", projectFolderName(realpathSync(p.dir)), SESSION, "subagents");
    const file = join(dir, "agent-retrying-id.jsonl");
    writeFileSync(file, transcript(false) + JSON.stringify({ type: "api-request", timestamp: new Date().toISOString(), params: {} }) + "\n");
    const out = await run(p, ["recon", "--waiting", "alive,retrying", "--max-seconds", "30"]);
    assert.deepEqual([out.wake, out.stalled], ["stalled", ["retrying"]], JSON.stringify(out));
    const alive = out.agents.find((a: any) => a.name === "alive");
    assert.deepEqual([alive.stalled, alive.idleMs < 60_000], [false, true]);
  });

  it("nothing to do: it sleeps to its bound and answers rearm with the progress line", async (t) => {
    const config = claudeSession(t, SESSION);
    const p = project(t);
    plant(config, p, "busy", false, 1 * MIN);
    const t0 = Date.now();
    const out = await run(p, ["design", "--waiting", "busy", "--max-seconds", "2"]);
    // It slept to its bound (not a moment less); that it then returned at all is the test ending.
    assert.ok(Date.now() - t0 >= 1900, `returned after ${Date.now() - t0} ms`);
    assert.equal(out.wake, "rearm");
    assert.equal(out.progress, "1 agent: 0 finished · 1 working");
    assert.match(out.action, /start the same watch again/);
  });

  it("every agent out finished and nobody acted: woken after the grace (a lost notification)", async (t) => {
    const config = claudeSession(t, SESSION);
    const p = project(t);
    plant(config, p, "a", true, 3 * MIN);
    plant(config, p, "b", true, 1 * MIN);
    const out = await run(p, ["recon", "--waiting", "a,b", "--max-seconds", "6"]);
    assert.deepEqual([out.wake, out.finished], ["finished", ["a", "b"]]);
    assert.ok(out.waitedSeconds >= 1 && out.waitedSeconds < 6, JSON.stringify(out));
  });

  it("a reply round: an answer from before the watch is no reply, and the stall clock starts at the watch", async (t) => {
    const config = claudeSession(t, SESSION);
    const p = project(t);
    plant(config, p, "architect", true, 40 * MIN);
    const out = await run(p, ["design", "--waiting", "architect", "--replies", "--stall-minutes", "1", "--max-seconds", "2"]);
    assert.equal(out.wake, "rearm", JSON.stringify(out));
    assert.deepEqual([out.agents[0].finished, out.agents[0].stalled], [false, false]);
    // Without --replies the same agent counts as finished.
    const plain = await run(p, ["design", "--waiting", "architect", "--max-seconds", "3"]);
    assert.deepEqual([plain.wake, plain.agents[0].finished], ["finished", true]);
  });

  it("execute: a worker past the plan's stallMinutes with a quiet transcript → stalled, named by role; the progress counts roles and tokens", async (t) => {
    const config = claudeSession(t, SESSION);
    const p = project(t, { [P]: planWith(["api", "web"], { stallMinutes: 5 }), ...OPEN_RUN });
    const started: any = await p.run("next", [P], { now: Date.now() - 20 * MIN });
    assert.deepEqual(started.start.map((s: any) => s.agent), ["api", "web"]);
    plant(config, p, "api", false, 12 * MIN);
    plant(config, p, "web", false, 1 * MIN);
    const out = await run(p, ["execute", "--max-seconds", "30"]);
    assert.equal(out.wake, "stalled", JSON.stringify(out));
    assert.deepEqual(out.stalled, ["api"]);
    assert.deepEqual(out.roles.map((r: any) => [r.roleIndex, r.agent]), [[0, "api"]]);
    assert.equal(out.progress, "done 0 · running 2 · waiting 0 · failed 0 · 0 tokens so far");
    assert.match(out.action, /call next/);
  });

  it("the stalled attempt the lead records failed gets its cost from its transcript, counted in the report [feature:execute/helper-schedules]", async (t) => {
    const config = claudeSession(t, SESSION);
    const p = project(t, { [P]: planWith(["api"], { stallMinutes: 5 }), ...OPEN_RUN });
    await p.run("next", [P], { now: Date.now() - 20 * MIN });
    plant(config, p, "api", false, 12 * MIN);
    const woke = await run(p, ["execute", "--max-seconds", "30"]);
    assert.deepEqual(woke.stalled, ["api"]);
    const rec: any = await p.run("update-status", [P], { stdin: JSON.stringify([{ roleIndex: 0, status: "failed", stalled: true, result: "stalled" }]), now: Date.now() });
    assert.equal(rec.ok, true, JSON.stringify(rec));
    const entry = p.json(P).roles[0].attemptLog[0];
    assert.equal(entry.outcome, "stalled", JSON.stringify(entry));
    assert.equal(entry.usage?.source, "transcript", JSON.stringify(entry));
    assert.ok(entry.usage.tokens > 0 && entry.usage.requests >= 1, JSON.stringify(entry.usage));
    const report: any = await p.run("report", [P], { now: Date.now() });
    assert.match(p.read(".design/report.html"), new RegExp(entry.usage.tokens.toLocaleString("en-US")));
    assert.equal(report.ok, true);
  });

  it("execute: a closed run ends the watch at once (done); a plan with nothing running waits out the grace", async (t) => {
    claudeSession(t, SESSION);
    const p = project(t, {
      [P]: planWith(["api"]),
      ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "r1", goal: "g", goalSha256: "", inputs: [], phases: ["workers"], completed: [], startedAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z", completedAt: "2026-01-01T01:00:00Z", outcome: "completed" },
    });
    const closed = await run(p, ["execute", "--max-seconds", "30"]);
    assert.deepEqual([closed.wake, closed.waitedSeconds], ["done", 0], JSON.stringify(closed));
    // An open run with nothing running: done once the grace passed (a third of a short bound).
    const q = project(t, { [P]: planWith(["api"]), ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "r2", completedAt: null } });
    const quiet = await run(q, ["execute", "--max-seconds", "3"]);
    assert.equal(quiet.wake, "done");
    assert.ok(quiet.waitedSeconds >= 1, JSON.stringify(quiet));
  });

  it("execute: the grant ending while it waits wakes the lead (grant), and so does the budget being reached (budget)", async (t) => {
    claudeSession(t, SESSION);
    const runState = { schemaVersion: 1, skill: "execute", runId: "run-1", completedAt: null };
    const p = project(t, { [P]: planWith(["api", "web"]), ".design/run-execute.json": runState });
    const g: any = await p.run("grant", [P, "--approve"], { consent: true });
    assert.equal(g.recorded, true, JSON.stringify(g));
    await p.run("next", [P]);
    setTimeout(() => void p.run("grant", [P, "--revoke"]), 300);
    const out = await run(p, ["execute", "--max-seconds", "9"]);
    assert.equal(out.wake, "grant", JSON.stringify(out));
    assert.match(out.grantEnded, /revoked|no grant/);

    const b: any = await p.run("budget", [P, "--tokens", "1000"]);
    assert.equal(b.ok, true, JSON.stringify(b));
    setTimeout(() => void p.run("record-usage", [P, "--agent", "api", "--tokens", "1500"]), 300);
    const spent = await run(p, ["execute", "--max-seconds", "9"]);
    assert.equal(spent.wake, "budget", JSON.stringify(spent));
    assert.match(spent.progress, /1,500 tokens so far/);
  });

  it("refuses what it cannot watch, and writes nothing", async (t) => {
    const p = project(t);
    for (const argv of [["reflect", "--waiting", "a"], ["design"], ["design", "--waiting", "Bad"], ["design", "--waiting", "a", "--max-seconds", "0"], ["nope", "--waiting", "a"]]) {
      const out = await run(p, argv);
      assert.equal(out.ok, false, argv.join(" "));
      assert.equal(out.code, "E_USAGE", JSON.stringify(out));
    }
    assert.deepEqual(p.exists(".design"), false);
  });

  it("stays under three quarters of the print-mode idle ceiling", () => {
    assert.equal(watchBoundMs(undefined, {}), 540_000);
    assert.equal(watchBoundMs(undefined, { CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS: "600000" }), 450_000);
    assert.equal(watchBoundMs(5, { CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS: "8000" }), 5000);
    assert.equal(watchBoundMs(60, { CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS: "8000" }), 6000);
    assert.equal(watchBoundMs(60, { CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS: "0" }), 60_000, "0 waits indefinitely: no ceiling");
  });
});

describe("the hook and watch", () => {
  const ROOT = resolve(__dirname, "../..");
  const call = (skill: string, tail: string) => `node "${ROOT}/skills/${skill}/scripts/plan.js" watch ${skill} ${tail}`.trimEnd();
  const allows = (p: Project, skill: "design" | "recon" | "improve" | "execute" | "reflect", command: string, extra: Record<string, unknown> = {}) =>
    permits({ tool_name: "Bash", tool_input: { command, description: "x", run_in_background: true, timeout: 600000 }, cwd: realpathSync(p.dir), ...extra } as HookInput, ROOT, skill);

  it("approves the lead's watch, in the background, for the four skills that wait; never an agent's, never reflect's", (t) => {
    const saved = process.env.CLAUDE_PROJECT_DIR;
    const p = project(t, { ".design/plan.json": planWith(["api"]) });
    process.env.CLAUDE_PROJECT_DIR = realpathSync(p.dir);
    t.after(() => (saved === undefined ? delete process.env.CLAUDE_PROJECT_DIR : (process.env.CLAUDE_PROJECT_DIR = saved)));
    for (const skill of ["design", "recon", "improve"] as const) {
      for (const tail of ["--waiting 'a,b'", "--waiting 'a, b-2' --replies", "--waiting a --stall-minutes 20 --max-seconds 300"]) {
        assert.equal(allows(p, skill, call(skill, tail)), true, `${skill}: ${tail}`);
      }
      assert.equal(allows(p, skill, call(skill, "--waiting a"), { agent_id: "x1" }), false, "an agent's call");
      assert.equal(allows(p, skill, call(skill, "--waiting '$(id)'")), false);
      assert.equal(allows(p, skill, call(skill, "--waiting a --max-seconds '$(id)'")), false);
    }
    assert.equal(allows(p, "execute", call("execute", "")), true);
    assert.equal(allows(p, "execute", call("execute", "--waiting 'challenger,scout'")), true);
    assert.equal(allows(p, "reflect", `node "${ROOT}/skills/reflect/scripts/plan.js" watch design --waiting a`), false);
  });
});
