import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";

const iv = (over: Record<string, unknown> = {}) => ({
  title: "Add CI gate",
  leverageLevel: 3,
  leverageGroup: "Design",
  leverageName: "rules",
  designGoal: "Add a type-check gate to CI",
  wrongDirection: "More manual review",
  confidence: "high",
  effort: "small",
  ...over,
});
const recon = (interventions: unknown[], over: Record<string, unknown> = {}) => ({
  schemaVersion: 1,
  goal: "Why do releases break?",
  scope: "src/",
  interventions,
  contradictions: [],
  ...over,
});

async function errorOf(t: any, doc: unknown): Promise<string> {
  const out = await project(t, { ".design/recon.json": doc }).run("recon-validate");
  assert.equal(out.ok, false);
  assert.equal(out.exitCode, 1);
  return out.error as string;
}

describe("recon-validate", () => {
  it("scores every intervention, adds the score alias, ranks and leaves the file unchanged", async (t) => {
    const doc = recon([
      iv({ title: "A", leverageLevel: 7, leverageGroup: "Parameters", leverageName: "parameters", effort: "trivial" }),
      iv({ title: "B", leverageLevel: 6, leverageGroup: "Feedbacks", leverageName: "structure", effort: "medium" }),
      iv({ title: "C", effort: "medium" }),
    ]);
    const p = project(t, { ".design/recon.json": doc });
    const before = p.read(".design/recon.json");
    const out = await p.run("recon-validate");
    assert.equal(out.ok, true);
    assert.equal(out.exitCode, 0);
    assert.equal(out.validated, true);
    const ivs = out.interventions as any[];
    assert.deepEqual(ivs.map((x) => x.compositeScore), [2, 3.5, 3]);
    assert.deepEqual(ivs.map((x) => x.score), [2, 3.5, 3]);
    assert.equal(ivs[1].title, "B");
    assert.equal(ivs[1].wrongDirection, "More manual review");
    assert.deepEqual(out.ranking, [1, 2, 0]);
    assert.deepEqual(out.warnings, []);
    assert.equal(p.read(".design/recon.json"), before);
  });

  it("ranks ties by index", async (t) => {
    const out = await project(t, { ".design/recon.json": recon([iv(), iv({ effort: "trivial" }), iv()]) }).run("recon-validate");
    assert.deepEqual(out.ranking, [1, 0, 2]);
  });

  it("reads the default path and accepts a custom one", async (t) => {
    const p = project(t, { "r.json": recon([]) });
    assert.equal((await p.run("recon-validate", ["r.json"])).ok, true);
    assert.equal((await p.run("recon-validate")).error, "Recon file not found: .design/recon.json");
  });

  it("reports file errors with the contract's prefixes", async (t) => {
    const p = project(t, { "bad.json": "{nope", "dir/x": "" });
    const invalid = await p.run("recon-validate", ["bad.json"]);
    assert.match(invalid.error as string, /^Invalid JSON in recon file: /);
    const unreadable = await p.run("recon-validate", ["dir"]);
    assert.match(unreadable.error as string, /^Error reading recon file: /);
  });

  it("rejects a non-object top level [Fix D7]", async (t) => {
    assert.equal(await errorOf(t, [1]), "Invalid recon structure: top-level value must be an object");
  });

  it("checks schemaVersion, rendering the value the Python way", async (t) => {
    assert.equal(await errorOf(t, recon([], { schemaVersion: 2 })), "Invalid schemaVersion: expected 1, got 2");
    const { schemaVersion: _s, ...noVersion } = recon([]);
    assert.equal(await errorOf(t, noVersion), "Invalid schemaVersion: expected 1, got None");
  });

  it("lists absent top-level fields, with [Seed] context standing in for scope", async (t) => {
    assert.equal(await errorOf(t, { schemaVersion: 1 }), "Missing required fields: goal, scope, interventions, contradictions");
    const { scope: _s, ...noScope } = recon([]);
    assert.equal(await errorOf(t, noScope), "Missing required fields: scope");
    const out = await project(t, { ".design/recon.json": { ...noScope, context: { stack: "ts" } } }).run("recon-validate");
    assert.equal(out.ok, true);
  });

  it("accepts goal and contradictions of any type as long as they are present", async (t) => {
    const out = await project(t, { ".design/recon.json": recon([], { goal: null, contradictions: null }) }).run("recon-validate");
    assert.equal(out.ok, true);
  });

  it("needs an array of at most 5 interventions", async (t) => {
    assert.equal(await errorOf(t, recon({} as any)), "interventions must be an array");
    assert.equal(await errorOf(t, recon([iv(), iv(), iv(), iv(), iv(), iv()])), "Too many interventions: 6 > 5");
  });

  it("rejects a non-object intervention [Fix D7]", async (t) => {
    assert.equal(await errorOf(t, recon([iv(), "x"])), "Intervention 1: must be an object");
  });

  it("lists the missing fields of an intervention, with [Seed] name standing in for title", async (t) => {
    assert.equal(
      await errorOf(t, recon([{ wrongDirection: "x" }])),
      "Intervention 0: missing fields title, leverageLevel, leverageGroup, designGoal, confidence, effort",
    );
    const { title: _t, ...untitled } = iv();
    assert.equal(await errorOf(t, recon([untitled])), "Intervention 0: missing fields title");
    const out = await project(t, { ".design/recon.json": recon([{ ...untitled, name: "Named" }]) }).run("recon-validate");
    assert.equal(out.ok, true);
    assert.equal((out.interventions as any[])[0].name, "Named");
  });

  it("rejects a boolean leverageLevel [Fix D22] and any level outside 1-7", async (t) => {
    assert.equal(await errorOf(t, recon([iv({ leverageLevel: true })])), "Intervention 0: leverageLevel must be integer 1-7, got True");
    assert.equal(await errorOf(t, recon([iv({ leverageLevel: 0 })])), "Intervention 0: leverageLevel must be integer 1-7, got 0");
    assert.equal(await errorOf(t, recon([iv({ leverageLevel: 8 })])), "Intervention 0: leverageLevel must be integer 1-7, got 8");
    assert.equal(await errorOf(t, recon([iv({ leverageLevel: 2.5 })])), "Intervention 0: leverageLevel must be integer 1-7, got 2.5");
    assert.equal(await errorOf(t, recon([iv({ leverageLevel: "3" })])), "Intervention 0: leverageLevel must be integer 1-7, got 3");
  });

  it("rejects an unknown leverageGroup", async (t) => {
    assert.equal(await errorOf(t, recon([iv({ leverageGroup: "design" })])), "Intervention 0: invalid leverageGroup 'design'");
  });

  it("requires wrongDirection up to level 5 only", async (t) => {
    assert.equal(
      await errorOf(t, recon([iv({ leverageLevel: 5, leverageGroup: "Feedbacks", wrongDirection: "" })])),
      "Intervention 0: wrongDirection required for leverageLevel 5",
    );
    const { wrongDirection: _w, ...noWrong } = iv({ leverageLevel: 1, leverageGroup: "Intent", leverageName: "paradigm" });
    assert.equal(await errorOf(t, recon([noWrong])), "Intervention 0: wrongDirection required for leverageLevel 1");
    const six = { ...noWrong, leverageLevel: 6, leverageGroup: "Feedbacks", leverageName: "structure" };
    assert.equal((await project(t, { ".design/recon.json": recon([six]) }).run("recon-validate")).ok, true);
  });

  it("rejects an unknown confidence or effort", async (t) => {
    assert.equal(await errorOf(t, recon([iv({ confidence: "certain" })])), "Intervention 0: invalid confidence 'certain'");
    assert.equal(await errorOf(t, recon([iv({ effort: "huge" })])), "Intervention 0: invalid effort 'huge'");
    assert.equal(await errorOf(t, recon([iv({ effort: null })])), "Intervention 0: invalid effort 'None'");
  });

  it("accepts the seed effort aliases low and high", async (t) => {
    const out = await project(t, { ".design/recon.json": recon([iv({ effort: "low" }), iv({ effort: "high" })]) }).run("recon-validate");
    assert.deepEqual((out.interventions as any[]).map((x) => x.compositeScore), [6, 1.5]);
  });

  it("reports the first failure only, in intervention order", async (t) => {
    assert.equal(
      await errorOf(t, recon([iv({ confidence: "x" }), iv({ leverageLevel: 9 })])),
      "Intervention 0: invalid confidence 'x'",
    );
  });

  it("warns about a group or name that does not match the level and about an empty designGoal [feature:recon/leverage-warnings]", async (t) => {
    const out = await project(t, {
      ".design/recon.json": recon([iv({ leverageGroup: "Intent", leverageName: "goals", designGoal: "" })]),
    }).run("recon-validate");
    assert.equal(out.ok, true);
    assert.deepEqual(out.warnings, [
      "Intervention 0: leverageGroup 'Intent' does not match leverageLevel 3 (expected 'Design')",
      "Intervention 0: leverageName 'goals' does not match leverageLevel 3 (expected 'rules')",
      "Intervention 0: designGoal is empty",
    ]);
  });

  it("overwrites a stale compositeScore in its output", async (t) => {
    const out = await project(t, { ".design/recon.json": recon([iv({ compositeScore: 99 })]) }).run("recon-validate");
    assert.equal((out.interventions as any[])[0].compositeScore, 6);
  });

  const finding = (over: Record<string, unknown> = {}) => ({
    id: "CA-1", domain: "codebase", source: "ci/test.yml", summary: "CI takes 19 minutes", implications: "Merges wait", relevantLeverageLevels: [5], ...over,
  });

  it("checks each research finding's fields: id, domain, source, summary, implications, relevantLeverageLevels [feature:recon/findings-and-no-roles]", async (t) => {
    const ok = await project(t, { ".design/recon.json": recon([iv()], { researchFindings: [finding(), finding({ id: "ER-1", domain: "literature" })] }) }).run("recon-validate");
    assert.equal(ok.ok, true, JSON.stringify(ok));
    assert.equal(await errorOf(t, recon([iv()], { researchFindings: [finding({ domain: "external" })] })),
      "researchFindings[0]: domain must be one of codebase, literature, comparative, theoretical, got 'external'");
    assert.equal(await errorOf(t, recon([iv()], { researchFindings: [finding({ implications: " ", source: undefined })] })),
      "researchFindings[0]: source, implications must be non-empty text");
    for (const levels of [[], [0], [8], ["5"], [true], 5, null]) {
      assert.equal(await errorOf(t, recon([iv()], { researchFindings: [finding({ relevantLeverageLevels: levels })] })),
        "researchFindings[0]: relevantLeverageLevels must be a non-empty list of leverage levels 1-7", JSON.stringify(levels));
    }
    assert.equal(await errorOf(t, recon([iv()], { researchFindings: [finding(), finding()] })), "researchFindings[1]: id 'CA-1' is used twice");
    assert.equal(await errorOf(t, recon([iv()], { researchFindings: {} })), "researchFindings must be an array");
    const two = await errorOf(t, recon([iv()], { researchFindings: ["x", finding({ summary: "" })] }));
    assert.equal(two, "researchFindings[0] must be an object (and 1 more: researchFindings[1]: summary must be non-empty text)");
  });

  it("refuses suggestedRoles at the top or in an intervention: recon hands design goals, not roles [feature:recon/findings-and-no-roles]", async (t) => {
    const top = await errorOf(t, recon([iv()], { suggestedRoles: ["api-developer"] }));
    assert.match(top, /^suggestedRoles is not allowed: recon hands \/do:design a designGoal and constraints, never roles/);
    const inner = await errorOf(t, recon([iv(), iv({ suggestedRoles: [] })]));
    assert.match(inner, /^Intervention 1: suggestedRoles is not allowed/);
  });
});
