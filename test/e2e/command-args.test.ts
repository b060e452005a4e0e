// A command's arguments come from the user or from the model (which may invoke a command with arguments of its
// choosing). On the real CLI, `$ARGUMENTS` on a !-line is pasted into the shell text before it runs; the commands
// as shipped put no arguments on their !-lines, so hostile arguments arrive in the body as text and nothing runs.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { ensureClaude, PLUGIN_DIR } from "./lib/claude.ts";
import { checkDelivery } from "./lib/checks.ts";
import { flowScript, turn } from "./lib/lead.ts";
import { cleanup, mutate, pluginCopy, sampleProject, type Sample } from "./lib/project.ts";
import { commandPrompt } from "./lib/prompts.ts";
import { assertClean, session } from "./lib/session.ts";

const quiet = () => flowScript(function* () {
  yield turn("Shown.");
});

describe("command arguments on the real CLI", { concurrency: 1 }, () => {
  let project: Sample;
  const copies: string[] = [];
  before(() => {
    ensureClaude();
    project = sampleProject();
    project.write(".design/memory.jsonl", "");
  });
  after(() => cleanup(project?.dir, ...copies));

  // Checked on 2.1.197 and 2.1.330: under a `Bash(node:*)` rule (what the commands once had; today's exact rule would
  // not match the changed line at all) the CLI refuses a !-line whose substituted text holds `$(…)`, a `;` chain or
  // an unbalanced `"`, and drops the whole command silently (the model is never asked). Where the user's own
  // settings allow Bash (here `--allowedTools Bash`), `$(…)` and `"; …; "` run. A backtick ends the !-span and drops
  // the command either way.
  it("an old-style !-line with \"$ARGUMENTS\": arguments run as code where Bash is allowed, and a \" drops the command", { timeout: 180_000 }, async () => {
    const dir = pluginCopy(PLUGIN_DIR);
    copies.push(dir);
    mutate(dir, "commands/memories.md", /^allowed-tools: .*$/m, "allowed-tools: Bash(node:*)");
    mutate(dir, "commands/memories.md", /memory-review \.design\/memory\.jsonl --top 20`/, 'memory-review .design/memory.jsonl --keyword "$ARGUMENTS"`');
    const subst = project.path("old-subst");
    const chain = project.path("old-chain");
    const allowBash = ["--allowedTools", "Bash"];
    await session({ prompt: `/do:memories $(touch ${subst})`, cwd: project.dir, pluginDir: dir, maxTurns: 2, args: allowBash, script: quiet() });
    assert.ok(existsSync(subst), "$(…) in the arguments did not run");
    await session({ prompt: `/do:memories "; touch ${chain}; echo "`, cwd: project.dir, pluginDir: dir, maxTurns: 2, args: allowBash, script: quiet() });
    assert.ok(existsSync(chain), "a chain in the arguments did not run");
    const quote = await session({ prompt: '/do:memories a"b', cwd: project.dir, pluginDir: dir, maxTurns: 2, script: quiet() });
    assert.equal(quote.main.length, 0, "a \" in the arguments did not drop the command");
  });

  for (const name of ["memories", "runs"]) {
    it(`/do:${name} with hostile arguments runs nothing and shows them as text`, { timeout: 120_000 }, async () => {
      const marks = ["subst", "tick", "semi"].map((m) => project.path(`${name}-${m}`));
      const args = `$(touch ${marks[0]}) \`touch ${marks[1]}\` "; touch ${marks[2]}; echo " 'x`;
      // Even where the user allows every Bash command.
      const s = await session({ prompt: `/do:${name} ${args}`, cwd: project.dir, maxTurns: 2, args: ["--allowedTools", "Bash"], script: quiet() });
      assertClean(s);
      for (const m of marks) assert.ok(!existsSync(m), `${m} was created: the arguments reached a shell`);
      const doc = checkDelivery(commandPrompt(PLUGIN_DIR, name), PLUGIN_DIR, args, s);
      assert.equal(doc.ok, true);
      assert.ok(s.received.includes(args), "the arguments did not arrive verbatim in the body");
    });
  }
});
