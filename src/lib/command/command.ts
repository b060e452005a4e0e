// What a command module exports, the context it runs in, and in-process invocation for tests.
import { describeArgs, parseArgs, synopsis, wantsHelp, type ArgSpec, type Args } from "./args.js";
import { HelperError } from "../../base/errors.js";
import { ownerOf, type Owner } from "../../base/owned.js";
import { argLabel, commaList, confine } from "../../store.js";

export interface Context {
  /** Working directory that relative paths resolve against. */
  cwd: string;
  /** Current time in epoch milliseconds. */
  now: () => number;
  /** The whole of standard input (read once, only by commands that declare `stdin`). */
  stdin: () => Promise<string>;
  /**
   * Set only by the `grant-approve.js` entry (cli.ts): the call the user was asked to approve. `grant --approve`
   * records a grant only with it.
   */
  consent?: boolean;
  /**
   * The path the CLI was started through (process.argv[1], as given, links not followed): a skill's
   * `skills/<name>/scripts/plan.js` when a Claude Code session runs this plugin's helper. skill-find tells by it
   * whether this plugin is the one the session loaded.
   */
  entry?: string;
}

export type Result = Record<string, unknown>;

export interface CommandDef extends ArgSpec {
  /** Describes stdin when the command reads it (e.g. "updates.json"). */
  stdin?: string;
  /** A one-line summary for a person, printed by the CLI on stderr beside the JSON (undefined: none). */
  note?(output: Result, elapsedMs: number): string | undefined;
  run(ctx: Context, args: Args): Promise<Result> | Result;
}

export function defineCommand(def: CommandDef): CommandDef {
  return def;
}

export interface Outcome {
  exitCode: number;
  output: Result;
  /** The command's note for stderr (CommandDef.note), given the time since the process started. */
  note?: (elapsedMs: number) => string | undefined;
}

/**
 * One command line (`argv` as after `plan.js`) run in a context, answering with the command's JSON document: main.ts's
 * `run`, which dist/plan.js exports when required. Defined here so that a command (self-test) can name the type of
 * the bundle it calls without importing main.ts, which sits above the commands.
 */
export type Dispatch = (argv: readonly string[], ctx: Context) => Promise<Outcome>;

/** Run one command on already-split arguments and shape its one JSON document. Never throws. */
export async function execute(name: string, def: CommandDef, argv: readonly string[], ctx: Context): Promise<Outcome> {
  try {
    if (wantsHelp(argv, def)) {
      return ok({ command: name, usage: synopsis(name, def, def.stdin), arguments: describeArgs(def) });
    }
    const args = parseArgs(name, argv, def);
    confineArgs(ctx.cwd, name, def, args);
    return withNote(ok(await def.run(ctx, args)), def);
  } catch (err) {
    return withNote(fail(err), def);
  }
}

function withNote(outcome: Outcome, def: CommandDef): Outcome {
  const note = def.note;
  return note ? { ...outcome, note: (ms) => note(outcome.output, ms) } : outcome;
}

export function ok(result: Result): Outcome {
  const { ok: _ignored, ...rest } = result;
  return { exitCode: 0, output: { ok: true, ...rest } };
}

/**
 * A HelperError, recognised by name and shape rather than class: each command is bundled into its own file
 * (scripts/build.mjs) with its own copy of the class.
 */
function isHelperError(err: unknown): err is HelperError {
  return err instanceof Error && err.name === "HelperError" && typeof (err as HelperError).code === "string";
}

export function fail(err: unknown): Outcome {
  if (isHelperError(err)) {
    return { exitCode: 1, output: { ok: false, error: err.message, code: err.code, ...err.extra } };
  }
  if (process.env.DO_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  const message = err instanceof Error ? err.message : String(err);
  return { exitCode: 1, output: { ok: false, error: `Internal error: ${message}`, code: "E_INTERNAL" } };
}

/** A context for tests and self-test: fixed cwd, optional stdin text and clock. */
export function makeContext(cwd: string, opts: { stdin?: string; now?: number; consent?: boolean; entry?: string } = {}): Context {
  return {
    cwd,
    now: opts.now === undefined ? () => Date.now() : () => opts.now as number,
    stdin: async () => opts.stdin ?? "",
    ...(opts.consent ? { consent: true } : {}),
    ...(opts.entry !== undefined ? { entry: opts.entry } : {}),
  };
}

/**
 * Check every path argument a command declares (`path: "read" | "write"` on a positional or flag; `list: true`
 * for a comma-separated list, checked entry by entry) before the command runs. Throws E_PATH on the first one
 * that resolves outside its root, or, for a write, that is not a file the command owns (`OWNED_ARGS` in
 * base/owned.ts, by command and argument name). Arguments left at an empty value are not paths and are skipped.
 */
export function confineArgs(cwd: string, command: string, spec: ArgSpec, args: Args): void {
  const check = (name: string, label: string, value: string, access: "read" | "write") => {
    if (access === "read") confine(cwd, label, value, "read");
    else confine(cwd, label, value, "write", ownerOf(command, name) as Owner);
  };
  for (const p of spec.positionals) {
    const v = args[p.name];
    if (p.path && typeof v === "string" && v !== "") check(p.name, argLabel(p.name, v, false), v, p.path);
  }
  for (const [name, f] of Object.entries(spec.flags)) {
    const v = args[name];
    if (!f.path || typeof v !== "string") continue;
    if (f.list) for (const item of commaList(v)) check(name, argLabel(name, item, true, true), item, f.path);
    else if (v !== "") check(name, argLabel(name, v, true), v, f.path);
  }
}
