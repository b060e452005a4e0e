// Grant approval (grant-approve.js) killed at every step boundary and at random moments between: the key is whole
// or absent, never half-written, and the retried approval records a grant signed with the key on disk.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { assertNothingBlocks, assertSound, copyProject, crashSweep, runCrashing } from "../helpers/crash.ts";
import { planWith, writeFiles } from "../helpers/design-dir.ts";
import { signGrant } from "../../src/lib/grant/grant.ts";

const APPROVE = resolve(__dirname, "../../skills/execute/scripts/grant-approve.js");
const P = ".design/plan.json";

describe("grant approval killed at any point", () => {
  it("leaves the key whole or absent, and the retried approval records a grant the key on disk signed", async (t) => {
    const tpl = mkdtempSync(join(tmpdir(), "do-crash-tpl-"));
    t.after(() => rmSync(tpl, { recursive: true, force: true }));
    writeFiles(tpl, {
      [P]: planWith([{ name: "api", dirs: ["src/api/"], acceptanceCriteria: [{ criterion: "tests", check: "npm test -- api" }] }]),
      ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "run-1", completedAt: null },
    });
    // Each project gets its own config folder (outside it) for the key: the key is made fresh in every case.
    const configs = new Map<string, string>();
    const configOf = (dir: string) => {
      let c = configs.get(dir);
      if (!c) {
        c = mkdtempSync(join(tmpdir(), "do-crash-config-"));
        const made = c;
        t.after(() => rmSync(made, { recursive: true, force: true }));
        configs.set(dir, c);
      }
      return c;
    };
    const callOf = (dir: string) => ({ script: APPROVE, args: [P], env: { CLAUDE_CONFIG_DIR: configOf(dir) } });
    const report = await crashSweep({
      prepare: () => copyProject(t, tpl),
      call: callOf,
      minPoints: 8,
      check: async (dir) => {
        assertSound(dir);
        const keyDir = join(configOf(dir), "do");
        const key = join(keyDir, "grant.key");
        if (existsSync(key)) {
          assert.match(readFileSync(key, "utf8"), /^[0-9a-f]{64}\n$/, "a key on disk is whole");
          assert.equal(lstatSync(key).mode & 0o777, 0o600);
        }
        const retry = await runCrashing(callOf(dir), dir);
        assert.equal(retry.code, 0, retry.stdout);
        assert.equal(retry.json.recorded, true);
        const grant = JSON.parse(readFileSync(join(dir, ".design/grant.json"), "utf8"));
        assert.equal(grant.grantId, retry.json.grantId);
        const { signature, ...body } = grant;
        const onDisk = Buffer.from(readFileSync(key, "utf8").trim(), "hex");
        assert.equal(signature, signGrant(body, onDisk), "signed with the key on disk");
        assert.deepEqual(readdirSync(keyDir), ["grant.key"], "no temp key left");
        assertNothingBlocks(dir);
      },
    });
    assert.ok(["key:temp-written", "key:temp-synced", "key:linked"].every((p) => report.points.includes(p)), report.points.join(", "));
  });
});
