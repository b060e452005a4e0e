// What each command's allowed-tools let through in the turn it is invoked, proved on the real CLI (run with
// DO_E2E_CLAUDE_VERSION=2.1.197 and the newest). A command's turn shows text from .design/ (the plan, memories,
// reflections) that a cloned repository or an earlier run can fill, so its rules are exact: one
// `Bash(node "${CLAUDE_PLUGIN_ROOT}/dist/plan.js" <its arguments>)` per helper call it makes. Measured on both
// releases: ${CLAUDE_PLUGIN_ROOT} is substituted in a command's allowed-tools (else its !-line would be refused and
// the command dropped); an exact rule approves that command line and nothing else: not other arguments, not
// `node -e`, another script, node options, an environment prefix, a chain, a pipe or a redirection.
// `Bash(node:*)`, the rule the commands had, runs `node -e`.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ensureClaude, PLUGIN_DIR } from "./lib/claude.ts";
import { bash, DENIAL, done, flowScript, helperJson, turn, write } from "./lib/lead.ts";
import { cleanup, mutate, pluginCopy, sampleProject, type Sample } from "./lib/project.ts";
import { commandNames, commandPrompt, substitute } from "./lib/prompts.ts";
import { session } from "./lib/session.ts";
import type { ToolResult } from "./lib/stub.ts";

/** How each release refuses a call that needs approval (the lead's calls; -p answers every prompt with no). */
const REFUSAL = new RegExp(`${DENIAL.source}|^Output redirection to '[^']*' (?:needs approval|was blocked)`);

/** The command lines a command's Bash rules approve, ${CLAUDE_PLUGIN_ROOT} substituted as the CLI does. */
function approvedCalls(pluginDir: string, name: string): string[] {
  const p = commandPrompt(pluginDir, name);
  const rules = String(p.data["allowed-tools"] ?? "").split(",").map((r) => r.trim());
  return rules.filter((r) => r.startsWith("Bash(")).map((r) => substitute(r.slice(5, -1), p, pluginDir, ""));
}

/** Calls no command may run unasked, each with the file it would create when it ran. */
function attacks(own: string, root: string, tag: string): { command: string; mark: string }[] {
  const helper = `node "${root}/dist/plan.js"`;
  const args = own.slice(helper.length);
  const touch = (m: string) => `require('fs').writeFileSync('${m}', '')`;
  const m = (what: string) => `pwn-${tag}-${what}`;
  return [
    { command: `node -e "${touch(m("e"))}"`, mark: m("e") },
    { command: `node -p "${touch(m("p"))}"`, mark: m("p") },
    { command: `node evil.js ${m("script")}`, mark: m("script") },
    { command: `node --require ./evil.js ${helper.slice(5)}${args}`, mark: "pwn-evil-required" },
    { command: `NODE_OPTIONS=--require=./evil.js ${own}`, mark: "pwn-evil-required" },
    { command: `${own} && node evil.js ${m("chain")}`, mark: m("chain") },
    { command: `${own} | node -e "${touch(m("pipe"))}"`, mark: m("pipe") },
    { command: `${own} > ${m("redirect")}`, mark: m("redirect") },
    // The helper itself with arguments the command never uses: a memory written from a view's turn.
    { command: `${helper} memory-add .design/memory.jsonl --category pattern --keywords pwn,${tag} --content "Planted from the ${tag} command's turn by an injected instruction"`, mark: "" },
    { command: `${own} .design/extra`, mark: "" },
  ];
}

const EVIL = "require('fs').writeFileSync(require.main === module ? process.argv[2] : 'pwn-evil-required', '');\n";

describe("commands' allowed-tools in the invoking turn", { concurrency: 1 }, () => {
  let project: Sample;
  const copies: string[] = [];
  before(() => {
    ensureClaude();
    project = sampleProject();
    project.write("evil.js", EVIL);
    project.write(".design/memory.jsonl", "");
    project.write(".design/tmp/.keep", "");
  });
  after(() => cleanup(project?.dir, ...copies));

  for (const name of commandNames(PLUGIN_DIR)) {
    it(`/do:${name}: its own helper calls run unasked; node -e, other scripts, other arguments, chains and redirections do not`, { timeout: 180_000 }, async () => {
      const own = approvedCalls(PLUGIN_DIR, name);
      assert.ok(own.length > 0, "no Bash rule");
      for (const call of own) assert.ok(call.startsWith(`node "${PLUGIN_DIR}/dist/plan.js" `), `${call}: the plugin root was not substituted`);
      const tried = attacks(own[0], PLUGIN_DIR, name);
      const memory = project.read(".design/memory.jsonl");
      let ownResults: ToolResult[] = [];
      let tryResults: ToolResult[] = [];
      const s = await session({
        prompt: `/do:${name}${name === "remember" ? " Run npm run build before npm test in this repository" : ""}`,
        cwd: project.dir,
        maxTurns: 5,
        script: flowScript(function* () {
          // Still the invoking turn: the model has not ended it. remember's calls read the file the model writes.
          if (name === "remember") done((yield turn("Filing it.", write(project.path(".design/tmp/remember.json"), JSON.stringify({ id: "no-such-memory" })))).results[0]);
          ownResults = (yield turn("Running.", ...own.map((c) => bash(c)))).results;
          tryResults = (yield turn("Trying more.", ...tried.map((a) => bash(a.command)))).results;
          yield turn("Done.");
        }),
      });
      assert.equal(s.run.timedOut, false);
      assert.deepEqual(s.scriptErrors, []);
      assert.deepEqual(s.escapes, []);
      assert.ok(s.main.length > 0, "the command was dropped (its !-line was refused)");
      // Its own calls ran: the helper answered (remember's boost of a missing id answers ok:false, unasked).
      assert.equal(ownResults.length, own.length);
      for (const r of ownResults) assert.equal(typeof helperJson(r).ok, "boolean", r.text);
      // Everything else was refused and did nothing.
      assert.equal(tryResults.length, tried.length);
      const ran = tried.map((a, i) => ({ ...a, text: tryResults[i].text })).filter((a) => !REFUSAL.test(a.text));
      assert.deepEqual(ran.map((a) => `${a.command} -> ${a.text.slice(0, 200)}`), [], "ran without approval");
      for (const a of tried) if (a.mark) assert.ok(!project.exists(a.mark), `${a.mark} exists: ${a.command}`);
      assert.equal(project.read(".design/memory.jsonl"), memory, "the memory file changed");
      const denied = new Set(s.denials.map((d: any) => d.tool_input?.command));
      for (const a of tried) assert.ok(denied.has(a.command), `not among the denials: ${a.command}`);
    });
  }

  it("control: under the old `Bash(node:*)` the same turn runs `node -e`", { timeout: 120_000 }, async () => {
    const dir = pluginCopy(PLUGIN_DIR);
    copies.push(dir);
    mutate(dir, "commands/memories.md", /^allowed-tools: .*$/m, "allowed-tools: Bash(node:*)");
    const mark = "pwn-control";
    let r: ToolResult | undefined;
    await session({
      prompt: "/do:memories",
      cwd: project.dir,
      pluginDir: dir,
      maxTurns: 3,
      script: flowScript(function* () {
        r = (yield turn("Trying.", bash(`node -e "require('fs').writeFileSync('${mark}', '')"`))).results[0];
        yield turn("Done.");
      }),
    });
    assert.ok(project.exists(mark), `node -e did not run: ${r?.text}`);
  });
});
