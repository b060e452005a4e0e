// task-sync: the session's task list as a view of plan.json, computed by the helper (which tasks to create or
// update), never a second record of the run.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

const P = ".design/plan.json";
const sync = (p: ReturnType<typeof project>, tasks: unknown) => p.run("task-sync", [], { stdin: JSON.stringify(tasks) });

describe("task-sync", () => {
  it("creates one task per role, then links them by dependency and follows each status change [feature:execute/tasks-mirror-plan]", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "db" }, { name: "api", deps: ["db"] }, { name: "ui", deps: ["api", "db"] }]) });
    const first: any = await sync(p, []);
    assert.equal(first.inSync, false);
    assert.deepEqual(first.create.map((c: any) => [c.roleIndex, c.subject, c.activeForm]), [[0, "db", "Working as db"], [1, "api", "Working as api"], [2, "ui", "Working as ui"]]);
    assert.equal(first.create[2].description, "Do ui (after api, db). A view of .design/plan.json roles[2].");
    assert.match(first.next, /run TaskList and task-sync again/);
    // The lead created them as tasks 1-3; the second sync adds the dependencies and nothing else.
    const listed = [
      { id: "1", subject: "db", status: "pending", blockedBy: [] },
      { id: "2", subject: "api", status: "pending", blockedBy: [] },
      { id: "3", subject: "ui", status: "pending", blockedBy: [] },
    ];
    const second: any = await sync(p, listed);
    assert.deepEqual(second.create, []);
    assert.deepEqual(second.update, [{ taskId: "2", roleIndex: 1, addBlockedBy: ["1"] }, { taskId: "3", roleIndex: 2, addBlockedBy: ["2", "1"] }]);
    const linked = listed.map((x, i) => ({ ...x, blockedBy: [[], ["1"], ["2", "1"]][i] }));
    assert.equal(((await sync(p, linked)) as any).inSync, true);
    // db starts, then fails with retries left (its task goes back to pending), then fails for good.
    await p.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress" }]) });
    assert.deepEqual(((await sync(p, linked)) as any).update, [{ taskId: "1", roleIndex: 0, status: "in_progress" }]);
    await p.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: 0, status: "failed", result: "red" }]) });
    const failed: any = await sync(p, linked.map((x, i) => (i === 0 ? { ...x, status: "in_progress" } : x)));
    assert.deepEqual(failed.update, [
      { taskId: "1", roleIndex: 0, status: "pending" },
      { taskId: "2", roleIndex: 1, status: "completed", subject: "api (skipped)" },
      { taskId: "3", roleIndex: 2, status: "completed", subject: "ui (skipped)" },
    ]);
  });

  it("closes a role failed for good or blocked under its state, matches renamed tasks, and deletes a second task of a role [feature:execute/tasks-mirror-plan]", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "db", status: "failed", attempts: 3 }, { name: "api", status: "blocked" }, { name: "ui", status: "completed" }]) });
    const out: any = await sync(p, [
      { id: 4, subject: "db", status: "in_progress" },
      { id: "#5", subject: "api (blocked)", status: "completed", blockedBy: [] },
      { id: "6", subject: "ui", status: "completed" },
      { id: "7", subject: "ui", status: "pending" },
      { id: "8", subject: "write the changelog", status: "pending" },
      { id: "9", subject: "db", status: "deleted" },
    ]);
    assert.deepEqual(out.create, []);
    assert.deepEqual(out.update, [
      { taskId: "4", roleIndex: 0, status: "completed", subject: "db (failed)" },
      { taskId: "7", status: "deleted", reason: "a second task for the same role" },
    ]);
    assert.deepEqual(out.unmatched, ["8"], "a task of the session's own is left alone");
  });

  it("creates a task for a role already under way with the status it must take", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "db", status: "completed" }, { name: "api", status: "in_progress" }]) });
    const out: any = await sync(p, []);
    assert.deepEqual(out.create.map((c: any) => [c.subject, c.thenStatus]), [["db", "completed"], ["api", "in_progress"]]);
  });

  it("refuses malformed task lists and changes no file", async (t) => {
    const p = project(t, { [P]: planWith(["db"]) });
    const before = p.read(P);
    for (const [stdin, msg] of [
      ["{}", /Expected JSON array/],
      ["[1]", /Task 0: must be an object/],
      ['[{"subject": "db", "status": "pending"}]', /Task 0: id must be the task's id/],
      ['[{"id": "1", "status": "pending"}]', /subject must be a string/],
      ['[{"id": "1", "subject": "db", "status": "pending", "blockedBy": "2"}]', /blockedBy must be a list/],
      ["not json", /Invalid JSON in stdin/],
    ] as const) {
      const out = await p.run("task-sync", [], { stdin });
      assert.equal(out.ok, false, stdin);
      assert.match(out.error as string, msg);
    }
    assert.equal(p.read(P), before);
    assert.equal((await project(t).run("task-sync", [], { stdin: "[]" })).code, "E_NOT_FOUND");
  });
});
