// What wakes an idle lead in print mode (issue 29), measured on the real CLI with no plugin: the lead ends its turn
// with background work out and the stub records when (and whether) the CLI asks the model again. KNOWN_WAKE holds
// what 2.1.197 and 2.1.332 do; the tests assert it for those releases and only report (t.diagnostic) for others.
// The plugin's wake-up (`plan.js watch`, started with run_in_background) is built on these rows: see
// test/e2e/README.md, "What wakes an idle lead".
import { after, before, describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { CLAUDE_CODE_VERSION, ensureClaude } from "./lib/claude.ts";
import { agent, flowScript, loadTools, notifications, turn, type Flow } from "./lib/lead.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { session, type Session } from "./lib/session.ts";
import { userText, type ToolCall } from "./lib/stub.ts";

/**
 * Per release. `bashAloneOutlivesCeiling`: a background Bash with no agent out outlives the idle ceiling and its exit
 * starts a turn (2.1.197 ends the session a few seconds after the turn instead). `bashHoldsCeiling`: while a
 * background Bash runs, the ceiling does not stop a hung agent (2.1.197 stops both at the ceiling).
 * `bashTimeoutWakes`: a background Bash stopped at its own `timeout` starts a turn ("killed").
 */
const KNOWN_WAKE: Record<string, { bashAloneOutlivesCeiling: boolean; bashHoldsCeiling: boolean; bashTimeoutWakes: boolean }> = {
  "2.1.197": { bashAloneOutlivesCeiling: false, bashHoldsCeiling: false, bashTimeoutWakes: false },
  "2.1.332": { bashAloneOutlivesCeiling: true, bashHoldsCeiling: true, bashTimeoutWakes: true },
};
const KNOWN = KNOWN_WAKE[CLAUDE_CODE_VERSION];

/** Assert a measured row for a known release; report it for any other. */
function known(t: TestContext, row: keyof (typeof KNOWN_WAKE)[string], seen: boolean, detail: unknown): void {
  t.diagnostic(`${row}: ${seen} ${JSON.stringify(detail)}`);
  if (KNOWN) assert.equal(seen, KNOWN[row], `${row} on ${CLAUDE_CODE_VERSION}: ${JSON.stringify(detail)}`);
}

const bg = (command: string, timeout?: number): ToolCall => ({ name: "Bash", input: { command, description: "wait in the background", run_in_background: true, ...(timeout ? { timeout } : {}) } });
const hung = () => [{ text: "Still thinking.", delayMs: 120_000 }];

/** The statuses of the background notifications the lead's requests carried, in order. */
const woken = (s: Session) => notifications(s.main[s.main.length - 1]?.body).map((n) => n.status);
/** Milliseconds from the session's first request. */
const since = (s: Session, at: number | undefined) => (at === undefined ? null : at - s.main[0].at);

describe(`what wakes an idle lead in claude -p (${CLAUDE_CODE_VERSION})`, { concurrency: 1 }, () => {
  const projects: Sample[] = [];
  before(() => ensureClaude());
  after(() => cleanup(...projects.map((p) => p.dir)));
  const project = () => {
    const p = sampleProject("do-e2e-wake-");
    projects.push(p);
    return p;
  };
  const run = (script: ReturnType<typeof flowScript>, env: Record<string, string> = {}, agents?: (b: string) => any) =>
    session({ prompt: "wake probe", cwd: project().dir, pluginDir: null, script, agents, env, args: ["--allowedTools", "Bash"], timeoutMs: 250_000, label: "wake" });

  it("a background Bash that exits starts a turn of the idle lead, and the lead reads what it printed unasked", { timeout: 200_000 }, async (t) => {
    let read: any;
    const s = await run(
      flowScript(function* (): Flow {
        yield turn("Arming the wake-up.", bg(`sleep 3; echo '{"wake":"probe"}'`));
        const woke = yield turn("Waiting.");
        const file = /<output-file>([^<]+)<\/output-file>/.exec(userText(woke.body))?.[1] ?? "";
        read = (yield turn("Reading its output.", { name: "Read", input: { file_path: file } })).results[0];
        yield turn("Woken; done.");
      }),
    );
    t.diagnostic(`woken at ${since(s, s.main[2]?.at)} ms`);
    assert.deepEqual(woken(s), ["completed"]);
    assert.equal(s.run.json?.result, "Woken; done.");
    // The notification names the output file; the output is not in it. Read takes it without asking.
    assert.equal(read?.isError, false, read?.text);
    assert.match(read?.text ?? "", /\{"wake":"probe"\}/);
    assert.deepEqual(s.denials, []);
  });

  it("past the idle ceiling, with no agent out, a background Bash", { timeout: 200_000 }, async (t) => {
    const s = await run(
      flowScript(function* (): Flow {
        yield turn("Arming a long wake-up.", bg("sleep 15"));
        yield turn("Waiting.");
        yield turn("Woken; done.");
      }),
      { CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS: "5000" },
    );
    known(t, "bashAloneOutlivesCeiling", woken(s).includes("completed"), { ms: s.run.ms, result: s.run.json?.result });
  });

  it("a hung agent while a background Bash runs, past the idle ceiling", { timeout: 200_000 }, async (t) => {
    const s = await run(
      flowScript(function* (): Flow {
        yield turn("Spawning and arming.", agent("hangs", "sleeper", "haiku", "Agent: sleeper\nThink forever."), bg("sleep 16"));
        yield turn("Waiting.");
        yield turn("Woken; done.");
      }),
      { CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS: "6000" },
      hung,
    );
    const stopped = since(s, s.agents[0]?.abortedAt);
    const lastTurn = since(s, s.main[s.main.length - 1].at);
    const held = woken(s).includes("completed") && stopped !== null && lastTurn !== null && stopped > lastTurn;
    known(t, "bashHoldsCeiling", held, { stopped, lastTurn, stderr: s.run.stderr.trim() });
    // Either way the CLI says why it stopped the agent: the idle ceiling.
    assert.match(s.run.stderr, /Background tasks still running .*CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS=0/);
  });

  it("re-arming a short background Bash each time it wakes the lead keeps the session and a hung agent alive past several ceilings", { timeout: 200_000 }, async (t) => {
    let stopAt = 0;
    let stop: any;
    const s = await run(
      flowScript(function* (_f, latest): Flow {
        const ctx = yield turn("Spawning and arming.", agent("hangs", "sleeper", "haiku", "Agent: sleeper\nThink forever."), bg("sleep 4"));
        const taskId = /agentId:\s*([\w-]+)/.exec(ctx.results[0]?.text ?? "")?.[1] ?? "sleeper";
        for (let i = 0; i < 4; i++) {
          yield turn("Waiting.");
          yield turn("Nothing needs me yet: re-arming.", bg("sleep 4"));
        }
        yield turn("Waiting.");
        yield* loadTools(latest(), ["TaskStop"]);
        stopAt = Date.now();
        stop = (yield turn("Stopping the agent.", { name: "TaskStop", input: { task_id: taskId } })).results[0];
        yield turn("Done.");
      }),
      { CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS: "6000" },
      hung,
    );
    const stopped = s.agents[0]?.abortedAt ?? 0;
    t.diagnostic(`session ${s.run.ms} ms, the agent stopped at ${since(s, stopped)} ms (by TaskStop at ${since(s, stopAt)} ms)`);
    assert.equal(woken(s).filter((x) => x === "completed").length, 5, "each re-armed Bash woke the lead");
    assert.ok(stopAt > 0 && stopped >= stopAt, "the hung agent lived until the lead stopped it");
    assert.match(stop?.text ?? "", /stopped/i);
    assert.ok(s.run.ms > 3 * 6000, "the session outlived three ceilings");
  });

  it("a background Bash that exits while the lead works starts no extra turn, nor does one the lead stops", { timeout: 200_000 }, async () => {
    let stop: any;
    const s = await run(
      flowScript(function* (_f, latest): Flow {
        const ctx = yield turn("Arming two.", bg("sleep 1"), bg("sleep 60"));
        const id = /ID:\s*(\w+)/.exec(ctx.results[1]?.text ?? "")?.[1] ?? "";
        yield turn("Working in the foreground.", { name: "Bash", input: { command: "sleep 4", description: "work" } });
        yield* loadTools(latest(), ["TaskStop"]);
        stop = (yield turn("Stopping the long one.", { name: "TaskStop", input: { task_id: id } })).results[0];
        yield turn("Ending my turn.");
        yield turn("Woken again: an extra turn.");
      }),
    );
    assert.match(stop?.text ?? "", /stopped/i);
    assert.equal(s.run.json?.result, "Ending my turn.", "no turn after the lead ended its own");
  });

  it("a background Bash stopped at its own timeout", { timeout: 200_000 }, async (t) => {
    const s = await run(
      flowScript(function* (): Flow {
        yield turn("Arming.", bg("sleep 30", 4000));
        yield turn("Waiting.");
        yield turn("Woken.");
      }),
    );
    known(t, "bashTimeoutWakes", woken(s).includes("killed"), { ms: s.run.ms, result: s.run.json?.result });
  });
});
