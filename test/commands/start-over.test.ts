import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project, writeFiles } from "../helpers/design-dir.ts";

import { SKILL_PHASES, type Skill } from "../../src/lib/run/run-state.ts";

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
        assert.match(so.advice, archive ? /run-begin --fresh \(it moves the stopped run's recorded outputs to history\)/ : /ask the user first whether to keep it or archive it \(on their yes archive \.design --include-plan; keep it: nothing starts\), then run-begin --fresh/);
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

  it("never archives the plan for recon or execute; recon's run-begin sets only the expert artifacts aside", async (t) => {
    for (const skill of ["recon", "execute"]) {
      const p = await stopped(t, skill, "done");
      const so = (await p.run("run-status", [skill])).startOver as any;
      assert.deepEqual([so.archive, so.ask], [false, false], skill);
      assert.equal(/sets the earlier runs' expert artifacts aside/.test(so.advice), skill === "recon", skill);
    }
  });

  for (const state of ["ready", "in_progress", "invalid"] as const) {
    it(`following the advice for a ${state} plan keeps the plan until the user says otherwise`, async (t) => {
      const p = await stopped(t, "design", state);
      writeFiles(p.dir, { ".design/expert-architect.json": "{}", ".design/draft/plan.json": "{}" });
      const before = p.read(".design/plan.json");
      const plain = await p.run("archive", [".design"]);
      assert.deepEqual([plain.code, plain.planState], ["E_INVALID", state]);
      // A fresh run-begin archives the stopped run and its outputs, but never a plan someone may still want.
      const fresh = await p.run("run-begin", ["design", "--goal", "Add auth", "--fresh"]);
      assert.equal(fresh.action, "start", JSON.stringify(fresh));
      assert.equal(p.read(".design/plan.json"), before);
      const yes = await p.run("archive", [".design", "--include-plan"]);
      assert.equal(yes.ok, true, JSON.stringify(yes));
      assert.ok((yes.archived as string[]).includes("plan.json"), JSON.stringify(yes));
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
