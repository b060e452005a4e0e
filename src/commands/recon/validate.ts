// recon-validate: schema validation and deterministic scoring of recon.json (contract 4.25). Read-only: the scores
// are reported, never written back. The first failure wins.
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { ReconInvalid, validateRecon } from "../../lib/recon/recon-score.js";
import { readJson } from "../../store.js";

export const RECON_PATH = { name: "recon_path", help: "recon file", default: ".design/recon.json", path: "read" } as const;

/** Read and parse recon.json with the contract's file errors (shared with recon-summary). */
export function loadRecon(cwd: string, path: string): unknown {
  const r = readJson(resolve(cwd, path));
  if (r.kind === "missing") throw new HelperError("E_NOT_FOUND", `Recon file not found: ${path}`);
  if (r.kind === "error") throw new HelperError("E_READ", `Error reading recon file: ${r.detail}`);
  if (r.kind === "invalid") throw new HelperError("E_JSON", `Invalid JSON in recon file: ${r.detail}`);
  return r.value;
}

/** A ReconInvalid as the helper's error: structure problems are E_SCHEMA, findings E_INVALID. */
export function reconError(err: unknown): unknown {
  if (err instanceof ReconInvalid) return new HelperError(err.kind === "structure" ? "E_SCHEMA" : "E_INVALID", err.message);
  return err;
}

export default defineCommand({
  positionals: [RECON_PATH],
  flags: {},
  run(ctx, args) {
    const doc = loadRecon(ctx.cwd, args.recon_path as string);
    try {
      const { interventions, ranking, warnings } = validateRecon(doc);
      return { interventions, validated: true, ranking, warnings };
    } catch (err) {
      throw reconError(err);
    }
  },
});
