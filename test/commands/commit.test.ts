// commit: the helper commits a role's reported files inside its granted scope and nothing else, with git run
// without a shell, hooks, fsmonitor, filters or signing, only while the execute grant verifies.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planWith } from "../helpers/design-dir.ts";
import { exists, gitProject, markerScript, PLAN, RUN_STATE } from "../helpers/git-project.ts";

const checks = (...cmds: string[]) => cmds.map((c, k) => ({ criterion: `criterion ${k}`, check: c }));
const plan = (): any =>
  planWith([
    { name: "api", acceptanceCriteria: checks("true") },
    { name: "ui", acceptanceCriteria: checks("true") },
    { name: "docs", acceptanceCriteria: checks("true") },
  ]);

/** The plan with the docs role's scope as a pattern (planWith puts `dirs` into scope.directories). */
function planWithDocs(): any {
  const doc = plan();
  doc.roles[2].scope = { directories: [], patterns: ["*.md"], dependencies: [] };
  return doc;
}

const files = {
  "src/api/a.ts": "export const a = 1;\n",
  "src/api/old.ts": "old\n",
  "src/ui/u.ts": "export const u = 1;\n",
  "README.md": "# readme\n",
};

const report = (filesChanged: unknown[], role = "api") => JSON.stringify({ role, achieved: true, filesChanged, acceptanceCriteria: [] });

/** Role 0 (api) started as agent `api` and ran: its start recorded the snapshot of its scope. */
async function startApi(p: any): Promise<void> {
  const out: any = await p.run("update-status", [PLAN], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", agent: "api" }]) });
  assert.equal(out.ok, true, JSON.stringify(out));
}

describe("commit: the attempt's changes, never the user's", () => {
  it("a reported file the user had dirty and the attempt did not touch stays uncommitted; one it changed is named", async (t) => {
    const p = await gitProject(t, plan(), files);
    p.write("src/api/a.ts", "the user's uncommitted edit\n");
    p.write("src/api/old.ts", "the user's edit, which the attempt builds on\n");
    p.write("src/api/staged.ts", "the user's staged new file\n");
    p.git("add", "--", "src/api/staged.ts");
    await startApi(p);
    p.write("src/api/old.ts", "the user's edit, which the attempt builds on\nand the attempt's line\n");
    p.write("src/api/new.ts", "the attempt's file\n");
    p.write(".design/worker-api.json", report(["src/api/a.ts", "src/api/old.ts", "src/api/new.ts"]));
    const out: any = await p.run("commit", [PLAN, "--role", "api"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual(out.files, ["src/api/old.ts", "src/api/new.ts"]);
    assert.deepEqual(out.withUserChanges, ["src/api/old.ts"]);
    assert.deepEqual(out.skipped, [{ path: "src/api/a.ts", reason: "holds your uncommitted change, which the attempt did not touch: left uncommitted" }]);
    assert.equal(p.read("src/api/a.ts"), "the user's uncommitted edit\n");
    assert.deepEqual(p.headFiles().sort(), ["A src/api/new.ts", "M src/api/old.ts"]);
    // The user's index: the committed paths follow HEAD, the user's staged file stays staged, the dirty one unstaged.
    assert.deepEqual(p.status().sort(), [" M src/api/a.ts", "A  src/api/staged.ts"]);
    // Repeated: nothing committed twice.
    const again: any = await p.run("commit", [PLAN, "--role", "api"]);
    assert.deepEqual([again.ok, again.sha, again.files], [true, null, []]);
    assert.equal(p.git("rev-list", "--count", "HEAD").trim(), "2");
  });

  it("commits a role's work in a repository with no commits yet, and a deletion the index already has", async (t) => {
    const p = await gitProject(t, plan(), files, { repo: false });
    p.git("init", "-q", "-b", "main");
    p.git("config", "user.name", "Test User");
    p.git("config", "user.email", "test@example.com");
    await startApi(p);
    p.write("src/api/a.ts", "the attempt's a\n");
    p.write(".design/worker-api.json", report(["src/api/a.ts"]));
    const out: any = await p.run("commit", [PLAN, "--role", "api"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual(out.files, ["src/api/a.ts"]);
    assert.deepEqual(p.headFiles(), ["A src/api/a.ts"]);
    assert.equal(p.git("log", "-1", "--format=%an").trim(), "Test User");
    // A deletion staged by an earlier, killed call (git rm --cached as that call's index update left it) still commits.
    rmSync(join(p.dir, "src/api/a.ts"));
    p.git("rm", "-q", "--cached", "--", "src/api/a.ts");
    const del: any = await p.run("commit", [PLAN, "--role", "api"]);
    assert.deepEqual([del.ok, del.files], [true, ["src/api/a.ts"]]);
    assert.deepEqual(p.headFiles(), ["D src/api/a.ts"]);
    assert.equal(p.status().filter((l) => l.endsWith("src/api/a.ts")).length, 0, "index, HEAD and work tree agree on the deletion");
  });
});

describe("commit", () => {
  it("commits exactly the role's reported files: changed, new and deleted [ac:execute/3]", async (t) => {
    const p = await gitProject(t, planWithDocs(), files);
    p.write("src/api/a.ts", "export const a = 2;\n");
    p.write("src/api/new.ts", "export const n = 1;\n");
    rmSync(join(p.dir, "src/api/old.ts"));
    p.write("src/api/unreported.ts", "not listed\n");
    p.write(".design/worker-api.json", report(["src/api/a.ts", "./src/api/new.ts", "src/api/old.ts", "src/api/a.ts"]));
    const before = p.git("rev-parse", "HEAD").trim();
    const out: any = await p.run("commit", [PLAN, "--role", "0", "--report", ".design/worker-api.json", "--message", "api: orders endpoint"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual(out.files, ["src/api/a.ts", "src/api/new.ts", "src/api/old.ts"]);
    assert.deepEqual(out.skipped, []);
    assert.equal(out.sha, p.git("rev-parse", "HEAD").trim());
    assert.equal(p.git("rev-parse", "HEAD~1").trim(), before);
    assert.deepEqual(p.headFiles().sort(), ["A src/api/new.ts", "D src/api/old.ts", "M src/api/a.ts"]);
    assert.equal(p.git("log", "-1", "--format=%s").trim(), "api: orders endpoint");
    // What the role did not report stays as it was: untracked, not staged.
    assert.ok(p.status().includes("?? src/api/unreported.ts"), p.status().join("\n"));
    // Nothing left to commit: answered, no empty commit.
    const again: any = await p.run("commit", [PLAN, "--role", "api", "--report", ".design/worker-api.json"]);
    assert.deepEqual([again.ok, again.sha, again.files], [true, null, []]);
    assert.match(again.note, /nothing to commit/);
    assert.equal(p.git("rev-parse", "HEAD").trim(), out.sha);
  });

  it("reads the report of the role's newest attempt by default and writes a default message", async (t) => {
    const doc = planWithDocs();
    const p = await gitProject(t, doc, files);
    const started: any = await p.run("update-status", [PLAN], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", agent: "api-dev" }]) });
    assert.equal(started.ok, true, JSON.stringify(started));
    p.write("src/api/a.ts", "changed\n");
    p.write(".design/worker-api-dev.json", report(["src/api/a.ts"]));
    const out: any = await p.run("commit", [PLAN, "--role", "0"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal(out.report, ".design/worker-api-dev.json");
    assert.deepEqual(out.files, ["src/api/a.ts"]);
    assert.equal(p.git("log", "-1", "--format=%s").trim(), "api: Do api");
  });

  it("leaves out every reported path that is not the role's, and says why", async (t) => {
    const p = await gitProject(t, planWithDocs(), files);
    const secret = join(p.outside, "secret.txt");
    writeFileSync(secret, "secret\n");
    p.write("src/api/a.ts", "changed\n");
    p.write("src/ui/u.ts", "changed by api\n");
    p.write("src/api/*", "a file named star\n");
    p.write("src/api/b.ts", "must not ride along with the star\n");
    p.write("src/api/we\"ird\n'name.ts", "odd name\n");
    symlinkSync(secret, join(p.dir, "src/api/leak.ts"));
    symlinkSync("../ui", join(p.dir, "src/api/ui-link"));
    linkSync(join(p.dir, "src/ui/u.ts"), join(p.dir, "src/api/hard.ts"));
    mkdirSync(join(p.dir, "src/api/folder"));
    const listed = [
      "src/api/a.ts",
      "src/ui/u.ts",
      "../x",
      "src/api/../ui/u.ts",
      "/etc/passwd",
      secret,
      "src/api/leak.ts",
      "src/api/ui-link/u.ts",
      "src/api/hard.ts",
      ".design/plan.json",
      ".git/config",
      ".GIT/config",
      "src/api/.git/config",
      "src/api/folder",
      "src/api/",
      "src/api/*",
      "src/api/we\"ird\n'name.ts",
      "src/api/none.ts",
      42,
      "",
    ];
    p.write(".design/worker-api.json", report(listed));
    const out: any = await p.run("commit", [PLAN, "--role", "0", "--report", ".design/worker-api.json"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual(out.files, ["src/api/a.ts", "src/api/*", "src/api/we\"ird\n'name.ts"]);
    const why = Object.fromEntries(out.skipped.map((s: any) => [s.path, s.reason]));
    assert.deepEqual(why, {
      "src/ui/u.ts": "outside the role's granted scope",
      "../x": "has a '..' segment",
      "src/api/../ui/u.ts": "has a '..' segment",
      "/etc/passwd": "outside the project",
      [secret]: "outside the project",
      "src/api/leak.ts": "a symbolic link pointing outside the project",
      "src/api/ui-link/u.ts": "resolves outside the role's granted scope (src/ui/u.ts)",
      "src/api/hard.ts": "has other hard links",
      ".design/plan.json": "inside .design/",
      ".git/config": "inside .git/",
      ".GIT/config": "inside .git/",
      "src/api/.git/config": "inside .git/",
      "src/api/folder": "a folder, not a file",
      "src/api/": "a folder, not a file",
      "src/api/none.ts": "does not exist, and HEAD does not have it",
      "42": "not a path (a string)",
      "": "not a path",
    });
    assert.deepEqual(p.headFiles().sort(), ["A src/api/*", "A src/api/we\"ird\n'name.ts", "M src/api/a.ts"].sort());
    // Nothing else was staged: the other role's change and the file the star would have matched as a glob.
    const status = p.status();
    assert.ok(status.includes("?? src/api/b.ts") && status.includes(" M src/ui/u.ts"), status.join("\n"));
  });

  it("takes a name that starts with a dash as a file, never as an option", async (t) => {
    const p = await gitProject(t, planWithDocs(), files);
    p.write("--amend.md", "dash\n");
    p.write("-n.md", "dash\n");
    p.write(".design/worker-docs.json", report(["--amend.md", "-n.md", "README.md"], "docs"));
    const head = p.git("rev-parse", "HEAD").trim();
    const out: any = await p.run("commit", [PLAN, "--role", "docs", "--report", ".design/worker-docs.json", "--message", "--amend"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual(out.files, ["--amend.md", "-n.md"]);
    assert.equal(p.git("rev-parse", "HEAD~1").trim(), head, "a new commit, not an amended one");
    assert.equal(p.git("log", "-1", "--format=%s").trim(), "--amend");
  });

  it("runs no hook, fsmonitor, filter, textconv or signing program the repository configures", async (t) => {
    const p = await gitProject(t, planWithDocs(), { ...files, ".gitattributes": "*.dat filter=evil\n*.ts diff=evil\n" });
    const marks = ["hook", "post", "hookspath", "fsmonitor", "clean", "smudge", "process", "textconv", "gpg"].map((m) => join(p.outside, `ran-${m}`));
    const [hook, post, hooksPath, fsmonitor, clean, smudge, proc, textconv, gpg] = marks;
    const hooks = join(p.dir, ".git/hooks");
    markerScript(hooks, "pre-commit", hook, "exit 1");
    markerScript(hooks, "post-commit", post);
    const other = join(p.outside, "hooks");
    mkdirSync(other);
    markerScript(other, "pre-commit", hooksPath, "exit 1");
    p.git("config", "core.hooksPath", other);
    p.git("config", "core.fsmonitor", markerScript(p.outside, "fsmonitor.sh", fsmonitor));
    p.git("config", "filter.evil.clean", `${markerScript(p.outside, "clean.sh", clean)}; cat`);
    p.git("config", "filter.evil.smudge", `${markerScript(p.outside, "smudge.sh", smudge)}; cat`);
    p.git("config", "filter.evil.process", markerScript(p.outside, "process.sh", proc));
    p.git("config", "filter.evil.required", "true");
    p.git("config", "diff.evil.textconv", markerScript(p.outside, "textconv.sh", textconv));
    p.git("config", "commit.gpgSign", "true");
    p.git("config", "gpg.program", markerScript(p.outside, "gpg.sh", gpg));
    p.write("src/api/a.ts", "changed\n");
    p.write("src/api/data.dat", "data\n");
    p.write(".design/worker-api.json", report(["src/api/a.ts", "src/api/data.dat"]));
    const out: any = await p.run("commit", [PLAN, "--role", "0", "--report", ".design/worker-api.json"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual(out.files, ["src/api/a.ts"]);
    assert.deepEqual(out.skipped, [{ path: "src/api/data.dat", reason: "its git attributes name the filter 'evil': commit it yourself" }]);
    assert.deepEqual(p.headFiles(), ["M src/api/a.ts"]);
    for (const m of marks) assert.equal(exists(m), false, `${m}: nothing the repository configures ran`);
    // The markers do work: git itself, outside the helper, runs them.
    assert.throws(() => p.git("-c", "commit.gpgSign=false", "commit", "-q", "--allow-empty", "-m", "by hand"), /Command failed/);
    assert.equal(exists(hooksPath), true, "the configured hook runs for git's own commit (and refuses it)");
    assert.equal(exists(fsmonitor), true, "and so does the fsmonitor");
  });

  it("never sweeps changes someone staged before into the role's commit", async (t) => {
    const p = await gitProject(t, planWithDocs(), files);
    p.write("src/ui/u.ts", "staged by the user\n");
    p.write("notes.txt", "staged by the user\n");
    p.git("add", "--", "src/ui/u.ts", "notes.txt");
    p.write("src/api/a.ts", "changed\n");
    p.write(".design/worker-api.json", report(["src/api/a.ts"]));
    const out: any = await p.run("commit", [PLAN, "--role", "0", "--report", ".design/worker-api.json"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual(p.headFiles(), ["M src/api/a.ts"]);
    assert.deepEqual(p.status().sort(), ["A  notes.txt", "M  src/ui/u.ts"], "still staged, not committed");
  });

  it("changes nothing without a grant, and says why", async (t) => {
    const p = await gitProject(t, planWithDocs(), files, { grant: false });
    p.write("src/api/a.ts", "changed\n");
    p.write(".design/worker-api.json", report(["src/api/a.ts"]));
    const head = p.git("rev-parse", "HEAD").trim();
    const out: any = await p.run("commit", [PLAN, "--role", "0", "--report", ".design/worker-api.json"]);
    assert.equal(out.code, "E_INVALID");
    assert.match(out.error, /^commit runs git only under the execute grant: no grant/);
    assert.equal(p.git("rev-parse", "HEAD").trim(), head);
    assert.deepEqual(p.status(), [" M src/api/a.ts"]);
    // A grant whose run ended grants nothing either.
    await p.run("grant", ["--approve"], { consent: true });
    writeFileSync(join(p.dir, ".design/run-execute.json"), JSON.stringify({ ...RUN_STATE, completedAt: "2026-01-01T00:00:00Z" }));
    const ended: any = await p.run("commit", [PLAN, "--role", "0", "--report", ".design/worker-api.json"]);
    assert.match(ended.error, /has finished/);
    assert.equal(p.git("rev-parse", "HEAD").trim(), head);
  });

  it("answers 'not a git repository' outside one, and refuses bad calls", async (t) => {
    const p = await gitProject(t, planWithDocs(), files, { repo: false });
    p.write(".design/worker-api.json", report(["src/api/a.ts"]));
    const out: any = await p.run("commit", [PLAN, "--role", "0", "--report", ".design/worker-api.json"]);
    assert.deepEqual([out.ok, out.skipped], [true, "not a git repository"]);
    assert.equal(((await p.run("commit", [".design/other.json", "--role", "0"])) as any).code, "E_USAGE");
    assert.equal(((await p.run("commit", [PLAN, "--role", "9"])) as any).code, "E_INVALID");
    assert.equal(((await p.run("commit", [PLAN, "--role", "0", "--report", "../x.json"])) as any).code, "E_PATH");
    assert.equal(((await p.run("commit", [PLAN, "--role", "0", "--report", ".design/missing.json"])) as any).code, "E_NOT_FOUND");
    // The default report, a link out of the project: not read.
    const q = await gitProject(t, planWithDocs(), files);
    const outside = join(q.outside, "r.json");
    writeFileSync(outside, report(["src/api/a.ts"]));
    const started: any = await q.run("update-status", [PLAN], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress" }]) });
    assert.equal(started.ok, true);
    symlinkSync(outside, join(q.dir, ".design/worker-api.json"));
    assert.equal(((await q.run("commit", [PLAN, "--role", "0"])) as any).code, "E_PATH");
    assert.equal(((await p.run("commit", [PLAN, "--role", "0", "--message", " "])) as any).code, "E_USAGE");
  });
});

describe("commit in a project below the repository's root", () => {
  it("stages the project's files by their place in the repository and commits only those", async (t) => {
    const { mkdtempSync, rmSync: rm, mkdirSync: mk, writeFileSync: wf, realpathSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { git } = await import("../helpers/git-project.ts");
    const { writeFiles } = await import("../helpers/design-dir.ts");
    const { makeContext } = await import("../../src/lib/command/command.ts");
    const { invoke } = await import("../../src/main.ts");
    const repo = realpathSync(mkdtempSync(join(tmpdir(), "do-mono-")));
    t.after(() => rm(repo, { recursive: true, force: true }));
    const dir = join(repo, "packages", "app");
    mk(dir, { recursive: true });
    writeFiles(dir, { [PLAN]: planWithDocs(), ".design/run-execute.json": RUN_STATE, "src/api/a.ts": "a\n" });
    wf(join(repo, "root.txt"), "root\n");
    git(repo, "init", "-q", "-b", "main");
    git(repo, "config", "user.name", "T");
    git(repo, "config", "user.email", "t@example.com");
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "start");
    const run = async (name: string, argv: string[], consent = false) => (await invoke(name, argv, makeContext(dir, consent ? { consent: true } : {}))).output as any;
    assert.equal((await run("grant", ["--approve"], true)).recorded, true);
    wf(join(dir, "src/api/a.ts"), "changed\n");
    wf(join(repo, "root.txt"), "changed outside the project\n");
    wf(join(dir, ".design/worker-api.json"), report(["src/api/a.ts", "../../root.txt"]));
    const out = await run("commit", [PLAN, "--role", "0", "--report", ".design/worker-api.json"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual(out.files, ["src/api/a.ts"]);
    assert.equal(git(repo, "show", "--name-only", "--format=", "HEAD").trim(), "packages/app/src/api/a.ts");
    assert.match(git(repo, "status", "--porcelain"), / M root\.txt/);
  });
});

describe("grant: the user's uncommitted work inside the roles' scopes", () => {
  it("lists each dirty file in a scope with its roles and says what the run does with it; outside git, says so", async (t) => {
    const p = await gitProject(t, planWithDocs(), files, { grant: false });
    p.write("src/api/a.ts", "the user's edit\n");
    p.write("src/api/notes.txt", "the user's new file\n");
    p.write("README.md", "# the user's readme edit\n");
    p.git("add", "--", "README.md");
    p.write("elsewhere.txt", "outside every scope\n");
    const out: any = await p.run("grant", [PLAN]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual(out.dirty.files, [
      { path: "README.md", state: "staged", roles: ["docs"] },
      { path: "src/api/a.ts", state: "modified", roles: ["api"] },
      { path: "src/api/notes.txt", state: "untracked", roles: ["api"] },
    ]);
    const line = out.summary.find((l: string) => l.includes("uncommitted work"));
    assert.match(line, /3 files inside the workers' scopes hold your uncommitted work/);
    assert.match(line, /commit or stash it before approving/);
    assert.match(line, /src\/api\/notes\.txt \(untracked; api\)/);
    const bare = await gitProject(t, planWithDocs(), files, { repo: false, grant: false });
    const none: any = await bare.run("grant", [PLAN]);
    assert.equal(none.dirty.repo, false);
    assert.ok(none.summary.some((l: string) => /No git repository to work with .*never deletes a file/.test(l)), JSON.stringify(none.summary));
  });
});
