// Entry point of dist/plan.js: prints one JSON document on stdout. The only place that sets the exit code
// (process.exitCode, not process.exit, so stdout is flushed).
import { fail } from "./lib/command.js";
import { main } from "./main.js";

main(process.argv.slice(2)).then(
  ({ exitCode, output }) => {
    process.stdout.write(`${JSON.stringify(output)}\n`);
    process.exitCode = exitCode;
  },
  (err: unknown) => {
    const { output } = fail(err);
    process.stdout.write(`${JSON.stringify(output)}\n`);
    process.exitCode = 1;
  },
);
