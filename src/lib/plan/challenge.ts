// The challenger's blocking issues as a gate (seed 001: "Blocking issues are mandatory gates: lead must address
// each one before proceeding"). A blocking issue of a valid `.design/challenger-report.json` holds `grant`, `next`
// and `workflow` until plan.json records how it was resolved (`challengeResolutions`, written by challenge-resolve
// only): a constraint added to the affected roles, or the user's decision to proceed. An issue is known by a digest
// of what it says, so a rewritten report asks again. A missing or invalid report holds nothing: execute goes on
// without it (skills/execute/SKILL.md, phase 2).
import { join } from "node:path";
import { HelperError } from "../../base/errors.js";
import { arrayOf, type Json } from "./plan.js";
import { readSmallText } from "../../base/safe-read.js";
import { isObject, sha256 } from "../values.js";
import { confined, MAX_STATE_BYTES, projectRoots } from "../../store.js";

export const CHALLENGER_REPORT = "challenger-report.json";
export const RESOLUTIONS = "challengeResolutions";

export interface BlockingIssue {
  /** Index in the report's `issues`. */
  index: number;
  /** Digest of the issue's category, description and affected roles (16 hex digits). */
  key: string;
  category: string;
  description: string;
  affectedRoles: string[];
  recommendation: string;
}

export type ReportRead = { state: "none" } | { state: "invalid"; detail: string } | { state: "ok"; issues: BlockingIssue[]; total: number };

const strs = (v: unknown) => arrayOf(v).filter((x): x is string => typeof x === "string");
const text = (v: unknown) => (typeof v === "string" ? v : "");

/** The digest that names an issue in plan.json: what it says, not where it sits in the report. */
export function issueKey(issue: Json): string {
  return sha256(JSON.stringify([text(issue.category), text(issue.description), strs(issue.affectedRoles)])).slice(0, 16);
}

// validate-auxiliary-report's rules for a challenger report (commands/reports/auxiliary.ts; a lib module may not
// import a command: test/unit/challenge.test.ts keeps the two in agreement).
const ISSUE_FIELDS = ["category", "severity", "description", "affectedRoles", "recommendation"];
const CATEGORIES: readonly unknown[] = ["scope-gap", "overlap", "invalid-assumption", "missing-dependency", "criteria-gap", "constraint-conflict"];
const SEVERITIES: readonly unknown[] = ["blocking", "high-risk", "low-risk"];

/** Whether validate-auxiliary-report --type challenger accepts the report. */
export function validChallengerReport(report: unknown): boolean {
  if (!isObject(report) || !Array.isArray(report.issues) || typeof report.summary !== "string") return false;
  return report.issues.every(
    (i) => isObject(i) && ISSUE_FIELDS.every((f) => Object.prototype.hasOwnProperty.call(i, f)) && CATEGORIES.includes(i.category) && SEVERITIES.includes(i.severity),
  );
}

/** The blocking issues of a parsed challenger report, or null when the report is not valid. */
export function blockingOf(report: unknown): BlockingIssue[] | null {
  if (!validChallengerReport(report)) return null;
  const out: BlockingIssue[] = [];
  arrayOf((report as Json).issues).forEach((raw, index) => {
    const issue = raw as Json; // a valid report's issues are objects
    if (issue.severity !== "blocking") return;
    out.push({
      index,
      key: issueKey(issue),
      category: text(issue.category),
      description: text(issue.description),
      affectedRoles: strs(issue.affectedRoles),
      recommendation: text(issue.recommendation),
    });
  });
  return out;
}

/** The project's challenger report: none, invalid (and why), or its blocking issues. Reads only inside the project. */
export function readChallengerReport(cwd: string): ReportRead {
  const path = join(projectRoots(cwd).design, CHALLENGER_REPORT);
  const real = confined(cwd, path, "read");
  if (real === null) return { state: "invalid", detail: `.design/${CHALLENGER_REPORT} resolves outside the project` };
  const r = readSmallText(real, MAX_STATE_BYTES);
  if (!r.ok) return r.reason === "missing" ? { state: "none" } : { state: "invalid", detail: r.error };
  let doc: unknown;
  try {
    doc = JSON.parse(r.text);
  } catch (err) {
    return { state: "invalid", detail: `not JSON: ${(err as Error).message}` };
  }
  const issues = blockingOf(doc);
  return issues === null ? { state: "invalid", detail: "not a valid challenger report" } : { state: "ok", issues, total: arrayOf((doc as Json).issues).length };
}

/** The resolution keys plan.json records. */
export function resolvedKeys(doc: Json): Set<string> {
  const keys = new Set<string>();
  for (const r of arrayOf(doc[RESOLUTIONS])) if (isObject(r) && typeof r.issue === "string") keys.add(r.issue);
  return keys;
}

/** The blocking issues the plan has not resolved. */
export function unresolvedIssues(cwd: string, doc: Json): BlockingIssue[] {
  const report = readChallengerReport(cwd);
  if (report.state !== "ok") return [];
  const done = resolvedKeys(doc);
  return report.issues.filter((i) => !done.has(i.key));
}

/**
 * Refuse (E_INVALID) what `action` would start while a blocking challenger issue is unresolved, naming each one
 * and the command that records its resolution.
 */
export function refuseWhileChallenged(cwd: string, doc: Json, action: string): void {
  const open = unresolvedIssues(cwd, doc);
  if (open.length === 0) return;
  const list = open.map((i) => `issue ${i.index} (${i.category}: ${i.description})`).join("; ");
  throw new HelperError(
    "E_INVALID",
    `The challenger's blocking issues are not resolved, so ${action} is held: ${list}. Resolve each with a constraint ` +
      `for the affected roles or the user's decision to proceed, recorded with challenge-resolve`,
    { unresolved: open },
  );
}
