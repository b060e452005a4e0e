// What a report shows, gathered from .design/ by the `report` command and drawn by html.ts and terminal.ts. Every
// field is plain data already checked for type: the drawing code trusts shapes, never content (all text is escaped).

export interface AttemptView {
  attempt: number;
  model: string;
  agent: string;
  outcome: string;
  stalled: boolean;
  /** ISO times where the attempt log records them. */
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  tokens: number | null;
  toolUses: number | null;
  /** Check evidence recorded for the attempt (run-checks): an acceptance check or the role's spec command, its exit
   *  code, how long it ran and the last lines of its output. */
  evidence: EvidenceView[];
  /** A retry's reflexion, as its in_progress update gave it. */
  reflexion: { rootCause: string; wrongAssumptions: string; alternative: string } | null;
  /** Why the attempt started above the scheduler's tier (budget's forecast), e.g. "haiku → sonnet: …". */
  escalated: string | null;
}

export interface EvidenceView {
  kind: "check" | "spec";
  check: string;
  exitCode: number | null;
  passed: boolean;
  timedOut: boolean;
  durationMs: number | null;
  output: string;
}

export interface RoleView {
  index: number;
  name: string;
  goal: string;
  status: string;
  /** The plan's model for the role. */
  model: string;
  /**
   * The tier the role runs or last ran on (its last attempt's model; the plan's before any attempt): what the
   * summary, the graph and the role's section all show (issue 31: they disagreed).
   */
  tier: string;
  /** A role update-status skipped after a dependency failed, while that dependency still has a retry: it waits. */
  waitsOnRetry: string[];
  agent: string;
  scope: string[];
  dependencies: string[];
  criteria: Array<{ criterion: string; check: string }>;
  attempts: AttemptView[];
  result: string;
  tokens: number | null;
}

export interface RunView {
  runId: string;
  startedAt: string;
  completedAt: string | null;
  outcome: string;
  /** The run's checkpoints in order: each phase the lead closed, when, and the decisions it wrote. */
  phases: Array<{ phase: string; at: string; decisions: string }>;
  /** Phases the run never checkpointed (run-complete records them for a run that ended early). */
  skippedPhases: string[];
}

export interface HistoryView {
  timestamp: string;
  skill: string;
  outcome: string;
  goalAchieved: boolean;
  goal: string;
  tokens: number | null;
}

/** What the plan's agents cost: record-usage's records summed (lib/cost/cost.ts). */
export interface CostView {
  tokens: number;
  byTier: Record<string, number>;
  byRun: Array<{ runId: string; tokens: number }>;
  auxiliaries: Array<{ agent: string; tokens: number }>;
  /** Attempts that ended without a usage record. */
  unrecorded: number;
}

export interface ReportModel {
  goal: string;
  generatedAt: string;
  state: string;
  roles: RoleView[];
  deps: number[][];
  overlaps: Array<[number, number]>;
  counts: Record<string, number>;
  run: RunView | null;
  verifier: { verdict: string; summary: string; blocking: string[] } | null;
  regression: { passed: boolean; summary: string } | null;
  /** The goal review: the verdict the lead wrote at the verify checkpoint, the execute reflection's goalAchieved and
   *  what that run's evaluation says worked, failed and should change. */
  goalReview: {
    goalAchieved: boolean;
    verdict: string;
    summary: string;
    whatWorked: string[];
    whatFailed: string[];
    doNextTime: string[];
  } | null;
  memories: Array<{ category: string; content: string; keywords: string[] }>;
  history: HistoryView[];
  cost: CostView;
  /** What `next` would do now: the scheduler's own answer, not a guess from statuses. */
  next: { done: boolean; reason: string; start: string[]; running: string[]; waiting: Array<{ name: string; on: string[] }> } | null;
  /** Entries in .design/memory.jsonl. */
  memoryCount: number;
  /** Runs of any skill that started and never closed: where they stopped. */
  interrupted: Array<{ skill: string; lastPhase: string | null; nextPhase: string | null; startedAt: string }>;
  problems: string[];
}

/** One glyph per status, for the terminal and beside the colour in the report (never colour alone). */
export const GLYPH: Record<string, string> = {
  completed: "✔",
  failed: "✖",
  in_progress: "▶",
  pending: "○",
  skipped: "⊘",
  blocked: "■",
};

export const glyphOf = (status: string): string => GLYPH[status] ?? "?";
