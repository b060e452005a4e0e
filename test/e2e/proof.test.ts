// Proof and price of every role through the real CLI (`claude -p "/do:execute" --plugin-dir`), the lead following
// skills/execute/SKILL.md call for call:
// - a worker that claims success while its check fails is not completed: run-checks (approved by the hook under the
//   grant) records the failing evidence and update-status refuses the completion;
// - what each worker cost comes from its own transcript (record-usage), with the numbers the stub reported;
// - a run stops on its budget (`next` ends with `stoppedBy: "budget"`, the plan resumable) and goes on when the
//   budget is raised.
// The grant is approved the way the user approves it: the grant-approve.js call, allowed for this session.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CLAUDE_CODE_VERSION, ensureClaude, PLUGIN_DIR } from "./lib/claude.ts";
import { agent, bash, check, done, flowScript, helperJson, turn, waitFor, type Flow } from "./lib/lead.ts";
import { agentTable, type AgentPart } from "./lib/agents.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { assertClean, session } from "./lib/session.ts";
import { calls, helper, SkillLead } from "./lib/skill-lead.ts";
import { substitute } from "./lib/prompts.ts";
import type { TurnContext } from "./lib/stub.ts";
import { cliSync } from "../helpers/cli.ts";

const TIMEOUT = 180_000;
/** A check the sample project fails until a worker really adds due dates. */
const DUE_CHECK = "grep -q dueDate src/db/store.js";
const TEST_CHECK = "node --test test/";

interface RoleSpec {
  name: string;
  model: string;
  dirs: string[];
  checks: string[];
  deps?: string[];
}

function planned(projects: Sample[], goal: string, roles: RoleSpec[]): Sample {
  const p = sampleProject();
  projects.push(p);
  p.write(".design/draft/plan.json", {
    schemaVersion: 4,
    goal,
    context: { stack: "Node 20, CommonJS, node:test", conventions: [], testCommand: "npm test", buildCommand: null, lsp: null },
    expertArtifacts: [],
    designDecisions: [],
    verificationSpecs: [],
    roles: roles.map((r) => ({
      name: r.name,
      goal: `${r.name} does its part of: ${goal}`,
      model: r.model,
      scope: { directories: r.dirs, patterns: [], dependencies: r.deps ?? [] },
      expertContext: [],
      constraints: [],
      acceptanceCriteria: r.checks.map((c, k) => ({ criterion: `check ${k + 1} holds`, check: c })),
      assumptions: [],
      rollbackTriggers: [],
      fallback: "",
    })),
    auxiliaryRoles: [],
  });
  const r = cliSync(["finalize", ".design/draft/plan.json"], { cwd: p.dir });
  assert.equal(r.json?.ok, true, r.stdout);
  return p;
}

/** The grant-approve.js call exactly as SKILL.md writes it, substituted. */
function approveCall(lead: SkillLead): string {
  const line = lead.prompt.body.split("\n").find((l) => l.includes("scripts/grant-approve.js"));
  const m = line && /`(node "\$\{CLAUDE_SKILL_DIR\}\/scripts\/grant-approve\.js" [^`]+)`/.exec(line);
  if (!m) throw new Error("SKILL.md no longer writes the grant-approve.js call");
  return substitute(m[1], lead.prompt, PLUGIN_DIR, "");
}

/** The session's yes to that one call: what the user answers when Claude Code asks about it. */
const userApproves = (lead: SkillLead) => ["--allowedTools", `Bash(${approveCall(lead)})`];

function report(role: string, claims: boolean, files: string[] = []): object {
  return {
    role,
    achieved: claims,
    filesChanged: files,
    acceptanceCriteria: [{ criterion: "check 1 holds", passed: claims, evidence: claims ? "all green" : "failed" }],
    keyDecisions: claims ? [`${role}: kept it simple`] : [],
    contextForDependents: claims ? `${role} is done` : "",
  };
}

/** Pre-flight, challenge (none), grant (approved through grant-approve.js), as SKILL.md spells them. */
function* upToWorkers(lead: SkillLead, first: TurnContext, budget?: number): Generator<any, any, TurnContext> {
  const goal = lead.digest(first).plan.goal;
  yield* helper(lead, "Phase 1/7 Pre-flight.", "run-start", [], { fill: { "plan goal": goal } });
  if (budget !== undefined) yield* helper(lead, "The run's budget.", "budget", ["--tokens"], { fill: { tokens: String(budget) } });
  const st = yield* helper(lead, "Plan status.", "status", [".design/plan.json"]);
  const reset = yield* helper(lead, "Recovering interrupted roles.", "resume-reset");
  yield* helper(lead, "Summary.", "summary");
  yield* helper(lead, "Pre-flight done.", "run-checkpoint", ["--phase pre-flight"], { fill: { n: String(reset.resetRoles.length), k: String(st.roleCount - (st.counts.completed ?? 0)) } });
  yield* helper(lead, "Phase 2/7 Challenge: none in this plan.", "run-checkpoint", ["--phase challenge"], {
    replace: [[` --outputs ".design/challenger-report.json,.design/scout-report.json"`, ""]],
    fill: { b: "0", c: "0" },
  });
  const proposal = yield* helper(lead, "Phase 3/7 Grant.", "grant", [".design/plan.json"]);
  check(proposal.recorded === false, JSON.stringify(proposal));
  const approved = helperJson((yield* calls("The user approved: recording the grant.", bash(approveCall(lead), "Record the user's grant"))).results[0]);
  check(approved.ok === true && approved.recorded === true, JSON.stringify(approved));
  yield* helper(lead, "Grant done.", "run-checkpoint", ["--phase grant"], { fill: { "approved|declined": "approved", m: "0" } });
  return proposal;
}

describe(`proof and price through claude -p (Claude Code ${CLAUDE_CODE_VERSION})`, { concurrency: 1 }, () => {
  const projects: Sample[] = [];
  before(() => ensureClaude());
  after(() => cleanup(...projects.map((p) => p.dir)));

  it("a worker that claims success with a failing check is not completed [feature:execute/checks-decide-completion]", { timeout: TIMEOUT }, async () => {
    const roles: RoleSpec[] = [{ name: "store-dev", model: "haiku", dirs: ["src/db"], checks: [DUE_CHECK, TEST_CHECK] }];
    const project = planned(projects, "add due dates", roles);
    const errors: string[] = [];
    // The worker does nothing and reports every criterion passed.
    const parts: Record<string, AgentPart> = { "worker-store-dev": { file: ".design/worker-store-dev.json", content: report("store-dev", true), reply: "store-dev: all done, every check passed." } };
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    let checks: any;
    let refused: any;
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      args: userApproves(lead),
      maxTurns: 40,
      timeoutMs: 150_000,
      agents: agentTable(project, parts, errors),
      script: flowScript(function* (first, latest): Flow {
        yield* upToWorkers(lead, first);
        done((yield* calls("Phase 4/7 Workers.", lead.ref("worker-brief.md"))).results[0]);
        const d = yield* helper(lead, "Asking the helper what to start.", "next");
        const st = d.start[0];
        yield* helper(lead, `Starting ${st.name}.`, "update-status", ['"status": "in_progress"'], {
          roleIndex: st.roleIndex,
          replace: [['"model": "sonnet"', `"model": "${st.model}"`], ['"agent": "api-developer"', `"agent": "${st.agent}"`]],
        });
        const spawn = yield* calls(`Spawning ${st.agent}.`, agent(`work on ${st.name}`, st.agent, st.model, `Agent: worker-${st.agent}\nRole: ${st.name}. Report to ${st.reportPath}.`));
        yield* waitFor(latest(), [spawn.results[0].id], "Waiting for the worker.");
        yield* helper(lead, "store-dev reported.", "worker-completion-validate", [], { fill: { agent: st.agent } });
        checks = yield* helper(lead, "Checking store-dev.", "run-checks", [], { fill: { roleIndex: String(st.roleIndex) } });
        // A lead that took the report's word anyway: the helper refuses.
        refused = helperJson((yield* calls("store-dev says it is done.", lead.run("update-status", ['"status": "completed"'], { roleIndex: st.roleIndex, fill: { "one-line outcome": "done" } }))).results[0]);
        yield* helper(lead, "store-dev failed its check.", "update-status", ['"status": "failed"'], { roleIndex: st.roleIndex, fill: { "what failed": `attempt 1: ${DUE_CHECK} failed` } });
        yield turn("store-dev claimed success but its check failed: recorded failed.");
      }),
    });
    assertClean(s);
    assert.deepEqual(errors, []);
    assert.deepEqual([checks.passed, checks.recorded, checks.summary], [false, true, "1/2 passed"]);
    assert.deepEqual(checks.results.map((r: any) => [r.check, r.exitCode, r.passed]), [[DUE_CHECK, 1, false], [TEST_CHECK, 0, true]]);
    assert.equal(refused.ok, false);
    assert.equal(refused.code, "E_INVALID");
    assert.match(refused.error, /check `grep -q dueDate src\/db\/store\.js` failed \(exit 1\)/);
    const role = project.json(".design/plan.json").roles[0];
    assert.equal(role.status, "failed");
    const attempt = role.attemptLog[0];
    assert.equal(attempt.outcome, "failed");
    assert.deepEqual(attempt.evidence.map((e: any) => [e.check, e.passed]), [[DUE_CHECK, false], [TEST_CHECK, true]]);
    assert.match(attempt.evidence[1].output, /# pass 1/);
    assert.equal(typeof attempt.runId, "string");
  });
});
