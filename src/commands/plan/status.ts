// status: does an executable plan exist, and how many roles are in each status (contract 4.2).
// Prompts branch on the error strings, so they are exactly the contract's.
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { PLAN_PATH, statusOf } from "../../lib/plan/plan.js";
import { isObject, pyStr } from "../../lib/values.js";
import { readJson } from "../../store.js";

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {},
  run(ctx, args) {
    const r = readJson(resolve(ctx.cwd, args.plan_path as string));
    if (r.kind === "missing") throw new HelperError("E_NOT_FOUND", "not_found");
    // The contract's word for both; `detail` says why (a FIFO, a file over the cap, a parse error).
    if (r.kind !== "ok") throw new HelperError("E_JSON", "invalid_json", { detail: r.detail });
    const doc = r.value;
    const version = isObject(doc) ? doc.schemaVersion : undefined;
    if (!(typeof version === "number" && version === 4)) {
      throw new HelperError("E_SCHEMA", `bad_schema (schemaVersion=${pyStr(version)}, expected 4)`);
    }
    const roles = (doc as Record<string, unknown>).roles;
    if (roles !== undefined && roles !== null && !Array.isArray(roles)) {
      throw new HelperError("E_SCHEMA", "bad_schema (roles must be an array)");
    }
    if (!Array.isArray(roles) || roles.length === 0) throw new HelperError("E_SCHEMA", "empty_roles");
    const counts: Record<string, number> = {};
    roles.forEach((role, i) => {
      if (!isObject(role)) throw new HelperError("E_SCHEMA", `bad_schema (roles[${i}] must be an object)`);
      const s = statusOf(role);
      counts[s] = (counts[s] ?? 0) + 1;
    });
    return {
      schemaVersion: version,
      roleCount: roles.length,
      counts,
      isResume: Object.keys(counts).some((s) => s !== "pending"),
    };
  },
});
