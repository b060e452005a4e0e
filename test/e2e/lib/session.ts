// One `claude -p` session against its own stub: the scripted lead plays the model, the CLI runs for real.
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PLUGIN_DIR, runClaude, scratchHome, type Cli, type RunResult } from "./claude.ts";
import { startStub, userText, type Recorded, type Script, type StubOptions } from "./stub.ts";
import { tally, tallyLine, type Tally } from "./tally.ts";

export interface SessionOptions {
  prompt: string;
  cwd: string;
  /** --plugin-dir; omit to use what the HOME has installed. */
  pluginDir?: string | null;
  home?: string;
  script?: Script;
  /** Scripts of subagent conversations, chosen by their brief. */
  agents?: StubOptions["agents"];
  maxTurns?: number;
  timeoutMs?: number;
  args?: string[];
  /** Extra environment variables of the CLI run (e.g. CLAUDE_CONFIG_DIR). */
  env?: Record<string, string>;
  /** Gets a function that kills the CLI at once (an interruption), e.g. from inside the lead's script. */
  onStart?: (kill: () => void) => void;
  /** The CLI to run (default: the one the suite installed). */
  cli?: Cli;
  /** The name of the run in its `# tally` line (default: the skill or command the prompt invokes). */
  label?: string;
}

export interface Session {
  run: RunResult;
  requests: Recorded[];
  main: Recorded[];
  /** Requests of subagent conversations. */
  agents: Recorded[];
  /** The text of the first main request's user messages: where a skill's body lands. */
  received: string;
  denials: any[];
  scriptErrors: string[];
  escapes: string[];
  /** What the run cost the lead: helper calls, turns, tokens (lib/tally.ts). */
  tally: Tally;
}

/** How often each skill or command ran in this test process: names its `# tally` lines. */
const runs = new Map<string, number>();

export async function session(o: SessionOptions): Promise<Session> {
  const stub = await startStub(o.script ?? [], { agents: o.agents });
  const home = o.home ?? scratchHome();
  try {
    const pluginDir = o.pluginDir === undefined ? PLUGIN_DIR : o.pluginDir;
    const args = ["-p", o.prompt, "--output-format", "json", "--max-turns", String(o.maxTurns ?? 60)];
    if (pluginDir) args.push("--plugin-dir", pluginDir);
    args.push(...(o.args ?? []));
    const run = await runClaude(args, { cwd: o.cwd, home, stubUrl: stub.url, timeoutMs: o.timeoutMs ?? 90_000, env: o.env, onStart: o.onStart, cli: o.cli });
    const main = stub.main();
    if (process.env.DO_E2E_TRACE) trace(process.env.DO_E2E_TRACE, o.prompt, stub.requests, run);
    const counted = tally(stub.requests, o.prompt, pluginDir);
    // Every /do: run says what it cost, next to the test results (issue 24's per-skill numbers); a skill's second run
    // in this test file is `<skill>#2`.
    if (counted.skill) {
      const nth = (runs.get(counted.skill) ?? 0) + 1;
      runs.set(counted.skill, nth);
      process.stderr.write(`${tallyLine(counted, o.label ?? (nth > 1 ? `${counted.skill}#${nth}` : counted.skill))}\n`);
    }
    return {
      run,
      requests: stub.requests,
      main,
      agents: stub.requests.filter((r) => r.kind === "agent"),
      received: main[0] ? userText(main[0].body) : "",
      denials: run.json?.permission_denials ?? [],
      scriptErrors: stub.scriptErrors,
      escapes: stub.escapes,
      tally: counted,
    };
  } finally {
    await stub.close();
    if (!o.home && !process.env.DO_E2E_KEEP) rmSync(home, { recursive: true, force: true });
  }
}

/** The session ran to the end on its own: no hang, no error, no approval asked, no script failure, no escape. */
export function assertClean(s: Session): void {
  const tail = `\nstderr: ${s.run.stderr.slice(-2000)}\nstdout: ${s.run.stdout.slice(-2000)}`;
  assert.equal(s.run.timedOut, false, `the CLI hung (killed after ${s.run.ms} ms)${tail}`);
  assert.deepEqual(s.scriptErrors, [], `the scripted lead failed${tail}`);
  assert.deepEqual(s.denials, [], "a tool call would have needed the user's approval");
  assert.deepEqual(s.escapes, [], "the CLI tried to reach a host other than the stub");
  assert.equal(s.run.code, 0, `claude exited ${s.run.code}${tail}`);
  assert.ok(s.run.json, `no JSON result on stdout${tail}`);
  assert.equal(s.run.json.is_error, false, `the result is an error${tail}`);
  assert.ok(s.main.length > 0, "the model was never asked");
}

/** DO_E2E_TRACE=<dir>: one line per request of every session (who asked, what it got), for reading a failed flow. */
function trace(dir: string, prompt: string, requests: Recorded[], run: RunResult): void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "sessions.jsonl");
  const lastMain = requests.filter((r) => r.kind === "main").pop();
  if (lastMain) appendFileSync(join(dir, "last-main.jsonl"), JSON.stringify({ prompt, messages: lastMain.body?.messages }) + "\n");
  appendFileSync(file, JSON.stringify({ prompt, code: run.code, ms: run.ms, result: run.json?.result, stderr: run.stderr.slice(-500) }) + "\n");
  for (const r of requests) {
    const msgs = r.body?.messages ?? [];
    const last = msgs[msgs.length - 1];
    const lastText = JSON.stringify(last?.content ?? "").slice(0, 400);
    appendFileSync(
      file,
      JSON.stringify({ n: r.n, kind: r.kind, conv: r.conversation, turn: r.turn, url: r.url, last: lastText, answer: r.answer && { text: r.answer.text, tools: r.answer.tools?.map((t) => `${t.name} ${JSON.stringify(t.input).slice(0, 160)}`) } }) + "\n",
    );
  }
}
