// self-test: run every command of the registry as a child process of this very bundle against synthetic
// fixtures in a fresh temp directory (contract 4.30). Fails when any case fails, and when a command of the
// registry has no case, so a new command cannot ship untested. A command's first case is its child process; its
// further cases (other flags, other fixtures) run in this process through the bundle's own `run` (asProcess). It
// reaches the commands only through the bundle, the registry's names included (its `--help`), so it imports
// nothing above the commands.
//
// Why one file: most of it is the table of cases, one or more per registry command; the runner beside it is small.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { defineCommand, type Dispatch, type Result } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { isoSeconds } from "../../lib/values.js";

type Json = any;
type Files = Record<string, unknown>;

interface Run {
  code: number | null;
  out: Json;
  dir: string;
  read: (rel: string) => string;
  json: (rel: string) => Json;
}

interface Case {
  name: string;
  /** The registry command the case covers. */
  command: string;
  args: string[];
  stdin?: string;
  files: (now: number) => Files;
  /** Return nothing when the case holds, or a sentence saying what went wrong. */
  expect: (r: Run) => string | undefined;
  /** When true and the command reports python3 unavailable, the case is reported skipped. */
  needsPython?: boolean;
  /** Slow cases (a python3 child, zod) are started first, so they do not finish last. */
  slow?: boolean;
}

const DAY = 86_400_000;

function plan(over: (roles: Json[]) => void = () => {}): Json {
  const roles: Json[] = [
    {
      name: "backend-developer",
      goal: "Build the REST API",
      model: "sonnet",
      scope: { directories: ["src/api/"], patterns: [], dependencies: [] },
      acceptanceCriteria: [{ criterion: "API tests pass", check: "npm test -- api" }],
      constraints: ["Use the existing router"],
      status: "pending",
      attempts: 0,
      result: null,
      directoryOverlaps: [],
    },
    {
      name: "test-writer",
      goal: "Write integration tests",
      model: "haiku",
      scope: { directories: ["tests/"], patterns: [], dependencies: ["backend-developer"] },
      acceptanceCriteria: [{ criterion: "Suite runs", check: "npm test -- integration" }],
      status: "pending",
      attempts: 0,
      result: null,
      directoryOverlaps: [],
    },
  ];
  over(roles);
  const aux = (name: string, type: string, trigger: string) => ({ name, type, trigger, goal: `${name} for the REST API plan` });
  const auxiliaryRoles = [
    aux("challenger", "pre-execution", "before-execution"),
    aux("scout", "pre-execution", "before-execution"),
    aux("integration-verifier", "post-execution", "after-all-roles-complete"),
    aux("memory-curator", "post-execution", "after-all-roles-complete"),
  ];
  return { schemaVersion: 4, goal: "Add a REST API with tests", roles, auxiliaryRoles, progress: { completedRoles: [] } };
}

function unfinalized(): Json {
  const p = plan((roles) => {
    for (const r of roles) {
      delete r.status;
      delete r.attempts;
      delete r.result;
      delete r.directoryOverlaps;
    }
  });
  delete p.progress;
  return p;
}

const jsonl = (entries: unknown[]) => entries.map((e) => JSON.stringify(e)).join("\n") + "\n";

function memories(now: number): string {
  return jsonl([
    { id: "mem-1", timestamp: isoSeconds(now - DAY), category: "pattern", keywords: ["api", "rest"], content: "REST api handlers live in src/api", source: "self-test", goal_context: "", importance: 7, usage_count: 0 },
    { id: "mem-2", timestamp: isoSeconds(now - 7 * DAY), category: "mistake", keywords: ["tests"], content: "Integration tests need the database fixture", source: "self-test", goal_context: "", importance: 8, usage_count: 0 },
  ]);
}

function reflections(now: number): string {
  const evaluation = { whatWorked: ["a"], whatFailed: [], doNextTime: ["b"] };
  return jsonl([
    { id: "ref-1", timestamp: isoSeconds(now - DAY), skill: "execute", goal: "Build API", outcome: "completed", goalAchieved: true, evaluation },
    { id: "ref-2", timestamp: isoSeconds(now - 2 * DAY), skill: "design", goal: "Plan API", outcome: "partial", goalAchieved: false, evaluation },
  ]);
}

/** design's phases (SKILL_PHASES): run-start takes a skill's whole list. */
const DESIGN_PHASES = ["pre-flight", "experts", "cross-review", "plan", "finalize", "reflect-and-report"] as const;

function runState(now: number, done: string[]): Json {
  const at = isoSeconds(now);
  return {
    schemaVersion: 1, skill: "design", runId: "run-1", goal: "Add an API",
    goalSha256: "5ed0a5b0f3c0b0a1d34bd1c3d0ad9e2e23f6c2e0b1a4b8b4c6c8f2ad6a1c9e07", inputs: [],
    phases: [...DESIGN_PHASES], completed: done.map((phase) => ({ phase, at, outputs: [], decisions: "" })),
    startedAt: at, updatedAt: at, completedAt: null, outcome: null,
  };
}

const recon = {
  schemaVersion: 1,
  goal: "Make the API reliable",
  scope: "src/api",
  interventions: [
    { title: "Add contract tests", leverageLevel: 5, leverageGroup: "Feedbacks", designGoal: "Add contract tests for the API", wrongDirection: "More manual QA", confidence: "high", effort: "small" },
    { title: "Tune timeouts", leverageLevel: 7, leverageGroup: "Parameters", designGoal: "Tune API timeouts", confidence: "medium", effort: "trivial" },
  ],
  contradictions: [],
};

const challenger = {
  issues: [{ category: "scope-gap", severity: "high-risk", description: "No role owns migrations", affectedRoles: ["backend-developer"], recommendation: "Add migrations to backend-developer" }],
  summary: "One scope gap",
};

const blockingChallenger = {
  issues: [{ category: "missing-dependency", severity: "blocking", description: "The handlers need the migration first", affectedRoles: ["backend-developer"], recommendation: "Order the migration first" }],
  summary: "One blocking issue",
};

const workerReport = {
  role: "backend-developer",
  achieved: true,
  filesChanged: ["src/api/users.ts"],
  acceptanceCriteria: [{ criterion: "API tests pass", passed: true, evidence: "12 passed" }],
  keyDecisions: ["Kept the router"],
  contextForDependents: "Endpoints under /api/users",
};

function skillsTree(): Files {
  const files: Files = {};
  for (const skill of ["design", "execute", "improve", "recon", "reflect"]) {
    files[`skills/${skill}/SKILL.md`] = [
      `# ${skill}`,
      "",
      "### Script Setup",
      "",
      "```bash",
      `node skills/${skill}/scripts/plan.js team-name ${skill}`,
      "```",
      "",
      "| Rule | Action |",
      "|---|---|",
      "| Turn timeout (3 turns) | Ping the worker |",
      "| Proceed with available | After 2 attempts → proceed with artifacts |",
      "",
      "**Fallback** (if finalize fails):",
      "1. Read the errors, fix them and re-run finalize.",
      "2. If the structure is broken, rebuild it.",
      "",
    ].join("\n");
  }
  return files;
}

const has = (cond: boolean, why: string) => (cond ? undefined : why);
const isOk = (r: Run) => r.code === 0 && r.out?.ok === true;
const failed = (r: Run) => r.code === 1 && r.out?.ok === false && typeof r.out?.error === "string";

const CASES: Case[] = [
  { name: "team-name", command: "team-name", args: ["design"], files: () => ({}), expect: (r) => has(isOk(r) && String(r.out.teamName).startsWith("do-design-"), "teamName should start with do-design-") },
  { name: "status", command: "status", args: [], files: () => ({ ".design/plan.json": plan() }), expect: (r) => has(isOk(r) && r.out.roleCount === 2 && "pending" in r.out.counts, "expected 2 roles with a pending count") },
  { name: "summary", command: "summary", args: [], files: () => ({ ".design/plan.json": plan() }), expect: (r) => has(isOk(r) && r.out.roleCount === 2 && r.out.maxDepth === 2, "expected 2 roles and maxDepth 2") },
  { name: "overlap-matrix", command: "overlap-matrix", args: [], files: () => ({ ".design/plan.json": plan() }), expect: (r) => has(isOk(r) && typeof r.out.matrix === "object" && !Array.isArray(r.out.matrix), "matrix should be an object") },
  { name: "tasklist-data", command: "tasklist-data", args: [], files: () => ({ ".design/plan.json": plan() }), expect: (r) => has(isOk(r) && r.out.roles.length === 2 && r.out.roles[1].blockedBy.includes(0), "role 1 should be blocked by role 0") },
  { name: "worker-pool", command: "worker-pool", args: [], files: () => ({ ".design/plan.json": plan() }), expect: (r) => has(isOk(r) && r.out.totalWorkers >= 1, "expected at least one worker") },
  {
    name: "retry-candidates", command: "retry-candidates", args: [],
    files: () => ({ ".design/plan.json": plan((roles) => { roles[0].status = "failed"; roles[0].attempts = 1; }) }),
    expect: (r) => has(isOk(r) && r.out.retryable.length === 1 && r.out.retryable[0].roleIndex === 0, "expected exactly one retryable role"),
  },
  {
    name: "next", command: "next", args: [],
    files: () => ({ ".design/plan.json": plan((roles) => { roles[0].status = "failed"; roles[0].attempts = 1; roles[1].status = "skipped"; }) }),
    expect: (r) => has(isOk(r) && r.out.done === false && r.out.start.length === 1 && r.out.start[0].agent === "backend-developer--2" && r.out.start[0].model === "opus" && r.out.start[0].recorded === false, "the failed role should be handed out unrecorded for its retry one tier up as backend-developer--2"),
  },
  {
    name: "next (records a first start)", command: "next", args: [], files: () => ({ ".design/plan.json": plan() }),
    expect: (r) => {
      const role = r.json(".design/plan.json").roles[0];
      return has(isOk(r) && r.out.start[0]?.recorded === true && role.status === "in_progress" && role.attemptLog?.[0]?.outcome === "running" && typeof role.attemptLog[0].startedAt === "string", "a first start should be recorded in_progress with its attempt opened");
    },
  },
  {
    // A worker started two hours ago with nothing written since: the wake-up answers at once, stalled by the clock.
    name: "watch", command: "watch", args: ["execute", "--max-seconds", "20"],
    files: (now) => ({
      ".design/plan.json": plan((roles) => { roles[0].status = "in_progress"; roles[0].attempts = 1; roles[0].attemptLog = [{ attempt: 1, model: "sonnet", agent: "backend-developer", outcome: "running", startedAt: isoSeconds(now - 2 * 3600_000) }]; }),
      ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "run-1", startedAt: isoSeconds(now), completedAt: null },
    }),
    expect: (r) => has(isOk(r) && r.out.wake === "stalled" && r.out.stalled[0] === "backend-developer" && /running 1/.test(r.out.progress), "a worker two hours into its attempt with no transcript should wake the lead as stalled"),
  },
  {
    name: "workflow", command: "workflow", args: [], files: () => ({ ".design/plan.json": plan() }),
    expect: (r) => {
      const text = r.out?.path ? r.read(r.out.path) : "";
      return has(isOk(r) && text.startsWith("// Generated") && text.includes("export const meta = {") && text.includes("const SCHEDULER = () => (") && r.out.startsNow[0]?.agent === "backend-developer", "the script should embed the scheduler and start backend-developer");
    },
  },
  {
    // The proposal only: recording one takes the user's consent (grant-approve.js) and their grant key, which a
    // self-test must not make.
    name: "grant", command: "grant", args: [],
    files: (now) => ({ ".design/plan.json": plan(), ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "run-1", startedAt: isoSeconds(now), completedAt: null } }),
    expect: (r) => {
      const out = r.out ?? {};
      const proposed = isOk(r) && out.recorded === false && out.runId === "run-1" && out.commands.some((c: Json) => c.value === "npm test -- api") && out.edits.some((e: Json) => e.value === "src/api/");
      let recorded = true;
      try {
        r.read(".design/grant.json");
      } catch {
        recorded = false;
      }
      return has(proposed && !recorded, "the proposal should name src/api/ and npm test -- api for run-1 and record nothing");
    },
  },
  { name: "circuit-breaker", command: "circuit-breaker", args: [], files: () => ({ ".design/plan.json": plan() }), expect: (r) => has(isOk(r) && typeof r.out.shouldAbort === "boolean", "shouldAbort should be a boolean") },
  { name: "memory-search", command: "memory-search", args: ["--goal", "api rest"], files: (now) => ({ ".design/memory.jsonl": memories(now) }), expect: (r) => has(isOk(r) && r.out.memories.length >= 1 && r.out.memories[0].id === "mem-1", "expected mem-1 to be found") },
  {
    name: "memory-add", command: "memory-add", args: ["--category", "convention", "--keywords", "lint,style", "--content", "Run the linter before committing", "--importance", "6"],
    files: (now) => ({ ".design/memory.jsonl": memories(now) }),
    expect: (r) => {
      const lines = r.read(".design/memory.jsonl").trim().split("\n");
      const last = JSON.parse(lines[lines.length - 1]);
      return has(isOk(r) && typeof r.out.id === "string" && last.id === r.out.id && last.content === "Run the linter before committing" && lines.length === 3, "the new entry should be the last line");
    },
  },
  {
    name: "memory-add --boost", command: "memory-add", args: ["--boost", "--id", "mem-1"], files: (now) => ({ ".design/memory.jsonl": memories(now) }),
    expect: (r) => has(isOk(r) && r.out.importance === 8 && JSON.parse(r.read(".design/memory.jsonl").split("\n")[0]).importance === 8, "mem-1 should go from 7 to 8"),
  },
  {
    name: "memory-add --decay", command: "memory-add", args: ["--decay", "--id", "mem-2"], files: (now) => ({ ".design/memory.jsonl": memories(now) }),
    expect: (r) => has(isOk(r) && r.out.importance === 7 && JSON.parse(r.read(".design/memory.jsonl").split("\n")[1]).importance === 7, "mem-2 should go from 8 to 7"),
  },
  { name: "memory-summary", command: "memory-summary", args: ["--goal", "api"], files: (now) => ({ ".design/memory.jsonl": memories(now) }), expect: (r) => has(isOk(r) && r.out.count === 2 && Array.isArray(r.out.entries), "expected count 2 and entries") },
  {
    name: "memory-review", command: "memory-review", args: ["--category", "pattern"], files: (now) => ({ ".design/memory.jsonl": memories(now) }),
    expect: (r) => has(isOk(r) && r.out.count === 1 && r.out.memories.every((m: Json) => m.category === "pattern"), "every memory should be a pattern"),
  },
  {
    name: "reflection-add", command: "reflection-add", args: ["--skill", "execute", "--goal", "Build API", "--outcome", "completed", "--goal-achieved", "true"],
    stdin: JSON.stringify({ whatWorked: ["x"], whatFailed: [], doNextTime: ["y"] }), files: (now) => ({ ".design/reflection.jsonl": reflections(now) }),
    expect: (r) => has(isOk(r) && typeof r.out.id === "string" && r.out.goalAchieved === true && r.read(".design/reflection.jsonl").includes(r.out.id), "the reflection should be appended"),
  },
  {
    name: "reflection-search", command: "reflection-search", args: ["--skill", "execute"], files: (now) => ({ ".design/reflection.jsonl": reflections(now) }),
    expect: (r) => has(isOk(r) && r.out.reflections.length === 1 && r.out.reflections.every((e: Json) => e.skill === "execute"), "every reflection should be execute"),
  },
  { name: "reflection-validate", command: "reflection-validate", args: [], stdin: JSON.stringify({ whatWorked: [], whatFailed: [], doNextTime: [] }), files: () => ({}), expect: (r) => has(isOk(r) && r.out.valid === true, "a complete evaluation is valid") },
  { name: "reflection-validate (invalid)", command: "reflection-validate", args: [], stdin: JSON.stringify({ incomplete: "data" }), files: () => ({}), expect: (r) => has(failed(r), "an incomplete evaluation is refused") },
  {
    name: "validate-auxiliary-report", command: "validate-auxiliary-report", args: [".design/challenger-report.json", "--type", "challenger"], files: () => ({ ".design/challenger-report.json": challenger }),
    expect: (r) => has(isOk(r) && r.out.valid === true && r.out.artifactSummary.issueCount === 1, "expected a valid report with one issue"),
  },
  { name: "validate-auxiliary-report (invalid)", command: "validate-auxiliary-report", args: ["bad.json", "--type", "challenger"], files: () => ({ "bad.json": { bad: "data" } }), expect: (r) => has(failed(r), "a report without issues/summary is refused") },
  { name: "worker-completion-validate", command: "worker-completion-validate", args: [], stdin: JSON.stringify(workerReport), files: () => ({}), expect: (r) => has(isOk(r) && r.out.valid === true, "a full report is valid") },
  { name: "worker-completion-validate (file)", command: "worker-completion-validate", args: [".design/worker-api.json"], files: () => ({ ".design/worker-api.json": workerReport }), expect: (r) => has(isOk(r) && r.out.valid === true, "a report file given as the argument is valid") },
  { name: "worker-completion-validate (invalid)", command: "worker-completion-validate", args: [], stdin: JSON.stringify({ role: "test" }), files: () => ({}), expect: (r) => has(failed(r), "a partial report is refused") },
  {
    name: "recon-validate", command: "recon-validate", args: [], files: () => ({ ".design/recon.json": recon }),
    expect: (r) => has(isOk(r) && r.out.validated === true && r.out.interventions.every((i: Json) => typeof i.compositeScore === "number") && r.out.interventions[0].compositeScore === 6, "expected scored interventions (6.0 for level 5, high, small)"),
  },
  {
    name: "recon-findings", command: "recon-findings", args: ["--artifacts", ".design/expert-a.json,.design/expert-b.json"],
    files: () => ({
      ".design/expert-a.json": { summary: "a", verificationProperties: [], findings: ["codebase", "codebase", "literature"].map((domain, i) => ({ id: `A-${i}`, domain })) },
      ".design/expert-b.json": { summary: "b", verificationProperties: [], findings: [{ id: "B-1", domain: "theoretical" }] },
    }),
    expect: (r) => has(isOk(r) && r.out.findings === 4 && r.out.domainCount === 3 && r.out.delegate === false, "4 findings in 3 domains, synthesis by the lead"),
  },
  {
    name: "improve-guards", command: "improve-guards", args: [".design/draft/plan.json", "--analysts", ".design/expert-analyst.json"],
    files: () => {
      const dims = ["protocolClarity", "constraintEnforcement", "errorHandling", "agentCoordination", "informationFlow", "promptEconomy", "verifiability"];
      const effects = Object.fromEntries(dims.map((d) => [d, d === "promptEconomy" ? -1 : d === "errorHandling" ? 1 : 0]));
      return {
        ".design/expert-analyst.json": { summary: "s", verificationProperties: [], qualityScores: Object.fromEntries(dims.map((d) => [d, { score: 3, evidence: "lines 1-9" }])) },
        ".design/skill-snapshot.md": "---\nname: x\n---\n# X\n".repeat(25),
        ".design/draft/plan.json": plan((roles) => {
          roles.forEach((r, i) => {
            r.qualityEffects = i === 0 ? effects : Object.fromEntries(dims.map((d) => [d, 0]));
            r.lineDelta = 4;
          });
        }),
      };
    },
    expect: (r) => has(isOk(r) && r.out.passed === false && r.out.failed.join() === "regression-safety" && r.out.budget.targets[0].lines.after === 108, "one role costs promptEconomy: regression fails, 100 + 8 lines pass the budget"),
  },
  { name: "recon-summary", command: "recon-summary", args: [], files: () => ({ ".design/recon.json": recon }), expect: (r) => has(isOk(r) && r.out.interventionCount === 2 && r.out.topInterventions.length === 2, "expected two interventions") },
  { name: "validate-checks (valid)", command: "validate-checks", args: [], files: () => ({ ".design/plan.json": plan() }), expect: (r) => has(isOk(r) && Array.isArray(r.out.results) && r.out.results.length === 2, "expected two valid results") },
  {
    // The one case that starts python3 (the other plans' checks hold no inline Python): one source compiles, one does not.
    name: "validate-checks (invalid)", command: "validate-checks", args: [], needsPython: true, slow: true,
    files: () => ({
      ".design/plan.json": plan((roles) => {
        roles[0].acceptanceCriteria = [{ criterion: "compiles", check: "python3 -c 'print(1)'" }];
        roles[1].acceptanceCriteria = [{ criterion: "broken", check: "python3 -c 'if x'" }];
      }),
    }),
    expect: (r) => has(failed(r) && r.out.results[0]?.valid === true && r.out.results[1]?.valid === false, "expected role 0's Python to compile and role 1's to fail"),
  },
  { name: "expert-validate", command: "expert-validate", args: [".design/expert-architect.json"], files: () => ({ ".design/expert-architect.json": { summary: "Use a layered API", verificationProperties: [{ property: "GET /users answers 200", category: "integration", testableVia: "curl" }] } }), expect: (r) => has(isOk(r) && r.out.valid === true, "the artifact is valid") },
  {
    name: "expert-validate (declared features)", command: "expert-validate", args: [".design/expert-analyst.json", "--features", ".design/skill-features.json"],
    files: () => ({
      ".design/skill-features.json": { goal: "Greet", acceptance_criteria: ["names the user"], features: [{ name: "greet-by-name", test_scenario: "Given a name, When greeting, Then use it", expected_result: "the name" }] },
      ".design/expert-analyst.json": { summary: "Clear", verificationProperties: [{ property: "Asks for the name first" }], featureScores: [{ feature: "greet-by-name", score: 4, evidence: "line 3" }] },
    }),
    expect: (r) => has(isOk(r) && r.out.featuresScored === 1, "the one declared feature is scored"),
  },
  {
    name: "update-status", command: "update-status", args: [], stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress" }]), files: () => ({ ".design/plan.json": plan() }),
    expect: (r) => has(isOk(r) && r.out.updated.includes(0) && r.json(".design/plan.json").roles[0].status === "in_progress", "role 0 should be persisted in_progress"),
  },
  {
    // No grant (a self-test makes no grant key): run-checks runs nothing, says why, and records nothing.
    name: "run-checks", command: "run-checks", args: ["--role", "0"],
    files: (now) => ({ ".design/plan.json": plan((roles) => { roles[0].status = "in_progress"; roles[0].attemptLog = [{ attempt: 1, model: "sonnet", agent: "backend-developer", outcome: "running" }]; }), ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "run-1", startedAt: isoSeconds(now), completedAt: null } }),
    expect: (r) => has(failed(r) && r.out.code === "E_INVALID" && /no grant/.test(r.out.error) && r.json(".design/plan.json").roles[0].attemptLog[0].evidence === undefined, "without a grant run-checks must refuse and record no evidence"),
  },
  {
    // No grant: commit runs no git, says why.
    name: "commit", command: "commit", args: [".design/plan.json", "--role", "0", "--report", ".design/worker-backend-developer.json"],
    files: (now) => ({ ".design/plan.json": plan(), ".design/worker-backend-developer.json": { role: "backend-developer", achieved: true, filesChanged: ["src/api/a.ts"], acceptanceCriteria: [] }, ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "run-1", startedAt: isoSeconds(now), completedAt: null } }),
    expect: (r) => has(failed(r) && r.out.code === "E_INVALID" && /only under the execute grant: no grant/.test(r.out.error), "without a grant commit must refuse"),
  },
  {
    // No grant: clean-attempt runs no git, says why.
    name: "clean-attempt", command: "clean-attempt", args: [".design/plan.json", "--role", "0"],
    files: (now) => ({ ".design/plan.json": plan(), ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "run-1", startedAt: isoSeconds(now), completedAt: null } }),
    expect: (r) => has(failed(r) && r.out.code === "E_INVALID" && /only under the execute grant: no grant/.test(r.out.error), "without a grant clean-attempt must refuse"),
  },
  {
    // No report from the worker: finish records nothing and hands back the schema for it.
    name: "finish", command: "finish", args: [".design/plan.json", "--agent", "backend-developer", "--tokens", "10"],
    files: () => ({ ".design/plan.json": plan((roles) => { roles[0].status = "in_progress"; roles[0].attemptLog = [{ attempt: 1, model: "sonnet", agent: "backend-developer", outcome: "running" }]; }) }),
    expect: (r) => has(failed(r) && r.out.code === "E_INVALID" && r.out.report?.valid === false && typeof r.out.report?.schema === "object" && r.json(".design/plan.json").roles[0].attemptLog[0].usage === undefined, "a missing report: nothing recorded, the schema answered"),
  },
  {
    // No transcript to read here: the task notification's numbers, as the lead passes them when none is found.
    name: "record-usage", command: "record-usage", args: ["--agent", "backend-developer", "--tokens", "4378", "--tool-uses", "3", "--duration-ms", "1900"],
    files: () => ({ ".design/plan.json": plan((roles) => { roles[0].status = "in_progress"; roles[0].attemptLog = [{ attempt: 1, model: "sonnet", agent: "backend-developer", outcome: "running" }]; }) }),
    expect: (r) => has(isOk(r) && r.out.recordedFor === "attempt" && typeof r.json(".design/plan.json").roles[0].attemptLog[0].usage?.tokens === "number", "the attempt should carry its usage"),
  },
  {
    name: "budget", command: "budget", args: ["--tokens", "5000"],
    files: (now) => ({ ".design/plan.json": plan(), ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "run-1", startedAt: isoSeconds(now), completedAt: null } }),
    expect: (r) => has(isOk(r) && r.out.set === true && r.json(".design/plan.json").progress.budget?.tokens === 5000 && r.out.budget?.source === "run", "the run's budget should be 5000 tokens"),
  },
  {
    name: "resume-reset", command: "resume-reset", args: [], files: () => ({ ".design/plan.json": plan((roles) => { roles[0].status = "in_progress"; }) }),
    expect: (r) => {
      const role = r.json(".design/plan.json").roles[0];
      return has(isOk(r) && role.status === "pending" && role.attempts === 1, "role 0 should be pending with 1 attempt");
    },
  },
  {
    name: "finalize", command: "finalize", args: [], files: () => ({ ".design/plan.json": unfinalized() }),
    expect: (r) => {
      const role = r.json(".design/plan.json").roles[0];
      return has(isOk(r) && r.out.validated === true && role.status === "pending" && Array.isArray(role.directoryOverlaps), "role 0 should gain status and directoryOverlaps");
    },
  },
  {
    name: "add-constraints", command: "add-constraints", args: [], stdin: JSON.stringify([{ role: "test-writer", constraints: ["Reuse the API fixtures"] }]), files: () => ({ ".design/plan.json": plan() }),
    expect: (r) => has(isOk(r) && r.json(".design/plan.json").roles[1].constraints?.includes("Reuse the API fixtures"), "the constraint should be appended to test-writer"),
  },
  {
    name: "challenge-resolve", command: "challenge-resolve", args: [], stdin: JSON.stringify([{ issue: 0, constraint: "Create the migration before the handlers" }]),
    files: () => ({ ".design/plan.json": plan(), ".design/challenger-report.json": blockingChallenger }),
    expect: (r) => {
      const doc = r.json(".design/plan.json");
      return has(isOk(r) && r.out.gate === "open" && doc.challengeResolutions?.[0]?.resolution === "constraint" && doc.roles[0].constraints.includes("Create the migration before the handlers"), "the resolution is recorded and the constraint added");
    },
  },
  {
    name: "next (held by a blocking challenger issue)", command: "next", args: [], files: () => ({ ".design/plan.json": plan(), ".design/challenger-report.json": blockingChallenger }),
    expect: (r) => has(failed(r) && r.out.code === "E_INVALID" && r.out.unresolved?.length === 1, "next refuses while the blocking issue is unresolved"),
  },
  {
    name: "task-sync", command: "task-sync", args: [], stdin: JSON.stringify([{ id: "7", subject: "backend-developer", status: "pending", blockedBy: [] }]),
    files: () => ({ ".design/plan.json": plan((roles) => { roles[0].status = "in_progress"; }) }),
    expect: (r) => has(isOk(r) && r.out.update[0]?.taskId === "7" && r.out.update[0]?.status === "in_progress" && r.out.create[0]?.subject === "test-writer", "backend-developer's task goes in_progress, test-writer's is created"),
  },
  { name: "health-check", command: "health-check", args: [], files: (now) => ({ ".design/plan.json": plan(), ".design/memory.jsonl": memories(now) }), expect: (r) => has(isOk(r) && r.out.healthy === true, "a clean .design is healthy") },
  {
    name: "design-tier", command: "design-tier", args: ["--goal", "add due dates to the api"],
    files: () => ({ "src/api/todos.js": "x\n", "src/db/store.js": "x\n", "package.json": JSON.stringify({ scripts: { test: "node --test" } }) }),
    expect: (r) => has(isOk(r) && r.out.path === "quick" && r.out.experts === 0 && r.out.goalAreas.join() === "src/api" && r.out.commands.test === "npm test", "a one-area goal should take the quick path"),
  },
  {
    name: "design-tier (a quick draft too big)", command: "design-tier", args: ["--draft", ".design/draft/plan.json"],
    files: () => ({ ".design/draft/plan.json": { ...plan((roles) => { roles[1].scope.directories = ["src/db/"]; }), complexity: "low" } }),
    expect: (r) => has(isOk(r) && r.out.fits === false && r.out.areas.join() === "src/api,src/db", "two areas should not fit the quick path"),
  },
  {
    name: "plan-diff", command: "plan-diff", args: ["a.json", "b.json"],
    files: () => ({ "a.json": plan(), "b.json": plan((roles) => { roles[0].goal = "Build a faster API"; }) }),
    expect: (r) => has(isOk(r) && typeof r.out.summary === "string" && r.out.modifiedRoles.length === 1, "one role should be modified"),
  },
  {
    name: "plan-diff (newest archived plan)", command: "plan-diff", args: [".design/history", "b.json"],
    files: () => ({
      "b.json": plan(),
      ".design/history/20260101T000000Z/plan.json": plan((roles) => { roles.pop(); }),
      ".design/history/20260101T000000Z-2/plan.json": plan(),
    }),
    expect: (r) => has(isOk(r) && r.out.archivedPlan === ".design/history/20260101T000000Z-2/plan.json" && r.out.summary === "no changes detected", "the newest archived plan (-2) should be compared"),
  },
  {
    name: "plan-health-summary", command: "plan-health-summary", args: [], files: (now) => ({ ".design/plan.json": plan(), ".design/handoff.md": "# Handoff\n\nAll done.\n", ".design/reflection.jsonl": reflections(now) }),
    expect: (r) => has(isOk(r) && r.out.handoff.includes("All done.") && r.out.reflections.length === 2, "handoff and two reflections expected"),
  },
  { name: "preflight", command: "preflight", args: ["execute"], files: (now) => ({ ".design/plan.json": plan(), ".design/memory.jsonl": memories(now) }), expect: (r) => has(isOk(r) && r.out.memory?.count === 2 && typeof r.out.plan === "object", "a digest with two memories expected") },
  { name: "preflight (nothing there)", command: "preflight", args: [], files: () => ({}), expect: (r) => has(isOk(r), "preflight always exits 0") },
  {
    name: "archive", command: "archive", args: [".design"],
    files: (now) => ({ ".design/plan.json": plan((roles) => { for (const r of roles) r.status = "completed"; }), ".design/memory.jsonl": memories(now), ".design/recon.json": recon, ".design/expert-a.json": { summary: "x" } }),
    expect: (r) => {
      const stays = r.read(".design/memory.jsonl").length > 0 && r.read(".design/recon.json").length > 0;
      let moved = false;
      try {
        r.read(".design/plan.json");
      } catch {
        moved = typeof r.out.archivedTo === "string" && r.read(`${r.out.archivedTo}/plan.json`).length > 0;
      }
      return has(isOk(r) && stays && moved, "plan.json should move, memory.jsonl and recon.json stay");
    },
  },
  {
    name: "archive (an unexecuted plan stays)", command: "archive", args: [".design"],
    files: () => ({ ".design/plan.json": plan(), ".design/expert-a.json": { summary: "x" } }),
    expect: (r) => has(failed(r) && r.out.code === "E_INVALID" && r.out.planState === "ready" && r.read(".design/plan.json").length > 0 && r.read(".design/expert-a.json").length > 0, "a ready plan must not move without --include-plan"),
  },
  {
    name: "archive --only experts", command: "archive", args: [".design", "--only", "experts"],
    files: () => ({ ".design/plan.json": plan(), ".design/expert-a.json": { summary: "x" } }),
    expect: (r) => has(isOk(r) && r.out.archived?.length === 1 && r.out.archived[0] === "expert-a.json" && r.read(".design/plan.json").length > 0, "only expert-a.json should move"),
  },
  {
    name: "sync-check", command: "sync-check", args: ["skills"], files: skillsTree,
    expect: (r) => {
      const blocks = [...(r.out.synced ?? []), ...(r.out.drifted ?? [])];
      return has(isOk(r) && blocks.length >= 3 && blocks.every((b: Json) => b.block && Array.isArray(b.skills)), "three synced blocks expected");
    },
  },
  {
    name: "plan-view", command: "plan-view", args: [], files: (now) => ({ ".design/plan.json": plan((roles) => { roles[0].status = "completed"; }), ".design/reflection.jsonl": reflections(now) }),
    expect: (r) => has(isOk(r) && r.out.mermaid.includes("r0 --> r1") && r.out.next[0]?.name === "test-writer" && r.out.next[0]?.state === "ready", "graph edge and test-writer ready expected"),
  },
  {
    name: "report", command: "report", args: [], files: () => ({ ".design/plan.json": plan((roles) => { roles[0].status = "completed"; }) }),
    expect: (r) => has(isOk(r) && r.out.path === ".design/report.html" && r.read(".design/report.html").startsWith("<!doctype html>") && /✔ /.test(r.out.summary), "the report should be written and summarised"),
  },
  { name: "plan-view (no plan)", command: "plan-view", args: [], files: () => ({}), expect: (r) => has(isOk(r) && r.out.state === "none", "a missing plan is reported, not an error") },
  {
    name: "run-start", command: "run-start", args: ["design", "--phases", DESIGN_PHASES.join(","), "--goal", "Add an API"], files: () => ({}),
    expect: (r) => has(isOk(r) && r.out.next === "pre-flight" && r.json(".design/run-design.json").phases.length === 6, "a run with design's six phases expected"),
  },
  {
    name: "run-begin", command: "run-begin", args: ["execute"], files: () => ({ ".design/plan.json": plan() }),
    expect: (r) => has(isOk(r) && r.out.action === "start" && r.out.run?.nextPhase === "challenge" && r.json(".design/run-execute.json").completed[0]?.phase === "pre-flight" && r.out.git?.repo === false, "an execute run started at challenge, pre-flight checkpointed"),
  },
  {
    name: "run-begin (no plan)", command: "run-begin", args: ["execute"], files: () => ({}),
    expect: (r) => has(isOk(r) && r.out.action === "no-plan" && r.json(".design/run-execute.json").outcome === "aborted", "without a plan the run is closed as aborted"),
  },
  {
    name: "run-end", command: "run-end", args: ["design", "--outcome", "aborted"], files: (now) => ({ ".design/run-design.json": runState(now, ["pre-flight"]) }),
    expect: (r) => has(isOk(r) && r.out.run?.closed === true && r.json(".design/run-design.json").outcome === "aborted" && JSON.parse(r.read(".design/reflection.jsonl")).evaluation?.minimal === true, "the run closed with a minimal reflection"),
  },
  {
    name: "curator-apply", command: "curator-apply", args: [".design/memory-curator-report.json", "--goal", "Add an API"],
    files: () => ({ ".design/memory-curator-report.json": { memories: [{ category: "convention", keywords: ["router"], importance: 6, content: "Routes are registered in src/api/routes.ts through the shared router" }], summary: "one kept" } }),
    expect: (r) => has(isOk(r) && r.out.stored?.length === 1 && JSON.parse(r.read(".design/memory.jsonl")).goal_context === "Add an API", "the kept memory is stored"),
  },
  {
    name: "run-checkpoint", command: "run-checkpoint", args: ["design", "--phase", "pre-flight", "--outputs", ".design/plan.json"], files: (now) => ({ ".design/plan.json": plan(), ".design/run-design.json": runState(now, []) }),
    expect: (r) => has(isOk(r) && r.out.next === "experts" && r.json(".design/run-design.json").completed.length === 1, "pre-flight checkpointed, experts next"),
  },
  {
    name: "run-checkpoint (skipping)", command: "run-checkpoint", args: ["design", "--phase", "finalize"], files: (now) => ({ ".design/run-design.json": runState(now, []) }),
    expect: (r) => has(failed(r) && r.json(".design/run-design.json").completed.length === 0, "skipping a phase is refused"),
  },
  {
    name: "run-status", command: "run-status", args: ["design"], files: (now) => ({ ".design/run-design.json": runState(now, ["pre-flight"]) }),
    expect: (r) => has(isOk(r) && r.out.lastPhase === "pre-flight" && r.out.nextPhase === "experts" && r.out.resumable === true, "resumable at experts expected"),
  },
  {
    name: "run-complete", command: "run-complete", args: ["design"], files: (now) => ({ ".design/run-design.json": runState(now, DESIGN_PHASES.slice(0, -1)) }),
    expect: (r) => has(isOk(r) && typeof r.json(".design/run-design.json").completedAt === "string", "completedAt set"),
  },
  { name: "schema", command: "schema", args: ["plan"], files: () => ({}), expect: (r) => has(isOk(r) && r.out.schema?.type === "object", "plan schema should be an object schema") },
  {
    name: "skill-find (partial, project)", command: "skill-find", args: ["deplo", "--source", "project"],
    files: () => ({ ".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Use when shipping\n---\n# Deploy\n" }),
    expect: (r) => has(isOk(r) && r.out.match === "partial" && r.out.skill?.path === ".claude/skills/deploy/SKILL.md", "deplo should resolve to the project's deploy skill"),
  },
  {
    name: "skill-find (this plugin)", command: "skill-find", args: ["do:design"], files: () => ({}),
    expect: (r) => has(isOk(r) && r.out.match === "exact" && r.out.skill?.source === "plugin" && String(r.out.skill?.path).endsWith("design/SKILL.md"), "do:design should resolve to this plugin's skill"),
  },
  {
    name: "recon-rank", command: "recon-rank", args: [".design/tmp/recon-draft.json"],
    files: () => ({
      ".design/tmp/recon-draft.json": { ...recon, interventions: [...recon.interventions, ...[1, 2, 3, 4].map((k) => ({ ...recon.interventions[1], title: `Tune ${k}`, effort: "large" }))] },
    }),
    expect: (r) => {
      const doc = r.json(".design/recon.json");
      return has(isOk(r) && doc.interventions.length === 5 && doc.interventions[0].rank === 1 && doc.interventions[0].compositeScore === 6 && doc.additionalFindings === 1, "six candidates: five ranked and scored, one counted");
    },
  },
  {
    name: "reflect-metrics", command: "reflect-metrics", args: ["--skill", "execute"],
    files: (now) => {
      const r = (d: number, outcome: string, failed: string) => ({ id: `m${d}`, timestamp: isoSeconds(now - d * DAY), skill: "execute", goal: `g${d}`, outcome, goalAchieved: outcome === "completed", evaluation: { whatWorked: [], whatFailed: [failed], doNextTime: [] } });
      return { ".design/reflection.jsonl": jsonl([r(3, "failed", "check needs a database"), r(2, "failed", "the check needed a database again"), r(1, "completed", "slow network")]) };
    },
    expect: (r) => has(isOk(r) && r.out.runs?.total === 3 && r.out.patterns?.[0]?.runs === 2 && r.out.patterns[0].status === "active" && r.out.patterns[0].confidence === "medium", "one pattern over two runs, active, medium"),
  },
  {
    name: "memory-add --from", command: "memory-add", args: ["--from", ".design/tmp/remember.json"],
    files: (now) => ({ ".design/memory.jsonl": memories(now), ".design/tmp/remember.json": { category: "mistake", keywords: ["shell"], content: 'Keep "$(quotes)" and `ticks` as text', importance: 6, source: "user" } }),
    expect: (r) => {
      const lines = r.read(".design/memory.jsonl").trim().split("\n");
      const last = JSON.parse(lines[lines.length - 1]);
      return has(isOk(r) && lines.length === 3 && last.content === 'Keep "$(quotes)" and `ticks` as text' && last.source === "user", "the entry from the file should be appended verbatim");
    },
  },
  {
    name: "run-status (start over with a plan in progress)", command: "run-status", args: ["design"],
    files: (now) => ({ ".design/run-design.json": runState(now, ["pre-flight"]), ".design/plan.json": plan((roles) => { roles[0].status = "completed"; }) }),
    expect: (r) => has(isOk(r) && r.out.startOver?.planState === "in_progress" && r.out.startOver.archive === false && r.out.startOver.ask === true, "a plan in progress must not be archived without asking"),
  },
  // Running self-test inside itself would never end; its own argument handling is what is checked here.
  { name: "self-test", command: "self-test", args: ["--help"], files: () => ({}), expect: (r) => has(isOk(r) && r.out.command === "self-test", "self-test answers --help") },
];

function write(dir: string, files: Files): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
}

/**
 * The children's environment: this one without NODE_EXTRA_CA_CERTS. The helper makes no TLS connection, and Node
 * reads and parses that certificate file at every start (~45 ms per child on the 2-core machine).
 */
export function childEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out = { ...env };
  delete out.NODE_EXTRA_CA_CERTS;
  return out;
}

function runChild(bundle: string, args: string[], cwd: string, stdin: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    // stdin is a pipe only for a case that writes to it; the others read an empty /dev/null, as the command would.
    const child = spawn(process.execPath, [bundle, ...args], { cwd, env, stdio: [stdin ? "pipe" : "ignore", "pipe", "ignore"] });
    let stdout = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.stdout?.on("data", (c) => (stdout += c));
    child.on("error", () => resolve({ code: null, stdout }));
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(stdin);
  });
}

/** Runs one command line of a case: as a child process of the bundle, or in this process through its `run`. */
export type Runner = (argv: string[], cwd: string, stdin: string) => Promise<{ code: number | null; stdout: string }>;

/** The bundle's `run(argv, ctx)` (dist/plan.js exports main.ts's), or undefined when `bundle` has none. */
type BundleRun = Dispatch;

function bundleRun(bundle: string): BundleRun | undefined {
  try {
    const run = (require(bundle) as { run?: unknown }).run;
    return typeof run === "function" ? (run as BundleRun) : undefined;
  } catch {
    return undefined;
  }
}

/** The same JSON document the child would print, from a call of the bundle's `run` in this process. */
function inProcess(run: BundleRun): Runner {
  return async (argv, cwd, stdin) => {
    const { exitCode, output } = await run(argv, { cwd, now: () => Date.now(), stdin: async () => stdin });
    return { code: exitCode, stdout: `${JSON.stringify(output)}\n` };
  };
}

async function runCase(c: Case, runner: Runner, root: string, index: number, now: number): Promise<Result> {
  const dir = join(root, String(index));
  mkdirSync(dir);
  write(dir, c.files(now));
  const res = await runner([c.command, ...c.args], dir, c.stdin ?? "");
  let out: Json;
  try {
    out = JSON.parse(res.stdout);
  } catch {
    return { command: c.name, passed: false, error: `output is not one JSON document (exit ${res.code})` };
  }
  if ((out?.ok === true) !== (res.code === 0)) return { command: c.name, passed: false, error: `ok ${out?.ok} with exit code ${res.code}` };
  // The command itself says when python3 could not be started (no probe of its own: one python3 start is enough).
  if (c.needsPython && out?.pythonAvailable === false) return { command: c.name, passed: true, error: null, skipped: "python3 unavailable" };
  const run: Run = {
    code: res.code,
    out,
    dir,
    read: (rel) => readFileSync(join(dir, rel), "utf8"),
    json: (rel) => JSON.parse(readFileSync(join(dir, rel), "utf8")),
  };
  let why: string | undefined;
  try {
    why = c.expect(run);
  } catch (err) {
    why = (err as Error).message;
  }
  if (why && out?.ok === false) why = `${why} (${out.error})`;
  return { command: c.name, passed: !why, error: why ?? null };
}

export const selfTestCases: readonly Case[] = CASES;

/** The registry's command names, as the bundle's `--help` lists them. */
export async function bundleCommands(runner: Runner, cwd: string): Promise<string[]> {
  const res = await runner(["--help"], cwd, "");
  let commands: unknown;
  try {
    commands = JSON.parse(res.stdout)?.commands;
  } catch {
    commands = undefined;
  }
  if (!Array.isArray(commands) || commands.length === 0 || !commands.every((c) => typeof c === "string")) {
    throw new HelperError("E_INTERNAL", "self-test: the bundle's --help lists no commands");
  }
  return commands;
}

/** Registry commands that no case covers: each is reported as a failed result. */
export function uncovered(names: readonly string[], cases: readonly { command: string }[]): string[] {
  return names.filter((name) => !cases.some((c) => c.command === name));
}

/** The command's result: counts and per-case results; a failure when any case failed or a command has no case. */
export function verdict(results: readonly Result[], missing: readonly string[]): Result {
  const all: Result[] = [...results, ...missing.map((name) => ({ command: name, passed: false, error: "no self-test case for this command" }))];
  const failedCount = all.filter((r) => !r.passed).length;
  const skipped = all.filter((r) => r.skipped).length;
  const summary = { passed: all.length - failedCount - skipped, failed: failedCount, skipped, results: all };
  if (failedCount > 0) throw new HelperError("E_INVALID", `${failedCount} self-test(s) failed`, summary);
  return summary;
}

/** The order the cases start in: slow ones first (so the run does not end waiting on one), then the others. */
export function startOrder(cases: readonly { slow?: boolean }[]): number[] {
  const idx = cases.map((_, i) => i);
  return [...idx.filter((i) => cases[i].slow), ...idx.filter((i) => !cases[i].slow)];
}

/**
 * Whether each case runs as a child process: the first case of each command does, so that every command of the
 * registry is proven as a real process of the bundle. A command's further cases run in this process through the
 * bundle's `run`, which parses, confines and answers exactly as the child does, without another Node start
 * (~60-90 ms of CPU each on a 2-core machine, most of self-test's time).
 */
export function asProcess(cases: readonly { command: string }[]): boolean[] {
  const seen = new Set<string>();
  return cases.map((c) => {
    const first = !seen.has(c.command);
    seen.add(c.command);
    return first;
  });
}

/** Children run at a time. */
export function parallelism(): number {
  return Math.max(2, availableParallelism() + 1);
}

/** The stderr line: "self-test: 47 passed, 0 failed (2.1 s)", skipped cases named when there are some. */
export function summaryLine(output: Result, elapsedMs: number): string | undefined {
  if (typeof output.passed !== "number" || typeof output.failed !== "number") return undefined;
  const skipped = typeof output.skipped === "number" && output.skipped > 0 ? `, ${output.skipped} skipped` : "";
  return `self-test: ${output.passed} passed, ${output.failed} failed${skipped} (${(elapsedMs / 1000).toFixed(1)} s)`;
}

export default defineCommand({
  positionals: [],
  flags: {},
  note: summaryLine,
  async run(ctx) {
    const bundle = process.argv[1];
    if (!bundle || !/\.[cm]?js$/.test(bundle)) {
      throw new HelperError("E_USAGE", "self-test runs from the built bundle: node dist/plan.js self-test");
    }
    const root = mkdtempSync(join(tmpdir(), "do-self-test-"));
    const now = ctx.now();
    try {
      const env = childEnv();
      const child: Runner = (argv, cwd, stdin) => runChild(bundle, argv, cwd, stdin, env);
      const run = bundleRun(bundle);
      const inline = run ? inProcess(run) : child;
      const processes = asProcess(CASES);
      const order = startOrder(CASES);
      const results: Result[] = new Array(CASES.length);
      let next = 0;
      const worker = async () => {
        while (next < order.length) {
          const i = order[next++];
          results[i] = await runCase(CASES[i], processes[i] ? child : inline, root, i, now);
        }
      };
      // As many children at a time as the machine has cores, plus one to cover the ones waiting on fsync.
      await Promise.all(Array.from({ length: parallelism() }, worker));
      return verdict(results, uncovered(await bundleCommands(inline, root), CASES));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
});
