// Command name → one-line summary and a loader. Imports no command code: each module is loaded on first use,
// so a call pays only for what its own command needs.
import type { CommandDef } from "./lib/command/command.js";

export interface CommandEntry {
  summary: string;
  /** Mutating commands lock their target file; the rest only read. */
  kind: "query" | "mutation" | "validation" | "build" | "test";
  load: () => Promise<{ default: CommandDef }>;
}

export const registry: Record<string, CommandEntry> = {
  // plan.json: queries
  "team-name": { kind: "query", summary: "Project-unique team name for a skill", load: () => import("./commands/workspace/team-name.js") },
  "status": { kind: "query", summary: "Check that an executable plan exists and count roles by status", load: () => import("./commands/plan/status.js") },
  "summary": { kind: "query", summary: "Goal, depths and models of the plan's roles", load: () => import("./commands/plan/summary.js") },
  "overlap-matrix": { kind: "query", summary: "Roles whose territories overlap and must not run together", load: () => import("./commands/plan/overlap-matrix.js") },
  "task-sync": { kind: "query", summary: "Which TaskCreate/TaskUpdate calls mirror plan.json into the session's task list", load: () => import("./commands/plan/task-sync.js") },
  "tasklist-data": { kind: "query", summary: "One TaskCreate payload per role", load: () => import("./commands/plan/tasklist-data.js") },
  "worker-pool": { kind: "query", summary: "One named worker per runnable role", load: () => import("./commands/plan/worker-pool.js") },
  "retry-candidates": { kind: "query", summary: "Failed roles that still have retry budget", load: () => import("./commands/plan/retry-candidates.js") },
  "circuit-breaker": { kind: "query", summary: "Whether failures doom most of the remaining roles", load: () => import("./commands/plan/circuit-breaker.js") },
  "report": { kind: "build", summary: "Write .design/report.html (graph, attempts, evidence, cost, history) and a Unicode summary", load: () => import("./commands/plan/report.js") },
  "plan-view": { kind: "query", summary: "The plan for a person: Mermaid graph, counts, what runs next, last runs", load: () => import("./commands/plan/plan-view.js") },
  "design-tier": { kind: "query", summary: "Design's tier for a goal (the quick path or the full one), or whether a quick draft kept its limits", load: () => import("./commands/plan/design-tier.js") },
  "plan-diff": { kind: "query", summary: "What changed between two plans", load: () => import("./commands/plan/plan-diff.js") },
  "health-check": { kind: "query", summary: "Integrity report for the .design directory", load: () => import("./commands/workspace/health-check.js") },
  "plan-health-summary": { kind: "query", summary: "Lifecycle context: handoff, last reflections, plan progress", load: () => import("./commands/workspace/plan-health-summary.js") },
  "preflight": { kind: "query", summary: "Compact digest a skill reads before its flow; always exits 0", load: () => import("./commands/workspace/preflight.js") },
  "sync-check": { kind: "query", summary: "Detect drift of shared protocol text across the five SKILL.md files", load: () => import("./commands/workspace/sync-check.js") },
  "schema": { kind: "query", summary: "JSON Schema of plan.json or of an agent report", load: () => import("./commands/workspace/schema.js") },
  "skill-find": { kind: "query", summary: "List the skills and commands Claude Code offers here, or resolve a name or path: exact, partial, ambiguous, none", load: () => import("./commands/skills/find.js") },
  // memory and reflection: queries
  "memory-search": { kind: "query", summary: "Rank memories for a goal by keywords, recency and importance", load: () => import("./commands/memory/search.js") },
  "memory-review": { kind: "query", summary: "List memories for a person to read, with filters", load: () => import("./commands/memory/review.js") },
  "reflect-metrics": { kind: "query", summary: "Reflect's numbers: failure patterns, status, confidence, trend, repeated advice, handoff", load: () => import("./commands/reflection/metrics.js") },
  "reflection-search": { kind: "query", summary: "Latest reflections, optionally for one skill", load: () => import("./commands/reflection/search.js") },
  // mutation
  "grant": { kind: "mutation", summary: "Show, record or revoke what execute's workers may edit and run", load: () => import("./commands/run/grant.js") },
  "workflow": { kind: "build", summary: "Compile the plan into a Claude Code Workflow script (.design/workflow.js)", load: () => import("./commands/run/workflow.js") },
  "run-checks": { kind: "mutation", summary: "Run a role's granted checks and spec; record the evidence in its running attempt", load: () => import("./commands/run/run-checks.js") },
  "commit": { kind: "mutation", summary: "Commit a role's reported files inside its granted scope (git without hooks, filters or a shell)", load: () => import("./commands/run/commit.js") },
  "finish": { kind: "mutation", summary: "A worker finished: record its cost, check its report, run its checks under the grant, record the outcome, commit its files", load: () => import("./commands/run/finish.js") },
  "clean-attempt": { kind: "mutation", summary: "Undo a replaced attempt's changes inside its role's granted scope: restore tracked files, remove new ones", load: () => import("./commands/run/clean-attempt.js") },
  "record-usage": { kind: "mutation", summary: "Record what an agent cost (tokens, tool uses, duration) from its transcript", load: () => import("./commands/run/record-usage.js") },
  "budget": { kind: "mutation", summary: "Set or show the execute run's token budget, its spend and the forecast", load: () => import("./commands/run/budget.js") },
  "next": { kind: "mutation", summary: "What execute does now: records and hands out the starts (model, agent, memories), what runs and for how long, waits, done", load: () => import("./commands/run/next.js") },
  "update-status": { kind: "mutation", summary: "Batch status change with state machine, cascade and restoration", load: () => import("./commands/plan/update-status.js") },
  "resume-reset": { kind: "mutation", summary: "Return interrupted roles to pending after a lost session", load: () => import("./commands/plan/resume-reset.js") },
  "challenge-resolve": { kind: "mutation", summary: "Record how each blocking challenger issue was resolved (a constraint, or the user's decision)", load: () => import("./commands/plan/challenge-resolve.js") },
  "add-constraints": { kind: "mutation", summary: "Append findings to roles' constraints (scout, challenger)", load: () => import("./commands/plan/add-constraints.js") },
  "curator-apply": { kind: "mutation", summary: "Validate the memory curator's report and apply it: store, boost, decay", load: () => import("./commands/memory/curator-apply.js") },
  "memory-add": { kind: "mutation", summary: "Append a memory, or boost / decay one", load: () => import("./commands/memory/add.js") },
  "reflection-add": { kind: "mutation", summary: "Append a run's self-evaluation", load: () => import("./commands/reflection/add.js") },
  "archive": { kind: "mutation", summary: "Move a finished run's artifacts of the project's .design/ into .design/history/", load: () => import("./commands/workspace/archive.js") },
  "run-begin": { kind: "mutation", summary: "Open a skill run in one call: start, ask to resume, resume, or say there is nothing to run; with the plan's summary, health, lifecycle and git status", load: () => import("./commands/run/begin.js") },
  "run-end": { kind: "mutation", summary: "Close a skill run in one call: its reflection, the run state, and the report of its plan", load: () => import("./commands/run/end.js") },
  "run-start": { kind: "mutation", summary: "Begin a skill run with its phase list and input hashes", load: () => import("./commands/run/start.js") },
  "run-checkpoint": { kind: "mutation", summary: "Record a finished phase (outputs verified) before the next one starts", load: () => import("./commands/run/checkpoint.js") },
  "watch": { kind: "query", summary: "The lead's wake-up while agents are out: sleeps, exits with why and what to do when an agent stalls, all finished, the budget or the grant ends, or its time bound passes", load: () => import("./commands/run/watch.js") },
  "run-complete": { kind: "mutation", summary: "Mark a skill run finished", load: () => import("./commands/run/complete.js") },
  "run-status": { kind: "query", summary: "Where an interrupted run stopped and whether its inputs changed", load: () => import("./commands/run/status.js") },
  // validation
  "expert-validate": { kind: "validation", summary: "Check an expert artifact", load: () => import("./commands/reports/expert-validate.js") },
  "reflection-validate": { kind: "validation", summary: "Check a self-evaluation object", load: () => import("./commands/reflection/validate.js") },
  "memory-summary": { kind: "validation", summary: "Short list of the memories being injected", load: () => import("./commands/memory/summary.js") },
  "validate-checks": { kind: "validation", summary: "Syntax-check inline Python in acceptance checks", load: () => import("./commands/plan/validate-checks.js") },
  "recon-validate": { kind: "validation", summary: "Validate recon.json and score its interventions", load: () => import("./commands/recon/validate.js") },
  "recon-rank": { kind: "mutation", summary: "Score, rank and cut the recon draft to five, writing recon.json", load: () => import("./commands/recon/rank.js") },
  "recon-findings": { kind: "query", summary: "Count the researchers' findings and domains; whether synthesis goes to an agent", load: () => import("./commands/recon/findings.js") },
  "recon-summary": { kind: "validation", summary: "Digest of recon.json", load: () => import("./commands/recon/summary.js") },
  "improve-guards": { kind: "validation", summary: "Improve's regression-safety and token-budget guards: which fails, computed from scores, effects and sizes", load: () => import("./commands/reports/improve-guards.js") },
  "validate-auxiliary-report": { kind: "validation", summary: "Check a challenger, scout, verifier, checker or curator report", load: () => import("./commands/reports/auxiliary.js") },
  "worker-completion-validate": { kind: "validation", summary: "Check a worker's completion report", load: () => import("./commands/reports/worker-completion.js") },
  // build and test
  "finalize": { kind: "build", summary: "Validate role briefs, compute overlaps and checksums, initialise statuses; install a draft plan", load: () => import("./commands/plan/finalize.js") },
  "self-test": { kind: "test", summary: "Run every command against synthetic fixtures", load: () => import("./commands/workspace/self-test.js") },
};

export const commandNames = Object.keys(registry);
