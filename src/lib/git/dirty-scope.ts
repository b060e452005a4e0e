// The user's uncommitted work inside the roles' scopes, for the grant question: each file `git status` shows changed,
// staged, deleted or untracked (not ignored) that lies in the scope of a role still to run, with those roles, and
// the sentence that says what the run does with them. Read-only (git as lib/git/git.ts runs it, optional locks off).
import { gitError, zList } from "./git.js";
import { inRoleScope, openRepo } from "./snapshot.js";
import type { Json } from "../plan/plan.js";

/** At most this many files are listed (`count` has them all). */
export const MAX_DIRTY_LISTED = 50;

export interface DirtyFile {
  path: string;
  /** What git says of it: modified (in the work tree), staged, deleted, untracked. */
  state: string;
  roles: string[];
}

export interface DirtyInScopes {
  repo: boolean;
  files: DirtyFile[];
  count: number;
  /** What the run does with them, in plain words (always present). */
  note: string;
  error?: string;
}

const stateOf = (xy: string): string => {
  if (xy === "??") return "untracked";
  if (xy.includes("D")) return "deleted";
  if (xy[1] !== " ") return "modified";
  return "staged";
};

export async function dirtyInScopes(project: string, roles: Json[]): Promise<DirtyInScopes> {
  const repo = await openRepo(project);
  if ("none" in repo || "why" in repo) {
    const why = "none" in repo ? repo.none : repo.why;
    return {
      repo: false,
      files: [],
      count: 0,
      note: `No git repository to work with (${why}): the run commits nothing and cannot undo a failed attempt's changes, so a retry starts from what that attempt left; it never deletes a file.`,
      ...("why" in repo ? { error: repo.why } : {}),
    };
  }
  const r = await repo.git.run(["--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", "."], { env: { GIT_OPTIONAL_LOCKS: "0" } });
  if (r.code !== 0) return { repo: true, files: [], count: 0, note: "git could not say which files hold uncommitted changes.", error: gitError(r) };
  const files: DirtyFile[] = [];
  for (const entry of zList(r.stdout)) {
    if (entry.length < 4) continue;
    const full = entry.slice(3);
    if (!full.startsWith(repo.prefix)) continue;
    const path = full.slice(repo.prefix.length);
    const names = roles.filter((role) => inRoleScope(role, path)).map((role) => String(role.name));
    if (names.length) files.push({ path, state: stateOf(entry.slice(0, 2)), roles: names });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  const note = files.length
    ? `${files.length} file${files.length === 1 ? "" : "s"} inside the workers' scopes hold${files.length === 1 ? "s" : ""} your uncommitted work. ` +
      "The run keeps it: undoing a failed attempt puts back your version, never an older one, and a role's commit leaves out every " +
      "file its worker did not change; a file a worker does change is committed with your change in it. To keep your work out of " +
      "the run's commits, commit or stash it before approving."
    : "No uncommitted work inside the workers' scopes.";
  return { repo: true, files: files.slice(0, MAX_DIRTY_LISTED), count: files.length, note };
}
