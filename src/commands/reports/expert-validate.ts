// expert-validate: an expert artifact has a summary and an array of verification properties (contract 4.21).
// An improve analyst's artifact may also score the target's declared features (`featureScores`); with --features
// naming the feature file the lead saved (skill.json's text, .design/skill-features.json), every declared feature
// must be scored exactly once and nothing else. With --scores (improve's analysts, seed 001) the artifact must score
// all seven quality dimensions 1-5, each with evidence (`qualityScores`); an artifact that carries qualityScores
// without the flag is held to the same rule.
// A valid artifact with no one else still out (every `--waiting` name's artifact there and valid) records the open
// run's expert phase (design's experts, recon's research, improve's analysis) with every valid artifact as its
// outputs (lib/run/run-record.ts): the lead makes no checkpoint call of its own.
import { join, resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { isInt, isObject } from "../../lib/values.js";
import { commaList, listDir, projectRoots, readJson } from "../../store.js";
import { recordFor } from "../../lib/run/run-record.js";
import type { Skill } from "../../lib/run/run-state.js";
import { absentKeys } from "./checks.js";
import { qualityScoreProblems } from "../../lib/improve/quality.js";
import { WAITING_FLAGS, withWaiting } from "./waiting.js";

/** Read an artifact with the messages shared by expert-validate and validate-auxiliary-report. */
export function loadArtifact(cwd: string, path: string): unknown {
  const r = readJson(resolve(cwd, path));
  if (r.kind === "missing") throw new HelperError("E_NOT_FOUND", `Artifact file not found: ${path}`);
  if (r.kind === "error") throw new HelperError("E_READ", `Error reading artifact: ${r.detail}`);
  if (r.kind === "invalid") throw new HelperError("E_JSON", `Invalid JSON in artifact: ${r.detail}`);
  return r.value;
}

/** The feature names a feature file declares (`features[].name`, seed 004's skill.json). */
export function declaredFeatures(cwd: string, path: string): string[] {
  const r = readJson(resolve(cwd, path));
  if (r.kind === "missing") throw new HelperError("E_NOT_FOUND", `Feature file not found: ${path}`);
  if (r.kind === "error") throw new HelperError("E_READ", `Error reading feature file: ${r.detail}`);
  if (r.kind === "invalid") throw new HelperError("E_JSON", `Invalid JSON in feature file: ${r.detail}`);
  const features = isObject(r.value) ? r.value.features : undefined;
  if (!Array.isArray(features)) throw new HelperError("E_SCHEMA", "Feature file must be an object with a features array");
  const names: string[] = [];
  for (let i = 0; i < features.length; i++) {
    const f = features[i];
    if (!isObject(f) || typeof f.name !== "string" || f.name.trim() === "") {
      throw new HelperError("E_SCHEMA", `Feature file: features[${i}] has no name`);
    }
    names.push(f.name);
  }
  return names;
}

/** What is wrong with `featureScores`, one sentence per problem; `declared` also checks coverage. */
export function featureScoreProblems(scores: unknown, declared?: readonly string[]): string[] {
  if (scores === undefined) return declared && declared.length > 0 ? [`featureScores is missing: score ${declared.join(", ")}`] : [];
  if (!Array.isArray(scores)) return ["featureScores must be an array"];
  const problems: string[] = [];
  const seen = new Set<string>();
  scores.forEach((s, i) => {
    if (!isObject(s)) {
      problems.push(`featureScores[${i}] must be an object`);
      return;
    }
    if (typeof s.feature !== "string" || s.feature.trim() === "") problems.push(`featureScores[${i}].feature must name a feature`);
    else if (seen.has(s.feature)) problems.push(`featureScores[${i}]: '${s.feature}' is scored twice`);
    else {
      seen.add(s.feature);
      if (declared && !declared.includes(s.feature)) problems.push(`featureScores[${i}]: '${s.feature}' is not a declared feature`);
    }
    if (!isInt(s.score) || (s.score as number) < 1 || (s.score as number) > 5) problems.push(`featureScores[${i}].score must be an integer from 1 to 5`);
    if (typeof s.evidence !== "string" || s.evidence.trim() === "") problems.push(`featureScores[${i}].evidence must be a non-empty string`);
  });
  const unscored = (declared ?? []).filter((n) => !seen.has(n));
  if (unscored.length) problems.push(`featureScores misses declared features: ${unscored.join(", ")}`);
  return problems;
}

export default defineCommand({
  positionals: [{ name: "artifact_path", help: "expert artifact, e.g. .design/expert-api.json", path: "read" }],
  flags: {
    features: { type: "string", help: "the target's feature file (improve): every feature it declares must be scored once", path: "read" },
    scores: { type: "boolean", help: "an improve analyst's artifact: qualityScores must score all seven dimensions 1-5 with evidence" },
    ...WAITING_FLAGS,
  },
  async run(ctx, args) {
    const out = withWaiting(ctx, args, "expert-validate", () => check(ctx.cwd, args));
    const recorded = await recordExperts(ctx.cwd, args, ctx.now());
    return recorded ? { ...out, checkpoint: recorded.announce } : out;
  },
});

/** The phase each skill's experts produce. */
const EXPERT_PHASE: Partial<Record<Skill, string>> = { design: "experts", recon: "research", improve: "analysis" };

/** Whether an artifact passes the check this call made (with the same flags). */
function passes(cwd: string, path: string, args: Record<string, unknown>): boolean {
  try {
    check(cwd, { ...args, artifact_path: path });
    return true;
  } catch {
    return false;
  }
}

/**
 * Record the open run's expert phase once nobody is still out: each `--waiting` name's artifact (`expert-<name>.json`,
 * a replacement `<name>-2` writing its first's) exists and passes. Outputs: every valid `.design/expert-*.json`.
 */
async function recordExperts(cwd: string, args: Record<string, unknown>, now: number) {
  const artifact = (n: string) => [`.design/expert-${n}.json`, `.design/expert-${n.replace(/-\d+$/, "")}.json`];
  for (const name of commaList((args.waiting as string | undefined) ?? "")) {
    if (!artifact(name).some((p) => passes(cwd, p, args))) return null;
  }
  let names: string[];
  try {
    names = listDir(projectRoots(cwd).design).map((e) => e.name).filter((n) => /^expert-.+\.json$/.test(n)).sort();
  } catch {
    return null;
  }
  const valid = names.map((n) => join(".design", n)).filter((p) => passes(cwd, p, args));
  const skills: Skill[] = args.scores ? ["improve"] : ["design", "recon"];
  return recordFor(cwd, skills, (s) => EXPERT_PHASE[s] ?? null, now, `${valid.length} valid: ${valid.map((p) => p.slice(".design/expert-".length, -5)).join(", ")}`, valid);
}

/** The fewest words of an artifact's reason for listing no verification property. */
const MIN_REASON_WORDS = 4;

/**
 * What makes an artifact say nothing (seed 001: experts return verificationProperties that become the specs): an
 * empty summary, a property without its text, and an empty property list unless the artifact records why none
 * applies (`noVerificationProperties`, a sentence: a researcher whose findings change no behaviour). The reason is
 * the analyst's judgement; the helper checks only that it was given.
 */
export function contentProblems(doc: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const summary = doc.summary;
  const summaryText = typeof summary === "string" ? summary : isObject(summary) || Array.isArray(summary) ? JSON.stringify(summary) : "";
  if (summaryText.replace(/[\s{}[\]":,]/g, "") === "") problems.push("summary is empty: say in a sentence or two what the artifact found");
  const props = doc.verificationProperties as unknown[];
  props.forEach((p, i) => {
    const text = typeof p === "string" ? p : isObject(p) ? p.property : undefined;
    if (typeof text !== "string" || text.trim() === "") problems.push(`verificationProperties[${i}] has no property text ("property": the behaviour that must hold)`);
  });
  if (props.length === 0) {
    const why = doc.noVerificationProperties;
    const words = typeof why === "string" ? why.trim().split(/\s+/).filter(Boolean).length : 0;
    if (words < MIN_REASON_WORDS) {
      problems.push(
        "verificationProperties is empty: list the behaviour the work must keep or reach (property, category, testableVia), " +
          `or record why none applies as "noVerificationProperties": "<a sentence>"`,
      );
    }
  }
  return problems;
}

/** The artifact check itself. */
function check(cwd: string, args: Record<string, unknown>): Record<string, unknown> {
  const doc = loadArtifact(cwd, args.artifact_path as string);
  if (!isObject(doc)) throw new HelperError("E_SCHEMA", "Artifact must be a JSON object");
  const absent = absentKeys(doc, ["summary", "verificationProperties"]);
  if (absent.length) throw new HelperError("E_INVALID", `Missing required fields: ${absent.join(", ")}`);
  if (!Array.isArray(doc.verificationProperties)) {
    throw new HelperError("E_INVALID", "verificationProperties must be an array");
  }
  const empty = contentProblems(doc);
  if (empty.length) throw new HelperError("E_INVALID", empty.join("; "), { problems: empty });
  const featuresPath = args.features as string | undefined;
  const declared = featuresPath === undefined ? undefined : declaredFeatures(cwd, featuresPath);
  const problems = [
    ...(args.scores || doc.qualityScores !== undefined ? qualityScoreProblems(doc.qualityScores) : []),
    ...featureScoreProblems(doc.featureScores, declared),
  ];
  if (problems.length) throw new HelperError("E_INVALID", problems.join("; "), { problems });
  return declared === undefined ? { valid: true } : { valid: true, featuresScored: declared.length };
}
