// Plain (zod-free) facts about reflection.jsonl shared by the reflection commands: the skill and outcome enums in
// their message order (from lib/vocabulary.ts, which src/schemas/reflection.ts reads too), and the three array
// fields of an evaluation (contract 2.3).
import { isObject } from "../../lib/values.js";
import { REFLECTION_OUTCOMES, REFLECTION_SKILLS } from "../../lib/vocabulary.js";
import { parseJsonText } from "../../store.js";

export const REFLECTION_PATH = { name: "reflection_path", help: "reflection file (JSONL)", default: ".design/reflection.jsonl", path: "read" } as const;

export const SKILLS = REFLECTION_SKILLS;
export const OUTCOMES = REFLECTION_OUTCOMES;

/** Required array fields of an evaluation, in the order messages list them. */
export const EVALUATION_FIELDS = ["whatWorked", "whatFailed", "doNextTime"] as const;

export interface EvaluationProblems {
  /** Fields that are not present at all. */
  missing: string[];
  /** Fields that are present but not arrays. */
  notArrays: string[];
}

/** What is wrong with an evaluation object's three required fields (element types are not checked). */
export function evaluationProblems(evaluation: Record<string, unknown>): EvaluationProblems {
  const missing: string[] = [];
  const notArrays: string[] = [];
  for (const f of EVALUATION_FIELDS) {
    if (!Object.prototype.hasOwnProperty.call(evaluation, f)) missing.push(f);
    else if (!Array.isArray(evaluation[f])) notArrays.push(f);
  }
  return { missing, notArrays };
}

/** Parse stdin as an evaluation: the object, or which of the two failures happened. */
export function parseEvaluation(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; reason: "json"; detail: string } | { ok: false; reason: "type" } {
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (err) {
    return { ok: false, reason: "json", detail: err instanceof Error ? err.message : String(err) };
  }
  return isObject(value) ? { ok: true, value } : { ok: false, reason: "type" };
}
