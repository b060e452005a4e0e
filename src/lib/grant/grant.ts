// The execute grant: what the user approved, up front, for the workers of one execute run: edits inside the
// scope of each role still to run, and the exact acceptance-check, verification-spec, build and test commands of
// the plan. Recorded in .design/grant.json by `grant --approve` (the one helper call the permission hook never
// approves, so the user's answer to its prompt is the consent), signed with a per-user key kept outside every
// project (`grantKeyPath`), bound to the project's real root, the execute run, an expiry and the fingerprint of
// everything in the plan that will run. A grant.json that does not verify grants nothing, whoever wrote it.
//
// This module imports only Node built-ins, the bounded reader and the grant's own modules (no zod, no store), so the
// permission hook can include it cheaply: `readGrant(projectDir)` answers the grant that holds now (or null), and
// `grantAllows(grant, request)` whether one tool call falls inside it. A call by a worker (an agent whose name is a
// role's `agent`, one of the names in its attemptLog, or a name the scheduler gives the role's attempts) is judged
// against its own role's items only; the lead's and the known auxiliaries' against all. The costly half of a full
// verification (node:crypto, the canonical JSON, the fingerprint, the HMAC, the scheduler's names) is
// src/lib/grant/grant-verify.ts, required on first use; the hook's record of a grant it verified is src/lib/grant/grant-cache.ts.
//
// Why one file: the key, the reading of a grant and what it grants must agree byte for byte, and the hook bundles
// them together.
import { lstatSync, realpathSync } from "node:fs";
import { isAbsolute, join, posix, resolve, sep } from "node:path";
import { insideByRealPath, roleCommands, specFileBytes, strictlyInside, type RoleCommand } from "../checks/evidence.js";
import { fileIdentity, grantCachePath, readGrantCache, type GrantCacheUse } from "./grant-cache.js";
import { prefixCovers } from "../checks/role-runs.js";
import { readRegular, readRegularWithStat } from "../../base/safe-read.js";
import type { RunState } from "../run/run-state.js";
export type { GrantCacheUse } from "./grant-cache.js";
export const GRANT_FILE = "grant.json";
/** 2: signed, bound to the project root and an expiry, fingerprinting everything that runs. */
export const GRANT_VERSION = 2;
/** The role name of the plan-wide items (the build and test commands), which every worker may run. */
export const PLAN_ITEM = "(plan)";
/**
 * The role name of the auxiliaries' runs (`auxiliaryRoles[].runs`: the integration verifier's end-to-end run): no
 * worker holds it (finalize refuses a role named in parentheses), the lead and the auxiliaries hold every item.
 */
export const AUXILIARY_ITEM = "(auxiliaries)";
/** How long an approved grant holds at most (the run ends it earlier). */
export const GRANT_TTL_MS = 12 * 60 * 60 * 1000;

/** Caps of the bounded reads: a planted file larger than these grants nothing. */
const MAX_GRANT = 1 << 20;
const MAX_PLAN = 8 << 20;
const MAX_RUN = 1 << 20;
const MAX_SPEC = 8 << 20;

// The full verification's costly half (node:crypto, the canonical JSON, the fingerprint, the HMAC, the scheduler's
// worker names) is src/lib/grant/grant-verify.ts, required on first use: in the hook it is a file of its own
// (dist/permit-verify.js), which a call no grant item covers, or one the record of an earlier verification answers
// (src/lib/grant/grant-cache.ts), never compiles.
type Verify = typeof import("./grant-verify.js");
let verifyModule: Verify | undefined;
const verify = (): Verify => (verifyModule ??= require("./grant-verify.js") as Verify);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

export interface GrantItem {
  /** A scope directory or pattern (edits), or a command line exactly as the plan spells it. */
  value: string;
  /** Role names that need it ("(plan)" for the plan's build and test commands, "(auxiliaries)" for theirs). */
  roles: string[];
  /**
   * run: a command of a role's `runs`, exactly as written; run-prefix: a `runs` entry with `args: "plain"`, which
   * covers the prefix followed by plain words (src/lib/checks/role-runs.ts, `prefixCovers`).
   */
  kind: "directory" | "pattern" | "check" | "spec" | "build" | "test" | "run" | "run-prefix";
}

/** What `grant --approve` signs. */
export interface GrantBody {
  version: number;
  grantId: string;
  /** The project's real root: a grant copied into another project does not verify there. */
  projectRoot: string;
  planFingerprint: string;
  runId: string;
  approvedAt: string;
  expiresAt: string;
  /** Granted commands are approved only while Claude Code's sandbox is on (the plan's `context.grantRequiresSandbox`). */
  requiresSandbox: boolean;
  edits: GrantItem[];
  commands: GrantItem[];
}

export interface Grant extends GrantBody {
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
   * lead or a known auxiliary agent (every item).
   */
  role?: string | null;
}

// ---------------------------------------------------------------- the key

/**
 * Where the per-user grant key lives: `<Claude config folder>/do/grant.key`, the config folder being
 * CLAUDE_CONFIG_DIR (absolute) or `~/.claude`. Outside every project: no helper call (confined to `.design/`) and
 * no Write the hook approves (`.design/` and granted scopes, never a `.claude` folder) can reach it.
 */
export function grantKeyPath(env: NodeJS.ProcessEnv = process.env): string | null {
  const config = env.CLAUDE_CONFIG_DIR;
  if (config && isAbsolute(config) && !config.includes("\0")) return join(resolve(config), "do", "grant.key");
  const home = env.HOME;
  if (home && isAbsolute(home) && !home.includes("\0")) return join(resolve(home), ".claude", "do", "grant.key");
  return null;
}

/** The key (32 bytes), or null: missing, not a regular file, a link, the wrong size, or inside the project. */
export function readGrantKey(projectRoot: string, env: NodeJS.ProcessEnv = process.env): Buffer | null {
  const path = grantKeyPath(env);
  return path === null ? null : (keyAt(projectRoot, path)?.key ?? null);
}

/** The key at `path` and the identity of the file it was read from (`fileIdentity`), under readGrantKey's rules. */
function keyAt(projectRoot: string, path: string): { key: Buffer; identity: string } | null {
  if (insideByRealPath(projectRoot, path)) return null;
  const read = readRegularWithStat(path, 256, { noFollow: true });
  const text = read?.bytes.toString("utf8").trim();
  return read && text !== undefined && /^[0-9a-f]{64}$/.test(text) ? { key: Buffer.from(text, "hex"), identity: fileIdentity(read.stat) } : null;
}

// ---------------------------------------------------------------- fingerprint and signature

/** JSON with object keys sorted at every level (src/lib/grant/grant-verify.ts). */
export const canonicalJson = (value: unknown): string => verify().canonicalJson(value);

/**
 * The fingerprint of everything in the plan that will run or that tells a worker what to do: the whole plan but
 * its run fields (each role's status, result, attempts and attemptLog, and the plan's progress), plus the current
 * SHA-256 of each verification spec file. Status updates keep it; any other change ends the grant.
 */
export const planFingerprint = (plan: unknown, projectDir: string): string => verify().planFingerprint(plan, projectDir);

/** The HMAC-SHA256 (hex) of a grant body under the key. */
export const signGrant = (body: GrantBody, key: Buffer): string => verify().signGrant(body, key);

/**
 * Each worker name of a role → that role's name: the names the plan records (its `agent`, its attemptLog's agents)
 * and the ones the scheduler gives its attempts. A name two roles claim maps to null.
 */
export const planWorkers = (plan: unknown): Map<string, string | null> => verify().planWorkers(plan);

/**
 * The agents execute spawns besides its workers (skills/execute: the auxiliary roles and the integration fix
 * workers `fix-<n>`): known names that hold the whole grant, like the lead. Any other agent's name must be a
 * worker's of the plan, or it gets nothing.
 */
export const GRANT_AUXILIARIES: readonly string[] = ["challenger", "scout", "integration-verifier", "regression-checker", "memory-curator"];

export function isGrantAuxiliary(name: string): boolean {
  return GRANT_AUXILIARIES.includes(name) || /^fix-[1-9][0-9]{0,2}$/.test(name);
}

/** A project-relative path in posix form, or null when it leaves the project. */
export function projectPath(projectDir: string, path: string): string | null {
  const abs = isAbsolute(path) ? resolve(path) : resolve(projectDir, path);
  // As path.relative would give it (strictlyInside: the same verdict, by comparing strings).
  if (!strictlyInside(projectDir, abs)) return null;
  const root = resolve(projectDir);
  return abs.slice(root.endsWith(sep) ? root.length : root.length + 1).split(sep).join(posix.sep);
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

/** Whether a granted command item covers a command line: exactly (outer whitespace aside), or as a prefix of plain words. */
export function commandCovers(item: GrantItem, cmd: string): boolean {
  return item.kind === "run-prefix" ? prefixCovers(item.value, cmd) : item.value.trim() === cmd;
}

/**
 * Whether one tool call falls inside the grant. Commands must match exactly (outer whitespace aside), or lie within
 * a run-prefix item: its words, then plain words only.
 */
export function grantAllows(grant: Grant, request: GrantRequest, projectDir: string): boolean {
  const role = request.role;
  const mine = (item: GrantItem) => role === undefined || (role !== null && item.roles.includes(role)) || item.roles.includes(PLAN_ITEM);
  if (request.tool === "Bash") {
    const cmd = (request.command ?? "").trim();
    return cmd !== "" && grant.commands.some((c) => commandCovers(c, cmd) && mine(c));
  }
  if (request.tool === "Write" || request.tool === "Edit" || request.tool === "MultiEdit" || request.tool === "NotebookEdit") {
    if (!request.filePath) return false;
    const rel = projectPath(projectDir, request.filePath);
    if (rel === null || refusedEdit(rel)) return false;
    return grant.edits.some((e) => mine(e) && editCovers(e, rel));
  }
  return false;
}

function items(v: unknown): GrantItem[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObj).flatMap((x) =>
    typeof x.value === "string" && typeof x.kind === "string" ? [{ value: x.value, kind: x.kind as GrantItem["kind"], roles: strings(x.roles) }] : [],
  );
}

/**
 * The keys of grant.json as `grant --approve` writes it, and of a run state as the run commands write it. A file
 * with any other key is not theirs: recon-rank, for one, copies its draft's fields into whatever `.design/` file
 * its `--out` names, so a lead that read the signed grant (or the unfinished run state) could write it back
 * inside a recon draft after the grant was revoked or the run ended. What it writes always adds keys of its own.
 */
const GRANT_KEYS: ReadonlySet<string> = new Set(["version", "grantId", "projectRoot", "planFingerprint", "runId", "approvedAt", "expiresAt", "requiresSandbox", "edits", "commands", "signature"]);
const RUN_STATE_KEYS = ["schemaVersion", "skill", "runId", "goal", "goalSha256", "inputs", "phases", "completed", "startedAt", "updatedAt", "completedAt", "outcome", "skippedPhases"] as const;
/** Every key of the RunState type: a key added there fails the type check here until RUN_STATE_KEYS lists it. */
const runKeysListed: Exclude<keyof RunState, (typeof RUN_STATE_KEYS)[number]> extends never ? true : never = true;
const RUN_KEYS: ReadonlySet<string> = new Set<string>(runKeysListed ? RUN_STATE_KEYS : []);
const onlyKeys = (o: Obj, keys: ReadonlySet<string>) => Object.keys(o).every((k) => keys.has(k));

/** The signed fields of a recorded grant, exactly as recorded (null when one is missing or of the wrong type). */
function bodyOf(g: Obj): GrantBody | null {
  const text = ["grantId", "projectRoot", "planFingerprint", "runId", "approvedAt", "expiresAt"] as const;
  if (!onlyKeys(g, GRANT_KEYS)) return null;
  if (g.version !== GRANT_VERSION || text.some((k) => typeof g[k] !== "string") || typeof g.requiresSandbox !== "boolean") return null;
  if (!Array.isArray(g.edits) || !Array.isArray(g.commands)) return null;
  return {
    version: GRANT_VERSION,
    grantId: g.grantId as string,
    projectRoot: g.projectRoot as string,
    planFingerprint: g.planFingerprint as string,
    runId: g.runId as string,
    approvedAt: g.approvedAt as string,
    expiresAt: g.expiresAt as string,
    requiresSandbox: g.requiresSandbox as boolean,
    edits: items(g.edits),
    commands: items(g.commands),
  };
}

/** A grant that holds, with the plan it was verified against (the very object whose fingerprint matched). */
export interface GrantState {
  grant: Grant;
  plan: Obj;
}

/**
 * The grant that holds now for the project (`projectDir`: its real root) and the plan it covers, or why none holds
 * (a sentence for the user). It holds when `.design/grant.json` carries a version-2 grant whose signature verifies
 * under this user's key, recorded for this project root, not expired, whose plan fingerprint matches the current
 * `.design/plan.json` (spec files included) and whose run is the current, unfinished execute run
 * (`.design/run-execute.json`). The grant and the run state must hold only the keys their own commands write
 * (`GRANT_KEYS`, `RUN_STATE_KEYS`), so neither can be brought back inside another command's output. Every file is
 * read bounded, regular files only, no final link followed. Never throws.
 *
 * `mayAllow`, when given, is asked first about the recorded items as they stand, before anything is verified:
 * false ends the read at once. The hook passes "would this grant cover the call at all", so a call no grant item
 * covers costs no key, no HMAC and no plan fingerprint; only a refusal may come of it early.
 *
 * `cache` (the permission hook's): after the expiry, a record of an earlier full verification (src/lib/grant/grant-cache.ts)
 * whose files all read byte for byte as they were verified, under a key file of the same identity, answers without
 * node:crypto; otherwise the grant is verified in full and, when it holds, recorded. What happened goes into
 * `cache.outcome`.
 */
export function grantState(
  projectDir: string,
  now: number = Date.now(),
  env: NodeJS.ProcessEnv = process.env,
  mayAllow?: (unverified: GrantBody) => boolean,
  cache?: GrantCacheUse,
): GrantState | { why: string } {
  try {
    const design = join(projectDir, ".design");
    const grantBytes = readRegular(join(design, GRANT_FILE), MAX_GRANT, { noFollow: true });
    const g = grantBytes && jsonObject(grantBytes);
    if (!grantBytes || !g) return { why: "no grant: the user has not approved one for this run (.design/grant.json is missing or unreadable)" };
    if (g.revoked === true) return { why: "the grant was revoked" };
    const body = bodyOf(g);
    if (!body) return { why: ".design/grant.json is not a signed grant of this version" };
    if (body.projectRoot !== projectDir) return { why: `the grant was recorded for another project (${body.projectRoot})` };
    if (mayAllow && !mayAllow(body)) return { why: "no item of the grant covers this call" };
    const expires = Date.parse(body.expiresAt);
    if (!Number.isFinite(expires) || expires <= now) return { why: `the grant expired at ${body.expiresAt}` };
    const keyPath = grantKeyPath(env);
    if (cache && keyPath) {
      const hit = cachedState(projectDir, keyPath, grantBytes, body);
      if (hit) {
        cache.outcome = "hit";
        return hit;
      }
    }
    const key = keyPath === null ? null : keyAt(projectDir, keyPath);
    if (!key) return { why: `no grant key on this machine (${keyPath ?? "no config folder"})` };
    const v = verify();
    if (!v.signatureVerifies(body, g.signature, key.key)) return { why: "the grant's signature does not verify under this user's key" };
    const runBytes = readRegular(join(design, "run-execute.json"), MAX_RUN, { noFollow: true });
    const run = runBytes && jsonObject(runBytes);
    if (!runBytes || !run || !onlyKeys(run, RUN_KEYS) || run.skill !== "execute" || run.runId !== body.runId) {
      return { why: `the grant's execute run (${body.runId}) is not the current one` };
    }
    if (run.completedAt !== null && run.completedAt !== undefined) return { why: `the grant's execute run (${body.runId}) has finished` };
    const planBytes = readRegular(join(design, "plan.json"), MAX_PLAN, { noFollow: true });
    const plan = planBytes && jsonObject(planBytes);
    if (!planBytes || !plan) return { why: ".design/plan.json cannot be read" };
    // The spec files are read once: the bytes hashed are the bytes a cache record holds.
    const specs = v.specFiles(plan, projectDir);
    if (v.fingerprintOf(plan, specs.map((x) => x.bytes)) !== body.planFingerprint) return { why: "the plan or one of its spec files changed since the grant was approved" };
    const workers = v.planWorkers(plan);
    if (cache && keyPath) {
      const record = {
        root: projectDir,
        key: key.identity,
        grant: grantBytes,
        run: runBytes,
        plan: planBytes,
        specs: specs.map((x): [string | null, Buffer | null] => [x.path, x.bytes]),
        workers: [...workers],
      };
      cache.outcome = v.writeGrantCache(grantCachePath(keyPath, projectDir), record, now, GRANT_TTL_MS) ? "written" : "miss";
    }
    return { grant: { ...body, workers }, plan };
  } catch (err) {
    return { why: `the grant cannot be read: ${(err as Error).message}` };
  }
}

/** A JSON object from bytes (readJsonObject's reading), or null. */
function jsonObject(bytes: Buffer): Obj | null {
  try {
    const v: unknown = JSON.parse(bytes.toString("utf8"));
    return isObj(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * The grant state a cache record gives, or null (a miss): the record for this root, in a folder outside the
 * project, whose grant.json, run state, plan and spec files are the very bytes read now (the same readers, the same
 * rules) and whose key file has the same identity. `grantBytes` and `body`: grant.json as just read and checked
 * (root, items, expiry). The plan object is parsed only when asked for (run-checks' approval needs it).
 */
function cachedState(projectDir: string, keyPath: string, grantBytes: Buffer, body: GrantBody): GrantState | null {
  const path = grantCachePath(keyPath, projectDir);
  // The key's own rule: a config folder inside the project is one the project could write (a missing record: a miss).
  let real: string;
  try {
    real = realpathSync.native(path);
  } catch {
    return null;
  }
  if (real === projectDir || real.startsWith(projectDir.endsWith(sep) ? projectDir : projectDir + sep)) return null;
  const record = readGrantCache(path, projectDir);
  if (!record || !record.grant.equals(grantBytes)) return null;
  try {
    const st = lstatSync(keyPath);
    if (!st.isFile() || fileIdentity(st) !== record.key) return null;
  } catch {
    return null;
  }
  const design = join(projectDir, ".design");
  const same = (now: Buffer | null, then: Buffer | null) => (now === null || then === null ? now === then : now.equals(then));
  if (!same(readRegular(join(design, "run-execute.json"), MAX_RUN, { noFollow: true }), record.run)) return null;
  const planBytes = readRegular(join(design, "plan.json"), MAX_PLAN, { noFollow: true });
  if (!planBytes || !same(planBytes, record.plan)) return null;
  for (const [p, then] of record.specs) if (!same(p === null ? null : specFileBytes(projectDir, p), then)) return null;
  const grant: Grant = { ...body, workers: new Map(record.workers) };
  let plan: Obj | undefined;
  return {
    grant,
    get plan(): Obj {
      return (plan ??= jsonObject(planBytes) ?? {});
    },
  };
}

/** The grant that holds now for the project, or null (see `grantState`, also for `mayAllow` and `cache`). Never throws. */
export function readGrant(
  projectDir: string,
  now: number = Date.now(),
  env: NodeJS.ProcessEnv = process.env,
  mayAllow?: (unverified: GrantBody) => boolean,
  cache?: GrantCacheUse,
): Grant | null {
  const s = grantState(projectDir, now, env, mayAllow, cache);
  return "grant" in s ? s.grant : null;
}

/** A role of the plan named by its index (digits) or its exact name; a name two roles share names none. */
export function findRole(plan: unknown, ref: string): { index: number; name: string } | { why: string } {
  const roles = isObj(plan) && Array.isArray(plan.roles) ? plan.roles : [];
  if (/^[0-9]{1,6}$/.test(ref)) {
    const i = Number(ref);
    const r = roles[i];
    if (!isObj(r)) return { why: `no role ${i} (the plan has ${roles.length})` };
    return { index: i, name: typeof r.name === "string" ? r.name : "" };
  }
  const hits = roles.flatMap((r, i) => (isObj(r) && r.name === ref ? [i] : []));
  if (hits.length === 0) return { why: `no role named '${ref}'` };
  if (hits.length > 1) return { why: `${hits.length} roles are named '${ref}': name it by index` };
  return { index: hits[0], name: ref };
}

/** What `run-checks` may run for one role: the holding grant, the plan it covers, the role and its commands. */
export interface ChecksGrant extends GrantState {
  role: { index: number; name: string };
  commands: RoleCommand[];
}

/**
 * Whether the grant that holds now covers every command that proves a role (`ref`: index or name): each acceptance
 * check and verification spec of the role, character for character, granted to that role or plan-wide. Used by
 * `run-checks` before it runs anything and by the permission hook before it approves that call; the commands come
 * from the plan the grant was verified against, never from the caller.
 */
export function checksGrant(projectDir: string, ref: string, now: number = Date.now(), env: NodeJS.ProcessEnv = process.env, cache?: GrantCacheUse): ChecksGrant | { why: string } {
  const state = grantState(projectDir, now, env, undefined, cache);
  if (!("grant" in state)) return state;
  const role = findRole(state.plan, ref);
  if ("why" in role) return role;
  const commands = roleCommands(state.plan, role.index);
  if (commands.length === 0) return { why: `role ${role.index} (${role.name}) has no check or spec command` };
  for (const c of commands) {
    if (!grantAllows(state.grant, { tool: "Bash", command: c.command, role: role.name }, projectDir)) {
      return { why: `the grant does not cover the ${c.kind} \`${c.command}\` of role ${role.index} (${role.name})` };
    }
  }
  return { ...state, role, commands };
}
