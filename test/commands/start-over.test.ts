import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project, writeFiles } from "../helpers/design-dir.ts";

import { SKILL_PHASES, type Skill } from "../../src/lib/run-state.ts";

const PHASES = (skill: string) => SKILL_PHASES[skill as Skill].join(",");
const plans: Record<string, unknown> = {
  ready: planWith([{ name: "a", status: "pending" }, { name: "b", status: "pending" }]),
  in_progress: planWith([{ name: "a", status: "completed" }, { name: "b", status: "pending" }]),
  done: planWith([{ name: "a", status: "completed" }, { name: "b", status: "completed" }]),
  invalid: "{ not json",
};

/** A project whose design (or other) run stopped after pre-flight, with the plan in the given state. */
async function stopped(t: any, skill: string, state: string) {
  const p = project(t, state === "none" ? {} : { ".design/plan.json": plans[state] });
  assert.equal((await p.run("run-start", [skill, "--phases", PHASES(skill), "--goal", "Add auth"])).ok, true);
  assert.equal((await p.run("run-checkpoint", [skill, "--phase", "pre-flight"])).ok, true);
  return p;
}

describe("start-over advice", () => {
  for (const skill of ["design", "improve", "reflect"]) {
    for (const [state, archive] of [["none", true], ["done", true], ["ready", false], ["in_progress", false], ["invalid", false]] as const) {
      it(`${skill}: a ${state} plan ${archive ? "may be archived" : "is never archived without asking"}`, async (t) => {
        const p = await stopped(t, skill, state);
        const status = await p.run("run-status", [skill, "--goal", "Add auth"]);
        assert.equal(status.ok, true);
        const so = status.startOver as any;
        assert.deepEqual([so.planState, so.archive, so.ask], [state, archive, !archive]);
        assert.match(so.advice, archive ? /archive \.design, then run-start --fresh/ : /do not archive it now; archive \.design --keep-plan .*run-start --fresh, then ask the user.*archive \.design --include-plan/);
        const digest = await p.run("preflight", [skill]);
        assert.deepEqual((digest.run as any).startOver, so, "preflight and run-status agree");
      });
    }
  }

  it("says how far an in-progress plan got", async (t) => {
    const p = await stopped(t, "design", "in_progress");
    const so = (await p.run("run-status", ["design"])).startOver as any;
    assert.match(so.advice, /^A plan is in progress \(1 of 2 roles completed\)/);
  });

  it("never archives the plan for recon or execute; recon moves only the expert artifacts", async (t) => {
    for (const skill of ["recon", "execute"]) {
      const p = await stopped(t, skill, "done");
      const so = (await p.run("run-status", [skill])).startOver as any;
      assert.deepEqual([so.archive, so.ask], [false, false], skill);
      assert.equal(/archive \.design --only experts/.test(so.advice), skill === "recon", skill);
    }
  });

  for (const state of ["ready", "in_progress", "invalid"] as const) {
    it(`following the advice for a ${state} plan keeps the plan until the user says otherwise`, async (t) => {
      const p = await stopped(t, "design", state);
      writeFiles(p.dir, { ".design/expert-architect.json": "{}", ".design/draft/plan.json": "{}" });
      const before = p.read(".design/plan.json");
      const plain = await p.run("archive", [".design"]);
      assert.deepEqual([plain.code, plain.planState], ["E_INVALID", state]);
      const kept = await p.run("archive", [".design", "--keep-plan"]);
      assert.deepEqual(kept.archived, ["draft", "expert-architect.json"]);
      assert.equal(p.read(".design/plan.json"), before);
      assert.equal((await p.run("run-start", ["design", "--phases", PHASES("design"), "--goal", "Add auth", "--fresh"])).ok, true);
      const yes = await p.run("archive", [".design", "--include-plan"]);
      assert.equal(yes.ok, true, JSON.stringify(yes));
      assert.deepEqual(yes.archived, ["plan.json"]);
      assert.equal(p.exists(".design/plan.json"), false);
    });
  }

  it("leaves preflight without a run unchanged", async (t) => {
    const p = project(t, { ".design/plan.json": plans.in_progress });
    const digest = await p.run("preflight", ["design"]);
    assert.equal(digest.run, null);
    assert.equal((await p.run("run-status", ["design"])).startOver, undefined);
  });
});
