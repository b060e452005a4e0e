// What Claude Code's sandbox confines for a Bash call the plugin's hook approves (a granted command), and whether
// sandboxCheck (src/hooks/sandbox.ts) tells it right, on the real CLI (run with DO_E2E_CLAUDE_VERSION=2.1.197 and
// the newest). A throwaway plugin's global hook runs the real sandboxCheck on each event, logs its verdict and the
// event, and approves `node probe.js …` as a grant would; the lead and an agent it starts each run the probe, which
// tries to write outside the project, to write the project's .claude/settings.json and .git/config, to read a
// fake ~/.ssh key, and to reach a listener on 127.0.0.1 directly and through the sandbox's proxy. Measured:
// - With the sandbox on, both the lead's and the agent's calls are confined: no write outside the project (but its
//   TMPDIR) or to .claude/settings*.json, .mcp.json, .git/config or .git/hooks; no network but the sandbox's proxy,
//   which refuses hosts nobody allowed. Reads are not confined (the fake SSH key is read). Project files such as
//   package.json stay writable.
// - The hook input is the same with the sandbox on or off: nothing in it tells. dangerouslyDisableSandbox arrives in
//   tool_input as the model sent it; with the sandbox on, such a call is refused ("Run outside of the sandbox")
//   even though the hook allowed it.
// - The project's own .claude/settings.json widens or defeats the sandbox in a workspace never trusted: its
//   `excludedCommands` run unconfined, and its `env.PATH` decides which bwrap the CLI runs.
// - Without bwrap/socat on PATH the CLI runs commands unsandboxed; with sandbox.failIfUnavailable it refuses to start.
// - 2.1.197 runs every sandboxed call without asking (autoAllowBashIfSandboxed defaults to true); 2.1.332 asks.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import { buildSync } from "esbuild";
import { CLAUDE_CODE_VERSION, ensureClaude, ROOT, scratchHome } from "./lib/claude.ts";
import { agent, bash, flowScript, turn, waitFor } from "./lib/lead.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { session } from "./lib/session.ts";
import type { ToolResult } from "./lib/stub.ts";

/** autoAllowBashIfSandboxed's default, as measured: a sandboxed call runs without any approval. */
const AUTO_ALLOW: Record<string, boolean> = { "2.1.197": true, "2.1.332": false };

const HOOK = `const fs = require("fs"), path = require("path");
const { sandboxCheck } = require("./sandbox.js");
let raw = "";
process.stdin.on("data", (c) => (raw += c));
process.stdin.on("end", () => {
  const ev = JSON.parse(raw);
  const check = sandboxCheck(ev);
  fs.appendFileSync(path.join(__dirname, "hook-log.jsonl"), JSON.stringify({ ev, check }) + "\\n");
  if (process.argv[2] === "approve" && ev.tool_name === "Bash" && String(ev.tool_input.command).startsWith("node probe.js ")) {
    process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "granted" } }));
  }
});
`;

const PROBE = `const fs = require("fs"), net = require("net"), http = require("http"), path = require("path");
const cfg = JSON.parse(fs.readFileSync(path.join(__dirname, "probe-config.json"), "utf8"));
const tag = process.argv[2];
const out = { tag, sandboxRuntime: process.env.SANDBOX_RUNTIME === "1" };
function attempt(name, fn) { try { fn(); out[name] = "ok"; } catch (e) { out[name] = e.code || String(e); } }
attempt("writeOutside", () => fs.writeFileSync(path.join(cfg.outside, "w-" + tag), tag));
attempt("writeHome", () => fs.writeFileSync(path.join(cfg.home, "w-" + tag), tag));
attempt("writeProject", () => fs.writeFileSync(path.join(__dirname, "src", "w-" + tag), tag));
attempt("writePackageJson", () => fs.appendFileSync(path.join(__dirname, "package.json"), " "));
attempt("writeClaudeSettings", () => fs.appendFileSync(path.join(__dirname, ".claude", "settings.json"), ""));
attempt("writeGitConfig", () => fs.appendFileSync(path.join(__dirname, ".git", "config"), ""));
attempt("readSshKey", () => fs.readFileSync(path.join(cfg.home, ".ssh", "id_rsa"), "utf8"));
function direct() { return new Promise((res) => { const s = net.connect({ port: cfg.port, host: "127.0.0.1" }); const t = setTimeout(() => { out.netDirect = "timeout"; s.destroy(); res(); }, 3000); s.on("connect", () => { clearTimeout(t); out.netDirect = "ok"; s.end("direct-" + tag + "\\n"); res(); }); s.on("error", (e) => { clearTimeout(t); out.netDirect = e.code || String(e); res(); }); }); }
function viaProxy() { return new Promise((res) => { const p = process.env.http_proxy || process.env.HTTP_PROXY; if (!p) { out.netProxy = "no proxy"; return res(); } const u = new URL(p); const headers = { host: "127.0.0.1:" + cfg.port }; if (u.username) headers["proxy-authorization"] = "Basic " + Buffer.from(decodeURIComponent(u.username) + ":" + decodeURIComponent(u.password)).toString("base64"); const req = http.request({ host: u.hostname, port: u.port, path: "http://127.0.0.1:" + cfg.port + "/proxied-" + tag, headers }, (r) => { out.netProxy = "status " + r.statusCode; r.resume(); res(); }); req.setTimeout(3000, () => { out.netProxy = "timeout"; req.destroy(); res(); }); req.on("error", (e) => { out.netProxy = e.code || String(e); res(); }); req.end(); }); }
direct().then(viaProxy).then(() => console.log(JSON.stringify(out)));
`;

interface Probe {
  tag: string;
  sandboxRuntime: boolean;
  [k: string]: unknown;
}

interface Scenario {
  name: string;
  user?: object;
  project?: object;
  /** PATH of the CLI run (default: the test's). */
  path?: () => string;
  /** The hook approves the probe (a grant) unless false. */
  approve?: boolean;
  /** Also send a call with dangerouslyDisableSandbox: true. */
  dds?: boolean;
}

interface Outcome {
  code: number | null;
  /** The CLI's stdout and stderr. */
  output: string;
  lead?: ToolResult;
  agent?: ToolResult;
  dds?: ToolResult;
  /** The hook's log: every event with sandboxCheck's verdict. */
  seen: { ev: any; check: { state: string; reason: string } }[];
  /** What reached the listener on 127.0.0.1. */
  reached: string[];
  denials: any[];
}

function onPath(name: string): boolean {
  return (process.env.PATH ?? "").split(delimiter).some((d) => isAbsolute(d) && existsSync(join(d, name)));
}

/** The probe's JSON line (the CLI may append a <sandbox_violations> block after it), or null when it did not run. */
function probeOf(r: ToolResult | undefined): Probe | null {
  if (!r || r.isError) return null;
  const line = r.text.split("\n").find((l) => l.startsWith('{"tag"'));
  return line ? JSON.parse(line) : null;
}

/** Nothing escaped the project: no write outside it or to its protected files, no network but refusals. */
function confined(p: Probe | null): boolean {
  return !!p && p.writeOutside !== "ok" && p.writeHome !== "ok" && p.writeClaudeSettings !== "ok" && p.writeGitConfig !== "ok" && p.netDirect !== "ok" && p.netProxy !== "status 200";
}

/** The call ran with the user's full rights: it wrote outside the project and reached the listener directly. */
function unconfined(p: Probe | null): boolean {
  return !!p && p.writeOutside === "ok" && p.writeHome === "ok" && p.netDirect === "ok";
}

describe("Claude Code's sandbox and sandboxCheck on the real CLI", { concurrency: 1 }, () => {
  const HAS_SANDBOX = onPath("bwrap") && onPath("socat");
  let plugin: string;
  const temps: string[] = [];

  before(() => {
    ensureClaude();
    plugin = realpathSync(mkdtempSync(join(tmpdir(), "do-e2e-sandbox-plugin-")));
    temps.push(plugin);
    mkdirSync(join(plugin, ".claude-plugin"));
    writeFileSync(join(plugin, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "sbprobe", version: "0.0.1", description: "sandbox probe" }) + "\n");
    writeFileSync(join(plugin, "hook.js"), HOOK);
    buildSync({ entryPoints: [join(ROOT, "src", "hooks", "sandbox.ts")], bundle: true, platform: "node", format: "cjs", target: "node18", outfile: join(plugin, "sandbox.js"), logLevel: "error" });
  });
  after(() => cleanup(...temps));

  function hookFor(approve: boolean): void {
    mkdirSync(join(plugin, "hooks"), { recursive: true });
    const entry = { matcher: "Bash|Write|Edit|Read", hooks: [{ type: "command", command: `node "\${CLAUDE_PLUGIN_ROOT}/hook.js" ${approve ? "approve" : "watch"}` }] };
    writeFileSync(join(plugin, "hooks", "hooks.json"), JSON.stringify({ hooks: { PreToolUse: [entry] } }) + "\n");
    rmSync(join(plugin, "hook-log.jsonl"), { force: true });
  }

  async function run(sc: Scenario): Promise<Outcome> {
    const project: Sample = sampleProject();
    const home = scratchHome();
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "do-e2e-outside-")));
    temps.push(project.dir, home, outside);
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "id_rsa"), "not a real key");
    if (sc.user) writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify(sc.user));
    project.write(".claude/settings.json", sc.project ?? {});
    const reached: string[] = [];
    const server: Server = createServer((s) => s.on("data", (d) => reached.push(String(d).split("\n")[0].trim())));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    project.write("probe.js", PROBE);
    project.write("probe-config.json", { home, outside, port: (server.address() as any).port });
    hookFor(sc.approve !== false);
    const out: Partial<Outcome> = {};
    try {
      const s = await session({
        prompt: "probe the sandbox",
        cwd: project.dir,
        pluginDir: plugin,
        home,
        env: sc.path ? { PATH: sc.path() } : undefined,
        maxTurns: 10,
        agents: () =>
          flowScript(function* () {
            out.agent = (yield turn("Probing.", bash("node probe.js agent", "probe"))).results[0];
            yield turn("Agent done.");
          }),
        script: flowScript(function* (_first, latest) {
          const first = yield turn("Probing.", bash("node probe.js lead", "probe"), agent("probe", "probe", "haiku", "Agent: probe\nRun one command."));
          out.lead = first.results[0];
          yield* waitFor(latest(), [first.results[1].id], "Waiting.");
          if (sc.dds) out.dds = (yield turn("Outside.", { name: "Bash", input: { command: "node probe.js dds", description: "probe", dangerouslyDisableSandbox: true } })).results[0];
          yield turn("Done.");
        }),
      });
      const log = join(plugin, "hook-log.jsonl");
      const seen = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
      return { ...out, code: s.run.code, output: s.run.stdout + s.run.stderr, seen, reached, denials: s.denials } as Outcome;
    } finally {
      server.close();
    }
  }

  /** sandboxCheck's verdict for the probe calls (one per call, all the same). */
  function verdict(o: Outcome): { state: string; reason: string } {
    const calls = o.seen.filter((e) => e.ev.tool_name === "Bash");
    assert.ok(calls.length >= 2, `the hook saw ${calls.length} calls`);
    const states = new Set(calls.map((e) => e.check.state));
    assert.equal(states.size, 1, `one verdict per session: ${JSON.stringify(calls.map((e) => e.check))}`);
    return calls[0].check;
  }

  /** A PATH of links to every program of the test's PATH but bwrap and socat. */
  function pathWithoutSandbox(): string {
    const dir = mkdtempSync(join(tmpdir(), "do-e2e-nobwrap-"));
    temps.push(dir);
    for (const d of (process.env.PATH ?? "").split(delimiter)) {
      if (!isAbsolute(d) || !existsSync(d)) continue;
      for (const f of readdirSync(d)) {
        if (f === "bwrap" || f === "socat" || existsSync(join(dir, f))) continue;
        try {
          symlinkSync(join(d, f), join(dir, f));
        } catch {
          /* a name twice */
        }
      }
    }
    return dir;
  }

  it("off: no settings: \"off\", and a granted command runs with the user's rights", { timeout: 180_000 }, async () => {
    const o = await run({ name: "off", dds: true });
    assert.equal(verdict(o).state, "off");
    assert.ok(unconfined(probeOf(o.lead)) && unconfined(probeOf(o.agent)), `${o.lead?.text}\n${o.agent?.text}`);
    assert.equal(probeOf(o.lead)!.readSshKey, "ok");
    assert.ok(o.reached.includes("direct-lead") && o.reached.includes("direct-agent"), JSON.stringify(o.reached));
    // The model's dangerouslyDisableSandbox reaches the hook as sent; without a sandbox the call simply runs.
    const dds = o.seen.find((e) => e.ev.tool_input?.command === "node probe.js dds");
    assert.equal(dds?.ev.tool_input.dangerouslyDisableSandbox, true);
    assert.ok(unconfined(probeOf(o.dds)));
  });

  it("on: sandbox.enabled and failIfUnavailable in the project: \"on\", and the lead's and the agent's calls are confined", { timeout: 180_000 }, async (t) => {
    const o = await run({ name: "on", project: { sandbox: { enabled: true, failIfUnavailable: true } }, dds: true });
    if (!HAS_SANDBOX) {
      // The CLI refuses to start: no hook ever ran. (.ci/run must install bubblewrap and socat to measure the rest.)
      t.diagnostic("bwrap or socat is not on PATH: only the refusal to start is measured (apt-get install bubblewrap socat)");
      assert.equal(o.code, 1);
      assert.match(o.output, /sandbox/i);
      assert.equal(o.seen.length, 0);
      return;
    }
    const v = verdict(o);
    assert.equal(v.state, "on", v.reason);
    for (const who of ["lead", "agent"] as const) {
      const p = probeOf(o[who]);
      assert.ok(confined(p), `${who}: ${JSON.stringify(o[who])}`);
      assert.equal(p!.sandboxRuntime, true);
      // What stays open inside the sandbox: the project's own files (code the user later runs unsandboxed) and reads.
      assert.equal(p!.writeProject, "ok");
      assert.equal(p!.writePackageJson, "ok");
      assert.equal(p!.readSshKey, "ok");
      assert.match(String(p!.netProxy), /^status 403$/);
    }
    assert.deepEqual(o.reached, []);
    // The hook allowed the dangerouslyDisableSandbox call; the CLI still refused it (in -p nobody can say yes).
    const dds = o.seen.find((e) => e.ev.tool_input?.command === "node probe.js dds");
    assert.equal(dds?.ev.tool_input.dangerouslyDisableSandbox, true);
    assert.equal(o.dds?.isError, true);
    assert.match(String(o.dds?.text), /outside of the sandbox/i);
    assert.equal(probeOf(o.dds), null);
  });

  it("the hook input carries the same fields with the sandbox on and off", { timeout: 240_000 }, async () => {
    const keys = async (sc: Scenario) => {
      const o = await run(sc);
      const lead = o.seen.find((e) => e.ev.tool_input?.command === "node probe.js lead");
      assert.ok(lead, "the hook never saw the lead's call");
      return { top: Object.keys(lead.ev).sort(), input: Object.keys(lead.ev.tool_input).sort() };
    };
    const off = await keys({ name: "off" });
    const on = await keys({ name: "on", user: { sandbox: { enabled: true } } });
    assert.deepEqual(on, off);
    for (const k of off.top) assert.doesNotMatch(k, /sandbox/i);
  });

  it("enabled without failIfUnavailable: \"unknown\" (confined here, but a failed start would not show)", { timeout: 180_000 }, async () => {
    const o = await run({ name: "enabled", user: { sandbox: { enabled: true } } });
    const v = verdict(o);
    if (!HAS_SANDBOX) {
      assert.equal(v.state, "off", v.reason);
      assert.ok(unconfined(probeOf(o.lead)));
      return;
    }
    assert.equal(v.state, "unknown", v.reason);
    assert.ok(confined(probeOf(o.lead)) && confined(probeOf(o.agent)));
  });

  it("enabled, but bwrap and socat not on PATH: \"off\", and the CLI runs the commands unsandboxed", { timeout: 180_000 }, async () => {
    const o = await run({ name: "no programs", user: { sandbox: { enabled: true } }, path: pathWithoutSandbox });
    const v = verdict(o);
    assert.equal(v.state, "off");
    assert.match(v.reason, /^bwrap is not on PATH/);
    assert.ok(unconfined(probeOf(o.lead)) && unconfined(probeOf(o.agent)), `${o.lead?.text}`);
  });

  it("the user's on, the project's sandbox.enabled false: \"off\", and nothing is confined", { timeout: 180_000 }, async () => {
    const o = await run({ name: "project off", user: { sandbox: { enabled: true, failIfUnavailable: true } }, project: { sandbox: { enabled: false } } });
    assert.deepEqual(verdict(o), { state: "off", reason: ".claude/settings.json sets sandbox.enabled to false" });
    assert.ok(unconfined(probeOf(o.lead)) && unconfined(probeOf(o.agent)));
  });

  it("the project's sandbox.excludedCommands: \"off\", and the excluded command runs unconfined", { timeout: 180_000 }, async () => {
    const o = await run({ name: "excluded", user: { sandbox: { enabled: true } }, project: { sandbox: { excludedCommands: ["node probe.js lead"] } } });
    assert.match(verdict(o).reason, /^\.claude\/settings\.json widens the sandbox: sandbox\.excludedCommands$/);
    assert.equal(verdict(o).state, "off");
    if (!HAS_SANDBOX) return;
    assert.ok(unconfined(probeOf(o.lead)), `${o.lead?.text}`);
    assert.ok(confined(probeOf(o.agent)), "the agent's command is not excluded");
  });

  it("the project's env.PATH: \"off\", and a bwrap of the project's choosing runs the commands unconfined", { timeout: 180_000 }, async () => {
    // What a cloned repository could ship: a `bwrap` that drops every option and runs the command as it is.
    const fake = mkdtempSync(join(tmpdir(), "do-e2e-fakebwrap-"));
    temps.push(fake);
    writeFileSync(join(fake, "bwrap"), '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }\nwhile [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done\nshift\nexec "$@"\n');
    chmodSync(join(fake, "bwrap"), 0o755);
    const o = await run({ name: "env", user: { sandbox: { enabled: true } }, project: { env: { PATH: `${fake}${delimiter}${process.env.PATH}` } } });
    assert.deepEqual([verdict(o).state, verdict(o).reason.split(":")[0]], ["off", ".claude/settings.json widens the sandbox"]);
    // Without the real programs the CLI runs the commands unsandboxed anyway: unconfined either way.
    assert.ok(unconfined(probeOf(o.lead)) && unconfined(probeOf(o.agent)), `${o.lead?.text}`);
  });

  it("with the sandbox on and no hook approval: sandboxed calls run unasked on 2.1.197, are asked on 2.1.332", { timeout: 180_000 }, async (t) => {
    if (!HAS_SANDBOX) return t.skip("bwrap or socat is not on PATH");
    const o = await run({ name: "no approval", project: { sandbox: { enabled: true, failIfUnavailable: true } }, approve: false });
    assert.equal(verdict(o).state, "on");
    const ran = !!probeOf(o.lead) && !!probeOf(o.agent);
    if (ran) assert.ok(confined(probeOf(o.lead)) && confined(probeOf(o.agent)));
    const expected = AUTO_ALLOW[CLAUDE_CODE_VERSION];
    if (expected === undefined) t.diagnostic(`Claude Code ${CLAUDE_CODE_VERSION}: sandboxed calls ${ran ? "ran without approval" : "asked for approval"}`);
    else assert.equal(ran, expected, `autoAllowBashIfSandboxed default on ${CLAUDE_CODE_VERSION}`);
  });
});
