// clean-attempt: a replaced attempt's changes inside its role's granted scope are undone (tracked files restored,
// new ones removed), and nothing outside that scope, only while the execute grant verifies.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planWith } from "../helpers/design-dir.ts";
import { exists, gitProject, markerScript, PLAN } from "../helpers/git-project.ts";

const checks = (...cmds: string[]) => cmds.map((c, k) => ({ criterion: `criterion ${k}`, check: c }));
const plan = (): any => planWith([{ name: "api", acceptanceCriteria: checks("true") }, { name: "ui", acceptanceCriteria: checks("true") }]);
const files = { "src/api/a.ts": "original a\n", "src/api/gone.ts": "original gone\n", "src/ui/u.ts": "original u\n", "top.txt": "top\n" };
const report = (filesChanged: unknown[]) => JSON.stringify({ role: "api", achieved: false, filesChanged, acceptanceCriteria: [] });

/** Role 0 started and failed once as agent `api` (the attempt a retry replaces). */
async function failedOnce(p: any): Promise<void> {
  for (const u of [{ roleIndex: 0, status: "in_progress", agent: "api" }, { roleIndex: 0, status: "failed", result: "stalled" }]) {
    const out: any = await p.run("update-status", [PLAN], { stdin: JSON.stringify([u]) });
    assert.equal(out.ok, true, JSON.stringify(out));
  }
}

describe("clean-attempt", () => {
  it("restores the role's changed and deleted files and removes its new ones, inside its scope only [ac:execute/5]", async (t) => {
    const p = await gitProject(t, plan(), files);
    await failedOnce(p);
    // The attempt's work: one change, one deletion, a new file in a new folder, one unreported new file.
    p.write("src/api/a.ts", "half-done a\n");
    rmSync(join(p.dir, "src/api/gone.ts"));
    p.write("src/api/new/n.ts", "new\n");
    p.write("src/api/unreported.ts", "new, not in the report\n");
    // Not the role's: another role's file, a file at the root, a user's staged change.
    p.write("src/ui/u.ts", "the user's own edit\n");
    p.write("top.txt", "the user's own edit\n");
    p.write(".design/worker-api.json", report(["src/api/a.ts", "src/api/gone.ts", "src/api/new/n.ts", "src/ui/u.ts", "../outside.txt"]));
    const out: any = await p.run("clean-attempt", [PLAN, "--role", "0"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal(out.report, ".design/worker-api.json");
    assert.deepEqual(out.restored.sort(), ["src/api/a.ts", "src/api/gone.ts"]);
    assert.deepEqual(out.removed.sort(), ["src/api/new/n.ts", "src/api/unreported.ts"]);
    assert.deepEqual(out.skipped, [{ path: "src/ui/u.ts", reason: "outside the role's granted scope" }, { path: "../outside.txt", reason: "has a '..' segment" }]);
    assert.equal(p.read("src/api/a.ts"), "original a\n");
    assert.equal(p.read("src/api/gone.ts"), "original gone\n");
    assert.equal(exists(join(p.dir, "src/api/new/n.ts")), false);
    assert.equal(exists(join(p.dir, "src/api/unreported.ts")), false);
    assert.equal(p.read("src/ui/u.ts"), "the user's own edit\n");
    assert.equal(p.read("top.txt"), "the user's own edit\n");
    assert.deepEqual(p.status().sort(), [" M src/ui/u.ts", " M top.txt"]);
    // Nothing left: a second call changes nothing.
    const again: any = await p.run("clean-attempt", [PLAN, "--role", "api"]);
    assert.deepEqual([again.restored, again.removed], [[], []]);
  });

  it("the user's dirty edit and untracked file in the scope survive a failed attempt and its retry, byte for byte", async (t) => {
    const p = await gitProject(t, plan(), files);
    // Before the run: an uncommitted edit, a staged edit, and a new untracked file, all inside the role's scope.
    p.write("src/api/a.ts", "the user's uncommitted edit\n");
    p.write("src/api/gone.ts", "the user's staged edit\n");
    p.git("add", "--", "src/api/gone.ts");
    p.write("src/api/notes.md", "the user's own notes\n");
    const staged = p.git("diff", "--cached", "--name-only");
    await failedOnce(p);
    // Attempt 1 edits on top of the user's work, creates a file, deletes one, then fails.
    p.write("src/api/a.ts", "attempt 1 was here\n");
    p.write("src/api/notes.md", "attempt 1 overwrote the notes\n");
    rmSync(join(p.dir, "src/api/gone.ts"));
    p.write("src/api/x.ts", "attempt 1's new file\n");
    const out: any = await p.run("clean-attempt", [PLAN, "--role", "0"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal(out.report, null);
    assert.deepEqual([out.restored, out.removed], [["src/api/a.ts", "src/api/gone.ts", "src/api/notes.md"], ["src/api/x.ts"]]);
    const user = () => {
      assert.equal(p.read("src/api/a.ts"), "the user's uncommitted edit\n");
      assert.equal(p.read("src/api/gone.ts"), "the user's staged edit\n");
      assert.equal(p.read("src/api/notes.md"), "the user's own notes\n");
      assert.equal(exists(join(p.dir, "src/api/x.ts")), false);
      assert.equal(p.git("diff", "--cached", "--name-only"), staged, "what the user staged stays staged");
      assert.equal(p.git("show", ":src/api/gone.ts"), "the user's staged edit\n");
    };
    user();
    // The retry starts (snapshot of the tree as the user left it), fails too, and is cleaned the same way.
    const retry: any = await p.run("update-status", [PLAN], {
      stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", agent: "api-2", reflexion: { rootCause: "the first try ran out of time", wrongAssumptions: "the module was simpler than it is", alternative: "split the work into two steps" } }]),
    });
    assert.equal(retry.ok, true, JSON.stringify(retry));
    assert.ok(p.json(PLAN).roles[0].attemptLog[1].snapshot.tree, "the retry's start recorded its snapshot");
    p.write("src/api/a.ts", "attempt 2 was here\n");
    p.write("src/api/y.ts", "attempt 2's new file\n");
    const failed: any = await p.run("update-status", [PLAN], { stdin: JSON.stringify([{ roleIndex: 0, status: "failed", result: "no" }]) });
    assert.equal(failed.ok, true, JSON.stringify(failed));
    const again: any = await p.run("clean-attempt", [PLAN, "--role", "0"]);
    assert.deepEqual([again.attempt, again.restored, again.removed], [2, ["src/api/a.ts"], ["src/api/y.ts"]]);
    user();
    assert.equal(exists(join(p.dir, "src/api/y.ts")), false);
    // Nothing left: a third call changes nothing.
    const third: any = await p.run("clean-attempt", [PLAN, "--role", "0"]);
    assert.deepEqual([third.restored, third.removed], [[], []]);
    user();
  });

  it("leaves what a commit made since the attempt began: another role's work in a shared scope stays", async (t) => {
    const p = await gitProject(t, plan(), files);
    await failedOnce(p);
    // While the failed attempt was out, a role sharing the scope ran after it and its work was committed: a changed
    // file and a new one. The failed attempt left its own change in another file, and an edit on top of the
    // committed one.
    p.write("src/api/gone.ts", "the other role's committed change\n");
    p.write("src/api/added.ts", "the other role's committed new file\n");
    p.git("add", "--", "src/api/gone.ts", "src/api/added.ts");
    p.git("commit", "-q", "-m", "the other role");
    p.write("src/api/a.ts", "half-done a\n");
    p.write("src/api/gone.ts", "the other role's committed change, then the attempt's edit\n");
    const out: any = await p.run("clean-attempt", [PLAN, "--role", "0"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual([out.restored, out.removed], [["src/api/a.ts"], []]);
    assert.deepEqual(out.skipped.map((x: any) => x.path), ["src/api/gone.ts"]);
    assert.match(out.skipped[0].reason, /a commit made since the attempt began changed it/);
    assert.equal(p.read("src/api/a.ts"), "original a\n");
    assert.equal(p.read("src/api/gone.ts"), "the other role's committed change, then the attempt's edit\n");
    assert.equal(p.read("src/api/added.ts"), "the other role's committed new file\n");
    assert.deepEqual(p.status(), [" M src/api/gone.ts"]);
  });

  it("a role that never ran: nothing touched, the untracked files in its scope included", async (t) => {
    const p = await gitProject(t, plan(), files);
    p.write("src/api/mine.ts", "the user's untracked file\n");
    p.write("src/api/a.ts", "the user's edit\n");
    const out: any = await p.run("clean-attempt", [PLAN, "--role", "0"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual([out.restored, out.removed], [[], []]);
    assert.match(out.untouched, /no attempt to undo/);
    assert.equal(p.read("src/api/mine.ts"), "the user's untracked file\n");
    assert.equal(p.read("src/api/a.ts"), "the user's edit\n");
  });

  it("in a repository with no commits, undoes only the attempt and keeps the project's own files", async (t) => {
    const p = await gitProject(t, plan(), files, { repo: false });
    p.git("init", "-q", "-b", "main");
    await failedOnce(p);
    p.write("src/api/a.ts", "attempt\n");
    p.write("src/api/new.ts", "attempt's new file\n");
    const out: any = await p.run("clean-attempt", [PLAN, "--role", "0"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual([out.restored, out.removed], [["src/api/a.ts"], ["src/api/new.ts"]]);
    for (const [rel, text] of Object.entries(files)) assert.equal(p.read(rel), text, `${rel} kept`);
    assert.throws(() => p.git("rev-parse", "--verify", "HEAD"), "still no commit");
  });

  it("never follows a link out of the scope, never removes an ignored file, runs no configured program", async (t) => {
    const p = await gitProject(t, plan(), { ...files, ".gitignore": "*.log\n", ".gitattributes": "*.dat filter=evil\n" });
    await failedOnce(p);
    const victim = join(p.outside, "victim.txt");
    writeFileSync(victim, "keep me\n");
    const smudge = join(p.outside, "ran-smudge");
    const fsmonitor = join(p.outside, "ran-fsmonitor");
    const hook = join(p.outside, "ran-hook");
    p.git("config", "filter.evil.smudge", `${markerScript(p.outside, "smudge.sh", smudge)}; cat`);
    p.git("config", "filter.evil.clean", `${markerScript(p.outside, "clean.sh", smudge)}; cat`);
    p.git("config", "core.fsmonitor", markerScript(p.outside, "fsmonitor.sh", fsmonitor));
    markerScript(join(p.dir, ".git/hooks"), "post-checkout", hook);
    symlinkSync(victim, join(p.dir, "src/api/link.txt"));
    mkdirSync(join(p.dir, "src/api/uidir"));
    symlinkSync("../../ui/u.ts", join(p.dir, "src/api/uidir/u.ts"));
    p.write("src/api/debug.log", "ignored\n");
    p.write("src/api/blob.dat", "filtered\n");
    p.write(".design/worker-api.json", report(["src/api/link.txt", "src/api/uidir/u.ts", "src/api/debug.log", "src/api/blob.dat", ".git/config", ".design/plan.json", victim]));
    const out: any = await p.run("clean-attempt", [PLAN, "--role", "0"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    const why = Object.fromEntries(out.skipped.map((s: any) => [s.path, s.reason]));
    assert.equal(why["src/api/link.txt"], "a symbolic link pointing outside the project");
    assert.equal(why["src/api/uidir/u.ts"], "a symbolic link pointing outside the role's granted scope");
    assert.equal(why["src/api/debug.log"], "ignored by git: left in place");
    assert.equal(why["src/api/blob.dat"], undefined, "a filtered file the attempt created is removed: no filter runs");
    assert.equal(why[".git/config"], "inside .git/");
    assert.equal(why[".design/plan.json"], "inside .design/");
    assert.equal(why[victim], "outside the project");
    assert.deepEqual(out.removed, ["src/api/blob.dat"]);
    assert.equal(readFileSync(victim, "utf8"), "keep me\n");
    assert.equal(p.read("src/ui/u.ts"), "original u\n");
    assert.ok(exists(join(p.dir, "src/api/debug.log")) && exists(join(p.dir, ".design/plan.json")));
    for (const m of [smudge, fsmonitor, hook]) assert.equal(exists(m), false, `${m}: nothing the repository configures ran`);
  });

  it("changes nothing without a grant, for a completed role, or outside a repository", async (t) => {
    const p = await gitProject(t, plan(), files, { grant: false });
    p.write("src/api/a.ts", "changed\n");
    const none: any = await p.run("clean-attempt", [PLAN, "--role", "0"]);
    assert.equal(none.code, "E_INVALID");
    assert.match(none.error, /^clean-attempt runs git only under the execute grant: no grant/);
    assert.equal(p.read("src/api/a.ts"), "changed\n");
    const doc = plan();
    doc.roles[1].status = "completed";
    const q = await gitProject(t, doc, files);
    const done: any = await q.run("clean-attempt", [PLAN, "--role", "ui"]);
    assert.match(done.error, /role 1 \(ui\) is completed: its work stays/);
    const bare = await gitProject(t, plan(), files, { repo: false });
    await failedOnce(bare);
    bare.write("src/api/new.ts", "new\n");
    const out: any = await bare.run("clean-attempt", [PLAN, "--role", "0"]);
    assert.deepEqual([out.ok, out.restored, out.removed], [true, [], []]);
    assert.match(out.untouched, /no snapshot/);
    assert.equal(bare.read("src/api/new.ts"), "new\n", "outside a repository nothing is ever removed");
  });
});
