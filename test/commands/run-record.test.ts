// Issue 30: the four skills besides execute open with run-begin, close with run-end, and make no checkpoint call:
// the calls that produce a phase's output record it (src/lib/run/run-record.ts). Each skill's sequence of written calls,
// as its SKILL.md orders them, run in-process: every phase recorded once, a `completed` close accepted, a repeat of
// any call recording nothing twice, and the helper-call count each skill's cap is built on.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { planWith, project, type Project } from "../helpers/design-dir.ts";
import { changed, outsideOwned, snapshot } from "../helpers/changes.ts";
import { QUICK_PATH_DECISIONS } from "../../src/lib/run/resume-refs.ts";

const T0 = Date.UTC(2026, 10, 29, 4, 0, 0);
const EVAL = { whatWorked: ["it worked"], whatFailed: [], doNextTime: ["again"] };
const EXPERT = (name: string) => ({ summary: `${name} findings`, verificationProperties: [{ property: "p", category: "invariant", testableVia: "grep" }] });
const DIMS = ["protocolClarity", "constraintEnforcement", "errorHandling", "agentCoordination", "informationFlow", "promptEconomy", "verifiability"];
const ANALYST = { ...EXPERT("analyst"), qualityScores: Object.fromEntries(DIMS.map((d) => [d, { score: 3, evidence: `line 1: ${d}` }])) };

function put(p: Project, rel: string, value: unknown): void {
  mkdirSync(dirname(join(p.dir, rel)), { recursive: true });
  writeFileSync(join(p.dir, rel), typeof value === "string" ? value : `${JSON.stringify(value, null, 2)}\n`);
}

/** Run a call, assert ok, count it. */
function counter(p: Project) {
  let calls = 0;
  let now = T0;
  const run = async (name: string, argv: string[]) => {
    calls++;
    now += 1000;
    const out = await p.run(name, argv, { now });
    assert.equal(out.ok, true, `${name} ${argv.join(" ")}: ${JSON.stringify(out)}`);
    return out as any;
  };
  return { run, count: () => calls };
}

const phasesOf = (p: Project, skill: string) => (p.json(`.design/run-${skill}.json`).completed as Array<{ phase: string }>).map((c) => c.phase);

describe("phases recorded by the calls that produce them", () => {
  it("design, quick path: run-begin, design-tier twice, finalize, run-end: 5 helper calls, every phase recorded [feature:design/quick-path]", async (t) => {
    const p = project(t, { "package.json": JSON.stringify({ scripts: { test: "node --test" } }), "src/api/index.js": "", ".design/tmp/eval.json": EVAL });
    const { run, count } = counter(p);
    const begun = await run("run-begin", ["design", "--goal", "add due dates"]);
    assert.equal(begun.action, "start");
    assert.deepEqual(begun.memories, []);
    assert.deepEqual(begun.health.issues, [], "no plan is no problem for a skill that plans");
    const tier = await run("design-tier", ["--goal", "add an optional due date to each todo in src/api"]);
    assert.match(tier.checkpoint, /^design · phase 1\/6 pre-flight: done · next: experts$/);
    put(p, ".design/draft/plan.json", planWith([{ name: "api", dirs: ["src/api/"] }], { complexity: "low" }));
    const fits = await run("design-tier", ["--draft", ".design/draft/plan.json"]);
    assert.equal(fits.fits, true, JSON.stringify(fits));
    assert.match(fits.checkpoint, /phase 3\/6 experts, cross-review: done · next: plan/);
    const fin = await run("finalize", [".design/draft/plan.json"]);
    assert.match(fin.checkpoint, /phase 5\/6 plan, finalize: done · next: reflect-and-report/);
    const run1 = p.json(".design/run-design.json");
    assert.deepEqual(run1.completed.map((c: any) => [c.phase, c.decisions]), [
      ["pre-flight", "goal: add an optional due date to each todo in src/api; low, quick path"],
      ["experts", QUICK_PATH_DECISIONS],
      ["cross-review", QUICK_PATH_DECISIONS],
      ["plan", ""],
      ["finalize", "1 roles finalized, 0 warnings"],
    ]);
    assert.deepEqual(run1.completed[3].outputs, [".design/draft/plan.json"]);
    assert.deepEqual(run1.completed[4].outputs, [".design/plan.json"]);
    const end = await run("run-end", ["design", "--outcome", "completed", "--goal-achieved", "true", "--eval", ".design/tmp/eval.json"]);
    assert.equal(end.run.outcome, "completed");
    assert.equal(count(), 5, "the quick path's helper calls (≤ 6 with memory-search or recon)");
    const refl = p.read(".design/reflection.jsonl").trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(refl.map((r) => [r.skill, r.outcome, r.runId]), [["design", "completed", begun.run.runId]]);
  });

  it("design, full path: expert-validate records the experts once no one is still out; finalize records cross-review to finalize", async (t) => {
    const p = project(t, { ".design/tmp/eval.json": EVAL, ".design/cross-review.json": { rounds: 1 } });
    const { run } = counter(p);
    await run("run-begin", ["design", "--goal", "add due dates"]);
    await run("design-tier", ["--goal", "add due dates to the API and the CLI", "--min", "medium"]);
    put(p, ".design/expert-architect.json", EXPERT("architect"));
    const first = await run("expert-validate", [".design/expert-architect.json", "--waiting", "architect,api-designer"]);
    assert.equal(first.checkpoint, undefined, "api-designer is still out");
    put(p, ".design/expert-api-designer.json", EXPERT("api-designer"));
    const last = await run("expert-validate", [".design/expert-api-designer.json", "--waiting", ""]);
    assert.match(last.checkpoint, /phase 2\/6 experts: done · next: cross-review/);
    const state = p.json(".design/run-design.json");
    assert.deepEqual(state.completed[1].outputs, [".design/expert-api-designer.json", ".design/expert-architect.json"]);
    // A repeat records nothing: the run is past the phase.
    const before = snapshot(p.dir);
    const again = await run("expert-validate", [".design/expert-architect.json", "--waiting", ""]);
    assert.equal(again.checkpoint, undefined);
    assert.deepEqual(changed(before, snapshot(p.dir)), []);
    put(p, ".design/draft/plan.json", planWith(["api", "cli"]));
    const fin = await run("finalize", [".design/draft/plan.json"]);
    assert.match(fin.checkpoint, /cross-review, plan, finalize: done/);
    assert.deepEqual(p.json(".design/run-design.json").completed[2].outputs, [".design/cross-review.json"]);
    await run("run-end", ["design", "--outcome", "completed", "--eval", ".design/tmp/eval.json"]);
  });

  it("recon: run-begin records pre-flight, expert-validate research, recon-rank synthesis and write-and-validate: 7 calls for 3 researchers", async (t) => {
    const p = project(t, { ".design/tmp/eval.json": EVAL, ".design/expert-stale.json": EXPERT("stale") });
    const { run, count } = counter(p);
    const begun = await run("run-begin", ["recon", "--goal", "why do releases break"]);
    assert.match(begun.checkpoint, /recon · phase 1\/5 pre-flight: done · next: research/);
    assert.equal(begun.run.nextPhase, "research");
    assert.deepEqual(begun.setAside, ["expert-stale.json"], "an earlier run's artifact cannot pass as new");
    const names = ["codebase-analyst", "external-researcher", "domain-specialist"];
    for (const n of names) put(p, `.design/expert-${n}.json`, EXPERT(n));
    for (const [i, n] of names.entries()) await run("expert-validate", [`.design/expert-${n}.json`, "--waiting", names.slice(i + 1).join(",")]);
    assert.deepEqual(phasesOf(p, "recon"), ["pre-flight", "research"]);
    await run("recon-findings", ["--artifacts", names.map((n) => `.design/expert-${n}.json`).join(",")]);
    put(p, ".design/tmp/recon-draft.json", {
      schemaVersion: 1, goal: "why do releases break", scope: "src/", contradictions: [],
      interventions: [{ id: "I1", title: "Gate merges", leverageLevel: 5, leverageGroup: "Feedbacks", designGoal: "Gate merges on tests", wrongDirection: "More gates", confidence: "high", effort: "small", supportingFindings: [] }],
    });
    const ranked = await run("recon-rank", [".design/tmp/recon-draft.json"]);
    assert.match(ranked.checkpoint, /phase 4\/5 synthesis, write-and-validate: done/);
    const state = p.json(".design/run-recon.json");
    assert.deepEqual(state.completed.slice(2).map((c: any) => [c.phase, c.outputs, c.decisions]), [
      ["synthesis", [".design/tmp/recon-draft.json"], "1 candidate interventions"],
      ["write-and-validate", [".design/recon.json"], "rank 1: Gate merges"],
    ]);
    await run("run-end", ["recon", "--outcome", "completed", "--eval", ".design/tmp/eval.json"]);
    assert.equal(count(), 7, "recon's cap");
  });

  it("reflect: reflect-metrics records pre-flight and gather, finalize analyse to plan; a finished plan goes to history at run-begin", async (t) => {
    const done = planWith([{ name: "api", status: "completed" }]);
    const lines = [1, 2].map((i) => JSON.stringify({ id: `00000000-0000-4000-8000-00000000000${i}`, timestamp: `2026-11-2${i}T00:00:00Z`, skill: "execute", goal: "g", outcome: "partial", goalAchieved: false, evaluation: { whatWorked: [], whatFailed: ["docs role check failed again"], doNextTime: [] } }));
    const p = project(t, { ".design/plan.json": done, ".design/reflection.jsonl": `${lines.join("\n")}\n` });
    const { run, count } = counter(p);
    const begun = await run("run-begin", ["reflect", "--goal", "execute --min-runs 2"]);
    assert.deepEqual(begun.setAside, ["plan.json"]);
    assert.equal(begun.plan.state, "none");
    const metrics = await run("reflect-metrics", [".design/reflection.jsonl", "--skill", "execute"]);
    assert.match(metrics.checkpoint, /phase 2\/6 pre-flight, gather: done/);
    put(p, ".design/tmp/patterns.md", "| pattern |\n");
    put(p, ".design/tmp/hypotheses.md", "H1\n");
    put(p, ".design/draft/plan.json", planWith(["docs-fixer"]));
    const fin = await run("finalize", [".design/draft/plan.json"]);
    assert.match(fin.checkpoint, /phase 5\/6 analyse, hypotheses, plan: done/);
    assert.deepEqual(p.json(".design/run-reflect.json").completed.slice(2).map((c: any) => c.outputs), [[".design/tmp/patterns.md"], [".design/tmp/hypotheses.md"], [".design/plan.json"]]);
    put(p, ".design/tmp/eval.json", EVAL);
    await run("run-end", ["reflect", "--outcome", "completed", "--eval", ".design/tmp/eval.json", "--goal", "reflect on execute runs"]);
    assert.equal(count(), 4);
  });

  it("improve: expert-validate --scores records pre-flight to analysis with the snapshot, improve-guards cross-review to guards, finalize the rest", async (t) => {
    const p = project(t, { ".claude/skills/greet/SKILL.md": "# Greet\nSay hello.\n", ".design/tmp/eval.json": EVAL });
    const { run } = counter(p);
    const begun = await run("run-begin", ["improve", "--goal", "greet clarity", "--inputs", ".claude/skills/greet/SKILL.md"]);
    assert.equal(begun.action, "start");
    put(p, ".design/skill-snapshot.md", "# Greet\nSay hello.\n");
    put(p, ".design/expert-clarity-analyst.json", ANALYST);
    const v = await run("expert-validate", [".design/expert-clarity-analyst.json", "--waiting", "", "--scores"]);
    assert.match(v.checkpoint, /phase 3\/8 pre-flight, mode, analysis: done/);
    assert.deepEqual(p.json(".design/run-improve.json").completed[0].outputs, [".design/skill-snapshot.md"]);
    const role = { name: "greet-fixer", dirs: [".claude/skills/greet/"], qualityEffects: Object.fromEntries(DIMS.map((d) => [d, d === "protocolClarity" ? 1 : 0])), lineDelta: 1 };
    put(p, ".design/draft/plan.json", planWith([role]));
    const guards = await run("improve-guards", [".design/draft/plan.json", "--analysts", ".design/expert-clarity-analyst.json"]);
    assert.equal(guards.passed, true, JSON.stringify(guards.reasons));
    assert.match(guards.checkpoint, /phase 6\/8 cross-review, synthesis, guards: done/);
    const fin = await run("finalize", [".design/draft/plan.json"]);
    assert.match(fin.checkpoint, /phase 7\/8 finalize: done/);
    await run("run-end", ["improve", "--outcome", "completed", "--eval", ".design/tmp/eval.json"]);
  });

  it("a recording call writes only the run state of the skill whose phase it produced, and nothing without an open run", async (t) => {
    const p = project(t, { ".design/expert-a.json": EXPERT("a") });
    const before = snapshot(p.dir);
    const out = await p.run("expert-validate", [".design/expert-a.json"], { now: T0 });
    assert.equal(out.ok, true);
    assert.equal(out.checkpoint, undefined);
    assert.deepEqual(changed(before, snapshot(p.dir)), [], "no run: nothing written");
    await p.run("run-begin", ["recon", "--goal", "q"], { now: T0 });
    put(p, ".design/expert-a.json", EXPERT("a"));
    const mid = snapshot(p.dir);
    const rec = await p.run("expert-validate", [".design/expert-a.json"], { now: T0 + 1000 });
    assert.match(rec.checkpoint as string, /recon · phase 2\/5 research/);
    assert.deepEqual(changed(mid, snapshot(p.dir)), [".design/run-recon.json"]);
    assert.deepEqual(outsideOwned("expert-validate", "recon", changed(mid, snapshot(p.dir))), []);
  });

  it("a resumed run gets the refs to read first and its decisions from run-begin", async (t) => {
    const p = project(t, {});
    await p.run("run-begin", ["improve", "--goal", "greet"], { now: T0 });
    put(p, ".design/expert-x.json", ANALYST);
    await p.run("expert-validate", [".design/expert-x.json", "--scores"], { now: T0 + 1000 });
    const ask = await p.run("run-begin", ["improve", "--goal", "greet"], { now: T0 + 2000 });
    assert.equal(ask.action, "ask-resume");
    const resumed = await p.run("run-begin", ["improve", "--goal", "greet", "--resume"], { now: T0 + 3000 });
    assert.equal(resumed.action, "resumed");
    assert.deepEqual((resumed.resume as any).refs, ["refs/analyst-briefs.md"]);
    assert.equal((resumed.resume as any).nextPhase, "cross-review");
  });
});
