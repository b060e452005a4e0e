// Runs every test/**/*.test.ts with node:test through tsx, and fails when there is none
// (on Node 20 `tsx --test` with no matching files exits 0).
//   node scripts/test.mjs [files or folders]    the suite (default: test/, without test/e2e)
//   node scripts/test.mjs --soak                the process-level race tests with their soak counts (test:soak)
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";

const SOAK_FILES = ["test/contract/concurrency.test.ts", "test/contract/memory-concurrency.test.ts", "test/contract/run-kill.test.ts"];
const soakRun = process.argv[2] === "--soak";
const only = soakRun ? SOAK_FILES : process.argv.slice(2);
const roots = only.length ? only : ["test"];
const files = [];
for (const root of roots) {
  if (root.endsWith(".test.ts")) { files.push(root); continue; }
  // test/e2e drives the real Claude Code CLI: it runs only when asked for by name (npm run test:e2e).
  const e2e = root.split("/").includes("e2e");
  for (const f of readdirSync(root, { recursive: true })) {
    const p = `${root}/${f}`;
    if (p.endsWith(".test.ts") && (e2e || !p.includes("/e2e/"))) files.push(p);
  }
}
files.sort();
if (files.length === 0) {
  console.error("no test files found");
  process.exit(1);
}
// Test files run as many at a time as the machine has cores; within a file, process-level tables set their own
// concurrency (e.g. bad-inputs.test.ts). The race tests (SOAK_FILES) measure what many writers do against one lock,
// so they run afterwards, one file at a time, with the machine to themselves: beside another process-level file
// their 100 writers can wait out the lock's 10 s only because of the other file's load.
const env = soakRun ? { ...process.env, DO_SOAK: "1" } : process.env;
const alone = files.filter((f) => SOAK_FILES.includes(f));
const together = files.filter((f) => !SOAK_FILES.includes(f));
let status = 0;
for (const [group, concurrency] of [[together, Math.max(2, availableParallelism())], [alone, 1]]) {
  if (group.length === 0) continue;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, ...group], { stdio: "inherit", env });
  if (r.status !== 0) status = r.status ?? 1;
}
process.exit(status);
