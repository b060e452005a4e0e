// Without Node.js on PATH (Claude Code's native installer needs none), on the real CLI run as its native binary:
// - the plugin's PreToolUse hook stays silent on every Bash, Read, Write and Edit call: no "gave no usable answer"
//   notice (2.1.332) and no hook error in the transcript (2.1.197 records `hook_non_blocking_error`), where a copy
//   with the old hook command (`node ".../permit.js"`) shows both;
// - the SessionStart check says once what to install: to the user (systemMessage; in the terminal "SessionStart:
//   startup says: …", measured through tmux when it is installed) and to the model (additionalContext);
// - a /do: skill fails before the model is asked, with the CLI's "Shell command failed … node: command not found"
//   (the !-line runs in bash; no skill text can run first), after that message;
// - a node older than 18 gets the same: the message names its version, the hook is silent;
// - with node 18+ on PATH the check says nothing.
// Hook commands run as `/bin/sh -c <command>` on both releases (dash here): hooks.json relies on sh only.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { CLAUDE_CODE_VERSION, nativeClaude, offlineEnv, PLUGIN_DIR, scratchHome, type Cli } from "./lib/claude.ts";
import { bash, flowScript, read, turn, write } from "./lib/lead.ts";
import { cleanup, pluginCopy, sampleProject, type Sample } from "./lib/project.ts";
import { session, type Session } from "./lib/session.ts";
import { startStub } from "./lib/stub.ts";

const NODE_NAMES = ["node", "nodejs", "npm", "npx", "corepack"];

/** A PATH folder: links to every program of the machine's PATH but node and its tools, plus the given scripts. */
function pathWithoutNode(root: string, extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(root, "bin-"));
  const seen = new Set<string>();
  for (const d of (process.env.PATH ?? "/usr/bin:/bin").split(delimiter)) {
    if (!d || !existsSync(d)) continue;
    for (const name of readdirSync(d)) {
      if (seen.has(name) || NODE_NAMES.includes(name)) continue;
      seen.add(name);
      symlinkSync(join(d, name), join(dir, name));
    }
  }
  for (const [name, text] of Object.entries(extra)) {
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

/** A Node.js 16: prints its version, and fails on the plugin's bundles as an old node does on newer syntax. */
const NODE16 = `#!/bin/sh\nif [ "$1" = --version ]; then echo v16.20.2; exit 0; fi\necho "SyntaxError: Unexpected token '?'" >&2\nexit 1\n`;

/** Every JSON line of every transcript under the HOME (the session's and its agents'). */
function transcript(home: string): any[] {
  const out: any[] = [];
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".jsonl")) for (const l of readFileSync(p, "utf8").split("\n")) if (l.trim()) out.push(JSON.parse(l));
    }
  };
  walk(join(home, ".claude", "projects"));
  return out;
}

/** stream-json lines of a run. */
const streamLines = (s: Session) =>
  s.run.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));

/** What the CLI recorded or said about hooks: errors of a PreToolUse hook, the SessionStart messages. */
function hookTrace(s: Session, home: string) {
  const lines = transcript(home);
  const attachments = lines.map((l) => l.attachment).filter(Boolean);
  const stream = streamLines(s);
  return {
    preToolErrors: attachments.filter((a) => a.hookEvent === "PreToolUse" && /error|cancel/i.test(a.type)),
    noVerdict: stream.filter((l) => l.type === "system" && l.tag === "hook_no_verdict"),
    systemMessages: attachments.filter((a) => a.type === "hook_system_message" && a.hookEvent === "SessionStart").map((a) => String(a.content)),
    contexts: attachments.filter((a) => a.type === "hook_additional_context" && a.hookEvent === "SessionStart").flatMap((a) => a.content),
    startResponses: stream.filter((l) => l.subtype === "hook_response" && l.hook_event === "SessionStart"),
  };
}

/**
 * How the terminal shows a PreToolUse hook that failed: "PreToolUse:Read hook error" (2.1.197), "PreToolUse:Read
 * hook failed … Exit 127, likely a missing program" (2.1.332 on a Read), "gave no usable answer" (2.1.332's notice).
 */
const HOOK_NOTICE = /.*(?:gave no usable answer|PreToolUse:\w+ hook (?:error|failed)).*/i;

/** The first request to the model, as text. */
const firstRequest = (s: Session) => JSON.stringify(s.main[0]?.body ?? {});

/** A minimal copy of the plugin whose PreToolUse hook is the command it had before (node called bare). */
function oldHookCopy(): string {
  const dir = pluginCopy(PLUGIN_DIR, "do-e2e-oldhook-");
  const hooks = JSON.parse(readFileSync(join(PLUGIN_DIR, "hooks", "hooks.json"), "utf8"));
  hooks.hooks.PreToolUse[0].hooks[0].command = 'node "${CLAUDE_PLUGIN_ROOT}/dist/permit.js"';
  writeFileSync(join(dir, "hooks", "hooks.json"), JSON.stringify(hooks, null, 2));
  return dir;
}

describe(`without node on PATH (Claude Code ${CLAUDE_CODE_VERSION}, native binary)`, { concurrency: 1 }, () => {
  let root: string;
  let project: Sample;
  let cli: Cli;
  let noNode: string;
  let node16: string;
  /** HOMEs and plugin copies to remove at the end (kept with DO_E2E_KEEP). */
  const scratch: string[] = [];

  before(() => {
    cli = nativeClaude();
    root = realpathSync(mkdtempSync(join(tmpdir(), "do-e2e-nonode-")));
    project = sampleProject();
    noNode = pathWithoutNode(root);
    node16 = pathWithoutNode(root, { node: NODE16 });
    const which = spawnSync("/bin/sh", ["-c", "command -v node; command -v bash git"], { encoding: "utf8", env: { PATH: noNode } });
    assert.doesNotMatch(which.stdout, /\/node$/m, "node is still on the test PATH");
    assert.match(which.stdout, /bash/, "the test PATH keeps the machine's other programs");
  });
  const keep = (dir: string) => (scratch.push(dir), dir);
  after(() => cleanup(root, project?.dir, ...(process.env.DO_E2E_KEEP ? [] : scratch)));

  /** One -p session: the lead calls Bash, Read, Write and Edit once each (acceptEdits: nothing waits on approval). */
  async function toolSession(PATH: string, pluginDir = PLUGIN_DIR) {
    const home = scratchHome();
    scratch.push(home);
    const notes = project.path(`notes-${scratch.length}.txt`);
    const s = await session({
      prompt: "Look around and keep a note.",
      cwd: project.dir,
      home,
      cli,
      pluginDir,
      maxTurns: 6,
      env: { PATH },
      args: ["--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits"],
      script: flowScript(function* () {
        yield turn("Looking.", bash("ls src", "list"), read(project.path("README.md")), write(notes, "first\n"));
        yield turn("Editing.", { name: "Edit", input: { file_path: notes, old_string: "first", new_string: "second" } });
        yield turn("Done.");
      }),
    });
    return { s, home, notes };
  }

  it("the hook is silent on Bash, Read, Write and Edit, and the session start says what to install", { timeout: 180_000 }, async () => {
    const { s, home, notes } = await toolSession(noNode);
    assert.equal(s.run.code, 0, s.run.stderr);
    assert.deepEqual(s.scriptErrors, []);
    assert.equal(readFileSync(notes, "utf8"), "second\n", "the Write and the Edit ran");
    const t = hookTrace(s, home);
    assert.deepEqual(t.preToolErrors, [], "a PreToolUse hook error was recorded");
    assert.deepEqual(t.noVerdict, [], "the CLI said the hook gave no usable answer");
    // One message to the user, one note to the model, both naming what to install.
    assert.equal(t.systemMessages.length, 1, JSON.stringify(t.systemMessages));
    assert.match(t.systemMessages[0], /^The do plugin needs Node\.js 18\+ on PATH and found no node\. Install Node\.js 18 or newer/);
    assert.equal(t.contexts.length, 1);
    assert.match(t.contexts[0], /^The do plugin cannot run in this session/);
    assert.match(firstRequest(s), /SessionStart hook additional context: The do plugin cannot run in this session: it needs Node\.js 18\+ on PATH and found no node/);
    assert.equal(t.startResponses.length, 1);
    assert.equal(t.startResponses[0].exit_code, 0);
  });

  it("control: the old hook command (node called bare) is reported on every call", { timeout: 180_000 }, async (t) => {
    const { s, home } = await toolSession(noNode, keep(oldHookCopy()));
    const trace = hookTrace(s, home);
    const reported = trace.preToolErrors.length + trace.noVerdict.length;
    t.diagnostic(`old hook without node: ${trace.preToolErrors.length} hook errors in the transcript, ${trace.noVerdict.length} "no usable answer" notices`);
    assert.ok(reported >= 1, "the old hook command failed silently: this test would not see the defect");
    assert.ok(trace.preToolErrors.every((a) => /node: not found/.test(a.stderr ?? "")), JSON.stringify(trace.preToolErrors[0]));
  });

  it("a /do: skill stops before the model with the shell's word, after the session start named Node.js", { timeout: 120_000 }, async (t) => {
    const home = scratchHome();
    scratch.push(home);
    const s = await session({ prompt: "/do:design add due dates", cwd: project.dir, home, cli, maxTurns: 3, env: { PATH: noNode }, args: ["--output-format", "stream-json", "--verbose"] });
    assert.equal(s.main.length, 0, "the model was asked although the skill's !-line failed");
    const said = s.run.stdout;
    assert.match(said, /Shell command failed for pattern .*preflight design.*node: command not found/);
    const words = streamLines(s)
      .flatMap((l) => [l.result, typeof l.message?.content === "string" ? l.message.content : undefined])
      .find((x) => typeof x === "string" && x.includes("Shell command failed"));
    t.diagnostic(`the skill's failure as the CLI words it: ${JSON.stringify(words)}`);
    const trace = hookTrace(s, home);
    assert.equal(trace.systemMessages.length, 1);
    assert.match(trace.systemMessages[0], /needs Node\.js 18\+ on PATH and found no node/);
  });

  it("a node older than 18: the message names its version, the hook stays silent", { timeout: 180_000 }, async () => {
    const { s, home } = await toolSession(node16);
    const t = hookTrace(s, home);
    assert.deepEqual(t.preToolErrors, []);
    assert.deepEqual(t.noVerdict, []);
    assert.equal(t.systemMessages.length, 1);
    assert.match(t.systemMessages[0], /needs Node\.js 18\+ on PATH and found node v16\.20\.2\. Install/);
  });

  it("with node 18+ on PATH the session start says nothing", { timeout: 180_000 }, async () => {
    const { s, home } = await toolSession(process.env.PATH ?? "/usr/bin:/bin");
    const t = hookTrace(s, home);
    assert.deepEqual(t.preToolErrors, []);
    assert.deepEqual(t.systemMessages, []);
    assert.deepEqual(t.contexts, []);
    assert.equal(t.startResponses.length, 1);
    assert.equal(t.startResponses[0].stdout, "");
    assert.doesNotMatch(firstRequest(s), /do plugin cannot run/);
  });

  /**
   * An interactive session in tmux, as the user sees it: the screen at startup, after `/do:design …`, and after a
   * prompt whose answer is one Read. Null when tmux is not installed.
   */
  async function terminal(pluginDir: string): Promise<{ startup: string; skill: string; afterRead: string } | null> {
    if (spawnSync("tmux", ["-V"]).status !== 0) return null;
    const home = scratchHome();
    scratch.push(home);
    // What a returning user has: onboarding done, the project trusted, the API key (the stub's) accepted.
    writeFileSync(
      join(home, ".claude.json"),
      JSON.stringify({ hasCompletedOnboarding: true, theme: "dark", customApiKeyResponses: { approved: ["sk-fake"], rejected: [] }, projects: { [realpathSync(project.dir)]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } } }),
    );
    const stub = await startStub(
      flowScript(function* () {
        yield turn("Reading.", read(project.path("README.md")));
        yield turn("READ-DONE");
      }),
    );
    const name = `do-nonode-${process.pid}-${scratch.length}`;
    const env = offlineEnv(home, stub.url, { PATH: noNode, TERM: "xterm-256color" });
    const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    const screen = () => spawnSync("tmux", ["capture-pane", "-p", "-J", "-S", "-200", "-t", name], { encoding: "utf8" }).stdout ?? "";
    const waitFor = async (re: RegExp, what: string) => {
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        if (re.test(screen())) return screen();
        await new Promise((r) => setTimeout(r, 500));
      }
      throw new Error(`the screen never showed ${what}:\n${screen()}`);
    };
    const type = async (text: string) => {
      spawnSync("tmux", ["send-keys", "-t", name, "-l", text]);
      await new Promise((r) => setTimeout(r, 500));
      spawnSync("tmux", ["send-keys", "-t", name, "Enter"]);
    };
    try {
      const started = spawnSync("tmux", ["new-session", "-d", "-s", name, "-x", "220", "-y", "60", "-c", project.dir, "env", "-i", ...envArgs, cli.command, "--plugin-dir", pluginDir], { encoding: "utf8" });
      assert.equal(started.status, 0, started.stderr);
      const startup = await waitFor(/SessionStart:startup says:[\s\S]*restart Claude Code/, "the session start message");
      await type("/do:design add due dates");
      const skill = await waitFor(/node: command not found/, "the skill's failure");
      await type("read the readme");
      const afterRead = await waitFor(/READ-DONE/, "the lead's Read finishing");
      return { startup, skill, afterRead };
    } finally {
      spawnSync("tmux", ["kill-session", "-t", name]);
      await stub.close();
    }
  }

  it("in the terminal: the message at startup, then a skill's failure, and no hook notice on a Read", { timeout: 180_000 }, async (t) => {
    const seen = await terminal(PLUGIN_DIR);
    if (!seen) return t.skip("tmux is not installed: the interactive screen is not measured");
    t.diagnostic(`at startup: ${/SessionStart:startup says:.*/.exec(seen.startup)?.[0]}`);
    assert.match(seen.startup.replace(/\s+/g, " "), /SessionStart:startup says: The do plugin needs Node\.js 18\+ on PATH and found no node\. Install Node\.js 18 or newer/);
    t.diagnostic(`after /do:design: ${/Shell command failed.*|.*node: command not found.*/.exec(seen.skill)?.[0]?.trim()}`);
    assert.doesNotMatch(seen.afterRead, HOOK_NOTICE, "a notice about the do hook");
    assert.equal((seen.afterRead.match(/SessionStart:startup says/g) ?? []).length, 1, "one message");
  });

  it("control, in the terminal: the old hook command shows a notice on the same Read", { timeout: 180_000 }, async (t) => {
    const seen = await terminal(keep(oldHookCopy()));
    if (!seen) return t.skip("tmux is not installed: the interactive screen is not measured");
    t.diagnostic(`old hook on a Read: ${HOOK_NOTICE.exec(seen.afterRead)?.[0]}`);
    assert.match(seen.afterRead, HOOK_NOTICE);
  });
});
