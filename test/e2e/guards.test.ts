// The suite's own checks must catch a broken plugin: a skill whose body does not arrive, and a helper call that a
// user would have to approve. Each case breaks a copy of the plugin the way an edit could, runs the same session
// as the skill cases, and requires those checks to fail.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ensureClaude, PLUGIN_DIR } from "./lib/claude.ts";
import { checkDelivery, checkResults, setupCalls } from "./lib/checks.ts";
import { agent, bash, done, flowScript, turn, waitFor, write } from "./lib/lead.ts";
import { cleanup, mutate, pluginCopy, sampleProject, type Sample } from "./lib/project.ts";
import { skillPrompt } from "./lib/prompts.ts";
import { assertClean, session, type Session } from "./lib/session.ts";
import type { ToolResult } from "./lib/stub.ts";

async function run(pluginDir: string, skill: string, args: string, cwd: string): Promise<{ s: Session; calls: string[]; results: ToolResult[] }> {
  const calls = setupCalls(skillPrompt(pluginDir, skill), pluginDir);
  let results: ToolResult[] = [];
  const s = await session({
    prompt: `/do:${skill} ${args}`.trim(),
    cwd,
    pluginDir,
    maxTurns: 4,
    script: flowScript(function* () {
      results = (yield turn("Script setup.", ...calls.map((c) => bash(c)))).results;
      yield turn("Done.");
    }),
  });
  return { s, calls, results };
}

describe("the checks catch a broken plugin", { concurrency: 2 }, () => {
  let project: Sample;
  const copies: string[] = [];

  before(() => {
    ensureClaude();
    project = sampleProject();
    project.write(".design/.keep", "");
  });
  after(() => cleanup(project?.dir, ...copies));

  it("the unbroken plugin passes them (control)", { timeout: 120_000 }, async () => {
    const { s, calls, results } = await run(PLUGIN_DIR, "design", "add due dates", project.dir);
    assertClean(s);
    checkDelivery(skillPrompt(PLUGIN_DIR, "design"), PLUGIN_DIR, "add due dates", s);
    checkResults(calls, results);
  });

  it("a failing !-line: the CLI drops the skill, and the checks fail", { timeout: 120_000 }, async () => {
    const dir = pluginCopy(PLUGIN_DIR);
    copies.push(dir);
    mutate(dir, "skills/execute/SKILL.md", `/scripts/plan.js" preflight execute`, `/scripts/missing.js" preflight execute`);
    const { s } = await run(dir, "execute", "", project.dir);
    assert.throws(() => assertClean(s), /the model was never asked/);
    assert.throws(() => checkDelivery(skillPrompt(dir, "execute"), dir, "", s), /body text did not arrive/);
  });

  it("allowed-tools without the helper's Bash rule: the !-line is refused, the skill dropped, and the checks fail", { timeout: 120_000 }, async () => {
    const dir = pluginCopy(PLUGIN_DIR);
    copies.push(dir);
    mutate(dir, "skills/design/SKILL.md", /^allowed-tools: Bash\(node "\$\{CLAUDE_SKILL_DIR\}\/scripts\/plan\.js":\*\), /m, "allowed-tools: ");
    const { s } = await run(dir, "design", "add due dates", project.dir);
    assert.throws(() => assertClean(s));
    assert.throws(() => checkDelivery(skillPrompt(dir, "design"), dir, "add due dates", s), /body text did not arrive/);
  });

  it("a helper call written without `node`: it needs approval, and the checks fail", { timeout: 120_000 }, async () => {
    const dir = pluginCopy(PLUGIN_DIR);
    copies.push(dir);
    mutate(dir, "skills/recon/SKILL.md", /`node "\$\{CLAUDE_SKILL_DIR\}\/scripts\/plan\.js" run-begin recon /, `\`"\${CLAUDE_SKILL_DIR}/scripts/plan.js" run-begin recon `);
    const { s, calls, results } = await run(dir, "recon", "where to act", project.dir);
    checkDelivery(skillPrompt(dir, "recon"), dir, "where to act", s); // the body itself still arrives
    assert.ok(calls[0].startsWith(`"${dir}/skills/recon/scripts/plan.js"`), calls[0]);
    assert.throws(() => checkResults(calls, results), /needed approval/);
    assert.throws(() => assertClean(s), /approval/);
  });

  it("after the lead ends its turn, other commands, other node scripts, project writes, plan.json and a helper call leaving .design/ still need approval", { timeout: 120_000 }, async () => {
    let results: ToolResult[] = [];
    const evil = `node -e "require('fs').writeFileSync('owned.txt', '')"`;
    // The skill's own helper, but appending to a project file (it would run at the next make).
    const escape = `node "${PLUGIN_DIR}/skills/execute/scripts/plan.js" memory-add Makefile --category pattern --keywords a --content x`;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      maxTurns: 8,
      agents: () => [{ text: "Done." }],
      script: flowScript(function* (_first, latest) {
        const spawned = yield turn("Spawning an agent.", agent("probe", "probe", "haiku", "Agent: probe\nReply with one line."));
        done(spawned.results[0]);
        yield* waitFor(latest(), [spawned.results[0].id], "Waiting for the agent.");
        results = (yield turn("Trying what no skill allows.", bash("touch owned.txt"), bash(evil), write(project.path("src/owned.js"), "x"), write(project.path(".design/plan.json"), "{}"), bash(escape))).results;
        yield turn("Done.");
      }),
    });
    assert.equal(s.run.timedOut, false);
    assert.equal(results.length, 5);
    assert.deepEqual(
      s.denials.map((d: any) => d.tool_input.command ?? d.tool_input.file_path),
      ["touch owned.txt", evil, project.path("src/owned.js"), project.path(".design/plan.json"), escape],
    );
    assert.ok(!project.exists("owned.txt") && !project.exists("src/owned.js") && !project.exists(".design/plan.json") && !project.exists("Makefile"));
  });
});
