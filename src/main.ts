// argv → registry → command → one result. Shared by the CLI entry (cli.ts), self-test and the tests.
import { readSync } from "node:fs";
import { execute, fail, ok, type CommandDef, type Context, type Dispatch, type Outcome } from "./lib/command/command.js";
import { HelperError, usage } from "./base/errors.js";
import { commandNames, registry } from "./registry.js";

/** More standard input than any command takes (update batches, reports, evaluations): refused, not read on. */
export const MAX_STDIN_BYTES = 64 * 1024 * 1024;

const tooMuchInput = () => new HelperError("E_READ", `Input too large: stdin holds more than ${MAX_STDIN_BYTES / 1024 / 1024} MiB`);

/**
 * All of standard input. Read synchronously from fd 0 (process.stdin builds a stream and loads net/tty on first
 * touch, ~5 ms); a non-blocking or otherwise unreadable fd 0 falls back to the stream. Past MAX_STDIN_BYTES the
 * answer is E_READ (a string that long could not even be made past 512 MiB).
 */
function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    const buf = Buffer.allocUnsafe(64 * 1024);
    for (let n; (n = readSync(0, buf, 0, buf.length, null)) > 0; ) {
      if ((size += n) > MAX_STDIN_BYTES) return Promise.reject(tooMuchInput());
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Promise.resolve(Buffer.concat(chunks).toString("utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EOF") return Promise.resolve(Buffer.concat(chunks).toString("utf8"));
    if (chunks.length > 0 && (err as NodeJS.ErrnoException).code !== "EAGAIN") throw err;
  }
  return new Promise((resolve, reject) => {
    process.stdin.on("data", (c: Buffer) => {
      if ((size += c.length) > MAX_STDIN_BYTES) {
        process.stdin.pause();
        reject(tooMuchInput());
      } else chunks.push(c);
    });
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", reject);
  });
}

/**
 * The command definition of a loaded module. In-process (tests) `default` is the definition; in dist/ each command
 * is its own CommonJS file (scripts/build.mjs) and Node-style interop puts that file's exports under `default`.
 */
function commandOf(mod: { default: CommandDef }): CommandDef {
  const d = mod.default as CommandDef | { default: CommandDef };
  return "run" in d ? d : d.default;
}

/** Run a command with a given context (the CLI, self-test and tests all come through here). */
export async function invoke(name: string, argv: readonly string[], ctx: Context): Promise<Outcome> {
  const entry = Object.prototype.hasOwnProperty.call(registry, name) ? registry[name] : undefined;
  if (!entry) return fail(usage(`Unknown command: ${name}`, { commands: commandNames }));
  try {
    return await execute(name, commandOf(await entry.load()), argv, ctx);
  } catch (err) {
    return fail(err);
  }
}

/** Run one command line (`argv` as after `plan.js`) in a given context. The CLI entry and in-process callers use it. */
export const run: Dispatch = async (argv, ctx) => {
  const [name, ...rest] = argv;
  if (name === undefined) return fail(usage("No command given", { commands: commandNames }));
  if (name === "--help" || name === "-h") {
    return ok({ command: null, usage: "plan.js <command> [args...]", arguments: [], commands: commandNames });
  }
  return invoke(name, rest, ctx);
};

/**
 * The CLI's command line. Started as `grant-approve.js` (a link to this bundle in skills/execute/scripts/), it is
 * `grant <args> --approve` with the user's consent: that path is covered by no skill's `allowed-tools` and never
 * approved by the permission hook, so Claude Code asks the user before it runs, and that answer is the consent.
 */
export async function main(argv: readonly string[], invokedAs = "", entry?: string): Promise<Outcome> {
  let stdinText: Promise<string> | undefined;
  const consent = invokedAs === "grant-approve.js";
  return run(consent ? ["grant", ...argv, "--approve"] : argv, {
    cwd: process.cwd(),
    now: () => Date.now(),
    stdin: () => (stdinText ??= readStdin()),
    ...(consent ? { consent: true } : {}),
    ...(entry ? { entry } : {}),
  });
}
