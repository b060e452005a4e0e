// Zod schema of a skill's feature file, `skills/<name>/skill.json` beside its SKILL.md (seed 004's skill.json, its
// field names kept): the skill's goal, its acceptance criteria and its features, each with a Given-When-Then scenario
// and the result expected. Claude Code does not read the file (test/e2e/skills.test.ts); the suite does
// (test/plugin/features.test.ts: every feature is exercised by a test that names it, every name a test gives is a
// feature), and /do:improve's analysts score a skill's prose against it. `schema skill-features` prints it.
import { z } from "zod";

const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** "Given …, When …, Then …": the three keywords, capitalised, in this order. */
const GIVEN_WHEN_THEN = /^Given\b[\s\S]*\bWhen\b[\s\S]*\bThen\b/;

export const SkillFeatureSchema = z
  .strictObject({
    name: z.string().regex(KEBAB).describe("The feature's identifier, kebab-case, unique within the skill; a test names it as [feature:<skill>/<name>]."),
    test_scenario: z
      .string()
      .regex(GIVEN_WHEN_THEN)
      .describe("How to validate the feature, in Given-When-Then form: 'Given <situation>, When <action>, Then <observable outcome>'."),
    expected_result: z.string().min(1).describe("What a test observes when the feature works."),
    optional: z
      .boolean()
      .optional()
      .describe("true: applies only when the run calls for it (an opt-in path, a tier); false or absent: always applies."),
    ext: z
      .strictObject({
        script: z.string().min(1).describe("A script beside SKILL.md that carries the feature, relative to the skill's folder."),
        skill_md_ref: z
          .string()
          .regex(/^#[a-z0-9-]+(?:\/[a-z0-9-]+)*$/)
          .describe("The SKILL.md section that carries the feature: '#<heading anchor>' or '#<heading>/<subheading>'."),
        subskill: z.string().regex(KEBAB).describe("A sub-skill folder that owns the feature."),
      })
      .partial()
      .optional()
      .describe("Where the feature lives beyond the scenario."),
  })
  .describe("One feature of the skill: a behaviour a test can check.");
export type SkillFeature = z.infer<typeof SkillFeatureSchema>;

export const SkillFeaturesSchema = z
  .strictObject({
    goal: z.string().min(1).describe("What the skill achieves, in one or two sentences."),
    acceptance_criteria: z.array(z.string().min(1)).min(1).describe("Measurable conditions every run of the skill meets."),
    features: z
      .array(SkillFeatureSchema)
      .min(1)
      .refine((fs) => new Set(fs.map((f) => f.name)).size === fs.length, { message: "feature names must be unique" })
      .describe("The skill's features, each checked by at least one test."),
  })
  .describe("skills/<name>/skill.json: a skill's goal, acceptance criteria and features (seed 004).");
export type SkillFeatures = z.infer<typeof SkillFeaturesSchema>;
