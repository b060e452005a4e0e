import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { project, writeFiles } from "../helpers/design-dir.ts";

const NOW = Date.UTC(2026, 1, 18, 9, 4, 5); // 20260218T090405Z
const STAMP = "20260218T090405Z";

const run = { now: NOW };

describe("archive", () => {
  it("moves the run's artifacts into history/<stamp>/ and keeps the persistent files", async (t) => {
    const p = project(t, {
      ".design/plan.json": { schemaVersion: 4 },
      ".design/expert-architect.json": { summary: "s" },
      ".design/specs/spec-a.test.ts": "x",
      ".design/.hidden": "h",
      ".design/memory.jsonl": "",
      ".design/reflection.jsonl": "",
      ".design/handoff.md": "# handoff",
      ".design/recon.json": { schemaVersion: 1 },
      ".design/history/older/plan.json": "old",
    });
    const out = await p.run("archive", [".design"], run);
    assert.deepEqual(out, {
      ok: true,
      archivedTo: `.design/history/${STAMP}`,
      archived: [".hidden", "expert-architect.json", "plan.json", "specs"],
      exitCode: 0,
    });
    assert.deepEqual(p.list(".design"), ["handoff.md", "history", "memory.jsonl", "recon.json", "reflection.jsonl"]);
    assert.deepEqual(p.list(`.design/history/${STAMP}`), [".hidden", "expert-architect.json", "plan.json", "specs"]);
    assert.equal(p.read(`.design/history/${STAMP}/specs/spec-a.test.ts`), "x");
    assert.deepEqual(p.list(".design/history"), [STAMP, "older"]);
  });

  it("keeps both copies when archiving twice in the same second (D18)", async (t) => {
    const p = project(t, { ".design/plan.json": "one" });
    const first = await p.run("archive", [".design"], run);
    writeFileSync(join(p.dir, ".design/plan.json"), "two");
    const second = await p.run("archive", [".design"], run);
    writeFileSync(join(p.dir, ".design/plan.json"), "three");
    const third = await p.run("archive", [".design"], run);
    assert.equal(first.archivedTo, `.design/history/${STAMP}`);
    assert.equal(second.archivedTo, `.design/history/${STAMP}-2`);
    assert.equal(third.archivedTo, `.design/history/${STAMP}-3`);
    assert.equal(p.read(`.design/history/${STAMP}/plan.json`), "one");
    assert.equal(p.read(`.design/history/${STAMP}-2/plan.json`), "two");
    assert.equal(p.read(`.design/history/${STAMP}-3/plan.json`), "three");
  });

  it("never moves lock files or the helper's temporary files, and leaves no lock of its own", async (t) => {
    const temp = `.memory.jsonl.${process.pid}.0123456789ab.tmp`;
    const p = project(t, {
      ".design/plan.json": "{}",
      ".design/memory.jsonl.lock": "",
      [`.design/${temp}`]: "partial",
      ".design/notes.tmp": "not a helper temp file",
    });
    const out = await p.run("archive", [".design"], run);
    assert.deepEqual(out.archived, ["notes.tmp", "plan.json"]);
    assert.deepEqual(p.list(".design"), [temp, "history", "memory.jsonl.lock"]);
    assert.deepEqual(p.list(`.design/history/${STAMP}`), ["notes.tmp", "plan.json"]);
  });

  it("says nothing to archive when only persistent files, locks and temp files remain", async (t) => {
    const p = project(t, { ".design/memory.jsonl": "", ".design/history/x/plan.json": "{}", ".design/a.lock": "" });
    assert.deepEqual(await p.run("archive", [".design"], run), { ok: true, message: "nothing to archive", exitCode: 0 });
    assert.deepEqual(p.list(".design/history"), ["x"]);
  });

  it("says nothing to archive for a directory that does not exist, and creates nothing", async (t) => {
    const p = project(t);
    assert.deepEqual(await p.run("archive", [".design"], run), { ok: true, message: "nothing to archive", exitCode: 0 });
    assert.equal(p.exists(".design"), false);
  });

  it("removes trailing slashes and accepts the project's .design/ given as an absolute path", async (t) => {
    const p = project(t, { ".design/plan.json": "{}", ".design/x.json": "{}" });
    assert.equal((await p.run("archive", [".design//"], run)).archivedTo, `.design/history/${STAMP}`);
    writeFiles(p.dir, { ".design/plan.json": "{}" });
    const abs = join(p.dir, ".design");
    assert.equal((await p.run("archive", [`${abs}/`], run)).archivedTo, `${abs}/history/${STAMP}-2`);
  });

  it("refuses a .design that is not a directory", async (t) => {
    const p = project(t, { ".design": "x" });
    const out = await p.run("archive", [".design"], run);
    assert.equal(out.ok, false);
    assert.equal(out.error, ".design is not a directory");
    assert.equal(out.exitCode, 1);
  });

  it("fails cleanly when the archive directory cannot be created, moving nothing", async (t) => {
    const p = project(t, { ".design/plan.json": "{}", ".design/history": "a file, not a folder" });
    const out = await p.run("archive", [".design"], run);
    assert.equal(out.ok, false);
    assert.match(out.error as string, /^Error creating archive directory: /);
    assert.deepEqual(p.list(".design"), ["history", "plan.json"]);
  });

  it("requires the design_dir argument", async (t) => {
    const out = await project(t).run("archive");
    assert.equal(out.ok, false);
    assert.equal(out.code, "E_USAGE");
  });
});
