import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { makeContext, type Result } from "../../src/lib/command/command.ts";
import { invoke } from "../../src/main.ts";
import { project } from "../helpers/design-dir.ts";

/** Run team-name with a given working directory. */
async function teamName(cwd: string, argv: string[]): Promise<Result & { exitCode: number }> {
  const out = await invoke("team-name", argv, makeContext(cwd));
  return { ...out.output, exitCode: out.exitCode };
}

const md5six = (s: string) => createHash("md5").update(s, "utf8").digest("hex").slice(0, 6);

describe("team-name", () => {
  it("reproduces the contract's example for /tmp/contract-work/My Project_Name.v2", async () => {
    const out = await teamName("/tmp/contract-work/My Project_Name.v2", ["design"]);
    assert.deepEqual(out, { ok: true, teamName: "do-design-my-project-name-v2-7d837d", exitCode: 0 });
  });

  it("gives an empty slug and the hash of / at the file-system root", async () => {
    const out = await teamName("/", ["x"]);
    assert.deepEqual(out, { ok: true, teamName: "do-x--6666cd", exitCode: 0 });
  });

  it("names a real project folder after its last component and the MD5 of its full path", async (t) => {
    const dir = join(project(t).dir, "My Project_Name.v2");
    mkdirSync(dir);
    const out = await teamName(dir, ["design"]);
    assert.equal(out.teamName, `do-design-my-project-name-v2-${md5six(dir)}`);
  });

  it("ignores a trailing slash on the working directory", async (t) => {
    const dir = join(project(t).dir, "proj");
    mkdirSync(dir);
    assert.equal((await teamName(`${dir}/`, ["execute"])).teamName, `do-execute-proj-${md5six(dir)}`);
  });

  it("keeps a trailing dash left by the 20-character cut", async (t) => {
    const dir = join(project(t).dir, "abcdefghijklmnopqrs tuv");
    mkdirSync(dir);
    assert.equal((await teamName(dir, ["recon"])).teamName, `do-recon-abcdefghijklmnopqrs--${md5six(dir)}`);
  });

  it("strips dashes at both ends and collapses runs of other characters", async (t) => {
    const dir = join(project(t).dir, "__Ünïcode   & Co__");
    mkdirSync(dir);
    assert.equal((await teamName(dir, ["improve"])).teamName, `do-improve-n-code-co-${md5six(dir)}`);
  });

  it("uses the skill text verbatim", async () => {
    assert.equal((await teamName("/", ["Design X"])).teamName, "do-Design X--6666cd");
  });

  it("fails with an argument error when the skill is missing", async () => {
    const out = await teamName("/", []);
    assert.equal(out.ok, false);
    assert.equal(out.code, "E_USAGE");
    assert.equal(out.error, "team-name: missing required argument skill");
    assert.equal(out.exitCode, 1);
  });

  it("refuses a second positional", async () => {
    const out = await teamName("/", ["design", "extra"]);
    assert.equal(out.code, "E_USAGE");
    assert.equal(out.exitCode, 1);
  });
});
