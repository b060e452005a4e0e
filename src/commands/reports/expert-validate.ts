// expert-validate: an expert artifact has a summary and an array of verification properties (contract 4.21).
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command.js";
import { HelperError } from "../../lib/errors.js";
import { isObject } from "../../lib/values.js";
import { readJson } from "../../store.js";
import { absentKeys } from "./checks.js";

/** Read an artifact with the messages shared by expert-validate and validate-auxiliary-report. */
export function loadArtifact(cwd: string, path: string): unknown {
  const r = readJson(resolve(cwd, path));
  if (r.kind === "missing") throw new HelperError("E_NOT_FOUND", `Artifact file not found: ${path}`);
  if (r.kind === "error") throw new HelperError("E_READ", `Error reading artifact: ${r.detail}`);
  if (r.kind === "invalid") throw new HelperError("E_JSON", `Invalid JSON in artifact: ${r.detail}`);
  return r.value;
}

export default defineCommand({
  positionals: [{ name: "artifact_path", help: "expert artifact, e.g. .design/expert-api.json", path: "read" }],
  flags: {},
  run(ctx, args) {
    const doc = loadArtifact(ctx.cwd, args.artifact_path as string);
    if (!isObject(doc)) throw new HelperError("E_SCHEMA", "Artifact must be a JSON object");
    const absent = absentKeys(doc, ["summary", "verificationProperties"]);
    if (absent.length) throw new HelperError("E_INVALID", `Missing required fields: ${absent.join(", ")}`);
    if (!Array.isArray(doc.verificationProperties)) {
      throw new HelperError("E_INVALID", "verificationProperties must be an array");
    }
    return { valid: true };
  },
});
