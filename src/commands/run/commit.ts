// commit: commit a role's work, the files its report lists (`filesChanged`) that the execute grant lets the role
// edit, and nothing else, so the lead never types `git add`/`git commit` (which Claude Code asks the user about).
// Only while the grant verifies (the user agreed to edits of these paths); the files are judged as the hook judges
// the role's edits (lib/grant/role-files.ts) and what is left out is answered with its reason. git runs as a subprocess
// with no shell, hooks, fsmonitor, filters or signing (lib/git/git.ts).
//
// What is committed: exactly those of the role's files that differ from HEAD, less any that still hold the user's
// uncommitted change untouched by the attempt (its snapshot says so), built in a private index and moved onto HEAD's
// branch with `commit-tree` and `update-ref`; the user's index changes only for the committed paths, so changes
// someone staged before stay staged and are not swept into the role's commit. A file whose attributes name a
// filter, one git ignores, and a missing file HEAD lacks are left out. Survives a kill at any step and never
// commits twice (`commitRoleFiles`).
import { resolve } from "node:path";
import { defineCommand, type Context } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { join } from "node:path";
import { crashPoint } from "../../base/crash-point.js";
import { filteredPaths, gitError, identityEnv, zList, type GitRun } from "../../lib/git/git.js";
import { isSnapshot, leftOut, openRepo, privateIndex, treeEntries, workEntry, type Entry, type Snapshot } from "../../lib/git/snapshot.js";
import { findRole, grantState, type Grant } from "../../lib/grant/grant.js";
import { PLAN_PATH, rolesOf, type Json } from "../../lib/plan/plan.js";
import { roleFiles, type Skipped } from "../../lib/grant/role-files.js";
import { isObject } from "../../lib/values.js";
import { confine, parseJson, projectRoots, readText, realPath } from "../../store.js";

const MAX_MESSAGE = 4000;

export type CommitAnswer =
  | { sha: string | null; files: string[]; skipped: Skipped[]; note?: string; withUserChanges?: string[] }
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
 * Commit a role's reported files under a holding grant (the caller verified it), judged against HEAD and, when the
 * attempt has one, its snapshot (lib/git/snapshot.ts): a file whose bytes are still the snapshot's while the snapshot
 * differs from HEAD holds the user's uncommitted change, untouched by the attempt, and stays uncommitted; a file the
 * attempt changed on top of the user's uncommitted change is committed whole and named in `withUserChanges` (the
 * grant question listed it). Throws E_INVALID when git refuses; answers `{skipped: reason}` where there is no
 * repository to commit to.
 *
 * How, so that a kill at any point leaves a state the next call completes and nothing is committed twice: the
 * commit is built in a private index (read-tree HEAD, `add -A` of exactly the paths, `write-tree`, `commit-tree`),
 * then the user's index gets the committed paths' new entries (only those: whatever else the user staged stays
 * staged), then HEAD's branch moves to the commit if it still is where it was (`update-ref` with the old value). A
 * kill before the last step leaves at most the role's paths staged; the next call judges against HEAD, not the
 * index, and commits them; after it, the files equal HEAD and the next call commits nothing.
 */
export async function commitRoleFiles(
  project: string,
  grant: Grant,
  roleName: string,
  listed: readonly unknown[],
  message: string,
  snapshot: Snapshot | null = null,
): Promise<CommitAnswer> {
  const opened = await openRepo(project);
  if ("none" in opened) return { skipped: opened.none };
  if ("why" in opened) throw new HelperError("E_INVALID", `commit: ${opened.why}`);
  const repo = opened;
  const git = repo.git;
  const { files, skipped } = roleFiles(project, grant, roleName, listed);
  const fail = (what: string, r: GitRun) => new HelperError("E_INVALID", `commit: git ${what} failed: ${gitError(r)}`, { skipped });

  const filtered = await filteredPaths(git, files.map((f) => f.rel));
  if (!(filtered instanceof Map)) throw new HelperError("E_INVALID", `commit: ${filtered.why}`);
  let keep = files.filter((f) => {
    const v = filtered.get(f.rel);
    if (v !== undefined) skipped.push({ path: f.rel, reason: `its git attributes name the filter '${v}': commit it yourself` });
    return v === undefined;
  });
  // What HEAD has of them.
  const head = new Map<string, Entry>();
  if (repo.head && keep.length) {
    const r = await git.run(["ls-tree", "-z", "--full-name", repo.head, "--", ...keep.map((f) => f.rel)]);
    if (r.code !== 0) throw fail("ls-tree", r);
    for (const line of zList(r.stdout)) {
      const m = /^(\d{6}) blob ([0-9a-f]+)\t(.*)$/s.exec(line);
      if (m && m[3].startsWith(repo.prefix)) head.set(m[3].slice(repo.prefix.length), { mode: m[1], id: m[2] });
    }
  }
  keep = keep.filter((f) => {
    if (f.kind !== "missing" || head.has(f.rel)) return true;
    skipped.push({ path: f.rel, reason: "does not exist, and HEAD does not have it" });
    return false;
  });
  const present = keep.filter((f) => f.kind !== "missing").map((f) => f.rel);
  if (present.length) {
    const r = await git.run(["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--", ...present]);
    if (r.code !== 0) throw fail("ls-files", r);
    const ignored = new Set(zList(r.stdout));
    keep = keep.filter((f) => {
      if (!ignored.has(f.rel) || head.has(f.rel)) return true;
      skipped.push({ path: f.rel, reason: "ignored by git (.gitignore): commit it yourself with git add -f" });
      return false;
    });
  }
  // The attempt's snapshot: a file it did not touch that holds the user's uncommitted change stays out.
  const withUserChanges: string[] = [];
  if (snapshot !== null && keep.length) {
    const wanted = new Set(keep.map((f) => f.rel));
    const snap = await treeEntries(repo, privateObjects(project), snapshot.tree, (rel) => wanted.has(rel)).catch(() => null);
    if (snap !== null) {
      keep = keep.filter((f) => {
        const s = snap.get(f.rel) ?? null;
        const h = head.get(f.rel) ?? null;
        const userDirty = !same(s, h);
        if (!userDirty) return true;
        const w = workEntry(project, repo.format, f.rel);
        if (same(w, s) && !(s === null && leftOut(snapshot, f.rel))) {
          skipped.push({ path: f.rel, reason: "holds your uncommitted change, which the attempt did not touch: left uncommitted" });
          return false;
        }
        withUserChanges.push(f.rel);
        return true;
      });
    }
  }
  const paths = keep.map((f) => f.rel);
  if (paths.length === 0) return { sha: null, files: [], skipped, note: "nothing to commit: no reported file is the role's to commit" };

  const idx = privateIndex(project, "commit");
  try {
    const env = { GIT_INDEX_FILE: idx.path };
    const read = await git.run(repo.head ? ["read-tree", repo.head] : ["read-tree", "--empty"], { env });
    if (read.code !== 0) throw fail("read-tree", read);
    const add = await git.run(["add", "-A", "--", ...paths], { env });
    if (add.code !== 0) throw fail("add", add);
    crashPoint("commit:staged-private");
    // The paths whose entry now differs from HEAD's: what this commit holds.
    const staged = await git.run(["ls-files", "-s", "-z", "--full-name", "--", ...paths], { env });
    if (staged.code !== 0) throw fail("ls-files", staged);
    const entries = new Map<string, Entry>();
    for (const line of zList(staged.stdout)) {
      const m = /^(\d{6}) ([0-9a-f]+) 0\t(.*)$/s.exec(line);
      if (m && m[3].startsWith(repo.prefix)) entries.set(m[3].slice(repo.prefix.length), { mode: m[1], id: m[2] });
    }
    const commit = paths.filter((p) => !same(entries.get(p) ?? null, head.get(p) ?? null));
    if (commit.length === 0) return { sha: null, files: [], skipped, note: "nothing to commit: the role's reported files are as HEAD has them" };
    const tree = await git.run(["write-tree"], { env });
    if (tree.code !== 0) throw fail("write-tree", tree);
    const ident = await identityEnv(project);
    const made = await git.run(["commit-tree", tree.stdout.trim(), ...(repo.head ? ["-p", repo.head] : []), "-F", "-"], { env: ident, input: `${message}\n` });
    if (made.code !== 0) throw fail("commit-tree", made);
    const sha = made.stdout.trim();
    crashPoint("commit:made");
    // The user's index: the committed paths' new entries, nothing else.
    const zero = "0".repeat(sha.length);
    const info = commit.map((p) => {
      const e = entries.get(p);
      return e ? `${e.mode} ${e.id}\t${repo.prefix}${p}\0` : `0 ${zero}\t${repo.prefix}${p}\0`;
    });
    const upd = await git.run(["update-index", "-z", "--index-info"], { input: info.join("") });
    if (upd.code !== 0) throw fail("update-index", upd);
    crashPoint("commit:index-updated");
    const first = message.split("\n", 1)[0].slice(0, 200);
    const ref = await git.run(["update-ref", "-m", `commit (do): ${first}`, "HEAD", sha, repo.head ?? zero]);
    if (ref.code !== 0) throw fail("update-ref", ref);
    crashPoint("commit:ref-moved");
    return { sha, files: commit, skipped, ...(withUserChanges.length ? { withUserChanges: withUserChanges.filter((p) => commit.includes(p)) } : {}) };
  } finally {
    idx.done();
  }
}

const same = (a: Entry | null, b: Entry | null) => (a === null ? b === null : b !== null && a.id === b.id && a.mode === b.mode);

/** The snapshot object folder (read-only here). */
function privateObjects(project: string): string {
  return join(project, ".design", "snapshots", "objects");
}

/** The snapshot of a role's newest attempt, when it has one (lib/git/snapshot.ts). */
export function lastSnapshot(role: Json): Snapshot | null {
  const log = Array.isArray(role.attemptLog) ? role.attemptLog : [];
  const last = log.length ? log[log.length - 1] : null;
  return isObject(last) && isSnapshot(last.snapshot) ? last.snapshot : null;
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
    const out = await commitRoleFiles(project, grant, found.name, listed, message, lastSnapshot(role));
    return { role: found.name, roleIndex: found.index, report, ...out };
  },
});
