// clean-attempt: undo what a role's replaced attempt (stopped, stalled, failed, interrupted) changed in the work tree
// before its next attempt starts, and nothing else, so the lead never types `git restore`/`git clean` (which Claude
// Code asks the user about). Judged against the attempt's snapshot (lib/git/snapshot.ts: the bytes of every file of the
// role's scope when the attempt started, the user's uncommitted edits and untracked files included): a file of the
// scope whose bytes differ from the snapshot's goes back to them (`git restore --source=<snapshot> --worktree`, the
// index untouched), a file the snapshot lacks that git does not track or ignore is removed (`git clean -f` of that
// path; never when the snapshot left files out), everything else stays byte for byte. An attempt without a snapshot
// (the role never ran, the project is no git repository, the start predates snapshots) changes nothing. Only the
// files the execute grant lets the role edit (lib/grant/role-files.ts) and only while the grant verifies; a file git would
// write with converted bytes (ident, working-tree-encoding, eol=crlf) is left to the user. Repeating it changes
// nothing more: a kill at any point is completed by the next call. git as lib/git/git.ts runs it.
import { defineCommand } from "../../lib/command/command.js";
import { crashPoint } from "../../base/crash-point.js";
import { HelperError } from "../../base/errors.js";
import { gitError, rewrittenPaths, type GitRun } from "../../lib/git/git.js";
import { findRole } from "../../lib/grant/grant.js";
import { PLAN_PATH, rolesOf, type Json } from "../../lib/plan/plan.js";
import { roleFiles, type Skipped } from "../../lib/grant/role-files.js";
import { inRoleScope, isSnapshot, leftOut, openRepo, scopeListing, snapshotEnv, treeEntries, workEntry, type Entry } from "../../lib/git/snapshot.js";
import { isObject } from "../../lib/values.js";
import { projectRoots } from "../../store.js";
import { join } from "node:path";
import { granteePlan, holdingGrant, reportedFiles } from "./commit.js";

/** The newest attempt of a role that is no longer running (the one a new attempt replaces), or null. */
function replacedAttempt(role: Json): Json | null {
  const log = (Array.isArray(role.attemptLog) ? role.attemptLog : []).filter(isObject);
  for (let k = log.length - 1; k >= 0; k--) if (log[k].outcome !== "running") return log[k];
  return null;
}

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {
    role: { type: "string", required: true, help: "the role: its index in plan.json or its exact name" },
  },
  async run(ctx, args) {
    granteePlan(ctx, args.plan_path as string, "clean-attempt");
    const { project } = projectRoots(ctx.cwd);
    const { grant, plan } = holdingGrant(project, ctx.now(), "clean-attempt");
    const found = findRole(plan, args.role as string);
    if ("why" in found) throw new HelperError("E_INVALID", `clean-attempt: ${found.why}`);
    const role = rolesOf(plan)[found.index];
    if (role.status === "completed") throw new HelperError("E_INVALID", `clean-attempt: role ${found.index} (${found.name}) is completed: its work stays`);
    const head = { role: found.name, roleIndex: found.index };
    const nothing = (why: string) => ({ ...head, restored: [], removed: [], skipped: [], untouched: why });
    const attempt = replacedAttempt(role);
    if (attempt === null) return nothing("the role has no attempt to undo: nothing changed");
    const snap = attempt.snapshot;
    if (!isSnapshot(snap)) {
      const why = isObject(snap) && typeof snap.none === "string" ? snap.none : "its start recorded no snapshot";
      return nothing(`attempt ${String(attempt.attempt)} has no snapshot to go back to (${why}): nothing changed; undo its work yourself`);
    }

    // The replaced attempt's report, when it wrote one that lists its files: what it lists outside the scope is answered.
    const agent = typeof attempt.agent === "string" && /^[a-z0-9][a-z0-9-]{0,63}$/.test(attempt.agent) ? attempt.agent : null;
    let listed: unknown[] = [];
    let report: string | null = null;
    if (agent !== null) {
      try {
        listed = reportedFiles(ctx.cwd, `.design/worker-${agent}.json`);
        report = `.design/worker-${agent}.json`;
      } catch {
        /* no report, or none that lists files */
      }
    }
    const opened = await openRepo(project);
    if ("none" in opened) return nothing(`${opened.none}: nothing changed`);
    if ("why" in opened) throw new HelperError("E_INVALID", `clean-attempt: ${opened.why}`);
    const repo = opened;
    const fail = (what: string, r: GitRun) => new HelperError("E_INVALID", `clean-attempt: git ${what} failed: ${gitError(r)}`);
    const objects = join(project, ".design", "snapshots", "objects");
    const scoped = (rel: string) => inRoleScope(role, rel);
    let before;
    let now;
    let headNow: Map<string, Entry>;
    let headThen: Map<string, Entry>;
    try {
      before = await treeEntries(repo, objects, snap.tree, scoped);
      now = await scopeListing(repo, scoped);
      // What commits made since the attempt began changed: a failed attempt never commits, so such a file holds
      // another role's committed work (a role sharing the scope that ran in between) or the user's: never undone.
      headNow = repo.head ? await treeEntries(repo, objects, repo.head, scoped) : new Map();
      headThen = snap.base ? await treeEntries(repo, objects, snap.base, scoped) : new Map();
    } catch (err) {
      throw new HelperError("E_INVALID", `clean-attempt: ${(err as Error).message}`);
    }
    const fromReport = roleFiles(project, grant, found.name, listed);
    const candidates = [...new Set([...before.keys(), ...now.keys(), ...fromReport.files.map((f) => f.rel)])].sort();
    const judged = roleFiles(project, grant, found.name, candidates);
    const skipped: Skipped[] = [...fromReport.skipped];
    const restore: string[] = [];
    const remove: string[] = [];
    const unrestore: string[] = [];
    const same = (a: Entry | null, b: Entry | null) => (a === null ? b === null : b !== null && a.id === b.id && a.mode === b.mode);
    for (const f of judged.files) {
      const s = before.get(f.rel) ?? null;
      const w = workEntry(project, repo.format, f.rel);
      const committed = headNow.get(f.rel) ?? null;
      if (!same(committed, headThen.get(f.rel) ?? null)) {
        if (!same(w, committed)) skipped.push({ path: f.rel, reason: "a commit made since the attempt began changed it (another role's work, or yours): left in place" });
        continue;
      }
      if (s !== null) {
        if (w === null || w.id !== s.id || w.mode !== s.mode) restore.push(f.rel);
      } else if (w !== null) {
        if (!now.has(f.rel)) skipped.push({ path: f.rel, reason: "ignored by git: left in place" });
        else if (!snap.complete || leftOut(snap, f.rel)) skipped.push({ path: f.rel, reason: "the snapshot left files out, so this one may predate the attempt: left in place" });
        else if (now.get(f.rel) === true) unrestore.push(f.rel); // in git's index, absent when the attempt began
        else remove.push(f.rel);
      }
    }
    const rewritten = await rewrittenPaths(repo.git, restore);
    if (!(rewritten instanceof Map)) throw new HelperError("E_INVALID", `clean-attempt: ${rewritten.why}`);
    const restoring = restore.filter((p) => {
      const v = rewritten.get(p);
      if (v !== undefined) skipped.push({ path: p, reason: `its git attributes (${v}) make git write other bytes than the snapshot's: restore it yourself` });
      return v === undefined;
    });
    if (restoring.length) {
      // Every blob to put back must be there before any file is touched (a repository missing one refuses whole).
      const ids = restoring.map((p) => (before.get(p) as { id: string }).id);
      const check = await repo.git.run(["cat-file", "--batch-check=%(objectname) %(objecttype)"], { env: snapshotEnv(repo, objects), input: ids.map((id) => `${id}\n`).join("") });
      if (check.code !== 0) throw fail("cat-file", check);
      const missing = check.stdout.split("\n").filter((l) => l.endsWith(" missing"));
      if (missing.length) throw new HelperError("E_INVALID", `clean-attempt: the snapshot's content of ${missing.length} file(s) is missing from the repository (${missing[0].split(" ")[0]}): nothing changed`);
      const r = await repo.git.run(["restore", `--source=${snap.tree}`, "--worktree", "--", ...restoring], { env: snapshotEnv(repo, objects) });
      if (r.code !== 0) throw fail("restore", r);
      crashPoint("clean:restored");
    }
    if (unrestore.length) {
      // A file git's index tracks that the snapshot lacks (the user had deleted it, the attempt made it again): restore
      // from the snapshot removes it from the work tree, the index untouched.
      const r = await repo.git.run(["restore", `--source=${snap.tree}`, "--worktree", "--", ...unrestore], { env: snapshotEnv(repo, objects) });
      if (r.code !== 0) throw fail("restore", r);
      crashPoint("clean:unrestored");
    }
    if (remove.length) {
      const r = await repo.git.run(["clean", "-f", "-q", "--", ...remove]);
      if (r.code !== 0) throw fail("clean", r);
      crashPoint("clean:removed");
    }
    return { ...head, attempt: attempt.attempt ?? null, report, snapshot: { tree: snap.tree, at: snap.at }, restored: restoring, removed: [...unrestore, ...remove].sort(), skipped };
  },
});
