// An attempt's snapshot: the bytes of every file in its role's scope when the attempt started, so `clean-attempt`
// can undo only what the attempt changed and `commit` can tell the attempt's changes from the user's.
//
// Taken by `next` and update-status when they record a start (before the plan write, so a recorded attempt never
// lacks the snapshot it names), without touching the user's index, work tree, refs or object store: a private index
// (`.design/snapshots/tmp/`) is filled from HEAD (or empty, in a repository with no commits), each file of the scope
// in the work tree (tracked, and untracked unless git ignores it) is hashed as its raw bytes (`hash-object
// --no-filters`, no attribute applies) into a private object folder (`.design/snapshots/objects`, which reads the
// repository's objects as an alternate, so only new content is stored there), files of HEAD that are gone are
// dropped, and `write-tree` names the result. The attempt records the tree, the commit it was taken over, the paths
// left out and whether the listing is whole. Bounded: an untracked file over MAX_UNTRACKED_BYTES and untracked files
// past MAX_UNTRACKED are left out (and listed, up to MAX_LISTED); a snapshot missing any of them is not `complete`,
// and `clean-attempt` then removes nothing the snapshot lacks.
//
// Outside a git repository there is no snapshot (`{none}`): clean-attempt changes nothing there and commit has
// nothing to commit to.
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, unlinkSync } from "node:fs";
import { join, posix, relative, sep } from "node:path";
import { editCovers, refusedEdit, type GrantItem } from "../grant/grant.js";
import { gitError, gitFor, repoOf, zList, type Git } from "./git.js";
import { scopeOf, stringsOf, type Json } from "../plan/plan.js";

/** An untracked file larger than this is left out of a snapshot. */
export const MAX_UNTRACKED_BYTES = 16 * 1024 * 1024;
/** At most this many untracked files go into one snapshot. */
export const MAX_UNTRACKED = 5000;
/** At most this many left-out paths are listed. */
export const MAX_LISTED = 100;

export interface Snapshot {
  /** The tree of the scope's files as they were (the rest as HEAD had it). */
  tree: string;
  /** HEAD's commit then, or null in a repository with no commits. */
  base: string | null;
  at: string;
  /** Paths of the scope left out (too large, past the count), at most MAX_LISTED. */
  skipped: string[];
  /** Every file of the scope went in: false when one was left out. */
  complete: boolean;
}

export type SnapshotRecord = Snapshot | { none: string };

export const isSnapshot = (v: unknown): v is Snapshot =>
  typeof v === "object" && v !== null && typeof (v as Snapshot).tree === "string" && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test((v as Snapshot).tree);

/** A file's entry in a tree: its mode and blob id. */
export interface Entry {
  mode: string;
  id: string;
}

/** Whether a project-relative path lies in the role's scope (its directories and patterns, as the grant judges). */
export function inRoleScope(role: Json, rel: string): boolean {
  if (refusedEdit(rel) || rel.split("/").some((p) => [".design", ".git", ".claude"].includes(p.toLowerCase()))) return false;
  const scope = scopeOf(role);
  const items: GrantItem[] = [
    ...stringsOf(scope.directories).map((value) => ({ value, roles: [], kind: "directory" as const })),
    ...stringsOf(scope.patterns).map((value) => ({ value, roles: [], kind: "pattern" as const })),
  ];
  return items.some((item) => editCovers(item, rel));
}

/** The repository around a project, as the snapshot code needs it. */
export interface Repo {
  git: Git;
  top: string;
  /** The project's folder inside the work tree, "" or ending in "/". */
  prefix: string;
  /** The repository's own object folder (absolute). */
  objects: string;
  format: "sha1" | "sha256";
  head: string | null;
}

export async function openRepo(project: string): Promise<Repo | { none: string } | { why: string }> {
  const git = gitFor(project);
  if (git === null) return { none: "git is not installed" };
  const repo = await repoOf(git);
  if (!("top" in repo)) return repo;
  const objects = await git.run(["rev-parse", "--path-format=absolute", "--git-path", "objects"]);
  if (objects.code !== 0) return { why: `git cannot name its object folder: ${gitError(objects)}` };
  const fmt = await git.run(["rev-parse", "--show-object-format"]);
  const head = await git.run(["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
  const rel = relative(repo.top, project).split(sep).join("/");
  return {
    git,
    top: repo.top,
    prefix: rel === "" ? "" : `${rel}/`,
    objects: objects.stdout.replace(/\n$/, ""),
    format: fmt.code === 0 && fmt.stdout.trim() === "sha256" ? "sha256" : "sha1",
    head: head.code === 0 && head.stdout.trim() !== "" ? head.stdout.trim() : null,
  };
}

/** `.design/snapshots/` (created), refused when `.design` or it is a link or leads outside the project. */
function snapshotDirs(project: string): { objects: string; tmp: string } {
  const design = join(project, ".design");
  const st = lstatSync(design);
  if (!st.isDirectory()) throw new Error(".design is not a folder");
  const root = join(design, "snapshots");
  const objects = join(root, "objects");
  const tmp = join(root, "tmp");
  mkdirSync(objects, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  for (const d of [root, objects, tmp]) {
    if (lstatSync(d).isSymbolicLink() || !realpathSync(d).startsWith(`${realpathSync(design)}${sep}`)) throw new Error(`${d} leads outside .design/`);
  }
  return { objects, tmp };
}

/** A private index file's path for this process; those of processes that are gone (killed) are removed first. */
export function privateIndex(project: string, what: string): { path: string; objects: string; done: () => void } {
  const { objects, tmp } = snapshotDirs(project);
  for (const name of readdirSync(tmp)) {
    const m = /^[a-z]+-(\d+)-[0-9a-z]+\.index(\.lock)?$/.exec(name);
    if (!m) continue;
    let alive = true;
    try {
      process.kill(Number(m[1]), 0);
    } catch (err) {
      alive = (err as NodeJS.ErrnoException).code === "EPERM";
    }
    if (!alive || Number(m[1]) === process.pid) {
      try {
        unlinkSync(join(tmp, name));
      } catch {
        /* gone already */
      }
    }
  }
  const path = join(tmp, `${what}-${process.pid}-${Math.random().toString(36).slice(2, 10)}.index`);
  return {
    path,
    objects,
    done: () => {
      for (const p of [path, `${path}.lock`]) {
        try {
          unlinkSync(p);
        } catch {
          /* not made */
        }
      }
    },
  };
}

/** The raw blob id of bytes, as `git hash-object --no-filters` gives it. */
export function blobId(format: Repo["format"], bytes: Buffer): string {
  const { createHash } = require("node:crypto") as typeof import("node:crypto");
  return createHash(format === "sha256" ? "sha256" : "sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** What the work tree holds at a project-relative path now: its mode and raw blob id, or null (nothing, or no file). */
export function workEntry(project: string, format: Repo["format"], rel: string): Entry | null {
  const abs = join(project, ...rel.split("/"));
  let st;
  try {
    st = lstatSync(abs);
  } catch {
    return null;
  }
  if (st.isSymbolicLink()) return { mode: "120000", id: blobId(format, Buffer.from(readlinkSync(abs, { encoding: "buffer" }))) };
  if (!st.isFile()) return null;
  return { mode: st.mode & 0o111 ? "100755" : "100644", id: blobId(format, readFileSync(abs)) };
}

/** Environment of a git call that reads (and writes) the snapshot objects beside the repository's. */
export function snapshotEnv(repo: Repo, objects: string, index?: string): Record<string, string> {
  return { GIT_OBJECT_DIRECTORY: objects, GIT_ALTERNATE_OBJECT_DIRECTORIES: repo.objects, ...(index ? { GIT_INDEX_FILE: index } : {}) };
}

/** The scope's entries of a tree (project-relative path → entry), read with the snapshot objects. */
export async function treeEntries(repo: Repo, objects: string, tree: string, keep: (rel: string) => boolean): Promise<Map<string, Entry>> {
  const r = await repo.git.run(["ls-tree", "-r", "-z", "--full-tree", tree], { env: snapshotEnv(repo, objects) });
  if (r.code !== 0) throw new Error(`git cannot read the snapshot ${tree}: ${gitError(r)}`);
  const out = new Map<string, Entry>();
  for (const line of zList(r.stdout)) {
    const m = /^(\d{6}) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(line);
    if (!m || m[2] !== "blob" || !m[4].startsWith(repo.prefix)) continue;
    const rel = m[4].slice(repo.prefix.length);
    if (keep(rel)) out.set(rel, { mode: m[1], id: m[3] });
  }
  return out;
}

const ZERO = (format: Repo["format"]) => "0".repeat(format === "sha256" ? 64 : 40);

/**
 * The scope's files as the work tree and git's index name them: project-relative paths that are tracked (in
 * `index`, or the user's index when undefined) or untracked and not ignored, with whether each is tracked.
 */
export async function scopeListing(repo: Repo, keep: (rel: string) => boolean, env?: Record<string, string>): Promise<Map<string, boolean>> {
  const r = await repo.git.run(["ls-files", "-z", "-t", "--full-name", "--cached", "--others", "--exclude-standard", "--", "."], { env });
  if (r.code !== 0) throw new Error(`git cannot list the files: ${gitError(r)}`);
  const out = new Map<string, boolean>();
  for (const line of zList(r.stdout)) {
    const tag = line.slice(0, 1);
    const full = line.slice(2);
    if (!full.startsWith(repo.prefix)) continue;
    const rel = full.slice(repo.prefix.length);
    if (!keep(rel)) continue;
    const tracked = tag !== "?";
    out.set(rel, (out.get(rel) ?? false) || tracked);
  }
  return out;
}

/** Take a snapshot of a role's scope (see the header). Never throws for a project without git: `{none}`. */
export async function takeSnapshot(project: string, role: Json, at: string): Promise<SnapshotRecord> {
  const repo = await openRepo(project);
  if ("none" in repo) return { none: repo.none };
  if ("why" in repo) return { none: repo.why };
  let idx: ReturnType<typeof privateIndex>;
  try {
    idx = privateIndex(project, "snap");
  } catch (err) {
    return { none: `no snapshot folder in .design/: ${(err as Error).message}` };
  }
  try {
    const env = snapshotEnv(repo, idx.objects, idx.path);
    const git = repo.git;
    const fail = (what: string, r: Parameters<typeof gitError>[0]): SnapshotRecord => ({ none: `git ${what} failed: ${gitError(r)}` });
    const read = await git.run(repo.head ? ["read-tree", repo.head] : ["read-tree", "--empty"], { env });
    if (read.code !== 0) return fail("read-tree", read);
    const listing = await scopeListing(repo, (rel) => inRoleScope(role, rel), env);
    const files: Array<[string, boolean]> = [];
    const links: string[] = [];
    const lines: string[] = [];
    const skipped: string[] = [];
    let complete = true;
    let untracked = 0;
    const leave = (rel: string) => {
      complete = false;
      if (skipped.length < MAX_LISTED) skipped.push(rel);
    };
    for (const [rel, tracked] of [...listing].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const full = repo.prefix + rel;
      if (rel.includes("\n")) {
        leave(rel);
        continue;
      }
      let st;
      try {
        st = lstatSync(join(project, ...rel.split("/")));
      } catch {
        st = null;
      }
      if (st === null) {
        if (tracked) lines.push(`0 ${ZERO(repo.format)}\t${full}`);
        continue;
      }
      if (!tracked) {
        untracked++;
        if (untracked > MAX_UNTRACKED || (st.isFile() && st.size > MAX_UNTRACKED_BYTES)) {
          leave(rel);
          continue;
        }
      }
      if (st.isSymbolicLink()) links.push(rel);
      else if (st.isFile()) files.push([rel, (st.mode & 0o111) !== 0]);
      else if (!tracked) leave(rel);
    }
    if (files.length) {
      const h = await git.run(["hash-object", "-w", "--no-filters", "--stdin-paths"], { env, input: files.map(([f]) => `${f}\n`).join("") });
      if (h.code !== 0) return fail("hash-object", h);
      const ids = h.stdout.split("\n").filter(Boolean);
      if (ids.length !== files.length) return { none: "git hash-object gave fewer ids than files" };
      files.forEach(([rel, exec], k) => lines.push(`${exec ? "100755" : "100644"} ${ids[k]}\t${repo.prefix}${rel}`));
    }
    for (const rel of links) {
      const target = readlinkSync(join(project, ...rel.split("/")));
      const h = await git.run(["hash-object", "-w", "--stdin"], { env, input: target });
      if (h.code !== 0) return fail("hash-object", h);
      lines.push(`120000 ${h.stdout.trim()}\t${repo.prefix}${rel}`);
    }
    if (lines.length) {
      const u = await git.run(["update-index", "-z", "--index-info"], { env, input: lines.map((l) => `${l}\0`).join("") });
      if (u.code !== 0) return fail("update-index", u);
    }
    const w = await git.run(["write-tree"], { env });
    if (w.code !== 0) return fail("write-tree", w);
    return { tree: w.stdout.trim(), base: repo.head, at, skipped, complete };
  } finally {
    idx.done();
  }
}

/** Where a left-out path of a snapshot covers `rel` (the path itself): such a file is never removed. */
export function leftOut(snap: Snapshot, rel: string): boolean {
  return snap.skipped.some((p) => p === rel || rel.startsWith(`${p.replace(/\/+$/, "")}/`));
}

export const toPosix = (p: string) => p.split(sep).join(posix.sep);
