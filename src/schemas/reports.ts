// Agents' reports as zod schemas (contract 2.5-2.7), for the `schema` command: what an expert, an auxiliary
// agent or a worker writes. The validator commands check the same shapes by hand with the contract's messages;
// fields the helper does not check are described here as the prompts ask for them, and optional.
import { z } from "zod";

const strings = (what: string) => z.array(z.string()).describe(what);

export const ExpertArtifactSchema = z
  .looseObject({
    summary: z.string().describe("The expert's conclusions in a few sentences"),
    verificationProperties: z
      .array(
        z.looseObject({
          property: z.string().describe("A property the finished work must have, stated so it can be tested"),
          category: z.enum(["invariant", "boundary", "integration"]),
          testableVia: z.string().describe("How to test it: a command, a test name, a request"),
        }).partial(),
      )
      .describe("Testable properties that the plan's acceptance criteria and specs are built from ([] when none)"),
    qualityScores: z
      .record(
        z.enum(["protocolClarity", "constraintEnforcement", "errorHandling", "agentCoordination", "informationFlow", "promptEconomy", "verifiability"]),
        z.looseObject({
          score: z.int().min(1).max(5).describe("1, 3 and 5 have anchors in the rubric; 2 and 4 sit between"),
          evidence: z.string().min(1).describe("A quote or line range and what it makes the model do"),
        }),
      )
      .optional()
      .describe("improve's analysts: all seven dimensions scored 1-5 with evidence (expert-validate --scores requires them)"),
    featureScores: z
      .array(
        z.looseObject({
          feature: z.string().min(1).describe("The name of a feature the target's skill.json declares"),
          score: z.int().min(1).max(5).describe("How fully the prose delivers the feature's expected result in its scenario: 5 fully, 3 the main path only, 1 not at all"),
          evidence: z.string().min(1).describe("A quote or line range and what it makes the model do"),
        }),
      )
      .optional()
      .describe("improve's analysts: one score per declared feature of the target (expert-validate --features checks the coverage)"),
  })
  .describe(".design/expert-{name}.json: an expert's or researcher's artifact; other fields are free");

const ChallengerIssueSchema = z.looseObject({
  category: z.enum(["scope-gap", "overlap", "invalid-assumption", "missing-dependency", "criteria-gap", "constraint-conflict"]),
  severity: z.enum(["blocking", "high-risk", "low-risk"]).describe("blocking issues must be resolved before execution"),
  description: z.string().describe("What is wrong with the plan"),
  affectedRoles: strings("Names of the roles concerned"),
  recommendation: z.string().describe("How the lead should change the plan"),
});

export const ChallengerReportSchema = z
  .looseObject({
    issues: z.array(ChallengerIssueSchema).describe("Problems found in the plan ([] when none)"),
    summary: z.string().describe("One-paragraph verdict"),
  })
  .describe(".design/challenger-report.json: the challenger's review of the plan before execution");

const ScopeAreaSchema = z
  .looseObject({
    directory: z.string().describe("Directory inspected"),
    affectedRoles: strings("Roles working there"),
    actualStructure: z
      .looseObject({ files: z.array(z.string()), patterns: z.array(z.string()), conventions: z.array(z.string()) })
      .partial()
      .describe("What is really there"),
    expertAssumptions: z
      .array(
        z.looseObject({ expert: z.string(), assumption: z.string(), verified: z.boolean(), actualReality: z.string() }).partial(),
      )
      .describe("Experts' assumptions about this area, checked against the code"),
    integrationPoints: z.array(z.looseObject({ type: z.string(), description: z.string() }).partial()),
  })
  .partial();

const DiscrepancySchema = z
  .looseObject({
    area: z.string(),
    expected: z.string().describe("What the plan assumes"),
    actual: z.string().describe("What the code shows"),
    impact: z.enum(["high", "medium", "low"]),
    recommendation: z.string(),
  })
  .partial();

export const ScoutReportSchema = z
  .looseObject({
    scopeAreas: z.array(ScopeAreaSchema).describe("One entry per directory in the roles' scopes"),
    discrepancies: z.array(DiscrepancySchema).describe("Plan assumptions the code contradicts ([] when none)"),
    verificationSpecs: z
      .array(
        z.looseObject({
          role: z.string(),
          path: z.string(),
          exists: z.boolean(),
          runCommandValid: z.boolean(),
          issues: z.array(z.string()),
        }).partial(),
      )
      .optional()
      .describe("State of each spec file of plan.json verificationSpecs"),
    summary: z.string().describe("One-paragraph verdict"),
  })
  .describe(".design/scout-report.json: the scout's check of the plan against the real codebase");

const passFailSkipped = z.enum(["pass", "fail", "skipped"]);

export const IntegrationVerifierReportSchema = z
  .looseObject({
    status: z.enum(["PASS", "FAIL"]).describe("Overall verdict, upper case"),
    acceptanceCriteria: z
      .array(z.looseObject({ role: z.string(), criterion: z.string(), result: passFailSkipped, details: z.string() }).partial())
      .describe("Every role's acceptance criteria, re-run after all roles completed"),
    crossRoleIssues: z
      .array(
        z.looseObject({
          issue: z.string(),
          affectedRoles: z.array(z.string()),
          severity: z.enum(["blocking", "high", "medium", "low"]),
          suggestedFix: z.string(),
        }).partial(),
      )
      .describe("Problems at the boundaries between roles ([] when none)"),
    testResults: z
      .looseObject({ command: z.string(), exitCode: z.int(), output: z.string() })
      .partial()
      .describe("The project's test command and its outcome"),
    endToEndVerification: z
      .looseObject({ tested: z.boolean(), result: passFailSkipped, details: z.string() })
      .partial()
      .describe("Whether the goal works end to end"),
    verificationSpecs: z
      .array(
        z.looseObject({
          role: z.string(),
          path: z.string(),
          checksumValid: z.boolean(),
          specResult: passFailSkipped,
          details: z.string(),
        }).partial(),
      )
      .optional(),
    summary: z.string().describe("One-paragraph verdict"),
  })
  .describe(".design/integration-verifier-report.json: the verification after all roles completed");

export const RegressionCheckerReportSchema = z
  .looseObject({
    passed: z.boolean().describe("true when no regression was found"),
    changes: z.array(z.unknown()).describe("Changes examined"),
    regressions: z.array(z.unknown()).describe("Regressions found ([] when none)"),
    summary: z.string().describe("One-paragraph verdict"),
  })
  .describe("The regression checker's report");

export const MemoryCuratorReportSchema = z
  .looseObject({
    memories: z.array(z.unknown()).describe("Learnings proposed for .design/memory.jsonl ([] when none)"),
    summary: z.string().describe("One-paragraph summary"),
  })
  .describe("The memory curator's report");

export const WorkerCompletionSchema = z
  .looseObject({
    role: z.string().describe("The role name from plan.json"),
    achieved: z.boolean().describe("true when the role's goal was reached"),
    filesChanged: strings("Paths of the files created or changed"),
    acceptanceCriteria: z
      .array(
        z.looseObject({
          criterion: z.string().describe("The criterion text from the brief"),
          passed: z.boolean().describe("Whether its check passed"),
          evidence: z.string().describe("Command run and the output that proves it"),
        }),
      )
      .describe("One entry per acceptance criterion of the role"),
    keyDecisions: strings("Decisions other roles should know about").optional(),
    contextForDependents: z.string().optional().describe("What roles depending on this one need to know"),
  })
  .describe("A worker's completion report, sent to the lead as JSON");
