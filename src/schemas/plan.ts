// Zod schema of .design/plan.json, schemaVersion 4 (contract 2.1). Every object is loose: fields the helper does
// not know are kept. finalize runs it after the contract's own checks, so a plan finalize accepts also satisfies
// it; the `schema` command prints z.toJSONSchema(PlanSchema) as documentation for the skills.
import { z } from "zod";
import { ATTEMPT_OUTCOMES, COMPLEXITIES, DEFAULT_STALL_MINUTES, MODEL_TIERS, ROLE_STATUSES, STALL_MINUTES_RANGE } from "../lib/plan/plan.js";
import { GOAL_TYPES, SPEC_WAIVERS, TIERS } from "../lib/plan/plan-rules.js";

const nonEmpty = (what: string) => z.string().min(1).describe(what);

export const RoleStatusSchema = z
  .enum(ROLE_STATUSES)
  .describe(
    "pending: not started or reset for retry; in_progress: a worker owns it; completed: terminal success; " +
      "failed: attempt failed (retryable while attempts < 3); skipped: terminal because a dependency failed; " +
      "blocked: failure-like terminal state only the lead sets by hand. A missing or null status reads as pending.",
  );
export type RoleStatus = z.infer<typeof RoleStatusSchema>;

export const ScopeSchema = z
  .looseObject({
    directories: z.array(z.string()).optional().describe("Directories the role may change, e.g. \"src/api/\"."),
    patterns: z.array(z.string()).optional().describe("Glob patterns the role may change, e.g. \"src/**/*.test.ts\"."),
    dependencies: z
      .array(z.string())
      .optional()
      .describe("Names of roles that must complete before this one starts (must exist in roles)."),
  })
  .describe("The role's territory and prerequisites; at least one of directories/patterns must be non-empty.");

export const ExpertContextSchema = z
  .looseObject({
    expert: nonEmpty("Name of the expert whose artifact applies."),
    artifact: nonEmpty("Path of the expert artifact, e.g. .design/expert-architect.json."),
    relevance: z.string().optional().describe("Why the artifact matters for this role."),
  })
  .describe("An expert artifact the worker must read.");

export const AcceptanceCriterionSchema = z
  .looseObject({
    criterion: nonEmpty("What must be true when the role is done."),
    check: nonEmpty(
      "Shell command that exits 0 when the criterion holds. At least one check per role must verify behaviour " +
        "(build, test, run), not only grep or test -f.",
    ),
  })
  .describe("One verifiable acceptance criterion.");

export const AssumptionSchema = z
  .looseObject({
    text: nonEmpty("The assumption."),
    severity: z
      .enum(["blocking", "non-blocking"])
      .optional()
      .describe("blocking assumptions require rollbackTriggers."),
  })
  .describe("An assumption the role's brief relies on.");

export const RunSchema = z
  .looseObject({
    command: nonEmpty(
      "A command the work needs besides its checks (running the program it builds, its examples, an end-to-end run), one line.",
    ),
    args: z
      .enum(["none", "plain"])
      .optional()
      .describe(
        "none (the default): granted exactly as written; plain: granted as a prefix followed by plain words (letters, digits, " +
          "_ . / : @ % + , = -; no quotes, $, ;, &, |, redirection or globs). A prefix names the project's program " +
          "(`python3 -m textkit`, `node src/cli.js`), never a shell, a wrapper or an interpreter by itself.",
      ),
    why: z.string().optional().describe("What the run is for, shown with the grant question."),
  })
  .describe("A command the grant lets this role's worker run (and the lead and auxiliaries).");

export const RoleSchema = z
  .looseObject({
    name: nonEmpty("Unique role name; the worker's identity."),
    goal: nonEmpty("What the worker must achieve."),
    model: z.enum(MODEL_TIERS).describe("Model for the worker: haiku, sonnet or opus (fable is accepted too: what the Agent tool takes)."),
    scope: ScopeSchema,
    expertContext: z.array(ExpertContextSchema).optional().describe("Expert artifacts relevant to the role."),
    constraints: z.array(z.string()).optional().describe("Hard rules the worker must follow."),
    runs: z
      .array(RunSchema)
      .optional()
      .describe("Commands the role's work needs besides its checks: each one a goal or constraint asks the worker to run."),
    acceptanceCriteria: z
      .array(AcceptanceCriterionSchema)
      .min(1)
      .describe("Criteria the worker proves before reporting completion (at least one)."),
    assumptions: z.array(AssumptionSchema).optional().describe("Assumptions behind the brief."),
    rollbackTriggers: z
      .array(z.string())
      .optional()
      .describe("Signals that the approach must be abandoned; required when an assumption is blocking."),
    fallback: z.string().nullable().optional().describe("Alternative approach if the first one fails."),
    status: RoleStatusSchema.nullable().optional(),
    result: z.unknown().optional().describe("Free-form outcome text written by the lead."),
    attempts: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe("Unsuccessful attempts so far; a failed role is retried while attempts < 3 and it has not stalled twice."),
    attemptLog: z
      .array(
        z
          .looseObject({
            attempt: z.number().int().positive().optional().describe("1-based attempt number."),
            model: z
              .string()
              .min(1)
              .optional()
              .describe("The model tier the attempt ran on (the next attempt's tier is one above a failed one's)."),
            agent: z
              .string()
              .min(1)
              .optional()
              .describe("The worker agent's name: its report is .design/worker-<agent>.json (slug, then slug--<attempt>)."),
            outcome: z
              .enum(ATTEMPT_OUTCOMES)
              .optional()
              .describe(
                "running (started, not yet recorded), completed, failed, stalled (the worker went silent; a role " +
                  "that stalled twice is not retried) or interrupted (closed by resume-reset; uses budget, no escalation).",
              ),
            reflexion: z
              .looseObject({
                rootCause: z.string().describe("What actually went wrong in the attempt before."),
                wrongAssumptions: z.string().describe("Which belief of the brief or the approach turned out false."),
                alternative: z.string().describe("The different approach this attempt takes."),
              })
              .optional()
              .describe("A retry's reflexion, given with its in_progress update (update-status refuses a retry without one)."),
          })
          .describe(
            "One attempt of the role. The helper also records startedAt, endedAt and runId (update-status; next for the " +
              "starts it records), result (the lead's result when it ended; each attempt keeps its own), " +
              "evidence (run-checks: one {kind, check, sha256, exitCode, passed, durationMs, output, ...} per check " +
              "and spec; completion requires it), usage (record-usage: tokens, toolUses, durationMs, source) and " +
              "escalated ({from, reason} when it started above the scheduler's tier).",
          ),
      )
      .optional()
      .describe(
        "The role's attempts in order, written by update-status (in_progress opens one, completed/failed closes it) " +
          "and resume-reset (never by hand). The scheduler (`next`) reads the tier, the agent name and the stalls from it.",
      ),
    directoryOverlaps: z
      .array(z.number().int().nonnegative())
      .optional()
      .describe("Indices j > i of roles that must wait for this one (recomputed by finalize)."),
  })
  .describe(
    "A role: the brief of one worker. update-status trims a completed role to name, goal, status, result, " +
      "model, scope, attempts and attemptLog.",
  );
export type Role = z.infer<typeof RoleSchema>;

export const AuxiliaryRoleSchema = z
  .looseObject({
    name: nonEmpty("challenger, scout, integration-verifier, regression-checker or memory-curator."),
    type: z.enum(["pre-execution", "post-execution", "per-role"]).describe("When the auxiliary role runs."),
    goal: nonEmpty("What the auxiliary role checks."),
    trigger: z
      .enum(["after-design", "before-execution", "after-role-complete", "after-all-roles-complete"])
      .describe("The event that starts it."),
    model: z.enum(MODEL_TIERS).optional().describe("Model for the auxiliary agent: haiku, sonnet, opus or fable."),
    runs: z
      .array(RunSchema)
      .optional()
      .describe("Commands its check needs besides the roles' (the integration verifier's end-to-end run of the goal)."),
  })
  .describe("An agent that checks the plan or the work without owning a territory.");
export type AuxiliaryRole = z.infer<typeof AuxiliaryRoleSchema>;

export const VerificationSpecSchema = z
  .looseObject({
    role: nonEmpty("Name of the role the spec verifies."),
    path: nonEmpty("Spec file, relative to the project root, e.g. .design/specs/spec-api.test.ts."),
    runCommand: nonEmpty("Shell command that runs the spec."),
    properties: z.array(z.string()).nullable().optional().describe("Properties the spec covers."),
    sha256: z.string().optional().describe("Lowercase hex SHA-256 of the spec file, written by finalize."),
  })
  .describe("An executable spec written at design time; workers must not edit it.");
export type VerificationSpec = z.infer<typeof VerificationSpecSchema>;

const ContextSchema = z
  .looseObject({
    stack: z.string().optional().describe("Languages, frameworks, tools."),
    conventions: z.union([z.array(z.string()), z.string()]).optional().describe("Project conventions."),
    testCommand: z.string().nullable().optional().describe("Command that runs the tests."),
    buildCommand: z.string().nullable().optional().describe("Command that builds the project."),
    lsp: z.unknown().optional().describe("Language-server availability, free-form."),
    grantRequiresSandbox: z
      .boolean()
      .optional()
      .describe("Execute's grant approves its commands only while Claude Code's sandbox is on (sandbox.enabled and failIfUnavailable)."),
    tokenBudget: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Default token budget of an execute run (its workers' and auxiliaries' recorded usage); /do:execute --budget overrides it for a run."),
  })
  .describe("What the workers need to know about the project.");

const ExpertArtifactSchema = z
  .looseObject({
    name: z.string().optional().describe("Expert name."),
    path: z.string().optional().describe("Artifact path, e.g. .design/expert-architect.json."),
    summary: z.string().optional().describe("One-paragraph summary."),
  })
  .describe("An expert artifact produced during design.");

const DesignDecisionSchema = z
  .looseObject({
    conflict: z.string().optional().describe("What the experts disagreed on."),
    experts: z.array(z.string()).optional().describe("Experts involved."),
    decision: z.string().optional().describe("What was decided."),
    reasoning: z.string().optional().describe("Why."),
  })
  .describe("A resolved disagreement between experts.");

const ProgressSchema = z
  .looseObject({
    completedRoles: z
      .array(z.string())
      .optional()
      .describe("Names of completed roles in completion order, each at most once."),
  })
  .describe("Execution progress, maintained by update-status.");

export const PlanSchema = z
  .looseObject({
    schemaVersion: z.literal(4).describe("Plan format version; must be 4."),
    goal: z.string().optional().describe("The overall goal."),
    tier: z
      .enum(TIERS)
      .optional()
      .describe("design's complexity tier. complex and high-stakes (like 4+ roles) make verificationSpecs mandatory unless specsWaiver says why none apply."),
    goalType: z
      .enum(GOAL_TYPES)
      .optional()
      .describe("implementation (changes code: a scout is required), meta (prompts, skills, process) or research. Absent counts as implementation."),
    specsWaiver: z
      .looseObject({
        reason: z.enum(SPEC_WAIVERS).describe("no-test-command: context has no testCommand or buildCommand; docs-config-only: not for an implementation goal."),
        detail: nonEmpty("Why no spec applies to this plan."),
      })
      .optional()
      .describe("Why a complex plan has no verificationSpecs."),
    complexity: z
      .enum(COMPLEXITIES)
      .optional()
      .describe("Design's tier for the goal (design-tier): low = the quick path (no experts, at most 3 roles in one area); medium and high = the full path."),
    complexityOverride: z
      .looseObject({
        from: z.enum(COMPLEXITIES).describe("The complexity finalize judged (judgedComplexity)."),
        reason: nonEmpty("Why this plan is lower than judged, a sentence of 5+ words."),
      })
      .optional()
      .describe("Why `complexity` is below finalize's own judgement of the goal and the draft; without it finalize refuses the lower one."),
    skippedAuxiliaries: z
      .array(z.looseObject({ name: nonEmpty("The auxiliary left out."), reason: nonEmpty("Why this plan does without it, 5+ words.") }))
      .optional()
      .describe("The auxiliaries a quick plan leaves out (challenger, scout), each with its reason; finalize refuses a quick plan that drops one without it."),
    context: ContextSchema.optional(),
    stallMinutes: z
      .number()
      .int()
      .min(STALL_MINUTES_RANGE[0])
      .max(STALL_MINUTES_RANGE[1])
      .optional()
      .describe(
        `Minutes a worker's attempt may run before \`next\` reports it stalled (the lead stops it and records it failed, stalled); default ${DEFAULT_STALL_MINUTES}.`,
      ),
    expertArtifacts: z.array(ExpertArtifactSchema).optional().describe("Expert artifacts behind the plan."),
    interfaceContracts: z.string().optional().describe("Path to .design/interfaces.json when produced."),
    designDecisions: z.array(DesignDecisionSchema).optional().describe("Resolved expert conflicts."),
    verificationSpecs: z
      .array(VerificationSpecSchema)
      .nullable()
      .optional()
      .describe("Executable specs per role; finalize records their SHA-256."),
    roles: z.array(RoleSchema).min(1).max(8).describe("The roles, 1 to 8, one worker each."),
    auxiliaryRoles: z
      .array(AuxiliaryRoleSchema)
      .nullable()
      .optional()
      .describe("Checking agents. finalize requires challenger and integration-verifier, and a scout unless goalType is meta or research."),
    progress: ProgressSchema.optional(),
  })
  .describe(
    "The authoritative execution state (.design/plan.json): written by design, finalized by finalize, " +
      "changed by update-status and resume-reset. Unknown fields are kept.",
  );
export type Plan = z.infer<typeof PlanSchema>;
