// finalize: validate the role briefs (contract 4.29, then PlanSchema, checked without zod unless it fails) and enrich the plan in one locked,
// atomic write: directory overlaps (3.4 j > i rule), SHA-256 of spec files, status initialisation. Warnings
// (inline Python that does not compile, CI expressions, placeholders and prose in checks, exit-code maskers,
// missing spec files) never block; bash -n is validate-checks' (finalize starts no bash). D7, D9, D10, D19,
// D20. Given the draft, .design/draft/plan.json, it installs the validated plan as .design/plan.json with its spec
// files (see `install`). Spec paths are hashed only inside the project (E_PATH otherwise).
//
// Why one file: validation and the atomic install of a draft share the plan they check; the planning rules and the
// checks' judgement already live in lib/.
import { unlinkSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { recordFor } from "../../lib/run/run-record.js";
import { isSurfaceOnly, maskedExit, maskersIn, maskerWarning, verifyChecks } from "../../lib/checks/checks.js";
import { END_GRANT_FLAG, refuseWhileGranted } from "../../lib/grant/grant-hold.js";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError, detail } from "../../base/errors.js";
import { depths, hasCycle, overlapWaits, territoriesOf } from "../../lib/plan/graph.js";
import {
  arrayOf, depsOf, loadPlan, MODEL_TIERS, PLAN_PATH_WRITE, ROLE_STATUSES, rolesOf, scopeOf, str, type Json, type PlanPart,
} from "../../lib/plan/plan.js";
import { serializePlan, updatePlan } from "../../lib/plan/plan-update.js";
import { seedRuleIssues } from "../../lib/plan/plan-rules.js";
import { draftShape, goalTier, judgeDraft, type Judged } from "../../lib/plan/tier.js";
import { goalFacts } from "../../lib/plan/goal-facts.js";
import { runCoverageIssues } from "../../lib/plan/run-coverage.js";
import { specNameIssues } from "../../lib/plan/spec-names.js";
import { refusedEdit } from "../../lib/grant/grant.js";
import { isEmpty, isObject, pyStr, sha256 } from "../../lib/values.js";
import { matchesPlanSchema } from "../../schemas/plan-check.js";
import { argLabel, confine, ensureDir, projectRoots, readBytes, realPath, withLock, writeAtomic } from "../../store.js";
import { OWN } from "../../base/owned.js";

const PARTS: readonly PlanPart[] = ["auxiliaryRoles", "verificationSpecs", "progress"];
const MAX_ROLES = 8;
const MAX_DEPTH = 5;
const AUX_TYPES = ["pre-execution", "post-execution", "per-role"];
const AUX_TRIGGERS = ["after-design", "before-execution", "after-role-complete", "after-all-roles-complete"];
const SURFACE_ONLY =
  "all acceptance criteria are surface-level — at least one must verify functional correctness " +
  "(e.g., build, test, curl, or run command)";

/** A model the Agent tool does not take (MODEL_TIERS) would reach the Agent call and fail there. */
const unknownModel = (v: unknown) => !(MODEL_TIERS as readonly unknown[]).includes(v);
const MODELS_TEXT = MODEL_TIERS.join(", ");

/** `{'a', 'b'}` in the fixed order given (D10). */
const pySet = (items: readonly string[]) => `{${items.map((s) => `'${s}'`).join(", ")}}`;

/** The role's name as messages show it: missing → "". */
const nameText = (role: Json) => str(role.name);

function validateRole(role: Json, i: number, issues: string[]): void {
  const label = `Role ${i} (${nameText(role)})`;
  if (isEmpty(role.name)) issues.push(`Role ${i}: missing 'name'`);
  if (isEmpty(role.goal)) issues.push(`${label}: missing 'goal'`);
  if (isEmpty(role.model)) issues.push(`${label}: missing 'model'`);
  else if (unknownModel(role.model)) issues.push(`${label}: unknown model '${pyStr(role.model)}' (the Agent tool takes ${MODELS_TEXT})`);

  const scope = scopeOf(role);
  if (isEmpty(scope.directories) && isEmpty(scope.patterns)) {
    issues.push(`${label}: scope needs 'directories' or 'patterns'`);
  }
  if ("dependencies" in scope && !Array.isArray(scope.dependencies)) {
    issues.push(`${label}: scope.dependencies must be an array`);
  }

  const criteria = role.acceptanceCriteria;
  if (isEmpty(criteria)) issues.push(`${label}: missing 'acceptanceCriteria'`);
  else {
    const checks: unknown[] = [];
    arrayOf(criteria).forEach((ac, j) => {
      const at = `${label}: acceptanceCriteria[${j}]`;
      if (!isObject(ac)) {
        issues.push(`${at} must be an object`);
        return;
      }
      if (isEmpty(ac.criterion)) issues.push(`${at} missing 'criterion'`);
      if (isEmpty(ac.check)) issues.push(`${at} missing 'check'`);
      else {
        if (typeof ac.check !== "string") issues.push(`${at} 'check' must be a string`);
        else {
          // A check that cannot fail proves nothing (seed 001): refused, naming the part that masks it.
          const masked = maskedExit(ac.check);
          if (masked !== null) issues.push(`${at} ${masked}`);
        }
        checks.push(ac.check);
      }
    });
    // Every non-empty check runs nothing in any of its parts: only reads of files or text (a non-string check is not surface-only).
    if (checks.length > 0 && checks.every((c) => typeof c === "string" && isSurfaceOnly(c))) {
      issues.push(`${label}: ${SURFACE_ONLY}`);
    }
  }

  if ("constraints" in role && !Array.isArray(role.constraints)) issues.push(`${label}: 'constraints' must be an array`);

  if ("expertContext" in role) {
    if (!Array.isArray(role.expertContext)) issues.push(`${label}: 'expertContext' must be an array`);
    else {
      role.expertContext.forEach((ec: unknown, j: number) => {
        const at = `${label}: expertContext[${j}]`;
        if (!isObject(ec)) {
          issues.push(`${at} must be an object`);
          return;
        }
        if (isEmpty(ec.expert)) issues.push(`${at} missing 'expert'`);
        if (isEmpty(ec.artifact)) issues.push(`${at} missing 'artifact'`);
      });
    }
  }

  const assumptions = arrayOf(role.assumptions);
  assumptions.forEach((a, j) => {
    if (!isObject(a) || isEmpty(a.text)) issues.push(`${label}: assumptions[${j}] missing 'text'`);
  });
  if (assumptions.some((a) => isObject(a) && a.severity === "blocking") && isEmpty(role.rollbackTriggers)) {
    issues.push(`${label}: has blocking assumptions but no rollbackTriggers`);
  }

  const status = role.status;
  if (status !== undefined && status !== null && !(ROLE_STATUSES as readonly unknown[]).includes(status)) {
    issues.push(`${label}: invalid status '${pyStr(status)}'`);
  }
}

/**
 * finalize's own judgement of a plan's complexity (issue 32): the tier of its goal from what the project knows
 * (goal-facts.ts, as design-tier answers it) and its shape, so a draft's own `complexity` is never simply trusted.
 * Null for a plan with no goal to judge.
 */
export function judgeComplexity(cwd: string, doc: Json): Judged | null {
  if (typeof doc.goal !== "string" || doc.goal.trim() === "") return null;
  return judgeDraft(goalTier(goalFacts(cwd, doc.goal.trim())), draftShape(doc));
}

/** Every problem of contract 4.29 "Validation", in the contract's order; then PlanSchema when none. */
export function validatePlan(doc: Json, judged?: Judged | null): string[] {
  const issues: string[] = [];
  if (!(typeof doc.schemaVersion === "number" && doc.schemaVersion === 4)) {
    issues.push(`schemaVersion must be 4 (got ${pyStr(doc.schemaVersion)})`);
  }

  const roles = rolesOf(doc);
  if (roles.length === 0) issues.push("No roles in plan");
  else if (roles.length > MAX_ROLES) issues.push(`Too many roles: ${roles.length} (max ${MAX_ROLES})`);

  const names = new Set<string>();
  for (const role of roles) {
    const name = nameText(role);
    if (names.has(name)) issues.push(`Duplicate role name: ${name}`);
    names.add(name);
  }

  roles.forEach((role, i) => validateRole(role, i, issues));

  roles.forEach((role, i) => {
    for (const dep of arrayOf(scopeOf(role).dependencies)) {
      if (typeof dep !== "string" || !names.has(dep)) {
        issues.push(`Role ${i} (${nameText(role)}): dependency '${pyStr(dep)}' not found in roles`);
      }
    }
  });
  const deps = depsOf(roles);
  if (hasCycle(deps)) issues.push("Cycle detected in role dependencies");
  else if (roles.length > 0) {
    const maxDepth = Math.max(...depths(deps));
    if (maxDepth > MAX_DEPTH) issues.push(`Critical path depth too high: ${maxDepth} (max ${MAX_DEPTH})`);
  }

  arrayOf(doc.auxiliaryRoles).forEach((aux, k) => {
    const a = aux as Json; // guarded to be objects
    if (isEmpty(a.name)) issues.push(`AuxiliaryRole ${k}: missing 'name'`);
    const alabel = `AuxiliaryRole ${k} (${nameText(a)})`;
    if (isEmpty(a.type)) issues.push(`${alabel}: missing 'type'`);
    if (isEmpty(a.goal)) issues.push(`${alabel}: missing 'goal'`);
    if (isEmpty(a.trigger)) issues.push(`${alabel}: missing 'trigger'`);
    if (!isEmpty(a.type) && !AUX_TYPES.includes(a.type as string)) {
      issues.push(`${alabel}: type must be one of ${pySet(AUX_TYPES)}`);
    }
    if (!isEmpty(a.trigger) && !AUX_TRIGGERS.includes(a.trigger as string)) {
      issues.push(`${alabel}: trigger must be one of ${pySet(AUX_TRIGGERS)}`);
    }
    if (a.model !== undefined && unknownModel(a.model)) {
      issues.push(`${alabel}: unknown model '${pyStr(a.model)}' (the Agent tool takes ${MODELS_TEXT})`);
    }
  });

  const specs = doc.verificationSpecs;
  if (specs !== undefined && specs !== null && !Array.isArray(specs)) issues.push("'verificationSpecs' must be an array");
  else {
    arrayOf(specs).forEach((s, i) => {
      const spec = s as Json; // guarded to be objects
      const at = `verificationSpecs[${i}]`;
      if (isEmpty(spec.role)) issues.push(`${at}: missing 'role' field`);
      else if (typeof spec.role !== "string" || !names.has(spec.role)) {
        issues.push(`${at}: role '${pyStr(spec.role)}' not found in roles`);
      }
      if (isEmpty(spec.path)) issues.push(`${at}: missing 'path' field`);
      if (isEmpty(spec.runCommand)) issues.push(`${at}: missing 'runCommand' field`);
      if (spec.properties !== undefined && spec.properties !== null && !Array.isArray(spec.properties)) {
        issues.push(`${at}: 'properties' must be an array`);
      }
    });
  }

  issues.push(...seedRuleIssues(doc, judged)); // complexity, specs for complex plans, auxiliaries, scout (lib/plan/plan-rules.ts)
  issues.push(...runCoverageIssues(doc)); // runs the grant can record, commands the briefs quote (lib/plan/run-coverage.ts)
  issues.push(...specNameIssues(doc)); // spec file names their runner takes (lib/plan/spec-names.ts)
  if (issues.length === 0 && !matchesPlanSchema(doc)) issues.push(...schemaIssues(doc));
  return issues;
}

/**
 * PlanSchema's own wording of why it refuses `doc`. zod is loaded only here, for a plan that the zod-free twin
 * (schemas/plan-check.ts) already found wanting.
 */
function schemaIssues(doc: Json): string[] {
  const { check } = require("../../schemas/common.js") as typeof import("../../schemas/common.js");
  const { PlanSchema } = require("../../schemas/plan.js") as typeof import("../../schemas/plan.js");
  const r = check(PlanSchema, doc);
  return r.ok ? [] : r.issues;
}

/**
 * A draft carries no run state: statuses, attempts, attempt logs, results and progress are the helper's record of
 * what happened under the installed plan (update-status and resume-reset write them), and a draft has not run.
 * Whatever a draft holds there is reset to what finalize gives a new plan, each reset named in a warning. Reset
 * rather than refused: the record would not be true of the new plan, dropping it loses nothing, and a model that
 * revised an installed plan into the draft would otherwise need a round trip to make exactly this change; a lead
 * that meant to carry finished work over learns from the warning to leave those roles out instead.
 */
function resetRunState(doc: Json): string[] {
  const warnings: string[] = [];
  rolesOf(doc).forEach((role, i) => {
    const at = `Role ${i} (${nameText(role)})`;
    if (role.status !== undefined && role.status !== null && role.status !== "pending") {
      warnings.push(`${at}: status '${pyStr(role.status)}' reset to pending`);
      role.status = "pending";
    }
    if (role.attempts !== undefined && role.attempts !== 0) {
      warnings.push(`${at}: attempts ${pyStr(role.attempts)} reset to 0`);
      role.attempts = 0;
    }
    if (role.attemptLog !== undefined) {
      warnings.push(`${at}: attemptLog dropped`);
      delete role.attemptLog;
    }
    if (role.result !== undefined && role.result !== null) {
      warnings.push(`${at}: result dropped`);
      role.result = null;
    }
  });
  const progress = doc.progress;
  const fresh = isObject(progress) && Object.keys(progress).every((k) => k === "completedRoles") && arrayOf(progress.completedRoles).length === 0 &&
    (progress.completedRoles === undefined || Array.isArray(progress.completedRoles));
  if (progress !== undefined && !fresh) {
    warnings.push("progress reset: no role of a new plan has completed");
    doc.progress = { completedRoles: [] };
  }
  return warnings;
}

/** SHA-256 of a spec file of an in-place finalize: its path must resolve inside the project (E_PATH otherwise). */
function specDigest(cwd: string, path: string, i: number): string | null {
  const bytes = readBytes(confine(cwd, `verificationSpecs[${i}].path '${path}'`, path, "read"));
  return bytes === null ? null : sha256(bytes);
}

interface Enriched {
  roleCount: number;
  auxiliaryCount: number;
  overlapPairs: number;
  specWarnings: string[];
  /** Every criterion's check as written, for the warnings computed after the lock is released. */
  checks: Array<{ roleName: string; j: number; check: unknown }>;
  /** Scope entries execute's grant never covers, one sentence each. */
  scopeWarnings: string[];
}

/**
 * What execute's grant will never cover (issue 31: improve of an installed plugin's skill planned edits there), said
 * plainly: a background worker cannot ask, so such a role cannot be carried out by /do:execute as planned.
 */
function scopeWarningsOf(roles: Json[]): string[] {
  return roles.flatMap((role, i) =>
    [...arrayOf(scopeOf(role).directories), ...arrayOf(scopeOf(role).patterns)].flatMap((v) => {
      const why = typeof v === "string" ? refusedEdit(v) : "";
      return why
        ? [`Role ${i} (${nameText(role)}): /do:execute cannot carry out edits of '${v as string}' (${why}): its grant never covers them and a background worker cannot ask; apply them by hand, or give the worker an Edit rule in the settings first`]
        : [];
    }),
  );
}

/** Enrichment steps 1, 2, 5 and 6 on the validated document itself (unknown fields untouched). */
function enrich(doc: Json, root: string, digestOf: (path: string, i: number) => string | null): Enriched {
  const roles = rolesOf(doc);
  const waits = overlapWaits(territoriesOf(roles, root), depsOf(roles));
  roles.forEach((role, i) => (role.directoryOverlaps = waits[i]));

  const specWarnings: string[] = [];
  arrayOf(doc.verificationSpecs).forEach((s, i) => {
    const spec = s as Json;
    if (isEmpty(spec.path)) return;
    const path = spec.path as string; // a string: the schema passed
    const digest = digestOf(path, i);
    if (digest !== null) spec.sha256 = digest;
    else specWarnings.push(`verificationSpecs[${i}]: file not found: ${path} (sha256 not updated)`);
  });

  const checks: Enriched["checks"] = [];
  roles.forEach((role, i) => {
    const roleName = "name" in role ? pyStr(role.name) : `role-${i}`;
    arrayOf(role.acceptanceCriteria).forEach((ac, j) => checks.push({ roleName, j, check: (ac as Json).check }));
  });

  for (const role of roles) {
    if (!("status" in role)) role.status = "pending";
    if (!("attempts" in role)) role.attempts = 0;
    if (!("result" in role)) role.result = null;
  }
  if (!("progress" in doc)) doc.progress = { completedRoles: [] };

  return {
    roleCount: roles.length,
    auxiliaryCount: arrayOf(doc.auxiliaryRoles).length,
    overlapPairs: waits.reduce((n, w) => n + w.length, 0),
    specWarnings,
    checks,
    scopeWarnings: scopeWarningsOf(roles),
  };
}

// ---------------------------------------------------------------- draft install

const DRAFT_SPECS = ".design/draft/specs";
const SPECS = ".design/specs";
const INSTALLED_PLAN = ".design/plan.json";

/** The real path a draft plan has: `<project>/.design/draft/plan.json`. */
const draftPlan = (cwd: string) => join(projectRoots(cwd).design, "draft", "plan.json");

/**
 * Where a draft's spec path installs: `.design/specs/<rel>` or `.design/draft/specs/<rel>` (both name the same
 * file) → `<rel>`; anything else → null. Compared lexically against the working directory.
 */
function specRel(cwd: string, path: string): string | null {
  const abs = resolve(cwd, path);
  for (const base of [SPECS, DRAFT_SPECS]) {
    const rel = relative(resolve(cwd, base), abs);
    if (rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)) return rel.split(sep).join("/");
  }
  return null;
}

interface SpecCopy {
  /** Real path the file installs to, its new bytes, and what was there before (null: nothing). */
  dest: string;
  bytes: Buffer;
  before: Buffer | null;
}

/**
 * finalize .design/draft/plan.json: validate the draft as an in-place finalize would, then install it as
 * .design/plan.json and its spec files from .design/draft/specs/ into .design/specs/, all under the plan's lock.
 * The installed plan names each spec as `.design/specs/<rel>` and records the SHA-256 of the installed bytes. A
 * spec missing from the draft but already installed keeps the installed file (hashed as it is); one missing from
 * both is a warning, as in place. Any failure installs nothing (files already replaced are put back).
 */
async function install(cwd: string, shown: string, failIfInvalid: (doc: Json) => void, report: Record<string, unknown>): Promise<Enriched> {
  const doc = loadPlan(cwd, shown, PARTS);
  const reset = resetRunState(doc);
  failIfInvalid(doc);
  const placement: string[] = [];
  const copies: SpecCopy[] = [];
  arrayOf(doc.verificationSpecs).forEach((s, i) => {
    const spec = s as Json;
    if (typeof spec.path !== "string" || spec.path === "") return;
    const rel = specRel(cwd, spec.path);
    if (rel === null) {
      confine(cwd, `verificationSpecs[${i}].path '${spec.path}'`, spec.path, "read");
      placement.push(`verificationSpecs[${i}]: path '${spec.path}' must name a file under ${SPECS}/ (its draft under ${DRAFT_SPECS}/)`);
      return;
    }
    const label = `verificationSpecs[${i}].path '${spec.path}'`;
    const src = confine(cwd, label, `${DRAFT_SPECS}/${rel}`, "read");
    const dest = confine(cwd, label, `${SPECS}/${rel}`, "write", OWN.spec);
    spec.path = `${SPECS}/${rel}`;
    const bytes = readBytes(src);
    if (bytes !== null) copies.push({ dest, bytes, before: readBytes(dest) });
  });
  if (placement.length) throw new HelperError("E_INVALID", "validation_failed", { issues: placement });

  const target = confine(cwd, `installed plan '${INSTALLED_PLAN}'`, INSTALLED_PLAN, "write", OWN.plan);
  const staged = new Map(copies.map((c) => [c.dest, c.bytes]));
  const e = enrich(doc, cwd, (path) => {
    const dest = realPath(resolve(cwd, path));
    const bytes = staged.get(dest) ?? readBytes(dest);
    return bytes === null ? null : sha256(bytes);
  });
  const text = serializePlan(doc);
  await withLock(target, () => {
    const done: SpecCopy[] = [];
    try {
      for (const c of copies) {
        ensureDir(dirname(c.dest));
        writeAtomic(c.dest, c.bytes);
        done.push(c);
      }
      writeAtomic(target, text);
    } catch (err) {
      for (const c of done.reverse()) {
        try {
          if (c.before === null) unlinkSync(c.dest);
          else writeAtomic(c.dest, c.before);
        } catch {
          /* best effort: the error below names the failure */
        }
      }
      throw new HelperError("E_WRITE", `Error installing plan: ${detail(err)}`);
    }
  });
  report.installed = INSTALLED_PLAN;
  report.installedSpecs = copies.map((c) => `${SPECS}/${relative(join(projectRoots(cwd).design, "specs"), c.dest).split(sep).join("/")}`);
  if (reset.length) report.runStateWarnings = reset;
  return e;
}

export default defineCommand({
  positionals: [PLAN_PATH_WRITE],
  flags: { "validate-only": { type: "boolean", help: "validate only: no enrichment, no write, no lock" }, "end-grant": END_GRANT_FLAG },
  async run(ctx, args) {
    if (!args["validate-only"]) refuseWhileGranted(ctx, args["end-grant"], "installing a plan");
    const planPath = args.plan_path as string;
    // Answered beside the result only for a plan that claims a complexity (design's): what the helper holds it to.
    let shown: { judgedComplexity: Judged } | Record<string, never> = {};
    const failIfInvalid = (doc: Json) => {
      const judged = judgeComplexity(ctx.cwd, doc);
      shown = judged && doc.complexity !== undefined ? { judgedComplexity: judged } : {};
      const issues = validatePlan(doc, judged);
      if (issues.length > 0) throw new HelperError("E_INVALID", "validation_failed", { issues, ...shown });
    };

    const draft = confine(ctx.cwd, argLabel("plan_path", planPath, false), planPath, "write", OWN.planOrDraft) === draftPlan(ctx.cwd);
    if (args["validate-only"]) {
      const doc = loadPlan(ctx.cwd, planPath, PARTS);
      const reset = draft ? resetRunState(doc) : [];
      failIfInvalid(doc);
      return { validated: true, ...shown, ...(reset.length ? { runStateWarnings: reset } : {}) };
    }

    const installed: Record<string, unknown> = {};
    const e = draft
      ? await install(ctx.cwd, planPath, failIfInvalid, installed)
      : await updatePlan(
          ctx.cwd,
          planPath,
          PARTS,
          (doc) => {
            failIfInvalid(doc);
            return { write: true, result: enrich(doc, ctx.cwd, (path, i) => specDigest(ctx.cwd, path, i)) };
          },
          { anyVersion: true },
        );

    // Warnings come from the version just written; python3 runs after the lock is released, so a slow
    // compiler never holds up other writers.
    const antiPatternWarnings: string[] = [];
    const compiled: Array<{ slot: number; at: string; check: string }> = [];
    const slots: Array<string | null> = []; // one per criterion, in role/criterion order
    for (const { roleName, j, check: c } of e.checks) {
      const at = `${roleName} criterion ${j}`;
      slots.push(isEmpty(c) ? `${at}: empty check command` : null);
      if (typeof c !== "string" || c === "") continue;
      compiled.push({ slot: slots.length - 1, at, check: c });
      for (const m of maskersIn(c)) antiPatternWarnings.push(`${at}: ${maskerWarning(m)}`);
    }
    const { verdicts, pythonAvailable } = await verifyChecks(compiled.map((c) => c.check), { shell: false });
    verdicts.forEach((v, k) => {
      const { slot, at } = compiled[k];
      // Maskers are antiPatternWarnings; the first other error is the check's warning.
      const error = v.findings?.find((f) => f.severity === "error" && f.code !== "exit-masked");
      if (error) slots[slot] = `${at}: ${error.message}`;
    });
    const checkWarnings = slots.filter((w): w is string => w !== null);
    const scopeWarnings = e.scopeWarnings;
    // An installed draft is the output of the plan-writing skill's finalize phase (reflect's plan): its open run
    // records it, with every phase before it not yet recorded (lib/run/run-record.ts).
    const warningCount = checkWarnings.length + scopeWarnings.length + e.specWarnings.length + antiPatternWarnings.length;
    const rec = draft
      ? await recordFor(ctx.cwd, ["design", "improve", "reflect"], (s) => (s === "reflect" ? "plan" : "finalize"), ctx.now(), `${e.roleCount} roles finalized, ${warningCount} warnings`)
      : null;

    return {
      validated: true,
      ...installed,
      ...shown,
      computedOverlaps: e.roleCount,
      roleCount: e.roleCount,
      auxiliaryCount: e.auxiliaryCount,
      ...(checkWarnings.length ? { checkWarnings } : {}),
      ...(scopeWarnings.length ? { scopeWarnings } : {}),
      ...(e.specWarnings.length ? { specWarnings: e.specWarnings } : {}),
      ...(antiPatternWarnings.length ? { antiPatternWarnings } : {}),
      overlapPairs: e.overlapPairs,
      ...(pythonAvailable ? {} : { pythonAvailable: false }),
      ...(rec ? { checkpoint: rec.announce } : {}),
    };
  },
});
