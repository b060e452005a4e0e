// recon-summary: display digest of recon.json (contract 4.26). No schemaVersion check; a score missing from the
// file is computed the way recon-validate does [Fix D21].
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { confidenceOverall, summarizeIntervention } from "../../lib/recon/recon-score.js";
import { isEmpty, isObject } from "../../lib/values.js";
import { RECON_PATH, loadRecon } from "./validate.js";

export default defineCommand({
  positionals: [RECON_PATH],
  flags: {},
  run(ctx, args) {
    const doc = loadRecon(ctx.cwd, args.recon_path as string);
    if (!isObject(doc)) {
      throw new HelperError("E_SCHEMA", "Invalid recon structure: top-level value must be an object");
    }
    const raw = isEmpty(doc.interventions) ? [] : doc.interventions;
    if (!Array.isArray(raw)) throw new HelperError("E_SCHEMA", "interventions must be an array");
    raw.forEach((iv, i) => {
      if (!isObject(iv)) throw new HelperError("E_SCHEMA", `Intervention ${i}: must be an object`);
    });
    const interventions = raw as Record<string, unknown>[];
    return {
      interventionCount: interventions.length,
      topInterventions: interventions.map(summarizeIntervention),
      additionalFindings: "additionalFindings" in doc ? doc.additionalFindings : 0,
      confidenceOverall: confidenceOverall(interventions.map((iv) => iv.confidence)),
    };
  },
});
