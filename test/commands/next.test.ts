import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

const P = ".design/plan.json";
/** A retry's reflexion, the three parts update-status requires on its in_progress update. */
const REFLEXION = { rootCause: "The check ran before the build", wrongAssumptions: "The brief assumed a built tree", alternative: "Build first, then run the check" };

describe("next", () => {
  it("answers the roles to start with tier, agent, report path and the dependencies' reports [feature:execute/helper-schedules]", async (t) => {
    const p = project(t, {
      [P]: planWith([
        { name: "api", model: "haiku", status: "completed", attemptLog: [{ attempt: 1, model: "haiku", agent: "api", outcome: "completed" }] },
        { name: "ui", model: "haiku", deps: ["api"], status: "failed", attempts: 1 },
        { name: "docs", deps: ["ui"], status: "skipped" },
      ]),
      ".design/worker-api.json": { role: "api" },
    });
    const out = await p.run("next");
    assert.equal(out.ok, true);
    assert.equal(out.done, false);
    assert.deepEqual(out.start, [
      {
        roleIndex: 1, name: "ui", agent: "ui--2", model: "sonnet", attempt: 2, retry: true, from: "failed", previousModel: null, replaces: null,
        reportPath: ".design/worker-ui--2.json",
        dependencies: [{ roleIndex: 0, name: "api", agent: "api", reportPath: ".design/worker-api.json", reportExists: true }],
        recorded: false,
        memories: [],
        brief: ".design/briefs/ui--2.md",
        failure: { attempt: 1, outcome: "failed", result: null, report: null, reportExists: false, reflexion: "required: rootCause, wrongAssumptions, alternative on the in_progress update", earlier: [] },
      },
    ]);
    assert.equal((out as any).warnings?.[0], "memories: no memory file (.design/memory.jsonl) yet; the starts carry none");
    assert.deepEqual(out.waiting, [{ roleIndex: 2, name: "docs", on: [{ roleIndex: 1, name: "ui", kind: "dependency" }] }]);
    assert.deepEqual(out.counts, { pending: 0, in_progress: 0, completed: 1, failed: 1, skipped: 1, blocked: 0 });
  });

  it("writes each start's brief as one small file: its role, scope, checks, spec and what its dependencies' reports hand on (issue 30)", async (t) => {
    const plan = planWith([
      { name: "api", status: "completed", result: "api done", attemptLog: [{ attempt: 1, model: "sonnet", agent: "api", outcome: "completed" }] },
      { name: "ui", deps: ["api"], dirs: ["src/ui/"], constraints: ["Keep the CSS"], acceptanceCriteria: [{ criterion: "ui tests pass", check: "npm test -- ui" }] },
      { name: "cli", deps: ["api"], dirs: ["src/cli/"] },
    ], { verificationSpecs: [{ role: "ui", path: ".design/specs/spec-ui.sh", runCommand: "bash .design/specs/spec-ui.sh" }] });
    const p = project(t, {
      [P]: plan,
      ".design/worker-api.json": { role: "api", contextForDependents: "GET /todos returns dueDate as ISO text", keyDecisions: ["ISO 8601 dates"] },
    });
    const out: any = await p.run("next");
    assert.deepEqual(out.start.map((s: any) => s.brief), [".design/briefs/ui.md", ".design/briefs/cli.md"]);
    const ui = p.read(".design/briefs/ui.md");
    for (const line of [
      'You are ui, the worker for role 1 ("ui"), attempt 1, model sonnet.',
      "Report path: .design/worker-ui.json",
      "directories: src/ui/",
      "- Keep the CSS",
      "- ui tests pass\n  check (run exactly this): npm test -- ui",
      "- .design/specs/spec-ui.sh: run exactly `bash .design/specs/spec-ui.sh`",
      "- api (.design/worker-api.json):\n  context: GET /todos returns dueDate as ISO text\n  key decisions: ISO 8601 dates",
      "- first attempt",
    ]) assert.ok(ui.includes(line), `${line} missing from:\n${ui}`);
    // Another role's brief holds no trace of ui's: the worker reads only its own.
    assert.ok(!p.read(".design/briefs/cli.md").includes("Keep the CSS"));
    // A start that is not a file name gets no brief (and next still answers).
    assert.deepEqual(p.list(".design/briefs"), ["cli.md", "ui.md"]);
  });

  it("says done with the reason when nothing can move [feature:execute/helper-schedules]", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "a", dirs: ["src/"], status: "failed", attempts: 3 }, { name: "b", dirs: ["src/"], status: "completed" }]) });
    const out = await p.run("next");
    assert.equal(out.done, true);
    assert.equal(out.reason, "nothing can move: 1/2 completed; a failed for good (3 attempts used)");
    assert.deepEqual(out.failedForGood, [{ roleIndex: 0, name: "a", reason: "3 attempts used" }]);
  });

  it("marks a dependency report that is missing", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "a", status: "completed" }, { name: "b", deps: ["a"] }]) });
    const out: any = await p.run("next");
    assert.deepEqual(out.start[0].dependencies, [{ roleIndex: 0, name: "a", agent: "a", reportPath: ".design/worker-a.json", reportExists: false }]);
  });

  it("records only in .design/plan.json: another plan path is refused and left as it was", async (t) => {
    const p = project(t, { "x/plan.json": planWith(["a"]), ".design/draft/plan.json": planWith(["a"]) });
    for (const path of ["x/plan.json", ".design/draft/plan.json"]) {
      const before = p.read(path);
      const out: any = await p.run("next", [path]);
      assert.equal(out.code, "E_PATH", JSON.stringify(out));
      assert.equal(p.read(path), before);
    }
  });

  it("fails on a missing or malformed plan, writing nothing", async (t) => {
    const p = project(t);
    assert.deepEqual(await p.run("next"), { ok: false, error: "Plan file not found: .design/plan.json", code: "E_NOT_FOUND", exitCode: 1 });
    for (const [text, code] of [["[1]", "E_SCHEMA"], ["{", "E_JSON"], [JSON.stringify({ ...planWith(["a"]), schemaVersion: 3 }), "E_SCHEMA"]]) {
      const q = project(t, { [P]: text });
      assert.equal((await q.run("next")).code, code, text);
      assert.equal(q.read(P), text);
    }
  });
});

describe("update-status: attempts, tiers and retries", () => {
  it("logs each attempt's tier and agent, marks a stall, and retries a failed role directly [feature:execute/retry-one-tier-up]", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "a", model: "haiku", status: "pending" }, { name: "b", deps: ["a"], status: "pending" }]) });
    const T = Date.UTC(2026, 0, 2, 3, 4, 5);
    const run = (u: unknown[]) => p.run("update-status", [], { stdin: JSON.stringify(u), now: T });
    await run([{ roleIndex: 0, status: "in_progress" }]);
    const failed: any = await run([{ roleIndex: 0, status: "failed", stalled: true, result: "stalled" }]);
    assert.deepEqual(failed.cascaded, [{ roleIndex: 1, name: "b", status: "skipped", reason: "dependency on failed/blocked role 0 (a)" }]);
    const retried: any = await run([{ roleIndex: 0, status: "in_progress", reflexion: REFLEXION }]);
    assert.deepEqual(retried.restored, [{ roleIndex: 1, name: "b", status: "pending" }]);
    const role = p.json(P).roles[0];
    assert.deepEqual(role.attemptLog, [
      { attempt: 1, model: "haiku", agent: "a", outcome: "stalled", startedAt: "2026-01-02T03:04:05Z", endedAt: "2026-01-02T03:04:05Z", result: "stalled" },
      { attempt: 2, model: "sonnet", agent: "a--2", outcome: "running", reflexion: REFLEXION, startedAt: "2026-01-02T03:04:05Z" },
    ]);
    assert.equal(role.attempts, 1);
  });

  it("takes the model and agent the lead gives", async (t) => {
    const p = project(t, { [P]: planWith(["a"]) });
    await p.run("update-status", [], { stdin: '[{"roleIndex":0,"status":"in_progress","model":"opus","agent":"a-special"}]', now: Date.UTC(2026, 0, 2) });
    assert.deepEqual(p.json(P).roles[0].attemptLog, [
      { attempt: 1, model: "opus", agent: "a-special", outcome: "running", startedAt: "2026-01-02T00:00:00Z", escalated: { from: "sonnet", reason: "started above the scheduler's tier by the lead" } },
    ]);
  });

  it("refuses malformed model, agent or stalled fields and writes nothing", async (t) => {
    const p = project(t, { [P]: planWith(["a"]) });
    const before = p.read(P);
    for (const [u, msg] of [
      [{ roleIndex: 0, status: "in_progress", model: 3 }, "Update 0: model must be a non-empty string"],
      [{ roleIndex: 0, status: "in_progress", agent: "" }, "Update 0: agent must be a non-empty string"],
      [{ roleIndex: 0, status: "in_progress", stalled: "yes" }, "Update 0: stalled must be a boolean"],
    ] as const) {
      const out = await p.run("update-status", [], { stdin: JSON.stringify([u]) });
      assert.deepEqual([out.code, out.error], ["E_SCHEMA", msg]);
    }
    assert.equal(p.read(P), before);
  });

  it("refuses a direct retry once the budget is spent", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "a", status: "failed", attempts: 3 }]) });
    const out = await p.run("update-status", [], { stdin: '[{"roleIndex":0,"status":"in_progress"}]' });
    assert.equal(out.code, "E_TRANSITION");
    assert.equal(out.error, "Role 0 (a): Invalid transition: failed -> in_progress (no retry left: 3 attempts used). Allowed: pending");
  });
});

describe("reflexion before a retry", () => {
  const failedOnce = () =>
    planWith([
      {
        name: "api", model: "haiku", status: "failed", attempts: 1, result: "failed: the orders test timed out",
        attemptLog: [{ attempt: 1, model: "haiku", agent: "api", outcome: "failed" }],
      },
      { name: "ui", deps: ["api"], status: "skipped" },
    ]);

  it("next gives the previous attempt's failure to reflect on [feature:execute/reflexion-before-retry]", async (t) => {
    const p = project(t, { [P]: failedOnce(), ".design/worker-api.json": { role: "api", achieved: false } });
    const out: any = await p.run("next");
    assert.deepEqual(out.start[0].failure, {
      attempt: 1, outcome: "failed", result: "failed: the orders test timed out", report: ".design/worker-api.json", reportExists: true,
      reflexion: "required: rootCause, wrongAssumptions, alternative on the in_progress update",
      earlier: [{ attempt: 1, model: "haiku", agent: "api", outcome: "failed" }],
    });
  });

  it("refuses a retry without a reflexion of the three parts, and writes nothing [feature:execute/reflexion-before-retry]", async (t) => {
    const p = project(t, { [P]: failedOnce() });
    const before = p.read(P);
    const start = { roleIndex: 0, status: "in_progress", model: "sonnet", agent: "api--2" };
    const none = await p.run("update-status", [], { stdin: JSON.stringify([start]) });
    assert.equal(none.code, "E_INVALID");
    assert.equal(none.error, 'Update 0: Role 0 (api): a retry needs a reflexion before it starts: {"rootCause", "wrongAssumptions", "alternative"} on this in_progress update (the previous attempt 1 ended failed: failed: the orders test timed out)');
    const thin = await p.run("update-status", [], { stdin: JSON.stringify([{ ...start, reflexion: { rootCause: "timeout", wrongAssumptions: "The brief assumed a fast database", alternative: "The brief assumed a fast database" } }]) });
    assert.equal(thin.code, "E_SCHEMA");
    assert.equal(thin.error, "Update 0: reflexion.rootCause must say it in at least 10 characters; reflexion.alternative repeats reflexion.wrongAssumptions");
    assert.equal((await p.run("update-status", [], { stdin: JSON.stringify([{ ...start, reflexion: "think harder" }]) })).code, "E_SCHEMA");
    // failed -> pending -> in_progress is a retry too: it cannot get around the reflexion.
    const around = await p.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: 0, status: "pending" }, start]) });
    assert.equal(around.code, "E_INVALID");
    assert.equal(p.read(P), before);
  });

  it("keeps the reflexion on the attempt it starts, and refuses one on a first start [feature:execute/reflexion-before-retry]", async (t) => {
    const p = project(t, { [P]: failedOnce() });
    const out = await p.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", model: "sonnet", agent: "api--2", reflexion: { ...REFLEXION, rootCause: `  ${REFLEXION.rootCause}  ` } }]) });
    assert.equal(out.ok, true, JSON.stringify(out));
    const role = p.json(P).roles[0];
    const { startedAt, ...entry } = role.attemptLog[1];
    assert.match(startedAt, /^\d{4}-\d\d-\d\dT/, "update-status stamps the start");
    assert.deepEqual(entry, { attempt: 2, model: "sonnet", agent: "api--2", outcome: "running", reflexion: REFLEXION });
    assert.equal(role.result, "failed: the orders test timed out", "the failure stays the result");
    const fresh = project(t, { [P]: planWith(["a"]) });
    const first = await fresh.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", reflexion: REFLEXION }]) });
    assert.deepEqual([first.code, first.error], ["E_SCHEMA", "Update 0: Role 0 (a): a reflexion goes only with the start of a retry"]);
    // A role with no retry left is refused by the state machine, not asked for a reflexion.
    const spent = project(t, { [P]: planWith([{ name: "a", status: "failed", attempts: 3 }]) });
    assert.equal((await spent.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress" }]) })).code, "E_TRANSITION");
  });
});
