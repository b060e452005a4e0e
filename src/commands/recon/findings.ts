// recon-findings: what the researchers found, counted by the helper so the lead does not count: the findings in
// their artifacts, the domains they cover, and whether synthesis goes to an agent (seed 001: the lead synthesises
// by default; more than 15 findings across more than 3 domains go to one synthesis agent). Read-only.
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { FINDING_DOMAINS } from "../../lib/recon/recon-score.js";
import { isObject, pyStr } from "../../lib/values.js";
import { commaList } from "../../store.js";
import { loadArtifact } from "../reports/expert-validate.js";

/** Seed 001's delegation rule: more than this many findings across more than DOMAIN_LIMIT domains. */
export const FINDING_LIMIT = 15;
export const DOMAIN_LIMIT = 3;
export const DELEGATION_RULE = `more than ${FINDING_LIMIT} findings across more than ${DOMAIN_LIMIT} domains go to one synthesis agent`;

export interface FindingCount {
  findings: number;
  domains: Record<string, number>;
  problems: string[];
}

/** Count one artifact's `findings` by domain; a finding without one of the four domains is a problem, not a domain. */
export function countFindings(artifact: unknown, label: string): FindingCount {
  const out: FindingCount = { findings: 0, domains: {}, problems: [] };
  if (!isObject(artifact)) {
    out.problems.push(`${label}: not a JSON object`);
    return out;
  }
  const list = artifact.findings;
  if (list === undefined) {
    out.problems.push(`${label}: no findings array`);
    return out;
  }
  if (!Array.isArray(list)) {
    out.problems.push(`${label}: findings must be an array`);
    return out;
  }
  list.forEach((f, i) => {
    if (!isObject(f)) {
      out.problems.push(`${label}: findings[${i}] is not an object`);
      return;
    }
    out.findings++;
    const d = f.domain;
    if (typeof d === "string" && (FINDING_DOMAINS as readonly string[]).includes(d)) out.domains[d] = (out.domains[d] ?? 0) + 1;
    else out.problems.push(`${label}: findings[${i}] has domain '${pyStr(d)}' (one of ${FINDING_DOMAINS.join(", ")})`);
  });
  return out;
}

export default defineCommand({
  positionals: [],
  flags: {
    artifacts: {
      type: "string",
      required: true,
      path: "read",
      list: true,
      help: "comma-separated researcher artifacts that passed expert-validate, e.g. .design/expert-codebase-analyst.json",
    },
  },
  run(ctx, args) {
    const paths = commaList(args.artifacts);
    if (paths.length === 0) throw new HelperError("E_USAGE", "recon-findings: --artifacts names no file");
    const domains: Record<string, number> = {};
    const problems: string[] = [];
    let findings = 0;
    const byArtifact = paths.map((path) => {
      const c = countFindings(loadArtifact(ctx.cwd, path), path);
      findings += c.findings;
      for (const [d, n] of Object.entries(c.domains)) domains[d] = (domains[d] ?? 0) + n;
      problems.push(...c.problems);
      return { path, findings: c.findings, domains: Object.keys(c.domains) };
    });
    const domainCount = Object.keys(domains).length;
    const delegate = findings > FINDING_LIMIT && domainCount > DOMAIN_LIMIT;
    return {
      findings,
      domainCount,
      domains,
      delegate,
      synthesis: delegate ? "agent" : "lead",
      rule: DELEGATION_RULE,
      byArtifact,
      problems,
    };
  },
});
