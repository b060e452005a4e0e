// reflection-validate: check a self-evaluation object from stdin before it is stored (contract 4.22).
// The object must carry whatWorked, whatFailed and doNextTime as arrays; other keys are free.
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { evaluationProblems, parseEvaluation } from "./evaluation.js";

export default defineCommand({
  positionals: [],
  stdin: "evaluation.json",
  flags: {},
  async run(ctx) {
    const parsed = parseEvaluation(await ctx.stdin());
    if (!parsed.ok && parsed.reason === "json") throw new HelperError("E_JSON", `Invalid JSON in evaluation: ${parsed.detail}`);
    if (!parsed.ok) throw new HelperError("E_SCHEMA", "Evaluation must be a JSON object");
    const { missing, notArrays } = evaluationProblems(parsed.value);
    if (missing.length) throw new HelperError("E_SCHEMA", `Missing required fields: ${missing.join(", ")}`, { missing });
    if (notArrays.length) throw new HelperError("E_SCHEMA", `Fields must be arrays: ${notArrays.join(", ")}`, { notArrays });
    return { valid: true };
  },
});
