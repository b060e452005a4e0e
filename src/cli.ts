// Entry point of dist/plan.js: prints one JSON document on stdout. The only place that sets the exit code.
// It exits as soon as the document is flushed: nothing else is left to do, and waiting for the event loop to
// drain (the lock library's refresh timer, closed handles) only adds latency.
import { fail } from "./lib/command.js";
import { main } from "./main.js";

function finish(output: unknown, exitCode: number): void {
  process.exitCode = exitCode;
  process.stdout.write(`${JSON.stringify(output)}\n`, () => process.exit(exitCode));
}

main(process.argv.slice(2)).then(
  ({ exitCode, output }) => finish(output, exitCode),
  (err: unknown) => finish(fail(err).output, 1),
);
