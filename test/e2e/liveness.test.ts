// Liveness by the clock through the real CLI: /do:recon's lead checks each arrived report with `--waiting` naming
// the researchers still out, as recon's SKILL.md writes the call, and acts only on the helper's `waiting.stalled`,
// never on its own turns. One researcher reads a file, then its model never answers again (the stub holds the
// request): its transcript stops being written. Right after the others finish it is at work (found, unfinished,
// not stalled); after the lead's model took 65 s over its next turn, the same check with `--stall-minutes 1` names it
// stalled; the lead stops it (TaskStop) and its replacement `{name}-2` reports. The quick researchers come back
// `finished`, and the answer needs no call of its own.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { agentTable } from "./lib/agents.ts";
import { ensureClaude, PLUGIN_DIR } from "./lib/claude.ts";
import { RECON_GOAL, researcherArtifact } from "./lib/fixtures.ts";
import { agent, check, done, flowScript, loadTools, ok, read, turn, waitFor, type Flow } from "./lib/lead.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { assertClean, session } from "./lib/session.ts";
import { calls, helper, SkillLead } from "./lib/skill-lead.ts";
import type { Script, TurnContext } from "./lib/stub.ts";

const TIMEOUT = 300_000;
/** How long the lead's model "thinks" before its second check: past the 1-minute limit that check sets. */
const LEAD_THINKS_MS = 65_000;

const brief = (key: string, body: string) => `Agent: ${key}\n${body}`;

describe("liveness by the clock through claude -p", { concurrency: 1 }, () => {
  const projects: Sample[] = [];
  before(() => ensureClaude());
  after(() => cleanup(...projects.map((p) => p.dir)));

  it("/do:recon names a researcher stalled once its transcript went unwritten past the limit, and replaces only it [feature:recon/stall-by-the-clock]", { timeout: TIMEOUT }, async () => {
    const project = sampleProject();
    projects.push(project);
    const lead = new SkillLead("recon", PLUGIN_DIR, project, RECON_GOAL);
    const errors: string[] = [];
    const names = ["codebase-analyst", "external-researcher", "domain-specialist"];
    const part = (name: string) => ({ file: `.design/expert-${name}.json`, content: researcherArtifact(name), reply: "Findings written." });
    const table = agentTable(project, Object.fromEntries(names.map((n) => [`researcher-${n}`, part(n)])), errors);
    const held: string[] = [];
    // The first domain-specialist reads the README, then hangs; its replacement (same brief) reports at once.
    const agents = (b: string): Script | undefined => {
      if (/^Agent: researcher-domain-specialist\s*$/m.test(b) && held.length === 0) {
        held.push("domain-specialist");
        return [turn("Reading the project first.", read(project.path("README.md"))), { text: "Still thinking.", delayMs: 200_000 }];
      }
      return table(b);
    };
    const checks: any[] = [];
    let stop: any;
    const s = await session({
      prompt: `/do:recon ${RECON_GOAL}`,
      cwd: project.dir,
      agents,
      maxTurns: 40,
      timeoutMs: 260_000,
      script: flowScript(function* (_first, latest): Flow {
        yield* helper(lead, "Opening the recon run.", "run-begin", [], { fill: { goal: RECON_GOAL } });
        done((yield* calls("Phase 2/5 Research.", lead.ref("researcher-briefs.md"))).results[0]);
        // (The stub tells agents apart by their first message: the replacement's brief says it replaces one.)
        const spawn = (name: string, as = name) =>
          agent(`${name} research`, as, "sonnet", brief(`researcher-${name}`, `You are the ${name}${as === name ? "" : ` (${as}, replacing ${name})`}. Question: ${RECON_GOAL}. Write .design/expert-${name}.json.`));
        let ctx = yield* calls("Spawning the three researchers.", ...names.map((n) => spawn(n)));
        const ids = Object.fromEntries(names.map((n, i) => [n, (done(ctx.results[i]), ctx.results[i].id)]));
        const taskId = /agentId:\s*([\w-]+)/.exec(ctx.results[2].text)?.[1] ?? "domain-specialist";
        ctx = yield* waitFor(latest(), [ids["codebase-analyst"], ids["external-researcher"]], "Waiting for the researchers.");
        // The first report: the two others are still out.
        const first = ok((yield* calls("Checking the first artifact.", lead.run("expert-validate", [], { fill: { name: "codebase-analyst", "names still out": "external-researcher,domain-specialist" } }))).results[0]);
        checks.push(first);
        // The lead's model takes its time; meanwhile the held researcher writes nothing.
        const slow: TurnContext = yield {
          ...turn(
            "Checking the second artifact.",
            lead.run("expert-validate", [], {
              fill: { name: "external-researcher", "names still out": "domain-specialist" },
              replace: [["--waiting '{names still out}'", "--waiting '{names still out}' --stall-minutes 1"]],
            }),
          ),
          delayMs: LEAD_THINKS_MS,
        };
        const second = ok(slow.results[0]);
        checks.push(second);
        check(second.waiting?.stalled?.[0] === "domain-specialist", `not stalled: ${JSON.stringify(second.waiting)}`);
        // The Stalled row: stop it, then a replacement named {name}-2 with the same brief and artifact path.
        yield* loadTools(latest(), ["TaskStop"]);
        stop = (yield* calls("domain-specialist stalled: stopping it.", { name: "TaskStop", input: { task_id: taskId } })).results[0];
        ctx = yield* calls("Replacing it.", spawn("domain-specialist", "domain-specialist-2"));
        const again = ctx.results[0].id;
        done(ctx.results[0]);
        yield* waitFor(latest(), [again], "Waiting for the replacement.");
        checks.push(ok((yield* calls("Checking its artifact.", lead.run("expert-validate", [], { fill: { name: "domain-specialist", "names still out": "domain-specialist-2" } }))).results[0]));
        yield turn("Three valid findings; the test stops here.");
      }),
    });
    assertClean(s);
    assert.deepEqual(errors, []);
    assert.deepEqual(held, ["domain-specialist"]);
    const [first, second, third] = checks;
    const by = (a: any) => Object.fromEntries(a.waiting.agents.map((x: any) => [x.name, x]));
    // Right after the quick ones finished: the held one is found and at work, the other finished; nobody stalled.
    assert.deepEqual(first.waiting.stalled, [], JSON.stringify(first.waiting));
    assert.equal(first.waiting.stallMinutes, 15);
    assert.deepEqual(
      [by(first)["domain-specialist"].found, by(first)["domain-specialist"].finished, by(first)["external-researcher"].finished],
      [true, false, true],
      JSON.stringify(first.waiting),
    );
    // 65 s later with a 1-minute limit: stalled, idle longer than the limit, never finished.
    const d = by(second)["domain-specialist"];
    assert.deepEqual([d.found, d.finished, d.stalled, second.waiting.stallMinutes], [true, false, true, 1], JSON.stringify(second.waiting));
    assert.ok(d.idleMs > 60_000 && d.startedAt !== null, JSON.stringify(d));
    assert.match(String(stop?.text), /stop/i);
    // The replacement is its own agent: found by its exact name, finished.
    assert.deepEqual([by(third)["domain-specialist-2"].finished, third.waiting.stalled], [true, []], JSON.stringify(third.waiting));
    assert.ok(project.exists(".design/expert-domain-specialist.json"));
    // Only the last check, with no one left out (the replacement's artifact at its first's path), records research.
    assert.deepEqual([first.checkpoint, second.checkpoint], [undefined, undefined]);
    assert.match(third.checkpoint, /recon · phase 2\/5 research: done/);
  });
});
