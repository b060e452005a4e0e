import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

const DIMS = ["protocolClarity", "constraintEnforcement", "errorHandling", "agentCoordination", "informationFlow", "promptEconomy", "verifiability"] as const;
type Dim = (typeof DIMS)[number];

const analyst = (scores: Partial<Record<Dim, number>> = {}) => ({
  summary: "s",
  verificationProperties: [],
  qualityScores: Object.fromEntries(DIMS.map((d) => [d, { score: scores[d] ?? 3, evidence: `evidence for ${d}` }])),
});
const effects = (e: Partial<Record<Dim, number>> = {}) => Object.fromEntries(DIMS.map((d) => [d, e[d] ?? 0]));
/** A skill text of `n` lines of 40 characters with the newline (10 tokens each). */
const skill = (n: number) => Array.from({ length: n }, (_, i) => `line ${String(i).padStart(3, "0")} `.padEnd(39, "x")).join("\n") + "\n";
const ARGS = [".design/draft/plan.json", "--analysts", ".design/expert-protocol-analyst.json,.design/expert-prompt-engineer.json"];

function setup(t: any, roles: Array<Record<string, unknown>>, snapshot = skill(200), a = analyst(), b = analyst()) {
  return project(t, {
    ".design/expert-protocol-analyst.json": a,
    ".design/expert-prompt-engineer.json": b,
    ".design/skill-snapshot.md": snapshot,
    ".design/draft/plan.json": planWith(roles.map((r, i) => ({ name: `r${i}`, ...r }))),
  });
}

describe("improve-guards", () => {
  it("passes a plan whose roles make no dimension worse and keep the skill within budget [feature:improve/guards-computed]", async (t) => {
    const p = setup(t, [
      { qualityEffects: effects({ errorHandling: 1 }), lineDelta: 12 },
      { qualityEffects: effects({ promptEconomy: 1 }), lineDelta: -8 },
    ], skill(200), analyst({ errorHandling: 2 }), analyst({ errorHandling: 4, promptEconomy: 2 }));
    const out = await p.run("improve-guards", ARGS);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal(out.passed, true);
    assert.deepEqual(out.failed, []);
    const scores = out.scores as any;
    // Before: the lower score of the two analysts; after: plus the declared effects.
    assert.equal(scores.before.errorHandling, 2);
    assert.equal(scores.after.errorHandling, 3);
    assert.equal(scores.before.promptEconomy, 2);
    assert.equal(scores.after.promptEconomy, 3);
    const target = (out.budget as any).targets[0];
    assert.deepEqual([target.path, target.lines, target.tokens, target.growthPercent], [".design/skill-snapshot.md", { before: 200, after: 204 }, { before: 2000, after: 2040 }, 2]);
  });

  it("fails regression safety for a role that makes a dimension worse, even when another role makes up for it [feature:improve/guards-computed]", async (t) => {
    const p = setup(t, [
      { qualityEffects: effects({ constraintEnforcement: 1, promptEconomy: -1 }), lineDelta: 5 },
      { qualityEffects: effects({ promptEconomy: 1 }), lineDelta: 0 },
    ]);
    const out = await p.run("improve-guards", ARGS);
    assert.equal(out.passed, false);
    assert.deepEqual(out.failed, ["regression-safety"]);
    assert.deepEqual((out.regression as any).regressions, [{ role: "r0", dimension: "promptEconomy", title: "Prompt Economy" }]);
    assert.deepEqual((out.regression as any).netLosses, []);
    assert.deepEqual(out.reasons, ["regression-safety: role r0 makes Prompt Economy worse"]);
  });

  it("fails the token budget on growth over 10 %, on 500 lines, and on the token limit [feature:improve/guards-computed]", async (t) => {
    const growth = await setup(t, [{ qualityEffects: effects(), lineDelta: 21 }]).run("improve-guards", ARGS);
    assert.deepEqual(growth.failed, ["token-budget"]);
    assert.deepEqual(growth.reasons, ["token-budget: .design/skill-snapshot.md grows 10.5 % (21 lines; at most 10 % or 10 lines)"]);
    const ten = await setup(t, [{ qualityEffects: effects(), lineDelta: 20 }]).run("improve-guards", ARGS);
    assert.deepEqual(ten.failed, [], "exactly 10 % passes");
    const long = await setup(t, [{ qualityEffects: effects(), lineDelta: 10 }], skill(490)).run("improve-guards", ARGS);
    assert.deepEqual(long.reasons, ["token-budget: .design/skill-snapshot.md 500 lines after the roles (must stay under 500)"]);
    const tokens = await setup(t, [{ qualityEffects: effects(), lineDelta: 0 }], skill(200)).run("improve-guards", [...ARGS, "--max-tokens", "1500"]);
    assert.deepEqual(tokens.reasons, ["token-budget: .design/skill-snapshot.md ~2000 tokens after the roles (budget 1500)"]);
    const both = await setup(t, [{ qualityEffects: effects({ verifiability: -1 }), lineDelta: 100 }]).run("improve-guards", ARGS);
    assert.deepEqual(both.failed, ["regression-safety", "token-budget"]);
  });

  it("lets a short skill grow by a few lines: the growth guard has a floor of 10 lines (issue 30) [feature:improve/guards-computed]", async (t) => {
    // A 12-line skill: one added line is 8 %, two are 17 %: a percentage alone refuses any change worth making.
    const two = await setup(t, [{ qualityEffects: effects(), lineDelta: 2 }], skill(12)).run("improve-guards", ARGS);
    assert.deepEqual(two.failed, [], JSON.stringify(two.reasons));
    const ten = await setup(t, [{ qualityEffects: effects(), lineDelta: 10 }], skill(12)).run("improve-guards", ARGS);
    assert.deepEqual(ten.failed, [], "10 lines is the floor");
    const eleven = await setup(t, [{ qualityEffects: effects(), lineDelta: 11 }], skill(12)).run("improve-guards", ARGS);
    assert.deepEqual(eleven.reasons, ["token-budget: .design/skill-snapshot.md grows 91.7 % (11 lines; at most 10 % or 10 lines)"]);
  });

  it("measures each target of a cross-skill snapshot and needs lineDelta by target there [feature:improve/guards-computed]", async (t) => {
    const snapshot = `# skills/a/SKILL.md\n${skill(100)}# skills/b/SKILL.md\n${skill(300)}`;
    const p = setup(t, [{ qualityEffects: effects(), lineDelta: { "skills/a/SKILL.md": 5, "skills/b/SKILL.md": 40 } }], snapshot);
    const out = await p.run("improve-guards", ARGS);
    assert.deepEqual((out.budget as any).targets.map((x: any) => [x.path, x.lines.before, x.lines.after]), [["skills/a/SKILL.md", 100, 105], ["skills/b/SKILL.md", 300, 340]]);
    assert.deepEqual(out.reasons, ["token-budget: skills/b/SKILL.md grows 13.3 % (40 lines; at most 10 % or 10 lines)"]);
    const flat = await setup(t, [{ qualityEffects: effects(), lineDelta: 3 }], snapshot).run("improve-guards", ARGS);
    assert.equal(flat.code, "E_INVALID");
    assert.match(flat.error as string, /lineDelta must name its target \(skills\/a\/SKILL\.md, skills\/b\/SKILL\.md\)/);
  });

  it("cannot judge a plan whose roles omit their effects or size, or analysts without valid scores", async (t) => {
    const p = setup(t, [{ qualityEffects: { promptEconomy: -2 } }, { lineDelta: 2 }], skill(10), { summary: "s", verificationProperties: [] } as any);
    const out = await p.run("improve-guards", ARGS);
    assert.equal(out.code, "E_INVALID");
    const problems = out.problems as string[];
    assert.ok(problems.includes(".design/expert-protocol-analyst.json: qualityScores is missing: score protocolClarity, constraintEnforcement, errorHandling, agentCoordination, informationFlow, promptEconomy, verifiability (1-5, with evidence)"), problems.join("\n"));
    assert.ok(problems.includes("Role 0 (r0): qualityEffects.promptEconomy must be -1, 0 or 1"));
    assert.ok(problems.some((x) => x.startsWith("Role 0 (r0): lineDelta must be")));
    assert.ok(problems.includes("Role 1 (r1): qualityEffects must be an object with all seven dimensions (-1, 0 or 1 each)"));
    const missing = await setup(t, []).run("improve-guards", [".design/draft/plan.json", "--analysts", ".design/expert-x.json"]);
    assert.equal(missing.code, "E_NOT_FOUND");
    const noSnap = project(t, { ".design/expert-a.json": analyst(), ".design/draft/plan.json": planWith(["r"]) });
    assert.equal((await noSnap.run("improve-guards", [".design/draft/plan.json", "--analysts", ".design/expert-a.json"])).error, "Snapshot not found: .design/skill-snapshot.md");
    assert.equal((await noSnap.run("improve-guards", [])).code, "E_USAGE");
  });
});
