// The execute grant: what the user approved, up front, for the workers of one execute run: edits inside the
// scope of each role still to run, and the exact acceptance-check, verification-spec, build and test commands of
// the plan. Recorded in .design/grant.json by the `grant --approve` command, bound to the plan's fingerprint and
// to the execute run it was given for.
//
// This module imports only Node built-ins and the self-contained scheduler (no zod, no store), so the permission
// hook can include it cheaply:
// `readGrant(projectDir)` answers the grant that holds now (or null), and `grantAllows(grant, request)` whether
// one tool call falls inside it. A call by a worker (an agent whose name is a role's `agent`, one of the names in
// its attemptLog, or a name the scheduler gives the role's attempts) is judged against its own role's items only;
// the lead's and the auxiliaries' against all.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { schedulerCore } from "./scheduler.js";

export const GRANT_FILE = "grant.json";
export const GRANT_VERSION = 1;
/** The role name of the plan-wide items (the build and test commands), which every worker may run. */
export const PLAN_ITEM = "(plan)";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

export interface GrantItem {
  /** A scope directory or pattern (edits), or a command line exactly as the plan spells it. */
  value: string;
  /** Role names that need it ("(plan)" for the plan's build and test commands). */
  roles: string[];
  kind: "directory" | "pattern" | "check" | "spec" | "build" | "test";
}

export interface Grant {
  version: number;
  planFingerprint: string;
  runId: string;
  approvedAt: string;
  edits: GrantItem[];
  commands: GrantItem[];
  /**
   * Worker names of the current plan → their role's name (null when two roles claim the name), read from each
   * role's `agent` and the agents of its attemptLog when the grant is read; never recorded in grant.json.
   */
  workers: Map<string, string | null>;
}

export interface GrantRequest {
  tool: string;
  /** Write/Edit: the file path as the tool got it (absolute or relative to the project). */
  filePath?: string;
  /** Bash: the command line as the tool got it. */
  command?: string;
  /**
   * Who calls, when it is a worker: its role's name (only that role's items, and the plan's build and test
   * commands, are allowed), or null for a worker no single role claims (only the plan's commands). Undefined: the
   * lead or an auxiliary agent (every item).
   */
  role?: string | null;
}

/**
 * What identifies a plan through an execute run: its goal and each role's name, goal and dependencies. Those
 * survive update-status (which trims a completed role's brief), and change when a new plan is designed.
 */
export function planFingerprint(plan: unknown): string {
  const doc = isObj(plan) ? plan : {};
  const roles = Array.isArray(doc.roles) ? doc.roles : [];
  const shape = {
    goal: typeof doc.goal === "string" ? doc.goal : "",
    roles: roles.map((r) => {
      const role = isObj(r) ? r : {};
      const scope = isObj(role.scope) ? role.scope : {};
      return [typeof role.name === "string" ? role.name : "", typeof role.goal === "string" ? role.goal : "", strings(scope.dependencies)];
    }),
  };
  return createHash("sha256").update(JSON.stringify(shape)).digest("hex");
}

/** A project-relative path in posix form, or null when it leaves the project. */
export function projectPath(projectDir: string, path: string): string | null {
  const abs = isAbsolute(path) ? resolve(path) : resolve(projectDir, path);
  const rel = relative(resolve(projectDir), abs);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return null;
  return rel.split(sep).join(posix.sep);
}

/** Why a scope entry cannot be granted for edits, or "" when it can. */
export function refusedEdit(value: string): string {
  const v = value.trim().replace(/^\.\/+/, "");
  if (v === "" || v === "." || v === "*" || v === "**" || v.startsWith("**")) return "covers the whole project";
  if (isAbsolute(v) || v.split("/").includes("..")) return "leaves the project";
  if (v === ".design" || v.startsWith(".design/") || v.startsWith(".design*")) return "inside .design/ (plan and specs stay the lead's)";
  if (v === ".git" || v.startsWith(".git/")) return "inside .git/";
  if (v === ".claude" || v.startsWith(".claude/")) return "inside .claude/ (settings and hooks)";
  return "";
}

/** Glob match of a project-relative path: `**` spans directories, `*` and `?` stay within one. */
export function globMatch(pattern: string, path: string): boolean {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*" && pattern[i + 1] === "*") {
      re += pattern[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += pattern[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`).test(path);
}

/** Whether a granted edit item covers a project-relative file path. */
export function editCovers(item: GrantItem, rel: string): boolean {
  const value = item.value.trim().replace(/^\.\/+/, "");
  if (refusedEdit(value)) return false;
  if (item.kind === "pattern" || /[*?]/.test(value)) return globMatch(value, rel);
  const dir = value.replace(/\/+$/, "");
  return rel === dir || rel.startsWith(`${dir}/`);
}

/** Whether one tool call falls inside the grant. Commands must match exactly (outer whitespace aside). */
export function grantAllows(grant: Grant, request: GrantRequest, projectDir: string): boolean {
  const role = request.role;
  const mine = (item: GrantItem) => role === undefined || (role !== null && item.roles.includes(role)) || item.roles.includes(PLAN_ITEM);
  if (request.tool === "Bash") {
    const cmd = (request.command ?? "").trim();
    return cmd !== "" && grant.commands.some((c) => c.value.trim() === cmd && mine(c));
  }
  if (request.tool === "Write" || request.tool === "Edit" || request.tool === "MultiEdit" || request.tool === "NotebookEdit") {
    if (!request.filePath) return false;
    const rel = projectPath(projectDir, request.filePath);
    if (rel === null || refusedEdit(rel)) return false;
    return grant.edits.some((e) => mine(e) && editCovers(e, rel));
  }
  return false;
}

/**
 * Each worker name of a role → that role's name: the names the plan records (its `agent`, its attemptLog's agents)
 * and the ones the scheduler gives its attempts. A name two roles claim maps to null.
 */
export function planWorkers(plan: unknown): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const roles = isObj(plan) && Array.isArray(plan.roles) ? plan.roles : [];
  // The names the scheduler gives each attempt (`next`, and the labels of the generated Workflow script, whose
  // agents' updates reach plan.json only when the run ends): "<slug>" and "<slug>--<attempt>".
  const core = schedulerCore();
  const bases = core.baseNames(roles);
  roles.forEach((r, i) => {
    if (!isObj(r) || typeof r.name !== "string") return;
    const log = Array.isArray(r.attemptLog) ? r.attemptLog : [];
    const last = Math.max(core.MAX_ATTEMPTS, core.attemptsOf(r) + 1);
    const scheduled = Array.from({ length: last }, (_, k) => core.agentName(bases[i], k + 1));
    const names = new Set([r.agent, ...log.map((a) => (isObj(a) ? a.agent : undefined)), ...scheduled].filter((n): n is string => typeof n === "string" && n !== ""));
    for (const n of names) out.set(n, out.has(n) && out.get(n) !== r.name ? null : r.name);
  });
  return out;
}

function readObj(path: string): Obj | null {
  try {
    const v: unknown = JSON.parse(readFileSync(path, "utf8"));
    return isObj(v) ? v : null;
  } catch {
    return null;
  }
}

function items(v: unknown): GrantItem[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObj).flatMap((x) =>
    typeof x.value === "string" && typeof x.kind === "string" ? [{ value: x.value, kind: x.kind as GrantItem["kind"], roles: strings(x.roles) }] : [],
  );
}

/**
 * The grant that holds now for the project, or null. It holds when .design/grant.json is a version-1 grant whose
 * plan fingerprint matches the current .design/plan.json and whose run is the current, unfinished execute run
 * (.design/run-execute.json): a new plan, a finished run or a new run each end it. Never throws.
 */
export function readGrant(projectDir: string): Grant | null {
  const design = join(projectDir, ".design");
  const g = readObj(join(design, GRANT_FILE));
  if (!g || g.version !== GRANT_VERSION || typeof g.planFingerprint !== "string" || typeof g.runId !== "string") return null;
  const plan = readObj(join(design, "plan.json"));
  if (!plan || planFingerprint(plan) !== g.planFingerprint) return null;
  const run = readObj(join(design, "run-execute.json"));
  if (!run || run.runId !== g.runId || (run.completedAt !== null && run.completedAt !== undefined)) return null;
  return {
    version: GRANT_VERSION,
    planFingerprint: g.planFingerprint,
    runId: g.runId,
    approvedAt: typeof g.approvedAt === "string" ? g.approvedAt : "",
    edits: items(g.edits),
    commands: items(g.commands),
    workers: planWorkers(plan),
  };
}
