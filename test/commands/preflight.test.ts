import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { basename } from "node:path";
import { cliSync } from "../helpers/cli.ts";
import { planWith, project } from "../helpers/design-dir.ts";

const refl = (skill: string, ts: string, goalAchieved = true, outcome = "completed") => ({
  id: `r-${skill}-${ts}`, skill, goal: "g", outcome, goalAchieved, timestamp: ts, evaluation: {},
});

describe("preflight", () => {
  it("reports an empty project when there is no .design at all", async (t) => {
    const p = project(t);
    const out = await p.run("preflight", ["execute"]);
    const hash = createHash("md5").update(p.dir).digest("hex").slice(0, 6);
    const slug = basename(p.dir).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 20);
    assert.deepEqual(out, {
      ok: true,
      skill: "execute",
      teamName: `do-execute-${slug}-${hash}`,
      plan: { state: "none", roleCount: 0, counts: {}, goal: "", isResume: false },
      lifecycle: { handoff: "", reflections: [], plan: "" },
      memory: { count: 0, skippedLines: 0 },
      reflections: { count: 0, skippedLines: 0, evidence: 0, lastForSkill: null },
      recon: { exists: false },
      run: null,
      nextStep: "No plan: run /do:design first",
      problems: [],
      exitCode: 0,
    });
  });

  it("uses the same team name as team-name", async (t) => {
    const p = project(t);
    const team = await p.run("team-name", ["design"]);
    assert.equal((await p.run("preflight", ["design"])).teamName, team.teamName);
  });

  it("sees a finalized plan as ready, and a started one as in progress", async (t) => {
    const ready = project(t, { ".design/plan.json": planWith(["a", "b"], { goal: "x".repeat(200) }) });
    const r = await ready.run("preflight", ["execute"]);
    assert.deepEqual(r.plan, { state: "ready", roleCount: 2, counts: { pending: 2 }, goal: "x".repeat(120), isResume: false });
    assert.equal(r.nextStep, "Plan ready: execute it from the start");
    assert.equal((r.lifecycle as any).plan, "Current plan: 0/2 roles completed");

    const started = project(t, { ".design/plan.json": planWith([{ name: "a", status: "completed" }, { name: "b", status: "in_progress" }, "c"]) });
    const s = await started.run("preflight", ["design"]);
    assert.deepEqual(s.plan, {
      state: "in_progress", roleCount: 3, counts: { completed: 1, in_progress: 1, pending: 1 }, goal: "Test goal", isResume: true,
    });
    assert.equal(s.nextStep, "A plan is in progress: ask before replacing it");
    assert.equal((s.lifecycle as any).plan, "Current plan: 1/3 roles completed");
  });

  it("sees a plan whose roles all reached an end as done, but not one with a retryable failure", async (t) => {
    const done = project(t, {
      ".design/plan.json": planWith([
        { name: "a", status: "completed" }, { name: "b", status: "failed", attempts: 3 }, { name: "c", status: "skipped" },
      ]),
    });
    const d = await done.run("preflight", ["execute"]);
    assert.equal((d.plan as any).state, "done");
    assert.equal(d.nextStep, "The plan is already done: suggest /do:reflect or a new /do:design");
    const retry = project(t, { ".design/plan.json": planWith([{ name: "a", status: "completed" }, { name: "b", status: "failed", attempts: 1 }]) });
    assert.equal(((await retry.run("preflight", ["execute"])).plan as any).state, "in_progress");
  });

  it("reports a broken plan.json with status's error code, still exiting 0", async (t) => {
    const cases: Array<[unknown, string]> = [
      ['{"schemaVersion": 4, "roles": [', "invalid_json"],
      [{ schemaVersion: 3, roles: [{}] }, "bad_schema (schemaVersion=3, expected 4)"],
      [{ schemaVersion: 4, roles: [] }, "empty_roles"],
      [{ schemaVersion: 4, roles: "ab" }, "bad_schema (roles must be an array)"],
      [{ schemaVersion: 4, roles: [{}, 1] }, "bad_schema (roles[1] must be an object)"],
    ];
    for (const [content, error] of cases) {
      const out = await project(t, { ".design/plan.json": content }).run("preflight", ["execute"]);
      assert.equal(out.ok, true);
      assert.equal(out.exitCode, 0);
      assert.equal((out.plan as any).state, "invalid");
      assert.equal((out.plan as any).error, error);
      assert.deepEqual(out.problems, [`plan.json: ${error}`]);
      assert.equal(out.nextStep, `plan.json is invalid (${error}): fix it or run /do:design again`);
    }
  });

  it("counts memories and reflections, skipping corrupt lines and reporting them as problems", async (t) => {
    const p = project(t, {
      ".design/memory.jsonl": `{"id":"m1"}\nnot json\n\n[1]\n{"id":"m2"}\n{"id":`,
      ".design/reflection.jsonl":
        [refl("execute", "2026-01-01T00:00:00Z", false, "partial"), refl("design", "2026-01-05T00:00:00Z"), refl("execute", "2026-01-03T00:00:00Z")]
          .map((e) => JSON.stringify(e)).join("\n") + "\n{oops\n",
    });
    const out = await p.run("preflight", ["execute"]);
    assert.equal(out.exitCode, 0);
    assert.deepEqual(out.memory, { count: 2, skippedLines: 3 });
    assert.deepEqual(out.reflections, { count: 3, skippedLines: 1, evidence: 3, lastForSkill: "completed succeeded 2026-01-03T00:00:00Z" });
    assert.deepEqual((out.lifecycle as any).reflections, ["design: completed (succeeded)", "execute: completed (succeeded)"]);
    assert.deepEqual(out.problems, [
      "memory.jsonl: 3 unparsable line(s) skipped (lines 2, 4, 6)",
      "reflection.jsonl: 1 unparsable line(s) skipped (lines 4)",
    ]);
  });

  it("gives lastForSkill as null when the skill has no reflection", async (t) => {
    const p = project(t, { ".design/reflection.jsonl": [refl("design", "2026-01-05T00:00:00Z")] });
    assert.equal(((await p.run("preflight", ["recon"])).reflections as any).lastForSkill, null);
    assert.equal(((await p.run("preflight", ["design"])).reflections as any).lastForSkill, "completed succeeded 2026-01-05T00:00:00Z");
  });

  it("never calls an aborted run failed: it stopped on purpose (issue 31)", async (t) => {
    const p = project(t, { ".design/reflection.jsonl": [refl("execute", "2026-01-04T00:00:00Z", false, "failed"), refl("execute", "2026-01-05T00:00:00Z", false, "aborted")] });
    const out: any = await p.run("preflight", ["execute"]);
    assert.equal(out.reflections.lastForSkill, "aborted 2026-01-05T00:00:00Z");
    assert.deepEqual(out.lifecycle.reflections, ["execute: aborted", "execute: failed (failed)"]);
  });

  it("turns a missing or unknown skill into a problem, not an error", async (t) => {
    const p = project(t, { ".design/plan.json": planWith(["a"]) });
    const missing = await p.run("preflight");
    assert.equal(missing.ok, true);
    assert.equal(missing.exitCode, 0);
    assert.equal(missing.skill, null);
    assert.equal(missing.teamName, null);
    assert.deepEqual(missing.problems, ["skill: missing (expected one of design, execute, improve, recon, reflect)"]);
    assert.equal((missing.plan as any).state, "ready");
    const unknown = await p.run("preflight", ["deploy"]);
    assert.equal(unknown.exitCode, 0);
    assert.equal(unknown.skill, "deploy");
    assert.deepEqual(unknown.problems, ["skill: unknown 'deploy' (expected one of design, execute, improve, recon, reflect)"]);
    assert.equal(unknown.nextStep, "Pass the skill name (design, execute, improve, recon, reflect) to preflight");
  });

  it("reports recon.json presence and its intervention count", async (t) => {
    const p = project(t, {
      ".design/recon.json": { schemaVersion: 1, interventions: [{}, {}] },
      "bad/recon.json": "{",
    });
    const out = await p.run("preflight", ["recon"]);
    assert.deepEqual(out.recon, { exists: true, interventionCount: 2 });
    assert.equal(out.nextStep, "A previous recon.json exists (2 interventions): ask whether to replace it (it moves to history) or keep it (this run writes recon-2.json)");
    const bad = await p.run("preflight", ["recon", "bad"]);
    assert.deepEqual(bad.recon, { exists: true });
    assert.match((bad.problems as string[])[0], /^recon\.json: invalid JSON: /);
    assert.equal(bad.nextStep, "A previous recon.json exists but cannot be read: ask whether to replace it (it moves to history) or keep it (this run writes recon-2.json)");
  });

  it("includes the handoff lines and tells reflect when there is nothing to reflect on [feature:reflect/not-enough-runs]", async (t) => {
    const p = project(t, { ".design/handoff.md": "Done: api\nNext: tests\n" });
    const out = await p.run("preflight", ["reflect"]);
    assert.equal((out.lifecycle as any).handoff, "Done: api\nNext: tests");
    assert.equal(out.nextStep, "No reflections yet: run a skill first, there is nothing to reflect on");
  });

  it("counts as reflect's evidence every run but reflect's own aborted ones, which /do:reflect compares with its minimum [feature:reflect/not-enough-runs] [ac:reflect/3]", async (t) => {
    // Two reflect runs that stopped for too few runs, one real design run: the minimum of 2 is not met.
    const p = project(t, {
      ".design/reflection.jsonl": [
        refl("design", "2026-01-01T00:00:00Z", false, "failed"),
        refl("reflect", "2026-01-02T00:00:00Z", false, "aborted"),
        refl("reflect", "2026-01-03T00:00:00Z", false, "aborted"),
        refl("reflect", "2026-01-04T00:00:00Z"),
      ],
    });
    const out = await p.run("preflight", ["reflect"]);
    assert.equal((out.reflections as any).count, 4);
    // Per skill too (issue 31): reflect compares the skill it analyses with its minimum before it archives anything.
    assert.deepEqual((out.reflections as any).evidenceBySkill, { design: 1, reflect: 1 });
    assert.equal("evidenceBySkill" in ((await p.run("preflight", ["design"])).reflections as any), false, "only reflect's digest carries it");
    assert.equal((out.reflections as any).evidence, 2, "a completed reflect run is evidence about reflect; an aborted one is not");
    assert.equal(out.nextStep, "2 reflection(s) to analyse");
    const only = project(t, { ".design/reflection.jsonl": [refl("reflect", "2026-01-02T00:00:00Z", false, "aborted")] });
    const none = await only.run("preflight", ["reflect"]);
    assert.equal((none.reflections as any).evidence, 0);
    assert.equal(none.nextStep, "No reflections yet: run a skill first, there is nothing to reflect on");
  });

  it("reports a design_dir that is a file as a problem", async (t) => {
    const out = await project(t, { ".design": "not a dir" }).run("preflight", ["design"]);
    assert.equal(out.exitCode, 0);
    assert.deepEqual(out.problems, [".design: not a directory"]);
    assert.equal((out.plan as any).state, "none");
  });

  it("reports unreadable files as problems", async (t) => {
    const out = await project(t, { ".design/memory.jsonl/x": "", ".design/plan.json/x": "" }).run("preflight", ["improve"]);
    assert.equal(out.exitCode, 0);
    assert.equal((out.plan as any).state, "invalid");
    const problems = out.problems as string[];
    assert.equal(problems[0], "plan.json: invalid_json");
    assert.match(problems[1], /^memory\.jsonl: cannot read: /);
  });

  it("exits 0 with one JSON document as a real process, even on a broken project", (t) => {
    const p = project(t, { ".design/plan.json": "{", ".design/reflection.jsonl": "x\n" });
    for (const args of [["preflight", "execute"], ["preflight"], ["preflight", "nonsense", "missing-dir"]]) {
      const r = cliSync(args, { cwd: p.dir });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.equal(r.json.ok, true);
      assert.equal(r.stderr, "");
    }
  });
});
