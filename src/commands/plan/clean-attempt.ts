// clean-attempt: undo what a role's replaced attempt (stopped, stalled, failed, interrupted) left in the work tree
// before its next attempt starts, so the lead never types `git restore`/`git clean` (which Claude Code asks the user
// about). The files considered are the ones the replaced attempt's report lists (`.design/worker-<agent>.json`,
// when there is one) and the ones `git status` shows changed; of those only the files the execute grant lets the
// role edit are touched (lib/role-files.ts, as commit judges them): a tracked file changed or deleted is restored
// from the index (`git restore -- <files>`, what is staged stays), a new untracked file is removed
// (`git clean -f -- <files>`); a file git ignores, one whose attributes name a filter and everything outside the
// role's scope stay as they are. Only while the grant verifies; git as lib/git.ts runs it.
import { defineCommand } from "../../lib/command.js";
import { HelperError } from "../../lib/errors.js";
import { filteredPaths, filterOverrides, fromTop, gitError, gitFor, repoOf, zList, type GitRun } from "../../lib/git.js";
import { findRole } from "../../lib/grant.js";
import { PLAN_PATH, rolesOf, type Json } from "../../lib/plan.js";
import { roleFiles, type Skipped } from "../../lib/role-files.js";
import { isObject } from "../../lib/values.js";
import { projectRoots } from "../../store.js";
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

    // The replaced attempt's report, when it wrote one that lists its files.
    const attempt = replacedAttempt(role);
    const agent = attempt && typeof attempt.agent === "string" && /^[a-z0-9][a-z0-9-]{0,63}$/.test(attempt.agent) ? attempt.agent : null;
    let listed: unknown[] = [];
    let report: string | null = null;
    if (agent !== null) {
      try {
        listed = reportedFiles(ctx.cwd, `.design/worker-${agent}.json`);
        report = `.design/worker-${agent}.json`;
      } catch {
        /* no report, or none that lists files: git status alone */
      }
    }

    const git = gitFor(project);
    if (git === null) return { ...head, skipped: "git is not installed", restored: [], removed: [] };
    const repo = await repoOf(git);
    if ("none" in repo) return { ...head, skipped: repo.none, restored: [], removed: [] };
    if ("why" in repo) throw new HelperError("E_INVALID", `clean-attempt: ${repo.why}`);
    const overrides = await filterOverrides(git);
    if (!Array.isArray(overrides)) throw new HelperError("E_INVALID", `clean-attempt: ${overrides.why}`);
    const fail = (what: string, r: GitRun) => new HelperError("E_INVALID", `clean-attempt: git ${what} failed: ${gitError(r)}`);

    const st = await git.run(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=all", "--no-renames", "--", "."], overrides);
    if (st.code !== 0) throw fail("status", st);
    const changed = zList(st.stdout)
      .filter((e) => e.length > 3)
      .map((e) => fromTop(repo.top, project, e.slice(3)))
      .filter((p): p is string => p !== null);

    // What the report lists is answered when left out; what git status adds outside the role's scope is not the
    // role's business and goes unmentioned.
    const fromReport = roleFiles(project, grant, found.name, listed);
    const fromStatus = roleFiles(project, grant, found.name, changed);
    const skipped: Skipped[] = [...fromReport.skipped];
    const seen = new Set<string>();
    const files = [...fromReport.files, ...fromStatus.files].filter((f) => !seen.has(f.rel) && seen.add(f.rel));
    const filtered = await filteredPaths(git, files.map((f) => f.rel));
    if (!(filtered instanceof Map)) throw new HelperError("E_INVALID", `clean-attempt: ${filtered.why}`);
    const paths = files
      .filter((f) => {
        const v = filtered.get(f.rel);
        if (v !== undefined) skipped.push({ path: f.rel, reason: `its git attributes name the filter '${v}', a program git would run: restore it yourself` });
        return v === undefined;
      })
      .map((f) => f.rel);
    if (paths.length === 0) return { ...head, report, restored: [], removed: [], skipped };

    const diff = await git.run(["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", "--", ...paths], overrides);
    if (diff.code !== 0) throw fail("diff", diff);
    const modified = new Set(zList(diff.stdout).map((p) => fromTop(repo.top, project, p)));
    const others = await git.run(["ls-files", "-z", "--full-name", "--others", "--exclude-standard", "--", ...paths], overrides);
    if (others.code !== 0) throw fail("ls-files", others);
    const untracked = new Set(zList(others.stdout).map((p) => fromTop(repo.top, project, p)));
    const ignored = await git.run(["ls-files", "-z", "--full-name", "--others", "--ignored", "--exclude-standard", "--", ...paths], overrides);
    if (ignored.code !== 0) throw fail("ls-files", ignored);
    for (const p of zList(ignored.stdout)) {
      const rel = fromTop(repo.top, project, p);
      if (rel !== null) skipped.push({ path: rel, reason: "ignored by git: left in place" });
    }
    const restore = paths.filter((p) => modified.has(p));
    const remove = paths.filter((p) => untracked.has(p) && !modified.has(p));
    if (restore.length) {
      const r = await git.run(["restore", "--worktree", "--", ...restore], overrides);
      if (r.code !== 0) throw fail("restore", r);
    }
    if (remove.length) {
      const r = await git.run(["clean", "-f", "-q", "--", ...remove], overrides);
      if (r.code !== 0) throw fail("clean", r);
    }
    return { ...head, report, restored: restore, removed: remove, skipped };
  },
});
