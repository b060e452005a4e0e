// run-checkpoint checks the record a review leaves (src/lib/run/phase-checks.ts): the cross-review's audit trail, the
// user's review of a full-path draft, and the goal review's verdict at execute's verify.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { project, type Project } from "../helpers/design-dir.ts";

const put = (p: Project, rel: string, doc: unknown) => writeFileSync(join(p.dir, rel), JSON.stringify(doc));
import { SKILL_PHASES } from "../../src/lib/run/run-state.ts";

const ARTIFACT = { summary: "s", verificationProperties: [{ property: "p" }] };

/** A run of `skill` with every phase before `phase` checkpointed. */
async function before(p: Project, skill: "design" | "improve" | "execute", phase: string): Promise<void> {
  const phases = SKILL_PHASES[skill];
  assert.equal((await p.run("run-start", [skill, "--phases", phases.join(",")])).ok, true);
  for (const ph of phases.slice(0, phases.indexOf(phase))) {
    const out = await p.run("run-checkpoint", [skill, "--phase", ph]);
    assert.equal(out.ok, true, `${ph}: ${JSON.stringify(out)}`);
  }
}

const checkpoint = (p: Project, skill: string, phase: string, ...args: string[]) => p.run("run-checkpoint", [skill, "--phase", phase, ...args]);

describe("the cross-review's record", () => {
  it("is required once two experts reported, and must show them reviewing each other", async (t) => {
    const p = project(t, { ".design/expert-architect.json": ARTIFACT, ".design/expert-tester.json": ARTIFACT });
    await before(p, "design", "cross-review");
    const skipped: any = await checkpoint(p, "design", "cross-review", "--decisions", "skipped");
    assert.match(skipped.error, /^Cannot checkpoint cross-review: 2 expert artifacts \(architect, tester\): the experts review each other/);
    const bad = (doc: unknown) => {
      put(p, ".design/cross-review.json", doc);
      return checkpoint(p, "design", "cross-review", "--outputs", ".design/cross-review.json");
    };
    const lone: any = await bad({ rounds: 3, participants: ["architect", "ghost"], agreements: [], conflicts: [{ topic: "dates", positions: [{ expert: "architect", claim: "ISO" }], resolution: "later" }] });
    assert.deepEqual(lone.problems.map((x: string) => x.replace(".design/cross-review.json: ", "")), [
      "participants without an artifact (.design/expert-<name>.json): ghost",
      "rounds must be 1 or 2",
      "conflicts[0].positions must give two or more participants' claims",
      "conflicts[0].resolution must be one of agreed, lead-decided, open",
    ]);
    assert.match((await bad({})).error as string, /participants must name two or more experts/);
    const ok: any = await bad({
      rounds: 2, participants: ["architect", "tester"], agreements: ["one store module"],
      conflicts: [{ topic: "dates", positions: [{ expert: "architect", claim: "ISO" }, { expert: "tester", claim: "epoch" }], resolution: "lead-decided", outcome: "ISO" }],
    });
    assert.equal(ok.ok, true, JSON.stringify(ok));
  });

  it("is not asked of a quick run with no experts, and takes improve's disputes", async (t) => {
    const quick = project(t);
    await before(quick, "design", "cross-review");
    assert.equal((await checkpoint(quick, "design", "cross-review", "--decisions", "skipped: quick path")).ok, true);
    const improve = project(t, { ".design/expert-protocol-analyst.json": ARTIFACT, ".design/expert-prompt-engineer.json": ARTIFACT });
    await before(improve, "improve", "cross-review");
    put(improve, ".design/cross-review.json", { rounds: 1, participants: ["protocol-analyst", "prompt-engineer"], agreements: [], disputes: [{ topic: "economy", positions: [{ analyst: "protocol-analyst", claim: "3" }, { analyst: "prompt-engineer", claim: "5" }], resolution: "open" }] });
    const out = await checkpoint(improve, "improve", "cross-review", "--outputs", ".design/cross-review.json");
    assert.equal(out.ok, true, JSON.stringify(out));
  });
});

describe("the draft review", () => {
  it("is recorded for a medium or high draft, not for a quick one", async (t) => {
    for (const [complexity, decisions, ok] of [["medium", "4 roles, specs yes, draft not reviewed", false], ["high", "6 roles, specs yes, draft approved", true], ["low", "1 roles, specs no, draft not reviewed", true]] as const) {
      const p = project(t, { ".design/draft/plan.json": { schemaVersion: 4, complexity, roles: [] } });
      await before(p, "design", "plan");
      const out: any = await checkpoint(p, "design", "plan", "--outputs", ".design/draft/plan.json", "--decisions", decisions);
      assert.equal(out.ok, ok, `${complexity}: ${JSON.stringify(out)}`);
      if (!ok) assert.match(out.error, /a medium draft is reviewed by the user before finalize/);
    }
  });
});

describe("the goal review", () => {
  it("records a verdict at verify, never achieved over the verifier's FAIL", async (t) => {
    const p = project(t, { ".design/integration-verifier-report.json": { status: "FAIL", issues: [] } });
    await before(p, "execute", "verify");
    const none: any = await checkpoint(p, "execute", "verify", "--decisions", "0 fix rounds");
    assert.match(none.error, /the goal review's verdict is missing/);
    const claimed: any = await checkpoint(p, "execute", "verify", "--outputs", ".design/integration-verifier-report.json", "--decisions", "goal achieved, 2 fix rounds");
    assert.match(claimed.error, /recorded achieved while \.design\/integration-verifier-report\.json says FAIL/);
    const honest = await checkpoint(p, "execute", "verify", "--outputs", ".design/integration-verifier-report.json", "--decisions", "goal partial, 2 fix rounds");
    assert.equal(honest.ok, true, JSON.stringify(honest));
  });
});
