// Locked read-modify-write of plan.json for the mutating plan commands (contract 1.7): a missing plan is reported
// without creating a lock; otherwise the plan is read, guarded (3.11) and changed under its lock, and written
// back atomically only when the change asks for it. The change edits the parsed document itself, so fields the
// helper does not know are written back untouched.
import { argLabel, confine, parseJsonText, pathKind, updateText } from "../../store.js";
import { OWN } from "../../base/owned.js";
import { HelperError } from "../../base/errors.js";
import { parsePlanText, type Json, type PlanPart } from "./plan.js";
import { pyStr } from "../values.js";

export interface PlanChange<R> {
  /** False leaves the file byte-for-byte as it was. */
  write: boolean;
  result: R;
}

export function serializePlan(doc: Json): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** The refusal of a plan that is not schemaVersion 4, worded as status words it. */
export function checkVersion(doc: Json): void {
  const v = doc.schemaVersion;
  if (!(typeof v === "number" && v === 4)) {
    throw new HelperError("E_SCHEMA", `bad_schema (schemaVersion=${pyStr(v)}, expected 4)`);
  }
}

/**
 * `path` is as the user gave it (messages quote it); it must resolve inside the project's .design/, and the write
 * goes to its real path (a symlinked plan.json is written through). A plan that is not schemaVersion 4 is refused
 * unless `anyVersion` (finalize, whose validation reports the version itself).
 */
export async function updatePlan<R>(
  cwd: string,
  path: string,
  parts: readonly PlanPart[],
  change: (doc: Json) => PlanChange<R>,
  opts: { anyVersion?: boolean } = {},
): Promise<R> {
  const abs = confine(cwd, argLabel("plan_path", path, false), path, "write", OWN.plan);
  const notFound = () => new HelperError("E_NOT_FOUND", `Plan file not found: ${path}`);
  if (pathKind(abs) === "missing") throw notFound(); // reported without creating a lock
  return updateText(
    abs,
    (text) => {
      if (text === null) throw notFound();
      const doc = parsePlanText(text, parts);
      if (!opts.anyVersion) checkVersion(doc);
      const { write, result } = change(doc);
      return { text: write ? serializePlan(doc) : null, result };
    },
    "Error writing plan file",
    "Error reading plan file",
  );
}

/** A batch read from stdin: a JSON array, or the contract's errors for update-style commands. */
export function parseStdinArray(text: string): unknown[] {
  let batch: unknown;
  try {
    batch = parseJsonText(text);
  } catch {
    throw new HelperError("E_JSON", "Invalid JSON in stdin");
  }
  if (!Array.isArray(batch)) throw new HelperError("E_SCHEMA", "Expected JSON array in stdin");
  return batch;
}
