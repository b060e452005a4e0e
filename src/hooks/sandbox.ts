// Whether Claude Code runs this session's Bash calls inside its sandbox, as far as a hook can tell. The hook input
// says nothing about it (same fields with the sandbox on or off, on 2.1.197 and 2.1.332), so this reads the settings
// files the CLI reads and repeats its checks, and answers "on" only when the sandbox really confines a call:
// - `sandbox.enabled` is true in the settings that win: managed > local (.claude/settings.local.json) > project
//   (.claude/settings.json) > user ($CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json); a lower file's
//   true does not survive a higher file's false. A `--settings` flag is invisible here: the sandbox it turns on
//   reads as off, and one it turns off as the files say (the user's own choice at launch).
// - The sandbox started: only `sandbox.failIfUnavailable` proves it (the CLI then refuses to start without it).
//   Without it the CLI runs every command unsandboxed when it finds the sandbox unusable: on Linux when `bwrap` or
//   `socat` is not on PATH (then "off" here), or, as uid 0 without CAP_SETFCAP, when a trial bwrap run fails
//   (2.1.332's check; invisible here, hence "unknown"). A bwrap that is found but fails makes commands fail.
// - The project's own settings files (a cloned repository's, like .claude/settings.local.json) do not widen it:
//   `sandbox.excludedCommands`, `filesystem.allowWrite`, `network.allowedDomains`, `permissions.additionalDirectories`
//   and Edit/Write/WebFetch allow rules all reach the sandbox even in a workspace never trusted, and an `env` PATH
//   makes the CLI run whatever `bwrap` it finds there (measured: commands then run unconfined).
// A file the CLI reads that cannot be read safely here (a symbolic link, not a regular file, over 1 MiB, not a JSON
// object, a sandbox value of the wrong type) makes the answer "unknown". Node built-ins only: the hook bundles it.
import { accessSync, closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, isAbsolute, join, relative, sep } from "node:path";

export type SandboxState = "on" | "off" | "unknown";

export interface SandboxCheck {
  state: SandboxState;
  /** One line for the user: why the state is what it is (which file, which setting). */
  reason: string;
}

export interface SandboxOptions {
  /** process.platform by default. */
  platform?: NodeJS.Platform;
  /** The folder of managed-settings.json and managed-settings.d/ (by default the platform's; tests pass their own). */
  managedDir?: string;
}

/** Larger settings files are not read (the CLI's own are a few KB). */
export const MAX_SETTINGS_BYTES = 1024 * 1024;
/** More drop-ins in managed-settings.d/ than this: not read. */
const MAX_DROP_INS = 64;

type Obj = Record<string, unknown>;
type Scope = "managed" | "project" | "user";
type Source = { label: string; doc: Obj; scope: Scope };
type Read = { kind: "absent" } | { kind: "bad"; why: string } | { kind: "ok"; doc: Obj };

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A settings file read without following a final symlink, without blocking on a FIFO, and only up to the cap. */
export function readSettingsFile(path: string): Read {
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? { kind: "absent" } : { kind: "bad", why: `cannot be read (${code})` };
  }
  if (st.isSymbolicLink()) return { kind: "bad", why: "is a symbolic link" };
  if (!st.isFile()) return { kind: "bad", why: "is not a regular file" };
  if (st.size > MAX_SETTINGS_BYTES) return { kind: "bad", why: `is over ${MAX_SETTINGS_BYTES} bytes` };
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    const now = fstatSync(fd);
    if (!now.isFile()) return { kind: "bad", why: "is not a regular file" };
    const buf = Buffer.alloc(Math.min(now.size, MAX_SETTINGS_BYTES) + 1);
    let len = 0;
    for (let n; len < buf.length && (n = readSync(fd, buf, len, buf.length - len, null)) > 0; ) len += n;
    if (len > now.size) return { kind: "bad", why: "changed while it was read" };
    // The CLI ignores a file that is not plain JSON (comments and trailing commas included: measured on both
    // releases); unknown here, since the file may mean something to a later release.
    const doc: unknown = JSON.parse(buf.toString("utf8", 0, len));
    return isObj(doc) ? { kind: "ok", doc } : { kind: "bad", why: "is not a JSON object" };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { kind: "bad", why: code ? `cannot be read (${code})` : "is not valid JSON" };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function managedDirOf(platform: NodeJS.Platform): string | null {
  if (platform === "linux") return "/etc/claude-code";
  if (platform === "darwin") return "/Library/Application Support/ClaudeCode";
  if (platform === "win32") return "C:\\Program Files\\ClaudeCode";
  return null;
}

/** The settings files, highest precedence first, or the reason one of them cannot be read. */
function sources(projectDir: string, env: NodeJS.ProcessEnv, opts: SandboxOptions): Source[] | string {
  const files: { label: string; path: string; scope: Scope }[] = [];
  const add = (path: string, scope: Scope, label = path) => files.push({ label, path, scope });
  const managed = opts.managedDir ?? managedDirOf(opts.platform ?? process.platform);
  if (managed) {
    // Drop-ins override the base file, later names earlier ones (not measured: managed files are machine-wide).
    const dropDir = join(managed, "managed-settings.d");
    let dropIns: string[] = [];
    try {
      dropIns = readdirSync(dropDir).filter((f) => f.endsWith(".json") && !f.startsWith("."));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") return `${dropDir} cannot be listed (${code})`;
    }
    if (dropIns.length > MAX_DROP_INS) return `${dropDir} holds over ${MAX_DROP_INS} files`;
    for (const f of dropIns.sort().reverse()) add(join(dropDir, f), "managed");
    add(join(managed, "managed-settings.json"), "managed");
  }
  add(join(projectDir, ".claude", "settings.local.json"), "project", ".claude/settings.local.json");
  add(join(projectDir, ".claude", "settings.json"), "project", ".claude/settings.json");
  const configDir = env.CLAUDE_CONFIG_DIR;
  if (configDir !== undefined && configDir !== "") {
    if (!isAbsolute(configDir)) return `CLAUDE_CONFIG_DIR is not an absolute path: ${configDir}`;
    add(join(configDir, "settings.json"), "user");
  } else {
    const home = env.HOME || homedir();
    if (!home || !isAbsolute(home)) return "no absolute HOME to find the user's settings";
    add(join(home, ".claude", "settings.json"), "user", "~/.claude/settings.json");
  }
  const out: Source[] = [];
  for (const f of files) {
    const r = readSettingsFile(f.path);
    if (r.kind === "bad") return `${f.label} ${r.why}`;
    if (r.kind === "ok") out.push({ label: f.label, doc: r.doc, scope: f.scope });
  }
  return out;
}

function at(doc: Obj, path: readonly string[]): unknown {
  let v: unknown = doc;
  for (const k of path) {
    if (!isObj(v)) return undefined;
    v = v[k];
  }
  return v;
}

/** The value of a boolean setting in the file that wins, or a reason when one of them holds a non-boolean. */
function effective(all: Source[], path: readonly string[]): { value?: boolean; from?: string; bad?: string } {
  for (const s of all) {
    const v = at(s.doc, path);
    if (v === undefined) continue;
    if (typeof v !== "boolean") return { bad: `${s.label}: ${path.join(".")} is not true or false` };
    return { value: v, from: s.label };
  }
  return {};
}

/** What the sandbox keys of a project file may hold: on/off, and lists that only narrow it. */
const PROJECT_SANDBOX_KEYS: Record<string, readonly string[] | true> = {
  enabled: true,
  failIfUnavailable: true,
  autoAllowBashIfSandboxed: true,
  allowUnsandboxedCommands: true,
  ignoreViolations: true,
  filesystem: ["denyWrite", "denyRead"],
  network: ["deniedDomains"],
};

/** A rule path of an Edit/Write allow rule that stays inside the project: relative, without `..`. */
function insideProject(rulePath: string): boolean {
  if (rulePath === "" || rulePath.startsWith("/") || rulePath.startsWith("~") || rulePath.includes("\\")) return false;
  return !rulePath.split("/").includes("..");
}

/** How a project settings file widens the sandbox (or would change which bwrap runs), or null. */
export function projectWidening(doc: Obj): string | null {
  if (doc.env !== undefined && !(isObj(doc.env) && Object.keys(doc.env).length === 0)) {
    return "env (the CLI applies it to itself: a PATH there decides which bwrap it runs)";
  }
  const sb = doc.sandbox;
  if (sb !== undefined) {
    if (!isObj(sb)) return "sandbox (not an object)";
    for (const [k, v] of Object.entries(sb)) {
      const allowed = PROJECT_SANDBOX_KEYS[k];
      if (allowed === undefined) return `sandbox.${k}`;
      if (allowed === true) continue;
      if (!isObj(v)) return `sandbox.${k}`;
      for (const sub of Object.keys(v)) if (!allowed.includes(sub)) return `sandbox.${k}.${sub}`;
    }
  }
  const perms = doc.permissions;
  if (perms !== undefined) {
    if (!isObj(perms)) return "permissions (not an object)";
    const dirs = perms.additionalDirectories;
    if (dirs !== undefined && !(Array.isArray(dirs) && dirs.length === 0)) return "permissions.additionalDirectories";
    const allow = perms.allow;
    if (allow !== undefined) {
      if (!Array.isArray(allow)) return "permissions.allow (not a list)";
      for (const rule of allow) {
        if (typeof rule !== "string") return "permissions.allow (an entry that is not text)";
        const m = /^\s*([A-Za-z]+)\s*(?:\(([\s\S]*)\))?\s*$/.exec(rule);
        const tool = m?.[1] ?? "";
        if (/^WebFetch$/.test(tool)) return `permissions.allow ${rule}`;
        if (/^(?:Edit|Write|MultiEdit|NotebookEdit)$/.test(tool) && (m?.[2] === undefined || !insideProject(m[2].trim()))) return `permissions.allow ${rule}`;
      }
    }
  }
  return null;
}

function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Where the CLI would find a program: an absolute PATH entry holding an executable file of that name. */
function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const p = join(dir, name);
    try {
      if (!statSync(p).isFile()) continue;
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      /* next entry */
    }
  }
  return null;
}

/** The sandbox's two programs on Linux, or the reason the CLI would run commands unsandboxed. */
function linuxPrograms(all: Source[], env: NodeJS.ProcessEnv, projectReal: string): string | null {
  for (const [name, key] of [["bwrap", "bwrapPath"], ["socat", "socatPath"]] as const) {
    // Only managed settings may name the programs (the CLI ignores the keys elsewhere).
    const named = all.find((s) => s.scope === "managed" && typeof at(s.doc, ["sandbox", key]) === "string");
    const given = named ? String(at(named.doc, ["sandbox", key])) : null;
    let found: string | null = null;
    if (given === null) found = onPath(name, env);
    else if (isAbsolute(given)) {
      try {
        accessSync(given, constants.X_OK);
        found = given;
      } catch {
        found = null;
      }
    }
    if (!found) return `${name} is not ${given !== null ? `executable at ${given}` : "on PATH"}: Claude Code runs every command unsandboxed`;
    let real: string;
    try {
      real = realpathSync(found);
    } catch {
      return `${found} cannot be resolved`;
    }
    if (inside(real, projectReal)) return `the ${name} Claude Code would run is inside the project (${found})`;
  }
  return null;
}

/**
 * Whether a Bash call of this session runs in Claude Code's sandbox: "on" when the settings turn it on, nothing
 * in the project's own settings widens it and the CLI would not have started without it; "off" when it is off,
 * widened or cannot start (the CLI then runs commands unsandboxed); "unknown" when a settings file cannot be read
 * safely, or nothing proves that the sandbox started. Reads at most the managed, local, project and user settings
 * files (each bounded) and stats PATH entries.
 */
export function sandboxCheck(input: { cwd?: unknown }, env: NodeJS.ProcessEnv = process.env, opts: SandboxOptions = {}): SandboxCheck {
  const fromEnv = env.CLAUDE_PROJECT_DIR;
  const projectDir = typeof fromEnv === "string" && isAbsolute(fromEnv) ? fromEnv : typeof input.cwd === "string" && isAbsolute(input.cwd) ? input.cwd : null;
  if (!projectDir || projectDir.includes("\0")) return { state: "unknown", reason: "no absolute project folder (CLAUDE_PROJECT_DIR or the event's cwd)" };
  let projectReal: string;
  try {
    projectReal = realpathSync(projectDir);
  } catch {
    return { state: "unknown", reason: `the project folder cannot be resolved: ${projectDir}` };
  }
  const all = sources(projectReal, env, opts);
  if (typeof all === "string") return { state: "unknown", reason: all };
  const enabled = effective(all, ["sandbox", "enabled"]);
  if (enabled.bad) return { state: "unknown", reason: enabled.bad };
  if (enabled.value !== true) {
    return { state: "off", reason: enabled.from ? `${enabled.from} sets sandbox.enabled to false` : "no settings file sets sandbox.enabled to true" };
  }
  for (const s of all) {
    if (s.scope !== "project") continue;
    const how = projectWidening(s.doc);
    if (how) return { state: "off", reason: `${s.label} widens the sandbox: ${how}` };
  }
  const platform = opts.platform ?? process.platform;
  if (platform === "linux") {
    const missing = linuxPrograms(all, env, projectReal);
    if (missing) return { state: "off", reason: missing };
  }
  const strict = effective(all, ["sandbox", "failIfUnavailable"]);
  if (strict.bad) return { state: "unknown", reason: strict.bad };
  if (strict.value !== true) {
    return { state: "unknown", reason: "sandbox.failIfUnavailable is not true: where the sandbox cannot start, Claude Code runs commands unsandboxed, and a hook cannot tell" };
  }
  return { state: "on", reason: `sandbox.enabled (${enabled.from}) and sandbox.failIfUnavailable (${strict.from}): Claude Code does not start without its sandbox` };
}

/** sandboxCheck's state alone. */
export function sandboxState(input: { cwd?: unknown }, env: NodeJS.ProcessEnv = process.env, opts: SandboxOptions = {}): SandboxState {
  return sandboxCheck(input, env, opts).state;
}
