// plan-diff: roles added, removed and modified between two plans, plus whether the goal changed
// (contract 4.13). Dependency names are listed sorted so the text is the same on every run [Fix D10].
import { defineCommand } from "../../lib/command.js";
import { arrayOf, loadPlan, rolesOf, scopeOf, stringsOf, type Json } from "../../lib/plan.js";
import { isObject, byCodePoint, pyStr } from "../../lib/values.js";

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
    { name: "plan_a", help: "the earlier plan", path: "read" },
    { name: "plan_b", help: "the later plan", path: "read" },
  ],
  flags: {},
  run(ctx, args) {
    const planA = loadPlan(ctx.cwd, args.plan_a as string);
    const planB = loadPlan(ctx.cwd, args.plan_b as string);
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
      summary: parts.length ? parts.join(", ") : "no changes detected",
      addedRoles,
      removedRoles,
      modifiedRoles,
      goalChanged,
    };
  },
});
