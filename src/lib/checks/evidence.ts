// Evidence of a role's checks: which commands prove a role done (its acceptance checks and its verification spec,
// exactly as the plan spells them), and whether an attempt's recorded evidence proves it. `run-checks` runs the
// commands and records the evidence in the role's running attempt (`roles[i].attemptLog[k].evidence`);
// `update-status … completed` refuses a role whose running attempt has no passing evidence for each command as it
// reads now (a check whose text changed, or a spec file that changed, invalidates it).
//
// Imports only node:fs, node:path and the bounded reader (the permission hook bundles it through grant.ts); hashes
// come from the caller, so a call that never completes a role never loads node:crypto.
import { realpathSync } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import { readRegular } from "../../base/safe-read.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Spec files larger than this are not hashed (they prove nothing). */
const MAX_SPEC = 8 << 20;

/** One command that proves a role: an acceptance check, or the role's verification spec (with its file). */
export interface RoleCommand {
  kind: "check" | "spec";
  /** The command text exactly as plan.json spells it. */
  command: string;
  /** A spec's file, project-relative as the plan gives it. */
  path?: string;
}

/** One command's recorded run, as `run-checks` writes it into the attempt (the report reads these names). */
export interface Evidence {
  kind: "check" | "spec";
  check: string;
  /** SHA-256 of the command text that ran. */
  sha256: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  passed: boolean;
  durationMs: number;
  /** The last lines of its output (stdout and stderr as they came), capped. */
  output: string;
  ranAt: string;
  /** A spec's file and its SHA-256 when it ran (null: missing or unreadable). */
  spec?: string;
  specSha256?: string | null;
}

/**
 * The commands that prove role `i` done: each acceptance criterion's `check` (a repeated text once) and the
 * `runCommand` of each verification spec naming the role. Non-strings and empty texts are skipped.
 */
export function roleCommands(plan: unknown, i: number): RoleCommand[] {
  const roles = isObj(plan) && Array.isArray(plan.roles) ? plan.roles : [];
  const role = roles[i];
  if (!isObj(role)) return [];
  const out: RoleCommand[] = [];
  const seen = new Set<string>();
  const add = (c: RoleCommand) => {
    const key = `${c.kind}\0${c.command}`;
    if (c.command.trim() === "" || seen.has(key)) return;
    seen.add(key);
    out.push(c);
  };
  for (const c of Array.isArray(role.acceptanceCriteria) ? role.acceptanceCriteria : []) {
    if (isObj(c) && typeof c.check === "string") add({ kind: "check", command: c.check });
  }
  const specs = isObj(plan) && Array.isArray(plan.verificationSpecs) ? plan.verificationSpecs : [];
  for (const s of specs) {
    if (isObj(s) && typeof s.runCommand === "string" && typeof role.name === "string" && s.role === role.name) {
      add({ kind: "spec", command: s.runCommand, ...(typeof s.path === "string" ? { path: s.path } : {}) });
    }
  }
  return out;
}

/**
 * Whether the absolute path `abs` lies strictly inside `root`, exactly as `path.relative(root, abs)` would say (not
 * "", not starting with ".."), but by comparing strings: the hook runs this cold on every spec file of a grant, and
 * path.relative is a large function to compile for it.
 */
export function strictlyInside(root: string, abs: string): boolean {
  const r = resolve(root);
  const a = resolve(abs);
  const prefix = r.endsWith(sep) ? r : r + sep;
  return a.startsWith(prefix) && a.length > prefix.length && !a.startsWith("..", prefix.length);
}

/** Whether `path` (or, when it does not exist, its nearest existing folder) lies inside `root` by real path. */
export function insideByRealPath(root: string, path: string): boolean {
  let cur = path;
  for (;;) {
    try {
      // realpath(3) in one call: the JavaScript realpathSync lstats every component (the hook calls this per spec).
      const real = realpathSync.native(cur);
      return real === resolve(root) || strictlyInside(root, real);
    } catch {
      const up = dirname(cur);
      if (up === cur) return false;
      cur = up;
    }
  }
}

/**
 * SHA-256 (hex, by `hash`) of a spec file as it is now, or null when it is not a regular file inside the project
 * (no final link followed, at most 8 MiB).
 */
export function specFileHash(projectDir: string, path: unknown, hash: (b: Buffer) => string): string | null {
  const buf = specFileBytes(projectDir, path);
  return buf === null ? null : hash(buf);
}

/** The bytes of a spec file as it is now (what `specFileHash` hashes), or null under the same rules. */
export function specFileBytes(projectDir: string, path: unknown): Buffer | null {
  if (typeof path !== "string" || path === "" || path.includes("\0")) return null;
  const abs = resolve(projectDir, path);
  if (!strictlyInside(projectDir, abs) || !insideByRealPath(projectDir, abs)) return null;
  return readRegular(abs, MAX_SPEC, { noFollow: true });
}

/** The attempt still open on a role (the last attemptLog entry, when it is `running`), or null. */
export function runningAttempt(role: unknown): Obj | null {
  const log = isObj(role) && Array.isArray(role.attemptLog) ? role.attemptLog : [];
  const last = log.length ? log[log.length - 1] : null;
  return isObj(last) && last.outcome === "running" ? last : null;
}

const quote = (s: string) => (s.length > 120 ? `\`${s.slice(0, 117)}…\`` : `\`${s}\``);

/**
 * What keeps role `i` from being completed on its evidence: one sentence per command without passing evidence
 * from the running attempt, as the command reads now (empty: proven). `hash` is SHA-256 of a text or bytes;
 * `specHash` the current hash of a spec file (null when it cannot be read).
 */
export function evidenceGaps(
  plan: unknown,
  i: number,
  hash: (data: string | Buffer) => string,
  specHash: (path: string) => string | null,
): string[] {
  const roles = isObj(plan) && Array.isArray(plan.roles) ? plan.roles : [];
  const role = roles[i];
  const commands = roleCommands(plan, i);
  if (commands.length === 0) return ["the role has no check to run, so nothing proves it done"];
  const attempt = runningAttempt(role);
  if (!attempt) return ["the role has no running attempt to hold evidence (record its start with update-status first)"];
  const n = typeof attempt.attempt === "number" ? ` ${attempt.attempt}` : "";
  const evidence = (Array.isArray(attempt.evidence) ? attempt.evidence : []).filter(isObj);
  if (evidence.length === 0) return [`attempt${n} has no evidence: run run-checks for this role`];
  const gaps: string[] = [];
  for (const c of commands) {
    const what = `${c.kind === "spec" ? "spec" : "check"} ${quote(c.command)}`;
    const digest = hash(c.command);
    const mine = evidence.filter((e) => e.kind === c.kind && e.sha256 === digest);
    const last = mine.length ? mine[mine.length - 1] : null;
    if (!last) {
      const sameText = evidence.some((e) => e.check === c.command);
      gaps.push(sameText ? `${what}: its evidence does not match the check's text` : `${what}: no evidence from attempt${n} (it changed, or run-checks has not run it)`);
      continue;
    }
    if (last.passed !== true) {
      const why = last.timedOut === true ? "timed out" : typeof last.exitCode === "number" ? `exit ${last.exitCode}` : `signal ${String(last.signal ?? "?")}`;
      gaps.push(`${what} failed (${why})`);
      continue;
    }
    if (c.kind === "spec" && c.path !== undefined) {
      const now = specHash(c.path);
      if (now === null) gaps.push(`${what}: its spec file ${c.path} cannot be read now`);
      else if (last.specSha256 !== now) gaps.push(`${what}: its spec file ${c.path} changed since the run`);
    }
  }
  return gaps;
}
