// What wakes an idle lead in print mode (issue 29), measured on the real CLI with no plugin: the lead ends its turn
// with background work out and the stub records when (and whether) the CLI asks the model again.
// - a Bash call with `run_in_background: true` that exits: does it start a lead turn, and how soon;
// - the print-mode idle ceiling (`CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS`, set small here): a background Bash that
//   outlives it, and a background agent that hangs while a background Bash still runs;
// - re-arming: the lead starts a new short background Bash each time it wakes; do the session and a hung agent
//   live past several ceilings.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { BEHAVIOUR, CLAUDE_CODE_VERSION, ensureClaude } from "./lib/claude.ts";
import { agent, flowScript, loadTools, turn, type Flow } from "./lib/lead.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { session, type Session } from "./lib/session.ts";
import { userText, type ToolCall, type TurnContext } from "./lib/stub.ts";

const bg = (command: string): ToolCall => ({ name: "Bash", input: { command, description: "wait in the background", run_in_background: true } });

/** The lead's requests as a timeline: ms since the first, and the new user text each brought. */
function timeline(s: Session): { ms: number; text: string }[] {
  const t0 = s.main[0]?.at ?? 0;
  let seen = 0;
  return s.main.map((r) => {
    const text = userText(r.body);
    const fresh = text.slice(seen);
    seen = text.length;
    const note = /<task-notification>[\s\S]*?<\/task-notification>/.exec(fresh)?.[0];
    return { ms: r.at - t0, text: (note ?? fresh).replace(/\s+/g, " ").slice(0, note ? 600 : 80) };
  });
}

describe(`what wakes an idle lead in claude -p (${CLAUDE_CODE_VERSION})`, { concurrency: 1 }, () => {
  const projects: Sample[] = [];
  before(() => ensureClaude());
  after(() => cleanup(...projects.map((p) => p.dir)));
  const project = () => {
    const p = sampleProject("do-e2e-wake-");
    projects.push(p);
    return p;
  };
  const run = (p: Sample, script: ReturnType<typeof flowScript>, env: Record<string, string> = {}, agents?: (b: string) => any) =>
    session({ prompt: "wake probe", cwd: p.dir, pluginDir: null, script, agents, env, args: ["--allowedTools", "Bash"], timeoutMs: 250_000, label: "wake" });

  it("a background Bash that exits re-invokes the idle lead", { timeout: 200_000 }, async (t) => {
    let woke: TurnContext | undefined;
    const s = await run(
      project(),
      flowScript(function* (): Flow {
        yield turn("Arming the wake-up.", bg("sleep 4"));
        woke = yield turn("Waiting.");
        yield turn("Woken; done.");
      }),
    );
    const tl = timeline(s);
    t.diagnostic(JSON.stringify({ code: s.run.code, ms: s.run.ms, tl, result: s.run.json?.result }));
    assert.ok(woke, "never re-invoked");
  });

  it("past the idle ceiling a background Bash is stopped", { timeout: 200_000 }, async (t) => {
    const s = await run(
      project(),
      flowScript(function* (): Flow {
        yield turn("Arming a long wake-up.", bg("sleep 20"));
        yield turn("Waiting.");
        yield turn("Woken; done.");
      }),
      { CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS: "6000" },
    );
    t.diagnostic(JSON.stringify({ code: s.run.code, ms: s.run.ms, tl: timeline(s), stderr: s.run.stderr.slice(-600), result: s.run.json?.result }));
  });

  it("a hung agent with a background Bash still running, past the idle ceiling", { timeout: 200_000 }, async (t) => {
    const s = await run(
      project(),
      flowScript(function* (): Flow {
        yield turn("Spawning and arming.", agent("hangs", "sleeper", "haiku", "Agent: sleeper\nThink forever."), bg("sleep 20"));
        yield turn("Waiting.");
        yield turn("Woken; done.");
      }),
      { CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS: "8000" },
      () => [{ text: "Still thinking.", delayMs: 120_000 }],
    );
    const a = s.agents.map((r) => ({ ms: r.at - s.main[0].at, abortedMs: r.abortedAt === undefined ? null : r.abortedAt - s.main[0].at }));
    t.diagnostic(JSON.stringify({ code: s.run.code, ms: s.run.ms, tl: timeline(s), agents: a, stderr: s.run.stderr.slice(-600), result: s.run.json?.result }));
  });

  it("re-arming within the ceiling keeps the session and a hung agent alive", { timeout: 200_000 }, async (t) => {
    let stop: any;
    const s = await run(
      project(),
      flowScript(function* (_f, latest): Flow {
        let ctx = yield turn("Spawning and arming.", agent("hangs", "sleeper", "haiku", "Agent: sleeper\nThink forever."), bg("sleep 5"));
        const taskId = /agentId:\s*([\w-]+)/.exec(ctx.results[0]?.text ?? "")?.[1] ?? "sleeper";
        for (let i = 0; i < 4; i++) {
          yield turn("Waiting.");
          yield turn("Re-arming.", bg("sleep 5"));
        }
        yield turn("Waiting.");
        ctx = yield* loadTools(latest(), ["TaskStop"]);
        stop = (yield turn("Stopping the agent.", { name: "TaskStop", input: { task_id: taskId } })).results[0];
        yield turn("Done.");
      }),
      { CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS: "8000" },
      () => [{ text: "Still thinking.", delayMs: 120_000 }],
    );
    const a = s.agents.map((r) => ({ ms: r.at - s.main[0].at, abortedMs: r.abortedAt === undefined ? null : r.abortedAt - s.main[0].at }));
    t.diagnostic(JSON.stringify({ code: s.run.code, ms: s.run.ms, tl: timeline(s), agents: a, stop: stop?.text, stderr: s.run.stderr.slice(-600), result: s.run.json?.result }));
  });

  it("a background Bash that exits while the lead works, and one the lead stops", { timeout: 200_000 }, async (t) => {
    let stop: any;
    const s = await run(
      project(),
      flowScript(function* (_f, latest): Flow {
        const ctx = yield turn("Arming two.", bg("sleep 2"), bg("sleep 60"));
        const id = /ID:\s*(\w+)/.exec(ctx.results[1]?.text ?? "")?.[1] ?? "";
        yield turn("Working in the foreground.", { name: "Bash", input: { command: "sleep 5", description: "work" } });
        yield* loadTools(latest(), ["TaskStop"]);
        stop = (yield turn("Stopping the long one.", { name: "TaskStop", input: { task_id: id } })).results[0];
        yield turn("Ending my turn.");
        yield turn("Woken again.");
      }),
    );
    t.diagnostic(JSON.stringify({ code: s.run.code, ms: s.run.ms, tl: timeline(s), stop: stop?.text, result: s.run.json?.result }));
  });

  it("a background Bash past its own timeout", { timeout: 200_000 }, async (t) => {
    const s = await run(
      project(),
      flowScript(function* (): Flow {
        yield turn("Arming.", { name: "Bash", input: { command: "sleep 30", description: "wait", run_in_background: true, timeout: 5000 } });
        yield turn("Waiting.");
        yield turn("Woken.");
      }),
    );
    t.diagnostic(JSON.stringify({ code: s.run.code, ms: s.run.ms, tl: timeline(s), result: s.run.json?.result }));
  });

  // Slow (over two minutes): DO_E2E_WAKE_LONG=1.
  it("a background Bash without a timeout past the Bash tool's default 2 minutes", { timeout: 300_000, skip: !process.env.DO_E2E_WAKE_LONG }, async (t) => {
    const s = await run(
      project(),
      flowScript(function* (): Flow {
        yield turn("Arming.", bg("sleep 135"));
        yield turn("Waiting.");
        yield turn("Woken.");
      }),
    );
    t.diagnostic(JSON.stringify({ code: s.run.code, ms: s.run.ms, tl: timeline(s), result: s.run.json?.result }));
  });
});
void BEHAVIOUR;
