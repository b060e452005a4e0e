// Running one granted command for `run-checks`: the one place the helper starts a program. The command text comes
// from the signed plan and goes to bash as one argv element (`bash -c <text>`), never through a shell line the
// caller builds; it runs from the project root, stdin closed, in its own process group (killed whole at the
// timeout, and its leftovers once it exits), with a minimal environment (`checkEnv`). Its output (stdout and
// stderr as they come) is kept as a capped tail. Only `run-checks` imports this module: no other call loads
// node:child_process.
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";

/** The environment a check gets: these variables from the helper's own environment, when set, and no other. */
export const CHECK_ENV_PASSED: readonly string[] = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"];
/** Set for every check: plain output for the recorded tail. */
export const CHECK_ENV_SET: Readonly<Record<string, string>> = { TERM: "dumb", NO_COLOR: "1" };

/** Bytes of output kept while a check runs (the end of it). */
const KEEP_BYTES = 64 * 1024;
/** Lines and characters of the tail recorded as evidence. */
export const TAIL_LINES = 30;
export const TAIL_CHARS = 3000;
/** After SIGTERM at the timeout, SIGKILL this much later. */
const KILL_GRACE_MS = 2000;

export interface CheckRun {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  output: string;
}

/** The minimal environment of a check (see CHECK_ENV_PASSED / CHECK_ENV_SET). */
export function checkEnv(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of CHECK_ENV_PASSED) {
    const v = from[k];
    if (typeof v === "string" && v !== "" && !v.includes("\0")) env[k] = v;
  }
  if (env.PATH === undefined) env.PATH = "/usr/local/bin:/usr/bin:/bin";
  return { ...env, ...CHECK_ENV_SET };
}

/** An absolute bash: the usual places first, then the absolute entries of PATH (never a relative one). */
export function findBash(path: string | undefined = process.env.PATH): string | null {
  const dirs = ["/bin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", ...(path ?? "").split(":").filter((d) => d.startsWith("/"))];
  for (const d of dirs) {
    const f = `${d.replace(/\/+$/, "")}/bash`;
    try {
      if (!statSync(f).isFile()) continue;
      accessSync(f, constants.X_OK);
      return f;
    } catch {
      /* not here */
    }
  }
  return null;
}

/** The recorded tail of an output: ANSI sequences and control characters removed, the last lines, capped. */
export function tailOf(text: string, lines = TAIL_LINES, chars = TAIL_CHARS): string {
  const clean = text
    .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")
    .replace(/\r\n?/g, "\n")
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "");
  const kept = clean.replace(/\n+$/, "").split("\n").slice(-lines).join("\n");
  return kept.length > chars ? `…${kept.slice(kept.length - chars + 1)}` : kept;
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

/** Run `bash -c <command>` in `cwd` with `env`, at most `timeoutMs`. Never rejects. */
export function runCheck(bash: string, command: string, cwd: string, env: Record<string, string>, timeoutMs: number): Promise<CheckRun> {
  const started = Date.now();
  return new Promise((done) => {
    let kept: Buffer[] = [];
    let keptBytes = 0;
    const keep = (chunk: Buffer) => {
      kept.push(chunk);
      keptBytes += chunk.length;
      while (keptBytes - kept[0].length >= KEEP_BYTES) keptBytes -= (kept.shift() as Buffer).length;
    };
    let timedOut = false;
    let finished = false;
    let child: ReturnType<typeof spawn>;
    const finish = (exitCode: number | null, signal: string | null, extra = "") => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(grace);
      const all = Buffer.concat(kept);
      kept = [];
      const text = all.subarray(Math.max(0, all.length - KEEP_BYTES)).toString("utf8") + extra;
      done({ exitCode, signal, timedOut, durationMs: Date.now() - started, output: tailOf(text) });
    };
    let grace: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, "SIGTERM");
      grace = setTimeout(() => killGroup(child.pid, "SIGKILL"), KILL_GRACE_MS);
    }, timeoutMs);
    try {
      child = spawn(bash, ["-c", command], { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true, windowsHide: true });
    } catch (err) {
      finish(null, null, `could not start bash: ${(err as Error).message}`);
      return;
    }
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    child.on("error", (err) => finish(null, null, `\ncould not start bash: ${err.message}`));
    child.on("exit", (code, signal) => {
      // Whatever the check left running in its group goes with it; then the pipes close ("close" below).
      killGroup(child.pid, "SIGKILL");
      setTimeout(() => finish(code, signal), 1000).unref();
    });
    child.on("close", (code, signal) => finish(code, signal));
  });
}
