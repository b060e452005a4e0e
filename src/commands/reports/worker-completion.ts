// worker-completion-validate: checks the completion report a worker sends on stdin (contract 2.7, 4.28), or the
// report file it wrote (`report_path`, as its sibling expert-validate takes one): given a path, stdin is not read.
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { isObject } from "../../lib/values.js";
import { parseJson, readText } from "../../store.js";
import { absentKeys, fieldErrors, schemaFailure, type PyTypeName } from "./checks.js";

export const WORKER_FIELDS: ReadonlyArray<readonly [string, PyTypeName]> = [
  ["role", "str"],
  ["achieved", "bool"],
  ["filesChanged", "list"],
  ["acceptanceCriteria", "list"],
];
export const CRITERION_FIELDS = ["criterion", "passed", "evidence"] as const;

/** Every schema error of a worker completion report; empty when valid. */
export function workerCompletionErrors(report: unknown): string[] {
  const errors = fieldErrors(report, WORKER_FIELDS);
  if (errors.length || !isObject(report)) return errors;
  (report.acceptanceCriteria as unknown[]).forEach((c, i) => {
    if (!isObject(c)) {
      errors.push(`acceptanceCriteria[${i}] must be an object`);
      return;
    }
    const absent = absentKeys(c, CRITERION_FIELDS);
    if (absent.length) errors.push(`acceptanceCriteria[${i}]: missing ${absent.join(", ")}`);
  });
  if ("keyDecisions" in report && !Array.isArray(report.keyDecisions)) errors.push("keyDecisions must be an array");
  if ("contextForDependents" in report && typeof report.contextForDependents !== "string") {
    errors.push("contextForDependents must be a string");
  }
  return errors;
}

export default defineCommand({
  positionals: [
    { name: "report_path", help: "the worker's report file, e.g. .design/worker-api.json; omit to read it from stdin", optional: true, path: "read", insteadOfStdin: true },
  ],
  flags: {},
  stdin: "report.json",
  async run(ctx, args) {
    const path = args.report_path as string | undefined;
    let text: string;
    if (path === undefined || path === "") text = await ctx.stdin();
    else {
      const r = readText(resolve(ctx.cwd, path));
      if (r.kind === "missing") throw new HelperError("E_NOT_FOUND", `Report file not found: ${path}`);
      if (r.kind === "error") throw new HelperError("E_READ", `Error reading report: ${r.detail}`);
      text = r.text;
    }
    const parsed = parseJson(text);
    if (!parsed.ok) throw new HelperError("E_JSON", `Invalid JSON in worker completion: ${parsed.detail}`);
    const errors = workerCompletionErrors(parsed.value);
    if (errors.length) throw new HelperError("E_INVALID", schemaFailure(errors));
    return { valid: true };
  },
});
