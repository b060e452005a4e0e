// SIGKILL during run-checkpoint: the run state is always the old or the new version, never partial.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, PLAN_JS } from "../helpers/cli.ts";
import { soak } from "../helpers/soak.ts";

describe("run-checkpoint killed with SIGKILL", () => {
  it("leaves the run state old or new, and the next checkpoint goes through", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "do-runkill-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const phases = Array.from({ length: soak(60, 220) }, (_, i) => `p${i}`);
    const start = await cli(["run-start", "design", "--phases", phases.join(","), "--goal", "g"], { cwd: dir });
    assert.equal(start.code, 0, start.stdout);
    const statePath = join(dir, ".design/run-design.json");
    let done = 0;
    for (let k = 0; k < soak(40, 200); k++) {
      const before = readFileSync(statePath, "utf8");
      await new Promise<void>((resolve) => {
        const child = spawn(process.execPath, [PLAN_JS, "run-checkpoint", "design", "--phase", phases[done], "--decisions", `kill ${k}`], { cwd: dir, stdio: "ignore" });
        setTimeout(() => child.kill("SIGKILL"), 40 + Math.floor(Math.random() * 120));
        child.on("close", () => resolve());
      });
      const after = readFileSync(statePath, "utf8");
      const state = JSON.parse(after);
      if (after !== before) {
        assert.equal(state.completed.length, done + 1, "a changed state is the complete new version");
        done++;
      }
      assert.deepEqual(state.completed.map((c: { phase: string }) => c.phase), phases.slice(0, done));
    }
    const next = await cli(["run-checkpoint", "design", "--phase", phases[done]], { cwd: dir });
    assert.equal(next.code, 0, next.stdout);
    assert.deepEqual(readdirSync(join(dir, ".design")).filter((n) => n.endsWith(".tmp")), []);
  });
});
