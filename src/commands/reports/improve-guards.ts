// improve-guards: two of /do:improve's anti-pattern guards computed by the helper instead of estimated by the lead
// (seed 001: "regression safety (no dimension may degrade)" and "token budget tracking"). Before scores are the
// analysts' qualityScores (the lowest per dimension); each role of the draft plan declares its effect on the seven
// dimensions (`qualityEffects`, -1/0/1) and the lines it adds or removes in the target (`lineDelta`); the skill's
// size comes from the snapshot improve saved. The answer names the guards that fail. Its one write: the open improve
// run's checkpoints up to guards, once the guards pass (lib/run-record.ts).
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command.js";
import { HelperError } from "../../lib/errors.js";
import { loadPlan, rolesOf, str } from "../../lib/plan.js";
import {
  baseline, budgetGuard, DIMENSIONS, effectProblems, qualityScoreProblems, regressionGuard, scoresOf, snapshotSkills,
  type RoleEffects, type Scores,
} from "../../lib/quality.js";
import { isInt, isObject } from "../../lib/values.js";
import { commaList, readText } from "../../store.js";
import { recordPhases } from "../../lib/run-record.js";
import { loadArtifact } from "./expert-validate.js";

export const GUARD_NAMES = { regression: "regression-safety", budget: "token-budget" } as const;

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
    for (const [k, v] of Object.entries(limits)) if (v < 0) throw new HelperError("E_USAGE", `improve-guards: ${k} must be 0 or more`);

    const paths = commaList(args.analysts);
    if (paths.length === 0) throw new HelperError("E_USAGE", "improve-guards: --analysts names no file");
    const problems: string[] = [];
    const byAnalyst: Record<string, Scores> = {};
    for (const p of paths) {
      const doc = loadArtifact(ctx.cwd, p);
      const scores = isObject(doc) ? doc.qualityScores : undefined;
      const bad = qualityScoreProblems(scores);
      if (bad.length) problems.push(...bad.map((b) => `${p}: ${b}`));
      else byAnalyst[p] = scoresOf(scores as Record<string, unknown>);
    }

    const snapshotPath = args.snapshot as string;
    const snap = readText(resolve(ctx.cwd, snapshotPath));
    if (snap.kind === "missing") throw new HelperError("E_NOT_FOUND", `Snapshot not found: ${snapshotPath}`);
    if (snap.kind === "error") throw new HelperError("E_READ", `Error reading snapshot: ${snap.detail}`);
    const targets = snapshotSkills(snap.text, snapshotPath);

    const plan = loadPlan(ctx.cwd, args.plan_path as string);
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
    const rec = failed.length === 0
      ? await recordPhases(ctx.cwd, "improve", "guards", ctx.now(), `${rolesOf(plan).length} roles, guards passed`)
      : null;
    return {
      ...(rec ? { checkpoint: rec.announce } : {}),
      passed: failed.length === 0,
      failed,
      reasons: says,
      scores: { dimensions: DIMENSIONS, before: regression.before, after: regression.after, byAnalyst },
      regression: { passed: regression.passed, regressions: regression.regressions, netLosses: regression.netLosses },
      budget: { passed: budget.passed, limits, targets: budget.targets },
    };
  },
});
