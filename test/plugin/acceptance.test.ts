// Each skill's acceptance criteria (skills/<name>/skill.json, seed 004) are asserted by tests that name them,
// `[ac:<skill>/<n>]` (test/helpers/acceptance.ts): the guard below fails on a criterion no test names. Most criteria
// are asserted where the behaviour lives (the command tests, the e2e runs); the tests here assert the ones that are
// about the skills' own files: what their allowed-tools let the lead write, and how each run ends.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { acLinks, acProblems } from "../helpers/acceptance.ts";
import { project } from "../helpers/design-dir.ts";
import { allowedTools, editAllowed, invocations, phaseSections, ROOT, SKILLS, skillFiles } from "./plugin-files.ts";
import { DESIGN_WRITES, DRAFT_WRITES } from "../../src/hooks/permit.ts";

const criteria = Object.fromEntries(SKILLS.map((s) => [s, JSON.parse(readFileSync(join(ROOT, "skills", s, "skill.json"), "utf8")).acceptance_criteria as string[]]));
const skill = (name: string) => skillFiles().find((f) => f.name === name)!;

/** The helper subcommands (with their first positional) the last phase of a skill calls. */
function closingCalls(name: string): string[] {
  const f = skill(name);
  const last = phaseSections(f).at(-1)!;
  return invocations(f).filter((i) => i.line >= last.line && i.line <= last.endLine).map((i) => [i.command ?? "", ...i.argv].join(" "));
}

/** Whether a skill's last phase closes its run the way the criterion says: reflection and closed state, or run-end. */
function closes(name: string): boolean {
  const calls = closingCalls(name);
  const old = calls.some((c) => c.startsWith("reflection-add") && c.includes(`--skill ${name}`)) && calls.some((c) => c.startsWith(`run-complete ${name}`));
  return old || calls.some((c) => c.startsWith(`run-end ${name}`));
}

describe("acceptance criteria", () => {
  it("are each asserted by a test that names it, and every criterion a test names exists", (t) => {
    const { links, strays } = acLinks(ROOT);
    assert.deepEqual(acProblems(criteria, links, strays), []);
    t.diagnostic(`${links.length} links from ${new Set(links.map((l) => l.file)).size} test files to ${Object.values(criteria).flat().length} criteria`);
  });

  it("the guard names a criterion left untested and a tag naming none", () => {
    const problems = acProblems({ recon: ["a", "b"] }, [{ file: "x.test.ts", title: "t", skill: "recon", n: 1 }, { file: "y.test.ts", title: "u", skill: "recon", n: 3 }], [{ file: "z.test.ts", count: 1 }]);
    assert.deepEqual(problems, [
      `recon/2 ("b"): no test asserts it (name it in a test's title as [${"ac"}:recon/2])`,
      "y.test.ts: u names recon/3, which skills/recon/skill.json does not hold",
      "z.test.ts: 1 criterion tag(s) outside a test title",
    ]);
  });
});

describe("what the skills let the lead write", () => {
  it("no design rule lets the lead write .design/plan.json or .design/specs/, and the hook approves neither [ac:design/1]", () => {
    for (const f of skillFiles()) {
      const rules = allowedTools(f.data);
      for (const path of [".design/plan.json", ".design/specs/spec-api.sh"]) assert.equal(editAllowed(rules, path), false, `${f.rel}: ${path}`);
    }
    for (const name of ["plan.json", "specs/spec-api.sh", "grant.json", "run-design.json"]) assert.ok(![...DESIGN_WRITES, ...DRAFT_WRITES].some((re) => re.test(name)), name);
    assert.ok(invocations(skill("design")).some((i) => i.command === "finalize" && i.argv[0] === ".design/draft/plan.json"), "design installs through finalize");
  });

  it("improve's rules let the lead edit nothing outside .design/: not the target skill, not a project file [ac:improve/1]", () => {
    const rules = allowedTools(skill("improve").data);
    for (const path of ["skills/greet/SKILL.md", ".claude/skills/greet/SKILL.md", "src/index.ts", "README.md"]) assert.equal(editAllowed(rules, path), false, path);
    assert.ok(rules.filter((r) => /^(Edit|Write)\(/.test(r)).every((r) => /^(Edit|Write)\(\.design\//.test(r)), rules.join(", "));
  });
});

describe("recon's contradictions", () => {
  it("are recorded for the user, never settled: recon.json must carry them, and design's tier counts them as open [ac:recon/3]", async (t) => {
    const recon = (extra: Record<string, unknown>) => ({
      schemaVersion: 1, goal: "g", scope: "the todo store",
      interventions: [{ title: "Add due dates to the todo store", designGoal: "add due dates to the todo store", leverage: "high", authorityRequired: "none" }],
      ...extra,
    });
    const missing = await project(t, { ".design/recon.json": recon({}) }).run("recon-validate");
    assert.equal(missing.error, "Missing required fields: contradictions");
    const open = project(t, { ".design/recon.json": recon({ contradictions: [{ between: ["CA-1", "ER-2"], about: "where dates are stored" }] }) });
    const tier: any = await open.run("design-tier", ["--goal", "add due dates to the todo store"]);
    assert.equal(tier.complexity, "medium");
    assert.ok(tier.signals.some((s: string) => /researchers disagree on this goal \(1 open question\)/.test(s)), tier.signals.join("; "));
  });
});

describe("how each run ends", () => {
  it("design's last phase adds its reflection and closes the run, and a stopped run closes as partial or aborted [ac:design/5]", async (t) => {
    assert.ok(closes("design"), closingCalls("design").join(" | "));
    const p = project(t);
    await p.run("run-start", ["design", "--phases", "pre-flight,experts,cross-review,plan,finalize,reflect-and-report"]);
    const out = await p.run("run-complete", ["design", "--outcome", "aborted"]);
    assert.deepEqual([out.ok, out.outcome, out.skippedPhases], [true, "aborted", ["pre-flight", "experts", "cross-review", "plan", "finalize"]]);
  });

  it("recon's last phase adds its reflection and closes the run [ac:recon/4]", () => {
    assert.ok(closes("recon"), closingCalls("recon").join(" | "));
  });

  it("improve's last phase adds its reflection and closes the run [ac:improve/4]", () => {
    assert.ok(closes("improve"), closingCalls("improve").join(" | "));
  });

  it("reflect's last phase adds its reflection and closes the run [ac:reflect/4]", () => {
    assert.ok(closes("reflect"), closingCalls("reflect").join(" | "));
  });

  it("reflect's run-end checks the evaluation and records one reflection per run [ac:reflect/4]", async (t) => {
    const p = project(t, { ".design/tmp/eval.json": JSON.stringify({ summary: "nothing to learn yet", whatWorked: [] }) });
    const begun: any = await p.run("run-begin", ["reflect", "--goal", "reflect on execute runs"]);
    assert.equal(begun.ok, true, JSON.stringify(begun));
    const args = ["reflect", "--outcome", "aborted", "--eval", ".design/tmp/eval.json"];
    const out: any = await p.run("run-end", args);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.ok((out.reflection.warnings as string[]).some((w) => /whatFailed/.test(w)), JSON.stringify(out));
    const again: any = await p.run("run-end", args);
    assert.equal(again.alreadyClosed, true, JSON.stringify(again));
    assert.equal(p.read(".design/reflection.jsonl").trim().split("\n").length, 1);
  });

  it("execute's last phase is run-end, which an aborted run reaches too [ac:execute/6]", async (t) => {
    assert.deepEqual(closingCalls("execute").filter((c) => c.startsWith("run-end")).length > 0, true, closingCalls("execute").join(" | "));
    const p = project(t);
    await p.run("run-start", ["execute", "--phases", "pre-flight,challenge,grant,workers,verify,learn,close"]);
    const out: any = await p.run("run-end", ["execute", "--outcome", "aborted"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal(p.json(".design/run-execute.json").outcome, "aborted");
    assert.equal(out.reflection.goalAchieved, false);
  });
});
