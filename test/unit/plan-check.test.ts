// The zod-free twin of PlanSchema (src/schemas/plan-check.ts) that finalize runs on every call: it must give
// PlanSchema's verdict on every input. Proven on valid plans (minimal and with every optional field) and on every
// single-field mutation of them: each path of the plan, plus the schema's optional keys where they are absent,
// set to each of a set of values of every JSON kind (and deleted).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { PlanSchema } from "../../src/schemas/plan.ts";
import { matchesPlanSchema } from "../../src/schemas/plan-check.ts";
import { planWith } from "../helpers/design-dir.ts";

type Json = any;

const full = (): Json =>
  planWith(
    [
      {
        name: "api",
        status: "in_progress",
        attempts: 2,
        attemptLog: [
          { attempt: 1, model: "sonnet", agent: "api", outcome: "failed" },
          { attempt: 2, model: "opus", agent: "api--2", outcome: "stalled", reflexion: { rootCause: "r", wrongAssumptions: "w", alternative: "a", note: "kept" } },
          { attempt: 3, model: "opus", agent: "api--3", outcome: "running", note: "kept" },
        ],
        result: { any: "json" },
        directoryOverlaps: [1],
        constraints: ["use pg"],
        runs: [{ command: "node src/cli.js", args: "plain", why: "its examples" }, { command: "node src/cli.js --help", args: "none", note: "kept" }],
        expertContext: [{ expert: "architect", artifact: ".design/expert-architect.json", relevance: "layout" }],
        assumptions: [{ text: "pg is up", severity: "blocking" }],
        rollbackTriggers: ["pg missing"],
        fallback: "retry later",
      },
      { name: "ui", status: null, deps: ["api"] },
    ],
    {
      tier: "complex",
      goalType: "implementation",
      specsWaiver: { reason: "docs-config-only", detail: "why", note: "kept" },
      complexity: "medium",
      context: { stack: "node", conventions: ["eslint"], testCommand: "npm test", buildCommand: null, lsp: { ts: true } },
      expertArtifacts: [{ name: "architect", path: ".design/expert-architect.json", summary: "s" }],
      interfaceContracts: ".design/interfaces.json",
      designDecisions: [{ conflict: "c", experts: ["a", "b"], decision: "d", reasoning: "r" }],
      verificationSpecs: [{ role: "api", path: ".design/specs/a.test.ts", runCommand: "npx tsx a", properties: ["p"], sha256: "old" }],
      auxiliaryRoles: [
        { name: "challenger", type: "pre-execution", goal: "g", trigger: "before-execution", model: "opus" },
        { name: "integration-verifier", type: "post-execution", goal: "g", trigger: "after-all-roles-complete", runs: [{ command: "node src/cli.js list" }] },
      ],
      progress: { completedRoles: ["api"] },
    },
  );

/** Keys the schema knows that the fixtures may lack, per kind of object (so "added with a bad value" is tried too). */
const OPTIONAL: Record<string, string[]> = {
  plan: ["goal", "tier", "goalType", "specsWaiver", "complexity", "context", "expertArtifacts", "interfaceContracts", "designDecisions", "verificationSpecs", "auxiliaryRoles", "progress"],
  role: ["expertContext", "constraints", "runs", "assumptions", "rollbackTriggers", "fallback", "status", "result", "attempts", "attemptLog", "directoryOverlaps"],
  attempt: ["attempt", "model", "agent", "outcome", "reflexion"],
  scope: ["directories", "patterns", "dependencies"],
};

const VALUES: unknown[] = [
  null, "", "x", "sonnet", "fable", "gpt5", "Opus", "low", "medium", "high", "pending", "running", "interrupted", "blocking", "pre-execution", "after-design", "simple", "meta", "no-test-command",
  { reason: "no-test-command", detail: "d" }, { reason: "x", detail: "d" }, { reason: "no-test-command", detail: "" }, 0, 1, 4, -1, 1.5, 2 ** 53, 2 ** 60, true, false,
  [], [""], ["x"], [0], [1, 2], [null], [{}], {}, { x: 1 }, { criterion: "c", check: "k" }, { text: "t" }, "plain", "none", { command: "x" }, { command: "" }, { command: "x", args: "all" },
];
const DELETE = Symbol("delete");

/** Every path to a value inside `v` (arrays by index, objects by key), the root excluded. */
function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [];
  if (Array.isArray(v)) v.forEach((x, i) => out.push([...at, i], ...paths(x, [...at, i])));
  else if (typeof v === "object" && v !== null) for (const [k, x] of Object.entries(v)) out.push([...at, k], ...paths(x, [...at, k]));
  return out;
}

function mutate(doc: Json, path: (string | number)[], value: unknown): Json {
  const copy = structuredClone(doc);
  let o = copy;
  for (const k of path.slice(0, -1)) o = o[k];
  const last = path[path.length - 1];
  if (value === DELETE) Array.isArray(o) ? o.splice(last as number, 1) : delete o[last];
  else o[last] = structuredClone(value);
  return copy;
}

function agree(doc: unknown, what: string): boolean {
  const zod = PlanSchema.safeParse(doc).success;
  assert.equal(matchesPlanSchema(doc), zod, `${what}: PlanSchema says ${zod ? "valid" : "invalid"}`);
  return zod;
}

describe("matchesPlanSchema (finalize's zod-free check)", () => {
  it("accepts what PlanSchema accepts: the fixture plan, a full plan, 8 roles", () => {
    assert.equal(agree(planWith(["a", "b"]), "minimal"), true);
    assert.equal(agree(full(), "full"), true);
    assert.equal(agree(planWith(["a", "b", "c", "d", "e", "f", "g", "h"]), "eight roles"), true);
  });

  it("refuses what PlanSchema refuses: not an object, wrong version, no roles, nine roles", () => {
    for (const doc of [null, [], "plan", 4, { roles: [] }]) assert.equal(agree(doc, JSON.stringify(doc)), false);
    assert.equal(agree({ ...planWith(["a"]), schemaVersion: 3 }, "v3"), false);
    assert.equal(agree({ ...planWith(["a"]), schemaVersion: "4" }, "v'4'"), false);
    assert.equal(agree(planWith([]), "no roles"), false);
    assert.equal(agree(planWith(["a", "b", "c", "d", "e", "f", "g", "h", "i"]), "nine roles"), false);
  });

  it("agrees with PlanSchema on every single-field mutation of a full and a minimal plan", () => {
    let valid = 0;
    let invalid = 0;
    for (const base of [full(), planWith(["a"])]) {
      const targets = paths(base);
      targets.push(...OPTIONAL.plan.map((k) => [k]));
      base.roles.forEach((r: Json, i: number) => {
        targets.push(...OPTIONAL.role.map((k) => ["roles", i, k]));
        targets.push(...OPTIONAL.scope.map((k) => ["roles", i, "scope", k]));
        (r.attemptLog ?? []).forEach((_: Json, j: number) => targets.push(...OPTIONAL.attempt.map((k) => ["roles", i, "attemptLog", j, k])));
      });
      for (const path of targets) {
        for (const value of [DELETE, ...VALUES]) {
          if (agree(mutate(base, path, value), `${path.join(".")} = ${value === DELETE ? "(deleted)" : JSON.stringify(value)}`)) valid++;
          else invalid++;
        }
      }
    }
    // Both verdicts are well represented, so agreement is not agreement on one answer only.
    assert.ok(valid > 500 && invalid > 1000, `valid ${valid}, invalid ${invalid}`);
  });
});
