// Plan writers and confinement, in-process: a symlinked plan.json is refused, whether its target is another file of
// .design/ or outside it; every plan writer refuses a plan that is not schemaVersion 4; archive takes
// the project's .design/ only; run-start --fresh never moves a recorded output that leads out of .design/.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { planWith, project } from "../helpers/design-dir.ts";
import { snapshot } from "../helpers/snapshot.ts";

const NOW = Date.parse("2026-02-18T09:04:05Z");

function outsideDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "do-outside-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const WRITERS: Array<[string, string[], string | undefined]> = [
  ["update-status", [], '[{"roleIndex":0,"status":"in_progress"}]'],
  ["resume-reset", [], undefined],
  ["add-constraints", [], '[{"role":"a","constraints":["keep the API stable"]}]'],
  ["finalize", [], undefined],
];

describe("plan writers: a symlinked plan.json", () => {
  for (const [cmd, argv, stdin] of WRITERS) {
    it(`${cmd} refuses a link to another file inside .design/: the real path must be the plan itself`, async (t) => {
      const plan = planWith([{ name: "a", status: cmd === "resume-reset" ? "in_progress" : "pending" }, "b"]);
      const p = project(t, { ".design/versions/v1.json": plan });
      symlinkSync("versions/v1.json", join(p.dir, ".design/plan.json"));
      const before = snapshot(p.dir);
      const out = await p.run(cmd, argv, { stdin });
      assert.equal(out.code, "E_PATH", JSON.stringify(out));
      assert.match(out.error as string, /^plan_path '\.design\/plan\.json' is not \.design\/plan\.json(?: or \.design\/draft\/plan\.json)?: /);
      assert.deepEqual(snapshot(p.dir), before);
      assert.equal(readlinkSync(join(p.dir, ".design/plan.json")), "versions/v1.json");
    });

    it(`${cmd} refuses a link that points out of the project's .design/ and changes nothing`, async (t) => {
      const outside = outsideDir(t);
      writeFileSync(join(outside, "plan.json"), JSON.stringify(planWith(["a", "b"])));
      const p = project(t, { ".design/keep.txt": "x" });
      symlinkSync(join(outside, "plan.json"), join(p.dir, ".design/plan.json"));
      const before = [snapshot(outside), snapshot(p.dir)];
      const out = await p.run(cmd, argv, { stdin });
      assert.equal(out.code, "E_PATH");
      assert.equal(out.exitCode, 1);
      assert.equal(out.error, `plan_path '.design/plan.json' resolves outside the project's .design/: ${join(outside, "plan.json")}`);
      assert.deepEqual([snapshot(outside), snapshot(p.dir)], before);
      assert.ok(lstatSync(join(p.dir, ".design/plan.json")).isSymbolicLink());
    });

    it(`${cmd} refuses a link to a project file outside .design/`, async (t) => {
      const p = project(t, { "src/plan.json": planWith(["a", "b"]) });
      mkdirSync(join(p.dir, ".design"));
      symlinkSync("../src/plan.json", join(p.dir, ".design/plan.json"));
      const before = snapshot(p.dir);
      assert.equal((await p.run(cmd, argv, { stdin })).code, "E_PATH");
      assert.deepEqual(snapshot(p.dir), before);
    });
  }
});

describe("plan writers: schemaVersion", () => {
  for (const [cmd, argv, stdin] of WRITERS.filter(([c]) => c !== "finalize")) {
    it(`${cmd} refuses a schemaVersion 3 plan the way status does, writing nothing`, async (t) => {
      const plan = { ...planWith([{ name: "a", status: "in_progress" }, "b"]), schemaVersion: 3 };
      const p = project(t, { ".design/plan.json": plan });
      const before = p.read(".design/plan.json");
      const out = await p.run(cmd, argv, { stdin });
      assert.deepEqual(
        { ok: out.ok, code: out.code, error: out.error, exitCode: out.exitCode },
        { ok: false, code: "E_SCHEMA", error: "bad_schema (schemaVersion=3, expected 4)", exitCode: 1 },
      );
      assert.equal((await p.run("status")).error, "bad_schema (schemaVersion=3, expected 4)");
      assert.equal(p.read(".design/plan.json"), before);
      assert.deepEqual(p.list(".design"), ["plan.json"]);
    });

    it(`${cmd} refuses a plan without schemaVersion`, async (t) => {
      const { schemaVersion: _v, ...plan } = planWith([{ name: "a", status: "in_progress" }, "b"]);
      const p = project(t, { ".design/plan.json": plan });
      assert.equal((await p.run(cmd, argv, { stdin })).error, "bad_schema (schemaVersion=None, expected 4)");
    });
  }

  it("finalize refuses a schemaVersion 3 plan through its validation, writing nothing", async (t) => {
    const p = project(t, { ".design/plan.json": { ...planWith(["a"]), schemaVersion: 3 } });
    const before = p.read(".design/plan.json");
    const out = await p.run("finalize");
    assert.equal(out.code, "E_INVALID");
    assert.deepEqual(out.issues, ["schemaVersion must be 4 (got 3)"]);
    assert.equal(p.read(".design/plan.json"), before);
  });
});

describe("archive: the project's .design/ only", () => {
  for (const target of [".", ".git", "src", ".design/history", ".design/sub", "..", "/"]) {
    it(`refuses ${target} with E_PATH and moves nothing`, async (t) => {
      const p = project(t, { ".git/HEAD": "ref\n", "src/a.ts": "x", ".design/plan.json": "{}", ".design/sub/x": "y", ".design/history/old/x": "z" });
      const before = snapshot(p.dir);
      const out = await p.run("archive", [target], { now: NOW });
      assert.equal(out.code, "E_PATH", JSON.stringify(out));
      assert.equal(out.exitCode, 1);
      assert.deepEqual(snapshot(p.dir), before);
    });
  }

  it("words a folder inside .design/ that is not .design/ itself", async (t) => {
    const p = project(t, { ".design/sub/x": "y" });
    assert.equal((await p.run("archive", [".design/sub"])).error, `design_dir '.design/sub' is not the project's .design/: ${join(p.dir, ".design/sub")}`);
  });

  it("refuses a .design that is a symlink out of the project", async (t) => {
    const outside = outsideDir(t);
    writeFileSync(join(outside, "plan.json"), "{}");
    const p = project(t);
    symlinkSync(outside, join(p.dir, ".design"));
    const before = snapshot(outside);
    const out = await p.run("archive", [".design"], { now: NOW });
    assert.equal(out.error, `design_dir '.design' resolves outside the project's .design/: ${outside}`);
    assert.deepEqual(snapshot(outside), before);
  });

  it("refuses a history folder that links out, moving nothing", async (t) => {
    const outside = outsideDir(t);
    const p = project(t, { ".design/plan.json": "{}" });
    symlinkSync(outside, join(p.dir, ".design/history"));
    const out = await p.run("archive", [".design"], { now: NOW });
    assert.equal(out.code, "E_PATH");
    assert.equal(out.error, `history folder '.design/history' resolves outside the project's .design/: ${outside}`);
    assert.deepEqual(readdirOf(outside), []);
    assert.equal(p.exists(".design/plan.json"), true);
  });
});

function readdirOf(dir: string): string[] {
  return Object.keys(snapshot(dir));
}

describe("run-start --fresh: recorded outputs that lead out of .design/ stay where they are", () => {
  it("moves the outputs inside .design/ and leaves a symlinked one and a project file alone", async (t) => {
    const outside = outsideDir(t);
    writeFileSync(join(outside, "id_rsa"), "key\n");
    const run = {
      schemaVersion: 1, skill: "design", runId: "r", goal: "g", goalSha256: "x", inputs: [], phases: ["a", "b"],
      completed: [{ phase: "a", at: "2026-01-01T00:00:00Z", outputs: [".design/expert-a.json", ".design/keys/id_rsa", "src/app.ts", `${outside}/id_rsa`], decisions: "" }],
      startedAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z", completedAt: null, outcome: null,
    };
    const p = project(t, { ".design/run-design.json": run, ".design/expert-a.json": "{}", "src/app.ts": "x" });
    symlinkSync(outside, join(p.dir, ".design/keys"));
    const out = await p.run("run-start", ["design", "--phases", "a,b", "--fresh"], { now: NOW });
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual(out.archivedOutputs, [".design/expert-a.json"]);
    assert.equal(readFileSync(join(outside, "id_rsa"), "utf8"), "key\n");
    assert.equal(p.exists("src/app.ts"), true);
  });

  it("counts a recorded input that now resolves outside the project as changed, without hashing it", async (t) => {
    const outside = outsideDir(t);
    writeFileSync(join(outside, "x.txt"), "x");
    const run = {
      schemaVersion: 1, skill: "design", runId: "r", goal: "g", goalSha256: "x", inputs: [{ path: `${outside}/x.txt`, sha256: "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881" }],
      phases: ["a", "b"], completed: [], startedAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z", completedAt: null, outcome: null,
    };
    const p = project(t, { ".design/run-design.json": run });
    const out = await p.run("run-status", ["design"], { now: NOW });
    assert.deepEqual(out.changed, [`${outside}/x.txt`]);
    assert.equal(out.resumable, false);
  });
});
