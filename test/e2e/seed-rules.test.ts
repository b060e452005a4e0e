// The seed's rules as the helper enforces them, through the real CLI (issue 22):
//   golden design runs   /do:design on three canonical goals of low, medium and high complexity (low on the quick
//                        path, medium and high on the full one), each walked from
//                        pre-flight to run-end as SKILL.md writes it; the installed plans compared with the
//                        golden table on role count, dependency depth, specs and auxiliaries; and which refs each
//                        run read, observed in what the CLI sent back (every Read of the lead and its result)
//                        against the "Read `refs/…` now" lines of each phase
//   the gates            a complex plan without specs refused by finalize (the design fallback adds the spec); a
//                        blocking challenger issue holding grant and next until challenge-resolve records it; a
//                        retry's start refused without a reflexion, accepted with one
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cliSync } from "../helpers/cli.ts";
import { agentTable, type AgentPart } from "./lib/agents.ts";
import { CLAUDE_CODE_VERSION, ensureClaude, PLUGIN_DIR } from "./lib/claude.ts";
import { REQUIRED_AUXILIARIES } from "./lib/fixtures.ts";
import { agent, bash, check, done, flowScript, helperJson, loadTools, ok, sendMessage, turn, waitFor, type Flow } from "./lib/lead.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { assertClean, session, type Session } from "./lib/session.ts";
import { calls, helper, SkillLead } from "./lib/skill-lead.ts";
import { preflight } from "./lib/execute-lead.ts";
import type { TurnContext } from "./lib/stub.ts";

const TIMEOUT = 240_000;
const CHECK = "node --test test/";
const brief = (key: string, body: string) => `Agent: ${key}\n${body}`;

function helperSync(p: Sample, args: string[], stdin?: string): any {
  const r = cliSync(args, { cwd: p.dir, stdin });
  assert.equal(r.json?.ok, true, `${args.join(" ")}: ${r.stdout} ${r.stderr}`);
  return r.json;
}

/** A helper call of the skill that the helper must refuse; returns its answer. */
function* refused(lead: SkillLead, text: string, command: string, contains: string[] = [], fill: Parameters<SkillLead["call"]>[2] = {}): Generator<any, any, TurnContext> {
  const r = (yield* calls(text, lead.run(command, contains, fill))).results[0];
  const doc = helperJson(r);
  check(doc.ok === false, `${command} should have been refused: ${r.text}`);
  return doc;
}

/** Write a project file with the Write tool, reading it first when it exists (the tool refuses otherwise). */
function* put(lead: SkillLead, text: string, rel: string, content: string | object): Generator<any, void, TurnContext> {
  if (lead.project.exists(rel)) done((yield* calls(`${rel} exists: reading it before replacing it.`, lead.readFile(rel))).results[0]);
  done((yield* calls(text, lead.write(rel, content))).results[0]);
}

// ------------------------------------------------------------------------------------------ the three goals

interface RoleDef {
  name: string;
  dir: string;
  deps?: string[];
}
interface Canon {
  level: "low" | "medium" | "high";
  goal: string;
  /** The goal as clarified in pre-flight (what design-tier and the draft get). */
  clarified: string;
  /** `--min` for design-tier, for a signal it cannot see in the goal's words (e.g. a public interface change). */
  min?: "medium" | "high";
  tier: "simple" | "complex" | "high-stakes";
  experts: string[];
  roles: RoleDef[];
  /** Roles that get a spec (none for a simple plan). */
  specs: string[];
}

/** Three canonical goals on the sample todo project, by complexity. */
const CANON: Canon[] = [
  {
    level: "low",
    goal: "add a GET /health endpoint to the todo API",
    clarified: "add a GET /health endpoint to the todo API that answers 200 with the service status",
    tier: "simple",
    experts: [],
    roles: [{ name: "health-endpoint", dir: "src/api" }, { name: "health-test", dir: "test", deps: ["health-endpoint"] }],
    specs: [],
  },
  {
    level: "medium",
    goal: "add due dates to the todo API",
    clarified: "add an optional ISO due date to each todo, stored, served by the API and shown in the UI",
    min: "medium",
    tier: "complex",
    experts: ["architect", "api-designer", "tester"],
    roles: [
      { name: "schema-designer", dir: "src/db" },
      { name: "api-developer", dir: "src/api", deps: ["schema-designer"] },
      { name: "ui-developer", dir: "src/ui", deps: ["api-developer"] },
      { name: "docs-writer", dir: "docs" },
    ],
    specs: ["api-developer"],
  },
  {
    level: "high",
    goal: "move the todo store from memory to SQLite with a migration of existing data",
    clarified: "move the todo store from memory to SQLite, migrating the existing todos and keeping a backup",
    tier: "high-stakes",
    experts: ["architect", "data-engineer", "security-reviewer", "tester"],
    roles: [
      { name: "schema-designer", dir: "src/db/schema" },
      { name: "migration-writer", dir: "src/db/migrate", deps: ["schema-designer"] },
      { name: "store-adapter", dir: "src/db/store", deps: ["schema-designer"] },
      { name: "api-developer", dir: "src/api", deps: ["store-adapter"] },
      { name: "backup-tool", dir: "scripts", deps: ["migration-writer"] },
      { name: "docs-writer", dir: "docs", deps: ["api-developer"] },
    ],
    specs: ["migration-writer", "store-adapter"],
  },
];

/** The golden table: what each canonical run installs. */
const GOLDEN: Record<Canon["level"], { roles: number; depth: number; specs: number; auxiliaries: string[]; tier: string }> = {
  // The quick path: finalize exempts a quick plan from the challenger and the scout.
  low: { roles: 2, depth: 2, specs: 0, auxiliaries: ["integration-verifier", "memory-curator"], tier: "simple" },
  medium: { roles: 4, depth: 3, specs: 1, auxiliaries: ["challenger", "scout", "integration-verifier", "memory-curator"], tier: "complex" },
  high: { roles: 6, depth: 4, specs: 2, auxiliaries: ["challenger", "scout", "integration-verifier", "memory-curator"], tier: "high-stakes" },
};

const specPath = (role: string) => `.design/specs/spec-${role}.sh`;

const quick = (c: Canon) => c.level === "low";

const MEMORY_CURATOR = { name: "memory-curator", type: "post-execution", trigger: "after-all-roles-complete", model: "haiku", goal: "Keep what this run teaches" };

function draftOf(c: Canon): object {
  return {
    schemaVersion: 4,
    goal: c.clarified,
    goalType: "implementation",
    tier: c.tier,
    complexity: c.level,
    context: { stack: "Node 20, CommonJS, node:test", conventions: [], testCommand: "npm test", buildCommand: null, lsp: null },
    expertArtifacts: c.experts.map((name) => ({ name, path: `.design/expert-${name}.json`, summary: `${name}'s view` })),
    designDecisions: [],
    verificationSpecs: c.specs.map((role) => ({ role, path: specPath(role), runCommand: `sh ${specPath(role)}`, properties: [`${role} keeps the store loadable`] })),
    roles: c.roles.map((r) => ({
      name: r.name,
      goal: `${r.name} delivers its part of: ${c.goal}`,
      model: "sonnet",
      scope: { directories: [r.dir], patterns: [], dependencies: r.deps ?? [] },
      expertContext: quick(c) ? [] : [{ expert: c.experts[0], artifact: `.design/expert-${c.experts[0]}.json`, relevance: "layout" }],
      constraints: [],
      acceptanceCriteria: [{ criterion: "The tests pass", check: CHECK }],
      assumptions: [],
      rollbackTriggers: [],
      fallback: "",
    })),
    // The quick path lists only the auxiliaries design-tier names: no challenger, no scout.
    auxiliaryRoles: quick(c) ? [...REQUIRED_AUXILIARIES.filter((a) => a.name === "integration-verifier"), MEMORY_CURATOR] : [...REQUIRED_AUXILIARIES, MEMORY_CURATOR],
  };
}

const artifact = (name: string, goal: string) => ({
  summary: `${name}: ${goal} fits the store module; the API reads it.`,
  verificationProperties: [{ property: "A todo without the new field still loads", category: "invariant", testableVia: CHECK }],
});

// ------------------------------------------------------------------------------------------ observed reads

interface Read {
  /** The phase the lead was in: the one after the last recorded phase. */
  phase: string;
  ref: string;
  delivered: boolean;
  text: string;
}

/** Every Read of a design ref by the lead, from the last request the CLI sent (all turns and their results). */
function refReads(s: Session, refsDir: string, phases: string[]): Read[] {
  const body = s.main[s.main.length - 1].body;
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const m of body.messages) {
    if (m.role !== "user" || !Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (b.type !== "tool_result") continue;
      const text = typeof b.content === "string" ? b.content : (b.content ?? []).map((c: any) => c.text ?? "").join("");
      results.set(b.tool_use_id, { text, isError: b.is_error === true });
    }
  }
  const out: Read[] = [];
  // The phase: after the last one a helper answer recorded, or the one the lead's turn names ("Phase 4/6 Plan."),
  // whichever is later (a phase whose output no call produces yet is announced by the lead, not recorded).
  let done = 0;
  for (const m of body.messages) {
    if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
    for (const b of m.content) {
      const said = b.type === "text" ? /Phase (\d+)\/\d+/.exec(String(b.text)) : null;
      if (said) done = Math.max(done, Number(said[1]) - 1);
      if (b.type !== "tool_use") continue;
      // The calls that produce a phase's output record it: their answer's `checkpoint` says up to which phase.
      const recorded = b.name === "Bash" ? /"checkpoint":\s*"design · phase (\d+)\/\d+/.exec(results.get(b.id)?.text ?? "") : null;
      if (recorded) done = Math.max(done, Number(recorded[1]));
      if (b.name === "Read" && String(b.input.file_path).startsWith(refsDir)) {
        const r = results.get(b.id);
        out.push({ phase: phases[done] ?? "after the last phase", ref: String(b.input.file_path).slice(refsDir.length + 1), delivered: !!r && !r.isError, text: r?.text ?? "" });
      }
    }
  }
  return out;
}

/** The refs SKILL.md tells the lead to read in each phase ("Read `refs/x.md` now"), by phase name. */
function namedRefs(skillMd: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  let phase = "";
  for (const line of skillMd.split("\n")) {
    const h = /^## \d+\. (.+)$/.exec(line);
    if (h) phase = h[1].trim().toLowerCase().replace(/[^a-z0-9]+/g, "-");
    if (!phase) continue;
    for (const m of line.matchAll(/read `refs\/([\w.-]+\.md)` now/gi)) (out[phase] ??= []).push(m[1]);
  }
  return out;
}

const PHASES = ["pre-flight", "experts", "cross-review", "plan", "finalize", "reflect-and-report"];

// ------------------------------------------------------------------------------------------ one design run

function* designRun(lead: SkillLead, c: Canon, first: TurnContext, latest: () => TurnContext): Flow {
  const digest = lead.digest(first);
  check(digest.plan.state === "none" && digest.run === null, `digest: ${JSON.stringify(digest)}`);
  yield* helper(lead, "Phase 1/6 Pre-flight: opening the design run.", "run-begin", [], { fill: { goal: c.goal } });
  // The goal clarified; the helper's tier decides the path (raised with --min only for what it cannot see).
  const tierCall = lead.call("design-tier", ["--goal"], { fill: { "clarified goal": c.clarified } }) + (c.min ? ` --min ${c.min}` : "");
  const tier = ok((yield* calls("Asking the helper for the tier.", bash(tierCall, "do helper: design-tier"))).results[0]);
  check(tier.complexity === c.level && tier.path === (quick(c) ? "quick" : "full") && tier.experts === c.experts.length, `design-tier: ${JSON.stringify(tier)}`);

  if (quick(c)) {
    done((yield* calls("Phase 2/6: the quick path, no experts.", lead.ref("quick-path.md"))).results[0]);
  } else yield* fullPathExperts(lead, c, latest);

  done((yield* calls("Phase 4/6 Plan.", lead.ref("plan-template.md"))).results[0]);
  yield* put(lead, "Writing the draft plan.", ".design/draft/plan.json", draftOf(c));
  if (quick(c)) {
    const fits = yield* helper(lead, "Does the draft keep the quick path's limits?", "design-tier", ["--draft"]);
    check(fits.fits === true, `draft does not fit: ${JSON.stringify(fits)}`);
  }
  if (c.specs.length) {
    done((yield* calls(`Tier ${c.tier}: specs are mandatory.`, lead.ref("verification-specs.md"))).results[0]);
    for (const role of c.specs) {
      yield* put(lead, `Spec for ${role}.`, `.design/draft/specs/spec-${role}.sh`, `#!/bin/sh\n# ${role} keeps the store loadable.\nnode -e "require('./src/db/store.js')"\n`);
    }
  }

  const fin = yield* helper(lead, "Phase 5/6 Finalize.", "finalize", [".design/draft/plan.json"]);
  check(fin.roleCount === c.roles.length && !fin.checkWarnings, JSON.stringify(fin));

  yield* put(lead, "Phase 6/6 Reflect.", ".design/tmp/eval.json", { whatWorked: [quick(c) ? "The quick path fit the goal" : "The experts agreed early"], whatFailed: [], doNextTime: ["Keep specs small"], expertQuality: quick(c) ? "none" : "good", crossReviewValue: quick(c) ? "skipped" : "useful", planCompleteness: "complete" });
  yield* helper(lead, "Recording the run and closing it.", "run-end", ["design"]);
  yield turn(`Plan ready: ${c.roles.length} roles. Next: /do:execute`);
}

/** Phases 2 and 3 of the full path: the experts, then their cross-review. */
function* fullPathExperts(lead: SkillLead, c: Canon, latest: () => TurnContext): Flow {
  let ctx = yield* calls("Phase 2/6 Experts.", lead.ref("expert-briefs.md"));
  done(ctx.results[0]);
  ctx = yield* calls(
    `Spawning ${c.experts.length} experts for a ${c.tier} goal.`,
    ...c.experts.map((name) => agent(`${name} expert`, name, "sonnet", brief(`expert-${name}`, `You are ${name}. Goal: ${c.goal}. Write .design/expert-${name}.json.`))),
  );
  ctx = yield* waitFor(latest(), ctx.results.map((r) => (done(r), r.id)), "Waiting for the experts.");
  ctx = yield* calls("Validating the artifacts.", ...c.experts.map((name) => lead.run("expert-validate", [], { fill: { name, "names still out": c.experts.join(",") } })));
  ctx.results.forEach((r) => ok(r));

  ctx = yield* calls("Phase 3/6 Cross-review.", lead.ref("cross-review.md"));
  done(ctx.results[0]);
  ctx = yield* loadTools(ctx, ["SendMessage"]);
  ctx = yield* calls(
    "Round 1.",
    ...c.experts.map((name) => sendMessage(name, "cross-review round 1", `Cross-review, round 1. Read the other artifacts: ${c.experts.filter((n) => n !== name).map((n) => `.design/expert-${n}.json`).join(", ")}.`)),
  );
  const waitIds = ctx.results.filter((r) => /"success":\s*true/.test(r.text)).map((r) => r.id);
  if (waitIds.length) ctx = yield* waitFor(latest(), waitIds, "Waiting for the reviews.");
  yield* put(lead, "Saving the audit trail.", ".design/cross-review.json", { rounds: 1, participants: c.experts, agreements: ["The store stays one module"], disputes: [] });
}

describe("seed rules through claude -p", { concurrency: 1 }, () => {
  const projects: Sample[] = [];
  before(() => {
    ensureClaude();
  });
  after(() => cleanup(...projects.map((p) => p.dir)));
  const fresh = () => {
    const p = sampleProject();
    projects.push(p);
    return p;
  };

  const skillMd = readFileSync(join(PLUGIN_DIR, "skills", "design", "SKILL.md"), "utf8");
  const named = namedRefs(skillMd);
  const refsDir = join(PLUGIN_DIR, "skills", "design", "refs");
  const installed: Record<string, { roles: number; depth: number; specs: number; auxiliaries: string[]; tier: string }> = {};

  for (const c of CANON) {
    it(`golden: /do:design on a ${c.level}-complexity goal installs the golden plan and reads each ref only in its phase [feature:design/verification-specs] [feature:design/required-auxiliaries]`, { timeout: TIMEOUT }, async (t) => {
      const project = fresh();
      const lead = new SkillLead("design", PLUGIN_DIR, project, c.goal);
      const errors: string[] = [];
      const agents = agentTable(
        project,
        Object.fromEntries(c.experts.map((name): [string, AgentPart] => [`expert-${name}`, { file: `.design/expert-${name}.json`, content: artifact(name, c.goal), reply: "Findings written.", onMessage: "AGREE: the store stays one module." }])),
        errors,
      );
      const s = await session({ prompt: `/do:design ${c.goal}`, cwd: project.dir, agents, maxTurns: 80, timeoutMs: 200_000, script: flowScript((first, latest) => designRun(lead, c, first, latest)) });
      assertClean(s);
      assert.deepEqual(errors, []);

      // The installed plan against the golden table, measured by the helper.
      const plan = project.json(".design/plan.json");
      const summary = helperSync(project, ["summary", ".design/plan.json"]);
      installed[c.level] = {
        roles: summary.roleCount,
        depth: summary.maxDepth,
        specs: (plan.verificationSpecs ?? []).filter((x: any) => typeof x.sha256 === "string" && x.sha256.length === 64).length,
        auxiliaries: plan.auxiliaryRoles.map((a: any) => a.name),
        tier: plan.tier,
      };
      assert.deepEqual(installed[c.level], GOLDEN[c.level]);
      for (const x of plan.verificationSpecs ?? []) assert.ok(project.exists(x.path), `${x.path} was not installed`);
      assert.equal(project.json(".design/run-design.json").outcome, "completed");

      // Which refs the run read, as the CLI delivered them: each one only in the phase whose SKILL.md text names
      // it (verification-specs.md only where specs were written; quick-path.md on the quick path, in place of
      // expert-briefs.md and cross-review.md), each delivered whole (its title arrived).
      const reads = refReads(s, refsDir, PHASES);
      const fullOnly = ["expert-briefs.md", "cross-review.md"];
      const applies = (ref: string) =>
        (ref !== "verification-specs.md" || c.specs.length > 0) && (quick(c) ? !fullOnly.includes(ref) : ref !== "quick-path.md");
      const expected = PHASES.flatMap((phase) => (named[phase] ?? []).filter(applies).map((ref) => `${phase}: ${ref}`));
      assert.deepEqual(reads.map((r) => `${r.phase}: ${r.ref}`), expected);
      for (const r of reads) {
        assert.ok(r.delivered, `${r.ref} was not delivered: ${r.text.slice(0, 200)}`);
        const title = readFileSync(join(refsDir, r.ref), "utf8").split("\n")[0];
        assert.ok(r.text.includes(title), `${r.ref}: the CLI's result does not carry its text`);
      }
      t.diagnostic(`Claude Code ${CLAUDE_CODE_VERSION}, ${c.level}: ${JSON.stringify(installed[c.level])}; refs read: ${reads.map((r) => `${r.phase}/${r.ref}`).join(", ")}`);
    });
  }

  it("golden: the three runs scale with the goal's complexity", (t) => {
    if (Object.keys(installed).length < 3) return t.skip("needs the three golden runs");
    const { low, medium, high } = installed;
    assert.ok(low.roles < medium.roles && medium.roles < high.roles, "role count grows with complexity");
    assert.ok(low.depth <= medium.depth && medium.depth < high.depth, "dependency depth grows with complexity");
    assert.ok(low.specs === 0 && medium.specs >= 1 && high.specs > medium.specs, "specs: none for the simple goal, mandatory above");
    // Every plan is verified after its work; the quick (low) plan goes without challenger and scout.
    for (const x of [low, medium, high]) assert.ok(x.auxiliaries.includes("integration-verifier"), "integration-verifier missing");
    for (const x of [medium, high]) for (const a of ["challenger", "scout"]) assert.ok(x.auxiliaries.includes(a), `${a} missing`);
    assert.ok(!low.auxiliaries.includes("challenger") && !low.auxiliaries.includes("scout"), "the quick plan lists challenger or scout");
  });

  it("gate: a complex plan without specs is refused by finalize; the design fallback adds the spec [feature:design/complex-plans-need-specs]", { timeout: TIMEOUT }, async () => {
    const c = CANON[1];
    const project = fresh();
    // A design run stopped after its plan phase: the draft has four roles and no spec.
    for (const name of c.experts) project.write(`.design/expert-${name}.json`, JSON.stringify(artifact(name, c.goal)));
    project.write(".design/cross-review.json", "{}");
    project.write(".design/draft/plan.json", JSON.stringify({ ...draftOf(c), verificationSpecs: [] }, null, 2));
    helperSync(project, ["run-start", "design", "--phases", PHASES.join(","), "--goal", c.goal]);
    helperSync(project, ["run-checkpoint", "design", "--phase", "pre-flight", "--decisions", "implementation, complex, 0 memories"]);
    helperSync(project, ["run-checkpoint", "design", "--phase", "experts", "--outputs", c.experts.map((n) => `.design/expert-${n}.json`).join(",")]);
    helperSync(project, ["run-checkpoint", "design", "--phase", "cross-review", "--outputs", ".design/cross-review.json"]);
    helperSync(project, ["run-checkpoint", "design", "--phase", "plan", "--outputs", ".design/draft/plan.json", "--decisions", "4 roles, specs no, draft approved"]);
    const lead = new SkillLead("design", PLUGIN_DIR, project, "");
    let issues: string[] = [];
    const s = await session({
      prompt: "/do:design",
      cwd: project.dir,
      maxTurns: 40,
      script: flowScript(function* (first): Flow {
        const digest = lead.digest(first);
        check(digest.run?.nextPhase === "finalize", JSON.stringify(digest.run));
        check(digest.run.resumable === true, JSON.stringify(digest.run));
        const status = yield* helper(lead, "Resuming the stopped run.", "run-begin", [], { fill: { goal: digest.run.goal }, replace: [[" --goal ", " --resume --goal "]] });
        check(status.action === "resumed" && status.resume.refs.includes("refs/plan-template.md"), JSON.stringify(status));
        done((yield* calls("Resumed at finalize: the plan template first.", lead.ref("plan-template.md"))).results[0]);
        const no = yield* refused(lead, "Phase 5/6 Finalize.", "finalize", [".design/draft/plan.json"]);
        issues = no.issues;
        // The fallback: fix each issue in the draft. The rule names what satisfies it: a spec.
        done((yield* calls("The rule asks for specs.", lead.ref("verification-specs.md"))).results[0]);
        yield* put(lead, "The spec.", ".design/draft/specs/spec-api-developer.sh", "#!/bin/sh\nnode -e \"require('./src/api/server.js')\"\n");
        yield* put(lead, "The draft with its spec.", ".design/draft/plan.json", draftOf(c));
        const fin = yield* helper(lead, "Finalizing again.", "finalize", [".design/draft/plan.json"]);
        check(fin.installedSpecs?.length === 1 && /finalize: done/.test(fin.checkpoint), JSON.stringify(fin));
        yield* put(lead, "Phase 6/6.", ".design/tmp/eval.json", { whatWorked: ["finalize named the missing specs"], whatFailed: ["The draft had no spec"], doNextTime: ["Write specs in phase 4 for complex tiers"] });
        yield* helper(lead, "Recording and closing.", "run-end", ["design"]);
        yield turn("Plan ready.");
      }),
    });
    assertClean(s);
    assert.equal(issues.length, 1, JSON.stringify(issues));
    assert.match(issues[0], /^Rule 'specs for complex plans': the plan is complex \(4 roles, tier complex, complexity medium\) and has no verificationSpecs/);
    assert.equal(project.json(".design/plan.json").verificationSpecs[0].path, ".design/specs/spec-api-developer.sh");
    assert.ok(project.exists(".design/specs/spec-api-developer.sh"));
  });

  it("gates: a blocking challenger issue holds grant and next until resolved; a retry starts only with a reflexion [feature:execute/challenge-gate] [feature:execute/reflexion-before-retry]", { timeout: TIMEOUT }, async () => {
    const project = fresh();
    const goal = "give todos a due date";
    const plan = {
      // Two roles with challenger and scout, no specs, no design-tier complexity (a quick plan has no challenger,
      // a medium one needs specs).
      ...draftOf({ ...CANON[1], goal, clarified: goal, tier: "simple", specs: [], roles: [{ name: "store-dev", dir: "src/db" }, { name: "api-dev", dir: "src/api", deps: ["store-dev"] }] }),
      complexity: undefined,
    };
    project.write(".design/draft/plan.json", JSON.stringify(plan, null, 2));
    helperSync(project, ["finalize", ".design/draft/plan.json"]);
    // An earlier run's attempt of store-dev failed: this run retries it.
    helperSync(project, ["update-status", ".design/plan.json"], JSON.stringify([{ roleIndex: 0, status: "in_progress", model: "sonnet", agent: "store-dev" }]));
    helperSync(project, ["update-status", ".design/plan.json"], JSON.stringify([{ roleIndex: 0, status: "failed", result: "failed: the store test timed out" }]));
    const blocking = {
      issues: [{ category: "missing-dependency", severity: "blocking", description: "api-dev reads dueDate before store-dev defines its format", affectedRoles: ["api-dev"], recommendation: "Fix the format in a constraint" }],
      summary: "One blocking issue.",
    };
    const errors: string[] = [];
    const agents = agentTable(project, { challenger: { file: ".design/challenger-report.json", content: blocking, reply: "done: 1 issue, 1 blocking" }, scout: { file: ".design/scout-report.json", content: { scopeAreas: [], discrepancies: [], summary: "As planned." }, reply: "done: 0 discrepancies" } }, errors);
    const lead = new SkillLead("execute", PLUGIN_DIR, project, "");
    const seen: Record<string, any> = {};
    const s = await session({
      prompt: "/do:execute",
      cwd: project.dir,
      agents,
      maxTurns: 60,
      timeoutMs: 200_000,
      script: flowScript(function* (first, latest): Flow {
        check(lead.digest(first).plan.state !== "none", "no plan in the digest");
        const { begin } = yield* preflight(lead);
        check(begin.action === "start" && begin.summary.auxiliaryRoles.includes("challenger"), JSON.stringify(begin));

        let ctx = yield* calls("Phase 2/7 Challenge.", lead.ref("pre-execution-briefs.md"));
        done(ctx.results[0]);
        ctx = yield* calls("The challenger and the scout.", agent("challenge the plan", "challenger", "sonnet", brief("challenger", "You are the challenger.")), agent("scout the code", "scout", "haiku", brief("scout", "You are the scout.")));
        ctx = yield* waitFor(latest(), ctx.results.map((r) => (done(r), r.id)), "Waiting for the challenger and the scout.");
        const report = ok((yield* calls("Its report.", lead.run("validate-auxiliary-report", ["--type challenger"]))).results[0]);
        check(report.artifactSummary.blockingCount === 1, JSON.stringify(report));
        ok((yield* calls("The scout's.", lead.run("validate-auxiliary-report", ["--type scout"]))).results[0]);
        // A lead that skipped the gate is held at the grant and at next.
        seen.grant = yield* refused(lead, "Trying the grant anyway.", "grant");
        seen.next = yield* refused(lead, "Trying next anyway.", "next");
        yield* put(lead, "Resolving the blocking issue with a constraint.", ".design/tmp/resolutions.json", [{ issue: 0, constraint: "dueDate is an ISO 8601 date string; store-dev defines it first" }]);
        seen.resolved = yield* helper(lead, "Recording it.", "challenge-resolve");
        yield* helper(lead, "Challenge done.", "run-checkpoint", ["--phase challenge"], { fill: { b: "1", c: "1" } });

        const proposal = yield* helper(lead, "Phase 3/7 Grant.", "grant");
        check(proposal.recorded === false, JSON.stringify(proposal));
        yield* helper(lead, "Grant declined.", "run-checkpoint", ["--phase grant"], { fill: { "approved|declined": "declined" } });

        done((yield* calls("Phase 4/7 Workers.", lead.ref("worker-brief.md"))).results[0]);
        const next = yield* helper(lead, "What starts?", "next");
        const s0 = next.start[0];
        check(s0?.retry === true && s0.recorded === false && s0.failure?.result === "failed: the store test timed out", JSON.stringify(next.start));
        seen.failure = s0.failure;
        // The start without a reflexion is refused; with one, recorded.
        seen.bare = yield* refused(lead, "Recording the start.", "update-status", ["echo", '"stalled": true'], {
          replace: [['"status": "failed", "stalled": true, "result": "stalled"', `"status": "in_progress", "model": "${s0.model}", "agent": "${s0.agent}"`]],
        });
        done((yield* calls("A retry: the reflexion first.", lead.ref("retry-reflexion.md"))).results[0]);
        yield* put(lead, "The reflexion with the start.", ".design/tmp/update.json", [
          {
            roleIndex: 0, status: "in_progress", model: s0.model, agent: s0.agent,
            reflexion: { rootCause: "The store test waited on a timer the fake clock never fired", wrongAssumptions: "The brief assumed the real clock in tests", alternative: "Inject the clock and advance it in the test" },
          },
        ]);
        seen.started = yield* helper(lead, "Recording the start with it.", "update-status", ["< .design/tmp/update.json"]);
        yield turn("Stopping here: the gates held and opened as they should.");
      }),
    });
    assertClean(s);
    assert.deepEqual(errors, []);
    for (const k of ["grant", "next"] as const) {
      assert.equal(seen[k].code, "E_INVALID");
      assert.match(seen[k].error, /^The challenger's blocking issues are not resolved/);
    }
    assert.equal(seen.resolved.gate, "open");
    assert.match(seen.bare.error, /a retry needs a reflexion before it starts/);
    const after = project.json(".design/plan.json");
    assert.deepEqual(after.challengeResolutions.map((r: any) => r.resolution), ["constraint"]);
    assert.ok(after.roles[1].constraints.includes("dueDate is an ISO 8601 date string; store-dev defines it first"));
    assert.equal(after.roles[0].attemptLog[1].reflexion.rootCause, "The store test waited on a timer the fake clock never fired");
    assert.equal(after.roles[0].status, "in_progress");
  });
});
