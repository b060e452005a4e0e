// finalize's look at what a plan asks its workers to run (issue 31): a role whose goal, constraints or criteria
// quote a command in backticks (`python3 -m textkit --help`) that nothing the grant would give that role covers
// (its checks, its spec command, the plan's build and test commands, its `runs`) would have its worker refused at
// that command and fail. Such a plan is refused with the command named, for the lead to add a `runs` entry or reword
// the brief; likewise the auxiliaries' goals against everything granted, and each `runs` entry the grant could not
// record (src/lib/checks/role-runs.ts).
import { arrayOf, rolesOf, str, type Json } from "./plan.js";
import { isObject } from "../values.js";
import { quoteCovered, quotedCommands, runIssues, runsOf } from "../checks/role-runs.js";

/** The texts of a role's brief a worker reads as orders: goal, constraints, criteria. */
function briefTexts(role: Json): string[] {
  const texts = [str(role.goal), ...arrayOf(role.constraints).filter((c): c is string => typeof c === "string")];
  for (const ac of arrayOf(role.acceptanceCriteria)) if (isObject(ac) && typeof ac.criterion === "string") texts.push(ac.criterion);
  return texts;
}

/** Every problem of the plan's runs and of commands its briefs quote that nothing granted covers. */
export function runCoverageIssues(doc: Json): string[] {
  const issues: string[] = [];
  const roles = rolesOf(doc);
  const context = isObject(doc.context) ? doc.context : {};
  const planWide = [context.buildCommand, context.testCommand].filter((c): c is string => typeof c === "string" && c.trim() !== "");
  const specs = arrayOf(doc.verificationSpecs).filter(isObject);
  const allExact: string[] = [...planWide];
  const allPrefixes: string[] = [];
  const perRole = roles.map((role) => {
    const name = str(role.name);
    const exact = [...planWide];
    for (const ac of arrayOf(role.acceptanceCriteria)) if (isObject(ac) && typeof ac.check === "string") exact.push(ac.check);
    for (const s of specs) if (s.role === name && typeof s.runCommand === "string") exact.push(s.runCommand);
    const prefixes: string[] = [];
    for (const r of runsOf(role)) (r.args === "plain" ? prefixes : exact).push(r.command);
    allExact.push(...exact);
    allPrefixes.push(...prefixes);
    return { exact, prefixes };
  });
  for (const aux of arrayOf(doc.auxiliaryRoles).filter(isObject)) for (const r of runsOf(aux)) (r.args === "plain" ? allPrefixes : allExact).push(r.command);

  roles.forEach((role, i) => {
    const label = `Role ${i} (${str(role.name)})`;
    if (/^\(.*\)$/.test(str(role.name))) issues.push(`${label}: a role name in parentheses is reserved for the grant's plan-wide items`);
    issues.push(...runIssues(label, role));
    const { exact, prefixes } = perRole[i];
    const missing = [...new Set(briefTexts(role).flatMap(quotedCommands))].filter((q) => !quoteCovered(q, exact, prefixes));
    for (const q of missing) {
      issues.push(
        `${label}: its brief asks for \`${q}\`, which nothing granted to the role covers (its checks, its spec, the build and test commands, ` +
          `its runs), so its worker would be refused: add it to the role's runs (exact, or as a prefix with args "plain") or reword the brief`,
      );
    }
  });
  arrayOf(doc.auxiliaryRoles).forEach((aux, k) => {
    if (!isObject(aux)) return;
    const label = `AuxiliaryRole ${k} (${str(aux.name)})`;
    issues.push(...runIssues(label, aux));
    for (const q of [...new Set(quotedCommands(str(aux.goal)))].filter((c) => !quoteCovered(c, allExact, allPrefixes))) {
      issues.push(`${label}: its goal asks for \`${q}\`, which nothing granted covers: add it to its runs (the end-to-end run) or reword the goal`);
    }
  });
  return issues;
}
