// Git runs nothing the repository configures: a hostile `.git/config` and `.gitattributes` (filter drivers, textconv,
// external diff, fsmonitor, hook files and configuration hooks, a promisor remote whose URL runs a command through
// `ext::` with `protocol.ext.allow=always`, ssh, credential and askpass programs, pagers) against every git call of
// every command that runs git: run-begin's status, next's and update-status's snapshots, clean-attempt (with a blob
// missing, so git would lazily fetch it), commit and finish. Each program would create a marker file; none may exist.
// Run on the machine's git; DO_TEST_GIT names another git's folder to put first on PATH (a newer release).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planWith } from "../helpers/design-dir.ts";
import { gitProject, markerScript, PLAN } from "../helpers/git-project.ts";

const checks = (...cmds: string[]) => cmds.map((c, k) => ({ criterion: `criterion ${k}`, check: c }));
const plan = (): any => planWith([{ name: "api", acceptanceCriteria: checks("true") }, { name: "ui", acceptanceCriteria: checks("true") }]);
const files = { "src/api/a.ts": "original a\n", "src/api/b.ts": "original b\n", "src/ui/u.ts": "u\n" };
const HOOKS = ["pre-commit", "commit-msg", "post-commit", "reference-transaction", "post-index-change", "post-checkout", "post-rewrite", "pre-auto-gc", "fsmonitor-watchman"];

/** Plant every program a repository can name; each touches `<markers>/<what>`. */
function plant(p: any, markers: string): void {
  const script = (what: string, tail = "") => markerScript(p.outside, `${what}.sh`, join(markers, what), tail);
  const set = (k: string, v: string) => p.git("config", "--add", k, v);
  set("filter.evil.clean", `${script("filter-clean")}; cat`);
  set("filter.evil.smudge", `${script("filter-smudge")}; cat`);
  set("filter.evil.process", script("filter-process"));
  set("filter.evil.required", "true");
  set("diff.evil.textconv", script("textconv"));
  set("diff.evil.command", script("diff-command"));
  set("diff.external", script("diff-external"));
  set("merge.evil.driver", script("merge-driver"));
  set("core.fsmonitor", script("fsmonitor"));
  set("core.pager", script("core-pager"));
  set("pager.status", script("pager-status"));
  set("core.sshCommand", script("ssh"));
  set("core.askPass", script("askpass"));
  set("credential.helper", `!${script("credential")}`);
  set("gpg.program", script("gpg"));
  set("commit.gpgSign", "true");
  const hooks = join(p.outside, "hooks");
  mkdirSync(hooks, { recursive: true });
  for (const h of HOOKS) {
    markerScript(hooks, h, join(markers, `hook-${h}`));
    markerScript(join(p.dir, ".git", "hooks"), h, join(markers, `git-hooks-${h}`));
  }
  set("core.hooksPath", hooks);
  for (const h of HOOKS) set("hook.evil.event", h);
  set("hook.evil.command", script("config-hook"));
  // A promisor remote whose "transport" is a command: a missing object would be fetched by running it.
  set("core.repositoryformatversion", "1");
  set("extensions.partialClone", "origin");
  set("remote.origin.url", `ext::sh -c ${script("ext-transport")}`);
  set("remote.origin.promisor", "true");
  set("remote.origin.uploadpack", script("uploadpack"));
  set("protocol.ext.allow", "always");
  set("protocol.allow", "always");
  set("core.gitProxy", script("git-proxy"));
  writeFileSync(join(p.dir, ".gitattributes"), "* filter=evil diff=evil merge=evil\n");
}

const ran = (markers: string) => readdirSync(markers).sort();

describe("git runs nothing the repository configures", () => {
  it("run-begin, next, update-status, clean-attempt, commit and finish under a hostile .git/config and .gitattributes", async (t) => {
    const saved = process.env.PATH;
    if (process.env.DO_TEST_GIT) process.env.PATH = `${process.env.DO_TEST_GIT}:${saved}`;
    t.after(() => {
      process.env.PATH = saved;
    });
    const p = await gitProject(t, plan(), files);
    const markers = join(p.outside, "markers");
    mkdirSync(markers);
    plant(p, markers);
    // The planting itself ran nothing (the test's own git calls only set configuration).
    assert.deepEqual(ran(markers), []);

    // run-begin's status, before any grant (a project of its own: a grant would keep run-begin from starting over).
    const b = await gitProject(t, plan(), files, { grant: false });
    const bm = join(b.outside, "markers");
    mkdirSync(bm);
    plant(b, bm);
    b.write("src/api/a.ts", "dirty\n");
    const begin: any = await b.run("run-begin", ["execute"]);
    assert.equal(begin.ok, true, JSON.stringify(begin));
    assert.ok(begin.git.dirty.includes("src/api/a.ts"), JSON.stringify(begin.git));
    assert.deepEqual(ran(bm), [], "run-begin's status ran nothing");
    const next: any = await p.run("next", [PLAN]);
    assert.equal(next.ok, true, JSON.stringify(next));
    const log = p.json(PLAN).roles[0].attemptLog;
    assert.ok(log[0].snapshot.tree, `next took a snapshot: ${JSON.stringify(log[0])}`);
    const agent = log[0].agent;
    // Attempt 1 changes a tracked file and adds one, then fails.
    p.write("src/api/a.ts", "attempt 1\n");
    p.write("src/api/n.ts", "attempt 1's file\n");
    const failed: any = await p.run("update-status", [PLAN], { stdin: JSON.stringify([{ roleIndex: 0, status: "failed", result: "no" }]) });
    assert.equal(failed.ok, true, JSON.stringify(failed));
    const clean: any = await p.run("clean-attempt", [PLAN, "--role", "0"]);
    assert.equal(clean.ok, true, JSON.stringify(clean));
    assert.deepEqual([clean.restored, clean.removed], [["src/api/a.ts"], ["src/api/n.ts"]]);
    assert.equal(p.read("src/api/a.ts"), "original a\n");
    // The retry's start (update-status takes its snapshot), then a worker that finishes with a commit.
    const retry: any = await p.run("update-status", [PLAN], {
      stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", agent: `${agent}-2`, reflexion: { rootCause: "the first try was wrong", wrongAssumptions: "that a was simple", alternative: "do it in smaller steps" } }]),
    });
    assert.equal(retry.ok, true, JSON.stringify(retry));
    p.write("src/api/a.ts", "attempt 2\n");
    p.write(`.design/worker-${agent}-2.json`, JSON.stringify({ role: "api", achieved: true, filesChanged: ["src/api/a.ts"], acceptanceCriteria: [{ criterion: "c", passed: true, evidence: "e" }] }));
    const finish: any = await p.run("finish", [PLAN, "--agent", `${agent}-2`, "--tokens", "10"]);
    assert.equal(finish.ok, true, JSON.stringify(finish));
    // The filter attribute keeps the file out of the commit (its bytes would go in unfiltered), so commit the other way:
    // a plain commit of a file the .gitattributes does not name.
    writeFileSync(join(p.dir, ".gitattributes"), "*.ts filter=evil diff=evil merge=evil\n");
    p.write("src/ui/u.md", "ui notes\n");
    const uiAgent = p.json(PLAN).roles[1].attemptLog[0].agent;
    p.write("src/ui/v.md", "the ui worker's file\n");
    p.write(`.design/worker-${uiAgent}.json`, JSON.stringify({ role: "ui", achieved: true, filesChanged: ["src/ui/v.md"], acceptanceCriteria: [] }));
    const commit: any = await p.run("commit", [PLAN, "--role", "ui"]);
    assert.equal(commit.ok, true, JSON.stringify(commit));
    assert.deepEqual(commit.files, ["src/ui/v.md"]);
    assert.ok(commit.sha, "committed without a signature program");

    // A blob the snapshot needs is missing: git would fetch it from the promisor remote (the ext:: command).
    const q = await gitProject(t, plan(), files);
    const qm = join(q.outside, "markers");
    mkdirSync(qm);
    plant(q, qm);
    await q.run("update-status", [PLAN], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", agent: "api" }]) });
    const blob = q.git("rev-parse", "HEAD:src/api/b.ts").trim();
    q.write("src/api/b.ts", "attempt\n");
    await q.run("update-status", [PLAN], { stdin: JSON.stringify([{ roleIndex: 0, status: "failed", result: "no" }]) });
    rmSync(join(q.dir, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    const lazy: any = await q.run("clean-attempt", [PLAN, "--role", "0"]);
    assert.equal(lazy.code, "E_INVALID", JSON.stringify(lazy));
    assert.equal(q.read("src/api/b.ts"), "attempt\n", "nothing restored from nowhere");

    assert.deepEqual(ran(markers), [], "no program the repository configures ran");
    assert.deepEqual(ran(qm), [], "no lazy fetch ran the promisor remote's command");
  });
});
