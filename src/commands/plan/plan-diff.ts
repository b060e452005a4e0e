// plan-diff: roles added, removed and modified between two plans, plus whether the goal changed
// (contract 4.13). Dependency names are listed sorted so the text is the same on every run [Fix D10].
// plan_a may also be an archive folder (.design/history): the earlier plan is then the newest archived plan.json
// in it, named in the answer (`archivedPlan`, `archivedGoal`), so a skill needs no file search to find it.
import { basename, resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError, detail } from "../../base/errors.js";
import { arrayOf, loadPlan, rolesOf, scopeOf, stringsOf, type Json } from "../../lib/plan/plan.js";
import { isObject, byCodePoint, pyStr } from "../../lib/values.js";
import { confined, listDir, pathKind } from "../../store.js";

/** An archive folder's name: `archive`'s and `run-start --fresh`'s UTC stamp, with -2, -3, ... for a repeat. */
const ARCHIVE_FOLDER = /^(\d{8}T\d{6}Z)(?:-(\d+))?$/;

/** The archived `<dir>/<stamp>/plan.json` files inside the project, newest first, as the caller wrote the folder. */
export function archivedPlans(cwd: string, dir: string): string[] {
  const shown = dir.replace(/\/+$/, "") || dir;
  let names: string[];
  try {
    names = listDir(resolve(cwd, dir)).map((e) => e.name);
  } catch (err) {
    throw new HelperError("E_READ", `Error reading ${shown}: ${detail(err)}`);
  }
  return names
    .map((name) => ({ name, m: ARCHIVE_FOLDER.exec(name) }))
    .filter((f): f is { name: string; m: RegExpExecArray } => f.m !== null)
    .sort((x, y) => (x.m[1] === y.m[1] ? Number(y.m[2] ?? 1) - Number(x.m[2] ?? 1) : x.m[1] < y.m[1] ? 1 : -1))
    .map(({ name }) => `${shown}/${name}/plan.json`)
    .filter((plan) => {
      const real = confined(cwd, plan, "read");
      return real !== null && pathKind(real) === "file";
    });
}

/** The newest archived plan that reads as a plan (a broken one, archived on the user's word, is passed over). */
function newestArchived(cwd: string, dir: string): { path: string; plan: Json } | null {
  for (const path of archivedPlans(cwd, dir)) {
    try {
      return { path, plan: loadPlan(cwd, path) };
    } catch (err) {
      if (!(err instanceof HelperError)) throw err;
    }
  }
  return null;
}

/** Deep JSON equality; object key order does not matter. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => k in b && same(a[k], b[k]));
}

/** A field where missing and null are the same value. */
function field(o: Json, key: string): unknown {
  return o[key] ?? null;
}

/** Map key for any JSON value used as a name (so 5 and "5" stay apart, as in the reference's dicts). */
function keyOf(v: unknown): string {
  return JSON.stringify(v ?? null);
}

/** Roles by name in first-seen order; a repeated name keeps its first position but the last role. */
function byName(plan: Json): Map<string, { name: unknown; role: Json }> {
  const out = new Map<string, { name: unknown; role: Json }>();
  for (const role of rolesOf(plan)) {
    const name = "name" in role ? role.name : "";
    out.set(keyOf(name), { name, role });
  }
  return out;
}

/** Acceptance criteria by criterion text, later duplicates winning; value is the check. */
function criteria(role: Json): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const c of arrayOf(role.acceptanceCriteria)) {
    if (isObject(c)) out.set(keyOf(field(c, "criterion")), field(c, "check"));
  }
  return out;
}

function roleChanges(a: Json, b: Json): string[] {
  const changes: string[] = [];
  if (!same(field(a, "goal"), field(b, "goal"))) changes.push("goal modified");
  if (!same(field(a, "status"), field(b, "status"))) {
    changes.push(`status: ${pyStr(field(a, "status"))} -> ${pyStr(field(b, "status"))}`);
  }
  const ca = criteria(a);
  const cb = criteria(b);
  const added = [...cb.keys()].filter((k) => !ca.has(k)).length;
  const removed = [...ca.keys()].filter((k) => !cb.has(k)).length;
  const modified = [...ca.keys()].filter((k) => cb.has(k) && !same(ca.get(k), cb.get(k))).length;
  if (added > 0) changes.push(`+${added} acceptance criteria`);
  if (removed > 0) changes.push(`-${removed} acceptance criteria`);
  if (modified > 0) changes.push(`~${modified} acceptance criteria modified`);
  const da = new Set(stringsOf(scopeOf(a).dependencies));
  const db = new Set(stringsOf(scopeOf(b).dependencies));
  const plus = [...db].filter((d) => !da.has(d)).sort(byCodePoint);
  const minus = [...da].filter((d) => !db.has(d)).sort(byCodePoint);
  if (plus.length) changes.push(`+deps: ${plus.join(", ")}`);
  if (minus.length) changes.push(`-deps: ${minus.join(", ")}`);
  return changes;
}

export default defineCommand({
  positionals: [
    { name: "plan_a", help: "the earlier plan, or an archive folder (.design/history): its newest archived plan.json", path: "read" },
    { name: "plan_b", help: "the later plan", path: "read" },
  ],
  flags: {},
  run(ctx, args) {
    const given = args.plan_a as string;
    // An archive folder, or one no archive has made yet (a first improve: nothing archived, so nothing earlier).
    const kindA = pathKind(resolve(ctx.cwd, given));
    const fromHistory = kindA === "directory" || (kindA === "missing" && basename(given.replace(/\/+$/, "")) === "history");
    const found = fromHistory && kindA === "directory" ? newestArchived(ctx.cwd, given) : null;
    const planA = fromHistory ? found?.plan : loadPlan(ctx.cwd, given);
    const planB = loadPlan(ctx.cwd, args.plan_b as string);
    if (planA === undefined) return { archivedPlan: null, message: `no archived plan.json in ${given.replace(/\/+$/, "") || given}` };
    const archived = found ? { archivedPlan: found.path, archivedGoal: field(planA, "goal") } : undefined;
    const a = byName(planA);
    const b = byName(planB);

    const addedRoles = [...b].filter(([k]) => !a.has(k)).map(([, v]) => v.name);
    const removedRoles = [...a].filter(([k]) => !b.has(k)).map(([, v]) => v.name);
    const modifiedRoles = [];
    for (const [k, { name, role }] of a) {
      const other = b.get(k);
      if (!other) continue;
      const changes = roleChanges(role, other.role);
      if (changes.length) modifiedRoles.push({ role: name, changes });
    }
    const goalChanged = !same(field(planA, "goal"), field(planB, "goal"));

    const parts: string[] = [];
    if (addedRoles.length) parts.push(`${addedRoles.length} roles added`);
    if (removedRoles.length) parts.push(`${removedRoles.length} roles removed`);
    if (modifiedRoles.length) parts.push(`${modifiedRoles.length} roles modified`);
    if (goalChanged) parts.push("goal changed");
    return {
      ...archived,
      summary: parts.length ? parts.join(", ") : "no changes detected",
      addedRoles,
      removedRoles,
      modifiedRoles,
      goalChanged,
    };
  },
});
