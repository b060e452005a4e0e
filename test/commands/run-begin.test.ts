// run-begin: each action (start, ask-resume, resumed, start with restartedBecause, no-plan, invalid-plan,
// finished), the pre-flight it does for execute (resume-reset, budget, checkpoints, summary, health, git), what a
// fresh start keeps (issue 24: the reports pending dependents still need), and bad input changing nothing.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { planWith, project, type Project } from "../helpers/design-dir.ts";
import { changed, outsideOwned, snapshot } from "../helpers/changes.ts";

const T0 = Date.parse("2026-11-26T10:00:00Z");
const EXECUTE_PHASES = ["pre-flight", "challenge", "grant", "workers", "verify", "learn", "close"];

/** A plan of api → ui (ui depends on api) and docs; statuses and agents as given. */
function plan(status: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  const role = (name: string, deps: string[] = []) => {
    const s = status[name];
    const r: Record<string, unknown> = { name, deps, ...(s ? { status: s } : {}) };
    if (s === "completed" || s === "in_progress") {
      r.agent = `${name}-worker`;
      r.attemptLog = [{ attempt: 1, model: "sonnet", agent: `${name}-worker`, outcome: s === "completed" ? "completed" : "running" }];
    }
    return r as any;
  };
  return planWith([role("api"), role("ui", ["api"]), role("docs")], extra);
}

async function begin(p: Project, args: string[] = [], now = T0) {
  return p.run("run-begin", ["execute", ...args], { now });
}

/** Checkpoint execute's phases up to and including `last`, as the lead would. */
async function checkpointTo(p: Project, last: string, outputs: Record<string, string> = {}) {
  const state = p.json(".design/run-execute.json");
  const done = new Set(state.completed.map((c: { phase: string }) => c.phase));
  for (const phase of EXECUTE_PHASES) {
    if (!done.has(phase)) {
      const verdict = phase === "verify" ? ["--decisions", "goal achieved, 0 fix rounds"] : [];
      const out = await p.run("run-checkpoint", ["execute", "--phase", phase, ...(outputs[phase] ? ["--outputs", outputs[phase]] : []), ...verdict], { now: T0 + 1000 });
      assert.equal(out.exitCode, 0, JSON.stringify(out));
    }
    if (phase === last) break;
  }
}

describe("run-begin execute", () => {
  it("start: starts the run, checkpoints pre-flight, answers the summary, health, lifecycle and git", async (t) => {
    const p = project(t, { ".design/plan.json": plan(), ".design/handoff.md": "Next: build the API\n" });
    const before = snapshot(p.dir);
    const out = await begin(p);
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.equal(out.action, "start");
    const run = out.run as { runId: string; phases: string[]; nextPhase: string };
    assert.deepEqual(run.phases, EXECUTE_PHASES);
    assert.equal(run.nextPhase, "challenge");
    assert.deepEqual(out.checkpointed, ["pre-flight"]);
    assert.deepEqual(out.resetRoles, []);
    assert.equal(out.noWorkRemaining, false);
    assert.deepEqual(out.summary, {
      goal: "Test goal", roles: 3, depth: 2, modelMix: "3 sonnet", auxiliaryRoles: ["challenger", "scout", "integration-verifier", "memory-curator"],
      depthSummary: { 1: ["Role 0: api (sonnet)", "Role 2: docs (sonnet)"], 2: ["Role 1: ui (sonnet)"] },
      cost: (out.summary as { cost: unknown }).cost,
    });
    assert.deepEqual(out.health, { issues: [], warnings: [] });
    assert.equal((out.lifecycle as { handoff: string }).handoff, "Next: build the API");
    assert.deepEqual(out.git, { repo: false, dirty: [], dirtyCount: 0 });
    assert.equal(out.budget, undefined);
    assert.match(out.announce as string, /^execute: run started \(7 phases\) · next: challenge · live report: file:\/\/\S+\/\.design\/report\.html · not a git repository: nothing will be committed$/);
    assert.deepEqual(out.report, { path: ".design/report.html", link: (out.report as { link: string }).link, live: true });
    const state = p.json(".design/run-execute.json");
    assert.equal(state.runId, run.runId);
    assert.equal(state.goal, "Test goal");
    assert.deepEqual(state.completed.map((c: { phase: string; decisions: string }) => [c.phase, c.decisions]), [["pre-flight", "0 roles reset, 3 to run"]]);
    const paths = changed(before, snapshot(p.dir));
    assert.deepEqual(paths, [".design/report.html", ".design/run-execute.json"], "plan.json is left alone when no role was running and no budget given; the live report is written");
    assert.deepEqual(outsideOwned("run-begin", "execute", paths), []);
  });

  it("ask-resume: an interrupted resumable run and no flag: nothing written, the user is asked", async (t) => {
    const p = project(t, { ".design/plan.json": plan() });
    await begin(p);
    await checkpointTo(p, "challenge");
    const before = snapshot(p.dir);
    const out = await begin(p, [], T0 + 600_000);
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.equal(out.action, "ask-resume");
    assert.deepEqual(out.resume, { nextPhase: "grant", lastPhase: "challenge", age: "10 min", outputs: [], decisions: ["pre-flight: 0 roles reset, 3 to run"] });
    assert.match(out.announce as string, /Resume from grant\?/);
    assert.deepEqual(changed(before, snapshot(p.dir)), []);
  });

  it("resumed: --resume keeps the run, puts the interrupted role back to pending and answers where to go on", async (t) => {
    const p = project(t, { ".design/plan.json": plan(), ".design/worker-api-worker.json": { status: "completed" } });
    const first = await begin(p);
    await checkpointTo(p, "grant");
    // the lead had started api when the session was lost
    const doc = p.json(".design/plan.json");
    doc.roles[0].status = "in_progress";
    doc.roles[0].attemptLog = [{ attempt: 1, model: "sonnet", agent: "api-worker", outcome: "running" }];
    writeFileSync(join(p.dir, ".design/plan.json"), JSON.stringify(doc, null, 2));
    const out = await begin(p, ["--resume"], T0 + 5000);
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.equal(out.action, "resumed");
    assert.equal((out.run as { runId: string }).runId, (first.run as { runId: string }).runId);
    assert.equal((out.resume as { nextPhase: string }).nextPhase, "workers");
    assert.deepEqual(out.resetRoles, [{ roleIndex: 0, name: "api" }]);
    assert.deepEqual(out.checkpointed, [], "pre-flight was checkpointed before; nothing is redone");
    const after = p.json(".design/plan.json");
    assert.equal(after.roles[0].status, "pending");
    assert.equal(after.roles[0].attemptLog[0].outcome, "interrupted");
    assert.equal(p.json(".design/run-execute.json").completed.length, 3);
  });

  it("start with restartedBecause: the plan's goal changed, so the earlier run is archived and a new one starts", async (t) => {
    const p = project(t, { ".design/plan.json": plan() });
    const first = await begin(p);
    await checkpointTo(p, "challenge");
    const doc = p.json(".design/plan.json");
    doc.goal = "Another goal";
    writeFileSync(join(p.dir, ".design/plan.json"), JSON.stringify(doc, null, 2));
    const out = await begin(p, [], T0 + 60_000);
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.equal(out.action, "start");
    assert.match(out.restartedBecause as string, /cannot be resumed: goal changed/);
    assert.notEqual((out.run as { runId: string }).runId, (first.run as { runId: string }).runId);
    assert.equal(out.archivedTo, ".design/history/20261126T100100Z");
    assert.equal(p.json(".design/history/20261126T100100Z/run-execute.json").runId, (first.run as { runId: string }).runId);
    assert.equal(p.json(".design/run-execute.json").goal, "Another goal");
  });

  it("--fresh on a resumable run starts over without asking", async (t) => {
    const p = project(t, { ".design/plan.json": plan() });
    await begin(p);
    const out = await begin(p, ["--fresh"], T0 + 1000);
    assert.equal(out.action, "start");
    assert.equal(out.restartedBecause, undefined);
    assert.equal(out.archivedTo, ".design/history/20261126T100001Z");
  });

  it("no-plan: the run is started and closed as aborted with goal 'no plan', and its reflection recorded", async (t) => {
    const p = project(t, { ".design/handoff.md": "x\n" });
    const before = snapshot(p.dir);
    const out = await begin(p);
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.equal(out.action, "no-plan");
    assert.match(out.announce as string, /run \/do:design/);
    assert.equal((out.run as { closed: boolean }).closed, true);
    const state = p.json(".design/run-execute.json");
    assert.equal(state.goal, "no plan");
    assert.equal(state.outcome, "aborted");
    assert.notEqual(state.completedAt, null);
    const reflections = p.read(".design/reflection.jsonl").trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(reflections.length, 1);
    assert.equal(reflections[0].id, (out.reflection as { id: string }).id);
    assert.deepEqual([reflections[0].skill, reflections[0].goal, reflections[0].outcome, reflections[0].goalAchieved], ["execute", "no plan", "aborted", false]);
    assert.deepEqual(outsideOwned("run-begin", "execute", changed(before, snapshot(p.dir))), []);
    // issue 19: the aborted run gets its report too, naming the outcome; the answer carries its link
    const report = out.report as { path: string; link: string; summary: string[] };
    assert.equal(report.path, ".design/report.html");
    assert.equal(report.link, pathToFileURL(join(realpathSync(p.dir), ".design/report.html")).href);
    assert.match(p.read(".design/report.html"), /aborted/);
    assert.ok(report.summary.length > 0);
    // the next call starts nothing new to resume: the aborted run is closed
    const again = await begin(p, [], T0 + 1000);
    assert.equal(again.action, "no-plan");
    assert.equal(p.json(".design/run-execute.json").outcome, "aborted");
  });

  it("invalid-plan: a broken plan.json is named, the run closed as aborted", async (t) => {
    const p = project(t, { ".design/plan.json": "{ not json" });
    const out = await begin(p);
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.equal(out.action, "invalid-plan");
    assert.equal(out.error, "invalid_json");
    assert.equal(p.read(".design/plan.json"), "{ not json", "the broken plan is left for the user");
    assert.equal(p.json(".design/run-execute.json").outcome, "aborted");
    const v3 = project(t, { ".design/plan.json": { schemaVersion: 3, roles: [] } });
    const out3 = await begin(v3);
    assert.equal(out3.action, "invalid-plan");
    assert.match(out3.error as string, /bad_schema/);
  });

  it("finished (issue 24): a plan with no work left whose last run closed starts nothing and re-verifies nothing", async (t) => {
    const p = project(t, { ".design/plan.json": plan() });
    assert.equal((await begin(p)).action, "start");
    writeFileSync(join(p.dir, ".design/plan.json"), JSON.stringify(plan({ api: "completed", ui: "completed", docs: "completed" }), null, 2));
    // the run went through and closed
    await checkpointTo(p, "learn");
    assert.equal((await p.run("run-complete", ["execute", "--outcome", "completed"], { now: T0 + 2000 })).exitCode, 0);
    const before = snapshot(p.dir);
    const out = await begin(p, [], T0 + 3000);
    // a plan that never ran and has nothing to do is finished too
    const never = project(t, { ".design/plan.json": plan({ api: "completed", ui: "completed", docs: "completed" }) });
    assert.equal((await begin(never)).action, "finished");
    assert.ok(!never.exists(".design/run-execute.json"));
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.equal(out.action, "finished");
    assert.equal(out.noWorkRemaining, true);
    assert.match(out.reason as string, /./);
    assert.match(out.announce as string, /finished/);
    assert.deepEqual(changed(before, snapshot(p.dir)), [], "no run started, nothing written");
    // --fresh does not make a finished plan run again
    assert.equal((await begin(p, ["--fresh"], T0 + 4000)).action, "finished");
    assert.deepEqual(changed(before, snapshot(p.dir)), []);
  });

  it("a restarted run with no work left skips challenge, grant and workers and goes on at verify", async (t) => {
    const p = project(t, { ".design/plan.json": plan() });
    await begin(p);
    writeFileSync(join(p.dir, ".design/plan.json"), JSON.stringify(plan({ api: "completed", ui: "completed", docs: "completed" }), null, 2));
    await checkpointTo(p, "workers");
    const out = await begin(p, ["--fresh"], T0 + 5000);
    assert.equal(out.action, "start");
    assert.equal(out.noWorkRemaining, true);
    assert.deepEqual(out.skippedPhases, ["challenge", "grant", "workers"]);
    assert.equal((out.run as { nextPhase: string }).nextPhase, "verify");
    const state = p.json(".design/run-execute.json");
    assert.deepEqual(state.completed.map((c: { decisions: string }) => c.decisions).slice(1), Array(3).fill("skipped: no work remaining"));
  });

  it("--fresh keeps the worker reports pending dependents still need, and archives the rest (issue 24)", async (t) => {
    const p = project(t, {
      ".design/plan.json": plan({ api: "completed", docs: "completed" }),
      ".design/worker-api-worker.json": { role: "api" },
      ".design/worker-docs-worker.json": { role: "docs" },
    });
    await begin(p);
    await checkpointTo(p, "workers", { workers: ".design/worker-api-worker.json,.design/worker-docs-worker.json" });
    const out = await begin(p, ["--fresh"], T0 + 7000);
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.deepEqual(out.keptOutputs, [".design/worker-api-worker.json"], "ui depends on api and has not run");
    assert.deepEqual(out.archivedOutputs, [".design/worker-docs-worker.json"]);
    assert.ok(p.exists(".design/worker-api-worker.json"));
    assert.ok(!p.exists(".design/worker-docs-worker.json"));
    assert.ok(p.exists(`${out.archivedTo}/worker-docs-worker.json`));
  });

  it("run-start --fresh keeps them too", async (t) => {
    const p = project(t, { ".design/plan.json": plan({ api: "completed" }), ".design/worker-api-worker.json": {} });
    await p.run("run-start", ["execute", "--phases", EXECUTE_PHASES.join(",")], { now: T0 });
    await p.run("run-checkpoint", ["execute", "--phase", "pre-flight", "--outputs", ".design/worker-api-worker.json"], { now: T0 });
    const out = await p.run("run-start", ["execute", "--phases", EXECUTE_PHASES.join(","), "--fresh"], { now: T0 + 1000 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.deepEqual(out.keptOutputs, [".design/worker-api-worker.json"]);
    assert.ok(p.exists(".design/worker-api-worker.json"));
  });

  it("--budget sets the run's budget in the plan, bound to the new run, and answers the standing", async (t) => {
    const p = project(t, { ".design/plan.json": plan() });
    const out = await begin(p, ["--budget", "200000"]);
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    const runId = (out.run as { runId: string }).runId;
    assert.deepEqual(p.json(".design/plan.json").progress.budget, { tokens: 200000, runId, setAt: "2026-11-26T10:00:00Z" });
    const b = out.budget as { budget: { tokens: number; source: string }; spent: number; set: boolean };
    assert.deepEqual(b.budget, { tokens: 200000, source: "run" });
    assert.equal(b.spent, 0);
    assert.equal(b.set, true);
  });

  it("git: lists the dirty paths outside .design/, read-only", async (t) => {
    const p = project(t, { ".design/plan.json": plan(), "src/a.ts": "export const a = 1;\n" });
    const git = (...a: string[]) => execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...a], { cwd: p.dir, stdio: "pipe" });
    git("init", "-q", ".");
    git("add", "src/a.ts");
    git("commit", "-qm", "init");
    writeFileSync(join(p.dir, "src/a.ts"), "export const a = 2;\n");
    writeFileSync(join(p.dir, "notes.txt"), "x");
    const index = snapshot(join(p.dir, ".git"));
    const out = await begin(p);
    assert.deepEqual(out.git, { repo: true, dirty: ["notes.txt", "src/a.ts"], dirtyCount: 2 });
    assert.match(out.announce as string, /the work tree has 2 changed file\(s\) outside \.design\/: commits leave them alone$/);
    assert.deepEqual(changed(index, snapshot(join(p.dir, ".git"))), [], "git status wrote nothing in .git/");
  });

  it("bad input changes nothing", async (t) => {
    const p = project(t, { ".design/plan.json": plan() });
    const before = snapshot(p.dir);
    for (const argv of [["execute", "--fresh", "--resume"], ["deploy"], ["execute", "--budget", "-1"], ["design", "--budget", "10"], ["execute", "--inputs", "../outside.txt"]]) {
      const out = await p.run("run-begin", argv, { now: T0 });
      assert.equal(out.ok, false, argv.join(" "));
      assert.match(out.code as string, /^E_(USAGE|PATH)$/, argv.join(" "));
    }
    assert.deepEqual(changed(before, snapshot(p.dir)), []);
    assert.ok(!existsSync(join(p.dir, ".design/run-execute.json")));
  });
});

describe("run-begin for the other skills", () => {
  it("starts a design run with its own phases and goal, hashes its inputs, asks before resuming", async (t) => {
    const p = project(t, { ".design/recon.json": { interventions: [] } });
    const out = await p.run("run-begin", ["design", "--goal", "Add login"], { now: T0 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.equal(out.action, "start");
    assert.equal((out.run as { nextPhase: string }).nextPhase, "pre-flight", "only execute's pre-flight is checkpointed by run-begin");
    const state = p.json(".design/run-design.json");
    assert.deepEqual(state.phases, ["pre-flight", "experts", "cross-review", "plan", "finalize", "reflect-and-report"]);
    assert.equal(state.goal, "Add login");
    assert.equal(state.inputs[0].path, ".design/recon.json");
    assert.equal(out.git, undefined);
    assert.equal((out.plan as { state: string }).state, "none");
    const again = await p.run("run-begin", ["design", "--goal", "Add login"], { now: T0 + 1000 });
    assert.equal(again.action, "ask-resume");
    const other = await p.run("run-begin", ["design", "--goal", "Something else"], { now: T0 + 2000 });
    assert.equal(other.action, "start");
    assert.match(other.restartedBecause as string, /goal changed/);
  });

  it("archives a broken run state and starts over", async (t) => {
    const p = project(t, { ".design/run-recon.json": "{ broken" });
    const out = await p.run("run-begin", ["recon", "--goal", "g"], { now: T0 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.match(out.restartedBecause as string, /cannot be read/);
    assert.equal(p.read(`${out.archivedTo}/run-recon.json`), "{ broken");
  });
});

describe("run-begin's git", () => {
  it("never runs a git the project put in its own folder, even with an empty PATH entry", async (t) => {
    const { findGit } = await import("../../src/lib/git/git-status.ts");
    const { chmodSync, mkdirSync, realpathSync } = await import("node:fs");
    const p = project(t, { "bin/git": "#!/bin/sh\ntouch pwned\n", "git": "#!/bin/sh\ntouch pwned\n" });
    chmodSync(join(p.dir, "bin/git"), 0o755);
    chmodSync(join(p.dir, "git"), 0o755);
    const root = realpathSync(p.dir);
    assert.equal(findGit(root, `:.:bin:${join(root, "bin")}`), null);
    const real = findGit(root, `${join(root, "bin")}:${process.env.PATH}`);
    assert.ok(real !== null && !real.startsWith(root), String(real));
    mkdirSync(join(p.dir, ".design"));
    writeFileSync(join(p.dir, ".design/plan.json"), JSON.stringify(plan()));
    const saved = process.env.PATH;
    process.env.PATH = `:${join(root, "bin")}:${saved}`;
    try {
      const out = await begin(p);
      assert.equal(out.exitCode, 0, JSON.stringify(out));
    } finally {
      process.env.PATH = saved;
    }
    assert.ok(!p.exists("pwned"), "the project's git never ran");
  });
});
