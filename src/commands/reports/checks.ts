// Hand-written report checks shared by the report validators (contract 4.27, 4.28): presence of required keys and
// Python-style type names in the messages, e.g. `Field 'issues' must be list, got dict`.
import { isObject, pyType } from "../../lib/values.js";

export type PyTypeName = "list" | "dict" | "str" | "bool";

export function isPyType(v: unknown, t: PyTypeName): boolean {
  switch (t) {
    case "list":
      return Array.isArray(v);
    case "dict":
      return isObject(v);
    case "str":
      return typeof v === "string";
    case "bool":
      return typeof v === "boolean";
  }
}

/** Keys of `required` absent from `obj` (present with any value counts as present), in the given order. */
export function absentKeys(obj: Record<string, unknown>, required: readonly string[]): string[] {
  return required.filter((k) => !Object.prototype.hasOwnProperty.call(obj, k));
}

/**
 * Step "schema errors" of a report: not an object, one error listing absent keys, then one per present key of the
 * wrong type, in the table's order.
 */
export function fieldErrors(report: unknown, fields: ReadonlyArray<readonly [string, PyTypeName]>): string[] {
  if (!isObject(report)) return ["report must be a JSON object"];
  const errors: string[] = [];
  const absent = absentKeys(report, fields.map(([f]) => f));
  if (absent.length) errors.push(`Missing required fields: ${absent.join(", ")}`);
  for (const [f, t] of fields) {
    if (Object.prototype.hasOwnProperty.call(report, f) && !isPyType(report[f], t)) {
      errors.push(`Field '${f}' must be ${t}, got ${pyType(report[f])}`);
    }
  }
  return errors;
}

export function schemaFailure(errors: readonly string[]): string {
  return `Schema validation failed: ${errors.join("; ")}`;
}
