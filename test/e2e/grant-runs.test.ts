// Issue 31 through the real CLI (`claude -p "/do:execute" --plugin-dir`, the lead following SKILL.md call for call):
// the grant covers the work the plan asks for. A role must run the program it builds (its `runs`: the prefix
// `node src/cli/main.js` with plain words), and the integration verifier runs the goal end to end (its exact run).
// The user approves the grant once (the grant-approve.js call, allowed for this session); then the worker's runs of
// its program and the verifier's end-to-end run are approved by the plugin's hook, while a command outside every
// role's list, the prefix bent with shell syntax, an interpreter's inline code and the verifier's run by the worker
// are still refused and change nothing. Also measured: the Agent tool's schema declares no `name` (2.1.197, 2.1.332),
// yet the CLI takes the `name` the lead passes and records it where the hook reads it (the runs approved prove it).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CLAUDE_CODE_VERSION, ensureClaude, PLUGIN_DIR } from "./lib/claude.ts";
import { agent, bash, check, DENIAL, done, flowScript, turn, waitFor, write, type Flow } from "./lib/lead.ts";
import { finishCall, grantPhase, noChallenge, preflight, userApproves } from "./lib/execute-lead.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { assertClean, session } from "./lib/session.ts";
import { calls, helper, SkillLead } from "./lib/skill-lead.ts";
import type { Script, ToolResult } from "./lib/stub.ts";
import { cliSync } from "../helpers/cli.ts";
import { QUICK_SKIPS, REQUIRED_AUXILIARIES } from "./lib/fixtures.ts";

const TIMEOUT = 240_000;
const PROGRAM = "node src/cli/main.js";
/** The verifier's end-to-end run of the goal, exactly as the plan lists it. */
const END_TO_END = `${PROGRAM} list --all`;
const MAIN = "const args = process.argv.slice(2);\nif (args[0] === '--help') console.log('usage: todo list [--all]');\nelse console.log(`todos: ${args.join(' ')}`);\n";
/** How the CLI refuses a call that needs an answer nobody can give in -p (both releases' words). */
const REFUSED = new RegExp(`${DENIAL.source}|^Permission to use Bash has been denied|requires approval|was blocked|needs approval`);

function planned(projects: Sample[]): Sample {
  const p = sampleProject();
  projects.push(p);
  p.write(".design/draft/plan.json", {
    schemaVersion: 4,
    goal: "a todo command line",
    complexity: "low",
    context: { stack: "Node 20, CommonJS, node:test", conventions: [], testCommand: "npm test", buildCommand: null, lsp: null },
    expertArtifacts: [],
    designDecisions: [],
    verificationSpecs: [],
    roles: [
      {
        name: "cli-dev",
        goal: "A todo command line: `node src/cli/main.js --help` prints its usage.",
        model: "haiku",
        scope: { directories: ["src/cli"], patterns: [], dependencies: [] },
        expertContext: [],
        constraints: ["Run each example with `node src/cli/main.js <args>` before writing its output."],
        runs: [{ command: PROGRAM, args: "plain", why: "its examples and --help" }],
        acceptanceCriteria: [{ criterion: "the tests pass", check: "node --test test/" }],
        assumptions: [],
        rollbackTriggers: [],
        fallback: "",
      },
    ],
    auxiliaryRoles: REQUIRED_AUXILIARIES.filter((a) => a.name === "integration-verifier" || a.name === "memory-curator").map((a) =>
      a.name === "integration-verifier"
        ? { ...a, goal: `Exercise the goal end to end once, the way a user would: \`${END_TO_END}\`.`, runs: [{ command: END_TO_END, why: "the end-to-end run" }] }
        : { ...a },
    ),
    skippedAuxiliaries: QUICK_SKIPS,
  });
  const r = cliSync(["finalize", ".design/draft/plan.json"], { cwd: p.dir });
  assert.equal(r.json?.ok, true, r.stdout);
  return p;
}

interface Seen {
  worker: Record<string, ToolResult>;
  verifier: Record<string, ToolResult>;
}

/** The worker: writes its program, runs it as its brief says, then tries what nothing grants. */
function worker(project: Sample, seen: Seen): Script {
  const tries = {
    help: `${PROGRAM} --help`,
    example: `${PROGRAM} list today`,
    chained: `${PROGRAM} list; touch src/cli/pwned-chain`,
    substituted: `${PROGRAM} $(touch src/cli/pwned-sub)`,
    redirected: `${PROGRAM} list > src/cli/pwned-out.txt`,
    inline: `node -e "require('fs').writeFileSync('src/cli/pwned-node', '')"`,
    outside: "touch src/cli/pwned-touch",
    unlisted: "node src/db/store.js",
  };
  return flowScript(function* () {
    done((yield turn("Writing the command line.", write(project.path("src/cli/main.js"), MAIN))).results[0]);
    for (const [k, c] of Object.entries(tries)) seen.worker[k] = (yield turn(`Trying ${k}.`, bash(c, "Run the program I built"))).results[0];
    const report = { role: "cli-dev", achieved: true, filesChanged: ["src/cli/main.js"], acceptanceCriteria: [{ criterion: "the tests pass", passed: true, evidence: "ran" }], keyDecisions: [], contextForDependents: "cli at src/cli/main.js" };
    done((yield turn("Writing my report.", write(project.path(".design/worker-cli-dev.json"), JSON.stringify(report, null, 2)))).results[0]);
    for (;;) yield turn("cli-dev: done, the examples ran.");
  });
}

/** The verifier: its end-to-end run, then the same bent. */
function verifier(seen: Seen): Script {
  const tries = { endToEnd: END_TO_END, bent: `${END_TO_END} > src/cli/pwned-verify.txt`, unlisted: "touch src/cli/pwned-verify" };
  return flowScript(function* () {
    for (const [k, c] of Object.entries(tries)) seen.verifier[k] = (yield turn(`Trying ${k}.`, bash(c, "Exercise the goal end to end"))).results[0];
    for (;;) yield turn("integration-verifier: the goal works end to end.");
  });
}

describe(`the grant covers the work the plan asks for (Claude Code ${CLAUDE_CODE_VERSION})`, { concurrency: 1 }, () => {
  const projects: Sample[] = [];
  before(() => ensureClaude());
  after(() => cleanup(...projects.map((p) => p.dir)));

  it("a worker runs the program it built and the verifier the goal end to end, both under the grant; nothing else is widened [feature:execute/grant-covers-runs]", { timeout: TIMEOUT }, async (t) => {
    const project = planned(projects);
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    const seen: Seen = { worker: {}, verifier: {} };
    let proposal: any;
    let finished: any;
    let agentProps: string[] = [];
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      args: userApproves(lead),
      maxTurns: 50,
      timeoutMs: 200_000,
      agents: (brief) => (/^Agent: worker-cli-dev$/m.test(brief) ? worker(project, seen) : /^Agent: integration-verifier$/m.test(brief) ? verifier(seen) : undefined),
      script: flowScript(function* (first, latest): Flow {
        agentProps = Object.keys(first.body.tools?.find((t: any) => t.name === "Agent")?.input_schema?.properties ?? {});
        const { begin } = yield* preflight(lead);
        check(begin.action === "start", JSON.stringify(begin));
        yield* noChallenge(lead);
        ({ proposal } = yield* grantPhase(lead));
        const d = yield* helper(lead, "Phase 4/7 Workers: asking what to start.", "next");
        const st = d.start[0];
        const spawn = yield* calls(`Spawning ${st.agent}.`, agent(`work on ${st.name}`, st.agent, st.model, `Agent: worker-${st.agent}\nRole: ${st.name}. Report to ${st.reportPath}.`));
        yield* waitFor(latest(), [spawn.results[0].id], "Waiting for the worker.");
        finished = (yield* calls("cli-dev finished.", finishCall(lead, st.agent))).results[0];
        const v = yield* calls("Phase 5/7 Verify: the integration verifier.", agent("verify the goal", "integration-verifier", "haiku", "Agent: integration-verifier\nExercise the goal end to end once."));
        yield* waitFor(latest(), [v.results[0].id], "Waiting for the verifier.");
        yield turn("Verified.");
      }),
    });
    assertClean(s);
    // The Agent tool's `name`: whether the schema the CLI offers declares it, and that it is accepted and used (the
    // hook tied the worker named cli-dev to its role by that name: its runs were approved below).
    t.diagnostic(`Agent tool properties on ${CLAUDE_CODE_VERSION}: ${agentProps.join(", ")}`);
    assert.ok(agentProps.includes("prompt") && agentProps.includes("description"), agentProps.join(","));
    assert.ok(!agentProps.includes("name"), `measured on 2.1.197 and 2.1.332: the schema does not declare name (now: ${agentProps.join(", ")})`);
    const summary = proposal.summary.join("\n");
    assert.match(summary, /`node src\/cli\/main\.js …` \(cli-dev\)/, summary);
    assert.match(summary, /`node src\/cli\/main\.js list --all` \(the verifier and auxiliaries\)/, summary);
    const w = seen.worker;
    const v = seen.verifier;
    // Approved under the grant: the worker's runs of its program, the verifier's end-to-end run.
    assert.match(w.help.text, /usage: todo list/, `--help: ${w.help.text}`);
    assert.match(w.example.text, /todos: list today/, `example: ${w.example.text}`);
    assert.match(v.endToEnd.text, /todos: list --all/, `end to end: ${v.endToEnd.text}`);
    // Refused: bent, inline code, outside every list, the verifier's run for the worker.
    for (const k of ["chained", "substituted", "redirected", "inline", "outside", "unlisted"]) assert.match(w[k].text, REFUSED, `worker ${k} ran: ${w[k].text}`);
    for (const k of ["bent", "unlisted"]) assert.match(v[k].text, REFUSED, `verifier ${k} ran: ${v[k].text}`);
    assert.deepEqual(project.list("src/cli"), ["main.js"], "a refused command left a file");
    const f = JSON.parse(finished.text.slice(finished.text.indexOf("{")));
    assert.equal(f.status, "completed", finished.text);
  });
});
