import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";

const iv = (over: Record<string, unknown> = {}) => ({
  title: "Add CI gate",
  rank: 1,
  leverageLevel: 3,
  leverageGroup: "Design",
  designGoal: "Add a type-check gate to CI",
  wrongDirection: "More manual review",
  confidence: "high",
  effort: "small",
  ...over,
});

describe("recon-summary", () => {
  it("returns each intervention's constraints, which design puts into every brief (issue 31)", async (t) => {
    const p = project(t, { ".design/recon.json": { schemaVersion: 1, goal: "g", scope: "s", contradictions: [], interventions: [iv({ constraints: ["No new dependency"] })] } });
    const out: any = await p.run("recon-summary");
    assert.deepEqual(out.topInterventions[0].constraints, ["No new dependency"]);
  });

  it("summarises interventions in file order with a computed score when none is stored [Fix D21]", async (t) => {
    const p = project(t, {
      ".design/recon.json": {
        schemaVersion: 1,
        goal: "g",
        scope: "s",
        contradictions: [],
        additionalFindings: 4,
        interventions: [iv({ rank: 2, confidence: "medium" }), iv({ rank: 1, title: "Stored", compositeScore: 4.25, constraints: ["Keep the suite green", 7] })],
      },
    });
    const out = await p.run("recon-summary");
    assert.deepEqual(out, {
      ok: true,
      interventionCount: 2,
      topInterventions: [
        { rank: 2, title: "Add CI gate", designGoal: "Add a type-check gate to CI", constraints: [], leverageGroup: "Design", compositeScore: 4.2, score: 4.2 },
        { rank: 1, title: "Stored", designGoal: "Add a type-check gate to CI", constraints: ["Keep the suite green"], leverageGroup: "Design", compositeScore: 4.25, score: 4.25 },
      ],
      additionalFindings: 4,
      confidenceOverall: "high",
      exitCode: 0,
    });
  });

  it("gives the recon-validate scores after a recon-validate run (no hand copying) [feature:recon/design-goal-handoff]", async (t) => {
    const p = project(t, { ".design/recon.json": { schemaVersion: 1, goal: "g", scope: "s", contradictions: [], interventions: [iv(), iv({ effort: "large" })] } });
    const validated = await p.run("recon-validate");
    const summary = await p.run("recon-summary");
    assert.deepEqual(
      (summary.topInterventions as any[]).map((x) => x.compositeScore),
      (validated.interventions as any[]).map((x) => x.compositeScore),
    );
  });

  it("does not check schemaVersion and defaults missing fields", async (t) => {
    const out = await project(t, { ".design/recon.json": { schemaVersion: 7, interventions: [{ name: "Seed name", leverageLevel: true }] } }).run(
      "recon-summary",
    );
    assert.deepEqual(out.topInterventions, [{ rank: 0, title: "Seed name", designGoal: "", constraints: [], leverageGroup: "", compositeScore: 0, score: 0 }]);
    assert.equal(out.additionalFindings, 0);
    assert.equal(out.confidenceOverall, "low");
  });

  it("treats missing interventions as none, with unknown confidence", async (t) => {
    const out = await project(t, { ".design/recon.json": { schemaVersion: 1 } }).run("recon-summary");
    assert.deepEqual(out, { ok: true, interventionCount: 0, topInterventions: [], additionalFindings: 0, confidenceOverall: "unknown", exitCode: 0 });
  });

  it("derives confidenceOverall from the mean multiplier", async (t) => {
    const run = async (confs: string[]) =>
      (await project(t, { ".design/recon.json": { interventions: confs.map((c) => iv({ confidence: c })) } }).run("recon-summary")).confidenceOverall;
    assert.equal(await run(["high", "medium"]), "high");
    assert.equal(await run(["medium"]), "medium");
    assert.equal(await run(["medium", "low"]), "medium");
    assert.equal(await run(["low", "medium", "low"]), "low");
  });

  it("uses recon-validate's file and structure messages [Fix D7]", async (t) => {
    const p = project(t, { "a.json": [1], "b.json": { interventions: "x" }, "c.json": { interventions: [{}, 3] }, "d.json": "{" });
    assert.equal((await p.run("recon-summary")).error, "Recon file not found: .design/recon.json");
    assert.equal((await p.run("recon-summary", ["a.json"])).error, "Invalid recon structure: top-level value must be an object");
    assert.equal((await p.run("recon-summary", ["b.json"])).error, "interventions must be an array");
    assert.equal((await p.run("recon-summary", ["c.json"])).error, "Intervention 1: must be an object");
    const bad = await p.run("recon-summary", ["d.json"]);
    assert.match(bad.error as string, /^Invalid JSON in recon file: /);
    assert.equal(bad.exitCode, 1);
  });
});
