// What execute's allowed-tools let through in the turn the skill is invoked, proved on the real CLI (run with
// DO_E2E_CLAUDE_VERSION=2.1.197 and 2.1.330). In that turn a skill's Bash rules cover the lead AND the background
// agents it starts, so every rule is a door for the first agents too. The lead and a background agent started in
// that turn each try shell commands that only an `echo` rule (or the `git status` rule execute had before its git
// calls went through the helper) could let through (redirections, chains, substitutions, pipes into other
// programs); none may run without the user's approval.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ensureClaude } from "./lib/claude.ts";
import { agent, bash, DENIAL, flowScript, turn, waitFor } from "./lib/lead.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { session } from "./lib/session.ts";
import type { ToolResult } from "./lib/stub.ts";

const PLAN = '{"schemaVersion": 4}\n';

/** Each attempt leaves a file named after who ran it (or a line in plan.json) when the shell ran it. */
function attempts(who: string): { command: string; ran: (p: Sample) => boolean }[] {
  const made = (rel: string) => (p: Sample) => p.exists(rel);
  return [
    { command: `echo x > src/pwned-${who}.txt`, ran: made(`src/pwned-${who}.txt`) },
    { command: `echo ${who} >> .design/plan.json`, ran: (p) => p.read(".design/plan.json").includes(who) },
    { command: `git status > src/gs-${who}.txt`, ran: made(`src/gs-${who}.txt`) },
    { command: `git status && touch src/and-${who}`, ran: made(`src/and-${who}`) },
    { command: `git status --porcelain; touch src/semi-${who}`, ran: made(`src/semi-${who}`) },
    { command: `echo x; touch src/echosemi-${who}`, ran: made(`src/echosemi-${who}`) },
    { command: `echo $(touch src/sub-${who})`, ran: made(`src/sub-${who}`) },
    { command: `echo x | tee src/tee-${who}`, ran: made(`src/tee-${who}`) },
    { command: `echo 'touch src/sh-${who}' | sh`, ran: made(`src/sh-${who}`) },
    { command: `echo '{}' | node -e "require('fs').writeFileSync('src/node-${who}', '')"`, ran: made(`src/node-${who}`) },
  ];
}

/** What the rule is there for: a plain echo runs without a prompt (for the lead and the agent). */
const baseline = (who: string) => [`echo ok-${who}`];

// How each release refuses: the lead's calls on 2.1.330 "… needs approval" / "A nested command … can't be checked",
// on 2.1.197 "… was blocked" / "Contains command_substitution"; both "… requires approval: <part>" for a pipe into
// another program; a background agent's call that would need a prompt: "Permission to use Bash has been denied".
const REFUSAL = new RegExp(`${DENIAL.source}|^Output redirection to '[^']*' (?:needs approval|was blocked)|^\\S+ in '[^']*' needs approval|^A nested command in this command can't be checked|^Contains command_substitution|^Permission to use Bash has been denied`);

describe("execute's allowed-tools in the invoking turn", { concurrency: 1 }, () => {
  let project: Sample;
  before(() => {
    ensureClaude();
    project = sampleProject();
    project.write(".design/plan.json", PLAN);
  });
  after(() => cleanup(project?.dir));

  it("neither the lead nor an agent it starts can write through echo or git status", { timeout: 180_000 }, async () => {
    const lead = attempts("lead");
    const worker = attempts("agent");
    let leadResults: ToolResult[] = [];
    const agentResults: ToolResult[] = [];
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      maxTurns: 12,
      agents: () =>
        flowScript(function* () {
          // One command a turn, as a model would retry after each refusal.
          for (const c of [...baseline("agent"), ...worker.map((a) => a.command)]) agentResults.push((yield turn("Probing.", bash(c, "probe"))).results[0]);
          yield turn("Agent done.");
        }),
      script: flowScript(function* (_first, latest) {
        // One turn, still the invoking one: start the agent and try every command.
        const ctx = yield turn("Probing.", agent("probe", "probe", "haiku", "Agent: probe\nRun the commands."), ...[...baseline("lead"), ...lead.map((a) => a.command)].map((c) => bash(c, "probe")));
        leadResults = ctx.results.slice(1);
        yield* waitFor(latest(), [ctx.results[0].id], "Waiting.");
        yield turn("Done.");
      }),
    });
    assert.equal(s.run.timedOut, false);
    assert.deepEqual(s.scriptErrors, []);
    assert.deepEqual(s.escapes, []);
    // What the rules are for still works without a prompt, for the lead and for the agent.
    for (const [who, results] of [["lead", leadResults], ["agent", agentResults]] as const) {
      assert.equal(results.length, 1 + attempts(who).length, `${who}: not every call came back`);
      assert.equal(results[0].text.split("\n")[0].trim(), `ok-${who}`, `${who}: echo did not run: ${results[0].text}`);
    }
    const rows = (["lead", "agent"] as const).flatMap((who) => {
      const results = (who === "lead" ? leadResults : agentResults).slice(1);
      return attempts(who).map((a, i) => ({ who, command: a.command, ran: a.ran(project), text: results[i].text }));
    });
    if (process.env.DO_E2E_DEBUG) console.log(JSON.stringify(rows, null, 1));
    assert.deepEqual(rows.filter((r) => r.ran).map((r) => `${r.who}: ${r.command}`), [], "a command ran without approval");
    assert.deepEqual(rows.filter((r) => !REFUSAL.test(r.text)).map((r) => `${r.who}: ${r.command} -> ${r.text.slice(0, 160)}`), [], "a call was not refused");
    assert.equal(project.read(".design/plan.json"), PLAN);
    assert.deepEqual(project.list("src"), ["api", "db", "ui"]);
  });
});
