// What run-checkpoint checks of a phase's record before it counts the phase done (issue 32): the reviews a model
// runs are its judgement, so the helper checks the record they leave, not their content.
// - cross-review (design, improve): with two or more expert artifacts the review ran, and its audit trail
//   `.design/cross-review.json` holds two or more participants, each with its own artifact, one or two rounds, and
//   each conflict (design) or dispute (improve) with the positions of participants and a resolution;
// - plan (design): a draft on the full path (complexity medium or high: design-tier's draftReview) was reviewed by
//   the user, and the checkpoint says so ("draft approved");
// - verify (execute): the goal review's verdict is recorded ("goal achieved", "goal partial" or "goal not achieved"),
//   and "achieved" is not claimed over an integration verifier's FAIL.
import { join, resolve } from "node:path";
import { isObject } from "../values.js";
import { listDir, readJson } from "../../store.js";
import type { Skill } from "./run-state.js";

const RESOLUTIONS = ["agreed", "lead-decided", "open"];
const VERDICT = /\bgoal (achieved|partial|not achieved)\b/i;

/** The names of the expert artifacts in the design dir (`expert-<name>.json`). */
function experts(design: string): string[] {
  try {
    return listDir(design).filter((e) => !e.isSymlink && /^expert-[a-z0-9][a-z0-9-]*\.json$/.test(e.name)).map((e) => e.name.slice(7, -5));
  } catch {
    return [];
  }
}

/** What is wrong with a cross-review audit trail, one sentence each. */
export function crossReviewProblems(doc: unknown, artifacts: readonly string[]): string[] {
  if (!isObject(doc)) return ["it must be a JSON object"];
  const problems: string[] = [];
  const participants = Array.isArray(doc.participants) ? doc.participants.filter((p): p is string => typeof p === "string" && p !== "") : [];
  if (participants.length < 2) problems.push("participants must name two or more experts who reviewed each other");
  const without = participants.filter((p) => !artifacts.includes(p));
  if (without.length) problems.push(`participants without an artifact (.design/expert-<name>.json): ${without.join(", ")}`);
  if (doc.rounds !== 1 && doc.rounds !== 2) problems.push("rounds must be 1 or 2");
  if (!Array.isArray(doc.agreements)) problems.push("agreements must be a list (empty when none)");
  const key = Array.isArray(doc.conflicts) ? "conflicts" : Array.isArray(doc.disputes) ? "disputes" : null;
  if (key === null) problems.push("conflicts (design) or disputes (improve) must be a list (empty when none)");
  else {
    (doc[key] as unknown[]).forEach((c, i) => {
      const at = `${key}[${i}]`;
      if (!isObject(c)) return void problems.push(`${at} must be an object`);
      if (typeof c.topic !== "string" || c.topic.trim() === "") problems.push(`${at}.topic is missing`);
      const positions = Array.isArray(c.positions) ? c.positions.filter(isObject) : [];
      const who = positions.map((p) => p.expert ?? p.analyst).filter((w): w is string => typeof w === "string");
      if (positions.length < 2 || who.length < positions.length) problems.push(`${at}.positions must give two or more participants' claims`);
      const strangers = who.filter((w) => !participants.includes(w));
      if (strangers.length) problems.push(`${at}.positions names ${strangers.join(", ")}, not a participant`);
      if (!RESOLUTIONS.includes(c.resolution as string)) problems.push(`${at}.resolution must be one of ${RESOLUTIONS.join(", ")}`);
    });
  }
  return problems;
}

/**
 * Why the phase's record does not show what the phase must leave (see the top of this file), or an empty list.
 * `outputs` and `decisions` as run-checkpoint got them; paths resolve against `cwd`.
 */
export function phaseRecordProblems(cwd: string, designDir: string, skill: Skill, phase: string, outputs: readonly string[], decisions: string): string[] {
  const design = resolve(cwd, designDir);
  if ((skill === "design" || skill === "improve") && phase === "cross-review") {
    const artifacts = experts(design);
    const trail = outputs.find((o) => resolve(cwd, o) === join(design, "cross-review.json"));
    if (trail === undefined) {
      return artifacts.length >= 2
        ? [`${artifacts.length} expert artifacts (${artifacts.join(", ")}): the experts review each other (refs/cross-review.md); checkpoint with --outputs ${designDir}/cross-review.json`]
        : [];
    }
    const r = readJson(resolve(cwd, trail));
    if (r.kind !== "ok") return [`${trail} cannot be read as JSON`];
    return crossReviewProblems(r.value, artifacts).map((p) => `${trail}: ${p}`);
  }
  if (skill === "design" && phase === "plan") {
    const r = readJson(join(design, "draft", "plan.json"));
    const complexity = r.kind === "ok" && isObject(r.value) ? r.value.complexity : undefined;
    if ((complexity === "medium" || complexity === "high") && !/\bdraft approved\b/i.test(decisions)) {
      return [`a ${complexity} draft is reviewed by the user before finalize (design-tier's draftReview): ask, then checkpoint with --decisions '…, draft approved'`];
    }
    return [];
  }
  if (skill === "execute" && phase === "verify") {
    const verdict = VERDICT.exec(decisions);
    if (!verdict) return ["the goal review's verdict is missing: --decisions 'goal {achieved|partial|not achieved}, …'"];
    const report = outputs.find((o) => /integration-verifier-report\.json$/.test(o));
    if (report && verdict[1].toLowerCase() === "achieved") {
      const r = readJson(resolve(cwd, report));
      if (r.kind === "ok" && isObject(r.value) && r.value.status === "FAIL") {
        return [`the goal is recorded achieved while ${report} says FAIL: run the fix rounds and the verifier again, or record the goal partial or not achieved`];
      }
    }
    return [];
  }
  return [];
}
