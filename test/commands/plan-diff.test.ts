import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { planWith, project } from "../helpers/design-dir.ts";

const ac = (...pairs: Array<[string, string]>) => pairs.map(([criterion, check]) => ({ criterion, check }));

describe("plan-diff", () => {
  it("reports added, removed and modified roles and a changed goal", async (t) => {
    const a = planWith([
      "gone",
      { name: "api", acceptanceCriteria: ac(["serves", "npm test"], ["logs", "grep x"], ["fast", "bench"]) },
      "same",
    ], { goal: "v1" });
    const b = planWith([
      "same",
      { name: "api", goal: "Do it better", status: "completed", deps: ["same"],
        acceptanceCriteria: ac(["serves", "npm test"], ["fast", "bench --strict"], ["safe", "audit"], ["typed", "tsc"]) },
      "new",
    ], { goal: "v2" });
    const out = await project(t, { "a.json": a, "b.json": b }).run("plan-diff", ["a.json", "b.json"]);
    assert.deepEqual(out, {
      ok: true,
      summary: "1 roles added, 1 roles removed, 1 roles modified, goal changed",
      addedRoles: ["new"],
      removedRoles: ["gone"],
      modifiedRoles: [{
        role: "api",
        changes: [
          "goal modified",
          "status: None -> completed",
          "+2 acceptance criteria",
          "-1 acceptance criteria",
          "~1 acceptance criteria modified",
          "+deps: same",
        ],
      }],
      goalChanged: true,
      exitCode: 0,
    });
  });

  it("on a first improve, with nothing archived yet, answers that there is no earlier plan (issue 24)", async (t) => {
    const p = project(t, { ".design/draft/plan.json": planWith(["a"]) });
    for (const history of [".design/history", ".design/history/"]) {
      assert.deepEqual(await p.run("plan-diff", [history, ".design/draft/plan.json"]), { ok: true, archivedPlan: null, message: "no archived plan.json in .design/history", exitCode: 0 });
    }
    // Any other missing plan is still an error.
    assert.equal((await p.run("plan-diff", [".design/old.json", ".design/draft/plan.json"])).code, "E_NOT_FOUND");
  });

  it("says no changes detected for identical plans", async (t) => {
    const plan = planWith(["a", { name: "b", deps: ["a"] }]);
    const out = await project(t, { "a.json": plan, "b.json": plan }).run("plan-diff", ["a.json", "b.json"]);
    assert.deepEqual(out, {
      ok: true, summary: "no changes detected", addedRoles: [], removedRoles: [], modifiedRoles: [], goalChanged: false, exitCode: 0,
    });
  });

  it("lists added and removed dependency names sorted by code point [Fix D10]", async (t) => {
    const a = planWith([{ name: "r", deps: ["zeta", "b", "keep", "\u{1F600}"] }]);
    const b = planWith([{ name: "r", deps: ["y", "keep", "a", "Z", "\uFF5E"] }]);
    const out = await project(t, { "a.json": a, "b.json": b }).run("plan-diff", ["a.json", "b.json"]);
    assert.deepEqual(out.modifiedRoles, [{ role: "r", changes: ["+deps: Z, a, y, \uFF5E", "-deps: b, zeta, \u{1F600}"] }]);
    assert.equal(out.summary, "1 roles modified");
  });

  it("compares dependency names as sets, ignoring order and repeats", async (t) => {
    const a = planWith([{ name: "r", deps: ["x", "y", "x"] }]);
    const b = planWith([{ name: "r", deps: ["y", "x"] }]);
    const out = await project(t, { "a.json": a, "b.json": b }).run("plan-diff", ["a.json", "b.json"]);
    assert.deepEqual(out.modifiedRoles, []);
  });

  it("does not read a string of dependencies as its characters [Fix D26]", async (t) => {
    const a = planWith([{ name: "r", deps: "ab" as unknown as string[] }]);
    const b = planWith([{ name: "r", deps: ["ab"] }]);
    const out = await project(t, { "a.json": a, "b.json": b }).run("plan-diff", ["a.json", "b.json"]);
    assert.deepEqual(out.modifiedRoles, [{ role: "r", changes: ["+deps: ab"] }]);
  });

  it("treats a null scope as no dependencies [Fix D7]", async (t) => {
    const a = { roles: [{ name: "r", scope: null }] };
    const b = { roles: [{ name: "r", scope: { dependencies: ["q"] } }] };
    const out = await project(t, { "a.json": a, "b.json": b }).run("plan-diff", ["a.json", "b.json"]);
    assert.deepEqual(out.modifiedRoles, [{ role: "r", changes: ["+deps: q"] }]);
  });

  it("compares goals deeply, with a missing goal equal to null", async (t) => {
    const a = { goal: { text: "g", tags: [1, 2] }, roles: [{ name: "r" }, { name: "s", goal: null }] };
    const b = { goal: { tags: [1, 2], text: "g" }, roles: [{ name: "r", goal: null }, { name: "s" }] };
    const out = await project(t, { "a.json": a, "b.json": b }).run("plan-diff", ["a.json", "b.json"]);
    assert.equal(out.summary, "no changes detected");
    assert.equal(out.goalChanged, false);
  });

  it("renders raw statuses without defaulting, missing and null alike as None", async (t) => {
    const a = { roles: [{ name: "r" }, { name: "s", status: null }, { name: "u", status: "failed" }] };
    const b = { roles: [{ name: "r", status: "pending" }, { name: "s" }, { name: "u", status: true }] };
    const out = await project(t, { "a.json": a, "b.json": b }).run("plan-diff", ["a.json", "b.json"]);
    assert.deepEqual(out.modifiedRoles, [
      { role: "r", changes: ["status: None -> pending"] },
      { role: "u", changes: ["status: failed -> True"] },
    ]);
  });

  it("indexes criteria by text with later duplicates winning", async (t) => {
    const a = { roles: [{ name: "r", acceptanceCriteria: [...ac(["x", "old"], ["x", "new"]), 3, "junk"] }] };
    const b = { roles: [{ name: "r", acceptanceCriteria: ac(["x", "new"]) }] };
    const out = await project(t, { "a.json": a, "b.json": b }).run("plan-diff", ["a.json", "b.json"]);
    assert.deepEqual(out.modifiedRoles, []);
  });

  it("keeps a repeated role name at its first position with the last role's content", async (t) => {
    const a = { roles: [{ name: "x", goal: "first" }, { name: "y" }, { name: "x", goal: "last" }] };
    const b = { roles: [{ name: "y", goal: "changed" }, { name: "x", goal: "new" }] };
    const out = await project(t, { "a.json": a, "b.json": b }).run("plan-diff", ["a.json", "b.json"]);
    assert.deepEqual(out.modifiedRoles, [
      { role: "x", changes: ["goal modified"] },
      { role: "y", changes: ["goal modified"] },
    ]);
    const same = await project(t, { "a.json": a, "c.json": { roles: [{ name: "x", goal: "last" }, { name: "y" }] } })
      .run("plan-diff", ["a.json", "c.json"]);
    assert.equal(same.summary, "no changes detected");
  });

  it("indexes a role without name under the empty name", async (t) => {
    const a = { roles: [{ goal: "g" }, { name: "b" }] };
    const b = { roles: [{ name: "b" }] };
    const out = await project(t, { "a.json": a, "b.json": b }).run("plan-diff", ["a.json", "b.json"]);
    assert.deepEqual(out.removedRoles, [""]);
    assert.equal(out.summary, "1 roles removed");
  });

  it("lists added roles in the second plan's order and removed ones in the first's", async (t) => {
    const a = { roles: [{ name: "c" }, { name: "a" }, { name: "keep" }] };
    const b = { roles: [{ name: "z" }, { name: "keep" }, { name: "m" }] };
    const out = await project(t, { "a.json": a, "b.json": b }).run("plan-diff", ["a.json", "b.json"]);
    assert.deepEqual(out.addedRoles, ["z", "m"]);
    assert.deepEqual(out.removedRoles, ["c", "a"]);
    assert.equal(out.summary, "2 roles added, 2 roles removed");
  });

  it("reports only a goal change when the roles are equal", async (t) => {
    const out = await project(t, { "a.json": { goal: "x", roles: [] }, "b.json": { roles: [] } }).run("plan-diff", ["a.json", "b.json"]);
    assert.equal(out.summary, "goal changed");
    assert.equal(out.goalChanged, true);
  });

  it("requires both plan paths", async (t) => {
    const out = await project(t, { "a.json": { roles: [] } }).run("plan-diff", ["a.json"]);
    assert.equal(out.ok, false);
    assert.equal(out.code, "E_USAGE");
    assert.equal(out.error, "plan-diff: missing required argument plan_b");
    assert.equal(out.exitCode, 1);
  });

  it("loads the first plan first, so its error is the one reported", async (t) => {
    const p = project(t, { "bad.json": "{", "ok.json": { roles: [] } });
    assert.equal((await p.run("plan-diff", ["none-a.json", "none-b.json"])).error, "Plan file not found: none-a.json");
    assert.equal((await p.run("plan-diff", ["ok.json", "none-b.json"])).error, "Plan file not found: none-b.json");
    assert.match((await p.run("plan-diff", ["ok.json", "bad.json"])).error as string, /^Invalid JSON in plan file: /);
  });

  it("rejects plans of the wrong shape [Fix D7]", async (t) => {
    const p = project(t, { "ok.json": { roles: [] }, "arr.json": [], "str.json": { roles: "ab" }, "el.json": { roles: [null] } });
    const arr = await p.run("plan-diff", ["arr.json", "ok.json"]);
    assert.equal(arr.error, "Invalid plan structure: top-level value must be an object");
    assert.equal(arr.exitCode, 1);
    assert.equal((await p.run("plan-diff", ["ok.json", "str.json"])).error, "Invalid plan structure: 'roles' must be an array");
    assert.equal((await p.run("plan-diff", ["ok.json", "el.json"])).error, "Invalid plan structure: roles[0] must be an object");
  });
  describe("with the archive folder as the earlier plan", () => {
    const draft = planWith(["api", "docs"], { goal: "Improve skill greet: clearer steps" });

    it("diffs against the newest archived plan.json and names it [feature:improve/circular-guard]", async (t) => {
      const p = project(t, {
        ".design/draft/plan.json": draft,
        ".design/history/20260101T000000Z/plan.json": planWith(["old"], { goal: "oldest" }),
        ".design/history/20260301T120000Z/plan.json": planWith(["api"], { goal: "second" }),
        ".design/history/20260301T120000Z-2/plan.json": planWith(["api"], { goal: "third" }),
        ".design/history/20260301T120000Z-10/plan.json": planWith(["api", "docs"], { goal: "Improve skill greet: clearer steps" }),
        ".design/history/20260301T120000Z-11/run-design.json": {},
        ".design/history/zz-not-a-stamp/plan.json": planWith(["x"], { goal: "ignored" }),
      });
      const out = await p.run("plan-diff", [".design/history", ".design/draft/plan.json"]);
      assert.equal(out.ok, true, JSON.stringify(out));
      assert.equal(out.archivedPlan, ".design/history/20260301T120000Z-10/plan.json");
      assert.equal(out.archivedGoal, "Improve skill greet: clearer steps");
      assert.equal(out.summary, "no changes detected");
      assert.equal((await p.run("plan-diff", [".design/history/", ".design/draft/plan.json"])).archivedPlan, ".design/history/20260301T120000Z-10/plan.json");
    });

    it("passes over an archived plan that does not read as a plan, and one that links out of the project", async (t) => {
      const outside = mkdtempSync(join(tmpdir(), "plan-diff-outside-"));
      t.after(() => rmSync(outside, { recursive: true, force: true }));
      const p = project(t, {
        ".design/draft/plan.json": draft,
        ".design/history/20260101T000000Z/plan.json": planWith(["api"], { goal: "the good one" }),
        ".design/history/20260102T000000Z/plan.json": "{broken",
        ".design/history/20260104T000000Z/x": "",
      });
      writeFileSync(join(outside, "plan.json"), JSON.stringify(planWith(["evil"], { goal: "outside" })));
      mkdirSync(join(p.dir, ".design/history/20260103T000000Z"));
      symlinkSync(join(outside, "plan.json"), join(p.dir, ".design/history/20260103T000000Z/plan.json"));
      const out = await p.run("plan-diff", [".design/history", ".design/draft/plan.json"]);
      assert.equal(out.archivedPlan, ".design/history/20260101T000000Z/plan.json");
      assert.equal(out.archivedGoal, "the good one");
      assert.deepEqual(out.addedRoles, ["docs"]);
    });

    it("answers archivedPlan null when nothing is archived, and still checks the later plan [feature:improve/circular-guard]", async (t) => {
      const p = project(t, { ".design/draft/plan.json": draft, ".design/history/20260101T000000Z/run-recon.json": {} });
      assert.deepEqual(await p.run("plan-diff", [".design/history", ".design/draft/plan.json"]), {
        ok: true, archivedPlan: null, message: "no archived plan.json in .design/history", exitCode: 0,
      });
      const missing = await p.run("plan-diff", [".design/history", ".design/draft/none.json"]);
      assert.equal(missing.error, "Plan file not found: .design/draft/none.json");
    });
  });
});
