import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";
import { ReflectionEntrySchema } from "../../src/schemas/reflection.ts";

const NOW_MS = Date.UTC(2026, 1, 18, 9, 4, 5, 999);
const REF = ".design/reflection.jsonl";
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const evaluation = { whatWorked: ["experts"], whatFailed: [], doNextTime: ["smaller roles"], expertQuality: "good" };
const flags = (extra: string[] = []) => ["--skill", "design", "--goal", "Add auth", "--outcome", "completed", ...extra];
const lines = (text: string) => text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));

describe("reflection-add", () => {
  it("appends the evaluation from stdin with the contract's keys in order", async (t) => {
    const p = project(t);
    const out = await p.run("reflection-add", flags(["--goal-achieved", "true"]), { stdin: JSON.stringify(evaluation), now: NOW_MS });
    assert.match(out.id as string, UUID4);
    assert.deepEqual(out, { ok: true, id: out.id, skill: "design", outcome: "completed", goalAchieved: true, warnings: [], exitCode: 0 });
    const [entry] = lines(p.read(REF));
    assert.deepEqual(Object.entries(entry), Object.entries({
      id: out.id, timestamp: "2026-02-18T09:04:05Z", skill: "design", goal: "Add auth", outcome: "completed", goalAchieved: true, evaluation,
    }));
    assert.equal(ReflectionEntrySchema.safeParse(entry).success, true);
  });

  it("records one reflection per open run: a repeat (a retry after a kill) answers the first, adds nothing", async (t) => {
    const p = project(t);
    assert.equal((await p.run("run-begin", ["design", "--goal", "Add auth"], { now: NOW_MS })).exitCode, 0);
    const runId = p.json(".design/run-design.json").runId;
    const first = await p.run("reflection-add", flags(["--goal-achieved", "true"]), { stdin: JSON.stringify(evaluation), now: NOW_MS });
    const again = await p.run("reflection-add", flags(), { stdin: "{}", now: NOW_MS + 1000 });
    assert.equal(again.exitCode, 0);
    assert.equal(again.id, first.id);
    assert.equal(again.alreadyRecorded, true);
    assert.equal(again.goalAchieved, true, "the recorded entry's, not the repeat's");
    const entries = lines(p.read(REF));
    assert.equal(entries.length, 1);
    assert.equal(entries[0].runId, runId);
    assert.equal(ReflectionEntrySchema.safeParse(entries[0]).success, true);
    // another skill's reflection, and one after the run is closed, are their own
    assert.equal((await p.run("reflection-add", ["--skill", "recon", "--goal", "g", "--outcome", "completed"], { stdin: "{}" })).alreadyRecorded, undefined);
    assert.equal((await p.run("run-complete", ["design", "--outcome", "partial"])).exitCode, 0);
    assert.equal((await p.run("reflection-add", flags(), { stdin: "{}" })).alreadyRecorded, undefined);
    assert.equal(lines(p.read(REF)).length, 3);
  });

  it("reads --goal-achieved as true only for true, 1 or yes in any case", async (t) => {
    const p = project(t);
    const achieved = async (extra: string[]) => (await p.run("reflection-add", flags(extra), { stdin: "{}" })).goalAchieved;
    assert.equal(await achieved(["--goal-achieved", "YES"]), true);
    assert.equal(await achieved(["--goal-achieved", "1"]), true);
    assert.equal(await achieved(["--goal-achieved", "True"]), true);
    assert.equal(await achieved(["--goal-achieved", "no"]), false);
    assert.equal(await achieved(["--goal-achieved", " yes"]), false);
    assert.equal(await achieved([]), false);
  });

  it("warns about missing or non-array evaluation fields without failing", async (t) => {
    const p = project(t);
    const out = await p.run("reflection-add", flags(), { stdin: '{"whatFailed": "a string", "notes": 1}' });
    assert.equal(out.ok, true);
    assert.deepEqual(out.warnings, [
      "evaluation missing array field: whatWorked",
      "evaluation missing array field: whatFailed",
      "evaluation missing array field: doNextTime",
    ]);
    assert.deepEqual(lines(p.read(REF))[0].evaluation, { whatFailed: "a string", notes: 1 });
  });

  it("appends after existing entries, repairing a missing final newline and keeping corrupt lines", async (t) => {
    const before = '{"id":"old"}\ngarbage line';
    const p = project(t, { [REF]: before });
    await p.run("reflection-add", flags(), { stdin: JSON.stringify(evaluation) });
    const after = p.read(REF);
    assert.ok(after.startsWith(`${before}\n{"id":"`));
    assert.ok(after.endsWith("}\n"));
    assert.deepEqual(p.list(".design"), ["reflection.jsonl"]);
  });

  it("creates .design/ for a reflection file of another name, and refuses one in a subfolder", async (t) => {
    const p = project(t);
    const out = await p.run("reflection-add", [".design/reflection-old.jsonl", ...flags()], { stdin: "{}" });
    assert.equal(out.ok, true);
    assert.equal(lines(p.read(".design/reflection-old.jsonl")).length, 1);
    const deep = await p.run("reflection-add", [".design/x/y/reflection.jsonl", ...flags()], { stdin: "{}" });
    assert.equal(deep.code, "E_PATH");
    assert.equal(p.exists(".design/x"), false);
  });

  const refusals: Array<[string, string[], string, string]> = [
    ["an unknown skill", ["--skill", "Design", "--goal", "g", "--outcome", "completed"], "Invalid skill 'Design'. Must be one of: design, execute, improve, reflect, recon", "E_USAGE"],
    ["an unknown outcome", ["--skill", "recon", "--goal", "g", "--outcome", "done"], "Invalid outcome 'done'. Must be one of: completed, partial, failed, aborted", "E_USAGE"],
    ["an empty goal", ["--skill", "recon", "--goal", "", "--outcome", "failed"], "Goal is required", "E_USAGE"],
    ["a missing goal flag", ["--skill", "recon", "--outcome", "failed"], "reflection-add: missing required flag --goal", "E_USAGE"],
  ];
  for (const [what, argv, error, code] of refusals) {
    it(`refuses ${what} before reading stdin, and writes nothing`, async (t) => {
      const p = project(t, { [REF]: "keep\n" });
      const out = await p.run("reflection-add", argv, { stdin: "not even json" });
      assert.deepEqual([out.ok, out.error, out.code, out.exitCode], [false, error, code, 1]);
      assert.equal(p.read(REF), "keep\n");
    });
  }

  it("checks the skill before the outcome", async (t) => {
    const out = await project(t).run("reflection-add", ["--skill", "x", "--goal", "", "--outcome", "y"], { stdin: "{}" });
    assert.match(out.error as string, /^Invalid skill 'x'/);
  });

  it("refuses stdin that is not JSON", async (t) => {
    const p = project(t);
    for (const stdin of ["", "{whatWorked: []}"]) {
      const out = await p.run("reflection-add", flags(), { stdin });
      assert.deepEqual([out.ok, out.error, out.code], [false, "Invalid JSON in stdin (expected evaluation object)", "E_JSON"]);
    }
    assert.equal(p.exists(REF), false);
  });

  it("refuses JSON that is not an object (Fix D23)", async (t) => {
    const p = project(t);
    for (const stdin of ["[1,2]", '"whatWorked"', "null", "3"]) {
      const out = await p.run("reflection-add", flags(), { stdin });
      assert.deepEqual([out.ok, out.error, out.exitCode], [false, "Evaluation must be a JSON object", 1]);
    }
    assert.equal(p.exists(REF), false);
  });
});
