// Where the plugin's permission hook can live, proved on the real CLI (run with DO_E2E_CLAUDE_VERSION=2.1.197 and
// 2.1.330) with a throwaway plugin whose hook logs every event it sees and approves the probe commands:
// - a `hooks:` PreToolUse entry in SKILL.md frontmatter runs for the lead's calls in the invoking turn AND after the
//   lead ended its turn to wait for an agent; its command gets the skill's own argument, `${CLAUDE_PLUGIN_ROOT}`
//   substituted, `${CLAUDE_SKILL_DIR}` replaced by an empty string;
// - it does NOT run for the skill's subagents' calls: a background agent's call that needs approval is refused;
// - a session that never invokes the skill runs no hook at all;
// - the plugin-wide hook (hooks/hooks.json) does run for subagents' calls;
// - its input tells a subagent's call by an opaque agent_id only; the agent's name is in the CLI's sidecar file.
// The skills' agents write their reports under .design/ with the Write tool, so the plugin keeps its hook global.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureClaude, PLUGIN_DIR, scratchHome } from "./lib/claude.ts";
import { agent, bash, DENIAL, flowScript, turn, waitFor } from "./lib/lead.ts";
import { sampleProject, cleanup, type Sample } from "./lib/project.ts";
import { session } from "./lib/session.ts";
import type { ToolResult } from "./lib/stub.ts";

const LOGGER = `// Appends what the hook saw, approves Bash commands that contain "approve-me".
const fs = require("fs");
let raw = "";
process.stdin.on("data", (c) => (raw += c));
// The CLI's sidecar file of a subagent, as the hook finds it while the call waits (null for the lead or none).
function readMeta(ev) {
  if (!ev.agent_id || typeof ev.transcript_path !== "string") return null;
  try {
    return JSON.parse(fs.readFileSync(ev.transcript_path.replace(/\\.jsonl$/, "") + "/subagents/agent-" + ev.agent_id + ".meta.json", "utf8"));
  } catch (e) {
    return { error: String(e) };
  }
}
process.stdin.on("end", () => {
  const ev = JSON.parse(raw);
  fs.appendFileSync(process.env.HOOK_LOG || require("path").join(__dirname, "hook-log.jsonl"), JSON.stringify({ argv: process.argv.slice(2), pluginRootEnv: process.env.CLAUDE_PLUGIN_ROOT ?? null, tool: ev.tool_name, command: ev.tool_input && ev.tool_input.command, agent: ev.agent_id ?? null, cwd: ev.cwd, event: { ...ev, tool_input: undefined }, meta: readMeta(ev) }) + "\\n");
  if (ev.tool_name === "Bash" && String(ev.tool_input.command).includes("approve-me")) {
    process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "probe" } }));
  }
});
`;

function probePlugin(global = false): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "do-e2e-hookprobe-")));
  mkdirSync(join(dir, ".claude-plugin"), { recursive: true });
  writeFileSync(join(dir, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "probe", version: "0.0.1", description: "hook scope probe" }) + "\n");
  writeFileSync(join(dir, "log.js"), LOGGER);
  mkdirSync(join(dir, "skills", "scoped"), { recursive: true });
  const hook = 'node "${CLAUDE_PLUGIN_ROOT}/log.js" scoped "${CLAUDE_SKILL_DIR}"';
  if (global) {
    mkdirSync(join(dir, "hooks"), { recursive: true });
    const entry = { matcher: "Bash|Write|Edit|Read", hooks: [{ type: "command", command: hook.replace(" scoped ", " global ") }] };
    writeFileSync(join(dir, "hooks", "hooks.json"), JSON.stringify({ hooks: { PreToolUse: [entry] } }, null, 2) + "\n");
  }
  writeFileSync(
    join(dir, "skills", "scoped", "SKILL.md"),
    [
      "---",
      "name: scoped",
      "description: Use when probing skill-scoped hooks.",
      "allowed-tools: Read",
      ...(global ? [] : ["hooks:", "  PreToolUse:", '    - matcher: "Bash|Write|Edit|Read"', "      hooks:", "        - type: command", `          command: ${hook}`]),
      "---",
      "",
      "# Scoped",
      "",
      "Probe the hook.",
      "",
    ].join("\n"),
  );
  return dir;
}

interface Logged {
  argv: string[];
  pluginRootEnv: string | null;
  tool: string;
  command?: string;
  agent: string | null;
  /** The whole hook input but tool_input. */
  event: Record<string, unknown>;
  /** A subagent's `subagents/agent-<id>.meta.json`, read while the hook ran. */
  meta: unknown;
}

function log(dir: string): Logged[] {
  const f = join(dir, "hook-log.jsonl");
  return existsSync(f) ? readFileSync(f, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
}

// `touch` is not a read-only command: without a hook's allow it needs approval, which -p refuses.
const approved = (r: ToolResult | undefined) => !!r && !r.isError && !DENIAL.test(r.text);
const probe = (tag: string) => `touch .probe-approve-me-${tag}`;

describe("a skill-scoped PreToolUse hook on the real CLI", { concurrency: 1 }, () => {
  let project: Sample;
  let plugin: string;
  let globalPlugin: string;
  before(() => {
    ensureClaude();
    project = sampleProject();
    plugin = probePlugin();
    globalPlugin = probePlugin(true);
  });
  after(() => cleanup(project?.dir, plugin, globalPlugin));

  async function leadAgentLead(plugin: string) {
    rmSync(join(plugin, "hook-log.jsonl"), { force: true });
    let first: ToolResult | undefined;
    let later: ToolResult | undefined;
    let agentResult: ToolResult | undefined;
    const s = await session({
      prompt: "/probe:scoped go",
      cwd: project.dir,
      pluginDir: plugin,
      maxTurns: 10,
      agents: () =>
        flowScript(function* () {
          agentResult = (yield turn("Probing.", bash(probe("agent"), "probe"))).results[0];
          yield turn("Agent done.");
        }),
      script: flowScript(function* (_first, latest) {
        first = (yield turn("First.", bash(probe("first"), "probe"))).results[0];
        const spawned = yield turn("Spawning.", agent("probe", "probe", "haiku", "Agent: probe\nRun one command."));
        yield* waitFor(latest(), [spawned.results[0].id], "Waiting.");
        later = (yield turn("After the wait.", bash(probe("later"), "probe"))).results[0];
        yield turn("Done.");
      }),
    });
    const seen = log(plugin);
    return { s, first, later, agentResult, seen, byCommand: (c: string) => seen.filter((e) => e.command === c) };
  }

  it("skill-scoped: runs for the lead before and after it waits for an agent, not for the agent", { timeout: 180_000 }, async () => {
    const { first, later, agentResult, byCommand } = await leadAgentLead(plugin);
    assert.ok(approved(first), `first call not approved: ${first?.text}`);
    assert.equal(byCommand(probe("first")).length, 1);
    // The skill's own argument arrives; ${CLAUDE_SKILL_DIR} is not substituted in a hook command (it comes out
    // empty on 2.1.197 and 2.1.330), ${CLAUDE_PLUGIN_ROOT} is (the log went to the plugin's folder).
    assert.equal(byCommand(probe("first"))[0].argv[0], "scoped");
    assert.equal(byCommand(probe("first"))[0].argv[1], "");
    assert.equal(byCommand(probe("later")).length, 1, "the hook did not run after the lead waited");
    assert.ok(approved(later), `later call not approved: ${later?.text}`);
    // What keeps the hook global: the agent's call never reaches the skill's hook and is refused.
    assert.equal(byCommand(probe("agent")).length, 0, "the skill's hook saw the agent's call: skill-scoped hooks may now cover agents");
    assert.ok(!approved(agentResult), "the agent's call was approved without a hook");
  });

  it("plugin-wide: runs for the lead and for the skill's agent", { timeout: 180_000 }, async () => {
    const { first, later, agentResult, byCommand } = await leadAgentLead(globalPlugin);
    assert.ok(approved(first) && approved(later), `${first?.text} / ${later?.text}`);
    assert.equal(byCommand(probe("agent")).length, 1, "the plugin-wide hook did not see the agent's call");
    assert.equal(byCommand(probe("agent"))[0].argv[0], "global");
    assert.ok(approved(agentResult), `agent call not approved: ${agentResult?.text}`);
  });

  // How the plugin's hook binds a worker's calls to its role (src/hooks/permit.ts callerOf): the event names no agent.
  // A subagent's call carries an opaque `agent_id`, `agent_type` "general-purpose" (the Agent tool's type, not the
  // `name` the lead gave) and the lead's session transcript; the name is only in the CLI's own sidecar file
  // `<transcript without .jsonl>/subagents/agent-<agent_id>.meta.json` (undocumented, outside the project), which
  // already exists while the hook runs. A change to any of these shows up here first.
  it("plugin-wide: the hook input tells agents apart by an opaque id only, not by the name the lead gave", { timeout: 180_000 }, async () => {
    rmSync(join(globalPlugin, "hook-log.jsonl"), { force: true });
    const home = scratchHome();
    const names = ["schema-designer", "api-developer"];
    try {
      await session({
        prompt: "/probe:scoped go",
        cwd: project.dir,
        pluginDir: globalPlugin,
        home,
        maxTurns: 10,
        agents: (brief) =>
          flowScript(function* () {
            const who = /^Agent: (\S+)/m.exec(brief)?.[1] ?? "unknown";
            yield turn("Probing.", bash(probe(who), "probe"));
            yield turn("Agent done.");
          }),
        script: flowScript(function* (_first, latest) {
          yield turn("First.", bash(probe("lead"), "probe"));
          const spawned = yield turn("Spawning.", ...names.map((n) => agent(`work on ${n}`, n, "haiku", `Agent: ${n}\nRun one command.`)));
          yield* waitFor(latest(), spawned.results.map((r) => r.id), "Waiting.");
          yield turn("Done.");
        }),
      });
      const seen = log(globalPlugin);
      const eventOf = (who: string) => {
        const e = seen.filter((x) => x.command === probe(who));
        assert.equal(e.length, 1, `${who}: the hook saw ${e.length} calls`);
        return e[0].event as Record<string, unknown>;
      };
      const lead = eventOf("lead");
      assert.equal(lead.agent_id, undefined, "the lead's call carries an agent_id");
      assert.equal(lead.agent_type, undefined, "the lead's call carries an agent_type");
      const ids = names.map((name) => {
        const ev = eventOf(name);
        assert.match(String(ev.agent_id), /^[0-9a-z]{8,}$/, `${name}: agent_id ${ev.agent_id}`);
        assert.equal(ev.agent_type, "general-purpose", `${name}: agent_type now says more than the tool's type`);
        assert.equal(ev.transcript_path, lead.transcript_path, `${name}: the transcript is no longer the session's`);
        assert.equal(ev.session_id, lead.session_id);
        for (const other of names) assert.ok(!JSON.stringify(ev).includes(other), `${name}: the hook input now names an agent (${other}): ${JSON.stringify(ev)}`);
        // Only the CLI's sidecar file knows which id is which name, and it is there while the hook runs: what the
        // plugin's hook reads to bind a worker's calls to its role (src/hooks/permit.ts callerOf).
        const meta = seen.find((x) => x.command === probe(name))!.meta as any;
        assert.equal(meta?.name, name, `${name}: the sidecar while the hook ran: ${JSON.stringify(meta)}`);
        assert.equal(meta.description, `work on ${name}`);
        return ev.agent_id;
      });
      assert.notEqual(ids[0], ids[1]);
    } finally {
      if (!process.env.DO_E2E_KEEP) rmSync(home, { recursive: true, force: true });
    }
  });

  // The plugin's own hook on what the above measures: a helper call is approved for the lead only (an agent's call
  // carries an agent_id), and an agent the lead starts without a `name` has none in its sidecar, so the grant gives
  // it nothing (src/hooks/permit.ts grantShare). Agents started after the invoking turn ended: in that turn the
  // skill's allowed-tools would cover them too.
  it("the plugin's hook: helper calls for the lead only, and an agent started without a name has none in its sidecar", { timeout: 180_000 }, async () => {
    const home = scratchHome();
    const helperCall = `node "${PLUGIN_DIR}/skills/execute/scripts/plan.js" preflight execute`;
    const results: Record<string, ToolResult | undefined> = {};
    try {
      await session({
        prompt: "/do:execute",
        cwd: project.dir,
        home,
        maxTurns: 14,
        agents: (brief) =>
          flowScript(function* () {
            const who = /^Agent: (\S+)/m.exec(brief)?.[1] ?? "unknown";
            results[who] = (yield turn("Running the helper.", bash(helperCall, "do helper: preflight"))).results[0];
            yield turn("Agent done.");
          }),
        script: flowScript(function* (_first, latest) {
          const first = yield turn("Waiting for a first agent.", agent("first", "first", "haiku", "Agent: first\nRun one command."));
          yield* waitFor(latest(), [first.results[0].id], "Waiting.");
          // The invoking turn is over: only the plugin's hook approves anything now.
          const spawned = yield turn(
            "Spawning two more.",
            agent("named probe", "scout", "haiku", "Agent: named\nRun one command."),
            { name: "Agent", input: { description: "unnamed probe", prompt: "Agent: unnamed\nRun one command.", run_in_background: true } },
          );
          yield* waitFor(latest(), spawned.results.map((r) => r.id), "Waiting.");
          results.lead = (yield turn("The lead's own call.", bash(helperCall, "do helper: preflight"))).results[0];
          yield turn("Done.");
        }),
      });
      assert.ok(results.lead && !DENIAL.test(results.lead.text), `the lead's helper call after the wait: ${results.lead?.text}`);
      for (const who of ["named", "unnamed"]) assert.match(results[who]?.text ?? "", DENIAL, `${who} agent's helper call ran: ${results[who]?.text}`);
      // The sidecars the CLI wrote for this session: the unnamed agent's has no name.
      const metas = readdirSync(join(home, ".claude", "projects"), { recursive: true, encoding: "utf8" })
        .filter((f) => /subagents\/agent-[^/]+\.meta\.json$/.test(f))
        .map((f) => JSON.parse(readFileSync(join(home, ".claude", "projects", f), "utf8")));
      const unnamed = metas.filter((m) => m.description === "unnamed probe");
      assert.equal(unnamed.length, 1, JSON.stringify(metas));
      assert.equal(unnamed[0].name, undefined, `the CLI now names an agent started without a name: ${JSON.stringify(unnamed[0])}`);
      assert.equal(metas.find((m) => m.description === "named probe")?.name, "scout", JSON.stringify(metas));
    } finally {
      if (!process.env.DO_E2E_KEEP) rmSync(home, { recursive: true, force: true });
    }
  });

  it("runs no hook in a session that never invokes the skill", { timeout: 120_000 }, async () => {
    rmSync(join(plugin, "hook-log.jsonl"), { force: true });
    let r: ToolResult | undefined;
    await session({
      prompt: "hello",
      cwd: project.dir,
      pluginDir: plugin,
      maxTurns: 3,
      script: flowScript(function* () {
        r = (yield turn("Trying.", bash(probe("unscoped"), "probe"))).results[0];
        yield turn("Done.");
      }),
    });
    assert.deepEqual(log(plugin), []);
    assert.ok(!approved(r), "approved without any hook");
  });
});
