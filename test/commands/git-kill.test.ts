// Kill tests of the commands that run git on the user's tree: `next` (the start's snapshot), `clean-attempt`,
// `commit` and `finish`, each a real process of the built bundle SIGKILLed at every crash point it passes and at 60
// random moments (more under DO_SOAK=1, test/helpers/crash.ts), then called again. After the retry: nothing the user
// wrote is lost or changed (their uncommitted edit, staged file and untracked file, byte for byte, and their index),
// nothing is committed twice, a completed role's work is committed, and the state lets the next call continue.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { planWith } from "../helpers/design-dir.ts";
import { cliSync, PLAN_JS } from "../helpers/cli.ts";
import { crashSweep, runCrashing } from "../helpers/crash.ts";
import { git as gitIn, gitProject, PLAN, type GitProject } from "../helpers/git-project.ts";

const APPROVE = resolve(__dirname, "../../skills/execute/scripts/grant-approve.js");
const checks = (...cmds: string[]) => cmds.map((c, k) => ({ criterion: `criterion ${k}`, check: c }));
const plan = (): any => planWith([{ name: "api", acceptanceCriteria: checks("true") }, { name: "ui", acceptanceCriteria: checks("true") }]);
const files = { "src/api/a.ts": "original a\n", "src/api/old.ts": "old\n", "src/api/b.ts": "original b\n", "src/ui/u.ts": "u\n" };
const USER = { "src/api/b.ts": "the user's uncommitted edit\n", "src/api/notes.md": "the user's untracked notes\n", "src/api/staged.ts": "the user's staged file\n" };
const read = (dir: string, rel: string) => (existsSync(join(dir, rel)) ? readFileSync(join(dir, rel), "utf8") : null);
const git = (dir: string, ...args: string[]) => gitIn(dir, ...args);

/** The user's work before the run: an uncommitted edit, an untracked file and a staged file, all in api's scope. */
function userWork(p: GitProject): void {
  for (const [rel, text] of Object.entries(USER)) p.write(rel, text);
  p.git("add", "--", "src/api/staged.ts");
}

function assertUserWork(dir: string): void {
  for (const [rel, text] of Object.entries(USER)) assert.equal(read(dir, rel), text, `${rel}: the user's bytes`);
  assert.equal(git(dir, "show", ":src/api/staged.ts"), USER["src/api/staged.ts"], "the user's staged file stays staged");
  assert.equal(git(dir, "show", ":src/api/b.ts"), files["src/api/b.ts"], "the user's unstaged edit stays unstaged");
}

/** A template project (async setup), copied afresh for every case with its own grant (grant-approve.js). */
async function template(t: any, setup: (p: GitProject) => Promise<void> | void): Promise<() => string> {
  const p = await gitProject(t, plan(), files, { grant: false });
  await setup(p);
  return () => {
    const dir = mkdtempSync(join(tmpdir(), "do-gitkill-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    cpSync(p.dir, dir, { recursive: true });
    const r = spawnSync(process.execPath, [APPROVE, PLAN], { cwd: dir, encoding: "utf8" });
    assert.equal(JSON.parse(r.stdout).recorded, true, r.stdout + r.stderr);
    return dir;
  };
}

const call = (args: string[]) => ({ args });
const ok = (dir: string, args: string[], stdin?: string) => {
  const r = cliSync(args, { cwd: dir, stdin });
  assert.equal(r.json?.ok, true, r.stdout + r.stderr);
  return r.json;
};
const commits = (dir: string) => Number(git(dir, "rev-list", "--count", "HEAD").trim());

describe("git steps survive kill -9 at any point", () => {
  it("next: the start's snapshot never touches the user's tree or index; a recorded start always has its snapshot", async (t) => {
    const prepare = await template(t, (p) => userWork(p));
    const report = await crashSweep({
      prepare,
      call: call(["next", PLAN]),
      minPoints: 2,
      check: (dir) => {
        const index = git(dir, "ls-files", "-s");
        assertUserWork(dir);
        ok(dir, ["next", PLAN]);
        assertUserWork(dir);
        assert.equal(git(dir, "ls-files", "-s"), index, "the user's index is as it was");
        for (const role of JSON.parse(read(dir, PLAN) as string).roles) {
          assert.equal(role.attemptLog.length, 1, "one start per role, never two");
          assert.match(role.attemptLog[0].snapshot?.tree ?? "", /^[0-9a-f]{40}$/, "the recorded start names its snapshot");
        }
        assert.equal(commits(dir), 1);
      },
    });
    assert.ok(report.killed > 0);
  });

  it("clean-attempt: a kill anywhere, then the retry, undoes only the attempt", async (t) => {
    const prepare = await template(t, async (p) => {
      userWork(p);
      for (const u of [{ roleIndex: 0, status: "in_progress", agent: "api" }, { roleIndex: 0, status: "failed", result: "no" }]) {
        const out: any = await p.run("update-status", [PLAN], { stdin: JSON.stringify([u]) });
        assert.equal(out.ok, true, JSON.stringify(out));
      }
      // What the attempt did before it failed, after its snapshot was taken above.
      p.write("src/api/a.ts", "attempt\n");
      p.write("src/api/b.ts", "attempt over the user's edit\n");
      p.write("src/api/notes.md", "attempt over the user's notes\n");
      rmSync(join(p.dir, "src/api/old.ts"));
      for (const k of [1, 2, 3, 4, 5]) p.write(`src/api/new${k}.ts`, `attempt's file ${k}\n`);
    });
    const report = await crashSweep({
      prepare,
      call: call(["clean-attempt", PLAN, "--role", "0"]),
      minPoints: 2,
      check: (dir) => {
        ok(dir, ["clean-attempt", PLAN, "--role", "0"]);
        assertUserWork(dir);
        assert.equal(read(dir, "src/api/a.ts"), files["src/api/a.ts"]);
        assert.equal(read(dir, "src/api/old.ts"), files["src/api/old.ts"]);
        for (const k of [1, 2, 3, 4, 5]) assert.equal(read(dir, `src/api/new${k}.ts`), null);
        const again = ok(dir, ["clean-attempt", PLAN, "--role", "0"]);
        assert.deepEqual([again.restored, again.removed], [[], []]);
      },
    });
    assert.ok(report.killed > 0);
  });

  const worked = (p: GitProject) => {
    p.write("src/api/a.ts", "the attempt's a\n");
    rmSync(join(p.dir, "src/api/old.ts"));
    p.write("src/api/new.ts", "the attempt's file\n");
  };
  const listed = ["src/api/a.ts", "src/api/old.ts", "src/api/new.ts", "src/api/b.ts"];
  const committedOnce = (dir: string) => {
    assert.equal(commits(dir), 2, "the role's work is committed exactly once");
    const names = git(dir, "show", "--name-status", "--format=", "HEAD").trim().split("\n").sort();
    assert.deepEqual(names, ["A\tsrc/api/new.ts", "D\tsrc/api/old.ts", "M\tsrc/api/a.ts"]);
    assertUserWork(dir);
    const status = git(dir, "status", "--porcelain", "--untracked-files=all").split("\n").filter((l) => l && !l.slice(3).startsWith(".design/")).sort();
    assert.deepEqual(status, [" M src/api/b.ts", "?? src/api/notes.md", "A  src/api/staged.ts"]);
  };

  it("commit: a kill between any two steps, then the retry, commits the attempt's work once and nothing of the user's", async (t) => {
    const prepare = await template(t, async (p) => {
      userWork(p);
      const out: any = await p.run("update-status", [PLAN], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", agent: "api" }]) });
      assert.equal(out.ok, true, JSON.stringify(out));
      worked(p);
      p.write(".design/worker-api.json", JSON.stringify({ role: "api", achieved: true, filesChanged: listed, acceptanceCriteria: [] }));
    });
    const report = await crashSweep({
      prepare,
      call: call(["commit", PLAN, "--role", "api"]),
      minPoints: 4,
      check: (dir) => {
        ok(dir, ["commit", PLAN, "--role", "api"]);
        committedOnce(dir);
        const again = ok(dir, ["commit", PLAN, "--role", "api"]);
        assert.equal(again.sha, null);
        committedOnce(dir);
      },
    });
    assert.ok(report.killed > 0);
  });

  it("finish: a kill between its plan write and its commit (or anywhere), then the retry, leaves the role completed and committed once", async (t) => {
    const prepare = await template(t, async (p) => {
      userWork(p);
      const out: any = await p.run("update-status", [PLAN], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", agent: "api-dev" }]) });
      assert.equal(out.ok, true, JSON.stringify(out));
      worked(p);
      p.write(".design/worker-api-dev.json", JSON.stringify({ role: "api", achieved: true, filesChanged: listed, acceptanceCriteria: [{ criterion: "c", passed: true, evidence: "e" }] }));
    });
    const args = ["finish", PLAN, "--agent", "api-dev", "--tokens", "100"];
    const report = await crashSweep({
      prepare,
      call: call(args),
      minPoints: 4,
      check: (dir) => {
        const r = ok(dir, args);
        assert.equal(r.status, "completed");
        const role = JSON.parse(read(dir, PLAN) as string).roles[0];
        assert.equal(role.status, "completed");
        assert.equal(role.attemptLog.length, 1);
        committedOnce(dir);
        const again = ok(dir, args);
        assert.equal(again.alreadyRecorded, true);
        committedOnce(dir);
      },
    });
    assert.ok(report.killed > 0);
  });

  it("the named kill of the issue: finish killed right after its plan write is completed by the next call", async (t) => {
    const prepare = await template(t, async (p) => {
      const out: any = await p.run("update-status", [PLAN], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", agent: "api-dev" }]) });
      assert.equal(out.ok, true, JSON.stringify(out));
      worked(p);
      p.write(".design/worker-api-dev.json", JSON.stringify({ role: "api", achieved: true, filesChanged: listed.slice(0, 3), acceptanceCriteria: [{ criterion: "c", passed: true, evidence: "e" }] }));
    });
    const dir = prepare();
    const killed = await runCrashing({ args: ["finish", PLAN, "--agent", "api-dev"] }, dir, { at: "finish:recorded" });
    assert.equal(killed.killed, true);
    assert.equal(JSON.parse(read(dir, PLAN) as string).roles[0].status, "completed");
    assert.equal(commits(dir), 1, "killed before its commit");
    const retry = ok(dir, ["finish", PLAN, "--agent", "api-dev"]);
    assert.deepEqual([retry.alreadyRecorded, retry.commit.files], [true, ["src/api/a.ts", "src/api/old.ts", "src/api/new.ts"]]);
    assert.equal(commits(dir), 2);
    // And commit killed after the user's index got the deletion, before HEAD moved: the retry still commits it.
    const d2 = prepare();
    const k2 = await runCrashing({ args: ["commit", PLAN, "--role", "api"] }, d2, { at: "commit:index-updated" });
    assert.equal(k2.killed, true);
    assert.equal(commits(d2), 1);
    const r2 = ok(d2, ["commit", PLAN, "--role", "api"]);
    assert.deepEqual(r2.files, ["src/api/a.ts", "src/api/old.ts", "src/api/new.ts"]);
    assert.match(execFileSync("git", ["show", "--name-status", "--format=", "HEAD"], { cwd: d2, encoding: "utf8" }), /D\tsrc\/api\/old\.ts/);
  });
});
