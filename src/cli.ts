// Entry point of dist/plan.js: prints one JSON document on stdout. The only place that sets the exit code.
// It exits as soon as the document is written: nothing else is left to do, and waiting for the event loop to
// drain (the lock library's refresh timer, closed handles) only adds latency. A command may add one line for a
// person on stderr (self-test's summary); stdout stays one JSON document.
//
// Required rather than run (`require("dist/plan.js")`), the bundle runs nothing and exports `run(argv, ctx)`: the
// same commands, arguments and JSON document, in the caller's process. self-test runs a command's further cases
// that way, and the unit suite its in-process tables; neither prints or exits.
import { fail } from "./lib/command/command.js";
import { writeOut } from "./lib/command/out.js";
import { main, run } from "./main.js";

export { run };

/** The one JSON line; an answer that cannot be serialised (a bug: inputs are depth-capped) becomes an E_INTERNAL one. */
function serialise(output: unknown): { text: string; failed: boolean } {
  try {
    return { text: JSON.stringify(output), failed: false };
  } catch (err) {
    return { text: JSON.stringify(fail(err).output), failed: true };
  }
}

function finish(output: unknown, exitCode: number, note?: string): void {
  const answer = serialise(output);
  const code = answer.failed ? 1 : exitCode;
  process.exitCode = code;
  const document = () => {
    const rest = writeOut(1, `${answer.text}\n`);
    if (rest) process.stdout.write(rest, () => process.exit(code));
    else process.exit(code);
  };
  const rest = note ? writeOut(2, `${note}\n`) : undefined;
  if (rest) process.stderr.write(rest, document);
  else document();
}

if (require.main === module) {
  const invokedAs = (process.argv[1] ?? "").slice((process.argv[1] ?? "").lastIndexOf("/") + 1);
  main(process.argv.slice(2), invokedAs, process.argv[1]).then(
    ({ exitCode, output, note }) => finish(output, exitCode, note?.(performance.now())),
    (err: unknown) => finish(fail(err).output, 1),
  );
}
