// `next` records the starts it hands out (issue 24): each first start is recorded in plan.json under the lock as
// update-status would (in_progress, model, agent, an attempt with `startedAt`), a second call reports it under
// `running` and never starts it twice, a retry is handed out unrecorded so its reflexion gate holds, each start
// carries its memories (also after a resume), and a running attempt is judged stalled by the clock against the
// plan's `stallMinutes`. update-status takes the lead's old start call for a recorded attempt as a no-op.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planWith, project, withEvidence } from "../helpers/design-dir.ts";
import { matchesPlanSchema } from "../../src/schemas/plan-check.ts";
import { PlanSchema } from "../../src/schemas/plan.ts";

const P = ".design/plan.json";
const MEM = ".design/memory.jsonl";
const T = Date.UTC(2026, 2, 3, 10, 0, 0);
const MIN = 60_000;
const RUN = { schemaVersion: 1, skill: "execute", runId: "run-7", startedAt: "2026-03-03T09:00:00Z", completedAt: null };
const REFLEXION = { rootCause: "The check ran before the build", wrongAssumptions: "The brief assumed a built tree", alternative: "Build first, then run the check" };
const R3 = { rootCause: "The fixture data was stale", wrongAssumptions: "The brief assumed a fresh database", alternative: "Seed the database before the tests" };

const memory = (id: string, category: string, keywords: string[], content: string, importance = 8) => ({
  id, timestamp: "2026-03-01T00:00:00Z", category, keywords, content, source: "execute", goal_context: "", importance, usage_count: 0,
});

describe("next records the starts it hands out [feature:execute/helper-schedules]", () => {
  it("records each first start in plan.json as update-status would, and says so", async (t) => {
    const p = project(t, { [P]: planWith(["api", "ui", { name: "docs", deps: ["api"] }]), ".design/run-execute.json": RUN });
    const out: any = await p.run("next", [], { now: T });
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual(out.start.map((s: any) => [s.name, s.agent, s.model, s.recorded, s.startedAt]), [
      ["api", "api", "sonnet", true, "2026-03-03T10:00:00Z"],
      ["ui", "ui", "sonnet", true, "2026-03-03T10:00:00Z"],
    ]);
    assert.deepEqual(out.running, [], "the starts recorded now are in start, not in running");
    assert.deepEqual(out.counts, { pending: 1, in_progress: 2, completed: 0, failed: 0, skipped: 0, blocked: 0 }, "counted as the plan now stands");
    const roles = p.json(P).roles;
    assert.deepEqual(roles.map((r: any) => r.status ?? "pending"), ["in_progress", "in_progress", "pending"]);
    assert.deepEqual(roles[0].attemptLog, [{ attempt: 1, model: "sonnet", agent: "api", outcome: "running", startedAt: "2026-03-03T10:00:00Z", runId: "run-7" }]);
  });

  it("never starts a role twice: a second call reports it under running and changes nothing", async (t) => {
    const p = project(t, { [P]: planWith(["api", { name: "docs", deps: ["api"] }]) });
    await p.run("next", [], { now: T });
    const after = p.read(P);
    const again: any = await p.run("next", [], { now: T + 5 * MIN });
    assert.deepEqual(again.start, []);
    assert.deepEqual(again.running, [
      { roleIndex: 0, name: "api", agent: "api", model: "sonnet", attempt: 1, reportPath: ".design/worker-api.json", startedAt: "2026-03-03T10:00:00Z", elapsedMs: 5 * MIN, stalled: false },
    ]);
    assert.deepEqual([again.done, again.stalled], [false, []]);
    assert.equal(p.read(P), after, "nothing to record: the file is left byte for byte");
  });

  it("hands a retry out unrecorded: its start still needs the lead's reflexion", async (t) => {
    const failed = { name: "api", model: "haiku", status: "failed", attempts: 1, result: "failed: timeout", attemptLog: [{ attempt: 1, model: "haiku", agent: "api", outcome: "failed" }] };
    const p = project(t, { [P]: planWith([failed, "ui"]) });
    const out: any = await p.run("next", [], { now: T });
    const retry = out.start.find((s: any) => s.name === "api");
    assert.deepEqual([retry.retry, retry.recorded, retry.agent, retry.model, "startedAt" in retry], [true, false, "api--2", "sonnet", false]);
    assert.equal(out.start.find((s: any) => s.name === "ui").recorded, true);
    assert.equal(p.json(P).roles[0].status, "failed", "the retry is not recorded");
    const bare = await p.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", model: retry.model, agent: retry.agent }]) });
    assert.equal(bare.code, "E_INVALID", "the seed's gate: a retry needs its reflexion");
    const started: any = await p.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", model: retry.model, agent: retry.agent, reflexion: REFLEXION }]), now: T });
    assert.equal(started.ok, true, JSON.stringify(started));
    const again: any = await p.run("next", [], { now: T + MIN });
    assert.deepEqual(again.start, []);
    assert.deepEqual(again.running.map((r: any) => [r.agent, r.attempt, r.elapsedMs]), [["api--2", 2, MIN], ["ui", 1, MIN]]);
  });

  it("leaves a start the budget holds back unrecorded", async (t) => {
    const history = {
      ".design/history/20260101T000000Z/plan.json": (() => {
        const old: any = planWith(["x"]);
        old.roles[0].status = "completed";
        old.roles[0].attemptLog = [{ attempt: 1, model: "sonnet", agent: "x", outcome: "completed", runId: "old", usage: { tokens: 1000 } }];
        return old;
      })(),
    };
    const p = project(t, { [P]: planWith(["a", "b"], { context: { tokenBudget: 1500 } }), ".design/run-execute.json": RUN, ...history });
    const out: any = await p.run("next", [], { now: T });
    assert.deepEqual(out.start.map((s: any) => [s.name, s.recorded]), [["a", true]]);
    assert.deepEqual(out.waiting.map((w: any) => [w.name, w.on[0].kind]), [["b", "budget"]]);
    assert.deepEqual(p.json(P).roles.map((r: any) => r.status ?? "pending"), ["in_progress", "pending"]);
  });

  it("leaves the workflow path to its own scheduler: compiling records nothing, and a recorded start holds it", async (t) => {
    const p = project(t, { [P]: planWith(["api", "ui"]) });
    const before = p.read(P);
    const compiled: any = await p.run("workflow");
    assert.deepEqual([compiled.ok, compiled.startsNow.map((s: any) => s.agent)], [true, ["api", "ui"]]);
    assert.equal(p.read(P), before, "the workflow's script records its starts only when the lead replays them");
    await p.run("next", [], { now: T });
    const held: any = await p.run("workflow");
    assert.equal(held.code, "E_INVALID", "roles next started are running: no second start through the workflow");
  });

  it("records nothing while the challenger's blocking issues are open", async (t) => {
    const report = { issues: [{ category: "missing-dependency", severity: "blocking", description: "api reads a table no role creates", affectedRoles: ["api"], recommendation: "Order them" }], summary: "One blocking issue" };
    const p = project(t, { [P]: planWith(["api"]), ".design/challenger-report.json": report });
    const before = p.read(P);
    const out: any = await p.run("next", [], { now: T });
    assert.equal(out.code, "E_INVALID", JSON.stringify(out));
    assert.equal(p.read(P), before);
  });
});

describe("update-status takes a recorded start again as a no-op", () => {
  it("answers alreadyRecorded for the same start, refuses a different one, and writes nothing [feature:execute/helper-schedules]", async (t) => {
    const p = project(t, { [P]: planWith(["api"]) });
    const d: any = await p.run("next", [], { now: T });
    const after = p.read(P);
    const s = d.start[0];
    for (const u of [{ model: s.model, agent: s.agent }, {}, { agent: s.agent }]) {
      const out: any = await p.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", ...u }]), now: T + MIN });
      assert.equal(out.ok, true, JSON.stringify(out));
      assert.deepEqual([out.alreadyRecorded, out.alreadyRecordedRoles, out.updated], [true, [0], []]);
    }
    assert.equal(p.read(P), after, "the attempt keeps its start time");
    for (const [u, names] of [[{ agent: "api--2" }, "agent api--2"], [{ model: "opus" }, "model opus"]] as const) {
      const out: any = await p.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", ...u }]) });
      assert.equal(out.code, "E_TRANSITION");
      assert.equal(out.error, `Role 0 (api): attempt 1 is already recorded as started (agent api, model sonnet); this start names ${names}. Record that attempt's outcome first`);
    }
    assert.equal(p.read(P), after);
    // A reflexion repeated with its recorded retry start is the same start; another one is not.
    const failed = { name: "a", status: "failed", attempts: 1, attemptLog: [{ attempt: 1, model: "sonnet", agent: "a", outcome: "failed" }] };
    const q = project(t, { [P]: planWith([failed]) });
    const retry = [{ roleIndex: 0, status: "in_progress", model: "opus", agent: "a--2", reflexion: REFLEXION }];
    assert.equal((await q.run("update-status", [], { stdin: JSON.stringify(retry) })).ok, true);
    const same: any = await q.run("update-status", [], { stdin: JSON.stringify(retry) });
    assert.equal(same.alreadyRecorded, true, JSON.stringify(same));
    const other: any = await q.run("update-status", [], { stdin: JSON.stringify([{ ...retry[0], reflexion: R3 }]) });
    assert.equal(other.code, "E_TRANSITION");
  });
});

describe("next hands each start its memories", () => {
  const memories = [
    memory("m-api-1", "pattern", ["api", "pagination"], "Paginate every list endpoint of the api"),
    memory("m-api-2", "mistake", ["api", "auth"], "The api auth middleware must run before the router", 9),
    memory("m-ui-1", "convention", ["ui", "components"], "UI components live in src/ui/components, one per file"),
    memory("m-api-3", "failure", ["api"], "The api orders test needs the database seeded", 6),
    memory("m-api-4", "approach", ["api"], "Split the api handlers by resource", 3),
    memory("m-other", "pattern", ["deploy"], "Deploy with the blue-green script"),
  ];

  it("gives each start at most three memories for its goal and scope, best first", async (t) => {
    const plan = planWith([
      { name: "api", goal: "Build the api endpoints", dirs: ["src/api/"] },
      { name: "ui", goal: "Build the ui components", dirs: ["src/ui/"] },
    ]);
    const p = project(t, { [P]: plan, [MEM]: memories });
    const out: any = await p.run("next", [], { now: T });
    const by = Object.fromEntries(out.start.map((s: any) => [s.name, s.memories]));
    // api: two of its words (api, endpoint) first, then one word by importance; the ui memory shares only `src`.
    assert.deepEqual(by.api.map((m: any) => m.id), ["m-api-1", "m-api-2", "m-api-3"]);
    assert.deepEqual(by.api[1], { id: "m-api-2", category: "mistake", content: "The api auth middleware must run before the router" });
    assert.deepEqual(by.ui.map((m: any) => m.id), ["m-ui-1"]);
    assert.equal(out.warnings, undefined);
  });

  it("gives the memories again to the starts after a resume [ac:execute/5]", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "api", goal: "Build the api endpoints", dirs: ["src/api/"] }]), [MEM]: memories });
    const first: any = await p.run("next", [], { now: T });
    assert.equal(first.start[0].memories.length, 3);
    // The session is lost: resume-reset closes the attempt as interrupted and the next start is a first start again.
    assert.equal((await p.run("resume-reset")).ok, true);
    const resumed: any = await p.run("next", [], { now: T + 60 * MIN });
    assert.deepEqual(resumed.start.map((s: any) => [s.agent, s.attempt, s.recorded, s.retry]), [["api--2", 2, true, false]]);
    assert.deepEqual(resumed.start[0].memories, first.start[0].memories);
  });

  it("gives the workflow the same memories per role when the lead chose none", async (t) => {
    const plan = planWith([
      { name: "api", goal: "Build the api endpoints", dirs: ["src/api/"] },
      { name: "ui", goal: "Build the ui components", dirs: ["src/ui/"] },
    ]);
    const p = project(t, { [P]: plan, [MEM]: memories });
    const out: any = await p.run("workflow", [], { now: T });
    assert.deepEqual([out.ok, out.memories, out.warnings], [true, 4, undefined]);
    const script = p.read(".design/workflow.js");
    const data = JSON.parse(/const PLAN = (.*);\n/.exec(script)![1]);
    assert.deepEqual(data.memories, {
      0: ["Paginate every list endpoint of the api", "The api auth middleware must run before the router", "The api orders test needs the database seeded"],
      1: ["UI components live in src/ui/components, one per file"],
    });
    const chosen = project(t, { [P]: plan, [MEM]: memories, ".design/tmp/memories.json": { ui: ["Use the design tokens"] } });
    assert.equal((await chosen.run("workflow", ["--memories", ".design/tmp/memories.json"])).ok, true);
    assert.deepEqual(JSON.parse(/const PLAN = (.*);\n/.exec(chosen.read(".design/workflow.js"))![1]).memories, { 1: ["Use the design tokens"] }, "the lead's choice wins");
  });

  it("answers without memories and with a warning when the memory file is missing, broken or outside the project", async (t) => {
    const plan = planWith([{ name: "api", goal: "Build the api endpoints" }]);
    const none: any = await project(t, { [P]: plan }).run("next", [], { now: T });
    assert.deepEqual([none.ok, none.start[0].memories, none.warnings], [true, [], ["memories: no memory file (.design/memory.jsonl) yet; the starts carry none"]]);
    const corrupt: any = await project(t, { [P]: plan, [MEM]: `not json\n${JSON.stringify(memories[0])}\n{"id": 3,\n` }).run("next", [], { now: T });
    assert.deepEqual(corrupt.start[0].memories.map((m: any) => m.id), ["m-api-1"]);
    assert.deepEqual(corrupt.warnings, ["memories: 2 unreadable line(s) of .design/memory.jsonl skipped"]);
    const dir = project(t, { [P]: plan });
    mkdirSync(join(dir.dir, MEM));
    const broken: any = await dir.run("next", [], { now: T });
    assert.deepEqual([broken.ok, broken.start[0].recorded, broken.start[0].memories], [true, true, []]);
    assert.match(broken.warnings[0], /^memories: error reading \.design\/memory\.jsonl: .*; the starts carry none$/);
    const outside = project(t, { [P]: plan });
    const elsewhere = project(t, { "memory.jsonl": memories });
    symlinkSync(join(elsewhere.dir, "memory.jsonl"), join(outside.dir, MEM));
    const linked: any = await outside.run("next", [], { now: T });
    assert.deepEqual([linked.ok, linked.start[0].memories], [true, []]);
    assert.match(linked.warnings[0], /^memories: memory file resolves outside the project/);
  });
});

describe("next judges running attempts by the clock [feature:execute/helper-schedules]", () => {
  it("reports how long each attempt has run and which passed the default 30 minutes", async (t) => {
    const p = project(t, { [P]: planWith(["api", "ui"]) });
    await p.run("next", [], { now: T });
    const at = async (ms: number) => (await p.run("next", [], { now: ms })) as any;
    const early = await at(T + 30 * MIN);
    assert.deepEqual([early.running.map((r: any) => [r.elapsedMs, r.stalled]), early.stalled, early.stallMinutes], [[[30 * MIN, false], [30 * MIN, false]], [], 30]);
    const late = await at(T + 30 * MIN + 1000);
    assert.deepEqual([late.running.map((r: any) => r.stalled), late.stalled], [[true, true], [0, 1]]);
    // The lead stops a stalled worker and records it as today; its retry comes next, unrecorded.
    const failed: any = await p.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: 0, status: "failed", stalled: true, result: "stalled: no progress in 30 minutes" }]), now: T + 31 * MIN });
    assert.equal(failed.ok, true, JSON.stringify(failed));
    const after = await at(T + 32 * MIN);
    assert.deepEqual(after.stalled, [1]);
    assert.deepEqual(after.start.map((s: any) => [s.agent, s.retry, s.recorded, s.replaces]), [["api--2", true, false, { agent: "api", outcome: "stalled" }]]);
  });

  it("takes the plan's stallMinutes, and an attempt without a start time is never stalled", async (t) => {
    const plan: any = planWith(["api", { name: "ui", status: "in_progress", attemptLog: [{ attempt: 1, model: "sonnet", agent: "ui", outcome: "running" }] }], { stallMinutes: 5 });
    const p = project(t, { [P]: plan });
    await p.run("next", [], { now: T });
    const out: any = await p.run("next", [], { now: T + 6 * MIN });
    assert.deepEqual(out.running.map((r: any) => [r.name, r.startedAt, r.elapsedMs, r.stalled]), [["api", "2026-03-03T10:00:00Z", 6 * MIN, true], ["ui", null, null, false]]);
    assert.deepEqual([out.stalled, out.stallMinutes], [[0], 5]);
  });

  it("refuses a stallMinutes that is not a whole number of minutes from 1 to 1440, writing nothing", async (t) => {
    for (const v of [0, -5, 2.5, "30", 1441, null]) {
      const p = project(t, { [P]: planWith(["api"], { stallMinutes: v }) });
      const before = p.read(P);
      const out: any = await p.run("next", [], { now: T });
      assert.equal(out.code, "E_SCHEMA", JSON.stringify(v));
      assert.match(out.error, /'stallMinutes' must be an integer from 1 to 1440/);
      assert.equal(p.read(P), before);
      assert.equal(matchesPlanSchema(JSON.parse(before)), false, `plan-check refuses ${JSON.stringify(v)}`);
      assert.equal(PlanSchema.safeParse(JSON.parse(before)).success, false, `the schema refuses ${JSON.stringify(v)}`);
    }
    for (const v of [1, 30, 1440]) {
      const doc = planWith(["api"], { stallMinutes: v });
      assert.deepEqual([matchesPlanSchema(doc), PlanSchema.safeParse(doc).success], [true, true], String(v));
    }
  });
});

describe("each attempt keeps its reflexion and its own result [feature:execute/reflexion-before-retry]", () => {
  it("a retry's failure leaves its reflexion, and the next retry is told what each attempt tried", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "api", model: "haiku" }]) });
    const up = async (u: object) => {
      const out: any = await p.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: 0, ...u }]), now: T });
      assert.equal(out.ok, true, JSON.stringify(out));
    };
    await p.run("next", [], { now: T });
    await up({ status: "failed", result: "failed: the orders test timed out" });
    const second: any = await p.run("next", [], { now: T });
    await up({ status: "in_progress", model: second.start[0].model, agent: second.start[0].agent, reflexion: REFLEXION });
    await up({ status: "failed", result: "failed: the orders test found stale rows" });
    const log = p.json(P).roles[0].attemptLog;
    assert.deepEqual(log[1].reflexion, REFLEXION, "the retry's failure keeps its reflexion");
    assert.deepEqual(log.map((e: any) => [e.outcome, e.result]), [["failed", "failed: the orders test timed out"], ["failed", "failed: the orders test found stale rows"]]);
    const third: any = await p.run("next", [], { now: T });
    assert.deepEqual(third.start[0].failure.earlier, [
      { attempt: 1, model: "haiku", agent: "api", outcome: "failed", result: "failed: the orders test timed out" },
      { attempt: 2, model: "sonnet", agent: "api--2", outcome: "failed", result: "failed: the orders test found stale rows", reflexion: REFLEXION },
    ]);
    await up({ status: "in_progress", model: third.start[0].model, agent: third.start[0].agent, reflexion: R3 });
    const done = withEvidence(p.json(P), 0);
    writeFileSync(join(p.dir, P), JSON.stringify(done));
    await up({ status: "completed", result: "completed: 1 criteria passed" });
    const final = p.json(P).roles[0].attemptLog;
    assert.deepEqual(final.map((e: any) => e.reflexion ?? null), [null, REFLEXION, R3], "every attempt keeps the reflexion it started with");
    assert.equal(p.json(P).roles[0].result, "completed: 1 criteria passed");
  });
});
