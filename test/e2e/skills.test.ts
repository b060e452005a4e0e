// Each skill and command through the real CLI: `claude -p "/do:<name> …" --plugin-dir <repo>` against the stub.
// The first request must hold the prompt's body with every ${…} and $ARGUMENTS substituted and its !-line replaced
// by the helper's JSON; helper calls written in the prompt, run by the scripted lead through the Bash tool exactly
// as spelled, must come back with the helper's ok:true JSON and without any approval.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { cliSync } from "../helpers/cli.ts";
import { ensureClaude, PLUGIN_DIR } from "./lib/claude.ts";
import { agent, bash, done, flowScript, ok, read, turn, waitFor, write } from "./lib/lead.ts";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { cleanup, forkProject, sampleProject, type Sample } from "./lib/project.ts";
import { checkDelivery, checkResults, setupCalls } from "./lib/checks.ts";
import { callCommand, commandNames, commandPrompt, SKILLS, skillPrompt, substitute } from "./lib/prompts.ts";
import { assertClean, session } from "./lib/session.ts";
import type { ToolResult } from "./lib/stub.ts";

const ARGS: Record<string, string> = {
  design: "add due dates to the todo API",
  execute: "",
  recon: "where is the todo API weakest",
  improve: "greet clarity",
  reflect: "design --min-runs 1",
  memories: "todo",
  "plan-status": "",
  runs: "design",
};

/** A hung CLI is killed by the session's own timeout first; this bounds anything else. */
const TIMEOUT = 120_000;

describe("skills and commands through claude -p", { concurrency: 2 }, () => {
  let project: Sample;

  before(() => {
    ensureClaude(); // installs the CLI under test on first use (bounded by its own timeouts)
    project = sampleProject();
    // Something for the digests and the views to report: one memory, one design reflection.
    const mem = cliSync(
      ["memory-add", ".design/memory.jsonl", "--category", "pattern", "--keywords", "todo,api,due", "--content", "Keep the todo store behind one module so the API and UI share it", "--importance", "6", "--source", "execute", "--goal-context", "todo api"],
      { cwd: project.dir },
    );
    assert.equal(mem.json?.ok, true, mem.stdout);
    const refl = cliSync(["reflection-add", ".design/reflection.jsonl", "--skill", "design", "--goal", "todo api", "--outcome", "partial", "--goal-achieved", "false"], {
      cwd: project.dir,
      stdin: JSON.stringify({ whatWorked: ["Two experts agreed early"], whatFailed: ["expert timeout on the api expert"], doNextTime: ["Spawn experts with smaller briefs"] }),
    });
    assert.equal(refl.json?.ok, true, refl.stdout);
  });

  const forks: Sample[] = [];
  after(() => cleanup(project?.dir, ...forks.map((f) => f.dir)));

  for (const name of SKILLS) {
    it(`/do:${name} delivers its body and digest, and its written helper calls run without approval`, { timeout: TIMEOUT }, async () => {
      const p = skillPrompt(PLUGIN_DIR, name);
      const calls = setupCalls(p, PLUGIN_DIR);
      let results: ToolResult[] = [];
      // execute's run-begin without a plan closes an aborted run with its reflection and report: in a copy of the
      // project, so the views below see the project as seeded.
      const where = name === "execute" ? forkProject(project) : project;
      if (where !== project) forks.push(where);
      const s = await session({
        prompt: `/do:${name} ${ARGS[name]}`.trim(),
        cwd: where.dir,
        maxTurns: 4,
        script: flowScript(function* () {
          const back = yield turn("Opening the run.", ...calls.map((c) => bash(c)));
          results = back.results;
          yield turn("That is all for this check.");
        }),
      });
      assertClean(s);

      assert.ok(s.received.includes(`Base directory for this skill: ${p.dir}`), `${name}: no base directory line`);
      const digest = checkDelivery(p, PLUGIN_DIR, ARGS[name], s);
      assert.equal(digest.skill, name);
      assert.equal(digest.memory.count, 1, "the digest should count the seeded memory");
      assert.equal(digest.reflections.count, 1, "the digest should count the seeded reflection");
      assert.equal(typeof digest.nextStep, "string");
      const argsLine = name === "improve" ? "Target and focus: " : name === "execute" || name === "reflect" ? "Arguments: " : "Goal: ";
      assert.ok(s.received.includes(`${argsLine}${ARGS[name]}\n`), `${name}: $ARGUMENTS not substituted with '${ARGS[name]}'`);

      checkResults(calls, results).forEach((doc, i) => {
        const r = results[i];
        if (callCommand(calls[i]) === "run-begin" && name !== "execute") {
          assert.ok(doc.action === "start" || doc.action === "ask-resume", r.text);
          if (name !== "reflect" && doc.action === "start") assert.ok(Array.isArray(doc.memories), r.text);
        }
        if (callCommand(calls[i]) === "memory-search") {
          assert.ok(Array.isArray(doc.memories), r.text);
          // The seeded memory is about the todo store: a query that names the todo API finds it.
          if (/todo/i.test(calls[i])) assert.ok(doc.memories.length >= 1, `memory-search found nothing: ${r.text}`);
        }
      });
    });
  }

  // The views (one injected !-line); the action command remember has its own file (remember.test.ts).
  for (const name of commandNames(PLUGIN_DIR).filter((n) => /^!`/m.test(commandPrompt(PLUGIN_DIR, n).body))) {
    it(`/do:${name} delivers its body with the helper's JSON, and its call runs without approval`, { timeout: TIMEOUT }, async () => {
      const p = commandPrompt(PLUGIN_DIR, name);
      const bang = /^!`(.*)`\s*$/m.exec(p.body);
      assert.ok(bang, `${name}: no !-line`);
      const call = substitute(bang[1], p, PLUGIN_DIR, ARGS[name] ?? "");
      let result: ToolResult | undefined;
      const s = await session({
        prompt: `/do:${name} ${ARGS[name] ?? ""}`.trim(),
        cwd: project.dir,
        maxTurns: 3,
        script: flowScript(function* () {
          const back = yield turn("Checking.", bash(call));
          result = back.results[0];
          yield turn("Shown.");
        }),
      });
      assertClean(s);
      const injected = checkDelivery(p, PLUGIN_DIR, ARGS[name] ?? "", s);
      const direct = ok(result);
      if (name === "memories") {
        assert.equal(injected.count, 1, JSON.stringify(injected));
        assert.match(JSON.stringify(injected.memories), /todo store behind one module/);
        assert.equal(direct.count, injected.count);
      } else if (name === "runs") {
        assert.equal(injected.reflections.length, 1, JSON.stringify(injected));
        assert.equal(injected.reflections[0].skill, "design");
        assert.deepEqual(direct.reflections.length, 1);
      } else if (name === "plan-status") {
        assert.equal(injected.state, "none");
        assert.match(injected.summary, /^Plan: \(no goal\)/);
        assert.match(injected.problems[0], /No plan at \.design\/plan\.json/);
        assert.equal(injected.url, null, "no plan, no report file");
        assert.equal(direct.state, "none");
      }
    });
  }

  // The skills end their turn to wait for agents ("End your turn; you are notified…"); the lead's next turn starts
  // from the agent's notification, and a skill's allowed-tools cover only the turn it was invoked in.
  for (const name of ["design", "execute", "recon", "improve"] as const) {
    it(`/do:${name}: after the lead ends its turn to wait for an agent, its helper calls, .design writes and ref reads still run without approval`, { timeout: TIMEOUT }, async () => {
      const p = skillPrompt(PLUGIN_DIR, name);
      const calls = setupCalls(p, PLUGIN_DIR);
      const ref = join(p.dir, "refs", readdirSync(join(p.dir, "refs")).sort()[0]);
      let results: ToolResult[] = [];
      const s = await session({
        prompt: `/do:${name} ${ARGS[name]}`.trim(),
        cwd: project.dir,
        maxTurns: 8,
        agents: () => [{ text: "Findings ready." }],
        script: flowScript(function* (_first, latest) {
          const spawned = yield turn("Spawning an agent.", agent("probe", "probe", "haiku", "Agent: probe\nReply with one line."));
          done(spawned.results[0]);
          yield* waitFor(latest(), [spawned.results[0].id], "Waiting for the agent.");
          results = (yield turn("The agent reported.", ...calls.map((c) => bash(c)), write(project.path(`.design/tmp/${name}-probe.json`), "{}"), read(ref))).results;
          yield turn("Done.");
        }),
      });
      assert.equal(s.agents.length > 0, true, "the agent never ran");
      checkResults(calls, results.slice(0, calls.length));
      done(results[calls.length]);
      done(results[calls.length + 1]);
      assertClean(s);
    });
  }
});
