// The zod schemas printed by `schema` and the hand-written validator commands must agree on what a report is:
// each valid sample passes both, each invalid sample fails both.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { z } from "zod";
import { project } from "../helpers/design-dir.ts";
import { ReconSchema } from "../../src/schemas/recon.ts";
import {
  ChallengerReportSchema,
  ExpertArtifactSchema,
  IntegrationVerifierReportSchema,
  MemoryCuratorReportSchema,
  RegressionCheckerReportSchema,
  ScoutReportSchema,
  WorkerCompletionSchema,
} from "../../src/schemas/reports.ts";

interface Case {
  name: string;
  schema: z.ZodType;
  /** Validator command and arguments; the sample is written to r.json or given on stdin. */
  command: string;
  argv: string[];
  stdin?: boolean;
  valid: unknown;
  invalid: unknown[];
}

const intervention = {
  title: "Type-check gate in CI",
  rank: 1,
  leverageLevel: 3,
  leverageGroup: "Design",
  leverageName: "rules",
  designGoal: "Add tsc --noEmit to the CI pipeline",
  wrongDirection: "More manual review",
  confidence: "medium",
  effort: "small",
  evidence: ["f1"],
};
const { wrongDirection: _w, ...parameterIntervention } = {
  ...intervention,
  title: "Timeout",
  leverageLevel: 7,
  leverageGroup: "Parameters",
  leverageName: "parameters",
  effort: "low",
};

const CASES: Case[] = [
  {
    name: "recon",
    schema: ReconSchema,
    command: "recon-validate",
    argv: ["r.json"],
    valid: {
      schemaVersion: 1,
      goal: "Why do releases break?",
      scope: "src/",
      interventions: [intervention, parameterIntervention],
      contradictions: [{ area: "tests", positionA: { researcher: "a", claim: "x" }, positionB: { researcher: "b", claim: "y" }, userDecisionNeeded: "which?" }],
      additionalFindings: 2,
    },
    invalid: [
      { schemaVersion: 1, goal: "g", scope: "s", interventions: [{ ...intervention, leverageLevel: true }], contradictions: [] },
      { schemaVersion: 1, goal: "g", interventions: [], contradictions: [] },
      { schemaVersion: 1, goal: "g", scope: "s", interventions: [{ ...intervention, wrongDirection: "" }], contradictions: [] },
      { schemaVersion: 1, goal: "g", scope: "s", interventions: [{ ...intervention, effort: "huge" }], contradictions: [] },
      { schemaVersion: 2, goal: "g", scope: "s", interventions: [], contradictions: [] },
    ],
  },
  {
    name: "expert",
    schema: ExpertArtifactSchema,
    command: "expert-validate",
    argv: ["r.json"],
    valid: { summary: "Use REST", verificationProperties: [{ property: "GET /users returns 200", category: "integration", testableVia: "curl" }] },
    invalid: [{ summary: "s" }, { summary: "s", verificationProperties: {} }, "text"],
  },
  {
    name: "expert (improve's feature scores)",
    schema: ExpertArtifactSchema,
    command: "expert-validate",
    argv: ["r.json"],
    valid: { summary: "Clear flow", verificationProperties: [{ property: "The target is resolved before the analysts start" }], featureScores: [{ feature: "resolve-target", score: 4, evidence: "lines 40-52" }] },
    invalid: [
      { summary: "s", verificationProperties: [], featureScores: {} },
      { summary: "s", verificationProperties: [], featureScores: [{ feature: "a", score: 6, evidence: "e" }] },
      { summary: "s", verificationProperties: [], featureScores: [{ feature: "a", score: 3 }] },
      { summary: "s", verificationProperties: [], featureScores: [{ score: 3, evidence: "e" }] },
    ],
  },
  {
    name: "challenger",
    schema: ChallengerReportSchema,
    command: "validate-auxiliary-report",
    argv: ["r.json", "--type", "challenger"],
    valid: {
      issues: [{ category: "overlap", severity: "high-risk", description: "d", affectedRoles: ["a", "b"], recommendation: "r" }],
      summary: "One overlap",
    },
    invalid: [
      { issues: {}, summary: "s" },
      { issues: [{ category: "style", severity: "blocking", description: "d", affectedRoles: [], recommendation: "r" }], summary: "s" },
      { issues: [{ category: "overlap" }], summary: "s" },
    ],
  },
  {
    name: "scout",
    schema: ScoutReportSchema,
    command: "validate-auxiliary-report",
    argv: ["r.json", "--type", "scout"],
    valid: {
      scopeAreas: [{ directory: "src/api", affectedRoles: ["api"], actualStructure: { files: ["a.ts"] }, integrationPoints: [] }],
      discrepancies: [{ area: "db", expected: "pg", actual: "sqlite", impact: "high", recommendation: "r" }],
      summary: "s",
    },
    invalid: [{ scopeAreas: [], summary: "s" }, { scopeAreas: "src", discrepancies: [], summary: "s" }],
  },
  {
    name: "integration-verifier",
    schema: IntegrationVerifierReportSchema,
    command: "validate-auxiliary-report",
    argv: ["r.json", "--type", "integration-verifier"],
    valid: {
      status: "PASS",
      acceptanceCriteria: [{ role: "api", criterion: "c", result: "pass", details: "ok" }],
      crossRoleIssues: [],
      testResults: { command: "npm test", exitCode: 0, output: "ok" },
      endToEndVerification: { tested: true, result: "pass", details: "ok" },
      summary: "All good",
    },
    invalid: [
      { status: "pass", acceptanceCriteria: [], crossRoleIssues: [], testResults: {}, endToEndVerification: {}, summary: "" },
      { status: "PASS", acceptanceCriteria: [], crossRoleIssues: [], testResults: [], endToEndVerification: {}, summary: "" },
    ],
  },
  {
    name: "regression-checker",
    schema: RegressionCheckerReportSchema,
    command: "validate-auxiliary-report",
    argv: ["r.json", "--type", "regression-checker"],
    valid: { passed: true, changes: ["src/a.ts"], regressions: [], summary: "none" },
    invalid: [{ passed: "yes", changes: [], regressions: [], summary: "" }, { passed: true, changes: [], summary: "" }],
  },
  {
    name: "memory-curator",
    schema: MemoryCuratorReportSchema,
    command: "validate-auxiliary-report",
    argv: ["r.json", "--type", "memory-curator"],
    valid: { memories: [{ category: "pattern", keywords: ["api"], content: "c" }], summary: "1 memory" },
    invalid: [{ memories: {}, summary: "" }, { summary: "" }, [1]],
  },
  {
    name: "worker-completion",
    schema: WorkerCompletionSchema,
    command: "worker-completion-validate",
    argv: [],
    stdin: true,
    valid: {
      role: "api",
      achieved: true,
      filesChanged: ["src/api/users.ts"],
      acceptanceCriteria: [{ criterion: "tests pass", passed: true, evidence: "12 passed" }],
      keyDecisions: ["REST"],
      contextForDependents: "GET /users",
    },
    invalid: [
      { role: "test" },
      { role: "api", achieved: true, filesChanged: [], acceptanceCriteria: [{ criterion: "c" }] },
      { role: "api", achieved: true, filesChanged: [], acceptanceCriteria: [], keyDecisions: "REST" },
      { role: "api", achieved: "yes", filesChanged: [], acceptanceCriteria: [] },
    ],
  },
];

async function runValidator(t: any, c: Case, sample: unknown) {
  const json = JSON.stringify(sample);
  if (c.stdin) return project(t).run(c.command, c.argv, { stdin: json });
  return project(t, { "r.json": json }).run(c.command, c.argv);
}

describe("report schemas agree with the validator commands", () => {
  for (const c of CASES) {
    it(`a valid ${c.name} sample passes ${c.command} and the zod schema`, async (t) => {
      const out = await runValidator(t, c, c.valid);
      assert.equal(out.ok, true, String(out.error));
      const parsed = c.schema.safeParse(c.valid);
      assert.equal(parsed.success, true, parsed.success ? "" : JSON.stringify(parsed.error.issues));
    });

    it(`invalid ${c.name} samples fail ${c.command} and the zod schema`, async (t) => {
      for (const sample of c.invalid) {
        const out = await runValidator(t, c, sample);
        assert.equal(out.ok, false, `validator accepted ${JSON.stringify(sample)}`);
        assert.equal(out.exitCode, 1);
        assert.equal(c.schema.safeParse(sample).success, false, `schema accepted ${JSON.stringify(sample)}`);
      }
    });
  }
});
