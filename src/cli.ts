// Entry point of dist/plan.js: prints one JSON document on stdout. The only place that sets the exit code.
// It exits as soon as the document is written: nothing else is left to do, and waiting for the event loop to
// drain (the lock library's refresh timer, closed handles) only adds latency. A command may add one line for a
// person on stderr (self-test's summary); stdout stays one JSON document.
import { fail } from "./lib/command.js";
import { writeOut } from "./lib/out.js";
import { main } from "./main.js";

function finish(output: unknown, exitCode: number, note?: string): void {
  process.exitCode = exitCode;
  const document = () => {
    const rest = writeOut(1, `${JSON.stringify(output)}\n`);
    if (rest) process.stdout.write(rest, () => process.exit(exitCode));
    else process.exit(exitCode);
  };
  const rest = note ? writeOut(2, `${note}\n`) : undefined;
  if (rest) process.stderr.write(rest, document);
  else document();
}

main(process.argv.slice(2)).then(
  ({ exitCode, output, note }) => finish(output, exitCode, note?.(performance.now())),
  (err: unknown) => finish(fail(err).output, 1),
);
