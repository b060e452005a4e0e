// Loading plan.json (contract 3.11) and the computational view every plan command shares. The view is for
// computing only: mutating commands change the original document and write it back.
import { resolve } from "node:path";
import { parseJsonText, readJson } from "../../store.js";
import { HelperError } from "../../base/errors.js";
import type { Deps } from "./graph.js";
import { isInt, isObject, pyStr } from "../values.js";

export type Json = Record<string, unknown>;
export type PlanPart = "auxiliaryRoles" | "verificationSpecs" | "progress";

export const ROLE_STATUSES = ["pending", "in_progress", "completed", "failed", "skipped", "blocked"] as const;
/** The outcomes of an attemptLog entry (update-status and resume-reset write them; schemas/plan.ts describes them). */
export const ATTEMPT_OUTCOMES = ["running", "completed", "failed", "stalled", "interrupted"] as const;
export type RoleStatus = (typeof ROLE_STATUSES)[number];
/**
 * The models a worker or an auxiliary agent may name: what Claude Code's Agent tool accepts for `model` (its input
 * schema, `AgentInput.model` in sdk-tools.d.ts, the same in 2.1.197 and 2.1.332). The scheduler escalates
 * haiku → sonnet → opus; a role on fable keeps its model.
 */
export const MODEL_TIERS = ["haiku", "sonnet", "opus", "fable"] as const;

/** The stall limit of a plan that sets no `stallMinutes`: an attempt running longer is reported stalled by `next`. */
export const DEFAULT_STALL_MINUTES = 30;
/** The limits a plan's `stallMinutes` must keep (a day at most: a longer limit would never stop a dead worker). */
export const STALL_MINUTES_RANGE = [1, 1440] as const;

/** A plan's `complexity`, design's tier for its goal (design-tier): low is the quick path, medium and high the full one. */
export const COMPLEXITIES = ["low", "medium", "high"] as const;
export type Complexity = (typeof COMPLEXITIES)[number];

export function structure(message: string): HelperError {
  return new HelperError("E_SCHEMA", `Invalid plan structure: ${message}`);
}

/** Structural guard of contract 3.11 step 4 for the parts a command reads. */
export function guardPlan(doc: unknown, parts: readonly PlanPart[] = []): Json {
  if (!isObject(doc)) throw structure("top-level value must be an object");
  if ("roles" in doc) {
    if (!Array.isArray(doc.roles)) throw structure("'roles' must be an array");
    doc.roles.forEach((r, i) => {
      if (!isObject(r)) throw structure(`roles[${i}] must be an object`);
    });
  }
  if (parts.includes("auxiliaryRoles") && doc.auxiliaryRoles !== undefined && doc.auxiliaryRoles !== null) {
    if (!Array.isArray(doc.auxiliaryRoles)) throw structure("'auxiliaryRoles' must be an array");
    doc.auxiliaryRoles.forEach((r, i) => {
      if (!isObject(r)) throw structure(`auxiliaryRoles[${i}] must be an object`);
    });
  }
  if (parts.includes("verificationSpecs") && Array.isArray(doc.verificationSpecs)) {
    doc.verificationSpecs.forEach((s, i) => {
      if (!isObject(s)) throw structure(`verificationSpecs[${i}] must be an object`);
    });
  }
  if (parts.includes("progress") && "progress" in doc && !isObject(doc.progress)) {
    throw structure("'progress' must be an object");
  }
  return doc;
}

/** Parse plan text already read from disk (used under a lock by mutating commands). */
export function parsePlanText(text: string, parts: readonly PlanPart[] = []): Json {
  let doc: unknown;
  try {
    doc = parseJsonText(text);
  } catch (err) {
    throw new HelperError("E_JSON", `Invalid JSON in plan file: ${(err as Error).message}`);
  }
  return guardPlan(doc, parts);
}

/** Load and guard a plan. `path` is as the user gave it; it resolves against cwd. */
export function loadPlan(cwd: string, path: string, parts: readonly PlanPart[] = []): Json {
  const r = readJson(resolve(cwd, path));
  if (r.kind === "missing") throw new HelperError("E_NOT_FOUND", `Plan file not found: ${path}`);
  if (r.kind === "error") throw new HelperError("E_READ", `Error reading plan file: ${r.detail}`);
  if (r.kind === "invalid") throw new HelperError("E_JSON", `Invalid JSON in plan file: ${r.detail}`);
  return guardPlan(r.value, parts);
}

export function rolesOf(doc: Json): Json[] {
  return Array.isArray(doc.roles) ? (doc.roles as Json[]) : [];
}

/** Status with missing/null read as pending. */
export function statusOf(role: Json): string {
  const s = role.status;
  if (s === undefined || s === null) return "pending";
  return typeof s === "string" ? s : pyStr(s);
}

export function scopeOf(role: Json): Json {
  return isObject(role.scope) ? role.scope : {};
}

export function arrayOf(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function stringsOf(v: unknown): string[] {
  return arrayOf(v).filter((x): x is string => typeof x === "string");
}

export function attemptsOf(role: Json): number {
  return isInt(role.attempts) && role.attempts >= 0 ? role.attempts : 0;
}

/** A string field with a default when missing (null stays null only where a caller asks for it). */
export function str(v: unknown, dflt = ""): string {
  return typeof v === "string" ? v : v === undefined || v === null ? dflt : pyStr(v);
}

/** Role name → index; a later duplicate wins; a role without name is indexed under "" (contract 3.1). */
export function nameIndex(roles: readonly Json[]): Map<string, number> {
  const idx = new Map<string, number>();
  roles.forEach((r, i) => {
    if (r.name === undefined) idx.set("", i);
    else if (typeof r.name === "string") idx.set(r.name, i);
  });
  return idx;
}

/** deps[i]: indices of known dependency names in list order, duplicates kept, non-strings dropped. */
export function depsOf(roles: readonly Json[]): Deps {
  const idx = nameIndex(roles);
  return roles.map((r) => {
    const out: number[] = [];
    const names = isObject(r.scope) ? r.scope.dependencies : undefined;
    if (!Array.isArray(names)) return out;
    for (let k = 0; k < names.length; k++) {
      const name: unknown = names[k];
      const j = typeof name === "string" ? idx.get(name) : undefined;
      if (j !== undefined) out.push(j);
    }
    return out;
  });
}

/** The plan path positional shared by the plan commands. */
export const PLAN_PATH = { name: "plan_path", help: "plan file", default: ".design/plan.json", path: "read" } as const;
/** The plan path of the commands that write the plan: confined to the project's .design/. */
export const PLAN_PATH_WRITE = { ...PLAN_PATH, path: "write" } as const;
