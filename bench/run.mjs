// Benchmarks for the helper (`npm run bench`; never part of the test suite). One run prints every call of issue 13
// against bare `node -e 0` and against the original Python helper, as ratios, plus the hook's cost per call.
//
//   node bench/run.mjs                 everything
//   node bench/run.mjs cheap heavy     only some groups: cheap, heavy, curve, selftest, hook, quality, scale
//   node bench/run.mjs scale           cost against plan, memory and reflection size (slopes; not in the default run)
//   node bench/run.mjs compile         how much of each cheap call is V8 compiling the helper (not in the default run)
//   BENCH_RUNS=21                      rounds per call (default 15; medians)
//   DO_BENCH_ORIGINAL=/path/plan.py    the original helper (python3), timed live on the same fixtures
//   BENCH_KEEP=1                       keep the fixture projects (for --cpu-prof and strace -c by hand)
//
// Wall-clock medians over interleaved rounds (node -e 0 runs in every round, so the ratios compare like with like),
// plus the child's CPU time (user + sys, from /usr/bin/time) which other load on the machine disturbs far less.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
// BENCH_DIST: another build's dist/ (a copy of an earlier one, for before/after figures of the same fixtures).
const PLAN_JS = join(process.env.BENCH_DIST ? resolve(process.env.BENCH_DIST) : join(ROOT, "dist"), "plan.js");
const PERMIT_JS = join(ROOT, "dist/permit.js");
const groups = new Set(process.argv.slice(2));
// scale takes minutes (fixtures of 50,000 lines, the original at each size) and compile is an experiment: only when asked.
const want = (g) => (groups.size === 0 && g !== "scale" && g !== "compile") || groups.has(g);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const ORIGINAL = process.env.DO_BENCH_ORIGINAL && existsSync(process.env.DO_BENCH_ORIGINAL) ? resolve(process.env.DO_BENCH_ORIGINAL) : null;
const TIMED = existsSync("/usr/bin/time");

/**
 * The original's figures as issue 13 measured them on this machine (medians of 9-15, same fixture sizes), used as
 * the reference when the original is not present here.
 */
const ISSUE_ORIGINAL_MS = {
  "status (40 roles)": 278,
  "finalize (8 roles)": 202,
  "finalize (300 roles, refused)": 202,
  "memory-add (20k)": 200,
  // The original keeps no index: its add costs the same whether or not one was built before (issue 20).
  "memory-add (20k, no index yet)": 200,
  "overlap-matrix (300 roles)": 337,
  "memory-search (20k)": 617,
};

// ---------------------------------------------------------------- timing

// A node child reports its own CPU time (process.cpuUsage at exit: bootstrap included, microseconds) through a
// preload, far finer than /usr/bin/time's 10 ms ticks; the preload costs the same in every node child.
const CPU_PRELOAD = join(mkdtempSync(join(tmpdir(), "do-bench-cpu-")), "cpu.cjs");
writeFileSync(CPU_PRELOAD, 'process.on("exit", () => { const u = process.cpuUsage(); require("fs").writeSync(2, `\\n@cpu ${u.user + u.system}\\n`); });\n');

// Every ratio is printed twice: in the environment as given, and with NODE_EXTRA_CA_CERTS removed from both the
// call and its bare-node denominator ("strict"). Node reads and parses that certificate file at every start
// (~45 ms on the 2-core machine), which inflates the denominator as much as the call; the helper makes no TLS
// connection, so the strict ratio is the one that shows what the helper itself adds.
const ENV_GIVEN = { ...process.env };
const ENV_STRICT = { ...process.env };
delete ENV_STRICT.NODE_EXTRA_CA_CERTS;
const CA_SET = process.env.NODE_EXTRA_CA_CERTS !== undefined;
const ENVS = CA_SET ? [["given", ENV_GIVEN], ["strict", ENV_STRICT]] : [["given", ENV_GIVEN]];

function once(argv, { cwd, input, env, timeout } = {}) {
  const node = argv[0] === process.execPath;
  // A time limit kills the call itself (through timeout(1)), not only /usr/bin/time above it.
  const limited = timeout ? ["timeout", "-s", "KILL", String(timeout / 1000)] : [];
  const full = [...limited, ...(node ? [argv[0], "--require", CPU_PRELOAD, ...argv.slice(1)] : argv)];
  const cmd = TIMED ? "/usr/bin/time" : full[0];
  const args = TIMED ? ["-f", "\n%U %S %M", ...full] : full.slice(1);
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd, env: env ?? ENV_GIVEN, input: input ?? "", encoding: "utf8", maxBuffer: 64 << 20 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (timeout && r.status === 137) return { wall: Infinity, cpu: Infinity, tree: Infinity, rss: NaN, status: null, stdout: "", timedOut: true };
  let cpu = NaN;
  let rss = NaN;
  if (TIMED) {
    const [u, s, m] = r.stderr.trim().split("\n").pop().split(" ").map(Number);
    cpu = (u + s) * 1000;
    rss = m / 1024;
  }
  // /usr/bin/time counts the children the process waited for (self-test's); the preload, the process alone.
  const tree = cpu;
  const own = /@cpu (\d+)/.exec(r.stderr);
  if (own) cpu = Number(own[1]) / 1000;
  return { wall, cpu, tree, rss, status: r.status, stdout: r.stdout };
}

const median = (xs) => {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => (a === b ? 0 : a < b ? -1 : 1));
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

/**
 * Each case: argv (after `node`), cwd, optional input and a `before()` that resets the fixture outside the timing.
 * Runs the cases interleaved with `node -e 0`, RUNS rounds after 2 warm-up rounds, in each environment of ENVS
 * (also interleaved). Returns { bare, rows } for the given environment, with `strict` beside it when there is one.
 */
function measure(cases, runs = RUNS, envs = ENVS) {
  const samples = new Map(envs.map(([e]) => [e, { bare: [], rows: new Map(cases.map((c) => [c.label, []])) }]));
  for (let round = -2; round < runs; round++) {
    for (const [e, env] of envs) {
      const into = samples.get(e);
      const b = once([process.execPath, "-e", "0"], { env });
      if (round >= 0) into.bare.push(b);
      for (const c of cases) {
        if (c.timedOut) {
          if (round >= 0) into.rows.get(c.label).push({ wall: Infinity, cpu: Infinity, rss: NaN });
          continue;
        }
        c.before?.();
        const r = once(c.argv, { cwd: c.cwd, input: c.input, env: c.env ? { ...env, ...c.env } : env, timeout: c.timeout });
        if (r.timedOut) {
          c.timedOut = true;
          if (round >= 0) into.rows.get(c.label).push(r);
          continue;
        }
        if (c.check && !c.check(r)) throw new Error(`${c.label}: unexpected result (exit ${r.status}): ${r.stdout.slice(0, 300)}`);
        if (round >= 0) into.rows.get(c.label).push(r);
      }
    }
  }
  const stat = (rs) => ({ wall: median(rs.map((r) => r.wall)), cpu: median(rs.map((r) => r.cpu)), rss: median(rs.map((r) => r.rss)) });
  const of = (e) => {
    const x = samples.get(e);
    return x && { bare: stat(x.bare), rows: cases.map((c) => ({ ...c, ...stat(x.rows.get(c.label)) })) };
  };
  const given = of("given");
  const strict = of("strict");
  if (strict) given.rows.forEach((r, i) => (r.strict = { ...strict.rows[i], bare: strict.bare }));
  return { ...given, strict };
}

const ms = (x) => (Number.isNaN(x) ? "n/a" : x === Infinity ? "timeout" : `${x.toFixed(0)} ms`);
const ratio = (x, y) => (Number.isNaN(x) || Number.isNaN(y) || !y ? "n/a" : `${(x / y).toFixed(2)}`);

/** Issue 13's bare `node -e 0` on the quiet machine, where its figures of the original were taken. */
const ISSUE_BARE_NODE_MS = 98;
/** The call's wall time scaled to the issue's machine state: its ratio to bare node now × 98 ms. */
const quiet = (r, bare) => (r.wall / bare.wall) * ISSUE_BARE_NODE_MS;

function table(title, { bare, rows, strict }, target) {
  console.log(`\n${title}`);
  console.log(`bare node -e 0: ${ms(bare.wall)} wall, ${ms(bare.cpu)} cpu, ${bare.rss.toFixed?.(1) ?? "?"} MiB` +
    (strict ? ` · without NODE_EXTRA_CA_CERTS (strict): ${ms(strict.bare.wall)} wall, ${ms(strict.bare.cpu)} cpu` : " · NODE_EXTRA_CA_CERTS not set: the given figures are the strict ones"));
  // Against the issue's figures (measured on a quiet machine, bare node 98 ms), a call's wall time now is first
  // scaled to that machine state: its ratio to bare node in this same run × 98 ms (load inflates both alike).
  const head = ["call", "wall", "cpu", "/ node wall", "/ node cpu", ...(strict ? ["strict wall", "strict cpu", "strict / node wall", "strict / node cpu"] : []),
    "original", "/ original", "target", "peak RSS"];
  const lines = [head];
  for (const r of rows) {
    const orig = r.original ?? NaN;
    const s = r.strict;
    lines.push([
      r.label, ms(r.wall), ms(r.cpu), ratio(r.wall, bare.wall), ratio(r.cpu, bare.cpu),
      ...(s ? [ms(s.wall), ms(s.cpu), ratio(s.wall, s.bare.wall), ratio(s.cpu, s.bare.cpu)] : []),
      Number.isNaN(orig) ? "-" : `${orig.toFixed(0)} ms${r.originalLive ? "" : " (issue)"}`,
      Number.isNaN(orig) ? "-" : r.originalLive ? ratio(r.wall, orig) : `${ratio(quiet(r, bare), orig)} (at ${quiet(r, bare).toFixed(0)} ms)`,
      target(r, bare), Number.isNaN(r.rss) ? "-" : `${r.rss.toFixed(0)} MiB`,
    ]);
  }
  columns(lines);
}

/** Rows printed as columns, each as wide as its widest cell. */
function columns(lines) {
  const widths = lines[0].map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)));
  for (const l of lines) console.log(l.map((c, i) => String(c).padEnd(widths[i])).join("  "));
}

/** "given met · strict MISSED": the target checked on each environment's own wall ratio. */
function against(limit, r, bare) {
  const verdict = (x) => (x <= limit ? "met" : "MISSED");
  const given = verdict(r.wall / bare.wall);
  return r.strict ? `given ${given} · strict ${verdict(r.strict.wall / r.strict.bare.wall)}` : `<= ${limit.toFixed(2)} ${given}`;
}

// ---------------------------------------------------------------- V8's compile share

/**
 * A preload that compiles the helper's own files (those under DO_BENCH_CC_ROOT) through vm.Script instead of Node's
 * loader, with a V8 code cache in DO_BENCH_CC_DIR: DO_BENCH_CC=make writes one at exit (after the call ran, so it
 * holds every function the call compiled), use reads it, none compiles as Node would. The same loader runs in both
 * timed modes, so their difference is V8 parsing and compiling the code the call runs. A bench tool only: the helper
 * keeps no code cache (bench/README.md, "Tenth round").
 */
const CODE_CACHE_LOADER = String.raw`"use strict";
const Module = require("node:module");
const vm = require("node:vm");
const fs = require("node:fs");
const path = require("node:path");
const mode = process.env.DO_BENCH_CC;
const root = process.env.DO_BENCH_CC_ROOT + path.sep;
const dir = process.env.DO_BENCH_CC_DIR;
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  if (!filename.startsWith(root)) return compile.call(this, content, filename);
  const cacheFile = path.join(dir, filename.slice(root.length).split(path.sep).join("__") + ".v8");
  // A function body cannot start with "#!": the line becomes a comment of the same length.
  const source = "(function (exports, require, module, __filename, __dirname) { " + content.replace(/^#!/, "//") + "\n})";
  let cachedData;
  if (mode === "use") cachedData = fs.readFileSync(cacheFile);
  const script = new vm.Script(source, { filename, cachedData });
  if (mode === "use" && script.cachedDataRejected) fs.writeSync(2, "\n@cc-rejected " + filename + "\n");
  if (mode === "make") process.on("exit", () => fs.writeFileSync(cacheFile, script.createCachedData()));
  const req = (id) => this.require(id);
  req.main = process.mainModule;
  req.resolve = (request) => Module._resolveFilename(request, this);
  req.cache = Module._cache;
  return script.runInThisContext().call(this.exports, this.exports, req, this, filename, path.dirname(filename));
};
`;

/**
 * How much of each cheap call is V8 compiling the helper's code: the call as it runs, through the loader above
 * without a code cache, and through it with one made by a warm-up run of the same call (strict environment).
 */
function compileShare(cases) {
  const base = join(tmp, "code-cache");
  mkdirSync(base);
  const loader = join(base, "loader.cjs");
  writeFileSync(loader, CODE_CACHE_LOADER);
  const env = ENV_STRICT; // the given environment when NODE_EXTRA_CA_CERTS is not set
  const variants = [];
  cases.forEach((c, i) => {
    const dir = join(base, String(i));
    mkdirSync(dir);
    const through = (mode) => {
      const v = { label: `${c.label} · ${mode}`, cwd: c.cwd, input: c.input, check: c.check, of: c.label, mode };
      if (mode !== "plain") v.env = { DO_BENCH_CC: mode, DO_BENCH_CC_ROOT: dirname(PLAN_JS), DO_BENCH_CC_DIR: dir };
      const wrap = () => (v.argv = mode === "plain" ? c.argv : [process.execPath, "--require", loader, ...c.argv.slice(1)]);
      v.before = () => {
        c.before?.();
        wrap();
      };
      if (c.argv) wrap();
      return v;
    };
    // The warm-up that writes the cache, then one run that must take it (V8 refuses a cache of another build).
    for (const mode of ["make", "use"]) {
      const v = through(mode);
      v.before();
      const r = spawnSync(process.execPath, v.argv.slice(1), { cwd: v.cwd, input: v.input ?? "", env: { ...env, ...v.env }, encoding: "utf8" });
      if (!v.check(r)) throw new Error(`${v.label}: unexpected result (exit ${r.status}): ${r.stdout.slice(0, 300)}`);
      if (r.stderr.includes("@cc-rejected")) throw new Error(`${v.label}: V8 refused the code cache it just wrote`);
    }
    variants.push(through("plain"), through("none"), through("use"));
  });
  const { bare, rows } = measure(variants, RUNS, [["given", env]]);
  console.log(`\nV8 compiling the helper's code, per cheap call (cpu medians of ${RUNS}, ${CA_SET ? "strict" : "given"} environment; bare node -e 0: ${ms(bare.cpu)} cpu)`);
  const head = ["call", "as it runs", "loader, no cache", "loader, code cache", "compile (saved)", "share of the call over bare node"];
  const lines = [head];
  for (const c of cases) {
    const of = (mode) => rows.find((r) => r.of === c.label && r.mode === mode).cpu;
    const saved = of("none") - of("use");
    lines.push([c.label, ms(of("plain")), ms(of("none")), ms(of("use")), `${saved.toFixed(1)} ms`, `${((saved / (of("none") - bare.cpu)) * 100).toFixed(0)}%`]);
  }
  columns(lines);
}

// ---------------------------------------------------------------- fixtures

const WORDS = ("api rest auth cache queue worker schema migration index parser lexer router store lock retry backoff " +
  "metric trace log config deploy build test lint format bundle plugin skill memory reflection recon plan role graph " +
  "overlap cycle depth token score rank").split(" ");
const CATS = ["pattern", "mistake", "convention", "approach", "failure", "procedure"];

function rng(seed) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

function role(i, n, rnd) {
  const mod = `m${i % Math.max(1, Math.floor(n / 8))}`;
  return {
    name: `role-${i}`,
    goal: `Implement part ${i} of the system with tests`,
    model: i % 3 ? "sonnet" : "opus",
    scope: {
      directories: [`src/${mod}/part${i}/`, ...(i % 5 === 0 ? [`src/${mod}/`] : [])],
      patterns: [`test/${mod}/part${i}/**/*.test.ts`, ...(i % 7 === 0 ? [`docs/${mod}/**`] : [])],
      dependencies: i ? [`role-${Math.floor(rnd() * i)}`] : [],
    },
    acceptanceCriteria: [{ criterion: `part ${i} works`, check: `npm test -- part${i}` }],
    constraints: ["Keep the public API stable"],
    status: ["pending", "completed", "in_progress"][i % 3],
    attempts: 0,
    result: null,
    directoryOverlaps: [],
  };
}

/**
 * The auxiliaries finalize requires of a plan that is not design's quick path (lib/plan/plan-rules.ts): the memory
 * curator and integration verifier always, challenger and scout since the bench's goals touch code.
 */
const AUXILIARIES = [
  { name: "challenger", type: "pre-execution", trigger: "before-execution", goal: "Find the plan's gaps before any worker starts" },
  { name: "scout", type: "pre-execution", trigger: "before-execution", goal: "Check the plan's assumptions against the code" },
  { name: "integration-verifier", type: "post-execution", trigger: "after-all-roles-complete", goal: "Verify the roles work together" },
  { name: "memory-curator", type: "post-execution", trigger: "after-all-roles-complete", goal: "Keep what this run teaches" },
];

/** A skill's phases as run-start takes them: the whole list the skill declares (SKILL_PHASES in src/lib/run/run-state.ts). */
const PHASES = {
  design: "pre-flight,experts,cross-review,plan,finalize,reflect-and-report",
  execute: "pre-flight,challenge,grant,workers,verify,learn,close",
};

/** The verification specs of a plan's first two roles, as design installs them under .design/specs/. */
const SPECS = [0, 1].map((i) => ({ role: `role-${i}`, path: `.design/specs/spec-${i}.test.ts`, runCommand: `npx vitest run .design/specs/spec-${i}.test.ts` }));

/** A spec file of `lines` tests. */
const specText = (lines = 1) => `import { test } from "vitest";\n${"test('part', () => {});\n".repeat(lines)}`;

/** The spec files SPECS names, `lines` tests each. */
const specFiles = (lines = 1) => Object.fromEntries(SPECS.map((s) => [s.path, specText(lines)]));

/**
 * An n-role plan as design writes it (a complex plan: its auxiliaries and specs, which finalize requires). A
 * finalized one records each spec file's SHA-256 as finalize does when it installs them (the grant checks it).
 */
function planOf(n, { finalized = true, specLines = 1 } = {}) {
  const rnd = rng(7);
  const roles = Array.from({ length: n }, (_, i) => role(i, n, rnd));
  if (!finalized) for (const r of roles) for (const k of ["status", "attempts", "result", "directoryOverlaps"]) delete r[k];
  const sha256 = createHash("sha256").update(specText(specLines)).digest("hex");
  const verificationSpecs = SPECS.map((s) => (finalized ? { ...s, sha256 } : { ...s }));
  return { schemaVersion: 4, goal: `A ${n}-role plan`, roles, auxiliaryRoles: AUXILIARIES, verificationSpecs, progress: { completedRoles: [] } };
}

function memoryLines(n, seed = 42) {
  const now = Date.now();
  const rnd = rng(seed);
  const pick = () => WORDS[Math.floor(rnd() * WORDS.length)];
  const lines = [];
  for (let i = 0; i < n; i++) {
    const ts = new Date(now - Math.floor(rnd() * 365) * 86_400_000).toISOString().slice(0, 19) + "Z";
    lines.push(JSON.stringify({
      id: `m-${i}`, timestamp: ts, category: CATS[i % 6], keywords: [pick(), pick(), pick()],
      content: `When working on the ${pick()} ${pick()} module, check the ${pick()} ${pick()} first (${i})`,
      source: "bench", goal_context: "", importance: 1 + (i % 10), usage_count: 0,
    }));
  }
  return lines.join("\n") + "\n";
}

function reflectionLines(n) {
  const lines = [];
  for (let i = 0; i < n; i++) {
    lines.push(JSON.stringify({
      id: `r-${i}`, timestamp: new Date(Date.now() - i * 3_600_000).toISOString().slice(0, 19) + "Z",
      skill: ["design", "execute", "recon"][i % 3], goal: `goal ${i}`, outcome: "completed", goalAchieved: i % 4 !== 0,
      evaluation: { whatWorked: ["a"], whatFailed: [], doNextTime: ["b"] },
    }));
  }
  return lines.join("\n") + "\n";
}

/**
 * A skill's history: runs of execute mostly, each with what failed and what to do next in the words a lead writes
 * (a few recurring causes in varied wording, and one-off causes naming their own files and roles), so that failure
 * patterns group as in a real project rather than all alike or all apart.
 */
function historyLines(n, seed = 11) {
  const rnd = rng(seed);
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  const w = () => pick(WORDS);
  const part = () => `part${Math.floor(rnd() * Math.max(10, n / 4))}`;
  const causes = [
    () => `acceptance check for ${part()} needed a ${w()} database the worker could not start`,
    () => `the ${w()} ${w()} test timed out after ${Math.floor(rnd() * 90) + 10} seconds in ${part()}`,
    () => `worker edited src/${part()}/${w()}.ts outside its scope`,
    () => `${w()} migration for ${part()} broke the ${w()} schema`,
    () => `lint failed on ${part()}: unused ${w()} import`,
    () => `role ${part()} retried three times on a flaky ${w()} check`,
  ];
  const advice = [
    () => `start the ${w()} service before running checks for ${part()}`,
    () => `give ${part()} a narrower scope than src/${w()}`,
    () => `pin the ${w()} version before the ${w()} step`,
  ];
  const outcomes = ["completed", "completed", "partial", "failed", "aborted"];
  const lines = [];
  const t0 = Date.now() - n * 3_600_000;
  for (let i = 0; i < n; i++) {
    const failed = Array.from({ length: Math.floor(rnd() * 3) }, () => pick(causes)());
    const next = Array.from({ length: Math.floor(rnd() * 2) + 1 }, () => pick(advice)());
    lines.push(JSON.stringify({
      id: `r-${i}`, timestamp: new Date(t0 + i * 3_600_000).toISOString().slice(0, 19) + "Z",
      skill: i % 5 ? "execute" : pick(["design", "recon", "improve"]), goal: `goal ${i}: ${w()} ${w()}`, outcome: pick(outcomes), goalAchieved: rnd() < 0.6,
      evaluation: { whatWorked: [`the ${w()} step`], whatFailed: failed, doNextTime: next },
    }));
  }
  return lines.join("\n") + "\n";
}

/** memory-add argument lists, another learning at each call (so none is a duplicate), the same from run to run. */
function learnings(seed, name) {
  let adds = 0;
  return () => {
    const rnd = rng(seed + adds++);
    const w = () => WORDS[Math.floor(rnd() * WORDS.length)];
    return ["memory-add", "--category", CATS[adds % 6], "--keywords", `${w()},${w()}`, "--importance", "6",
      "--content", `${name} learning ${adds}: prefer the ${w()} ${w()} path over the ${w()} one when ${w()} fails (${adds * 7919})`];
  };
}

function project(dir, files) {
  mkdirSync(join(dir, ".design"), { recursive: true });
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
  // A plan's spec files exist (one test each unless given), as design installs them beside it.
  const specs = Object.values(files).some((c) => typeof c === "object" && Array.isArray(c.verificationSpecs));
  if (specs) for (const [rel, text] of Object.entries(specFiles())) if (!(rel in files)) project(dir, { [rel]: text });
  return dir;
}

// ---------------------------------------------------------------- groups

const tmp = mkdtempSync(join(tmpdir(), "do-bench-"));
const helper = (...args) => [process.execPath, PLAN_JS, ...args];
const ok = (r) => r.status === 0 && JSON.parse(r.stdout).ok === true;
const refused = (r) => r.status === 1 && JSON.parse(r.stdout).ok === false;

function original(label, args, cwd) {
  if (ORIGINAL) return { originalArgv: ["python3", ORIGINAL, ...args], originalCwd: cwd };
  return { original: ISSUE_ORIGINAL_MS[label] };
}

function withOriginal(cases) {
  if (!ORIGINAL) return cases;
  // The original's runs are measured in their own interleaved rounds, on copies of the same fixtures.
  const live = measure(cases.filter((c) => c.originalArgv).map((c) => ({ label: c.label, argv: c.originalArgv, cwd: c.originalCwd, before: c.before })));
  for (const r of live.rows) {
    const c = cases.find((x) => x.label === r.label);
    c.original = r.wall;
    c.originalLive = true;
  }
  return cases;
}

/**
 * The cheap calls of issues 13 and 33 on fixtures of their own (folders named with `prefix`), each case ready for
 * measure(); `addArgs()` gives a fresh memory-add argument list (another learning each time, so none is a duplicate).
 */
function cheapCases(prefix) {
  const p40 = project(join(tmp, `${prefix}p40`), { ".design/plan.json": planOf(40) });
  const p8 = project(join(tmp, `${prefix}p8`), { ".design/plan.json": planOf(8, { finalized: false }) });
  const p300f = project(join(tmp, `${prefix}p300f`), { ".design/plan.json": planOf(300, { finalized: false }) });
  const mem = memoryLines(20_000);
  const m20 = project(join(tmp, `${prefix}m20`), { ".design/memory.jsonl": mem });
  const m20cold = project(join(tmp, `${prefix}m20cold`), { ".design/memory.jsonl": mem });
  const typical = project(join(tmp, `${prefix}typical`), {
    ".design/plan.json": planOf(40),
    ".design/memory.jsonl": memoryLines(2_000, 9),
    ".design/reflection.jsonl": reflectionLines(100),
    ".design/handoff.md": "# Handoff\n\nAll roles done.\n",
  });
  execFileSync(process.execPath, [PLAN_JS, "run-start", "execute", "--phases", PHASES.execute, "--goal", "bench"], { cwd: typical });
  const starts = project(join(tmp, `${prefix}starts`), { ".design/memory.jsonl": "" });
  const addArgs = learnings(1000, "Bench");
  const addCase = (label, cwd, before, extra = {}) => {
    const c = { label, cwd, check: ok, ...extra, before: () => { before?.(); c.argv = helper(...addArgs()); } };
    return c;
  };
  const cases = [
    { label: "status (40 roles)", argv: helper("status"), cwd: p40, check: ok, ...original("status (40 roles)", ["status"], p40) },
    { label: "update-status (40 roles)", argv: helper("update-status"), cwd: p40, input: '[{"roleIndex":0,"result":"bench"}]', check: ok },
    { label: "finalize (8 roles)", argv: helper("finalize"), cwd: p8, check: ok, ...original("finalize (8 roles)", ["finalize"], p8) },
    { label: "finalize (300 roles, refused)", argv: helper("finalize"), cwd: p300f, check: refused, ...original("finalize (300 roles, refused)", ["finalize"], p300f) },
    addCase("memory-add (20k)", m20, undefined, original("memory-add (20k)", [], m20)),
    addCase("memory-add (20k, no index yet)", m20cold, () => {
      writeFileSync(join(m20cold, ".design/memory.jsonl"), mem);
      rmSync(join(m20cold, ".design/.memory.jsonl.index"), { force: true });
    }, original("memory-add (20k, no index yet)", [], m20cold)),
    { label: "run-checkpoint", argv: helper("run-checkpoint", "execute", "--phase", "pre-flight", "--outputs", ".design/plan.json"), cwd: typical, check: ok },
    { label: "preflight (plan 40, 2k memories)", argv: helper("preflight", "execute"), cwd: typical, check: ok },
    // A fresh run each time (the previous state removed outside the timing): hashes the goal, draws a run id.
    { label: "run-start", argv: helper("run-start", "design", "--phases", PHASES.design, "--goal", "bench"), cwd: starts, check: ok,
      before: () => rmSync(join(starts, ".design/run-design.json"), { force: true }) },
  ];
  cases.addArgs = addArgs;
  return cases;
}

try {
  console.log(`do helper bench · node ${process.version} · ${cpus().length} cores · load ${loadavg().map((x) => x.toFixed(2)).join(" ")} · ${RUNS} rounds`);
  console.log(ORIGINAL
    ? `original: ${ORIGINAL} (python3), timed live`
    : "original: not on this machine (no plan.py found; set DO_BENCH_ORIGINAL): the '(issue)' figures are issue 13's measurements of it " +
      `on this machine when bare node took ${ISSUE_BARE_NODE_MS} ms; '/ original' compares them with (this call / bare node now) x ${ISSUE_BARE_NODE_MS} ms`);

  if (want("cheap")) {
    const cases = cheapCases("c");
    // The original's memory-add needs the same arguments as ours in the same round.
    if (ORIGINAL) cases[4].originalArgv = ["python3", ORIGINAL, ...cases.addArgs()];
    if (ORIGINAL) cases[5].originalArgv = ["python3", ORIGINAL, ...cases.addArgs()];
    const res = measure(withOriginal(cases));
    table("cheap calls (target: at most 1.20x bare node, wall (issue 33; issue 13 asked 1.30x); memory-add with no index yet: at most 1.00x the original)", res, (r, bare) => {
      if (r.label.includes("refused")) return "-";
      if (r.label.includes("no index")) {
        const x = r.originalLive ? r.wall / r.original : quiet(r, bare) / r.original;
        return `<= 1.00x original ${x <= 1 ? "met" : "MISSED"}`;
      }
      return against(1.2, r, bare);
    });
  }

  if (want("compile")) compileShare(cheapCases("k"));

  if (want("heavy")) {
    const p300 = project(join(tmp, "h300"), { ".design/plan.json": planOf(300) });
    const m20 = project(join(tmp, "h20"), { ".design/memory.jsonl": memoryLines(20_000) });
    const search = ["memory-search", "--goal", "retry backoff for the queue worker", "--keywords", "queue,retry", "--limit", "5"];
    const cases = [
      { label: "overlap-matrix (300 roles)", argv: helper("overlap-matrix"), cwd: p300, check: ok, ...original("overlap-matrix (300 roles)", ["overlap-matrix"], p300) },
      { label: "memory-search (20k)", argv: helper(...search), cwd: m20, check: ok, ...original("memory-search (20k)", search, m20) },
    ];
    const res = measure(withOriginal(cases));
    table("heavy calls (target: at most 0.35x the original, wall)", res, (r) => {
      if (Number.isNaN(r.original)) return "-";
      const x = r.originalLive ? r.wall / r.original : quiet(r, res.bare) / r.original;
      return x <= 0.35 ? "<= 0.35 met" : "<= 0.35 MISSED";
    });
  }

  if (want("curve")) {
    console.log("\ngrowth with the work (wall and cpu medians; the increment over the smallest size per unit of work)");
    const search = ["memory-search", "--goal", "retry backoff for the queue worker", "--keywords", "queue,retry", "--limit", "5"];
    const curve = (label, sizes, make, argv, unit) => {
      const cases = sizes.map((n) => ({ label: `${label} ${n}`, argv, cwd: make(n), check: ok, n }));
      const runs = Math.max(5, Math.floor(RUNS / 2));
      const { bare, rows } = measure(cases, runs, ENVS.slice(0, 1));
      const [a] = rows;
      for (const r of rows) {
        const slope = r === a ? "" : ` · +${(((r.cpu - a.cpu) / (r.n - a.n)) * unit).toFixed(2)} ms cpu per ${unit} ${label.includes("search") ? "entries" : "roles"}`;
        console.log(`  ${r.label.padEnd(28)} ${ms(r.wall).padStart(8)} wall ${ms(r.cpu).padStart(8)} cpu  (node -e 0: ${ms(bare.wall)})${slope}`);
      }
    };
    curve("memory-search", [2_000, 20_000, 200_000], (n) => project(join(tmp, `c${n}`), { ".design/memory.jsonl": memoryLines(n) }), helper(...search), 1000);
    curve("overlap-matrix", [300, 3_000, 30_000], (n) => project(join(tmp, `o${n}`), { ".design/plan.json": planOf(n) }), helper("overlap-matrix"), 1000);
  }

  if (want("selftest")) {
    // self-test starts its children without NODE_EXTRA_CA_CERTS itself; the parent runs in each environment.
    for (const [e, env] of ENVS) {
      const runs = [];
      const n = Number(process.env.BENCH_SELFTEST_RUNS ?? 5);
      for (let i = 0; i < n; i++) {
        const r = once(helper("self-test"), { cwd: tmp, env });
        if (!ok(r)) throw new Error(`self-test failed: ${r.stdout.slice(0, 500)}`);
        runs.push(r);
      }
      const out = JSON.parse(runs[0].stdout);
      const wall = median(runs.map((r) => r.wall));
      console.log(`\nself-test (${e} env): ${ms(wall)} wall median of ${n} (min ${ms(Math.min(...runs.map((r) => r.wall)))}, max ${ms(Math.max(...runs.map((r) => r.wall)))}), ` +
        `${ms(median(runs.map((r) => r.tree)))} cpu with its children (${ms(median(runs.map((r) => r.cpu)))} its own), ${out.passed} passed, ${out.failed} failed, ${out.skipped} skipped ` +
        `(target < 3000 ms: ${wall < 3000 ? "met" : "MISSED"}; load now ${loadavg()[0].toFixed(2)})`);
    }
  }

  if (want("quality")) {
    // What memory-add's gates and memory-search decide on the labelled sets of test/fixtures/memory/ (README there),
    // through the built helper's run(): the duplicate gate on pairs (add one text, then the other in the same
    // category), the session-specific gate on single texts, and search on queries with the memories expected first.
    const { run } = createRequire(import.meta.url)(PLAN_JS);
    const FIX = join(ROOT, "test/fixtures/memory");
    const call = async (dir, argv) => (await run(argv, { cwd: dir, now: () => Date.parse("2026-01-02T00:00:00Z"), stdin: async () => "" })).output;
    const fresh = (name) => {
      const dir = join(tmp, name);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(join(dir, ".design"), { recursive: true });
      return dir;
    };
    const pct = (x) => `${(100 * x).toFixed(1)} %`;
    // The keywords a curator gives a learning: its own words (here its three longest), never a placeholder, which
    // memory-add's keyword gate refuses before the gate a set measures would speak.
    const keywordsOf = (text) => [...new Set(text.match(/[\p{L}\p{N}_-]+/gu) ?? [])].filter((w) => w.replace(/[_-]/g, "").length >= 2).sort((a, b) => b.length - a.length).slice(0, 3).join(",");
    const order = ["tune", "holdout", "blind", "all"];
    const bySplit = ([a], [b]) => order.indexOf(a) - order.indexOf(b);

    const pairs = JSON.parse(readFileSync(join(FIX, "pairs.json"), "utf8"));
    const splits = new Map();
    for (const [k, pair] of pairs.entries()) {
      const dir = fresh(`pair-${k}`);
      const first = await call(dir, ["memory-add", "--category", "pattern", "--keywords", keywordsOf(pair.a), "--content", pair.a]);
      if (!first.ok) throw new Error(`pair ${pair.id}: the first text was refused: ${first.error}`);
      const second = await call(dir, ["memory-add", "--category", "pattern", "--keywords", keywordsOf(pair.b), "--content", pair.b]);
      const refused = second.ok === false && second.gate === "duplicate";
      if (second.ok === false && !refused) throw new Error(`pair ${pair.id}: refused by another gate: ${second.error}`);
      for (const split of [pair.split, "all"]) {
        const c = splits.get(split) ?? { tp: 0, fp: 0, fn: 0, tn: 0, wrong: [] };
        if (refused && pair.duplicate) c.tp++;
        else if (refused) c.fp++, split === "all" && c.wrong.push(`${pair.id} refused`);
        else if (pair.duplicate) c.fn++, split === "all" && c.wrong.push(`${pair.id} stored`);
        else c.tn++;
        splits.set(split, c);
      }
    }
    console.log(`\nduplicate gate on ${pairs.length} labelled pairs (test/fixtures/memory/pairs.json): precision = refused pairs that are duplicates, recall = duplicates refused`);
    for (const [split, c] of [...splits].sort(bySplit)) {
      console.log(`  ${split.padEnd(8)} ${String(c.tp + c.fp + c.fn + c.tn).padStart(3)} pairs: precision ${pct(c.tp / (c.tp + c.fp))} (${c.tp}/${c.tp + c.fp}), recall ${pct(c.tp / (c.tp + c.fn))} (${c.tp}/${c.tp + c.fn})` +
        (split === "all" && c.wrong.length ? ` · wrong: ${c.wrong.join(", ")}` : ""));
    }

    const items = JSON.parse(readFileSync(join(FIX, "session-specific.json"), "utf8"));
    const gate = new Map();
    const dir = fresh("session");
    for (const item of items) {
      const out = await call(dir, ["memory-add", "--category", "convention", "--keywords", keywordsOf(item.text), "--content", item.text]);
      const refused = out.ok === false && out.gate === "session-specific";
      for (const split of [item.split, "all"]) {
        const c = gate.get(split) ?? { right: 0, n: 0, caught: 0, session: 0, kept: 0, durable: 0, wrong: [] };
        c.n++;
        if (refused === item.sessionSpecific) c.right++;
        else if (split === "all") c.wrong.push(`${item.id} ${refused ? "refused" : "stored"}`);
        if (item.sessionSpecific) (c.session++, refused && c.caught++);
        else (c.durable++, !refused && c.kept++);
        gate.set(split, c);
      }
      if (out.ok) rmSync(join(dir, ".design/memory.jsonl"), { force: true });
    }
    console.log(`\nsession-specific gate on ${items.length} labelled texts (test/fixtures/memory/session-specific.json; "blind": written after the rules, see its README)`);
    for (const [split, c] of [...gate].sort(bySplit)) {
      console.log(`  ${split.padEnd(8)} accuracy ${pct(c.right / c.n)} (${c.right}/${c.n}): session-specific refused ${c.caught}/${c.session}, durable kept ${c.kept}/${c.durable}` +
        (split === "all" && c.wrong.length ? ` · wrong: ${c.wrong.join(", ")}` : ""));
    }

    const search = JSON.parse(readFileSync(join(FIX, "search.json"), "utf8"));
    const sdir = fresh("search");
    writeFileSync(join(sdir, ".design/memory.jsonl"), search.memories.map((m) =>
      JSON.stringify({ ...m, timestamp: "2026-01-01T00:00:00Z", source: "fixture", goal_context: "", importance: 5, usage_count: 0 })).join("\n") + "\n");
    let hits = 0;
    const misses = [];
    for (const q of search.queries) {
      const argv = ["memory-search", "--limit", "3", ...(q.goal ? ["--goal", q.goal] : []), ...(q.keywords ? ["--keywords", q.keywords] : [])];
      const ids = (await call(sdir, argv)).memories.map((m) => m.id);
      const ok = q.expect.length === 0 ? ids.length === 0 : q.expect.every((e) => ids.includes(e));
      if (ok) hits++;
      else misses.push(`"${q.goal || q.keywords}" gave ${ids.join(",") || "nothing"}`);
    }
    let own = 0;
    let keywords = 0;
    for (const m of search.memories) {
      for (const k of m.keywords) {
        keywords++;
        if ((await call(sdir, ["memory-search", "--keywords", k, "--limit", "100"])).memories.some((x) => x.id === m.id)) own++;
      }
    }
    console.log(`\nmemory-search on ${search.memories.length} memories (test/fixtures/memory/search.json): ${hits}/${search.queries.length} queries put the expected memories in the first 3 ` +
      `(or return nothing for a stopword-only query); ${own}/${keywords} keywords find their own memory` + (misses.length ? ` · missed: ${misses.join("; ")}` : ""));
  }

  if (want("hook")) {
    // A project in an execute run with a grant the user approved (grant-approve.js, the key in a scratch Claude
    // config folder), 40 roles, two verification spec files; the CLI gives the hook CLAUDE_PROJECT_DIR.
    const hp = project(join(tmp, "hook"), { ".design/plan.json": planOf(40, { specLines: 200 }), ...specFiles(200) });
    // The helper call's stdin file: the hook approves `< file` only for an existing regular file.
    mkdirSync(join(hp, ".design/tmp"), { recursive: true });
    writeFileSync(join(hp, ".design/tmp/updates.json"), JSON.stringify([{ roleIndex: 0, status: "in_progress" }]));
    const config = join(tmp, "hook-config");
    const env = { CLAUDE_PROJECT_DIR: hp, CLAUDE_CONFIG_DIR: config };
    execFileSync(process.execPath, [PLAN_JS, "run-start", "execute", "--phases", PHASES.execute, "--goal", "bench"], { cwd: hp });
    const approved = JSON.parse(execFileSync(process.execPath, [join(ROOT, "skills/execute/scripts/grant-approve.js"), ".design/plan.json"], { cwd: hp, env: { ...process.env, ...env }, encoding: "utf8" }));
    if (approved.recorded !== true) throw new Error(`hook bench: no grant recorded: ${JSON.stringify(approved).slice(0, 300)}`);
    // A worker's call: its name is in the CLI's sidecar next to the session's transcript.
    const transcript = join(tmp, "hook-home", "session.jsonl");
    mkdirSync(join(tmp, "hook-home", "session", "subagents"), { recursive: true });
    writeFileSync(transcript, "");
    writeFileSync(join(tmp, "hook-home", "session", "subagents", "agent-w1.meta.json"), JSON.stringify({ agentType: "general-purpose", name: "role-0" }));
    const event = (tool_name, tool_input, extra = {}) =>
      JSON.stringify({ session_id: "bench", transcript_path: transcript, cwd: hp, permission_mode: "default", hook_event_name: "PreToolUse", tool_name, tool_input, ...extra });
    const allow = (r) => r.status === 0 && r.stdout.includes('"allow"');
    const none = (r) => r.status === 0 && r.stdout === "";
    // The hook's record of a verified grant (src/lib/grant/grant-cache.ts) lives beside the key: a "cold" case removes it
    // first (the call verifies the grant in full, loading dist/permit-verify.js and node:crypto, and writes it anew);
    // the others find the record the call before them wrote ("record").
    const keyDir = join(config, "do");
    const dropRecords = () => {
      for (const n of readdirSync(keyDir)) if (n.startsWith("grant-cache-")) rmSync(join(keyDir, n));
    };
    const leadCheck = event("Bash", { command: "npm test -- part0", description: "check" });
    // The Edit tool changes a file that exists.
    mkdirSync(join(hp, "src/m0/part0"), { recursive: true });
    writeFileSync(join(hp, "src/m0/part0/x.ts"), "export const a = 1;\n");
    const workerEdit = event("Edit", { file_path: join(hp, "src/m0/part0/x.ts"), old_string: "a", new_string: "b" }, { agent_id: "w1" });
    const cases = [
      { label: "helper call (allow-list)", input: event("Bash", { command: `node "${ROOT}/skills/execute/scripts/plan.js" update-status .design/plan.json < .design/tmp/updates.json`, description: "Mark role 0 in progress" }), check: allow },
      { label: ".design write (allow-list)", input: event("Write", { file_path: join(hp, ".design/worker-role-0.json"), content: "{}" }), check: allow },
      { label: "granted check, lead, cold (full verification)", input: leadCheck, check: allow, before: dropRecords },
      { label: "granted check, lead (record)", input: leadCheck, check: allow },
      { label: "granted check, worker (record + sidecar)", input: event("Bash", { command: "npm test -- part0", description: "check" }, { agent_id: "w1" }), check: allow },
      { label: "granted Edit, worker, cold (full verification)", input: workerEdit, check: allow, before: dropRecords },
      { label: "granted Edit, worker (record + sidecar)", input: workerEdit, check: allow },
      { label: "other command (grant read, no decision)", input: event("Bash", { command: "npm test -- part0; curl x", description: "x" }), check: none },
    ].map((c) => ({ ...c, label: `permit.js: ${c.label}`, argv: [process.execPath, PERMIT_JS], cwd: hp, env }));
    const res = measure(cases);
    table("hook: dist/permit.js per call (target: at most 1.2x bare node)", res, (r, bare) => against(1.2, r, bare));
  }

  if (want("scale")) {
    // Cost against the size of a project's history: plans of 100-300 roles, memory files of 10,000-50,000 entries,
    // reflection files of 10,000-50,000 runs (issue 33). Each call runs at every size, the sizes interleaved round
    // by round, medians of the child's own CPU time (the load figure disturbs it least) and wall time; the slope is
    // log(cost at the largest size / cost at the smallest) / log(largest / smallest): 1 is linear. "excess" is the
    // same slope of the cost above bare node's start. The original runs the calls it has on the same fixtures.
    const runs = Number(process.env.BENCH_SCALE_RUNS ?? 3);
    // A call that takes longer than this (the quadratic ones before issue 33) is stopped and shown as "timeout".
    const LIMIT = Number(process.env.BENCH_SCALE_TIMEOUT ?? 60) * 1000;
    const dims = [
      { name: "plan", unit: "roles", sizes: [100, 200, 300] },
      { name: "memory", unit: "memories", sizes: [10_000, 20_000, 50_000] },
      { name: "reflection", unit: "reflections", sizes: [10_000, 20_000, 50_000] },
    ].filter((d) => !process.env.BENCH_SCALE_DIMS || process.env.BENCH_SCALE_DIMS.split(",").includes(d.name));
    const search = ["memory-search", "--goal", "retry backoff for the queue worker", "--keywords", "queue,retry", "--limit", "5"];
    // A plan whose first roles are pending with their dependencies done, so `next` hands out starts (and reads memory).
    const startable = (n) => {
      const plan = planOf(n);
      plan.roles.forEach((r, i) => {
        r.status = i < 8 ? "pending" : "completed";
        r.scope.dependencies = i < 8 ? [] : r.scope.dependencies;
      });
      plan.progress.completedRoles = plan.roles.flatMap((r, i) => (r.status === "completed" ? [i] : []));
      return plan;
    };
    const sized = (dim, n) => ({
      plan: dim === "plan" ? n : 40,
      memories: dim === "memory" ? n : 2_000,
      reflections: dim === "reflection" ? n : 1_000,
    });
    const fixtures = new Map();
    let appended = 0;
    const fixture = (dim, n, kind) => {
      const key = `${dim}-${n}-${kind}`;
      if (fixtures.has(key)) return fixtures.get(key);
      const s = sized(dim, n);
      const dir = join(tmp, `scale-${key}`);
      const files = {
        ".design/memory.jsonl": memoryLines(s.memories),
        ".design/reflection.jsonl": historyLines(s.reflections),
        ".design/plan.json": kind === "draft" ? planOf(s.plan, { finalized: false }) : kind === "next" || kind === "next-grow" ? startable(s.plan) : planOf(s.plan),
      };
      if (kind === "draft") {
        mkdirSync(join(dir, ".design/draft"), { recursive: true });
        files[".design/draft/plan.json"] = files[".design/plan.json"];
        delete files[".design/plan.json"];
      }
      project(dir, files);
      const saved = Object.fromEntries(Object.keys(files).map((rel) => [rel, readFileSync(join(dir, rel))]));
      // Only what a call changed is put back: a memory file rewritten for nothing would leave `next`'s ranking index
      // (.design/.memory.jsonl.terms) stale on every run. `how`: "terms" drops the index too (the full scan and its
      // rebuild), "append" appends a memory (the index extended).
      const reset = (how) => {
        for (const [rel, buf] of Object.entries(saved)) {
          if (how === "append" && rel === ".design/memory.jsonl") continue; // it only grows
          const path = join(dir, rel);
          let same = false;
          try { same = readFileSync(path).equals(buf); } catch {}
          if (!same) writeFileSync(path, buf);
        }
        rmSync(join(dir, ".design/.memory.jsonl.index"), { force: true });
        if (how === "terms") rmSync(join(dir, ".design/.memory.jsonl.terms"), { force: true });
        // As memory-add leaves it: one line more than the ranking index covers.
        if (how === "append") appendFileSync(join(dir, ".design/memory.jsonl"), memoryLines(1, ++appended).replace('"m-0"', `"m-appended-${appended}"`));
      };
      fixtures.set(key, { dir, reset });
      return fixtures.get(key);
    };
    const addArgs = learnings(5000, "Scale");
    // Per dimension: label, the helper's arguments, the fixture kind, whether the original has the call, and how the
    // fixture is put back before each run (writers).
    const calls = {
      plan: [
        ["status", ["status"], "plan", ["status"]],
        ["overlap-matrix", ["overlap-matrix"], "plan", ["overlap-matrix"]],
        ["worker-pool", ["worker-pool"], "plan", ["worker-pool"]],
        ["summary", ["summary"], "plan", ["summary"]],
        ["tasklist-data", ["tasklist-data"], "plan", ["tasklist-data"]],
        ["plan-view", ["plan-view"], "plan"],
        ["update-status", ["update-status"], "plan", null, '[{"roleIndex":0,"result":"bench"}]'],
        ["next (8 starts)", ["next"], "next", null, undefined, true],
        ["grant (proposal)", ["grant", ".design/plan.json"], "plan"],
        ["workflow", ["workflow"], "next", null, undefined, true],
        ["report", ["report"], "plan", null, undefined, true],
        ["finalize (draft, refused: over 8 roles)", ["finalize", ".design/draft/plan.json"], "draft", null, undefined, true],
      ],
      memory: [
        ["memory-add (no index yet)", null, "plan", "add", undefined, true],
        ["memory-add (index fresh)", null, "plan", "add"],
        ["memory-search", search, "plan", search],
        ["next (8 starts)", ["next"], "next", null, undefined, true],
        ["next (8 starts, no ranking index)", ["next"], "next", null, undefined, "terms"],
        ["next (8 starts, a memory appended since)", ["next"], "next-grow", null, undefined, "append"],
        ["workflow", ["workflow"], "next", null, undefined, true],
        ["workflow (no ranking index)", ["workflow"], "next", null, undefined, "terms"],
        ["preflight", ["preflight", "execute"], "plan"],
        ["health-check", ["health-check"], "plan"],
        ["reflect-metrics", ["reflect-metrics"], "plan"],
      ],
      reflection: [
        ["reflect-metrics", ["reflect-metrics"], "plan"],
        ["reflection-search", ["reflection-search", "--skill", "execute"], "plan", ["reflection-search", "--skill", "execute"]],
        ["preflight", ["preflight", "execute"], "plan"],
        ["plan-health-summary", ["plan-health-summary"], "plan"],
        ["plan-view", ["plan-view"], "plan"],
        ["health-check", ["health-check"], "plan"],
        ["report", ["report"], "plan", null, undefined, true],
      ],
    };
    const only = process.env.BENCH_SCALE_CALLS ? process.env.BENCH_SCALE_CALLS.split(",") : null;
    const results = [];
    for (const d of dims) {
      const cases = [];
      for (const [label, argv, kind, orig, input, resets] of calls[d.name]) {
        if (only && !only.some((o) => label.startsWith(o))) continue;
        for (const n of d.sizes) {
          const f = fixture(d.name, n, kind);
          const isAdd = orig === "add";
          const c = { label: `${label} @${n}`, call: label, n, cwd: f.dir, input, timeout: LIMIT, check: (r) => r.status === 0 || r.status === 1 };
          c.before = () => {
            if (resets) f.reset(resets);
            if (isAdd) c.argv = helper(...addArgs());
          };
          if (!isAdd) c.argv = helper(...argv);
          cases.push(c);
          if (ORIGINAL && orig) {
            const o = { label: `original ${label} @${n}`, call: label, n, original: true, cwd: f.dir, input, timeout: LIMIT, check: c.check };
            o.before = () => {
              if (resets) f.reset();
              if (isAdd) o.argv = ["python3", ORIGINAL, ...addArgs()];
            };
            if (!isAdd) o.argv = ["python3", ORIGINAL, ...orig];
            cases.push(o);
          }
        }
      }
      if (!cases.length) continue;
      // A first run of each (warms the page cache) says what each call answered: a refusal is timed too, but named.
      for (const c of cases) {
        c.before?.();
        const r = once(c.argv, { cwd: c.cwd, input: c.input, timeout: LIMIT });
        if (r.timedOut) {
          c.timedOut = true;
          console.log(`  note: ${c.label} ran over ${LIMIT / 1000} s (BENCH_SCALE_TIMEOUT): not timed further`);
          continue;
        }
        let answer = `exit ${r.status}`;
        try {
          const text = r.stdout.trim();
          let out;
          try { out = JSON.parse(text); } catch { out = JSON.parse(text.split("\n").pop()); }
          answer = out.ok ? "ok" : `refused ${out.code}: ${String(out.error).slice(0, 120)}`;
        } catch {}
        c.answer = answer;
        if (answer !== "ok") console.log(`  note: ${c.label} answered ${answer}`);
      }
      const res = measure(cases, runs, [["given", CA_SET ? ENV_STRICT : ENV_GIVEN]]);
      results.push({ d, res });
    }
    const slope = (a, b, na, nb) => (a > 0 && b > 0 && a !== Infinity ? Math.log(b / a) / Math.log(nb / na) : NaN);
    console.log(`\nscale: cost against the size of the plan, the memory file and the reflection file (${runs} rounds, medians; ` +
      `${CA_SET ? "strict environment, " : ""}cpu = the child's own; slope = log-log from the smallest to the largest size, target <= 1.2; ` +
      "nothing over 1000 ms; '/ orig' = cpu / the original's cpu at the same size)");
    for (const { d, res } of results) {
      const { bare, rows } = res;
      console.log(`\n${d.name} (${d.sizes.join(" / ")} ${d.unit}; plan 40, 2,000 memories, 1,000 reflections otherwise) · bare node ${ms(bare.wall)} wall, ${ms(bare.cpu)} cpu · load ${loadavg()[0].toFixed(2)}`);
      const head = ["call", ...d.sizes.map((n) => `cpu @${n}`), ...d.sizes.map((n) => `wall @${n}`), "slope", "excess slope", ...(ORIGINAL ? [...d.sizes.map((n) => `orig cpu @${n}`), "orig slope", ...d.sizes.map((n) => `/ orig @${n}`)] : []), "verdict"];
      const lines = [head];
      for (const call of [...new Set(rows.filter((r) => !r.original).map((r) => r.call))]) {
        const mine = d.sizes.map((n) => rows.find((r) => r.call === call && r.n === n && !r.original));
        const orig = d.sizes.map((n) => rows.find((r) => r.call === call && r.n === n && r.original));
        const [a, b] = [mine[0], mine[mine.length - 1]];
        const s = slope(a.cpu, b.cpu, a.n, b.n); // Infinity when the largest size timed out
        const ex = slope(a.cpu - bare.cpu, b.cpu - bare.cpu, a.n, b.n);
        const worst = Math.max(...mine.map((r) => r.cpu));
        const verdict = `${s <= 1.2 ? "slope met" : "slope MISSED"} · ${worst <= 1000 ? "<= 1 s met" : "<= 1 s MISSED"}`;
        const hasOrig = orig.every(Boolean);
        const os = hasOrig ? slope(orig[0].cpu, orig[orig.length - 1].cpu, orig[0].n, orig[orig.length - 1].n) : NaN;
        lines.push([call, ...mine.map((r) => ms(r.cpu)), ...mine.map((r) => ms(r.wall)), s.toFixed(2), Number.isNaN(ex) ? "n/a" : ex.toFixed(2),
          ...(ORIGINAL ? [...orig.map((r) => (r ? ms(r.cpu) : "-")), hasOrig ? os.toFixed(2) : "-", ...mine.map((r, i) => (orig[i] ? ratio(r.cpu, orig[i].cpu) : "-"))] : []),
          verdict]);
      }
      const widths = head.map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)));
      for (const l of lines) console.log("  " + l.map((c, i) => String(c).padEnd(widths[i])).join("  "));
    }
    if (!ORIGINAL) console.log("\n(the original: set DO_BENCH_ORIGINAL=/path/to/plan.py for its columns; its figures as measured are in bench/README.md)");
  }
} finally {
  if (process.env.BENCH_KEEP) console.log(`fixtures kept in ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
  rmSync(join(CPU_PRELOAD, ".."), { recursive: true, force: true });
}
