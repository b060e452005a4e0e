// The store's locked write protocol killed at every step boundary (src/base/crash-point.ts) and at random moments
// between: plan.json is always the old or the new content, never torn; the next writer goes through at once and
// finds no lock, temp file or half-applied change left.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli } from "../helpers/cli.ts";
import { assertNothingBlocks, assertSound, crashSweep, runCrashing } from "../helpers/crash.ts";
import { planWith, writeFiles } from "../helpers/design-dir.ts";

function tempProject(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), "do-crash-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const roles = Array.from({ length: 4 }, (_, i) => ({ name: `role-${i}`, status: "pending", attempts: 0, result: null }));
  writeFiles(dir, { ".design/plan.json": planWith(roles) });
  return dir;
}

describe("crash points", () => {
  it("are free when unset, counted on DO_CRASH_FD, and kill at DO_CRASH_AT by number or label", async (t) => {
    const dir = tempProject(t);
    const call = { args: ["update-status"], stdin: '[{"roleIndex":1,"status":"in_progress","result":"r"}]' };
    const count = await runCrashing(call, dir);
    assert.equal(count.code, 0, count.stdout);
    assert.deepEqual(count.points, ["lock:acquired", "write:temp-written", "write:temp-synced", "write:renamed", "lock:release"]);
    const byLabel = await runCrashing(call, tempProject(t), { at: "write:renamed" });
    assert.equal(byLabel.killed, true);
    assert.deepEqual(byLabel.points, ["lock:acquired", "write:temp-written", "write:temp-synced", "write:renamed"]);
    const byNumber = await runCrashing(call, tempProject(t), { at: 2 });
    assert.equal(byNumber.killed, true);
    assert.deepEqual(byNumber.points, ["lock:acquired", "write:temp-written"]);
    const plain = await cli(["update-status"], { cwd: tempProject(t), stdin: call.stdin });
    assert.equal(plain.code, 0, plain.stdout);
  });
});

describe("the locked write protocol killed at any point", () => {
  it("leaves plan.json old or new, and the retry applies the change once", async (t) => {
    const change = '[{"roleIndex":2,"status":"in_progress","result":"new"}]';
    const report = await crashSweep({
      prepare: () => tempProject(t),
      call: { args: ["update-status"], stdin: change },
      minPoints: 5,
      check: async (dir) => {
        assertSound(dir);
        const plan = JSON.parse(readFileSync(join(dir, ".design/plan.json"), "utf8"));
        const role = plan.roles[2];
        assert.ok(
          (role.status === "pending" && role.result === null) || (role.status === "in_progress" && role.result === "new"),
          `role 2 is old or new: ${JSON.stringify(role)}`,
        );
        const retry = await cli(["update-status"], { cwd: dir, stdin: change });
        assert.equal(retry.code, 0, retry.stdout);
        const after = JSON.parse(readFileSync(join(dir, ".design/plan.json"), "utf8"));
        assert.equal(after.roles[2].status, "in_progress");
        assert.equal(after.roles[2].result, "new");
        assert.deepEqual(after.roles.map((r: { name: string }) => r.name), ["role-0", "role-1", "role-2", "role-3"]);
        assertNothingBlocks(dir);
      },
    });
    assert.ok(report.killed >= report.points.length, `killed ${report.killed} of ${report.cases}`);
  });
});
