// The process-level tests have two speeds. `npm test` runs the quick count of each race loop and calls the helper
// of the big contract tables (confinement, bad inputs) in-process through the built bundle; `npm run test:soak`
// (CI runs both) runs the soak count and every one of those calls as a real process of dist/plan.js. Only loops
// whose iterations assert nothing of their own are shortened, so `npm test` keeps every assertion; the soak run
// repeats the same checks on many more races, and the tables' checks on real processes.
import { cli, cliInProcess, type CliResult } from "./cli.ts";

export const SOAK = process.env.DO_SOAK === "1";

export function soak(quick: number, full: number): number {
  return SOAK ? full : quick;
}

/** A contract table's helper call: a real process under test:soak, in-process through the bundle otherwise. */
export function helperCall(args: string[], opts: { cwd: string; stdin?: string }): Promise<CliResult> {
  return SOAK ? cli(args, opts) : cliInProcess(args, opts);
}
