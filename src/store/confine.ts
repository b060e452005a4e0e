// Confinement: every path the helper writes must resolve inside the project's .design/, every path it reads inside
// the project (CLAUDE.md, "Confinement"). The one check is confine(); commands' declared path arguments go through
// it before run() (lib/command/command.ts).
import { lstatSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { HelperError } from "../base/errors.js";
import type { Owner } from "../base/owned.js";

/**
 * What the helper may do with a path: `write` (write, create, move, append, lock) only inside the project's
 * `.design/`, `read` (read, hash, list, test existence) only inside the project. The project is the working
 * directory; both rules compare real paths (every symlink followed).
 */
export type PathAccess = "read" | "write";

const MAX_LINKS = 40;

/** The real path of `abs`: every symlink followed; a path that does not exist yet resolves through its nearest
 * existing ancestor (a dangling symlink resolves to where it points). */
export function realPath(abs: string, depth = 0): string {
  if (depth > MAX_LINKS) throw new HelperError("E_PATH", `Too many levels of symbolic links: ${abs}`);
  // lstat first, without an exception for a missing path: the usual cases (an existing file, a file about to be
  // created) cost two system calls and no throw.
  let st: Stats | undefined;
  try {
    st = lstatSync(abs, { throwIfNoEntry: false });
  } catch {
    st = undefined; // ENOTDIR, EACCES: no such entry as far as the helper can go
  }
  if (st === undefined) {
    const parent = dirname(abs);
    return parent === abs ? abs : join(realPath(parent, depth + 1), basename(abs));
  }
  try {
    return realpathSync.native(abs);
  } catch {
    /* a dangling or looping symlink (or an unreadable ancestor): resolved by hand below */
  }
  if (!st.isSymbolicLink()) return join(realPath(dirname(abs), depth + 1), basename(abs));
  let link: string;
  try {
    link = readlinkSync(abs);
  } catch {
    return abs;
  }
  return realPath(resolve(realPath(dirname(abs), depth + 1), link), depth + 1);
}

/** The two roots of a project: its real directory and `<real directory>/.design`. */
export function projectRoots(cwd: string): { project: string; design: string } {
  const project = realPath(resolve(cwd));
  return { project, design: join(project, ".design") };
}

export function isInside(root: string, real: string): boolean {
  return real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The message of an E_PATH refusal (the permission hook and the docs quote these words). */
export function outsideMessage(label: string, real: string, access: PathAccess): string {
  return access === "write"
    ? `${label} resolves outside the project's .design/: ${real}`
    : `${label} resolves outside the project: ${real}`;
}

/**
 * The one check every path the helper uses goes through. `value` is as given (relative to cwd or absolute);
 * `label` names it in the error (e.g. `--inputs entry '/etc/passwd'`). Returns the real path to operate on, so a
 * symlink inside the allowed root is followed (written through) and never replaced; anything resolving outside
 * the allowed root throws E_PATH before anything is read or written. A write also names its owner rule
 * (base/owned.ts): the real path must be a file that rule allows (so a link from the command's own file to another
 * command's file is refused too), else E_PATH naming the rule.
 */
export function confine(cwd: string, label: string, value: string, access: "read"): string;
export function confine(cwd: string, label: string, value: string, access: "write", owner: Owner): string;
export function confine(cwd: string, label: string, value: string, access: PathAccess, owner?: Owner): string {
  const roots = projectRoots(cwd);
  const real = realPath(resolve(cwd, value));
  const root = access === "write" ? roots.design : roots.project;
  if (!isInside(root, real)) throw new HelperError("E_PATH", outsideMessage(label, real, access), { path: real });
  if (access === "write") {
    if (!owner) throw new HelperError("E_PATH", `${label} has no owner rule: nothing may write it`, { path: real });
    if (!owner.allows(designSegments(roots.design, real))) {
      throw new HelperError("E_PATH", `${label} is not ${owner.what}: ${real}`, { path: real, allowed: owner.what });
    }
    // A file with a second name may be another command's file (or one outside) under this one's name: appending
    // to it would write there too.
    if (hardLinked(real)) throw new HelperError("E_PATH", `${label} is a file with other hard links: ${real}`, { path: real });
  }
  return real;
}

function hardLinked(real: string): boolean {
  try {
    const st = lstatSync(real, { throwIfNoEntry: false });
    return st !== undefined && st.isFile() && st.nlink > 1;
  } catch {
    return false;
  }
}

/** A real path inside `design` as its segments relative to it (the empty list for `design` itself). */
export function designSegments(design: string, real: string): string[] {
  return real === design ? [] : relative(design, real).split(sep);
}

/** `confine` that answers instead of throwing: the real path, or null when it is refused. */
export function confined(cwd: string, value: string, access: "read"): string | null;
export function confined(cwd: string, value: string, access: "write", owner: Owner): string | null;
export function confined(cwd: string, value: string, access: PathAccess, owner?: Owner): string | null {
  try {
    return access === "write" ? confine(cwd, "", value, access, owner as Owner) : confine(cwd, "", value, access);
  } catch {
    return null;
  }
}

/** How an argument names it in an E_PATH message: `plan_path '<value>'`, `--design-dir '<value>'`. */
export function argLabel(name: string, value: string, flag: boolean, entry = false): string {
  return `${flag ? `--${name}` : name}${entry ? " entry" : ""} '${value}'`;
}

/** Comma-separated list → trimmed non-empty items (the helper's list arguments). */
export function commaList(v: unknown): string[] {
  return typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : [];
}

/**
 * Read a file the command derived itself (e.g. `<design_dir>/plan.json`) under the read rule: a file that resolves
 * outside the project (a symlink out) reads as an error, never as its contents.
 */
export function readConfined<T>(cwd: string, abs: string, read: (real: string) => T): T | { kind: "error"; detail: string } {
  const real = realPath(abs);
  if (!isInside(projectRoots(cwd).project, real)) return { kind: "error", detail: outsideMessage(basename(abs), real, "read") };
  return read(real);
}
