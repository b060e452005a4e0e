// Run the built dist/plan.js as a real process, the way the skills do.
import { spawn, spawnSync } from "node:child_process";
import { resolve } from "node:path";

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
