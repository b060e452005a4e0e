// Runs every test/**/*.test.ts with node:test through tsx, and fails when there is none
// (on Node 20 `tsx --test` with no matching files exits 0).
//   node scripts/test.mjs [files or folders]    the suite (default: test/, without test/e2e)
//   node scripts/test.mjs --soak                the process-level tests at full strength (test:soak): the race
//                                               tests with their soak counts, the contract tables as real processes
//
// Files outside test/e2e run in a pool of long-lived worker processes (scripts/test-worker.mjs), one file at a time
// per worker, each file as one top-level suite: starting node with tsx and node:test costs about a second of CPU
// here, which a process per file paid ~80 times. Files are handed out longest first (the durations of the previous
// run, kept in .cache/test-times.json; without them, the race files and then the largest files first). The race
// files (SOAK_FILES) share the pool but never run beside each other. The end-to-end files still get a process each
// (`node --test`): they drive the real CLI and run for minutes.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { fork, spawnSync } from "node:child_process";
import { availableParallelism, tmpdir } from "node:os";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { testQueue } from "./test-queue.mjs";

// The kill tests (test/helpers/crash.ts) start a helper process per crash case, dozens per command: beside a race
// file they starve its writers of CPU, so they count as race files too (and run their soak counts under test:soak).
const SOAK_FILES = [
  "test/contract/concurrency.test.ts", "test/contract/memory-concurrency.test.ts", "test/contract/run-kill.test.ts",
  "test/contract/lock-reclaim.test.ts", "test/contract/crash-store.test.ts", "test/contract/crash-run.test.ts",
  "test/contract/crash-commands.test.ts", "test/contract/crash-grant.test.ts", "test/commands/git-kill.test.ts",
  "test/contract/crash-rank-index.test.ts",
];
// The contract tables whose helper calls are in-process in `npm test` and real processes in test:soak
// (test/helpers/soak.ts).
const TABLE_FILES = ["test/contract/bad-inputs.test.ts", "test/contract/confinement.test.ts", "test/contract/ownership.test.ts"];
// Property tests whose generated-case count DO_SOAK=1 raises (the shell parser against mvdan/sh and real bash; the
// user's edits, the workers', kills, retries, clean-attempt and commit on a dirty tree; memory-add's cold scan and its
// byte tokenizer against the string path; the specificity gate's ASCII patterns against the Unicode ones).
const PROPERTY_FILES = [
  "test/unit/shell-differential.test.ts", "test/unit/checks-exit.test.ts", "test/contract/dirty-tree-property.test.ts",
  "test/unit/memory-cold-scan.test.ts", "test/unit/quality-gates-ascii.test.ts",
];
const TIMES = ".cache/test-times.json";
const soakRun = process.argv[2] === "--soak";
const only = soakRun ? [...TABLE_FILES, ...SOAK_FILES, ...PROPERTY_FILES] : process.argv.slice(2);
const roots = only.length ? only : ["test"];
const files = [];
for (const root of roots) {
  if (!existsSync(root)) {
    console.error(`no such test file or folder: ${root}`);
    process.exit(1);
  }
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

const cores = availableParallelism();
const baseEnv = soakRun ? { ...process.env, DO_SOAK: "1" } : { ...process.env };
// The helper and the tests make no TLS connection, and on machines that set NODE_EXTRA_CA_CERTS (a proxy's CA
// bundle) node reads and parses that bundle at every start: ~45 ms of each of the suite's ~400 node processes here.
// The end-to-end suite keeps it (it installs the CLI with npm).
const unitEnv = { ...baseEnv };
delete unitEnv.NODE_EXTRA_CA_CERTS;
// `grant --approve` makes the user's grant key under the Claude config folder: the unit suite gets its own, so no
// test reads or writes the real one (the e2e suite runs the CLI with a scratch HOME), and each worker process its
// own below it: a test that deletes or replaces the key (grant.test.ts ends every grant that way) never ends the
// grant of a test running beside it in another worker (it did: a kill test's retried commit then found the grant's
// signature no longer verified, at random, depending on which files ran side by side).
const configRoot = mkdtempSync(join(tmpdir(), "do-test-config-"));
unitEnv.CLAUDE_CONFIG_DIR = configRoot;
process.on("exit", () => rmSync(configRoot, { recursive: true, force: true }));
/** The config folder of worker `w` (made on first use). */
function workerConfig(w) {
  const dir = join(configRoot, `worker-${w + 1}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}
// python3 on PATH may be a version manager's shim (pyenv: bash and pyenv itself before the interpreter, ~0.3 s of
// CPU per start here, ~20 starts in the suite). Ask it once which interpreter it runs and put a link to that one
// first on the unit suite's PATH: the same python3, started directly.
// (A run started from inside the suite, as test-runner.test.ts does, finds its own link first: it is left out.)
const pythonBin = resolve(".cache/python3-bin");
const searchPath = (baseEnv.PATH ?? "").split(delimiter).filter((d) => d && resolve(d) !== pythonBin).join(delimiter);
const python = spawnSync("python3", ["-I", "-S", "-c", "import sys; print(sys.executable)"], {
  encoding: "utf8",
  env: { ...baseEnv, PATH: searchPath },
});
const executable = python.status === 0 ? python.stdout.trim() : "";
if (isAbsolute(executable) && existsSync(executable)) {
  mkdirSync(pythonBin, { recursive: true });
  const link = `${pythonBin}/python3.${process.pid}`;
  rmSync(link, { force: true });
  symlinkSync(realpathSync(executable), link);
  renameSync(link, `${pythonBin}/python3`); // atomic: another run may be starting it
  unitEnv.PATH = `${pythonBin}${delimiter}${searchPath}`;
}

const e2eFiles = files.filter((f) => f.includes("/e2e/"));
const unitFiles = files.filter((f) => !f.includes("/e2e/"));
// The race tests (SOAK_FILES) measure what many writers do against one lock: they never run beside each other
// (two of them at once could make a writer wait out the lock's 10 s), only beside one file of the others.
const isRace = (f) => SOAK_FILES.includes(f);

let times = {};
try {
  times = JSON.parse(readFileSync(TIMES, "utf8"));
} catch {
  // no durations yet (a fresh clone, as in CI): the race files first (the longest by far, and they cannot run two
  // at once, so starting one late leaves a tail), then the largest files
}
const weight = (f) => times[f] ?? (isRace(f) ? 2e9 : 1e9) + statSync(f).size;

/**
 * Runs `list` in `workers` worker processes, longest first, at most one race file at a time; resolves to
 * { failed, tests, pass, fail, output }. A worker that finds nothing it may start stops; the one running the race
 * file takes the next race file.
 */
function runPool(list, workers) {
  const queue = testQueue(list, { weight, exclusive: isRace });
  const count = Math.max(1, Math.min(workers, queue.left()));
  const totals = { failed: false, tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
  const outputs = [];
  return new Promise((done) => {
    let running = count;
    for (let w = 0; w < count; w++) {
      const child = fork("scripts/test-worker.mjs", [], {
        execArgv: ["--import", "tsx"],
        env: { ...unitEnv, CLAUDE_CONFIG_DIR: workerConfig(w) },
        stdio: ["ignore", "pipe", "pipe", "ipc"],
      });
      let out = "";
      let current = null;
      child.stdout.on("data", (c) => (out += c));
      child.stderr.on("data", (c) => process.stderr.write(c));
      child.on("message", (msg) => {
        if (msg.done) {
          queue.finished(msg.done);
          if (!isAbsolute(msg.done)) times[msg.done] = msg.ms;
          console.log(`# [worker ${w + 1}] ${msg.done}: ${(msg.ms / 1000).toFixed(1)} s, ${(msg.cpuMs / 1000).toFixed(1)} s of CPU`);
          current = null;
        }
        if (msg.want) {
          current = queue.take();
          child.send({ file: current });
        }
      });
      child.on("exit", (code, signal) => {
        if (code !== 0) totals.failed = true;
        if (current) {
          totals.failed = true;
          out += `\n# worker ${w + 1} exited (${signal ?? code}) while running ${current}\n`;
        }
        for (const key of ["tests", "pass", "fail", "cancelled", "skipped", "todo"]) {
          const m = out.match(new RegExp(`^# ${key} (\\d+)$`, "m"));
          if (m) totals[key] += Number(m[1]);
        }
        outputs[w] = out;
        if (--running === 0) done({ ...totals, output: outputs.join("") });
      });
    }
  });
}

/**
 * The innermost failed tests of a TAP stream (a suite that failed only because a test in it did is left out), each
 * as `# FAILED <file> › <test>` followed by the first lines of its diagnostic block.
 */
function failedTests(tap) {
  const lines = tap.split("\n");
  const found = [];
  const names = [];
  for (let i = 0; i < lines.length; i++) {
    const sub = lines[i].match(/^(\s*)# Subtest: (.*)$/);
    if (sub) {
      names[sub[1].length / 4] = sub[2];
      names.length = sub[1].length / 4 + 1;
      continue;
    }
    if (/^# worker \d+ exited/.test(lines[i])) found.push(`# FAILED ${lines[i].slice(2)}`);
    const bad = lines[i].match(/^(\s*)not ok \d+ - (.*?)(?: # .*)?$/);
    if (!bad) continue;
    const depth = bad[1].length / 4;
    const block = [];
    for (let j = i + 1; j < lines.length && block.length < 12 && !/^\s*\.\.\.$/.test(lines[j]); j++) block.push(lines[j].trim());
    if (block.some((l) => /^failureType: 'subtestsFailed'/.test(l))) continue;
    const path = [...names.slice(0, depth).filter(Boolean), bad[2]];
    found.push([`# FAILED ${path.join(" › ")}`, ...block.filter((l) => l && l !== "---").map((l) => `#   ${l}`)].join("\n"));
  }
  return found;
}

let status = 0;
const started = performance.now();
if (unitFiles.length) {
  const sum = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
  // test:soak starts all 100 writers of a race test at once: those files then run alone, after the tables.
  const rounds = soakRun
    ? [[unitFiles.filter((f) => !isRace(f)), Math.max(2, cores)], [unitFiles.filter(isRace), 1]]
    : [[unitFiles, Math.max(2, cores)]];
  const failures = [];
  for (const [group, workers] of rounds) {
    if (group.length === 0) continue;
    const r = await runPool(group, workers);
    process.stdout.write(r.output);
    failures.push(...failedTests(r.output));
    for (const key of Object.keys(sum)) sum[key] += r[key];
    if (r.failed || r.fail > 0 || r.tests === 0) status = 1;
  }
  mkdirSync(".cache", { recursive: true });
  writeFileSync(TIMES, JSON.stringify(times, null, 1) + "\n");
  const line = Object.entries(sum).map(([k, v]) => `${k} ${v}`).join(", ");
  // The failures again, last: a CI log cut to its tail still names each failed test and the start of its error.
  for (const f of failures) console.log(f);
  console.log(`# all ${unitFiles.length} files: ${line}; ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
if (e2eFiles.length) {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--test", `--test-concurrency=${Math.max(2, cores)}`, ...e2eFiles], {
    stdio: "inherit",
    env: baseEnv,
  });
  if (r.status !== 0) status = r.status ?? 1;
}
process.exit(status);
