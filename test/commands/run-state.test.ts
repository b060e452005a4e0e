import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SKILL_PHASES } from "../../src/lib/run/run-state.ts";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { project } from "../helpers/design-dir.ts";

const PHASES = "prepare,research,synthesis,drafting,reflect";
const T0 = Date.parse("2026-11-22T10:00:00Z");

describe("run-start", () => {
  it("writes the phase list, the goal hash and the input hashes", async (t) => {
    const p = project(t, { ".design/recon.json": { schemaVersion: 1 } });
    const out = await p.run("run-start", ["design", "--phases", PHASES, "--goal", "Add auth", "--inputs", ".design/recon.json,spec.md"], { now: T0 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.equal(out.next, "prepare");
    assert.deepEqual(out.missingInputs, ["spec.md"]);
    assert.equal(out.announce, "design: run started (5 phases) · next: prepare");
    const state = p.json(".design/run-design.json");
    assert.deepEqual(state.phases, PHASES.split(","));
    assert.deepEqual(state.completed, []);
    assert.equal(state.goal, "Add auth");
    assert.equal(state.startedAt, "2026-11-22T10:00:00Z");
    assert.equal(state.completedAt, null);
    assert.match(state.inputs[0].sha256, /^[0-9a-f]{64}$/);
    assert.equal(state.inputs[1].sha256, null);
    // The contract fixes no run id format: a nanoid (src/lib/ids.ts), new for every run.
    assert.match(state.runId, /^[A-Za-z0-9_-]{21}$/);
  });

  it("refuses to replace an incomplete run, and describes it", async (t) => {
    const p = project(t);
    await p.run("run-start", ["design", "--phases", PHASES, "--goal", "g"], { now: T0 });
    const before = p.read(".design/run-design.json");
    const out = await p.run("run-start", ["design", "--phases", PHASES, "--goal", "g"], { now: T0 + 1000 });
    assert.equal(out.exitCode, 1);
    assert.equal(out.code, "E_INVALID");
    assert.match(out.error as string, /incomplete design run exists/);
    assert.equal((out.run as { nextPhase: string }).nextPhase, "prepare");
    assert.equal(p.read(".design/run-design.json"), before);
  });

  it("archives the old run with --fresh instead of overwriting it, twice in one second", async (t) => {
    const p = project(t);
    await p.run("run-start", ["design", "--phases", "a,b", "--goal", "one"], { now: T0 });
    const first = await p.run("run-start", ["design", "--phases", "a,b", "--goal", "two", "--fresh"], { now: T0 });
    const second = await p.run("run-start", ["design", "--phases", "a,b", "--goal", "three", "--fresh"], { now: T0 });
    assert.equal(first.archivedTo, ".design/history/20261122T100000Z");
    assert.equal(second.archivedTo, ".design/history/20261122T100000Z-2");
    assert.equal(p.json(".design/history/20261122T100000Z/run-design.json").goal, "one");
    assert.equal(p.json(".design/history/20261122T100000Z-2/run-design.json").goal, "two");
    assert.equal(p.json(".design/run-design.json").goal, "three");
    const ids = [p.json(".design/history/20261122T100000Z/run-design.json").runId, p.json(".design/history/20261122T100000Z-2/run-design.json").runId, p.json(".design/run-design.json").runId];
    assert.equal(new Set(ids).size, 3, "each run gets its own id");
  });

  it("moves an interrupted run's outputs into history with its state, so a fresh run overwrites none", async (t) => {
    const p = project(t, { ".design/expert-a.json": { run: 1 }, ".design/tmp/synthesis.json": {}, ".design/recon.json": {} });
    await p.run("run-start", ["recon", "--phases", "a,b,c"], { now: T0 });
    await p.run("run-checkpoint", ["recon", "--phase", "a", "--outputs", ".design/expert-a.json,.design/tmp/synthesis.json"]);
    await p.run("run-checkpoint", ["recon", "--phase", "b", "--outputs", ".design/recon.json"]);
    const out = await p.run("run-start", ["recon", "--phases", "a,b,c", "--fresh"], { now: T0 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.deepEqual(out.archivedOutputs, [".design/expert-a.json", ".design/tmp/synthesis.json"]);
    assert.deepEqual(p.json(".design/history/20261122T100000Z/expert-a.json"), { run: 1 });
    assert.equal(p.exists(".design/history/20261122T100000Z/tmp/synthesis.json"), true);
    assert.equal(p.exists(".design/expert-a.json"), false);
    assert.equal(p.exists(".design/recon.json"), true, "persistent files stay");
  });

  it("leaves a finished run's outputs to archive", async (t) => {
    const p = project(t, { ".design/plan.json": { schemaVersion: 4, roles: [] } });
    await p.run("run-start", ["design", "--phases", "a"]);
    await p.run("run-checkpoint", ["design", "--phase", "a", "--outputs", ".design/plan.json"]);
    assert.equal((await p.run("run-complete", ["design", "--outcome", "partial"])).ok, true);
    const out = await p.run("run-start", ["design", "--phases", "a"]);
    assert.deepEqual(out.archivedOutputs, []);
    assert.equal(p.exists(".design/plan.json"), true);
  });

  it("rejects an unknown skill, no phases and a repeated phase", async (t) => {
    const p = project(t);
    assert.match((await p.run("run-start", ["deploy", "--phases", "a"])).error as string, /unknown skill 'deploy'/);
    assert.match((await p.run("run-start", ["design", "--phases", " , "])).error as string, /at least one phase/);
    assert.match((await p.run("run-start", ["design", "--phases", "a,b,a"])).error as string, /phase 'a' is listed twice/);
    assert.equal(p.exists(".design/run-design.json"), false);
  });
});

describe("run-checkpoint", () => {
  it("records phases in order and returns the announcement", async (t) => {
    const p = project(t, { ".design/expert-api.json": { summary: "x" } });
    await p.run("run-start", ["design", "--phases", PHASES], { now: T0 });
    await p.run("run-checkpoint", ["design", "--phase", "prepare"], { now: T0 + 1000 });
    const out = await p.run("run-checkpoint", ["design", "--phase", "research", "--outputs", ".design/expert-api.json", "--decisions", "REST over GraphQL"], { now: T0 + 2000 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.equal(out.announce, "design · phase 2/5 research: done · decisions: REST over GraphQL · next: synthesis");
    const state = p.json(".design/run-design.json");
    assert.deepEqual(state.completed.map((c: { phase: string }) => c.phase), ["prepare", "research"]);
    assert.deepEqual(state.completed[1].outputs, [".design/expert-api.json"]);
    assert.equal(state.updatedAt, "2026-11-22T10:00:02Z");
  });

  it("refuses to skip a phase", async (t) => {
    const p = project(t);
    await p.run("run-start", ["design", "--phases", PHASES]);
    const before = p.read(".design/run-design.json");
    const out = await p.run("run-checkpoint", ["design", "--phase", "synthesis"]);
    assert.equal(out.exitCode, 1);
    assert.equal(out.error, "Cannot checkpoint 'synthesis': phase 'prepare' comes first");
    assert.equal(p.read(".design/run-design.json"), before);
  });

  it("refuses a phase whose outputs are missing", async (t) => {
    const p = project(t, { "present.md": "x" });
    await p.run("run-start", ["design", "--phases", PHASES]);
    const out = await p.run("run-checkpoint", ["design", "--phase", "prepare", "--outputs", "present.md,.design/expert-ux.json"]);
    assert.equal(out.exitCode, 1);
    assert.equal(out.error, "Phase 'prepare' outputs missing: .design/expert-ux.json");
    assert.deepEqual(out.missing, [".design/expert-ux.json"]);
    assert.deepEqual(p.json(".design/run-design.json").completed, []);
  });

  it("accepts the same last phase again, but not an earlier one", async (t) => {
    const p = project(t);
    await p.run("run-start", ["design", "--phases", "a,b,c"]);
    await p.run("run-checkpoint", ["design", "--phase", "a"]);
    await p.run("run-checkpoint", ["design", "--phase", "b", "--decisions", "first"]);
    const again = await p.run("run-checkpoint", ["design", "--phase", "b", "--decisions", "second"]);
    assert.equal(again.repeated, true);
    assert.equal(p.json(".design/run-design.json").completed.length, 2);
    assert.equal(p.json(".design/run-design.json").completed[1].decisions, "second");
    const back = await p.run("run-checkpoint", ["design", "--phase", "a"]);
    assert.match(back.error as string, /already checkpointed/);
  });

  it("needs a started run and a known phase", async (t) => {
    const p = project(t);
    assert.equal((await p.run("run-checkpoint", ["execute", "--phase", "x"])).code, "E_NOT_FOUND");
    await p.run("run-start", ["execute", "--phases", "a"]);
    assert.equal((await p.run("run-checkpoint", ["execute", "--phase", "zzz"])).error, "Unknown phase 'zzz' (phases: a)");
  });
});

describe("run-status and run-complete", () => {
  it("describes where a run stopped and how old it is", async (t) => {
    const p = project(t);
    await p.run("run-start", ["design", "--phases", PHASES, "--goal", "Add auth"], { now: T0 });
    await p.run("run-checkpoint", ["design", "--phase", "prepare"], { now: T0 });
    await p.run("run-checkpoint", ["design", "--phase", "research", "--decisions", "two experts"], { now: T0 });
    const out = await p.run("run-status", ["design", "--goal", "Add auth"], { now: T0 + 3 * 3600_000 });
    assert.equal(out.exists, true);
    assert.equal(out.resumable, true);
    assert.equal(out.lastPhase, "research");
    assert.equal(out.nextPhase, "synthesis");
    assert.equal(out.age, "3 h");
    assert.equal(out.inputsChanged, false);
    assert.deepEqual(out.decisions, ["research: two experts"]);
  });

  it("detects a changed input file and a changed goal", async (t) => {
    const p = project(t, { "spec.md": "v1" });
    await p.run("run-start", ["design", "--phases", PHASES, "--goal", "Add auth", "--inputs", "spec.md"]);
    writeFileSync(join(p.dir, "spec.md"), "v2");
    const out = await p.run("run-status", ["design", "--goal", "Add billing"]);
    assert.equal(out.inputsChanged, true);
    assert.equal(out.resumable, false);
    assert.deepEqual(out.changed, ["goal", "spec.md"]);
  });

  it("names the refs a resumed session reads first: those an earlier phase loaded that the next one works from", async (t) => {
    const DESIGN = "pre-flight,experts,cross-review,plan,finalize,reflect-and-report";
    const walk = async (skill: string, phases: string, steps: Array<[string, string]>) => {
      const p = project(t);
      await p.run("run-start", [skill, "--phases", phases, "--goal", "g"]);
      const seen: unknown[] = [];
      for (const [phase, decisions] of steps) {
        await p.run("run-checkpoint", [skill, "--phase", phase, "--decisions", decisions]);
        seen.push((await p.run("run-status", [skill, "--goal", "g"])).refs);
      }
      return seen;
    };
    // Full path: only finalize carries a ref over (its fallback rebuilds the draft from the plan template).
    assert.deepEqual(await walk("design", DESIGN, [["pre-flight", "x"], ["experts", "experts: a, b"], ["cross-review", "none"], ["plan", "2 roles"], ["finalize", "ok"]]), [
      [], [], [], ["refs/plan-template.md"], [],
    ]);
    // Quick path: the plan phase writes the draft as refs/quick-path.md (read at experts) says.
    assert.deepEqual(await walk("design", DESIGN, [["pre-flight", "x"], ["experts", "skipped: quick path"], ["cross-review", "skipped: quick path"]]), [
      [], [], ["refs/quick-path.md"],
    ]);
    assert.deepEqual(await walk("improve", "pre-flight,mode,analysis,cross-review,synthesis,guards,finalize,reflect-and-report", [["pre-flight", "x"], ["mode", "general"], ["analysis", "a"]]), [
      [], ["refs/analyst-briefs.md"], ["refs/analyst-briefs.md"],
    ]);
    assert.deepEqual(await walk("reflect", "pre-flight,gather,analyse,hypotheses,plan,reflect-and-report", [["pre-flight", "x"], ["gather", "y"], ["analyse", "z"]]), [
      [], [], ["refs/pattern-analysis.md"],
    ]);
    // Execute keeps its own resume text: no table, no field.
    const e = project(t);
    await e.run("run-start", ["execute", "--phases", "pre-flight,challenge,grant,workers,verify,learn,close", "--goal", "g"]);
    assert.equal("refs" in (await e.run("run-status", ["execute", "--goal", "g"])), false);
  });

  it("reports no run without failing", async (t) => {
    const out = await project(t).run("run-status", ["recon"]);
    assert.deepEqual({ ...out, exitCode: undefined }, { ok: true, skill: "recon", exists: false, resumable: false, exitCode: undefined });
  });

  it("completes a run and lists the phases it never reached", async (t) => {
    const p = project(t);
    await p.run("run-start", ["execute", "--phases", "a,b,c"]);
    await p.run("run-checkpoint", ["execute", "--phase", "a"]);
    const out = await p.run("run-complete", ["execute", "--outcome", "aborted"]);
    assert.deepEqual(out.skippedPhases, ["b"], "the last phase is the one run-complete closes");
    assert.equal(out.announce, "execute: run aborted · phases not reached: b");
    assert.equal(p.json(".design/run-execute.json").outcome, "aborted");
    const status = await p.run("run-status", ["execute"]);
    assert.equal(status.complete, true);
    assert.equal(status.resumable, false);
    const fresh = await p.run("run-start", ["execute", "--phases", "a"]);
    assert.equal(fresh.exitCode, 0, "a finished run does not block a new one");
    assert.ok(typeof fresh.archivedTo === "string");
  });

  it("refuses outcome completed while a declared phase was never checkpointed, and changes nothing [feature:design/completed-means-every-phase] [ac:design/3]", async (t) => {
    const p = project(t);
    const DESIGN = SKILL_PHASES.design;
    await p.run("run-start", ["design", "--phases", DESIGN.join(",")]);
    await p.run("run-checkpoint", ["design", "--phase", "pre-flight"]);
    const before = p.read(".design/run-design.json");
    const out = await p.run("run-complete", ["design", "--outcome", "completed"]);
    assert.equal(out.code, "E_INVALID");
    assert.equal(out.error, "Cannot complete the design run: phases never checkpointed: experts, cross-review, plan, finalize. Checkpoint them, or close the run with --outcome partial, failed or aborted");
    assert.deepEqual(out.skippedPhases, ["experts", "cross-review", "plan", "finalize"]);
    assert.equal(p.read(".design/run-design.json"), before);
    // The default outcome is completed: the same refusal.
    assert.equal((await p.run("run-complete", ["design"])).code, "E_INVALID");
    // Once every phase but the last is checkpointed, completed is accepted and records no skipped phase.
    for (const phase of DESIGN.slice(1, -1)) await p.run("run-checkpoint", ["design", "--phase", phase]);
    const done = await p.run("run-complete", ["design"]);
    assert.equal(done.ok, true, JSON.stringify(done));
    assert.deepEqual(done.skippedPhases, []);
    const state = p.json(".design/run-design.json");
    assert.equal(state.outcome, "completed");
    assert.equal("skippedPhases" in state, false);
  });

  it("starts a run only with its skill's declared phases: a recon run of its first and last phases is refused", async (t) => {
    const p = project(t);
    const RECON = SKILL_PHASES.recon;
    for (const [phases, said] of [
      [[RECON[0], RECON.at(-1)], /leaves out research, synthesis, write-and-validate/],
      [[...RECON.slice(0, 2), ...RECON.slice(3)], /leaves out synthesis/],
      [[RECON[1], RECON[0], ...RECON.slice(2)], /changes their order/],
      [[...RECON, "extra"], /adds extra/],
    ] as const) {
      const out = await p.run("run-start", ["recon", "--phases", phases.join(",")]);
      assert.equal(out.code, "E_USAGE", phases.join(","));
      assert.match(out.error as string, said);
      assert.deepEqual(out.phases, [...RECON]);
      assert.equal(p.exists(".design/run-recon.json"), false);
    }
    assert.equal((await p.run("run-start", ["recon", "--phases", RECON.join(",")])).ok, true);
  });

  it("never closes as completed a run whose phase list is not its skill's, even with every listed phase checkpointed", async (t) => {
    const p = project(t);
    await p.run("run-start", ["recon", "--phases", "a,b"]);
    await p.run("run-checkpoint", ["recon", "--phase", "a"]);
    const out = await p.run("run-complete", ["recon"]);
    assert.equal(out.code, "E_INVALID");
    assert.deepEqual(out.skippedPhases, SKILL_PHASES.recon.slice(0, -1));
    assert.deepEqual((await p.run("run-complete", ["recon", "--outcome", "partial"])).skippedPhases, [], "another outcome records the run's own phases not reached");
  });

  it("closes a run with another outcome and records the phases it skipped in the run state [feature:design/completed-means-every-phase]", async (t) => {
    const p = project(t);
    await p.run("run-start", ["recon", "--phases", "a,b,c,d"]);
    await p.run("run-checkpoint", ["recon", "--phase", "a"]);
    for (const outcome of ["partial"]) {
      const out = await p.run("run-complete", ["recon", "--outcome", outcome]);
      assert.equal(out.ok, true);
      assert.deepEqual(out.skippedPhases, ["b", "c"]);
    }
    const state = p.json(".design/run-recon.json");
    assert.deepEqual([state.outcome, state.skippedPhases], ["partial", ["b", "c"]]);
    const again = await p.run("run-complete", ["recon", "--outcome", "completed"]);
    assert.equal(again.alreadyComplete, true, "a closed run stays as it was closed");
    assert.equal(p.json(".design/run-recon.json").outcome, "partial");
  });

  it("reports a corrupt run file instead of replacing it", async (t) => {
    const p = project(t, { ".design/run-design.json": "{ torn" });
    const out = await p.run("run-start", ["design", "--phases", "a"]);
    assert.equal(out.exitCode, 1);
    assert.equal(out.code, "E_JSON");
    assert.equal(p.read(".design/run-design.json"), "{ torn");
    assert.equal((await p.run("run-status", ["design"])).code, "E_SCHEMA");
  });
});

describe("preflight with run state", () => {
  it("offers to resume an interrupted run at the next phase", async (t) => {
    const p = project(t);
    await p.run("run-start", ["design", "--phases", PHASES, "--goal", "Add auth"], { now: T0 });
    await p.run("run-checkpoint", ["design", "--phase", "prepare"], { now: T0 });
    await p.run("run-checkpoint", ["design", "--phase", "research"], { now: T0 });
    const out = await p.run("preflight", ["design"], { now: T0 + 20 * 60_000 });
    assert.equal(out.exitCode, 0);
    const run = out.run as Record<string, unknown>;
    assert.equal(run.lastPhase, "research");
    assert.equal(run.nextPhase, "synthesis");
    assert.equal(run.resumable, true);
    assert.equal(out.nextStep, 'An interrupted design run stopped after research 20 min ago: ask the user "Resume from synthesis?"');
  });

  it("says why a run whose inputs changed cannot be resumed", async (t) => {
    const p = project(t, { "spec.md": "v1" });
    await p.run("run-start", ["design", "--phases", PHASES, "--inputs", "spec.md"]);
    writeFileSync(join(p.dir, "spec.md"), "v2");
    const out = await p.run("preflight", ["design"]);
    assert.equal((out.run as { resumable: boolean }).resumable, false);
    assert.match(out.nextStep as string, /cannot be resumed \(spec\.md changed\)/);
  });

  it("ignores another skill's run and a finished run", async (t) => {
    const p = project(t);
    await p.run("run-start", ["execute", "--phases", "a"]);
    assert.equal((await p.run("preflight", ["design"])).run, null);
    await p.run("run-complete", ["execute", "--outcome", "partial"]);
    assert.equal((await p.run("preflight", ["execute"])).run, null);
  });

  it("reports a broken run file as a problem and still exits 0", async (t) => {
    const p = project(t, { ".design/run-recon.json": "nope" });
    const out = await p.run("preflight", ["recon"]);
    assert.equal(out.exitCode, 0);
    assert.ok((out.problems as string[]).some((x) => x.startsWith("run-recon.json:")));
  });
});

describe("archive and run state", () => {
  it("keeps an unfinished run's state and archives a finished one", async (t) => {
    const p = project(t, { ".design/plan.json": { schemaVersion: 4, roles: [{ name: "r", status: "completed" }] }, ".design/expert-a.json": {} });
    await p.run("run-start", ["design", "--phases", "a,b"]);
    await p.run("run-start", ["execute", "--phases", "a"]);
    await p.run("run-complete", ["execute", "--outcome", "partial"]);
    const out = await p.run("archive", [".design"]);
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.deepEqual(out.archived, ["expert-a.json", "plan.json", "run-execute.json"]);
    assert.equal(p.exists(".design/run-design.json"), true);
    assert.equal(p.exists(".design/run-execute.json"), false);
  });
});
