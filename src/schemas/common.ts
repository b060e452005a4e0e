// Shared zod helpers: issue formatting as `path: message` (e.g. `roles[3].acceptanceCriteria[0].check: ...`).
import { z } from "zod";

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** One `path: message` string per zod issue; a root-level issue has no path prefix. */
export function formatIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = formatPath(issue.path);
    return path ? `${path}: ${issue.message}` : issue.message;
  });
}

/** Validate with a schema: the parsed value, or the formatted issues. */
export function check<T extends z.ZodType>(schema: T, value: unknown): { ok: true; value: z.infer<T> } | { ok: false; issues: string[] } {
  const r = schema.safeParse(value);
  return r.success ? { ok: true, value: r.data } : { ok: false, issues: formatIssues(r.error) };
}
