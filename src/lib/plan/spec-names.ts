// A verification spec's file name checked against the runner its command names (issue 31): the specs ref named
// files `spec-{role}.test.{ext}`, and pytest cannot import `spec-x.test.py` (a module name holds no `.` or `-`), so
// that role failed every attempt while its workers may not edit specs. finalize refuses such a name, saying the one
// the runner takes. Only what is certain is judged: Python modules, Go tests, RSpec.
import { arrayOf, type Json } from "./plan.js";
import { isObject } from "../values.js";

const base = (path: string) => path.slice(path.replace(/\\/g, "/").lastIndexOf("/") + 1);

/** Why the runner of `runCommand` cannot run the spec at `path` by its name, or "". */
export function specNameProblem(path: string, runCommand: string): string {
  const name = base(path);
  const stem = name.replace(/\.[^.]*$/, "");
  if (/\.py$/.test(name)) {
    const suggestion = `test_${stem.replace(/^spec[-_.]?/, "spec_").replace(/[-._]test$/, "").replace(/[^A-Za-z0-9_]/g, "_")}.py`;
    // Measured with pytest 9: `spec-x.test.py` fails to import (the dot reads as a package), `spec-x.py` runs.
    if (stem.includes(".")) return `Python imports a test file as a module, and the '.' in '${stem}' reads as a package: name it ${suggestion}`;
    // A folder given to pytest is searched for test_*.py and *_test.py; a file named on the command runs by name.
    if (/\bpy\.?test\b/.test(runCommand) && !runCommand.includes(name) && !/^test_|_test$/.test(stem)) return `pytest, given a folder, collects only test_*.py and *_test.py: name it ${suggestion}`;
    return "";
  }
  if (/\.go$/.test(name) && !/_test\.go$/.test(name)) return `go test runs only *_test.go files: name it ${stem.replace(/[^A-Za-z0-9_]/g, "_")}_test.go`;
  if (/\.rb$/.test(name) && /\brspec\b/.test(runCommand) && !/_spec\.rb$/.test(name)) return `rspec runs *_spec.rb files: name it ${stem.replace(/[^A-Za-z0-9_]/g, "_")}_spec.rb`;
  return "";
}

/** finalize's issues for the plan's spec file names. */
export function specNameIssues(doc: Json): string[] {
  const issues: string[] = [];
  arrayOf(doc.verificationSpecs).forEach((s, i) => {
    if (!isObject(s) || typeof s.path !== "string" || typeof s.runCommand !== "string") return;
    const why = specNameProblem(s.path, s.runCommand);
    if (why) issues.push(`verificationSpecs[${i}]: '${s.path}' cannot be run by its command (${s.runCommand}): ${why}, in the path and the runCommand`);
  });
  return issues;
}
