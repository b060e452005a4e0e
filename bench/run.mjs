// Benchmarks for the helper (run with `npm run bench`; not part of the test suite).
//  1. startup: `node dist/plan.js status` on a 40-role plan vs bare `node -e 0` (target: at most 1.3x).
//  2. memory-search over 2k / 20k / 200k entries (target: under 250 ms at 20k, linear growth).
//  3. hook: dist/permit.js (the PreToolUse hook, run on every Bash/Read/Write/Edit call of a session with the plugin
//     enabled) on a typical approved helper call, a Write, and an unrelated command, vs bare `node -e 0`.
// Wall-clock medians over interleaved runs, plus the child's peak RSS where /usr/bin/time exists.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const PLAN_JS = resolve("dist/plan.js");
const args = new Set(process.argv.slice(2));
const runs = Number(process.env.BENCH_RUNS ?? 40);

/** Wall-clock ms of one run, plus the child's CPU ms (user + sys) when /usr/bin/time exists: CPU time is far
 * less disturbed by other load on the machine than wall time. */
function time(cmd, argv, cwd) {
  const timed = existsSync("/usr/bin/time");
  const t0 = process.hrtime.bigint();
  const r = timed
    ? spawnSync("/usr/bin/time", ["-f", "%U %S", cmd, ...argv], { cwd, encoding: "utf8" })
    : spawnSync(cmd, argv, { cwd, encoding: "utf8" });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && argv[0] === PLAN_JS) throw new Error(`failed: ${argv.join(" ")}: ${r.stdout}`);
  let cpu = NaN;
  if (timed) {
    const [u, s] = r.stderr.trim().split("\n").pop().split(" ").map(Number);
    cpu = (u + s) * 1000;
  }
  return { wall, cpu };
}

function rssKiB(argv, cwd) {
  if (!existsSync("/usr/bin/time")) return null;
  const r = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, ...argv], { cwd, encoding: "utf8" });
  const kib = Number(r.stderr.trim().split("\n").pop());
  return Number.isFinite(kib) ? kib : null;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const stats = (runs) => ({ wall: median(runs.map((r) => r.wall)), cpu: median(runs.map((r) => r.cpu)) });
const fmt = ({ wall, cpu }) => `${wall.toFixed(1)} ms wall${Number.isNaN(cpu) ? "" : `, ${cpu.toFixed(0)} ms cpu`}`;

function plan40() {
  const roles = [];
  for (let i = 0; i < 40; i++) {
    roles.push({
      name: `role-${i}`,
      goal: `Implement part ${i} of the system with tests`,
      model: i % 3 ? "sonnet" : "opus",
      scope: { directories: [`src/part${i}/`], patterns: [`src/part${i}/**/*.ts`], dependencies: i ? [`role-${Math.floor(i / 2)}`] : [] },
      acceptanceCriteria: [{ criterion: `part ${i} works`, check: `npm test -- part${i}` }],
      constraints: ["Keep the public API stable"],
      status: ["pending", "completed", "in_progress"][i % 3],
      attempts: 0,
      result: null,
      directoryOverlaps: [],
    });
  }
  return { schemaVersion: 4, goal: "A forty-role plan", roles, progress: { completedRoles: [] } };
}

const WORDS = "api rest auth cache queue worker schema migration index parser lexer router store lock retry backoff metric trace log config deploy build test lint format bundle plugin skill memory reflection recon plan role graph overlap cycle depth token score rank".split(" ");
const CATS = ["pattern", "mistake", "convention", "approach", "failure", "procedure"];

function memoryFile(path, n) {
  const now = Date.now();
  const lines = [];
  let seed = 42;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pick = () => WORDS[Math.floor(rnd() * WORDS.length)];
  for (let i = 0; i < n; i++) {
    const ts = new Date(now - Math.floor(rnd() * 365) * 86_400_000).toISOString().slice(0, 19) + "Z";
    lines.push(JSON.stringify({
      id: `m-${i}`, timestamp: ts, category: CATS[i % 6], keywords: [pick(), pick(), pick()],
      content: `When working on the ${pick()} ${pick()} module, check the ${pick()} ${pick()} first (${i})`,
      source: "bench", goal_context: "", importance: 1 + (i % 10), usage_count: 0,
    }));
  }
  writeFileSync(path, lines.join("\n") + "\n");
}

const dir = mkdtempSync(join(tmpdir(), "do-bench-"));
try {
  if (!args.size || args.has("startup")) {
    mkdirSync(join(dir, ".design"));
    writeFileSync(join(dir, ".design/plan.json"), JSON.stringify(plan40(), null, 2));
    for (let i = 0; i < 5; i++) { time(process.execPath, ["-e", "0"], dir); time(process.execPath, [PLAN_JS, "status"], dir); }
    const bare = [];
    const status = [];
    for (let i = 0; i < runs; i++) {
      bare.push(time(process.execPath, ["-e", "0"], dir));
      status.push(time(process.execPath, [PLAN_JS, "status"], dir));
    }
    const b = stats(bare);
    const s = stats(status);
    const ratio = (x, y) => (Number.isNaN(x) || Number.isNaN(y) ? "n/a" : `${(x / y).toFixed(2)}x`);
    console.log(`startup (median of ${runs}): node -e 0 ${fmt(b)} | plan.js status (40 roles) ${fmt(s)}`);
    console.log(`  ratio: ${ratio(s.wall, b.wall)} wall, ${ratio(s.cpu, b.cpu)} cpu (target <= 1.30x)`);
    const rss = rssKiB([PLAN_JS, "status"], dir);
    if (rss) console.log(`  peak RSS of status: ${(rss / 1024).toFixed(1)} MiB (node -e 0: ${(rssKiB(["-e", "0"], dir) / 1024).toFixed(1)} MiB)`);
  }
  if (!args.size || args.has("memory")) {
    const rows = [];
    for (const n of [2_000, 20_000, 200_000]) {
      const file = join(dir, `memory-${n}.jsonl`);
      memoryFile(file, n);
      const argv = [PLAN_JS, "memory-search", file, "--goal", "retry backoff for the queue worker", "--keywords", "queue,retry", "--limit", "5"];
      time(process.execPath, argv, dir);
      const reps = n >= 200_000 ? 3 : 7;
      const st = stats(Array.from({ length: reps }, () => time(process.execPath, argv, dir)));
      rows.push({ n, ms: st.wall, st, rss: rssKiB(argv, dir) });
    }
    for (const r of rows) {
      console.log(`memory-search ${String(r.n).padStart(7)} entries: ${fmt(r.st)}${r.rss ? `, peak RSS ${(r.rss / 1024).toFixed(1)} MiB` : ""}`);
    }
    const [a, , c] = rows;
    console.log(`  per 1k entries: ${((c.ms - a.ms) / ((c.n - a.n) / 1000)).toFixed(2)} ms (2k→200k slope); 20k target < 250 ms`);
  }
  if (!args.size || args.has("hook")) {
    const PERMIT_JS = resolve("dist/permit.js");
    const root = resolve(".");
    mkdirSync(join(dir, ".design", "tmp"), { recursive: true });
    const event = (tool_name, tool_input) => JSON.stringify({ session_id: "bench", hook_event_name: "PreToolUse", cwd: dir, tool_name, tool_input });
    const cases = {
      "helper call (approved)": event("Bash", { command: `node "${root}/skills/design/scripts/plan.js" run-checkpoint design --phase experts --outputs ".design/expert-a.json,.design/expert-b.json" --decisions "experts: a, b"`, description: "checkpoint" }),
      "Write .design/tmp (approved)": event("Write", { file_path: join(dir, ".design/tmp/eval.json"), content: "{}" }),
      "ls -la (no decision)": event("Bash", { command: "ls -la", description: "list" }),
    };
    const timed = existsSync("/usr/bin/time");
    const timedInput = (argv, input) => {
      const t0 = process.hrtime.bigint();
      const r = timed
        ? spawnSync("/usr/bin/time", ["-f", "%U %S", process.execPath, ...argv], { cwd: dir, input, encoding: "utf8" })
        : spawnSync(process.execPath, argv, { cwd: dir, input, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`permit.js exited ${r.status}: ${r.stderr}`);
      const [u, s] = timed ? r.stderr.trim().split("\n").pop().split(" ").map(Number) : [NaN, NaN];
      return { wall: Number(process.hrtime.bigint() - t0) / 1e6, cpu: (u + s) * 1000, out: r.stdout };
    };
    for (let i = 0; i < 5; i++) timedInput(["-e", "0"], "");
    const bare = [];
    const per = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    for (let i = 0; i < runs; i++) {
      bare.push(timedInput(["-e", "0"], ""));
      for (const [k, input] of Object.entries(cases)) per[k].push(timedInput([PERMIT_JS], input));
    }
    const b = stats(bare);
    console.log(`hook (median of ${runs}): node -e 0 ${fmt(b)}`);
    for (const [k, rs] of Object.entries(per)) {
      const m = stats(rs);
      const allowed = rs[0].out.includes('"allow"');
      const cpu = Number.isNaN(m.cpu) ? "" : `, +${(m.cpu - b.cpu).toFixed(0)} ms cpu`;
      console.log(`  permit.js ${k}: ${fmt(m)} (+${(m.wall - b.wall).toFixed(1)} ms wall${cpu} over bare node)${allowed ? ", allowed" : ""}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
