// improve-guards: two of /do:improve's anti-pattern guards computed by the helper instead of estimated by the lead
// (seed 001: "regression safety (no dimension may degrade)" and "token budget tracking"). Before scores are the
// analysts' qualityScores (the lowest per dimension); each role of the draft plan declares its effect on the seven
// dimensions (`qualityEffects`, -1/0/1) and the lines it adds or removes in the target (`lineDelta`); the skill's
// size comes from the target's real file where the project holds it (the snapshot's `# <path>.md` headings, or the
// improve run's input), else from the snapshot improve saved; a snapshot that differs from the real file is named
// (`snapshotDiffers`) and the file's size is used. The answer names the guards that fail. Its one write: the open
// improve run's checkpoints up to guards, once the guards pass (lib/run/run-record.ts).
// run-checkpoint improve --phase guards judges the same (judgeGuards) and refuses while a guard fails and the draft
// records no accepted trade-off for it in designDecisions (issue 32: no checkpoint required them before).
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { loadPlan, rolesOf, str } from "../../lib/plan/plan.js";
import {
  baseline, budgetGuard, DIMENSIONS, effectProblems, qualityScoreProblems, regressionGuard, scoresOf, snapshotSkills,
  type RoleEffects, type Scores,
} from "../../lib/improve/quality.js";
import { isInt, isObject } from "../../lib/values.js";
import { commaList, confined, listDir, readText } from "../../store.js";
import { readRun, runFile } from "../../lib/run/run-state.js";
import { recordPhases } from "../../lib/run/run-record.js";
import type { Json } from "../../lib/plan/plan.js";
import { loadArtifact } from "./expert-validate.js";

export const GUARD_NAMES = { regression: "regression-safety", budget: "token-budget" } as const;

export interface GuardInput {
  plan: string;
  analysts: string[];
  snapshot: string;
  limits: { maxLines: number; maxGrowthPercent: number; maxTokens: number };
}

/** The target's real text inside the project, or null (outside, missing, not a file). */
function realTarget(cwd: string, path: string): string | null {
  if (!path.endsWith(".md")) return null;
  const at = confined(cwd, path, "read");
  if (at === null) return null;
  const r = readText(at);
  return r.kind === "ok" ? r.text : null;
}

/** The improve run's input that names the target (run-start improve --inputs '{target path}'), when there is one. */
function runTarget(cwd: string): string | null {
  try {
    const r = readRun(runFile(cwd, ".design", "improve", "read"));
    if (r.kind !== "ok") return null;
    const md = r.run.inputs.map((i) => i.path).filter((p) => p.endsWith(".md"));
    return md.length === 1 ? md[0] : null;
  } catch {
    return null;
  }
}

/** The two guards on a draft plan (see the top of this file); E_INVALID when they cannot be judged. */
export function judgeGuards(cwd: string, o: GuardInput): Record<string, unknown> & { passed: boolean; failed: string[]; plan: Json } {
  const { limits } = o;
  for (const [k, v] of Object.entries(limits)) if (v < 0) throw new HelperError("E_USAGE", `improve-guards: ${k} must be 0 or more`);
  const paths = o.analysts;
  if (paths.length === 0) throw new HelperError("E_USAGE", "improve-guards: --analysts names no file");
  const problems: string[] = [];
  const byAnalyst: Record<string, Scores> = {};
  for (const p of paths) {
    const doc = loadArtifact(cwd, p);
    const scores = isObject(doc) ? doc.qualityScores : undefined;
    const bad = qualityScoreProblems(scores);
    if (bad.length) problems.push(...bad.map((b) => `${p}: ${b}`));
    else byAnalyst[p] = scoresOf(scores as Record<string, unknown>);
  }

  const snapshotPath = o.snapshot;
  const snap = readText(resolve(cwd, snapshotPath));
  if (snap.kind === "missing") throw new HelperError("E_NOT_FOUND", `Snapshot not found: ${snapshotPath}`);
  if (snap.kind === "error") throw new HelperError("E_READ", `Error reading snapshot: ${snap.detail}`);
  const saved = snapshotSkills(snap.text, snapshotPath);
  // The real files where the project holds them: the lead wrote the snapshot, the files are what the roles change.
  const single = saved.length === 1 && saved[0].path === snapshotPath ? runTarget(cwd) : null;
  const measured: Array<{ path: string; from: "file" | "snapshot"; snapshotDiffers?: boolean }> = [];
  const targets = saved.map((t) => {
    const path = single ?? t.path;
    const text = realTarget(cwd, path);
    if (text === null) {
      measured.push({ path: t.path, from: "snapshot" });
      return t;
    }
    const real = snapshotSkills(text, path)[0];
    const differs = real.lines !== t.lines;
    measured.push({ path: t.path, from: "file", ...(differs ? { snapshotDiffers: true } : {}) });
    return { path: t.path, lines: real.lines, tokens: real.tokens };
  });

  const plan = loadPlan(cwd, o.plan);
  const roles = rolesOf(plan);
  if (roles.length === 0) problems.push("the plan has no roles");
  const effects: RoleEffects[] = [];
  const deltas = new Map<string, number>();
  roles.forEach((role, i) => {
    const label = `Role ${i} (${str(role.name)})`;
    const bad = effectProblems(role.qualityEffects, label);
    if (bad.length) problems.push(...bad);
    else effects.push({ role: str(role.name), effects: role.qualityEffects as Scores });
    const d = role.lineDelta;
    if (isInt(d)) {
      if (targets.length > 1) problems.push(`${label}: lineDelta must name its target (${targets.map((t) => t.path).join(", ")}): {"<path>": lines}`);
      else deltas.set(targets[0].path, (deltas.get(targets[0].path) ?? 0) + d);
    } else if (isObject(d) && Object.keys(d).length > 0) {
      for (const [path, n] of Object.entries(d)) {
        if (!targets.some((t) => t.path === path)) problems.push(`${label}: lineDelta names '${path}', not a target of the snapshot (${targets.map((t) => t.path).join(", ")})`);
        else if (!isInt(n)) problems.push(`${label}: lineDelta.${path} must be an integer`);
        else deltas.set(path, (deltas.get(path) ?? 0) + n);
      }
    } else problems.push(`${label}: lineDelta must be the lines the role adds to the target minus those it removes or moves to refs/ (an integer)`);
  });
  if (problems.length) throw new HelperError("E_INVALID", `improve-guards cannot judge: ${problems.join("; ")}`, { problems });

  const regression = regressionGuard(baseline(Object.values(byAnalyst)), effects);
  const budget = budgetGuard(targets, deltas, limits);
  const failed = [
    ...(regression.passed ? [] : [GUARD_NAMES.regression]),
    ...(budget.passed ? [] : [GUARD_NAMES.budget]),
  ];
  const says: string[] = [];
  for (const r of regression.regressions) says.push(`${GUARD_NAMES.regression}: role ${r.role} makes ${r.title} worse`);
  for (const d of regression.netLosses) says.push(`${GUARD_NAMES.regression}: ${d} ends at ${regression.after[d]}, below ${regression.before[d]}`);
  for (const t of budget.targets) for (const p of t.problems) says.push(`${GUARD_NAMES.budget}: ${t.path} ${p}`);
  return {
    passed: failed.length === 0,
    failed,
    reasons: says,
    scores: { dimensions: DIMENSIONS, before: regression.before, after: regression.after, byAnalyst },
    regression: { passed: regression.passed, regressions: regression.regressions, netLosses: regression.netLosses },
    budget: { passed: budget.passed, limits, targets: budget.targets, measured },
    plan,
  };
}

/** The failed guards the draft does not record as accepted: no designDecisions entry names the guard. */
export function unacceptedGuards(plan: Json, failed: readonly string[]): string[] {
  const decisions = Array.isArray(plan.designDecisions) ? plan.designDecisions : [];
  const text = decisions.map((d) => (isObject(d) ? Object.values(d).filter((v) => typeof v === "string").join(" ") : "")).join("\n");
  return failed.filter((g) => !text.includes(g));
}

/** The improve analysts' artifacts of this run: every `<design>/expert-*.json` that carries qualityScores. */
function analystArtifacts(cwd: string, designDir: string): string[] {
  let names: string[] = [];
  try {
    names = listDir(resolve(cwd, designDir)).filter((e) => !e.isSymlink && /^expert-[^/]+\.json$/.test(e.name)).map((e) => e.name).sort();
  } catch {
    return [];
  }
  return names.map((n) => `${designDir}/${n}`).filter((p) => {
    try {
      const doc = loadArtifact(cwd, p);
      return isObject(doc) && doc.qualityScores !== undefined;
    } catch {
      return false;
    }
  });
}

/**
 * What run-checkpoint improve --phase guards requires: the helper's two guards pass on the draft, or each failing one
 * is recorded as accepted in the draft's designDecisions (the user's answer at its gate, guards.md). Throws the
 * refusal; returns the verdict's failed guards that were accepted.
 */
export function requireGuards(cwd: string, designDir: string): string[] {
  const analysts = analystArtifacts(cwd, designDir);
  if (analysts.length === 0) {
    throw new HelperError("E_INVALID", `Cannot checkpoint guards: no analyst artifact with qualityScores in ${designDir}/ (expert-*.json) for improve-guards to judge`);
  }
  const verdict = judgeGuards(cwd, {
    plan: `${designDir}/draft/plan.json`, analysts, snapshot: `${designDir}/skill-snapshot.md`, limits: { maxLines: 500, maxGrowthPercent: 10, maxTokens: 5000 },
  });
  const open = unacceptedGuards(verdict.plan, verdict.failed);
  if (open.length) {
    throw new HelperError(
      "E_INVALID",
      `Cannot checkpoint guards: ${open.join(", ")} failed (${(verdict.reasons as string[]).join("; ")}). Change the roles and run improve-guards ` +
        `again, or, when the user accepted it at the guard's gate, record that in the draft's designDecisions naming ${open.join(" and ")}`,
      { failed: open, reasons: verdict.reasons },
    );
  }
  return verdict.failed;
}

export default defineCommand({
  positionals: [{ name: "plan_path", help: "the draft plan whose roles declare qualityEffects and lineDelta", default: ".design/draft/plan.json", path: "read" }],
  flags: {
    analysts: { type: "string", required: true, path: "read", list: true, help: "comma-separated analyst artifacts (expert-validate --scores passed)" },
    snapshot: { type: "string", default: ".design/skill-snapshot.md", path: "read", help: "the target's text as improve saved it (several targets: each under a `# <path>.md` line)" },
    "max-lines": { type: "int", default: 500, help: "a skill must stay under this many lines" },
    "max-growth": { type: "int", default: 10, help: "a skill may grow by at most this percentage" },
    "max-tokens": { type: "int", default: 5000, help: "a skill's estimated tokens (4 characters each) after the roles" },
  },
  async run(ctx, args) {
    const limits = { maxLines: args["max-lines"] as number, maxGrowthPercent: args["max-growth"] as number, maxTokens: args["max-tokens"] as number };
    const { plan, ...verdict } = judgeGuards(ctx.cwd, { plan: args.plan_path as string, analysts: commaList(args.analysts), snapshot: args.snapshot as string, limits });
    const rec = verdict.passed
      ? await recordPhases(ctx.cwd, "improve", "guards", ctx.now(), `${rolesOf(plan).length} roles, guards passed`)
      : null;
    return { ...(rec ? { checkpoint: rec.announce } : {}), ...verdict };
  },
});
