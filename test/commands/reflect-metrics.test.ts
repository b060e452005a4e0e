import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";
import {
  HIGH_CONFIDENCE_RUNS, SIMILARITY, TREND_DELTA, TREND_MIN_RUNS, confidenceFor, contentWords, handoffItems, similar, trend,
  type RunRef,
} from "../../src/lib/reflection/reflect-metrics.ts";

const day = (d: number, h = 0) => new Date(Date.UTC(2026, 10, d, h)).toISOString().replace(/\.\d{3}Z$/, "Z");
const run = (d: number, skill: string, outcome: string, whatFailed: string[], doNextTime: string[] = []) => ({
  id: `r-${skill}-${d}`, timestamp: day(d), skill, goal: `${skill} goal ${d}`, outcome, goalAchieved: outcome === "completed",
  evaluation: { whatWorked: [], whatFailed, doNextTime },
});

// Six execute runs and two design runs whose patterns and counts are known (see each comment).
const REFLECTIONS = [
  run(1, "execute", "failed", ["test-writer check needs a database that is not running", "eslint config missing from the repo"], ["Scope test checks to the files a role owns"]),
  run(2, "execute", "partial", ["worker exhausted its context window on the large module"], ["Give workers a smaller module"]),
  run(3, "execute", "failed", ["acceptance check needed the database"], ["scope checks to the files the role owns"]),
  run(4, "execute", "completed", ["context window exhausted by the worker"]),
  run(5, "execute", "completed", ["flaky network timeout in the e2e suite"]),
  run(6, "execute", "completed", ["api check needs database access"], ["Scope each check to the role's own files"]),
  run(2, "design", "failed", ["experts disagreed on the storage layer"]),
  run(7, "design", "partial", ["cross-review skipped for lack of time"]),
];
const memory = (id: string, d: number, h: number, content: string, keywords: string[]) => ({
  id, timestamp: day(d, h), category: "mistake", keywords, content, source: "curator", goal_context: "", importance: 5, usage_count: 0,
});
const MEMORIES = [
  // Recorded after the context failure's last run (day 4): confirms it resolved.
  memory("m-context", 4, 12, "Split large modules so a worker's context window is not exhausted", ["context", "window"]),
  // About the database checks, but recorded on day 2: the failure came back on days 3 and 6, so it stays active.
  memory("m-db", 2, 12, "Acceptance checks need a database fixture", ["database"]),
];
const HANDOFF = "# Handoff: todo api\nRun 2026-11-06: outcome partial; goal achieved: partly\nRoles: 2 completed, 1 failed, 0 skipped of 3\nNext: /do:execute to retry test-writer\nOpen issues: test-writer needs a database fixture; the e2e suite is flaky\n\n## Follow-ups\n- [ ] add a database fixture\n- [x] fix lint\n";

function seeded(t: any) {
  return project(t, { ".design/reflection.jsonl": REFLECTIONS, ".design/memory.jsonl": MEMORIES, ".design/handoff.md": HANDOFF });
}

describe("reflect-metrics", () => {
  it("picks the skill with the most failed or partial runs and counts its runs [feature:reflect/metrics-from-helper] [ac:reflect/1]", async (t) => {
    const out = await seeded(t).run("reflect-metrics");
    assert.equal(out.ok, true);
    assert.equal(out.skill, "execute");
    assert.equal(out.skillChosen, true);
    assert.equal(out.chosenBecause, "most failed or partial runs (3 of 6)");
    assert.deepEqual(out.bySkill, { execute: { runs: 6, failedOrPartial: 3 }, design: { runs: 2, failedOrPartial: 2 } });
    assert.equal(out.enoughRuns, true);
    const runs = out.runs as any;
    assert.equal(runs.total, 6);
    assert.deepEqual(runs.byOutcome, { completed: 3, partial: 1, failed: 2, aborted: 0 });
    assert.equal(runs.goalAchieved, 3);
    assert.deepEqual(runs.recent.map((r: any) => r.timestamp), [day(6), day(5), day(4)]);
  });

  it("does not count reflect's own aborted runs as evidence (issue 24)", async (t) => {
    const waiting = [1, 2, 3].map((n) => ({ id: `w${n}`, skill: "reflect", goal: "reflect", outcome: "aborted", goalAchieved: false, timestamp: day(n), evaluation: { whatFailed: ["too few runs to analyse"] } }));
    const one = { id: "e1", skill: "execute", goal: "todo api", outcome: "failed", goalAchieved: false, timestamp: day(4), evaluation: { whatFailed: ["tests failed"] } };
    const p = project(t, { ".design/reflection.jsonl": [...waiting, one] });
    const out: any = await p.run("reflect-metrics", ["--skill", "reflect"]);
    assert.equal(out.enoughRuns, false, "three aborted reflect runs made the minimum");
    assert.equal(out.runs.total, 0);
    assert.equal(out.ownAbortedIgnored, 3);
    assert.deepEqual(out.bySkill, { execute: { runs: 1, failedOrPartial: 1 } });
    const picked: any = await p.run("reflect-metrics");
    assert.equal(picked.skill, "execute");
    assert.equal(picked.enoughRuns, false, "one execute run is below the default minimum of 2");
  });

  it("groups failures into patterns with status and confidence from the counts [feature:reflect/metrics-from-helper] [ac:reflect/1]", async (t) => {
    const out = await seeded(t).run("reflect-metrics", ["--skill", "execute"]);
    const patterns = out.patterns as any[];
    const summary = patterns.map((p) => [p.text, p.runs, p.status, p.confidence]);
    assert.deepEqual(summary, [
      ["test-writer check needs a database that is not running", 3, "active", "high"],
      ["worker exhausted its context window on the large module", 2, "confirmed_resolved", "medium"],
      ["flaky network timeout in the e2e suite", 1, "active", "anecdotal"],
      ["eslint config missing from the repo", 1, "likely_resolved", "low"],
    ]);
    assert.deepEqual(patterns[0].reflections.map((r: any) => r.timestamp), [day(1), day(3), day(6)]);
    assert.equal(patterns[0].firstSeen, day(1));
    assert.equal(patterns[0].lastSeen, day(6));
    assert.equal(patterns[0].examples.length, 3);
    assert.deepEqual(patterns[1].resolvedBy, { id: "m-context", content: "Split large modules so a worker's context window is not exhausted" });
    assert.equal("resolvedBy" in patterns[0], false, "a memory older than the last failure does not resolve it");
    assert.deepEqual(out.patternCounts, { total: 4, recurring: 2, active: 2, likely_resolved: 1, confirmed_resolved: 1 });
  });

  it("reports advice repeated across runs as unaddressed feedback [feature:reflect/unaddressed-feedback]", async (t) => {
    const out = await seeded(t).run("reflect-metrics", ["--skill", "execute"]);
    const fb = out.unaddressedFeedback as any[];
    assert.equal(fb.length, 1);
    assert.equal(fb[0].text, "Scope test checks to the files a role owns");
    assert.equal(fb[0].runs, 3);
    assert.deepEqual([fb[0].firstSeen, fb[0].lastSeen], [day(1), day(6)]);
  });

  it("names what gets a hypothesis: active patterns above anecdotal and each unaddressed advice, with the confidence to use [feature:reflect/metrics-from-helper] [feature:reflect/unaddressed-feedback] [ac:reflect/2]", async (t) => {
    const out = await seeded(t).run("reflect-metrics", ["--skill", "execute"]);
    // The resolved context pattern, the likely resolved lint one and the anecdotal network one get none.
    assert.deepEqual(out.hypothesize, [
      { from: "patterns", index: 0, text: "test-writer check needs a database that is not running", runs: 3, confidence: "high" },
      { from: "unaddressedFeedback", index: 0, text: "Scope test checks to the files a role owns", runs: 3, confidence: "high" },
    ]);
    const two = project(t, { ".design/reflection.jsonl": [run(1, "design", "failed", ["experts disagreed on the storage layer"], ["review the storage choice early"]), run(2, "design", "partial", ["experts disagreed about the storage layer"], ["review the storage choice early on"])] });
    const d: any = await two.run("reflect-metrics", ["--skill", "design"]);
    assert.deepEqual(d.hypothesize.map((h: any) => [h.from, h.confidence]), [["patterns", "medium"], ["unaddressedFeedback", "medium"]]);
    for (const h of d.hypothesize) assert.equal(d[h.from][h.index].text, h.text, "the index points at its entry");
  });

  it("says why nothing gets a hypothesis: one run that did not fail is anecdotal, whatever --min-runs (issue 31) [feature:reflect/not-enough-runs]", async (t) => {
    const p = project(t, { ".design/reflection.jsonl": [run(1, "design", "completed", ["the finalize step refused the draft twice over surface checks"])] });
    const out: any = await p.run("reflect-metrics", ["--skill", "design", "--min-runs", "1"]);
    assert.equal(out.enoughRuns, true);
    assert.deepEqual(out.hypothesize, []);
    assert.match(out.noHypothesisBecause, /seen in one run that neither failed nor aborted \(anecdotal\).*one such run never gives a hypothesis, whatever --min-runs says/);
    const failed = project(t, { ".design/reflection.jsonl": [run(1, "design", "failed", ["the finalize step refused the draft twice over surface checks"])] });
    const f: any = await failed.run("reflect-metrics", ["--skill", "design", "--min-runs", "1"]);
    assert.equal(f.hypothesize.length, 1, "one failed run is a strong signal");
    assert.equal("noHypothesisBecause" in f, false);
    const clean: any = await project(t, { ".design/reflection.jsonl": [run(1, "design", "completed", [])] }).run("reflect-metrics", ["--skill", "design", "--min-runs", "1"]);
    assert.match(clean.noHypothesisBecause, /none of the 1 run recorded a failure/);
  });

  it("computes the trend from the older and newer halves [feature:reflect/trend]", async (t) => {
    const out = await seeded(t).run("reflect-metrics", ["--skill", "execute"]);
    assert.deepEqual(out.trend, {
      direction: "improving", olderRuns: 3, newerRuns: 3, olderSuccessRate: 0, newerSuccessRate: 1,
      olderFailuresPerRun: 1.33, newerFailuresPerRun: 1,
    });
  });

  it("lists the handoff's open items [feature:reflect/handoff-open-items]", async (t) => {
    const out = await seeded(t).run("reflect-metrics", ["--skill", "design"]);
    assert.deepEqual(out.handoff, {
      exists: true,
      status: "Run 2026-11-06: outcome partial; goal achieved: partly",
      next: "/do:execute to retry test-writer",
      openIssues: ["test-writer needs a database fixture", "the e2e suite is flaky"],
      unchecked: ["add a database fixture"],
    });
    assert.equal((out.runs as any).total, 2);
    assert.equal((out.trend as any).direction, "insufficient_data");
    assert.equal(out.skillChosen, false);
  });

  it("answers an empty project without failing, and says there is not enough [feature:reflect/not-enough-runs]", async (t) => {
    const out = await project(t).run("reflect-metrics");
    assert.equal(out.ok, true);
    assert.equal(out.skill, null);
    assert.equal(out.enoughRuns, false);
    assert.equal(out.chosenBecause, "no reflections recorded");
    assert.deepEqual(out.patterns, []);
    assert.equal((out.handoff as any).exists, false);
    const few = await seeded(t).run("reflect-metrics", ["--skill", "design", "--min-runs", "3"]);
    assert.equal(few.enoughRuns, false);
    const bad = await seeded(t).run("reflect-metrics", ["--min-runs", "0"]);
    assert.equal(bad.code, "E_USAGE");
  });

  it("skips corrupt lines and counts them", async (t) => {
    const p = project(t, { ".design/reflection.jsonl": `not json\n${JSON.stringify(REFLECTIONS[0])}\n[1]\n` });
    const out = await p.run("reflect-metrics");
    assert.equal(out.skippedLines, 2);
    assert.equal((out.runs as any).total, 1);
  });
});

describe("reflect-metrics thresholds", () => {
  const r = (i: number, outcome: string, goalAchieved = outcome === "completed"): RunRef => ({ index: i, timestamp: String(i), epoch: i, goal: "", outcome, goalAchieved });

  it("needs two shared content words covering half the shorter text", () => {
    assert.equal(SIMILARITY, 0.5);
    assert.equal(similar(contentWords("database down"), contentWords("the database was slow")), false, "one shared word");
    assert.equal(similar(contentWords("database fixture missing"), contentWords("missing database")), true);
    assert.equal(similar(contentWords("alpha beta gamma delta"), contentWords("alpha beta epsilon zeta eta theta")), true, "2 of 4");
    assert.equal(similar(contentWords("alpha beta gamma delta epsilon"), contentWords("alpha beta zeta eta theta iota")), false, "2 of 5");
    assert.deepEqual([...contentWords("The checks needed the databases")], ["check", "need", "database"]);
  });

  it("derives confidence from the number of runs and the strength of a single one", () => {
    assert.equal(HIGH_CONFIDENCE_RUNS, 3);
    assert.equal(confidenceFor([r(1, "completed"), r(2, "completed"), r(3, "completed")]), "high");
    assert.equal(confidenceFor([r(1, "completed"), r(2, "completed")]), "medium");
    assert.equal(confidenceFor([r(1, "aborted")]), "low");
    assert.equal(confidenceFor([r(1, "partial")]), "anecdotal");
  });

  it("calls a change of exactly TREND_DELTA a trend, and needs TREND_MIN_RUNS runs [feature:reflect/trend]", () => {
    assert.equal(TREND_DELTA, 0.25);
    const four = [r(1, "x", false), r(2, "x", true), r(3, "x", true), r(4, "x", false)];
    assert.equal(trend(four, () => 0).direction, "stable");
    const quarter = [r(1, "x", false), r(2, "x", false), r(3, "x", true), r(4, "x", true), r(5, "x", false), r(6, "x", false), r(7, "x", false), r(8, "x", true)];
    // older 4: 2 of 4 = 0.5; newer 4: 1 of 4 = 0.25 → −0.25 → declining
    assert.equal(trend(quarter, () => 0).direction, "declining");
    assert.equal(trend(four.slice(0, TREND_MIN_RUNS - 1), () => 0).direction, "insufficient_data");
  });

  it("reads 'none' as no open item", () => {
    assert.deepEqual(handoffItems("Next: none, goal met\nOpen issues: none\n"), { exists: true, status: null, next: null, openIssues: [], unchecked: [] });
  });
});
