import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { project, writeFiles } from "../helpers/design-dir.ts";

const NOW = Date.UTC(2026, 1, 18, 9, 4, 5); // 20260218T090405Z
const STAMP = "20260218T090405Z";

const run = { now: NOW };

/** A plan.json in the state the name says (preflight's digest: pending only = ready, all completed = done). */
function planIn(state: "ready" | "in_progress" | "done"): string {
  const status = { ready: ["pending", "pending"], in_progress: ["completed", "pending"], done: ["completed", "completed"] }[state];
  return JSON.stringify({ schemaVersion: 4, goal: "g", roles: status.map((s, i) => ({ name: `r${i}`, status: s, attempts: 0 })) });
}

describe("archive", () => {
  it("moves the run's artifacts into history/<stamp>/ and keeps the persistent files [feature:design/archive-finished-run]", async (t) => {
    const p = project(t, {
      ".design/plan.json": planIn("done"),
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
    const first = await p.run("archive", [".design", "--include-plan"], run);
    writeFileSync(join(p.dir, ".design/plan.json"), "two");
    const second = await p.run("archive", [".design", "--include-plan"], run);
    writeFileSync(join(p.dir, ".design/plan.json"), "three");
    const third = await p.run("archive", [".design", "--include-plan"], run);
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
      ".design/plan.json": planIn("done"),
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
    const p = project(t, { ".design/plan.json": planIn("done"), ".design/x.json": "{}" });
    assert.equal((await p.run("archive", [".design//"], run)).archivedTo, `.design/history/${STAMP}`);
    writeFiles(p.dir, { ".design/plan.json": planIn("done") });
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
    const p = project(t, { ".design/plan.json": planIn("done"), ".design/history": "a file, not a folder" });
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
  for (const [state, plan, planState] of [
    ["ready", planIn("ready"), "ready"],
    ["in progress", planIn("in_progress"), "in_progress"],
    ["broken", "{not json", "invalid"],
    ["of another schema", JSON.stringify({ schemaVersion: 3, roles: [] }), "invalid"],
  ] as const) {
    it(`refuses to move a plan that is ${state} without --include-plan, and moves nothing`, async (t) => {
      const p = project(t, { ".design/plan.json": plan, ".design/expert-a.json": "{}", ".design/draft/plan.json": "{}" });
      const out = await p.run("archive", [".design"], run);
      assert.equal(out.ok, false);
      assert.equal(out.code, "E_INVALID");
      assert.equal(out.planState, planState);
      assert.match(out.error as string, /^\.design\/plan\.json is .*--include-plan.*--keep-plan/);
      assert.equal(out.exitCode, 1);
      assert.deepEqual(p.list(".design"), ["draft", "expert-a.json", "plan.json"]);
      assert.equal(p.read(".design/plan.json"), plan);
      assert.equal(p.exists(".design/history"), false);
      assert.equal(p.exists(".design/plan.json.lock"), false);
    });
  }

  it("moves a plan in progress when the call says so (--include-plan) [feature:design/keep-plan-unless-user-agrees] [ac:design/4]", async (t) => {
    const p = project(t, { ".design/plan.json": planIn("in_progress"), ".design/specs/s.test.ts": "x" });
    const out = await p.run("archive", [".design", "--include-plan"], run);
    assert.deepEqual(out, { ok: true, archivedTo: `.design/history/${STAMP}`, archived: ["plan.json", "specs"], exitCode: 0 });
    assert.equal(p.read(`.design/history/${STAMP}/plan.json`), planIn("in_progress"));
  });

  it("--keep-plan moves the stopped run's artifacts and keeps the plan and the files of its execution [feature:design/keep-plan-unless-user-agrees] [ac:design/4]", async (t) => {
    const p = project(t, {
      ".design/plan.json": planIn("in_progress"),
      ".design/specs/s.test.ts": "x",
      ".design/grant.json": "{}",
      ".design/workflow.js": "//",
      ".design/worker-api.json": "{}",
      ".design/scout-report.json": "{}",
      ".design/fix-1.json": "{}",
      ".design/expert-architect.json": "{}",
      ".design/cross-review.json": "{}",
      ".design/draft/plan.json": "{}",
      ".design/memory.jsonl": "",
    });
    const out = await p.run("archive", [".design", "--keep-plan"], run);
    assert.deepEqual(out.archived, ["cross-review.json", "draft", "expert-architect.json"]);
    assert.deepEqual(p.list(".design"), [
      "fix-1.json", "grant.json", "history", "memory.jsonl", "plan.json", "scout-report.json", "specs", "worker-api.json", "workflow.js",
    ]);
    assert.equal(p.read(".design/plan.json"), planIn("in_progress"));
    assert.deepEqual(p.list(`.design/history/${STAMP}`), ["cross-review.json", "draft", "expert-architect.json"]);
  });

  it("--keep-plan with only the plan there has nothing to archive", async (t) => {
    const p = project(t, { ".design/plan.json": planIn("ready"), ".design/specs/s.test.ts": "x" });
    assert.deepEqual(await p.run("archive", [".design", "--keep-plan"], run), { ok: true, message: "nothing to archive", exitCode: 0 });
    assert.equal(p.exists(".design/history"), false);
  });

  it("--only experts moves just the expert artifacts, whatever the plan's state [feature:recon/stale-artifacts-aside]", async (t) => {
    const p = project(t, {
      ".design/plan.json": planIn("in_progress"),
      ".design/expert-codebase-analyst.json": "{}",
      ".design/expert-domain-specialist.json": "{}",
      ".design/expert-notes.md": "not an artifact",
      ".design/scout-report.json": "{}",
      ".design/recon.json": "{}",
    });
    const out = await p.run("archive", [".design", "--only", "experts"], run);
    assert.deepEqual(out, {
      ok: true,
      archivedTo: `.design/history/${STAMP}`,
      archived: ["expert-codebase-analyst.json", "expert-domain-specialist.json"],
      exitCode: 0,
    });
    assert.deepEqual(p.list(".design"), ["expert-notes.md", "history", "plan.json", "recon.json", "scout-report.json"]);
    assert.deepEqual(await p.run("archive", [".design", "--only=experts"], run), { ok: true, message: "nothing to archive", exitCode: 0 });
  });

  it("--only experts keeps the artifacts a ready or in-progress plan names, since its workers read them (issue 24)", async (t) => {
    const naming = (state: "ready" | "in_progress" | "done") => {
      const plan = JSON.parse(planIn(state));
      plan.expertArtifacts = [{ name: "architect", path: ".design/expert-architect.json", summary: "s" }];
      plan.roles[1].expertContext = [{ expert: "security", artifact: "./.design/expert-security.json", relevance: "r" }, { expert: "x", artifact: "../expert-stale.json" }];
      return JSON.stringify(plan);
    };
    for (const state of ["ready", "in_progress"] as const) {
      const p = project(t, {
        ".design/plan.json": naming(state),
        ".design/expert-architect.json": "{}",
        ".design/expert-security.json": "{}",
        ".design/expert-stale.json": "{}",
      });
      const out = await p.run("archive", [".design", "--only", "experts"], run);
      assert.deepEqual(out, { ok: true, archivedTo: `.design/history/${STAMP}`, archived: ["expert-stale.json"], kept: ["expert-architect.json", "expert-security.json"], exitCode: 0 }, state);
      assert.deepEqual(await p.run("archive", [".design", "--only", "experts"], run), { ok: true, message: "nothing to archive", kept: ["expert-architect.json", "expert-security.json"], exitCode: 0 });
    }
    // A finished plan's workers are done: its artifacts go like any other.
    const done = project(t, { ".design/plan.json": naming("done"), ".design/expert-architect.json": "{}" });
    assert.deepEqual((await done.run("archive", [".design", "--only", "experts"], run) as any).archived, ["expert-architect.json"]);
  });

  it("keeps the researcher artifacts recon.json names as its sources, in every mode but recon's own --include-recon (issue 31)", async (t) => {
    const recon = JSON.stringify({ schemaVersion: 1, goal: "g", sources: [{ name: "codebase-analyst", artifact: ".design/expert-codebase-analyst.json" }, { name: "x", artifact: "../elsewhere/expert-x.json" }], interventions: [], contradictions: [] });
    const files = () => ({ ".design/plan.json": planIn("done"), ".design/recon.json": recon, ".design/expert-codebase-analyst.json": "{}", ".design/expert-analyst.json": "{}", ".design/expert-x.json": "{}" });
    const p = project(t, files());
    const improve: any = await p.run("archive", [".design", "--only", "experts"], run);
    assert.deepEqual([improve.archived, improve.kept], [["expert-analyst.json", "expert-x.json"], ["expert-codebase-analyst.json"]]);
    assert.ok(p.exists(".design/expert-codebase-analyst.json"), "recon.json's source stays where it points");
    const q = project(t, files());
    const whole: any = await q.run("archive", [".design"], run);
    assert.ok(!whole.archived.includes("expert-codebase-analyst.json") && whole.kept.includes("expert-codebase-analyst.json"), JSON.stringify(whole));
    const r = project(t, files());
    const reconOwn: any = await r.run("archive", [".design", "--only", "experts", "--include-recon"], run);
    assert.deepEqual(reconOwn.archived, ["expert-analyst.json", "expert-codebase-analyst.json", "expert-x.json"]);
    assert.equal(reconOwn.kept, undefined);
  });

  it("refuses contradictory or unknown flag values with E_USAGE, moving nothing", async (t) => {
    const p = project(t, { ".design/plan.json": planIn("done"), ".design/expert-a.json": "{}" });
    for (const args of [
      ["--include-plan", "--keep-plan"],
      ["--only", "experts", "--keep-plan"],
      ["--only", "experts", "--include-plan"],
      ["--only", "plans"],
      ["--only"],
    ]) {
      const out = await p.run("archive", [".design", ...args], run);
      assert.equal(out.ok, false, args.join(" "));
      assert.equal(out.code, "E_USAGE", args.join(" "));
    }
    assert.deepEqual(p.list(".design"), ["expert-a.json", "plan.json"]);
  });
  it("finishes an archive a kill cut short into its own folder first, and reports it as resumed", async (t) => {
    const journal = { groups: [{ from: "../..", names: ["expert-b.json", "notes.md"] }] };
    const p = project(t, {
      ".design/history/20260101T000000Z/expert-a.json": "a",
      ".design/history/20260101T000000Z/.moving.json": journal,
      ".design/expert-b.json": "b",
      ".design/notes.md": "n",
      ".design/handoff.md": "kept",
    });
    const out = await p.run("archive", [".design"], run);
    assert.deepEqual(out, { ok: true, message: "nothing to archive", resumed: [".design/history/20260101T000000Z"], exitCode: 0 });
    assert.deepEqual(p.list(".design/history/20260101T000000Z"), ["expert-a.json", "expert-b.json", "notes.md"]);
    assert.deepEqual(p.list(".design"), ["handoff.md", "history"]);
  });

  it("reads a move journal as data: a source or a name that leaves .design/ moves nothing", async (t) => {
    const journal = { groups: [
      { from: "../../..", names: ["src/app.ts"] },
      { from: "../..", names: ["../src/app.ts", "/etc/hostname", 7, ""] },
      { from: "/tmp", names: ["x"] },
    ] };
    const p = project(t, {
      "src/app.ts": "user code",
      ".design/history/20260101T000000Z/.moving.json": journal,
      ".design/notes.md": "n",
      ".design/out/evil.txt": "e",
    });
    symlinkSync(join(p.dir, "src"), join(p.dir, ".design/linked"));
    symlinkSync(join(p.dir, "src"), join(p.dir, ".design/history/20260101T000000Z/out"));
    writeFileSync(join(p.dir, ".design/history/20260101T000000Z/.moving.json"), JSON.stringify({ groups: [
      ...journal.groups, { from: "../../linked", names: ["app.ts"] }, { from: "../..", names: ["linked/app.ts", "notes.md/../../src/app.ts", "out/evil.txt"] },
    ] }));
    const out = await p.run("archive", [".design"], run);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal(p.read("src/app.ts"), "user code");
    assert.deepEqual(readdirSync(join(p.dir, "src")), ["app.ts"]);
    assert.deepEqual(p.list(".design/history/20260101T000000Z"), ["out"]);
    assert.deepEqual(out.archived, ["linked", "notes.md", "out"]);
  });
});
