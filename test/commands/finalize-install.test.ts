// finalize .design/draft/plan.json: validates the draft as an in-place finalize does and installs it as
// .design/plan.json with its spec files copied from .design/draft/specs/ into .design/specs/; on any failure
// nothing is installed.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { symlinkSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { planWith, project } from "../helpers/design-dir.ts";
import { snapshot } from "../helpers/snapshot.ts";

const DRAFT = ".design/draft/plan.json";
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

const withSpecs = (paths: string[]) =>
  planWith(["a", "b"], { verificationSpecs: paths.map((path, i) => ({ role: i % 2 ? "b" : "a", path, runCommand: `sh ${path}` })) });

describe("finalize: draft install", () => {
  it("installs the enriched plan and its specs, naming them under .design/specs/ with the installed bytes' hashes [feature:design/draft-then-finalize] [feature:design/verification-specs]", async (t) => {
    const p = project(t, {
      [DRAFT]: withSpecs([".design/specs/a.sh", ".design/draft/specs/deep/b.sh"]),
      ".design/draft/specs/a.sh": "echo a\n",
      ".design/draft/specs/deep/b.sh": "echo b\n",
    });
    const out = await p.run("finalize", [DRAFT]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal(out.installed, ".design/plan.json");
    assert.deepEqual(out.installedSpecs, [".design/specs/a.sh", ".design/specs/deep/b.sh"]);
    const plan = p.json(".design/plan.json");
    assert.deepEqual(plan.verificationSpecs.map((s: any) => [s.path, s.sha256]), [
      [".design/specs/a.sh", sha("echo a\n")],
      [".design/specs/deep/b.sh", sha("echo b\n")],
    ]);
    assert.deepEqual(plan.roles.map((r: any) => r.status), ["pending", "pending"]);
    assert.equal(p.read(".design/specs/a.sh"), "echo a\n");
    assert.equal(p.read(".design/specs/deep/b.sh"), "echo b\n");
    assert.equal((await p.run("status")).roleCount, 2);
    assert.deepEqual(p.list(".design"), ["draft", "plan.json", "specs"]);
  });

  it("replaces an installed plan and spec, and keeps an installed spec the draft does not carry", async (t) => {
    const p = project(t, {
      ".design/plan.json": planWith(["old"]),
      ".design/specs/a.sh": "old a\n",
      ".design/specs/kept.sh": "kept\n",
      [DRAFT]: withSpecs([".design/specs/a.sh", ".design/specs/kept.sh"]),
      ".design/draft/specs/a.sh": "new a\n",
    });
    const out = await p.run("finalize", [DRAFT]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual(out.installedSpecs, [".design/specs/a.sh"]);
    const plan = p.json(".design/plan.json");
    assert.deepEqual(plan.roles.map((r: any) => r.name), ["a", "b"]);
    assert.equal(p.read(".design/specs/a.sh"), "new a\n");
    assert.equal(plan.verificationSpecs[1].sha256, sha("kept\n"));
  });

  it("warns as in place about a spec that exists nowhere, and still installs", async (t) => {
    const p = project(t, { [DRAFT]: withSpecs([".design/specs/none.sh"]) });
    const out = await p.run("finalize", [DRAFT]);
    assert.equal(out.ok, true);
    assert.deepEqual(out.specWarnings, ["verificationSpecs[0]: file not found: .design/specs/none.sh (sha256 not updated)"]);
    assert.equal(p.exists(".design/plan.json"), true);
  });

  const failures: Array<[string, Record<string, unknown>, string, RegExp | string]> = [
    ["a draft that fails validation", { [DRAFT]: { ...withSpecs([".design/specs/a.sh"]), roles: [] }, ".design/draft/specs/a.sh": "x" }, "E_INVALID", "validation_failed"],
    ["a spec path outside .design/specs/", { [DRAFT]: withSpecs(["tests/a.sh"]), "tests/a.sh": "x" }, "E_INVALID", "validation_failed"],
    ["a spec path outside the project", { [DRAFT]: withSpecs(["../../etc/hostname"]) }, "E_PATH", /^verificationSpecs\[0\]\.path '\.\.\/\.\.\/etc\/hostname' resolves outside the project: /],
    ["a draft with invalid JSON", { [DRAFT]: "{" }, "E_JSON", /^Invalid JSON in plan file: /],
  ];
  for (const [name, files, code, error] of failures) {
    it(`installs nothing for ${name}`, async (t) => {
      const p = project(t, { ".design/plan.json": planWith(["old"]), ".design/specs/a.sh": "old\n", ...files });
      const before = snapshot(p.dir);
      const out = await p.run("finalize", [DRAFT]);
      assert.equal(out.code, code, JSON.stringify(out));
      if (typeof error === "string") assert.equal(out.error, error);
      else assert.match(out.error as string, error);
      assert.deepEqual(snapshot(p.dir), before);
    });
  }

  it("names the placement problem", async (t) => {
    const p = project(t, { [DRAFT]: withSpecs(["tests/a.sh"]) });
    assert.deepEqual((await p.run("finalize", [DRAFT])).issues, [
      "verificationSpecs[0]: path 'tests/a.sh' must name a file under .design/specs/ (its draft under .design/draft/specs/)",
    ]);
  });

  it("refuses to install when .design/specs links out of the project", async (t) => {
    const outside = mkdtempSync(join(tmpdir(), "do-outside-"));
    t.after(() => rmSync(outside, { recursive: true, force: true }));
    const p = project(t, { [DRAFT]: withSpecs([".design/specs/a.sh"]), ".design/draft/specs/a.sh": "x" });
    symlinkSync(outside, join(p.dir, ".design/specs"));
    const out = await p.run("finalize", [DRAFT]);
    assert.equal(out.code, "E_PATH");
    assert.equal(out.error, `verificationSpecs[0].path '.design/specs/a.sh' resolves outside the project's .design/: ${join(outside, "a.sh")}`);
    assert.deepEqual(Object.keys(snapshot(outside)), []);
    assert.equal(p.exists(".design/plan.json"), false);
  });

  it("refuses to install over a plan.json that links out of the project", async (t) => {
    const outside = mkdtempSync(join(tmpdir(), "do-outside-"));
    t.after(() => rmSync(outside, { recursive: true, force: true }));
    writeFileSync(join(outside, "plan.json"), "{}");
    const p = project(t, { [DRAFT]: planWith(["a"]) });
    symlinkSync(join(outside, "plan.json"), join(p.dir, ".design/plan.json"));
    const out = await p.run("finalize", [DRAFT]);
    assert.equal(out.code, "E_PATH");
    assert.equal(out.error, `installed plan '.design/plan.json' resolves outside the project's .design/: ${join(outside, "plan.json")}`);
  });

  it("keeps finalizing .design/plan.json in place", async (t) => {
    const p = project(t, { ".design/plan.json": withSpecs([".design/specs/a.sh"]), ".design/specs/a.sh": "a\n" });
    const out = await p.run("finalize");
    assert.equal(out.ok, true);
    assert.equal("installed" in out, false);
    assert.equal(p.json(".design/plan.json").verificationSpecs[0].sha256, sha("a\n"));
  });

  it("validates a draft without installing it with --validate-only", async (t) => {
    const p = project(t, { [DRAFT]: planWith(["a"]) });
    assert.deepEqual(await p.run("finalize", [DRAFT, "--validate-only"]), { ok: true, validated: true, exitCode: 0 });
    assert.equal(p.exists(".design/plan.json"), false);
  });
  it("installs a draft that carries run state with that state reset, and says what it reset", async (t) => {
    // The issue 18 case: a draft whose roles already say completed. Installed as it was, `next` called it done.
    const draft = planWith(
      [
        { name: "a", status: "completed", attempts: 2, result: "done", attemptLog: [{ attempt: 1, model: "sonnet", agent: "a", outcome: "completed" }] },
        { name: "b", deps: ["a"], status: "failed", attempts: 3 },
        { name: "c", status: "pending", attempts: 0, result: null },
      ],
      { progress: { completedRoles: ["a"] } },
    );
    const p = project(t, { [DRAFT]: draft });
    assert.deepEqual(await p.run("finalize", [DRAFT, "--validate-only"]), {
      ok: true,
      validated: true,
      runStateWarnings: [
        "Role 0 (a): status 'completed' reset to pending",
        "Role 0 (a): attempts 2 reset to 0",
        "Role 0 (a): attemptLog dropped",
        "Role 0 (a): result dropped",
        "Role 1 (b): status 'failed' reset to pending",
        "Role 1 (b): attempts 3 reset to 0",
        "progress reset: no role of a new plan has completed",
      ],
      exitCode: 0,
    });
    assert.equal(p.exists(".design/plan.json"), false);
    const out = await p.run("finalize", [DRAFT]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal((out.runStateWarnings as string[]).length, 7);
    const plan = p.json(".design/plan.json");
    assert.deepEqual(plan.roles.map((r: any) => [r.status, r.attempts, r.result, "attemptLog" in r]), [
      ["pending", 0, null, false],
      ["pending", 0, null, false],
      ["pending", 0, null, false],
    ]);
    assert.deepEqual(plan.progress, { completedRoles: [] });
    const next: any = await p.run("next");
    assert.equal(next.done, false);
    assert.deepEqual(next.start.map((s: any) => [s.name, s.agent, s.model, s.attempt]), [["a", "a", "sonnet", 1], ["c", "c", "sonnet", 1]]);
    // The draft itself is left as written; an in-place finalize of an installed plan keeps its run state.
    assert.equal(p.json(DRAFT).roles[0].status, "completed");
  });

  it("keeps the run state of an installed plan finalized in place, and warns about nothing in a fresh draft", async (t) => {
    const running = planWith([{ name: "a", status: "completed", attempts: 1, result: "done" }, { name: "b", deps: ["a"] }], { progress: { completedRoles: ["a"] } });
    const p = project(t, { ".design/plan.json": running, [DRAFT]: planWith(["x"], { progress: { completedRoles: [] } }) });
    const inPlace = await p.run("finalize");
    assert.equal(inPlace.ok, true);
    assert.equal("runStateWarnings" in inPlace, false);
    assert.deepEqual(p.json(".design/plan.json").roles.map((r: any) => r.status), ["completed", "pending"]);
    const fresh = await p.run("finalize", [DRAFT]);
    assert.equal(fresh.ok, true);
    assert.equal("runStateWarnings" in fresh, false);
  });
});
