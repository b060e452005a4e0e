// git for `next` and update-status (an attempt's snapshot, lib/git/snapshot.ts), `commit`, `clean-attempt` and `finish`,
// and run-begin's status (lib/git/git-status.ts): the one place the helper's git is found, configured and started.
// `commit`, `clean-attempt` and `finish` change the work tree and the repository (`.git/`), always on files the
// execute grant lets the role edit (lib/grant/role-files.ts): the git subprocess doing what the user granted, as run-checks
// runs the granted checks; a snapshot writes only inside `.design/snapshots/` (its own object folder and index).
//
// git runs without a shell (argv arrays, `--` before paths, `--literal-pathspecs` so a file named `*` or `:(glob)x`
// is only itself), from the project root, with a timeout and a small environment (`gitEnv`: no GIT_* variable of the
// caller reaches it, so GIT_DIR, GIT_INDEX_FILE, GIT_CONFIG_PARAMETERS, GIT_EXTERNAL_DIFF and the like cannot
// redirect or extend it). git runs nothing a repository configures: no system or global configuration file, no
// transport of any protocol (GIT_ALLOW_PROTOCOL empty wins over a repository's `protocol.ext.allow`), no lazy fetch,
// and, as configuration in the environment (GIT_CONFIG_COUNT, which wins over every file, and reaches any git the
// call starts), hooks, fsmonitor, pager, editor, askpass, ssh, signing, automatic gc off (`SAFE_CONFIG`), plus every
// driver the repository's configuration names blanked (`driverOverrides`: filters, textconv and external diff,
// merge drivers, configuration hooks, credential helpers, remote programs, promisor remotes), read once per runner.
// Nothing here produces a patch. test/commands/git-hostile.test.ts plants all of them and checks that nothing ran.
import { execFile, spawnSync } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";

/** Each git call gets this long before it is killed. */
export const GIT_TIMEOUT_MS = 60_000;
/** Output kept from one call (stdout); more is an error. */
const MAX_OUTPUT = 32 * 1024 * 1024;

/**
 * Configuration that would let a repository (or the user's own files) make git run a program, reach the network or
 * linger, overridden for every call. Given through the environment (GIT_CONFIG_COUNT/KEY/VALUE, the command line's
 * scope: it wins over every file), so it also holds for any git the call starts itself.
 */
export const SAFE_CONFIG: readonly (readonly [string, string])[] = [
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["core.useBuiltinFSMonitor", "false"],
  ["core.editor", "false"],
  ["core.pager", "cat"],
  ["core.askPass", ""],
  ["core.sshCommand", "false"],
  ["core.gitProxy", ""],
  ["core.attributesFile", "/dev/null"],
  ["core.autocrlf", "false"],
  ["core.safecrlf", "false"],
  ["core.eol", "lf"],
  ["core.untrackedCache", "false"],
  ["diff.external", ""],
  ["commit.gpgSign", "false"],
  ["tag.gpgSign", "false"],
  ["gc.auto", "0"],
  ["maintenance.auto", "false"],
  ["submodule.recurse", "false"],
  ["protocol.allow", "never"],
  ["credential.helper", ""],
  ["fetch.recurseSubmodules", "false"],
];

/**
 * The variables every git call gets besides the configuration: no system or global configuration file (the user's
 * identity is read once, as data, by `identityEnv`), no system attributes file, no transport of any kind
 * (GIT_ALLOW_PROTOCOL empty: every protocol refused whatever a repository's `protocol.<name>.allow` says), no lazy
 * fetch of a promisor remote's missing objects, no pager, editor, prompt or ssh program, no replace refs.
 */
export const SAFE_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_SYSTEM: "/dev/null",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_ATTR_NOSYSTEM: "1",
  GIT_ALLOW_PROTOCOL: "",
  GIT_PROTOCOL_FROM_USER: "0",
  GIT_NO_LAZY_FETCH: "1",
  GIT_NO_REPLACE_OBJECTS: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_EDITOR: "false",
  GIT_SEQUENCE_EDITOR: "false",
  GIT_ASKPASS: "",
  SSH_ASKPASS: "",
  GIT_SSH_COMMAND: "false",
  GIT_SSH: "false",
};

/**
 * The per-name keys of a configuration (`git config --null --list` output, read under SAFE_ENV) that name a program
 * git could run, each blanked: filter drivers (`.gitattributes` names them, `git add`/`restore`/`status` run them),
 * diff drivers (textconv, external diff), merge drivers, configuration hooks (`hook.<name>.event`/`.command`, git
 * 2.54+), credential helpers per URL, a remote's upload/receive programs, and promisor remotes (lazy fetch). A
 * variable's key may hold any byte (unlike a `-c` key, where `=` ends it).
 */
export function driverOverrides(list: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const seen = new Set<string>();
  const push = (k: string, v: string) => {
    if (!seen.has(k)) {
      seen.add(k);
      out.push([k, v]);
    }
  };
  for (const entry of zList(list)) {
    const key = entry.split("\n", 1)[0];
    const m = /^([a-z0-9-]+)\.(.*)\.([a-z0-9-]+)$/is.exec(key);
    if (!m) continue;
    const [, section, name, variable] = m;
    const sec = section.toLowerCase();
    const v = variable.toLowerCase();
    if (sec === "filter") {
      for (const k of ["clean", "smudge", "process"]) push(`filter.${name}.${k}`, "");
      push(`filter.${name}.required`, "false");
    } else if (sec === "diff") {
      for (const k of ["textconv", "command"]) push(`diff.${name}.${k}`, "");
    } else if (sec === "merge") push(`merge.${name}.driver`, "");
    else if (sec === "hook") {
      push(`hook.${name}.event`, "");
      push(`hook.${name}.command`, "");
      push(`hook.${name}.enabled`, "false");
    } else if (sec === "credential" && v === "helper") push(`credential.${name}.helper`, "");
    else if (sec === "remote") {
      for (const k of ["uploadpack", "receivepack", "proxy", "vcs"]) push(`remote.${name}.${k}`, "");
      push(`remote.${name}.promisor`, "false");
    }
  }
  return out;
}

/** Configuration pairs as GIT_CONFIG_COUNT/KEY/VALUE variables. */
export function configEnv(pairs: readonly (readonly [string, string])[]): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) };
  pairs.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return env;
}

/** Variables of the helper's environment git gets (identity and locale: data, never a program), and no other. */
const ENV_PASSED = ["PATH", "HOME", "USER", "LOGNAME", "TZ", "TMPDIR", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"];

/** The environment of every git call before its configuration overrides: passed variables, SAFE_ENV, C locale. */
export function gitEnv(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ENV_PASSED) {
    const v = from[k];
    if (typeof v === "string" && v !== "" && !v.includes("\0")) env[k] = v;
  }
  if (env.PATH === undefined) env.PATH = "/usr/local/bin:/usr/bin:/bin";
  return { ...env, ...SAFE_ENV, LC_ALL: "C", LANG: "C" };
}

/**
 * The whole environment of a git call in `cwd`, found synchronously (run-begin's status): one configuration read
 * under SAFE_ENV names the drivers to blank, then SAFE_CONFIG and those go in as variables.
 */
export function safeEnvSync(git: string, cwd: string, base: Record<string, string> = gitEnv()): Record<string, string> {
  const r = spawnSync(git, ["config", "--null", "--list"], { cwd, env: { ...base, ...configEnv(SAFE_CONFIG) }, shell: false, stdio: ["ignore", "pipe", "pipe"], timeout: 10_000, killSignal: "SIGKILL", maxBuffer: 8 * 1024 * 1024, encoding: "utf8" });
  const list = r.status === 0 && typeof r.stdout === "string" ? r.stdout : "";
  return { ...base, ...configEnv([...SAFE_CONFIG, ...driverOverrides(list)]) };
}

/**
 * An absolute git: the absolute entries of PATH in order (never an empty or relative one, which would find a `git`
 * the project put in its own folder), none whose real path lies inside the project (a `git` planted there would run
 * as the helper's git). run-begin's read-only status (lib/git/git-status.ts) takes the same.
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

export interface GitCall {
  /** Written to git's stdin, then closed (otherwise stdin is closed at once). */
  input?: string;
  /** More variables (GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES, identity). */
  env?: Record<string, string>;
}

/** One git call. */
export interface Git {
  project: string;
  run(args: readonly string[], call?: GitCall): Promise<GitRun>;
}

/**
 * A git runner for the project root (`project`: its real path), or null when no git is found. The first call reads
 * the configuration once (SAFE_ENV, nothing run) to name the drivers to blank (`driverOverrides`); every call then
 * gets SAFE_ENV and those overrides as variables.
 */
export function gitFor(project: string, timeoutMs = GIT_TIMEOUT_MS): Git | null {
  const git = findGit(project);
  if (git === null) return null;
  const base = gitEnv();
  const exec = (args: readonly string[], env: Record<string, string>, input: string): Promise<GitRun> =>
    new Promise((done) => {
      const argv = ["--no-pager", "--literal-pathspecs", ...args];
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
    });
  let ready: Promise<Record<string, string>> | undefined;
  const prepared = () =>
    (ready ??= exec(["config", "--null", "--list"], { ...base, ...configEnv(SAFE_CONFIG) }, "").then((r) => ({
      ...base,
      ...configEnv([...SAFE_CONFIG, ...driverOverrides(r.code === 0 ? r.stdout : "")]),
    })));
  return {
    project,
    run: async (args, call = {}) => exec(args, { ...(await prepared()), ...(call.env ?? {}) }, call.input ?? ""),
  };
}

/**
 * The committer identity as variables, for a commit made without the user's configuration files: the caller's
 * GIT_AUTHOR_NAME and the like where set, else `user.name`/`user.email` as git reads them from the user's and the
 * repository's configuration (a read: nothing runs), else a fixed name so the commit is still made.
 */
export async function identityEnv(project: string, from: NodeJS.ProcessEnv = process.env): Promise<Record<string, string>> {
  const git = findGit(project);
  const read = (key: string): Promise<string> =>
    new Promise((done) => {
      if (git === null) return done("");
      const env = { ...gitEnv(from) };
      delete env.GIT_CONFIG_GLOBAL;
      delete env.GIT_CONFIG_SYSTEM;
      delete env.GIT_CONFIG_NOSYSTEM;
      if (typeof from.XDG_CONFIG_HOME === "string" && from.XDG_CONFIG_HOME.startsWith("/")) env.XDG_CONFIG_HOME = from.XDG_CONFIG_HOME;
      execFile(git, ["config", "--get", key], { cwd: project, env, timeout: 10_000, killSignal: "SIGKILL", encoding: "utf8", shell: false }, (err, out) => done(err ? "" : out.trim()));
    });
  const pick = (v: string | undefined) => (typeof v === "string" && v.trim() !== "" && !v.includes("\0") && !v.includes("\n") ? v : undefined);
  const name = pick(from.GIT_AUTHOR_NAME) ?? pick(await read("user.name")) ?? "do";
  const email = pick(from.GIT_AUTHOR_EMAIL) ?? pick(await read("user.email")) ?? "do@localhost";
  return {
    GIT_AUTHOR_NAME: name,
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: pick(from.GIT_COMMITTER_NAME) ?? name,
    GIT_COMMITTER_EMAIL: pick(from.GIT_COMMITTER_EMAIL) ?? email,
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

/** Each path's set attributes among `names` (project-relative paths; unspecified ones left out). */
export async function attributesOf(git: Git, paths: readonly string[], names: readonly string[]): Promise<Map<string, Map<string, string>> | { why: string }> {
  const out = new Map<string, Map<string, string>>();
  if (paths.length === 0) return out;
  const r = await git.run(["check-attr", "-z", "--stdin", ...names], { input: paths.map((p) => `${p}\0`).join("") });
  if (r.code !== 0) return { why: `git cannot read the files' attributes: ${gitError(r)}` };
  const f = zList(r.stdout);
  for (let i = 0; i + 2 < f.length; i += 3) {
    if (f[i + 2] === "unspecified") continue;
    const m = out.get(f[i]) ?? new Map<string, string>();
    m.set(f[i + 1], f[i + 2]);
    out.set(f[i], m);
  }
  return out;
}

/** The paths whose `filter` attribute is set, each with its value: `commit` leaves them to the user (git-lfs and the like). */
export async function filteredPaths(git: Git, paths: readonly string[]): Promise<Map<string, string> | { why: string }> {
  const attrs = await attributesOf(git, paths, ["filter"]);
  if (!(attrs instanceof Map)) return attrs;
  const out = new Map<string, string>();
  for (const [p, m] of attrs) {
    const v = m.get("filter");
    if (v !== undefined && v !== "unset") out.set(p, v);
  }
  return out;
}

/**
 * The paths git would write with other bytes than the blob's (with SAFE_CONFIG's core.autocrlf=false and
 * core.eol=lf and every filter blanked, only `ident`, `working-tree-encoding` and `eol=crlf` still convert), each
 * with the attribute: clean-attempt leaves them to the user rather than put back other bytes than the user's.
 */
export async function rewrittenPaths(git: Git, paths: readonly string[]): Promise<Map<string, string> | { why: string }> {
  const attrs = await attributesOf(git, paths, ["ident", "working-tree-encoding", "eol"]);
  if (!(attrs instanceof Map)) return attrs;
  const out = new Map<string, string>();
  for (const [p, m] of attrs) {
    if (m.get("ident") === "set") out.set(p, "ident");
    else if ((m.get("working-tree-encoding") ?? "unset") !== "unset") out.set(p, `working-tree-encoding=${m.get("working-tree-encoding")}`);
    else if (m.get("eol") === "crlf") out.set(p, "eol=crlf");
  }
  return out;
}
