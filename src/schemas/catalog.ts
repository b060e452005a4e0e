// The zod schemas the `schema` command documents, by name. The build turns each into JSON Schema once
// (src/schemas/json-schemas.ts, generated), so `schema` and `workflow` never load zod at run time;
// test/unit/json-schemas.test.ts fails when the generated file no longer matches these.
import type { z } from "zod";
import { MemoryEntrySchema } from "./memory.js";
import { PlanSchema } from "./plan.js";
import { ReconSchema } from "./recon.js";
import { ReflectionEntrySchema } from "./reflection.js";
import { SkillFeaturesSchema } from "./skill-features.js";
import {
  ChallengerReportSchema,
  ExpertArtifactSchema,
  IntegrationVerifierReportSchema,
  MemoryCuratorReportSchema,
  RegressionCheckerReportSchema,
  ScoutReportSchema,
  WorkerCompletionSchema,
} from "./reports.js";

export const SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  plan: PlanSchema,
  memory: MemoryEntrySchema,
  reflection: ReflectionEntrySchema,
  recon: ReconSchema,
  expert: ExpertArtifactSchema,
  challenger: ChallengerReportSchema,
  scout: ScoutReportSchema,
  "integration-verifier": IntegrationVerifierReportSchema,
  "regression-checker": RegressionCheckerReportSchema,
  "memory-curator": MemoryCuratorReportSchema,
  "worker-completion": WorkerCompletionSchema,
  "skill-features": SkillFeaturesSchema,
};

/**
 * How a schema becomes JSON Schema: io "input", the shape of the file as written (defaults not yet applied);
 * anything JSON Schema cannot say (refinements, custom checks) is left out rather than failing.
 */
export const JSON_SCHEMA_OPTIONS = { io: "input", unrepresentable: "any" } as const;
