// Run the built dist/plan.js as a real process, the way the skills do.
import { spawn, spawnSync } from "node:child_process";
import { resolve } from "node:path";
import type { run } from "../../src/main.ts";

export const PLAN_JS = resolve(__dirname, "../../dist/plan.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

function parse(stdout: string): any {
  try {
    return JSON.parse(stdout);
  } catch {
    return undefined;
  }
}

export function cliSync(args: string[], opts: { cwd: string; stdin?: string }): CliResult {
  const r = spawnSync(process.execPath, [PLAN_JS, ...args], { cwd: opts.cwd, input: opts.stdin ?? "", encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: parse(r.stdout) };
}

export function cli(args: string[], opts: { cwd: string; stdin?: string }): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [PLAN_JS, ...args], { cwd: opts.cwd });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr, json: parse(stdout) }));
    child.stdin.end(opts.stdin ?? "");
  });
}

/** What dist/plan.js exports when required: src/main.ts's `run`, bundled. */
interface Bundle {
  run: typeof run;
}

let bundle: Bundle | undefined;
let queue: Promise<unknown> = Promise.resolve();

/**
 * The same call as `cli`, run inside this process through the built bundle's own `run` (dist/plan.js required, not
 * started): the same command modules, argument parsing, confinement and JSON document, without Node's start-up
 * (~70-120 ms of CPU per process here). stdout is the document as the CLI prints it, stderr the command's note.
 * Calls run one at a time with the process's working directory set to `cwd`, as in a process of their own, so a
 * command that resolved a path against the process instead of its context would behave the same way here.
 * What only a real process shows (exit through `process.exit`, stdin from a file descriptor, warnings on stderr)
 * is covered by test/contract/cli.test.ts, self-test, and `npm run test:soak`, which runs these tables as processes.
 */
export function cliInProcess(args: string[], opts: { cwd: string; stdin?: string }): Promise<CliResult> {
  const call = queue.then(async (): Promise<CliResult> => {
    bundle ??= require(PLAN_JS) as Bundle;
    const home = process.cwd();
    const started = performance.now();
    process.chdir(opts.cwd);
    try {
      const { exitCode, output, note } = await bundle.run(args, {
        cwd: process.cwd(),
        now: () => Date.now(),
        stdin: async () => opts.stdin ?? "",
      });
      const stdout = `${JSON.stringify(output)}\n`;
      const line = note?.(performance.now() - started);
      return { code: exitCode, stdout, stderr: line ? `${line}\n` : "", json: parse(stdout) };
    } finally {
      process.chdir(home);
    }
  });
  queue = call.catch(() => undefined);
  return call;
}
