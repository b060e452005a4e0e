// run-begin, run-end and reflection-add killed at every step boundary and at random moments between: the next
// call finishes the work or reports it, never a second reflection for one run, never a state no call continues.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliInProcess as call } from "../helpers/cli.ts";
import { assertNothingBlocks, assertSound, copyProject, crashSweep, duplicateKeys, jsonlOf } from "../helpers/crash.ts";
import { planWith, writeFiles } from "../helpers/design-dir.ts";

const PHASES = ["pre-flight", "challenge", "grant", "workers", "verify", "learn"];
const EVAL = { summary: "Built it", whatWorked: ["a"], whatFailed: [], doNextTime: ["b"] };

function template(t: { after: (fn: () => void) => void }, files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "do-crash-tpl-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFiles(dir, files);
  return dir;
}

const plan = () => planWith(["api", { name: "ui", deps: ["api"], status: "in_progress", attempts: 1 }]);
const runState = (dir: string, skill = "execute") => JSON.parse(readFileSync(join(dir, `.design/run-${skill}.json`), "utf8"));
const ok = (r: { code: number | null; stdout: string }, what: string) => assert.equal(r.code, 0, `${what}: ${r.stdout}`);

describe("run-end killed at any point", () => {
  it("the retry closes the run with one reflection of it and the report", async (t) => {
    const tpl = template(t, { ".design/plan.json": plan(), ".design/tmp/eval.json": EVAL });
    ok(await call(["run-begin", "execute"], { cwd: tpl }), "run-begin");
    for (const phase of PHASES.slice(1)) ok(await call(["run-checkpoint", "execute", "--phase", phase, ...(phase === "verify" ? ["--decisions", "goal achieved"] : [])], { cwd: tpl }), phase);
    const runId = runState(tpl).runId;
    const args = ["run-end", "execute", "--outcome", "completed", "--goal-achieved", "true", "--eval", ".design/tmp/eval.json"];
    const report = await crashSweep({
      prepare: () => copyProject(t, tpl),
      call: { args },
      minPoints: 8,
      check: async (dir) => {
        assertSound(dir);
        assert.ok(jsonlOf(dir, ".design/reflection.jsonl").filter((r) => r.runId === runId).length <= 1);
        const retry = await call(args, { cwd: dir });
        if (retry.code !== 0) {
          // Only a run-end that had finished everything may refuse, and it says so.
          assert.equal(retry.json?.code, "E_INVALID", retry.stdout);
          assert.match(retry.json.error, /already closed \(completed\)/);
        } else {
          assert.equal(retry.json.run.closed, true);
          assert.equal(retry.json.run.runId, runId);
        }
        const mine = jsonlOf(dir, ".design/reflection.jsonl").filter((r) => r.runId === runId);
        assert.equal(mine.length, 1, "one reflection of the run");
        assert.deepEqual(mine[0].evaluation, EVAL);
        assert.equal(runState(dir).outcome, "completed");
        assert.ok(existsSync(join(dir, ".design/report.html")), "the report is written");
        assert.deepEqual(duplicateKeys(join(dir, ".design/reflection.jsonl"), "id"), []);
        assertNothingBlocks(dir);
        // and the run is over: a further run-end records nothing again and says so
        const again = await call(args, { cwd: dir });
        assert.equal(again.json?.alreadyClosed, true, again.stdout);
        assert.equal(jsonlOf(dir, ".design/reflection.jsonl").filter((r) => r.runId === runId).length, 1);
      },
    });
    assert.ok(report.points.includes("run-end:reflected") && report.points.includes("run-end:closed"), report.points.join(", "));
  });
});

describe("run-begin killed at any point", () => {
  it("execute with a plan: the next run-begin (and --resume when it asks) opens one run with pre-flight done", async (t) => {
    const tpl = template(t, { ".design/plan.json": plan() });
    await crashSweep({
      prepare: () => copyProject(t, tpl),
      call: { args: ["run-begin", "execute"] },
      minPoints: 6,
      check: async (dir) => {
        assertSound(dir);
        let r = await call(["run-begin", "execute"], { cwd: dir });
        ok(r, "retry");
        if (r.json.action === "ask-resume") {
          r = await call(["run-begin", "execute", "--resume"], { cwd: dir });
          ok(r, "resume");
          assert.equal(r.json.action, "resumed");
        } else assert.equal(r.json.action, "start", r.stdout);
        const state = runState(dir);
        assert.equal(state.completedAt, null);
        const phases = state.completed.map((c: { phase: string }) => c.phase);
        assert.deepEqual(phases, ["pre-flight"]);
        const roles = JSON.parse(readFileSync(join(dir, ".design/plan.json"), "utf8")).roles;
        assert.deepEqual(roles.map((x: { name: string; status?: string }) => [x.name, x.status ?? "pending"]), [["api", "pending"], ["ui", "pending"]]);
        assertNothingBlocks(dir);
      },
    });
  });

  it("execute with no plan: the retry ends the one aborted run, with one reflection", async (t) => {
    const tpl = template(t, { ".design/memory.jsonl": "" });
    await crashSweep({
      prepare: () => copyProject(t, tpl),
      call: { args: ["run-begin", "execute"] },
      minPoints: 6,
      check: async (dir) => {
        assertSound(dir);
        const r = await call(["run-begin", "execute"], { cwd: dir });
        ok(r, "retry");
        assert.equal(r.json.action, "no-plan");
        const state = runState(dir);
        assert.equal(state.outcome, "aborted");
        const reflections = jsonlOf(dir, ".design/reflection.jsonl");
        assert.equal(reflections.length, 1, JSON.stringify(reflections));
        assert.equal(reflections[0].runId, state.runId);
        assert.ok(existsSync(join(dir, ".design/report.html")));
        assertNothingBlocks(dir);
      },
    });
  });
});

/** The history folders of `dir` that hold something, each with the names it holds (the journal left out). */
function historyFolders(dir: string): Map<string, string[]> {
  const history = join(dir, ".design/history");
  const out = new Map<string, string[]>();
  if (!existsSync(history)) return out;
  for (const f of readdirSync(history)) {
    const names = readdirSync(join(history, f)).sort();
    assert.ok(!names.includes(".moving.json"), `history/${f} still holds its move journal after the retry`);
    if (names.length) out.set(f, names);
  }
  return out;
}

describe("archive killed at any point", () => {
  it("the retry finishes the archive into the one folder it began: nothing split over two, nothing left behind", async (t) => {
    const files: Record<string, string> = {
      ".design/expert-arch.json": '{"a":1}', ".design/expert-risk.json": '{"b":2}', ".design/notes.md": "notes",
      ".design/worker-api.json": '{"c":3}', ".design/handoff.md": "kept", ".design/scratch/deep.txt": "deep",
    };
    const tpl = template(t, files);
    const moved = ["expert-arch.json", "expert-risk.json", "notes.md", "scratch", "worker-api.json"];
    const args = ["archive", ".design"];
    const sweep = await crashSweep({
      prepare: () => copyProject(t, tpl),
      call: { args },
      minPoints: 5,
      check: async (dir) => {
        assertSound(dir);
        const retry = await call(args, { cwd: dir });
        ok(retry, "retry");
        const folders = historyFolders(dir);
        assert.equal(folders.size, 1, `one archive: ${JSON.stringify([...folders])}`);
        const [[folder, names]] = [...folders];
        assert.deepEqual(names, moved);
        for (const [path, text] of Object.entries(files)) {
          const name = path.slice(".design/".length);
          const at = name === "handoff.md" ? join(dir, ".design", name) : join(dir, ".design/history", folder, name);
          assert.equal(readFileSync(at, "utf8"), text, `${name} is whole at ${at}`);
          if (name !== "handoff.md") assert.ok(!existsSync(join(dir, ".design", name.split("/")[0])), `${name} left behind`);
        }
        if (retry.json.resumed) assert.deepEqual(retry.json.resumed, [`.design/history/${folder}`]);
        assertNothingBlocks(dir);
      },
    });
    assert.ok(sweep.points.includes("move:journal") && sweep.points.filter((p) => p === "move:entry").length === moved.length, sweep.points.join(", "));
  });
});

describe("run-begin --fresh killed at any point", () => {
  it("archives the unfinished run whole or not yet, and the retry opens a new one; the old run is never lost", async (t) => {
    const tpl = template(t, { ".design/notes.md": "design notes" });
    ok(await call(["run-begin", "design", "--goal", "first goal"], { cwd: tpl }), "run-begin");
    writeFiles(tpl, { ".design/expert-arch.json": '{"a":1}', ".design/expert-risk.json": '{"b":2}' });
    const phases = runState(tpl, "design").phases;
    ok(await call(["run-checkpoint", "design", "--phase", phases[0], "--outputs", ".design/expert-arch.json,.design/expert-risk.json"], { cwd: tpl }), "checkpoint");
    const old = runState(tpl, "design").runId;
    const args = ["run-begin", "design", "--goal", "second goal", "--fresh"];
    const sweep = await crashSweep({
      prepare: () => copyProject(t, tpl),
      call: { args },
      check: async (dir) => {
        assertSound(dir);
        const r = await call(args, { cwd: dir });
        ok(r, "retry");
        assert.equal(r.json.action, "start", r.stdout);
        const state = runState(dir, "design");
        assert.notEqual(state.runId, old);
        assert.equal(state.goal, "second goal");
        const archivedIn = join(dir, ".design/history");
        const archived = existsSync(archivedIn)
          ? readdirSync(archivedIn).filter((f) => existsSync(join(archivedIn, f, "run-design.json"))).map((f) => JSON.parse(readFileSync(join(archivedIn, f, "run-design.json"), "utf8")).runId)
          : [];
        assert.ok(archived.includes(old), `the first run is archived: ${archived.join(", ")}`);
        // The stopped run's outputs went with its state, into the same folder: none stays to pass as the new run's.
        const folders = historyFolders(dir);
        const history = join(dir, ".design/history");
        const withOld = [...folders].filter(([f, names]) => names.includes("run-design.json") &&
          JSON.parse(readFileSync(join(history, f, "run-design.json"), "utf8")).runId === old);
        assert.equal(withOld.length, 1, JSON.stringify([...folders]));
        assert.deepEqual(withOld[0][1], ["expert-arch.json", "expert-risk.json", "run-design.json"]);
        for (const n of ["expert-arch.json", "expert-risk.json"]) assert.ok(!existsSync(join(dir, ".design", n)), `${n} left in .design`);
        assertNothingBlocks(dir);
      },
    });
    assert.ok(sweep.points.includes("move:entry"), sweep.points.join(", "));
  });
});

describe("reflection-add killed at any point", () => {
  it("the retry records the run's reflection once", async (t) => {
    const tpl = template(t, { ".design/tmp/eval.json": EVAL });
    ok(await call(["run-begin", "design", "--goal", "a goal"], { cwd: tpl }), "run-begin");
    const runId = runState(tpl, "design").runId;
    const args = ["reflection-add", ".design/reflection.jsonl", "--skill", "design", "--goal", "a goal", "--outcome", "completed"];
    const stdin = JSON.stringify(EVAL);
    await crashSweep({
      prepare: () => copyProject(t, tpl),
      call: { args, stdin },
      check: async (dir) => {
        assertSound(dir);
        const retry = await call(args, { cwd: dir, stdin });
        ok(retry, "retry");
        const lines = jsonlOf(dir, ".design/reflection.jsonl");
        assert.equal(lines.length, 1);
        assert.equal(lines[0].runId, runId);
        assert.equal(retry.json.id, lines[0].id);
        assertNothingBlocks(dir);
      },
    });
  });
});
