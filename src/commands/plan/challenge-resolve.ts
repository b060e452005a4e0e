// challenge-resolve: record how each of the challenger's blocking issues was resolved, the record `grant`, `next`
// and `workflow` wait for (lib/plan/challenge.ts). stdin: a JSON array of
//   {"issue": <index in the report's issues>, "constraint": "<rule for the workers>", "roles": ["<role>", …]}
//     the constraint is appended to each role's constraints (roles default to the issue's affectedRoles in the plan);
//   {"issue": <index>, "proceed": "<the user's decision, in their words>"}
//     the user chose to go on with the plan as it is.
// Only blocking issues of a valid .design/challenger-report.json can be resolved. The whole batch is checked before
// anything changes; the plan is written once, under its lock. A later record of the same issue replaces the earlier.
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { CHALLENGER_REPORT, readChallengerReport, RESOLUTIONS, type BlockingIssue } from "../../lib/plan/challenge.js";
import { arrayOf, PLAN_PATH_WRITE, rolesOf, statusOf, str, type Json } from "../../lib/plan/plan.js";
import { parseStdinArray, updatePlan } from "../../lib/plan/plan-update.js";
import { isInt, isObject, isoSeconds } from "../../lib/values.js";

// A completed role will not run again; a skipped one comes back when its failed dependency is retried, so it may
// still take a constraint.
const CLOSED = new Set(["completed"]);

interface Resolution {
  issue: BlockingIssue;
  kind: "constraint" | "proceed";
  text: string;
  roles: number[];
}

function parse(input: string, issues: readonly BlockingIssue[], allIssues: number, roles: Json[]): Resolution[] {
  const batch = parseStdinArray(input);
  if (batch.length === 0) throw new HelperError("E_SCHEMA", "Expected at least one resolution");
  const byIndex = new Map(issues.map((i) => [i.index, i]));
  return batch.map((u, k): Resolution => {
    const bad = (message: string, code: "E_SCHEMA" | "E_INVALID" | "E_NOT_FOUND" | "E_TRANSITION" = "E_SCHEMA") =>
      new HelperError(code, `Resolution ${k}: ${message}`);
    if (!isObject(u)) throw bad("must be an object");
    if (!isInt(u.issue)) throw bad("issue must be the index of a blocking issue in the challenger's report");
    const issue = byIndex.get(u.issue);
    if (!issue) {
      throw u.issue >= 0 && u.issue < allIssues
        ? bad(`issue ${u.issue} is not blocking: only blocking issues are gates (blocking: ${issues.map((i) => i.index).join(", ") || "none"})`, "E_INVALID")
        : bad(`no issue ${u.issue} in the report (${allIssues} issues)`, "E_NOT_FOUND");
    }
    const has = (key: string) => u[key] !== undefined;
    if (has("constraint") === has("proceed")) throw bad("give either constraint (a rule for the affected roles) or proceed (the user's decision)");
    const kind = has("constraint") ? "constraint" : "proceed";
    const text = typeof u[kind] === "string" ? (u[kind] as string).trim() : "";
    if (text === "") throw bad(`${kind} must be a non-empty string`);
    if (kind === "proceed") {
      if (u.roles !== undefined) throw bad("roles go with a constraint");
      return { issue, kind, text, roles: [] };
    }
    let names: string[];
    if (u.roles === undefined) {
      names = issue.affectedRoles.filter((n) => roles.some((r) => r.name === n));
      if (names.length === 0) throw bad(`the issue names no role of the plan (${issue.affectedRoles.join(", ") || "none"}): give roles`);
    } else {
      if (!Array.isArray(u.roles) || u.roles.length === 0 || !u.roles.every((r) => typeof r === "string" && r !== "")) {
        throw bad("roles must be a non-empty array of role names");
      }
      names = u.roles as string[];
    }
    const indices = names.map((n) => {
      const i = roles.findIndex((r) => r.name === n);
      if (i < 0) throw bad(`no role named '${n}'`, "E_NOT_FOUND");
      const status = statusOf(roles[i]);
      if (CLOSED.has(status)) throw bad(`Role ${i} (${n}): cannot add constraints to a ${status} role`, "E_TRANSITION");
      if ("constraints" in roles[i] && !Array.isArray(roles[i].constraints)) throw bad(`Role ${i} (${n}): 'constraints' must be an array`);
      return i;
    });
    return { issue, kind, text, roles: [...new Set(indices)] };
  });
}

export default defineCommand({
  positionals: [PLAN_PATH_WRITE],
  flags: {},
  stdin: "resolutions.json",
  async run(ctx, args) {
    const input = await ctx.stdin();
    const report = readChallengerReport(ctx.cwd);
    if (report.state === "none") throw new HelperError("E_NOT_FOUND", `No challenger report (.design/${CHALLENGER_REPORT}): nothing to resolve`);
    if (report.state === "invalid") throw new HelperError("E_INVALID", `The challenger report cannot be read as one: ${report.detail}; nothing holds the run`);
    const blocking = report.issues;
    const at = isoSeconds(ctx.now());
    return updatePlan(ctx.cwd, args.plan_path as string, [], (doc) => {
      const roles = rolesOf(doc);
      const resolutions = parse(input, blocking, report.total, roles);
      if (RESOLUTIONS in doc && !Array.isArray(doc[RESOLUTIONS])) throw new HelperError("E_SCHEMA", `'${RESOLUTIONS}' must be an array`);
      const records = arrayOf(doc[RESOLUTIONS]).filter((r) => !resolutions.some((x) => isObject(r) && r.issue === x.issue.key));
      const added: Array<{ role: string; constraint: string }> = [];
      for (const r of resolutions) {
        for (const i of r.roles) {
          const role = roles[i];
          if (!Array.isArray(role.constraints)) role.constraints = [];
          const list = role.constraints as unknown[];
          if (!list.includes(r.text)) {
            list.push(r.text);
            added.push({ role: str(role.name), constraint: r.text });
          }
        }
        records.push({
          issue: r.issue.key,
          index: r.issue.index,
          description: r.issue.description,
          resolution: r.kind,
          ...(r.kind === "constraint" ? { constraint: r.text, roles: r.roles.map((i) => str(roles[i].name)) } : { decision: r.text }),
          at,
        });
      }
      doc[RESOLUTIONS] = records;
      const done = new Set(records.map((r) => (r as Json).issue));
      const unresolved = blocking.filter((b) => !done.has(b.key)).map((b) => ({ index: b.index, category: b.category, description: b.description }));
      return {
        write: true,
        result: {
          resolved: resolutions.map((r) => ({ issue: r.issue.index, resolution: r.kind })),
          constraintsAdded: added,
          unresolved,
          gate: unresolved.length ? "held" : "open",
        },
      };
    });
  },
});
