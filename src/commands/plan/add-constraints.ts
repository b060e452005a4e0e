// add-constraints (beyond the contract): append findings (scout discrepancies, challenger issues) to roles'
// `constraints` without hand-editing plan.json. stdin: JSON array of {role | roleIndex, constraints: [str]}.
// The whole batch is validated before anything changes; constraints already present are not repeated; the
// write is locked and atomic and keeps every other field.
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { PLAN_PATH_WRITE, rolesOf, statusOf, str, type Json } from "../../lib/plan/plan.js";
import { parseStdinArray, updatePlan } from "../../lib/plan/plan-update.js";
import { isInt, isObject } from "../../lib/values.js";

const CLOSED = new Set(["completed", "skipped"]);

interface Addition {
  roleIndex: number;
  constraints: string[];
}

function parseAdditions(text: string, roles: Json[]): Addition[] {
  const batch = parseStdinArray(text);
  const n = roles.length;
  return batch.map((u, k): Addition => {
    const bad = (message: string, code: "E_SCHEMA" | "E_NOT_FOUND" = "E_SCHEMA") =>
      new HelperError(code, `Update ${k}: ${message}`);
    if (!isObject(u)) throw bad("must be an object");
    const byName = u.role !== undefined;
    const byIndex = u.roleIndex !== undefined;
    if (byName && byIndex) throw bad("give either role or roleIndex, not both");
    if (!byName && !byIndex) throw bad("role or roleIndex is required");

    let i: number;
    if (byName) {
      if (typeof u.role !== "string" || u.role === "") throw bad("role must be a non-empty string");
      const matches = roles.flatMap((r, idx) => (r.name === u.role ? [idx] : []));
      if (matches.length === 0) throw bad(`no role named '${u.role}'`, "E_NOT_FOUND");
      if (matches.length > 1) throw bad(`role name '${u.role}' is ambiguous (roles ${matches.join(", ")})`);
      i = matches[0];
    } else {
      if (!isInt(u.roleIndex)) throw bad("roleIndex must be an integer");
      i = u.roleIndex;
      if (i < 0 || i >= n) throw bad(`roleIndex ${i} out of range (0..${n - 1})`);
    }

    const list = u.constraints;
    if (!Array.isArray(list) || list.length === 0) throw bad("constraints must be a non-empty array of strings");
    const constraints = list.map((c, j) => {
      const t = typeof c === "string" ? c.trim() : "";
      if (t === "") throw bad(`constraints[${j}] must be a non-empty string (got ${JSON.stringify(c)})`);
      return t;
    });

    const role = roles[i];
    const label = `Role ${i} (${str(role.name)})`;
    const status = statusOf(role);
    if (CLOSED.has(status)) {
      throw new HelperError("E_TRANSITION", `${label}: cannot add constraints to a ${status} role`);
    }
    if ("constraints" in role && !Array.isArray(role.constraints)) {
      throw new HelperError("E_SCHEMA", `${label}: 'constraints' must be an array`);
    }
    return { roleIndex: i, constraints };
  });
}

export default defineCommand({
  positionals: [PLAN_PATH_WRITE],
  flags: {},
  stdin: "constraints.json",
  async run(ctx, args) {
    const input = await ctx.stdin();
    return updatePlan(ctx.cwd, args.plan_path as string, [], (doc) => {
      const roles = rolesOf(doc);
      const additions = parseAdditions(input, roles);
      // One entry per role, in order of first mention, listing only what was really appended.
      const added = new Map<number, { roleIndex: number; name: string; constraints: string[] }>();
      let duplicates = 0;
      for (const { roleIndex, constraints } of additions) {
        const role = roles[roleIndex];
        if (!Array.isArray(role.constraints)) role.constraints = [];
        const existing = role.constraints as unknown[];
        for (const c of constraints) {
          if (existing.includes(c)) {
            duplicates++;
            continue;
          }
          existing.push(c);
          let entry = added.get(roleIndex);
          if (!entry) added.set(roleIndex, (entry = { roleIndex, name: str(role.name), constraints: [] }));
          entry.constraints.push(c);
        }
      }
      return { write: added.size > 0, result: { added: [...added.values()], duplicates } };
    });
  },
});
