import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

describe("plan-view", () => {
  it("draws every dependency as an edge and colours nodes by status", async (t) => {
    const p = project(t, {
      ".design/plan.json": planWith([
        { name: "api", status: "completed" },
        { name: "web", deps: ["api"], status: "in_progress" },
        { name: "docs", deps: ["api", "web"] },
      ]),
    });
    const out = await p.run("plan-view");
    assert.equal(out.exitCode, 0);
    const graph = out.mermaid as string;
    assert.ok(graph.startsWith("graph TD\n"));
    assert.ok(graph.includes('r0["api<br/>completed"]:::completed'));
    assert.ok(graph.includes("r0 --> r1") && graph.includes("r0 --> r2") && graph.includes("r1 --> r2"));
    assert.ok(graph.includes("classDef completed") && graph.includes("classDef in_progress") && graph.includes("classDef pending"));
    assert.ok(!graph.includes("classDef failed"), "only used statuses get a style");
    assert.deepEqual(out.counts, { completed: 1, in_progress: 1, pending: 1 });
    assert.equal(out.state, "in_progress");
  });

  it("says which roles are ready, running, waiting and retryable", async (t) => {
    const p = project(t, {
      ".design/plan.json": planWith([
        { name: "api", status: "completed" },
        { name: "web", deps: ["api"] },
        { name: "docs", deps: ["web"] },
        { name: "cli", status: "failed", attempts: 1 },
        { name: "old", status: "failed", attempts: 3 },
        { name: "ops", status: "in_progress" },
      ]),
    });
    const out = await p.run("plan-view");
    assert.deepEqual(out.next, [
      { roleIndex: 1, name: "web", state: "ready" },
      { roleIndex: 2, name: "docs", state: "waiting", waitingFor: ["web"] },
      { roleIndex: 3, name: "cli", state: "retryable" },
      { roleIndex: 5, name: "ops", state: "running" },
    ]);
    assert.match(out.markdown as string, /- docs: waits for web/);
  });

  it("lists the last three runs newest first", async (t) => {
    const ev = { whatWorked: [], whatFailed: [], doNextTime: [] };
    const p = project(t, {
      ".design/plan.json": planWith(["a"]),
      ".design/reflection.jsonl": [
        { skill: "design", outcome: "completed", goalAchieved: true, timestamp: "2026-01-01T10:00:00Z", evaluation: ev },
        { skill: "execute", outcome: "failed", goalAchieved: false, timestamp: "2026-01-03T10:00:00Z", evaluation: ev },
        { skill: "reflect", outcome: "partial", goalAchieved: true, timestamp: "2026-01-02T10:00:00Z", evaluation: ev },
        { skill: "recon", outcome: "completed", goalAchieved: true, timestamp: "2025-12-01T10:00:00Z", evaluation: ev },
      ],
    });
    const out = await p.run("plan-view");
    assert.deepEqual(out.lastRuns, [
      "execute: failed (goal not met), 2026-01-03 10:00",
      "reflect: partial (goal met), 2026-01-02 10:00",
      "design: completed (goal met), 2026-01-01 10:00",
    ]);
  });

  it("reports a missing plan with exit 0", async (t) => {
    const out = await project(t).run("plan-view");
    assert.equal(out.exitCode, 0);
    assert.equal(out.state, "none");
    assert.match(out.markdown as string, /run \/do:design/);
  });

  it("reports a broken plan with exit 0", async (t) => {
    const p = project(t, { ".design/plan.json": "{ torn", "x.json": [1] });
    const torn = await p.run("plan-view");
    assert.equal(torn.exitCode, 0);
    assert.equal(torn.state, "invalid");
    const arr = await p.run("plan-view", ["x.json"]);
    assert.equal(arr.state, "invalid");
    assert.match((arr.problems as string[])[0], /top-level value must be an object/);
  });

  it("escapes quotes in role names so the graph stays valid", async (t) => {
    const p = project(t, { ".design/plan.json": planWith(['say "hi"']) });
    const out = await p.run("plan-view");
    assert.ok((out.mermaid as string).includes('r0["say #quot;hi#quot;<br/>pending"]'));
  });
});
