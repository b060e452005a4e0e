import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

describe("plan-health-summary", () => {
  it("gives empty context when the directory does not exist", async (t) => {
    const out = await project(t).run("plan-health-summary");
    assert.deepEqual(out, { ok: true, handoff: "", reflections: [], plan: "", exitCode: 0 });
  });

  it("shows the first 5 non-blank handoff lines, trimmed", async (t) => {
    const p = project(t, { ".design/handoff.md": "# Handoff\n\n  one  \r\ntwo\n\n\nthree\nfour\nfive\nsix\n" });
    assert.equal((await p.run("plan-health-summary")).handoff, "# Handoff\none\ntwo\nthree\nfour");
  });

  it("shows the two newest reflections, stable for equal timestamps", async (t) => {
    const p = project(t, {
      ".design/reflection.jsonl":
        [
          { skill: "design", outcome: "completed", goalAchieved: true, timestamp: "2026-01-01T00:00:00Z" },
          { skill: "execute", outcome: "partial", goalAchieved: false, timestamp: "2026-01-03T00:00:00Z" },
          { skill: "recon", outcome: "completed", goalAchieved: 1, timestamp: "2026-01-02T00:00:00Z" },
          { skill: "reflect", outcome: "completed", goalAchieved: true, timestamp: "2026-01-02T00:00:00Z" },
        ].map((e) => JSON.stringify(e)).join("\n") + "\nnot json\n[1]\n",
    });
    assert.deepEqual((await p.run("plan-health-summary")).reflections, ["execute: partial (failed)", "recon: completed (succeeded)"]);
  });

  it("defaults skill and outcome to unknown and reads an empty goalAchieved as failed", async (t) => {
    const p = project(t, { ".design/reflection.jsonl": [{ goalAchieved: [] }] });
    assert.deepEqual((await p.run("plan-health-summary")).reflections, ["unknown: unknown (failed)"]);
  });

  it("counts completed roles of the plan", async (t) => {
    const p = project(t, {
      ".design/plan.json": planWith([{ name: "a", status: "completed" }, { name: "b", status: "failed" }, "c"]),
      "d/plan.json": { schemaVersion: 4 },
    });
    assert.equal((await p.run("plan-health-summary")).plan, "Current plan: 1/3 roles completed");
    assert.equal((await p.run("plan-health-summary", ["d"])).plan, "Current plan: 0/0 roles completed");
  });

  it("says the plan cannot be read when it is broken, without failing", async (t) => {
    for (const content of ["{", [1], { roles: "x" }, { roles: null }]) {
      const out = await project(t, { ".design/plan.json": content }).run("plan-health-summary");
      assert.equal(out.ok, true);
      assert.equal(out.plan, "Plan file exists but cannot be read");
    }
  });

  it("takes the directory as an argument", async (t) => {
    const p = project(t, { "other/handoff.md": "hello" });
    assert.equal((await p.run("plan-health-summary", ["other"])).handoff, "hello");
  });
});
