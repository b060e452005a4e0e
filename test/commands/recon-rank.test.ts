import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";
import { snapshot } from "../helpers/snapshot.ts";

const GROUP: Record<number, string> = { 1: "Intent", 2: "Intent", 3: "Design", 4: "Design", 5: "Feedbacks", 6: "Feedbacks", 7: "Parameters" };
const iv = (title: string, level: number, confidence: string, effort: string, cites: string[] = []) => ({
  id: title, title, leverageLevel: level, leverageGroup: GROUP[level], designGoal: `Goal of ${title}`,
  wrongDirection: level <= 5 ? "Push it the wrong way" : undefined, confidence, effort, supportingFindings: cites,
});
const draft = (interventions: unknown[], over: Record<string, unknown> = {}) => ({
  schemaVersion: 1, goal: "Why do releases break?", scope: "src/", interventions, contradictions: [], ...over,
});

// Scores from the contract's table (section 7): weight × confidence / effort, rounded to 2 places.
const SEVEN = [
  iv("params", 7, "high", "trivial", ["F1"]), //        1 × 1.0 / 0.5 = 2
  iv("structure", 6, "high", "small", ["F2"]), //       7 × 1.0 / 1   = 7
  iv("paradigm", 1, "low", "transformative"), //         5 × 0.4 / 8   = 0.25
  iv("rules", 3, "medium", "small", ["F3", "F4"]), //    6 × 0.7 / 1   = 4.2
  iv("loops", 5, "high", "medium"), //                   6 × 1.0 / 2   = 3
  iv("goals", 2, "medium", "large", ["F5"]), //          4 × 0.7 / 4   = 0.7
  iv("info", 4, "high", "small"), //                     5 × 1.0 / 1   = 5
];
const finding = (id: string) => ({ id, domain: "codebase", source: `src/${id}.ts`, summary: id, implications: `acting on ${id}`, relevantLeverageLevels: [5] });
const FINDINGS = ["F1", "F2", "F3", "F4", "F5", "F6", "F7"].map(finding);

describe("recon-rank", () => {
  it("scores, ranks, keeps the best five and counts the findings no kept intervention cites [feature:recon/helper-ranks-and-cuts] [ac:recon/1]", async (t) => {
    const p = project(t, { ".design/tmp/recon-draft.json": draft(SEVEN, { researchFindings: FINDINGS }) });
    const out = await p.run("recon-rank", [".design/tmp/recon-draft.json"], { now: Date.UTC(2026, 10, 24, 1, 2, 3) });
    assert.equal(out.ok, true);
    assert.equal(out.writtenTo, ".design/recon.json");
    assert.equal(out.file, "recon.json");
    assert.equal(out.collision, false);
    assert.deepEqual((out.interventions as any[]).map((i) => [i.rank, i.title, i.compositeScore]), [
      [1, "structure", 7], [2, "info", 5], [3, "rules", 4.2], [4, "loops", 3], [5, "params", 2],
    ]);
    assert.deepEqual(out.deferred, [{ title: "goals", compositeScore: 0.7 }, { title: "paradigm", compositeScore: 0.25 }]);
    // F5 backs a cut intervention, F6 and F7 back none: three left over.
    assert.equal(out.additionalFindings, 3);
    const stored = p.json(".design/recon.json");
    assert.deepEqual(stored.interventions.map((i: any) => [i.rank, i.title, i.compositeScore, i.score]), [
      [1, "structure", 7, 7], [2, "info", 5, 5], [3, "rules", 4.2, 4.2], [4, "loops", 3, 3], [5, "params", 2, 2],
    ]);
    assert.equal(stored.additionalFindings, 3);
    assert.deepEqual(stored.deferredInterventions.map((d: any) => d.title), ["goals", "paradigm"]);
    assert.equal(stored.timestamp, "2026-11-24T01:02:03Z");
    assert.equal(stored.researchFindings.length, 7);
  });

  it("agrees with recon-validate and recon-summary on what it wrote", async (t) => {
    const p = project(t, { ".design/tmp/recon-draft.json": draft(SEVEN) });
    await p.run("recon-rank", [".design/tmp/recon-draft.json"]);
    const v = await p.run("recon-validate");
    assert.equal(v.ok, true);
    assert.deepEqual(v.ranking, [0, 1, 2, 3, 4]);
    assert.deepEqual((v.interventions as any[]).map((i) => i.compositeScore), [7, 5, 4.2, 3, 2]);
    const s = await p.run("recon-summary");
    assert.deepEqual((s.topInterventions as any[]).map((i) => [i.rank, i.compositeScore]), [[1, 7], [2, 5], [3, 4.2], [4, 3], [5, 2]]);
    assert.equal(s.additionalFindings, 2, "without researchFindings the cut interventions are counted");
  });

  it("breaks ties by the interventions, not the lead's draft order: the deeper level, then the title (issue 31)", async (t) => {
    // Equal scores: a level-5 "z" written first, a level-3 "y", and two level-3 in reverse title order.
    const p = project(t, { ".design/tmp/d.json": draft([iv("z", 5, "high", "small"), iv("y", 3, "high", "small"), iv("b", 3, "high", "small")]) });
    const out = await p.run("recon-rank", [".design/tmp/d.json"]);
    assert.deepEqual((out.interventions as any[]).map((i) => [i.rank, i.title, i.compositeScore]), [[1, "b", 6], [2, "y", 6], [3, "z", 6]]);
    const q = project(t, { ".design/tmp/d.json": draft([iv("b", 3, "high", "small"), iv("z", 5, "high", "small"), iv("y", 3, "high", "small")]) });
    assert.deepEqual(((await q.run("recon-rank", [".design/tmp/d.json"])).interventions as any[]).map((i) => i.title), ["b", "y", "z"], "the same ranking whatever the draft order");
  });

  it("overrides ranks and scores the lead wrote, and takes a short draft whole [feature:recon/helper-ranks-and-cuts]", async (t) => {
    const p = project(t, {
      ".design/tmp/d.json": draft([
        { ...iv("a", 3, "high", "small"), rank: 1, compositeScore: 99 },
        iv("b", 5, "high", "small"),
      ]),
    });
    const out = await p.run("recon-rank", [".design/tmp/d.json"]);
    assert.deepEqual((out.interventions as any[]).map((i) => [i.rank, i.title, i.compositeScore]), [[1, "a", 6], [2, "b", 6]]);
    assert.equal(out.additionalFindings, 0);
    assert.equal("deferredInterventions" in p.json(".design/recon.json"), false);
  });

  it("keeps an existing recon.json: the new one goes to recon-2.json, then recon-3.json [feature:recon/keep-existing-recon] [ac:recon/2]", async (t) => {
    const old = draft([iv("old", 5, "high", "small")]);
    const p = project(t, { ".design/recon.json": old, ".design/tmp/d.json": draft(SEVEN) });
    const before = p.read(".design/recon.json");
    const first = await p.run("recon-rank", [".design/tmp/d.json"]);
    assert.equal(first.ok, true);
    assert.equal(first.collision, true);
    assert.equal(first.writtenTo, ".design/recon-2.json");
    assert.equal(first.file, "recon-2.json");
    assert.equal(first.kept, ".design/recon.json");
    assert.equal(p.read(".design/recon.json"), before);
    assert.equal(p.json(".design/recon-2.json").interventions.length, 5);
    const second = await p.run("recon-rank", [".design/tmp/d.json"]);
    assert.equal(second.writtenTo, ".design/recon-3.json");
  });

  it("replaces an existing recon.json only with --replace, moving the old one to history [feature:recon/replace-on-user-word] [ac:recon/2]", async (t) => {
    const p = project(t, { ".design/recon.json": draft([iv("old", 5, "high", "small")]), ".design/tmp/d.json": draft(SEVEN) });
    const out = await p.run("recon-rank", [".design/tmp/d.json", "--replace"], { now: Date.UTC(2026, 10, 24, 1, 2, 3) });
    assert.equal(out.ok, true);
    assert.equal(out.collision, false);
    assert.equal(out.previousMovedTo, ".design/history/20261124T010203Z/recon.json");
    assert.equal(p.json(".design/history/20261124T010203Z/recon.json").interventions[0].title, "old");
    assert.equal(p.json(".design/recon.json").interventions[0].title, "structure");
  });

  it("refuses a bad draft with recon-validate's message and writes nothing [feature:recon/bad-draft-refused]", async (t) => {
    const bad = SEVEN.map((x, i) => (i === 3 ? { ...x, wrongDirection: "" } : x));
    const p = project(t, { ".design/tmp/d.json": draft(bad) });
    const out = await p.run("recon-rank", [".design/tmp/d.json"]);
    assert.equal(out.ok, false);
    assert.equal(out.code, "E_INVALID");
    assert.equal(out.error, "Intervention 3: wrongDirection required for leverageLevel 3");
    assert.equal(p.exists(".design/recon.json"), false);
    const missing = await p.run("recon-rank", [".design/tmp/none.json"]);
    assert.deepEqual([missing.code, missing.error], ["E_NOT_FOUND", "Recon draft not found: .design/tmp/none.json"]);
    p.json; // the draft itself is untouched
    assert.equal(p.json(".design/tmp/d.json").interventions.length, 7);
  });

  it("refuses a draft with an incomplete finding or with suggestedRoles and writes nothing [feature:recon/findings-and-no-roles]", async (t) => {
    const p = project(t, {
      ".design/tmp/f.json": draft(SEVEN, { researchFindings: [finding("F1"), { ...finding("F2"), relevantLeverageLevels: [] }] }),
      ".design/tmp/r.json": draft(SEVEN.map((x, i) => (i === 1 ? { ...x, suggestedRoles: ["schema-owner"] } : x)), { researchFindings: FINDINGS }),
    });
    const f = await p.run("recon-rank", [".design/tmp/f.json"]);
    assert.deepEqual([f.code, f.error], ["E_INVALID", "researchFindings[1]: relevantLeverageLevels must be a non-empty list of leverage levels 1-7"]);
    const r = await p.run("recon-rank", [".design/tmp/r.json"]);
    assert.equal(r.code, "E_INVALID");
    assert.match(r.error as string, /^Intervention 1: suggestedRoles is not allowed/);
    assert.equal(p.exists(".design/recon.json"), false);
  });

  it("refuses to rank a file onto itself and takes no stdin", async (t) => {
    const p = project(t, { ".design/recon.json": draft(SEVEN) });
    const out = await p.run("recon-rank", [".design/recon.json"]);
    assert.equal(out.code, "E_USAGE");
    const usage = await p.run("recon-rank", []);
    assert.equal(usage.code, "E_USAGE");
  });

  it("writes only inside the project's .design/", async (t) => {
    const p = project(t, { ".design/tmp/d.json": draft(SEVEN) });
    for (const out of ["recon.json", "../recon.json", ".design/../elsewhere.json", "/tmp/recon.json"]) {
      const r = await p.run("recon-rank", [".design/tmp/d.json", "--out", out]);
      assert.equal(r.ok, false, out);
      assert.match(r.error as string, /resolves outside the project's \.design\//, out);
    }
    assert.equal(p.exists("recon.json"), false);
    const ok = await p.run("recon-rank", [".design/tmp/d.json", "--out", ".design/recon-api.json"]);
    assert.equal(ok.writtenTo, ".design/recon-api.json");
  });

  it("writes only a recon file: any other file of .design/ is refused, naming the rule, and nothing changes", async (t) => {
    const p = project(t, { ".design/tmp/d.json": draft(SEVEN), ".design/plan.json": "{}\n" });
    for (const out of [".design/grant.json", ".design/plan.json", ".design/run-execute.json", ".design/sub/r.json", ".design/specs/recon.json", ".design/.recon.json"]) {
      const before = snapshot(p.dir);
      const r = await p.run("recon-rank", [".design/tmp/d.json", "--out", out, "--replace"]);
      assert.equal(r.code, "E_PATH", out);
      assert.match(r.error as string, /^--out '[^']+' is not a recon file \(\.design\/recon\*\.json\): /, out);
      assert.deepEqual(snapshot(p.dir), before, out);
    }
  });

  it("copies only the fields recon.json defines from the draft, and says which it left out", async (t) => {
    const doc = { ...draft(SEVEN), version: 1, planFingerprint: "x", commands: [{ value: "rm -rf /", roles: ["(plan)"] }], roles: [] };
    const p = project(t, { ".design/tmp/d.json": doc });
    const r = await p.run("recon-rank", [".design/tmp/d.json"]);
    assert.equal(r.ok, true, JSON.stringify(r));
    const written = p.json(".design/recon.json");
    assert.deepEqual(Object.keys(written).filter((k) => ["version", "planFingerprint", "commands", "roles"].includes(k)), []);
    for (const k of ["schemaVersion", "goal", "interventions", "contradictions", "additionalFindings"]) assert.ok(k in written, k);
    assert.ok((r.warnings as string[]).includes("Left out fields recon.json does not define: 'version', 'planFingerprint', 'commands', 'roles'"));
  });
});
