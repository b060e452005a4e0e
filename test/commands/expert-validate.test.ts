import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project, writeFiles } from "../helpers/design-dir.ts";

const PROP = { property: "GET /users returns 200", category: "integration", testableVia: "curl" };

describe("expert-validate", () => {
  it("accepts an artifact with a summary and an array of verification properties", async (t) => {
    const p = project(t, { ".design/expert-api.json": { summary: "REST API", verificationProperties: [PROP], extra: { free: true } } });
    assert.deepEqual(await p.run("expert-validate", [".design/expert-api.json"]), { ok: true, valid: true, exitCode: 0 });
  });

  it("refuses an artifact that says nothing: an empty summary, an empty property, an empty list without a reason [ac:design/2] [ac:improve/2]", async (t) => {
    const p = project(t, {
      "blank.json": { summary: "  ", verificationProperties: [PROP] },
      "null.json": { summary: null, verificationProperties: [PROP] },
      "none.json": { summary: "REST API", verificationProperties: [] },
      "short.json": { summary: "REST API", verificationProperties: [], noVerificationProperties: "none" },
      "hollow.json": { summary: "REST API", verificationProperties: [1, "", { property: " " }, "GET /users returns 200"] },
    });
    const blank = await p.run("expert-validate", ["blank.json"]);
    assert.equal(blank.code, "E_INVALID");
    assert.match(blank.error as string, /^summary is empty/);
    assert.match((await p.run("expert-validate", ["null.json"])).error as string, /^summary is empty/);
    assert.match((await p.run("expert-validate", ["none.json"])).error as string, /^verificationProperties is empty: .*noVerificationProperties/);
    assert.match((await p.run("expert-validate", ["short.json"])).error as string, /^verificationProperties is empty/);
    const hollow = await p.run("expert-validate", ["hollow.json"]);
    assert.deepEqual(hollow.problems, [0, 1, 2].map((i) => `verificationProperties[${i}] has no property text ("property": the behaviour that must hold)`));
  });

  it("takes an empty property list with the artifact's recorded reason", async (t) => {
    const p = project(t, { "r.json": { summary: "Prior art only", verificationProperties: [], noVerificationProperties: "the finding names prior art and changes no behaviour" } });
    assert.equal((await p.run("expert-validate", ["r.json"])).ok, true);
  });

  it("requires the artifact path", async (t) => {
    const out = await project(t).run("expert-validate");
    assert.equal(out.code, "E_USAGE");
    assert.equal(out.exitCode, 1);
  });

  it("reports a missing, unreadable or unparsable file", async (t) => {
    const p = project(t, { "bad.json": "{", "dir/f": "" });
    assert.equal((await p.run("expert-validate", ["nope.json"])).error, "Artifact file not found: nope.json");
    assert.match((await p.run("expert-validate", ["dir"])).error as string, /^Error reading artifact: /);
    assert.match((await p.run("expert-validate", ["bad.json"])).error as string, /^Invalid JSON in artifact: /);
  });

  it("rejects a non-object artifact [Fix D7]", async (t) => {
    const p = project(t, { "s.json": "\"summary verificationProperties\"" });
    const out = await p.run("expert-validate", ["s.json"]);
    assert.equal(out.error, "Artifact must be a JSON object");
    assert.equal(out.exitCode, 1);
  });

  it("lists absent fields in the contract's order [feature:design/validated-expert-artifacts] [feature:improve/validated-artifacts] [ac:design/2]", async (t) => {
    const p = project(t, { "a.json": {}, "b.json": { verificationProperties: [] } });
    assert.equal((await p.run("expert-validate", ["a.json"])).error, "Missing required fields: summary, verificationProperties");
    assert.equal((await p.run("expert-validate", ["b.json"])).error, "Missing required fields: summary");
  });

  it("requires verificationProperties to be an array", async (t) => {
    const p = project(t, { "a.json": { summary: "s", verificationProperties: {} } });
    assert.equal((await p.run("expert-validate", ["a.json"])).error, "verificationProperties must be an array");
  });

  describe("featureScores: an improve analyst's scores of the target's declared features", () => {
    const FEATURES = { goal: "g", acceptance_criteria: ["c"], features: [{ name: "greet-by-name" }, { name: "formal-tone", optional: true }] };
    const score = (feature: string, extra: Record<string, unknown> = {}) => ({ feature, score: 4, evidence: "lines 5-9: asks for the name first", ...extra });
    const artifact = (featureScores?: unknown) => ({ summary: "s", verificationProperties: [PROP], ...(featureScores === undefined ? {} : { featureScores }) });

    it("accepts one score per declared feature and counts them [feature:improve/declared-features]", async (t) => {
      const p = project(t, { ".design/skill-features.json": FEATURES, ".design/expert-a.json": artifact([score("formal-tone", { score: 1 }), score("greet-by-name")]) });
      assert.deepEqual(await p.run("expert-validate", [".design/expert-a.json", "--features", ".design/skill-features.json"]), { ok: true, valid: true, featuresScored: 2, exitCode: 0 });
    });

    it("refuses a declared feature left unscored, an unknown or repeated one, and a score or evidence out of shape [feature:improve/declared-features]", async (t) => {
      const p = project(t, { ".design/skill-features.json": FEATURES });
      const cases: Array<[unknown, string[]]> = [
        [undefined, ["featureScores is missing: score greet-by-name, formal-tone"]],
        [[score("greet-by-name")], ["featureScores misses declared features: formal-tone"]],
        [[score("greet-by-name"), score("formal-tone"), score("shouting")], ["featureScores[2]: 'shouting' is not a declared feature"]],
        [[score("greet-by-name"), score("greet-by-name"), score("formal-tone")], ["featureScores[1]: 'greet-by-name' is scored twice"]],
        [[score("greet-by-name", { score: 6 }), score("formal-tone", { score: 2.5 })], ["featureScores[0].score must be an integer from 1 to 5", "featureScores[1].score must be an integer from 1 to 5"]],
        [[score("greet-by-name", { evidence: " " }), "formal-tone"], ["featureScores[0].evidence must be a non-empty string", "featureScores[1] must be an object", "featureScores misses declared features: formal-tone"]],
        [{ "greet-by-name": 4 }, ["featureScores must be an array"]],
      ];
      for (const [scores, problems] of cases) {
        writeFiles(p.dir, { ".design/expert-a.json": artifact(scores) });
        const before = p.read(".design/expert-a.json");
        const out = await p.run("expert-validate", [".design/expert-a.json", "--features", ".design/skill-features.json"]);
        assert.equal(out.code, "E_INVALID", JSON.stringify(scores));
        assert.deepEqual(out.problems, problems);
        assert.equal(out.error, problems.join("; "));
        assert.equal(p.read(".design/expert-a.json"), before);
      }
    });

    it("checks the shape of featureScores without --features, and needs none from design's or recon's experts", async (t) => {
      const p = project(t, { "a.json": artifact([score("anything")]), "b.json": artifact([score("x", { score: 0 })]), "c.json": artifact() });
      assert.deepEqual(await p.run("expert-validate", ["a.json"]), { ok: true, valid: true, exitCode: 0 });
      assert.equal((await p.run("expert-validate", ["b.json"])).error, "featureScores[0].score must be an integer from 1 to 5");
      assert.equal((await p.run("expert-validate", ["c.json"])).ok, true);
    });

    it("reports a feature file that is missing, not JSON or not a feature file, after the artifact's own checks", async (t) => {
      const p = project(t, { "a.json": artifact([]), "bad.json": "{", "list.json": [1], "nameless.json": { features: [{ name: "ok" }, { test_scenario: "Given" }] }, "partial.json": { summary: "s" } });
      const run = (features: string, art = "a.json") => p.run("expert-validate", [art, "--features", features]);
      assert.deepEqual([(await run("none.json")).code, (await run("none.json")).error], ["E_NOT_FOUND", "Feature file not found: none.json"]);
      assert.match((await run("bad.json")).error as string, /^Invalid JSON in feature file: /);
      assert.equal((await run("list.json")).error, "Feature file must be an object with a features array");
      assert.equal((await run("nameless.json")).error, "Feature file: features[1] has no name");
      assert.equal((await run("none.json", "partial.json")).error, "Missing required fields: verificationProperties");
    });

    it("reads the feature file only inside the project", async (t) => {
      const p = project(t, { "a.json": artifact([]) });
      const out = await p.run("expert-validate", ["a.json", "--features", "/etc/passwd"]);
      assert.equal(out.code, "E_PATH");
    });
  });

  const DIMS = ["protocolClarity", "constraintEnforcement", "errorHandling", "agentCoordination", "informationFlow", "promptEconomy", "verifiability"];
  const scored = (over: Record<string, unknown> = {}) => ({
    summary: "s",
    verificationProperties: [PROP],
    qualityScores: { ...Object.fromEntries(DIMS.map((d, i) => [d, { score: (i % 5) + 1, evidence: `lines ${i}0-${i}9` }])), ...over },
  });

  it("with --scores requires all seven quality dimensions scored 1-5 with evidence [feature:improve/seven-scores-checked]", async (t) => {
    const { errorHandling: _e, ...six } = scored().qualityScores;
    const p = project(t, {
      "ok.json": scored(),
      "none.json": { summary: "s", verificationProperties: [PROP] },
      "six.json": { ...scored(), qualityScores: six },
      "range.json": scored({ verifiability: { score: 6, evidence: "x" }, promptEconomy: { score: 0, evidence: "x" }, errorHandling: { score: 2.5, evidence: "x" } }),
      "evidence.json": scored({ agentCoordination: { score: 3, evidence: " " }, informationFlow: 4 }),
      "extra.json": scored({ clarity: { score: 3, evidence: "x" } }),
    });
    assert.deepEqual(await p.run("expert-validate", ["ok.json", "--scores"]), { ok: true, valid: true, exitCode: 0 });
    const none = await p.run("expert-validate", ["none.json", "--scores"]);
    assert.equal(none.code, "E_INVALID");
    assert.equal(none.error, `qualityScores is missing: score ${DIMS.join(", ")} (1-5, with evidence)`);
    assert.equal((await p.run("expert-validate", ["six.json", "--scores"])).error, "qualityScores misses errorHandling");
    assert.deepEqual((await p.run("expert-validate", ["range.json", "--scores"])).problems, [
      "qualityScores.errorHandling.score must be an integer from 1 to 5",
      "qualityScores.promptEconomy.score must be an integer from 1 to 5",
      "qualityScores.verifiability.score must be an integer from 1 to 5",
    ]);
    assert.deepEqual((await p.run("expert-validate", ["evidence.json", "--scores"])).problems, [
      "qualityScores.agentCoordination.evidence must be a non-empty string",
      "qualityScores.informationFlow must be {score, evidence}",
    ]);
    assert.match((await p.run("expert-validate", ["extra.json", "--scores"])).error as string, /unknown dimensions: clarity/);
    // Without the flag an artifact that has no scores passes (design's and recon's experts); one that has them is held to them.
    assert.equal((await p.run("expert-validate", ["none.json"])).ok, true);
    assert.equal((await p.run("expert-validate", ["range.json"])).code, "E_INVALID");
  });

  it("checks the seven scores and the declared features together [feature:improve/seven-scores-checked] [feature:improve/declared-features]", async (t) => {
    const p = project(t, {
      ".design/skill-features.json": { features: [{ name: "retry" }] },
      "a.json": { ...scored({ verifiability: { score: 9, evidence: "x" } }), featureScores: [] },
      "b.json": { ...scored(), featureScores: [{ feature: "retry", score: 4, evidence: "lines 3-5" }] },
    });
    const a = await p.run("expert-validate", ["a.json", "--scores", "--features", ".design/skill-features.json"]);
    assert.deepEqual(a.problems, ["qualityScores.verifiability.score must be an integer from 1 to 5", "featureScores misses declared features: retry"]);
    const b = await p.run("expert-validate", ["b.json", "--scores", "--features", ".design/skill-features.json"]);
    assert.deepEqual([b.ok, b.featuresScored], [true, 1]);
  });
});
