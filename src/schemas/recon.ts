// recon.json v1 as a zod schema (contract 2.4), for the `schema` command: it describes what the recon lead writes.
// recon-validate checks the file by hand with the contract's exact messages; this schema states the same shape.
import { z } from "zod";
import { CONFIDENCES, EFFORTS, LEVELS, LEVERAGE_GROUPS } from "../lib/recon/recon-score.js";

const levelTable = LEVELS.map((l) => `${l.level} ${l.name} (${l.group}, weight ${l.weight})`).join("; ");

export const FindingSchema = z
  .looseObject({
    id: z.string().min(1).describe("Finding id, referenced from interventions' supportingFindings"),
    domain: z.enum(["codebase", "literature", "comparative", "theoretical"]).describe("Where the finding comes from"),
    source: z.string().min(1).describe("Researcher or document the finding comes from"),
    summary: z.string().min(1).describe("What was found, in one or two sentences"),
    implications: z.string().min(1).describe("What it means for the goal"),
    relevantLeverageLevels: z.array(z.int().min(1).max(7)).min(1).describe("Leverage levels (1-7) the finding bears on"),
  })
  .describe("One research finding; recon-validate and recon-rank refuse one without these fields");

const PositionSchema = z.looseObject({
  researcher: z.string().describe("Who holds this position"),
  claim: z.string().describe("What they claim"),
});

export const ContradictionSchema = z
  .looseObject({
    area: z.string().describe("Topic on which researchers disagree"),
    positionA: PositionSchema,
    positionB: PositionSchema,
    userDecisionNeeded: z.string().describe("The question the user has to decide"),
  })
  .describe("Two researchers disagree; the user decides");

export const InterventionSchema = z
  .looseObject({
    title: z.string().optional().describe("Short name of the intervention (required unless the [Seed] alias `name` is given)"),
    name: z.string().optional().describe("[Seed] alias of title, used only when title is absent"),
    id: z.string().optional().describe("[Seed] stable id"),
    rank: z.int().optional().describe("Rank written by the lead, 1 = best"),
    description: z.string().optional().describe("What changes and why"),
    leverageLevel: z
      .int()
      .min(1)
      .max(7)
      .describe(`Software-adjusted Meadows leverage level, an integer (not a boolean): ${levelTable}`),
    leverageGroup: z.enum(LEVERAGE_GROUPS).describe("Abson group of the level: 1-2 Intent, 3-4 Design, 5-6 Feedbacks, 7 Parameters"),
    leverageName: z
      .enum(LEVELS.map((l) => l.name) as [string, ...string[]])
      .optional()
      .describe("Name of the level; a mismatch with leverageLevel is a warning"),
    designGoal: z.string().describe("Ready-to-use goal for /do:design (empty gives a warning)"),
    constraints: z.array(z.string()).optional().describe("Hard rules the research established"),
    evidence: z.array(z.unknown()).optional().describe("References to the findings behind the intervention"),
    supportingFindings: z.array(z.unknown()).optional().describe("[Seed] name for evidence: finding ids"),
    wrongDirection: z
      .string()
      .optional()
      .describe("The tempting change that would make things worse; required (non-empty) when leverageLevel <= 5"),
    confidence: z.enum(CONFIDENCES).describe("Multiplier high 1.0, medium 0.7, low 0.4"),
    effort: z
      .enum([...EFFORTS, "low", "high"])
      .describe("Divisor trivial 0.5, small 1, medium 2, large 4, transformative 8; [Seed] low = small, high = large"),
    authorityRequired: z.enum(["developer", "team", "org"]).optional().describe("Who must approve the change"),
    risk: z.string().optional().describe("What could go wrong"),
    compositeScore: z.number().optional().describe("Computed by recon-validate: round(weight × confidence / effort, 2)"),
    score: z.number().optional().describe("[Seed] alias of compositeScore"),
  })
  .superRefine((iv, ctx) => {
    if (iv.title === undefined && iv.name === undefined) {
      ctx.addIssue({ code: "custom", path: ["title"], message: "title (or its alias name) is required" });
    }
    if (iv.leverageLevel <= 5 && !iv.wrongDirection) {
      ctx.addIssue({ code: "custom", path: ["wrongDirection"], message: `required for leverageLevel ${iv.leverageLevel}` });
    }
  })
  .describe("One ranked intervention: where to push, how hard, and the direction to avoid (no suggestedRoles: recon plans no roles)");

export const ReconSchema = z
  .looseObject({
    schemaVersion: z.literal(1).describe("Always 1"),
    goal: z.string().describe("The area or question investigated"),
    scope: z
      .union([z.string(), z.looseObject({})])
      .optional()
      .describe("Directories or systems investigated (required unless `context` is given)"),
    context: z
      .looseObject({})
      .optional()
      .describe("[Seed] same shape as plan.json context ({stack, conventions, testCommand, buildCommand, lsp}); accepted in place of scope"),
    sources: z
      .array(z.looseObject({ name: z.string(), artifact: z.string(), summary: z.string() }).partial())
      .optional()
      .describe("One entry per researcher: {name, artifact, summary}"),
    researchFindings: z.array(FindingSchema).optional(),
    interventions: z.array(InterventionSchema).max(5).describe("At most 5 interventions, best first"),
    contradictions: z.array(ContradictionSchema).describe("Disagreements between researchers ([] when none)"),
    knowledgeGaps: z.array(z.string()).optional().describe("Questions the research could not answer"),
    additionalFindings: z.int().min(0).optional().describe("Findings not promoted to interventions (default 0)"),
    timestamp: z.string().optional().describe("ISO 8601, e.g. 2026-02-18T09:04:05Z"),
  })
  .refine((doc) => doc.scope !== undefined || doc.context !== undefined, {
    message: "scope (or [Seed] context) is required",
    path: ["scope"],
  })
  .describe(".design/recon.json (schemaVersion 1): the recon lead's ranked interventions; persistent across archive. No suggestedRoles: design plans the roles");
