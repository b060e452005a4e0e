// run-end: each outcome closes the run, records the reflection (the evaluation file's, or a minimal one) and, for
// execute, writes the report; bad input changes nothing. And the whole sequence a lead makes (run-begin →
// checkpoints → run-end → run-begin again: finished, issue 24).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planWith, project, type Project } from "../helpers/design-dir.ts";
import { changed, outsideOwned, snapshot } from "../helpers/changes.ts";

const T0 = Date.parse("2026-11-26T10:00:00Z");
const PHASES = ["pre-flight", "challenge", "grant", "workers", "verify", "learn", "close"];
const EVAL = { summary: "Built the API and the UI", whatWorked: ["scout found the config"], whatFailed: [], doNextTime: ["Run the UI tests first"] };

function plan(completed = false) {
  return planWith(["api", { name: "ui", deps: ["api"] }].map((r) => {
    const role = typeof r === "string" ? { name: r } : r;
    return completed ? { ...role, status: "completed", agent: `${role.name}-w`, attemptLog: [{ attempt: 1, model: "sonnet", agent: `${role.name}-w`, outcome: "completed" }] } : role;
  }));
}

async function checkpoint(p: Project, upTo: string) {
  const done = new Set(p.json(".design/run-execute.json").completed.map((c: { phase: string }) => c.phase));
  for (const phase of PHASES) {
    if (phase === "close") break;
    // The verify checkpoint records the goal review's verdict (lib/run/phase-checks.ts).
    const decisions = phase === "verify" ? ["--decisions", "goal achieved, 0 fix rounds"] : [];
    if (!done.has(phase)) assert.equal((await p.run("run-checkpoint", ["execute", "--phase", phase, ...decisions], { now: T0 + 1000 })).exitCode, 0);
    if (phase === upTo) break;
  }
}

const reflections = (p: Project) => p.read(".design/reflection.jsonl").trim().split("\n").map((l) => JSON.parse(l));

describe("run-end", () => {
  it("completed (execute): records the reflection from the evaluation file, closes the run, writes report.html", async (t) => {
    const p = project(t, { ".design/plan.json": plan(), ".design/tmp/eval.json": EVAL });
    const begun = await p.run("run-begin", ["execute"], { now: T0 });
    await checkpoint(p, "learn");
    const before = snapshot(p.dir);
    const out = await p.run("run-end", ["execute", "--outcome", "completed", "--goal-achieved", "true", "--eval", ".design/tmp/eval.json"], { now: T0 + 9000 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    const [r] = reflections(p);
    assert.equal(r.id, (out.reflection as { id: string }).id);
    assert.deepEqual([r.skill, r.goal, r.outcome, r.goalAchieved], ["execute", "Test goal", "completed", true]);
    assert.deepEqual(r.evaluation, EVAL);
    assert.deepEqual(out.run, { runId: (begun.run as { runId: string }).runId, closed: true, outcome: "completed", skippedPhases: [] });
    const state = p.json(".design/run-execute.json");
    assert.equal(state.outcome, "completed");
    assert.equal(state.completedAt, "2026-11-26T10:00:09Z");
    const report = out.report as { path: string; link: string; summary: string[] };
    assert.equal(report.path, ".design/report.html");
    assert.match(report.link, /^file:\/\/.*\/\.design\/report\.html$/);
    assert.ok(Array.isArray(report.summary) && report.summary[0].startsWith("Plan: Test goal"), JSON.stringify(report.summary));
    assert.match(p.read(".design/report.html"), /<html/);
    const paths = changed(before, snapshot(p.dir));
    assert.deepEqual(paths, [".design/reflection.jsonl", ".design/report.html", ".design/run-execute.json"]);
    assert.deepEqual(outsideOwned("run-end", "execute", paths), []);
  });

  it("aborted without an evaluation file: a minimal evaluation names the phases not reached; goal achieved false", async (t) => {
    const p = project(t, { ".design/plan.json": plan() });
    await p.run("run-begin", ["execute"], { now: T0 });
    const out = await p.run("run-end", ["execute", "--outcome", "aborted"], { now: T0 + 1000 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    const [r] = reflections(p);
    assert.equal(r.outcome, "aborted");
    assert.equal(r.goalAchieved, false);
    assert.equal(r.evaluation.minimal, true);
    assert.equal(r.evaluation.summary, "execute run aborted; phases not reached: challenge, grant, workers, verify, learn");
    assert.deepEqual((out.run as { skippedPhases: string[] }).skippedPhases, ["challenge", "grant", "workers", "verify", "learn"]);
    assert.ok(p.exists(".design/report.html"), "an aborted execute run gets its report too");
  });

  for (const outcome of ["partial", "failed"]) {
    it(`${outcome}: closes the run with that outcome, goal achieved as given`, async (t) => {
      const p = project(t, { ".design/plan.json": plan(), ".design/tmp/eval.json": EVAL });
      await p.run("run-begin", ["execute"], { now: T0 });
      await checkpoint(p, "verify");
      const out = await p.run("run-end", ["execute", "--outcome", outcome, "--goal-achieved", "false", "--eval", ".design/tmp/eval.json"], { now: T0 + 1000 });
      assert.equal(out.exitCode, 0, JSON.stringify(out));
      assert.equal(p.json(".design/run-execute.json").outcome, outcome);
      assert.equal(reflections(p)[0].goalAchieved, false);
      assert.deepEqual((out.run as { skippedPhases: string[] }).skippedPhases, ["learn"]);
    });
  }

  it("another skill without a plan: reflection and run closed, no report", async (t) => {
    const p = project(t);
    await p.run("run-begin", ["recon", "--goal", "research caching"], { now: T0 });
    for (const phase of ["pre-flight", "research", "synthesis", "write-and-validate"]) await p.run("run-checkpoint", ["recon", "--phase", phase], { now: T0 });
    const out = await p.run("run-end", ["recon", "--outcome", "completed"], { now: T0 + 1000 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.equal(out.report, undefined);
    assert.ok(!p.exists(".design/report.html"));
    assert.deepEqual([reflections(p)[0].goal, reflections(p)[0].goalAchieved], ["research caching", true]);
  });

  it("bad input changes nothing", async (t) => {
    const p = project(t, { ".design/plan.json": plan(), ".design/tmp/bad.json": "{ nope", ".design/tmp/list.json": "[]", ".design/tmp/eval.json": EVAL });
    const none = await p.run("run-end", ["execute", "--outcome", "aborted"], { now: T0 });
    assert.equal(none.code, "E_NOT_FOUND");
    await p.run("run-begin", ["execute"], { now: T0 });
    const before = snapshot(p.dir);
    const cases: Array<[string[], string]> = [
      [["execute", "--outcome", "completed"], "E_INVALID"], // phases never checkpointed
      [["execute", "--outcome", "done"], "E_USAGE"],
      [["execute"], "E_USAGE"],
      [["deploy", "--outcome", "aborted"], "E_USAGE"],
      [["execute", "--outcome", "aborted", "--goal-achieved", "maybe"], "E_USAGE"],
      [["execute", "--outcome", "aborted", "--eval", ".design/tmp/missing.json"], "E_NOT_FOUND"],
      [["execute", "--outcome", "aborted", "--eval", ".design/tmp/bad.json"], "E_JSON"],
      [["execute", "--outcome", "aborted", "--eval", ".design/tmp/list.json"], "E_SCHEMA"],
      [["execute", "--outcome", "aborted", "--eval", "../eval.json"], "E_PATH"],
    ];
    for (const [argv, code] of cases) {
      const out = await p.run("run-end", argv, { now: T0 + 1000 });
      assert.equal(out.code, code, `${argv.join(" ")}: ${JSON.stringify(out)}`);
    }
    assert.deepEqual(changed(before, snapshot(p.dir)), []);
    // a closed run is not ended twice: the repeat answers the reflection it has and writes nothing
    const once = await p.run("run-end", ["execute", "--outcome", "aborted"], { now: T0 + 2000 });
    assert.equal(once.exitCode, 0);
    const closed = snapshot(p.dir);
    const twice = await p.run("run-end", ["execute", "--outcome", "completed"], { now: T0 + 3000 });
    assert.equal(twice.ok, true);
    assert.equal(twice.alreadyClosed, true);
    assert.deepEqual((twice.reflection as { id: string }).id, (once.reflection as { id: string }).id);
    assert.match(twice.announce as string, /already closed \(aborted\)/);
    assert.deepEqual(changed(closed, snapshot(p.dir)), []);
  });

  it("keyed by the run: a reflection already written for the open run is not written again; the run is only closed", async (t) => {
    const p = project(t, { ".design/tmp/eval.json": EVAL });
    const begun = await p.run("run-begin", ["recon", "--goal", "where to act"], { now: T0 });
    const runId = (begun.run as { runId: string }).runId;
    // A kill between the reflection and the close: the reflection of this run is there, the run still open.
    const line = { id: "1b0f6f0e-8b7a-4c4e-9f1e-2a3b4c5d6e7f", timestamp: "2026-01-01T00:00:00Z", skill: "recon", goal: "where to act", outcome: "aborted", goalAchieved: false, evaluation: { whatWorked: [], whatFailed: [], doNextTime: [] }, runId };
    writeFileSync(join(p.dir, ".design/reflection.jsonl"), `${JSON.stringify(line)}\n`);
    const out = await p.run("run-end", ["recon", "--outcome", "aborted", "--eval", ".design/tmp/eval.json"], { now: T0 + 1000 });
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal((out.reflection as { id: string }).id, line.id);
    assert.equal(readFileSync(join(p.dir, ".design/reflection.jsonl"), "utf8").trim().split("\n").length, 1);
    assert.equal(JSON.parse(readFileSync(join(p.dir, ".design/run-recon.json"), "utf8")).outcome, "aborted");
    // Another run's reflection does not count: a new run gets its own.
    await p.run("run-begin", ["recon", "--goal", "where to act"], { now: T0 + 2000 });
    const second = await p.run("run-end", ["recon", "--outcome", "aborted"], { now: T0 + 3000 });
    assert.notEqual((second.reflection as { id: string }).id, line.id);
    const lines = readFileSync(join(p.dir, ".design/reflection.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.length, 2);
    assert.equal(typeof lines[1].runId, "string");
    assert.notEqual(lines[1].runId, runId);
  });
});

describe("the lead's sequence (issue 24)", () => {
  it("run-begin → checkpoints → run-end → run-begin again: finished, nothing re-verified", async (t) => {
    const p = project(t, { ".design/plan.json": plan(), ".design/tmp/eval.json": EVAL });
    const first = await p.run("run-begin", ["execute"], { now: T0 });
    assert.equal(first.action, "start");
    assert.equal((first.run as { nextPhase: string }).nextPhase, "challenge");
    await checkpoint(p, "grant");
    // the workers did the roles (update-status's job; written here as its result)
    writeFileSync(join(p.dir, ".design/plan.json"), JSON.stringify(plan(true), null, 2));
    await checkpoint(p, "learn");
    const end = await p.run("run-end", ["execute", "--outcome", "completed", "--goal-achieved", "true", "--eval", ".design/tmp/eval.json"], { now: T0 + 5000 });
    assert.equal(end.exitCode, 0, JSON.stringify(end));
    const before = snapshot(p.dir);
    const again = await p.run("run-begin", ["execute"], { now: T0 + 60_000 });
    assert.equal(again.action, "finished");
    assert.equal((again.run as { runId: string }).runId, (first.run as { runId: string }).runId, "the closed run is the last one");
    assert.deepEqual(changed(before, snapshot(p.dir)), []);
    assert.equal(reflections(p).length, 1, "no second reflection, no verify or learn again");
  });
});
