// schema: the JSON Schema of plan.json, the JSONL entries, recon.json or an agent's report, generated from the
// zod schemas, so an agent (or an editor) knows the exact shape before it writes the file.
import { z } from "zod";
import { defineCommand } from "../../lib/command.js";
import { usage } from "../../lib/errors.js";
import { MemoryEntrySchema } from "../../schemas/memory.js";
import { PlanSchema } from "../../schemas/plan.js";
import { ReconSchema } from "../../schemas/recon.js";
import { ReflectionEntrySchema } from "../../schemas/reflection.js";
import {
  ChallengerReportSchema,
  ExpertArtifactSchema,
  IntegrationVerifierReportSchema,
  MemoryCuratorReportSchema,
  RegressionCheckerReportSchema,
  ScoutReportSchema,
  WorkerCompletionSchema,
} from "../../schemas/reports.js";

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
};

export const SCHEMA_NAMES = Object.keys(SCHEMAS);

export default defineCommand({
  positionals: [{ name: "name", help: `schema name (${SCHEMA_NAMES.join(", ")})`, optional: true }],
  flags: { list: { type: "boolean", help: "list the schema names" } },
  run(_ctx, args) {
    const name = args.name as string | undefined;
    if (name === undefined || args.list) return { names: SCHEMA_NAMES };
    if (!Object.prototype.hasOwnProperty.call(SCHEMAS, name)) {
      throw usage(`schema: unknown name '${name}' (choose from ${SCHEMA_NAMES.join(", ")})`, { names: SCHEMA_NAMES });
    }
    // io "input": the shape of the file as written (defaults not yet applied); anything JSON Schema cannot say
    // (refinements, custom checks) is left out rather than failing.
    return { name, schema: z.toJSONSchema(SCHEMAS[name], { io: "input", unrepresentable: "any" }) };
  },
});
