// Zod schemas of one .design/reflection.jsonl line and of the self-evaluation it carries (contract 2.3).
// Documentation for the `schema` command (printed with z.toJSONSchema) and usable by validators; the reflection
// commands check by hand (src/lib/vocabulary.ts holds the shared enums) so they start fast.
import { z } from "zod";
import { REFLECTION_OUTCOMES, REFLECTION_SKILLS } from "../lib/vocabulary.js";

export const SkillSchema = z.enum(REFLECTION_SKILLS).describe("The skill whose run is evaluated.");
export type Skill = z.infer<typeof SkillSchema>;

export const OutcomeSchema = z
  .enum(REFLECTION_OUTCOMES)
  .describe("How the run ended: completed, partial (some roles done), failed, or aborted (stopped on purpose).");
export type Outcome = z.infer<typeof OutcomeSchema>;

const lessons = (what: string) => z.array(z.unknown()).describe(`${what} (an array, of strings in practice).`);
const free = (what: string) => z.unknown().optional().describe(`${what} Optional, not validated.`);

export const EvaluationSchema = z
  .object({
    whatWorked: lessons("What worked in this run"),
    whatFailed: lessons("What failed or cost time in this run"),
    doNextTime: lessons("Concrete things to do differently next time"),
    expertQuality: free("design: how useful each expert's artifact was."),
    crossReviewValue: free("design: value of the experts' cross-review, one of useful, redundant, skipped."),
    planCompleteness: free("design: how complete the plan turned out to be."),
    roleQuality: free("execute: per-role notes on the workers' output."),
    coordinationNotes: free("execute: notes on coordination between workers."),
    researchQuality: free("recon: quality of the research."),
    leverageAssessmentAccuracy: free("recon: how accurate the leverage levels were."),
    scopeDiscipline: free("recon: whether research stayed in scope."),
    researchersSpawned: free("recon: number of researchers spawned."),
    findingsCount: free("recon / improve: number of findings."),
    interventionsProduced: free("recon: number of interventions produced."),
    contradictionsFound: free("recon: number of contradictions found."),
    targetSkill: free("improve: the skill that was improved."),
    analysisMode: free("improve: general or targeted."),
    expertCount: free("improve: number of experts used."),
    qualityScores: free("improve: an object of quality scores."),
    rolesProduced: free("improve: number of roles produced."),
    reflectionsAnalyzed: free("reflect: number of reflections analysed."),
    patternsFound: free("reflect: number of patterns found."),
    hypothesesGenerated: free("reflect: number of hypotheses generated."),
    hypothesesApproved: free("reflect: number of hypotheses approved."),
  })
  .loose()
  .describe(
    "A run's self-evaluation (reflection-add stdin, checked by reflection-validate): whatWorked, whatFailed and " +
      "doNextTime are required arrays; the skill-specific fields are optional and free-form.",
  );
export type Evaluation = z.infer<typeof EvaluationSchema>;

export const ReflectionEntrySchema = z
  .object({
    id: z.string().describe("Entry id: a lowercase UUID v4."),
    timestamp: z.string().describe("When the reflection was written: UTC 'YYYY-MM-DDTHH:MM:SSZ'."),
    skill: SkillSchema,
    runId: z.string().optional().describe("The run it evaluates (the skill's open run when written): one reflection per run."),
    goal: z.string().min(1).describe("The run's goal."),
    outcome: OutcomeSchema,
    goalAchieved: z.boolean().describe("Whether the goal was achieved."),
    evaluation: EvaluationSchema,
  })
  .loose()
  .describe("One line of .design/reflection.jsonl, appended by reflection-add. Unknown keys are kept.");
export type ReflectionEntry = z.infer<typeof ReflectionEntrySchema>;
