// validate-auxiliary-report: checks the report of a challenger, scout, integration verifier, regression checker
// or memory curator (contract 2.6, 4.27) and returns a short summary of it.
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { isObject, pyStr } from "../../lib/values.js";
import { absentKeys, fieldErrors, schemaFailure, type PyTypeName } from "./checks.js";
import { loadArtifact } from "./expert-validate.js";
import { join } from "node:path";
import { pathKind, projectRoots } from "../../store.js";
import { recordUsage } from "../run/record-usage.js";
import { WAITING_FLAGS, withWaiting } from "./waiting.js";

export const AUX_TYPES = ["challenger", "scout", "integration-verifier", "regression-checker", "memory-curator"] as const;
export type AuxType = (typeof AUX_TYPES)[number];

/** Required keys and their Python types, in the contract's order. */
export const AUX_FIELDS: Record<AuxType, ReadonlyArray<readonly [string, PyTypeName]>> = {
  challenger: [["issues", "list"], ["summary", "str"]],
  scout: [["scopeAreas", "list"], ["discrepancies", "list"], ["summary", "str"]],
  "integration-verifier": [
    ["status", "str"],
    ["acceptanceCriteria", "list"],
    ["crossRoleIssues", "list"],
    ["testResults", "dict"],
    ["endToEndVerification", "dict"],
    ["summary", "str"],
  ],
  "regression-checker": [["passed", "bool"], ["changes", "list"], ["regressions", "list"], ["summary", "str"]],
  "memory-curator": [["memories", "list"], ["summary", "str"]],
};

export const ISSUE_FIELDS = ["category", "severity", "description", "affectedRoles", "recommendation"] as const;
export const ISSUE_CATEGORIES = [
  "scope-gap",
  "overlap",
  "invalid-assumption",
  "missing-dependency",
  "criteria-gap",
  "constraint-conflict",
] as const;
export const ISSUE_SEVERITIES = ["blocking", "high-risk", "low-risk"] as const;

/** Every schema error of a report of the given type; empty when valid. */
export function auxiliaryErrors(type: AuxType, report: unknown): string[] {
  const errors = fieldErrors(report, AUX_FIELDS[type]);
  if (errors.length || !isObject(report)) return errors;
  if (type === "challenger") {
    (report.issues as unknown[]).forEach((issue, i) => {
      if (!isObject(issue)) {
        errors.push(`issues[${i}] must be an object`);
        return;
      }
      const absent = absentKeys(issue, ISSUE_FIELDS);
      if (absent.length) errors.push(`issues[${i}]: missing ${absent.join(", ")}`);
      if ("category" in issue && !(ISSUE_CATEGORIES as readonly unknown[]).includes(issue.category)) {
        errors.push(`issues[${i}]: invalid category '${pyStr(issue.category)}'`);
      }
      if ("severity" in issue && !(ISSUE_SEVERITIES as readonly unknown[]).includes(issue.severity)) {
        errors.push(`issues[${i}]: invalid severity '${pyStr(issue.severity)}'`);
      }
    });
  }
  if (type === "integration-verifier" && report.status !== "PASS" && report.status !== "FAIL") {
    errors.push(`status must be 'PASS' or 'FAIL', got '${pyStr(report.status)}'`);
  }
  return errors;
}

function artifactSummary(type: AuxType, report: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { type, summary: "summary" in report ? report.summary : "" };
  const count = (v: unknown) => (Array.isArray(v) ? v.length : 0);
  switch (type) {
    case "challenger":
      out.issueCount = count(report.issues);
      out.blockingCount = (report.issues as unknown[]).filter((x) => isObject(x) && x.severity === "blocking").length;
      break;
    case "scout":
      out.discrepancyCount = count(report.discrepancies);
      break;
    case "integration-verifier":
      out.status = report.status;
      break;
    case "regression-checker":
      out.passed = report.passed;
      out.regressionCount = count(report.regressions);
      break;
    case "memory-curator":
      out.memoryCount = count(report.memories);
      break;
  }
  return out;
}

const AGENT = /^[a-z0-9][a-z0-9-]{0,63}$/;

/**
 * Record what the auxiliary agent `agent` cost, as record-usage does (from its transcript in this session), into
 * the project's plan.json. Never refuses: where there is no plan, no transcript or no such agent, the answer says
 * why and nothing is written.
 */
export async function auxiliaryUsage(cwd: string, agent: string, now: number): Promise<Record<string, unknown>> {
  if (pathKind(join(projectRoots(cwd).design, "plan.json")) !== "file") return { recorded: false, agent, reason: "no .design/plan.json to record it in" };
  try {
    const r = await recordUsage(cwd, ".design/plan.json", agent, {}, now);
    const u = r.usage as Record<string, unknown>;
    return { recorded: true, agent, tokens: u.tokens, toolUses: u.toolUses, durationMs: u.durationMs, runSpend: r.runSpend };
  } catch (err) {
    return { recorded: false, agent, reason: (err as Error).message };
  }
}

/** The --agent flag of the commands that record an auxiliary's usage. */
export const AGENT_FLAG = { type: "string", help: "the auxiliary agent's name, as given to the Agent tool (default: the report type)" } as const;

export function agentName(given: unknown, type: string): string {
  const agent = typeof given === "string" && given !== "" ? given : type;
  if (!AGENT.test(agent)) throw new HelperError("E_USAGE", `--agent must be an agent name (lowercase letters, digits, dashes): '${agent}'`);
  return agent;
}

export default defineCommand({
  positionals: [{ name: "artifact_path", help: "report file, e.g. .design/challenger-report.json", path: "read" }],
  flags: {
    type: { type: "string", help: "report type", required: true, choices: AUX_TYPES },
    agent: AGENT_FLAG,
    ...WAITING_FLAGS,
  },
  async run(ctx, args) {
    const type = args.type as AuxType;
    const agent = agentName(args.agent, type);
    const checked = withWaiting(ctx, args, "validate-auxiliary-report", () => {
      const report = loadArtifact(ctx.cwd, args.artifact_path as string);
      const errors = auxiliaryErrors(type, report);
      if (errors.length) throw new HelperError("E_INVALID", schemaFailure(errors));
      return { valid: true, artifactSummary: artifactSummary(type, report as Record<string, unknown>) };
    });
    // A valid report: the agent is done, so what it cost is final (record-usage's record, replaced on a repeat).
    const usage = await auxiliaryUsage(ctx.cwd, agent, ctx.now());
    return { ...checked, usage };
  },
});
