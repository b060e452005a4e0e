// Kill tests: run one helper call as a real process of dist/plan.js, SIGKILL it at a step boundary or at a random
// moment between two, then let the test check what it left and retry. The boundaries are `crashPoint()` calls in
// src/ (src/base/crash-point.ts): DO_CRASH_AT=<n> kills the process at the n-th one it reaches, DO_CRASH_FD=3 makes
// it name each one on descriptor 3. A counting run (no kill) learns the K points a call passes and how long it
// takes from the first to its exit; the sweep then kills a fresh copy of the project at each point 1..K and at
// `random` seeded moments (60 in `npm test`, more under `npm run test:soak`) between the first point and the end.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { PLAN_JS, type CliResult } from "./cli.ts";
import { pool } from "./pool.ts";
import { rng } from "./rng.ts";
import { soak } from "./soak.ts";

export interface Call {
  args: string[];
  stdin?: string;
  /** Extra environment (the crash variables are set by the harness). */
  env?: Record<string, string>;
  /** Run as this bundle instead of dist/plan.js (grant-approve.js is a link to it). */
  script?: string;
}

export interface CrashResult extends CliResult {
  /** The process ended by SIGKILL (a crash point, or the timed kill, got it). */
  killed: boolean;
  /** The crash points it reported, in order. */
  points: string[];
  /** ms from the first point to the exit (counting runs). */
  spanMs: number;
}

export type CrashCase = { kind: "point"; at: number; label: string } | { kind: "timed"; afterMs: number };

export function describeCase(c: CrashCase): string {
  return c.kind === "point" ? `killed at point ${c.at} (${c.label})` : `killed ${c.afterMs.toFixed(2)} ms after the first point`;
}

function parse(stdout: string): any {
  try {
    return JSON.parse(stdout);
  } catch {
    return undefined;
  }
}

/** Run `call` in `cwd`; `at` sets DO_CRASH_AT, `afterMs` kills the process that long after its first point. */
export function runCrashing(call: Call, cwd: string, crash: { at?: number | string; afterMs?: number } = {}): Promise<CrashResult> {
  return new Promise((done, fail) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...call.env, DO_CRASH_FD: "3" };
    delete env.DO_CRASH_AT;
    if (crash.at !== undefined) env.DO_CRASH_AT = String(crash.at);
    const child = spawn(process.execPath, [call.script ?? PLAN_JS, ...call.args], { cwd, env, stdio: ["pipe", "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let pointText = "";
    let first = 0;
    child.stdout!.on("data", (c) => (stdout += c));
    child.stderr!.on("data", (c) => (stderr += c));
    const fd3 = child.stdio[3] as NodeJS.ReadableStream;
    fd3.on("data", (c) => {
      if (first === 0) {
        first = performance.now();
        if (crash.afterMs !== undefined) setTimeout(() => child.kill("SIGKILL"), crash.afterMs);
      }
      pointText += c;
    });
    child.stdin!.on("error", () => undefined);
    child.on("error", fail);
    child.on("close", (code, signal) => {
      const spanMs = first === 0 ? 0 : performance.now() - first;
      const points = pointText.split("\n").filter(Boolean);
      done({ code, stdout, stderr, json: parse(stdout), killed: signal === "SIGKILL", points, spanMs });
    });
    child.stdin!.end(call.stdin ?? "");
  });
}

/** Every point 1..K of a counting run, then `random` seeded moments within its span. */
export function crashCases(count: CrashResult, random: number, seed: number): CrashCase[] {
  const cases: CrashCase[] = count.points.map((label, i) => ({ kind: "point", at: i + 1, label }));
  const next = rng(seed);
  // Timers fire late under load: aim within the span, a little past its end to cover the exit too.
  const span = Math.max(count.spanMs, 2);
  for (let i = 0; i < random; i++) cases.push({ kind: "timed", afterMs: next() * span * 1.1 });
  return cases;
}

export interface SweepOptions {
  /** A fresh project holding the state before the call; returns its folder. */
  prepare: () => string;
  /** The call to kill (a function when it depends on the folder). */
  call: Call | ((dir: string) => Call);
  /**
   * Check what the killed call left and retry (assert the retry completes the work or reports it, and that a
   * further call resolves what it reports). Runs once per case, on that case's own folder.
   */
  check: (dir: string, killed: CrashResult, c: CrashCase) => Promise<void> | void;
  /** Random moments besides every point (default 60, 200 under test:soak). */
  random?: number;
  seed?: number;
  /** Calls killed at once (default 2). */
  limit?: number;
  /** The counting run must pass at least this many points (the boundaries the test is about exist). */
  minPoints?: number;
}

export interface SweepReport {
  points: string[];
  cases: number;
  killed: number;
}

/** The counting run, then every case on a fresh project: see the header. */
export async function crashSweep(opts: SweepOptions): Promise<SweepReport> {
  const callFor = (dir: string) => (typeof opts.call === "function" ? opts.call(dir) : opts.call);
  const countDir = opts.prepare();
  const count = await runCrashing(callFor(countDir), countDir);
  assert.equal(count.killed, false, "the counting run was not killed");
  assert.ok(count.points.length >= (opts.minPoints ?? 1), `the call passes ${count.points.length} crash points: ${count.points.join(", ")}`);
  const cases = crashCases(count, opts.random ?? soak(60, 200), opts.seed ?? 28);
  let killed = 0;
  await pool(cases, opts.limit ?? 2, async (c) => {
    const dir = opts.prepare();
    const r = await runCrashing(callFor(dir), dir, c.kind === "point" ? { at: c.at } : { afterMs: c.afterMs });
    if (r.killed) killed++;
    if (c.kind === "point" && r.points.length >= c.at) assert.equal(r.killed, true, `${describeCase(c)}: the point was reached but the process lived`);
    try {
      await opts.check(dir, r, c);
    } catch (err) {
      (err as Error).message = `${describeCase(c)} (points passed: ${r.points.join(", ")}): ${(err as Error).message}`;
      throw err;
    }
  });
  return { points: count.points, cases: cases.length, killed };
}

/**
 * What every state a kill leaves must satisfy: each JSON file of `.design/` (recursively) parses, each JSONL line
 * parses (a final torn line is allowed only when `tornTail`), and no JSONL file holds the same line twice.
 */
export function assertSound(dir: string, opts: { tornTail?: boolean } = {}): void {
  for (const file of designFiles(dir)) {
    if (file.endsWith(".json")) {
      const text = readFileSync(file, "utf8");
      assert.doesNotThrow(() => JSON.parse(text), `${file} parses`);
    } else if (file.endsWith(".jsonl")) {
      const lines = readFileSync(file, "utf8").split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      const seen = new Set<string>();
      lines.forEach((line, i) => {
        if (!(opts.tornTail && i === lines.length - 1)) assert.doesNotThrow(() => JSON.parse(line), `${file} line ${i + 1} parses`);
        assert.ok(!seen.has(line), `${file} holds line ${i + 1} twice: ${line.slice(0, 200)}`);
        seen.add(line);
      });
    }
  }
}

/**
 * After the retry: nothing left under `.design/` that blocks or misleads a later call. A lock directory or temp
 * file may outlive a kill when the retry never writes that file again, but only as the killed process's: a lock
 * whose holder file names a dead process (the next writer reclaims it at once) and a temp file named with a dead
 * pid (the next writer of its file sweeps it). No lock of a live or unknown holder, no temp file of a live one.
 */
export function assertNothingBlocks(dir: string): void {
  for (const p of designEntries(dir)) {
    const name = basename(p);
    if (name.endsWith(".lock")) {
      const holders = readdirSync(p);
      // A kill between the lock's mkdir and its holder file (a window of microseconds, hit by the soak's random
      // moments) leaves an empty lock: no holder to find dead, so it keeps proper-lockfile's staleness rule and the
      // next writer waits at most that long (src/store/lock.ts). Anything else must name a dead holder.
      if (holders.length === 0) continue;
      const m = holders.length === 1 ? /^holder\.(\d+)\./.exec(holders[0]) : null;
      assert.ok(m && !alive(Number(m[1])), `${p} is left locked by ${holders.join(", ")}`);
    } else if (name.endsWith(".tmp")) {
      const m = /\.(\d+)\.[0-9a-f]{12}\.tmp$/.exec(name);
      assert.ok(m && !alive(Number(m[1])), `${p} is a temp file of a live writer`);
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function designEntries(dir: string): string[] {
  const root = join(dir, ".design");
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true }).map((p) => join(root, String(p)));
}

function designFiles(dir: string): string[] {
  return designEntries(dir).filter((p) => {
    try {
      return statSync(p).isFile();
    } catch {
      return false;
    }
  });
}

/** The values of `key` in a JSONL file that occur more than once. */
export function duplicateKeys(file: string, key: string): unknown[] {
  if (!existsSync(file)) return [];
  const seen = new Set<unknown>();
  const dup: unknown[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    let v: unknown;
    try {
      v = JSON.parse(line)?.[key];
    } catch {
      continue;
    }
    if (v === undefined) continue;
    if (seen.has(v)) dup.push(v);
    seen.add(v);
  }
  return dup;
}

/** A fresh copy of the project folder `template` (removed after the test). */
export function copyProject(t: { after: (fn: () => void) => void }, template: string): string {
  const dir = mkdtempSync(join(tmpdir(), "do-crash-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(template, dir, { recursive: true });
  return dir;
}

/** The parsed lines of a JSONL file under `.design/` ([] when it does not exist). */
export function jsonlOf(dir: string, rel: string): any[] {
  const file = join(dir, rel);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}
