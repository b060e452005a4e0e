// What git says of the work tree, read-only, for run-begin: the paths `git status --porcelain` lists, outside the
// project's .design/. git is found, configured and given its environment as lib/git/git.ts does for the granted calls
// (no shell, no configuration file but the repository's, and every program it could name off: lib/git/git.ts), with optional locks off (status
// then never rewrites the index), a bounded time and output, from the project root. Loaded only by run-begin.
import { spawnSync } from "node:child_process";
import { findGit, safeEnvSync } from "./git.js";

export { findGit };

/** git status gets this long before it is killed. */
export const GIT_TIMEOUT_MS = 10_000;
/** At most this many dirty paths are listed (`dirtyCount` has them all). */
export const MAX_DIRTY = 50;

export interface GitFacts {
  repo: boolean;
  dirty: string[];
  dirtyCount: number;
  error?: string;
}

/**
 * `limit`: how many paths `dirty` keeps (run-begin shows 50; the grant's listing of dirty files in the roles' scopes
 * takes every untracked file one by one, `untrackedFiles: true`, and all of them).
 */
export function gitStatus(root: string, timeoutMs = GIT_TIMEOUT_MS, opts: { limit?: number; untrackedFiles?: boolean } = {}): GitFacts {
  const git = findGit(root);
  if (git === null) return { repo: false, dirty: [], dirtyCount: 0, error: "git is not installed (no git on PATH outside the project)" };
  const env = { ...safeEnvSync(git, root), GIT_OPTIONAL_LOCKS: "0" };
  const r = spawnSync(
    git,
    ["--no-pager", "--no-optional-locks", "status", "--porcelain", "-z", ...(opts.untrackedFiles ? ["--untracked-files=all"] : []), "--", ".", ":(exclude).design"],
    { cwd: root, env, shell: false, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 16 * 1024 * 1024, windowsHide: true },
  );
  const none = { dirty: [], dirtyCount: 0 };
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { repo: false, ...none, error: "git is not installed" };
    if (code === "ETIMEDOUT") return { repo: false, ...none, error: `git status took longer than ${timeoutMs / 1000} s` };
    return { repo: false, ...none, error: `git status failed: ${r.error.message}` };
  }
  if (r.status !== 0) {
    const why = r.stderr.toString("utf8").split("\n").find((l) => l.trim() !== "") ?? `exit ${r.status ?? r.signal}`;
    return /not a git repository/i.test(why) ? { repo: false, ...none } : { repo: false, ...none, error: why.trim().slice(0, 300) };
  }
  // -z: "XY path\0", a rename or copy "XY new\0old\0".
  const fields = r.stdout.toString("utf8").split("\0");
  const dirty: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (f.length < 4) continue;
    dirty.push(f.slice(3));
    if (f[0] === "R" || f[0] === "C") i++;
  }
  dirty.sort();
  return { repo: true, dirty: dirty.slice(0, opts.limit ?? MAX_DIRTY), dirtyCount: dirty.length };
}
