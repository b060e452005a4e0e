// What git says of the work tree, read-only, for run-begin: the paths `git status --porcelain` lists, outside the
// project's .design/. git runs without a shell, with the repository's hooks and fsmonitor turned off and optional
// locks off (status then never rewrites the index), a bounded time and output, from the project root, with an
// environment of PATH, HOME and the C locale only. Loaded only by the commands that call it (child_process).
import { spawnSync } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { sep } from "node:path";

/**
 * An absolute git: the absolute entries of PATH in order (never an empty or relative one, which would find a `git`
 * the project put in its own folder), none inside the project root.
 */
export function findGit(root: string, path: string | undefined = process.env.PATH): string | null {
  for (const d of (path ?? "").split(":").filter((x) => x.startsWith("/"))) {
    const f = `${d.replace(/\/+$/, "")}/git`;
    try {
      if (!statSync(f).isFile()) continue;
      accessSync(f, constants.X_OK);
      const real = realpathSync(f);
      if (real === root || real.startsWith(root.endsWith(sep) ? root : root + sep)) continue;
      return f;
    } catch {
      /* not here */
    }
  }
  return null;
}

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

export function gitStatus(root: string, timeoutMs = GIT_TIMEOUT_MS): GitFacts {
  const git = findGit(root);
  if (git === null) return { repo: false, dirty: [], dirtyCount: 0, error: "git is not installed (no git on PATH outside the project)" };
  const env: NodeJS.ProcessEnv = { LANG: "C", LC_ALL: "C", GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" };
  for (const k of ["PATH", "HOME"]) if (process.env[k] !== undefined) env[k] = process.env[k];
  const r = spawnSync(
    git,
    ["--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "status", "--porcelain", "-z", "--", ".", ":(exclude).design"],
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
  return { repo: true, dirty: dirty.slice(0, MAX_DIRTY), dirtyCount: dirty.length };
}
