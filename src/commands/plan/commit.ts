// commit: commit a role's work, the files its report lists (`filesChanged`) that the execute grant lets the role
// edit, and nothing else, so the lead never types `git add`/`git commit` (which Claude Code asks the user about).
// Only while the grant verifies (the user agreed to edits of these paths); the files are judged as the hook judges
// the role's edits (lib/role-files.ts) and what is left out is answered with its reason. git runs as a subprocess
// with no shell, hooks, fsmonitor, filters or signing (lib/git.ts).
//
// What is staged: exactly the role's files, with `git add -- <files>`; what is committed: exactly those of them that
// differ from HEAD, with `git commit --only -- <files>`, which commits HEAD plus those paths whatever else the index
// holds: changes someone staged before stay staged and are not swept into the role's commit. A file whose
// attributes name a filter, one git ignores, and a missing file git does not track are left out.
import { resolve } from "node:path";
import { defineCommand, type Context } from "../../lib/command.js";
import { HelperError } from "../../lib/errors.js";
import { filteredPaths, filterOverrides, fromTop, gitError, gitFor, repoOf, zList } from "../../lib/git.js";
import { findRole, grantState, type Grant } from "../../lib/grant.js";
import { PLAN_PATH, rolesOf, type Json } from "../../lib/plan.js";
import { roleFiles, type Skipped } from "../../lib/role-files.js";
import { isObject } from "../../lib/values.js";
import { confine, parseJson, projectRoots, readText, realPath } from "../../store.js";

const MAX_MESSAGE = 4000;

export type CommitAnswer =
  | { sha: string | null; files: string[]; skipped: Skipped[]; note?: string }
  | { skipped: string };

/** The message given, checked, or the default one. */
export function commitMessage(given: unknown, role: Json): string {
  if (typeof given === "string") {
    const m = given.trim();
    if (m === "" || m.length > MAX_MESSAGE || m.includes("\0")) throw new HelperError("E_USAGE", `commit: --message must be 1 to ${MAX_MESSAGE} characters`);
    return m;
  }
  const name = typeof role.name === "string" ? role.name : "role";
  const what = typeof role.result === "string" && role.result.trim() !== "" ? role.result : typeof role.goal === "string" ? role.goal : "its work";
  const line = `${name}: ${what}`.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** The report's `filesChanged` (a worker completion or fix report; its real path inside the project, else E_PATH). */
export function reportedFiles(cwd: string, path: string): unknown[] {
  const r = readText(confine(cwd, "report", path, "read"));
  if (r.kind === "missing") throw new HelperError("E_NOT_FOUND", `Report file not found: ${path}`);
  if (r.kind === "error") throw new HelperError("E_READ", `Error reading report: ${r.detail}`);
  const parsed = parseJson(r.text);
  if (!parsed.ok) throw new HelperError("E_JSON", `Invalid JSON in report ${path}: ${parsed.detail}`);
  if (!isObject(parsed.value) || !Array.isArray(parsed.value.filesChanged)) throw new HelperError("E_INVALID", `The report ${path} has no filesChanged list`);
  return parsed.value.filesChanged;
}

/** The agent of a role's newest attempt (or the role's `agent`), whose report is `.design/worker-<agent>.json`. */
export function lastAgent(role: Json): string | null {
  const log = Array.isArray(role.attemptLog) ? role.attemptLog : [];
  const last = log.length ? log[log.length - 1] : null;
  const agent = isObject(last) && typeof last.agent === "string" ? last.agent : typeof role.agent === "string" ? role.agent : null;
  return agent !== null && /^[a-z0-9][a-z0-9-]{0,63}$/.test(agent) ? agent : null;
}

/**
 * Stage and commit a role's reported files under a holding grant (the caller verified it). Throws E_INVALID when
 * git refuses; answers `{skipped: reason}` where there is no repository to commit to.
 */
export async function commitRoleFiles(project: string, grant: Grant, roleName: string, listed: readonly unknown[], message: string): Promise<CommitAnswer> {
  const git = gitFor(project);
  if (git === null) return { skipped: "git is not installed" };
  const repo = await repoOf(git);
  if ("none" in repo) return { skipped: repo.none };
  if ("why" in repo) throw new HelperError("E_INVALID", `commit: ${repo.why}`);
  const { files, skipped } = roleFiles(project, grant, roleName, listed);
  const overrides = await filterOverrides(git);
  if (!Array.isArray(overrides)) throw new HelperError("E_INVALID", `commit: ${overrides.why}`);
  const fail = (what: string, r: Parameters<typeof gitError>[0]) => new HelperError("E_INVALID", `commit: git ${what} failed: ${gitError(r)}`, { skipped });

  const filtered = await filteredPaths(git, files.map((f) => f.rel));
  if (!(filtered instanceof Map)) throw new HelperError("E_INVALID", `commit: ${filtered.why}`);
  let keep = files.filter((f) => {
    const v = filtered.get(f.rel);
    if (v !== undefined) skipped.push({ path: f.rel, reason: `its git attributes name the filter '${v}', a program git would run: commit it yourself` });
    return v === undefined;
  });
  const missing = keep.filter((f) => f.kind === "missing").map((f) => f.rel);
  if (missing.length) {
    const r = await git.run(["ls-files", "-z", "--full-name", "--", ...missing], overrides);
    if (r.code !== 0) throw fail("ls-files", r);
    const tracked = new Set(zList(r.stdout).map((p) => fromTop(repo.top, project, p)));
    keep = keep.filter((f) => {
      if (f.kind !== "missing" || tracked.has(f.rel)) return true;
      skipped.push({ path: f.rel, reason: "does not exist, and git does not track it" });
      return false;
    });
  }
  const present = keep.filter((f) => f.kind !== "missing").map((f) => f.rel);
  if (present.length) {
    const r = await git.run(["ls-files", "-z", "--full-name", "--others", "--ignored", "--exclude-standard", "--", ...present], overrides);
    if (r.code !== 0) throw fail("ls-files", r);
    const ignored = new Set(zList(r.stdout).map((p) => fromTop(repo.top, project, p)));
    keep = keep.filter((f) => {
      if (!ignored.has(f.rel)) return true;
      skipped.push({ path: f.rel, reason: "ignored by git (.gitignore): commit it yourself with git add -f" });
      return false;
    });
  }
  const paths = keep.map((f) => f.rel);
  if (paths.length === 0) return { sha: null, files: [], skipped, note: "nothing to commit: no reported file is the role's to commit" };

  const add = await git.run(["add", "--", ...paths], overrides);
  if (add.code !== 0) throw fail("add", add);
  const diff = await git.run(["diff", "--cached", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", "--", ...paths], overrides);
  if (diff.code !== 0) throw fail("diff", diff);
  const changed = new Set(zList(diff.stdout).map((p) => fromTop(repo.top, project, p)));
  const commit = paths.filter((p) => changed.has(p));
  if (commit.length === 0) return { sha: null, files: [], skipped, note: "nothing to commit: the role's reported files are as HEAD has them" };
  const c = await git.run(["commit", "--quiet", "--no-verify", "--no-gpg-sign", "--only", "-m", message, "--", ...commit], overrides);
  if (c.code !== 0) throw fail("commit", c);
  const head = await git.run(["rev-parse", "--verify", "HEAD"]);
  if (head.code !== 0) throw fail("rev-parse", head);
  return { sha: head.stdout.trim(), files: commit, skipped };
}

/** The grant that holds now, or the refusal naming why (`what`: the command). */
export function holdingGrant(project: string, now: number, what: string): { grant: Grant; plan: Json } {
  const state = grantState(project, now);
  if ("why" in state) throw new HelperError("E_INVALID", `${what} runs git only under the execute grant: ${state.why}`);
  return { grant: state.grant, plan: state.plan as Json };
}

/** plan_path must be the plan the grant covers: the project's .design/plan.json. */
export function granteePlan(ctx: Context, path: string, what: string): void {
  const { design } = projectRoots(ctx.cwd);
  if (realPath(resolve(ctx.cwd, path)) !== realPath(resolve(design, "plan.json"))) {
    throw new HelperError("E_USAGE", `${what}: the plan must be .design/plan.json, the plan the execute grant covers`);
  }
}

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {
    role: { type: "string", required: true, help: "the role: its index in plan.json or its exact name" },
    message: { type: "string", help: "the commit message (default: '<role name>: <its result>')" },
    report: { type: "string", path: "read", help: "the report listing the files (default .design/worker-<agent of the role's newest attempt>.json; a fix worker's .design/fix-<n>.json)" },
  },
  async run(ctx, args) {
    granteePlan(ctx, args.plan_path as string, "commit");
    const { project } = projectRoots(ctx.cwd);
    const { grant, plan } = holdingGrant(project, ctx.now(), "commit");
    const found = findRole(plan, args.role as string);
    if ("why" in found) throw new HelperError("E_INVALID", `commit: ${found.why}`);
    const role = rolesOf(plan)[found.index];
    const message = commitMessage(args.message, role);
    let report = args.report as string | undefined;
    if (report === undefined || report === "") {
      const agent = lastAgent(role);
      if (agent === null) throw new HelperError("E_INVALID", `commit: role ${found.index} (${found.name}) has no attempt whose report to read: pass --report`);
      report = `.design/worker-${agent}.json`;
    }
    const listed = reportedFiles(ctx.cwd, report);
    const out = await commitRoleFiles(project, grant, found.name, listed, message);
    return { role: found.name, roleIndex: found.index, report, ...out };
  },
});
