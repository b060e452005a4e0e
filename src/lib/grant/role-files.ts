// Which of the paths a worker reported (`filesChanged`) `commit` may stage and `clean-attempt` may restore or
// remove: exactly those the execute grant lets that role edit, judged as the permission hook judges the role's
// Write/Edit calls (src/hooks/permit.ts `granted`, lib/grant/grant.ts `grantAllows`): inside the project, inside one of
// the role's granted scopes, never under a `.design`, `.git` or `.claude` folder (any case), by the path as written
// and by its real path (links followed, so a link in scope that points elsewhere is judged where it points), no
// `..`, no file with other hard links. What is left out is answered with the reason.
import { lstatSync, realpathSync, type Stats } from "node:fs";
import { basename, dirname, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { grantAllows, type Grant } from "./grant.js";

/** At most this many paths are taken from one report. */
export const MAX_FILES = 1000;
const MAX_PATH = 4096;
/** Folders no role's file may lie in (compared without case, as the hook does). */
const NEVER = [".design", ".git", ".claude"];

export interface Skipped {
  path: string;
  reason: string;
}

export interface RoleFile {
  /** Project-relative, `/`-separated: what git is given. */
  rel: string;
  /** What is there: a regular file, a symbolic link (staged as a link), or nothing (a deletion). */
  kind: "file" | "link" | "missing";
}

const lstatOr = (p: string): Stats | null => {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
};

/** The real path of `abs` with its last component kept as is: where that entry itself lives. */
function realLocation(abs: string): string | null {
  const rest: string[] = [basename(abs)];
  let cur = dirname(abs);
  for (;;) {
    try {
      return join(realpathSync(cur), ...rest.reverse());
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" || lstatOr(cur) !== null) return null;
      const up = dirname(cur);
      if (up === cur) return null;
      rest.push(basename(cur));
      cur = up;
    }
  }
}

/** Why a project-relative path (as written or real) is not the role's to touch, or "". */
function outside(project: string, abs: string, grant: Grant, role: string): string {
  const rel = relative(project, abs);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return "outside the project";
  const parts = rel.normalize("NFC").toLowerCase().split(sep);
  const bad = parts.find((p) => NEVER.includes(p));
  if (bad) return `inside ${bad}/`;
  return grantAllows(grant, { tool: "Edit", filePath: abs, role }, project) ? "" : "outside the role's granted scope";
}

/**
 * Sort a report's `filesChanged` into the role's files and the rest. `project` is the real project root; `role` the
 * role's name as the grant records it.
 */
export function roleFiles(project: string, grant: Grant, role: string, listed: readonly unknown[]): { files: RoleFile[]; skipped: Skipped[] } {
  const files: RoleFile[] = [];
  const skipped: Skipped[] = [];
  const seen = new Set<string>();
  const skip = (path: unknown, reason: string) => skipped.push({ path: typeof path === "string" ? path : JSON.stringify(path) ?? String(path), reason });
  listed.forEach((entry, k) => {
    if (k >= MAX_FILES) {
      if (k === MAX_FILES) skip(`(${listed.length - MAX_FILES} more)`, `a report lists at most ${MAX_FILES} files`);
      return;
    }
    if (typeof entry !== "string") return skip(entry, "not a path (a string)");
    if (entry === "" || entry.length > MAX_PATH || entry.includes("\0")) return skip(entry, "not a path");
    if (entry.split(/[/\\]/).includes("..")) return skip(entry, "has a '..' segment");
    if (entry.endsWith("/")) return skip(entry, "a folder, not a file");
    const abs = isAbsolute(entry) ? resolve(entry) : resolve(project, entry);
    const written = outside(project, abs, grant, role);
    if (written) return skip(entry, written);
    const rel = relative(project, abs).split(sep).join(posix.sep);
    if (seen.has(rel)) return;
    const real = realLocation(abs);
    if (real === null) return skip(entry, "its folder cannot be resolved");
    const where = outside(project, real, grant, role);
    if (where) return skip(entry, `resolves ${where} (${relative(project, real).split(sep).join("/") || real})`);
    const st = lstatOr(abs);
    let kind: RoleFile["kind"];
    if (st === null) kind = "missing";
    else if (st.isFile()) {
      if (st.nlink > 1) return skip(entry, "has other hard links");
      kind = "file";
    } else if (st.isSymbolicLink()) {
      let target: string;
      try {
        target = realpathSync(abs);
      } catch {
        return skip(entry, "a symbolic link to nothing");
      }
      const to = outside(project, target, grant, role);
      if (to) return skip(entry, `a symbolic link pointing ${to}`);
      kind = "link";
    } else if (st.isDirectory()) return skip(entry, "a folder, not a file");
    else return skip(entry, "not a regular file");
    seen.add(rel);
    files.push({ rel, kind });
  });
  return { files, skipped };
}
