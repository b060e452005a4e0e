// git for `commit`, `clean-attempt` and `finish`: the one place the helper runs git to change the work tree and the
// repository (`.git/`), always on files the execute grant lets the role edit (lib/role-files.ts). Writing `.git/`
// and the role's files is the git subprocess doing what the user granted, as run-checks runs the granted checks; the
// helper's own writes stay inside `.design/`.
//
// git runs without a shell (argv arrays, `--` before paths, `--literal-pathspecs` so a file named `*` or `:(glob)x`
// is only itself), from the project root, with a timeout and a small environment (`gitEnv`: no GIT_* variable of the
// caller reaches it, so GIT_DIR, GIT_INDEX_FILE, GIT_CONFIG_PARAMETERS, GIT_EXTERNAL_DIFF and the like cannot
// redirect or extend it). What a repository's configuration could make git run is turned off for every call
// (`SAFE_CONFIG`): hooks (core.hooksPath=/dev/null, and `--no-verify` on commit), the fsmonitor, signing (gpg.program),
// automatic gc and maintenance (which would outlive the call), submodule recursion, every transport; and each filter
// driver the configuration names (`filter.<name>.clean/smudge/process`, which `git add` and `git restore` run) is
// blanked per call (`filterOverrides`). Nothing here produces a patch (no textconv, no external diff). A file whose
// attributes name a filter is left out by the callers (its content would be committed unfiltered).
import { execFile } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";

/** Each git call gets this long before it is killed. */
export const GIT_TIMEOUT_MS = 60_000;
/** Output kept from one call (stdout); more is an error. */
const MAX_OUTPUT = 32 * 1024 * 1024;

/** Configuration that would let a repository make git run a program or linger, overridden for every call. */
export const SAFE_CONFIG: readonly string[] = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.editor=false",
  "core.pager=cat",
  "commit.gpgSign=false",
  "tag.gpgSign=false",
  "gc.auto=0",
  "maintenance.auto=false",
  "submodule.recurse=false",
  "protocol.allow=never",
  "core.sshCommand=false",
  "credential.helper=",
];

/** Variables of the helper's environment git gets (identity and locale: data, never a program), and no other. */
const ENV_PASSED = ["PATH", "HOME", "USER", "LOGNAME", "TZ", "TMPDIR", "XDG_CONFIG_HOME", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"];

export function gitEnv(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ENV_PASSED) {
    const v = from[k];
    if (typeof v === "string" && v !== "" && !v.includes("\0")) env[k] = v;
  }
  if (env.PATH === undefined) env.PATH = "/usr/local/bin:/usr/bin:/bin";
  return { ...env, LC_ALL: "C", LANG: "C", GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", GIT_EDITOR: "false", GIT_ASKPASS: "", SSH_ASKPASS: "" };
}

/**
 * An absolute git: the absolute entries of PATH in order (never an empty or relative one, which would find a `git`
 * the project put in its own folder), none whose real path lies inside the project (a `git` planted there would run
 * as the helper's git). run-begin's read-only status (lib/git-status.ts) takes the same.
 */
export function findGit(project: string, path: string | undefined = process.env.PATH): string | null {
  for (const d of (path ?? "").split(":").filter((x) => x.startsWith("/"))) {
    const f = `${d.replace(/\/+$/, "")}/git`;
    try {
      if (!statSync(f).isFile()) continue;
      accessSync(f, constants.X_OK);
      const rel = relative(project, realpathSync(f));
      if (rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))) continue;
      return f;
    } catch {
      /* not here */
    }
  }
  return null;
}

export interface GitRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Why it did not run to an exit code (timeout, could not start), or "". */
  failure: string;
}

/** One git call. */
export interface Git {
  project: string;
  /** `input`: written to git's stdin, then closed (otherwise stdin is closed at once). */
  run(args: readonly string[], extraConfig?: readonly string[], input?: string): Promise<GitRun>;
}

/** A git runner for the project root (`project`: its real path), or null when no git is found. */
export function gitFor(project: string, timeoutMs = GIT_TIMEOUT_MS): Git | null {
  const git = findGit(project);
  if (git === null) return null;
  const env = gitEnv();
  return {
    project,
    run: (args, extraConfig = [], input = "") =>
      new Promise((done) => {
        const argv = ["--no-pager", "--literal-pathspecs", ...[...SAFE_CONFIG, ...extraConfig].flatMap((c) => ["-c", c]), ...args];
        const child = execFile(
          git,
          argv,
          { cwd: project, env, timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: MAX_OUTPUT, encoding: "utf8", windowsHide: true, shell: false },
          (err, stdout, stderr) => {
            if (!err) return done({ code: 0, stdout, stderr, failure: "" });
            const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: unknown; signal?: string };
            if (typeof e.code === "number") return done({ code: e.code, stdout, stderr, failure: "" });
            const failure = e.killed ? `git ${args[0]} took longer than ${Math.round(timeoutMs / 1000)} s` : `git ${args[0]} could not run: ${e.message}`;
            done({ code: null, stdout: stdout ?? "", stderr: stderr ?? "", failure });
          },
        );
        // git never waits for input: stdin gets `input` and is closed.
        child.stdin?.on("error", () => undefined);
        child.stdin?.end(input);
      }),
  };
}

/** The first lines of git's complaint, for an answer. */
export function gitError(r: GitRun): string {
  if (r.failure) return r.failure;
  const text = r.stderr.replace(/\r/g, "").split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("hint:"));
  return (text.slice(0, 3).join(" ") || `exit ${r.code}`).slice(0, 500);
}

/** NUL-separated output, without the empty tail. */
export function zList(out: string): string[] {
  const parts = out.split("\0");
  if (parts.length && parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/** The repository around the project: its work tree's real root, or why there is none to work in. */
export async function repoOf(git: Git): Promise<{ top: string } | { none: string } | { why: string }> {
  const r = await git.run(["rev-parse", "--show-toplevel"]);
  if (r.code !== 0) {
    const why = gitError(r);
    if (/not a git repository|must be run in a work tree|bare repository/i.test(why) || (r.failure === "" && /^fatal: this operation must be run in a work tree/i.test(r.stderr))) {
      return { none: "not a git repository" };
    }
    return { why: `git cannot read the repository: ${why}` };
  }
  const shown = r.stdout.replace(/\n$/, "");
  let top: string;
  try {
    top = realpathSync(shown);
  } catch {
    return { why: `the repository's work tree ${shown} cannot be resolved` };
  }
  const rel = relative(top, git.project);
  if (rel.startsWith("..") || isAbsolute(rel)) return { why: `the repository's work tree (${top}) does not hold the project: its configuration points elsewhere` };
  return { top };
}

/** A path git printed relative to the work tree's root, as a project-relative posix path (null: outside the project). */
export function fromTop(top: string, project: string, repoPath: string): string | null {
  const rel = relative(project, join(top, repoPath));
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return null;
  return rel.split(sep).join("/");
}

/**
 * `-c` overrides blanking every filter driver the configuration names (clean, smudge and process programs), or why
 * one cannot be blanked (a driver name holding `=` cannot be written as a `-c` key).
 */
export async function filterOverrides(git: Git): Promise<string[] | { why: string }> {
  const r = await git.run(["config", "--null", "--get-regexp", "^filter\\."]);
  if (r.code === 1 && r.stdout === "") return [];
  if (r.code !== 0) return { why: `git cannot read its configuration: ${gitError(r)}` };
  const names = new Set<string>();
  for (const entry of zList(r.stdout)) {
    const key = entry.split("\n", 1)[0];
    const m = /^filter\.(.*)\.[^.]*$/s.exec(key);
    if (m) names.add(m[1]);
  }
  const out: string[] = [];
  for (const name of names) {
    if (name.includes("=") || name.includes("\n") || name.includes("\0")) return { why: `a filter driver named ${JSON.stringify(name)} is configured and cannot be turned off for this call` };
    out.push(`filter.${name}.clean=`, `filter.${name}.smudge=`, `filter.${name}.process=`, `filter.${name}.required=false`);
  }
  return out;
}

/** The paths (project-relative) whose `filter` attribute is set, each with its value. */
export async function filteredPaths(git: Git, paths: readonly string[]): Promise<Map<string, string> | { why: string }> {
  const out = new Map<string, string>();
  if (paths.length === 0) return out;
  const r = await git.run(["check-attr", "-z", "filter", "--", ...paths]);
  if (r.code !== 0) return { why: `git cannot read the files' attributes: ${gitError(r)}` };
  const f = zList(r.stdout);
  for (let i = 0; i + 2 < f.length; i += 3) {
    const value = f[i + 2];
    if (value !== "unspecified" && value !== "unset") out.set(f[i], value);
  }
  return out;
}
