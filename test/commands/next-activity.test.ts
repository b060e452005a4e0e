// `next`'s stall verdict, second look (issue 24, liveness by the clock): an attempt that has run past the plan's
// `stallMinutes` is stalled only if its agent's transcript in this session has been quiet that long too
// (lib/attempts/liveness.ts); a worker whose transcript was written lately is on a long task, and one whose transcript ends in
// its final answer has finished (its report is due). Where no transcript is found, the clock alone decides. The
// transcripts are the real CLI's (test/fixtures/transcripts/), aged here.
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, realpathSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { claudeSession } from "../helpers/claude-session.ts";
import { planWith, project, type Project } from "../helpers/design-dir.ts";
import { projectFolderName } from "../../src/lib/cost/usage.ts";

const P = ".design/plan.json";
const FIXTURES = resolve(__dirname, "../fixtures/transcripts");
const SESSION = "0b7d1c55-3f2a-4c8e-b0a4-6e2f9d1c7a42";
const T = Date.UTC(2026, 2, 3, 10, 0, 0);
const MIN = 60_000;

/** A scratch Claude config folder and session id for the helper, restored after the test. */
const session = (t: TestContext): string => claudeSession(t, SESSION);

/** The recorded 2.1.332 transcript, whole (a finished agent) or cut after its first tool result (at work). */
function transcript(finished: boolean): string {
  const all = readFileSync(join(FIXTURES, "2.1.332", "agent-probe.jsonl"), "utf8").trim().split("\n");
  const cut = all.findIndex((l) => l.includes('"tool_result"')) + 1;
  return (finished ? all : all.slice(0, cut)).join("\n") + "\n";
}

/** Plant the transcript of agent `name`, last written `idleMs` before `now`. */
function plant(config: string, p: Project, name: string, text: string, now: number, idleMs: number): void {
  const dir = join(config, "projects", projectFolderName(realpathSync(p.dir)), SESSION, "subagents");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `agent-${name}-id.jsonl`);
  writeFileSync(file, text);
  writeFileSync(join(dir, `agent-${name}-id.meta.json`), JSON.stringify({ agentType: "general-purpose", name }));
  const at = (now - idleMs) / 1000;
  utimesSync(file, at, at);
}

describe("next: an attempt past the stall limit is judged by its transcript too [feature:execute/helper-schedules]", () => {
  it("busy lately → not stalled; finished → not stalled, report due; quiet past the limit → stalled; no transcript → the clock", async (t) => {
    const config = session(t);
    const p = project(t, { [P]: planWith(["busy", "done", "quiet", "ghost", "idle"]) });
    const first: any = await p.run("next", [], { now: T });
    assert.deepEqual(first.start.map((s: any) => [s.agent, s.recorded]), [["busy", true], ["done", true], ["quiet", true], ["ghost", true], ["idle", true]]);
    const now = T + 45 * MIN;
    plant(config, p, "busy", transcript(false), now, 3 * MIN);
    plant(config, p, "done", transcript(true), now, 20 * MIN);
    plant(config, p, "quiet", transcript(false), now, 31 * MIN);
    plant(config, p, "idle", transcript(false), now, 16 * MIN);
    const out: any = await p.run("next", [], { now });
    assert.equal(out.ok, true, JSON.stringify(out));
    const by = Object.fromEntries(out.running.map((r: any) => [r.agent, r]));
    assert.deepEqual([by.busy.elapsedMs, by.busy.stalled, by.busy.idleMs, by.busy.finished], [45 * MIN, false, 3 * MIN, undefined]);
    assert.deepEqual([by.done.stalled, by.done.finished], [false, true]);
    assert.deepEqual([by.quiet.stalled, by.quiet.idleMs], [true, 31 * MIN]);
    assert.deepEqual([by.idle.stalled, by.idle.idleMs], [false, 16 * MIN], "quiet for less than the plan's 30 minutes");
    assert.deepEqual([by.ghost.stalled, by.ghost.idleMs], [true, undefined]);
    assert.deepEqual(out.stalled, [2, 3]);
  });

  it("reads no transcript for an attempt still inside the stall limit", async (t) => {
    const config = session(t);
    const p = project(t, { [P]: planWith(["api"]) });
    await p.run("next", [], { now: T });
    plant(config, p, "api", transcript(false), T + 10 * MIN, 9 * MIN);
    const out: any = await p.run("next", [], { now: T + 10 * MIN });
    assert.deepEqual(out.running.map((r: any) => [r.stalled, "idleMs" in r]), [[false, false]]);
  });
});

describe("next: a plan's own stallMinutes is the quiet limit too [feature:execute/helper-schedules]", () => {
  it("with stallMinutes 1, a worker whose transcript stopped 2 minutes ago is stalled", async (t) => {
    const config = session(t);
    const p = project(t, { [P]: planWith(["api"], { stallMinutes: 1 }) });
    await p.run("next", [], { now: T });
    plant(config, p, "api", transcript(false), T + 3 * MIN, 2 * MIN);
    const out: any = await p.run("next", [], { now: T + 3 * MIN });
    assert.deepEqual([out.stalled, out.running[0].idleMs], [[0], 2 * MIN]);
    plant(config, p, "api", transcript(false), T + 3 * MIN, 30 * 1000);
    const busy: any = await p.run("next", [], { now: T + 3 * MIN });
    assert.deepEqual(busy.stalled, []);
  });
});
