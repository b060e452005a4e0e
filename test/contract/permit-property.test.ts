// Property: whatever helper call the permission hook approves, running it under bash in a scratch project with a
// scratch HOME changes nothing outside the project's .design/. Calls are generated from a seeded generator (set
// DO_PROPERTY_SEED to replay one): random subcommands of the skills, argument vectors mixing valid words with
// escapes (absolute, `..`, `~`, `$HOME`, symlinked folders and files, `--x=`, comma lists, unknown flags, shell
// syntax), and stdin forms. The hook alone must hold this, whatever the helper itself would do.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { permits, SKILL_COMMANDS, SKILLS, type Skill } from "../../src/hooks/permit.ts";
import { SPECS } from "../../src/hooks/specs.ts";

const ROOT = resolve(__dirname, "../..");
const SEED = Number(process.env.DO_PROPERTY_SEED ?? 20261124);
const CASES = 1500;
const MAX_RUNS = 20;

/** mulberry32: a small seeded PRNG, so a failing case can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let base: string;
let project: string;
let home: string;
let outside: string;

/** Every file, folder and link under base except the project's .design/ (by lstat: links are not followed). */
function snapshot(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (p === join(project, ".design")) continue;
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out.set(p, `link ${readlinkSync(p)}`);
      else if (st.isDirectory()) {
        out.set(p, `dir ${st.mode}`);
        walk(p);
      } else out.set(p, `file ${st.mode} ${createHash("sha256").update(readFileSync(p)).digest("hex")}`);
    }
  };
  walk(base);
  return out;
}

before(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "do-permit-prop-")));
  project = join(base, "project");
  home = join(base, "home");
  outside = join(base, "outside");
  for (const d of [".design/tmp", ".design/history", ".git/hooks", ".claude", "src"]) mkdirSync(join(project, d), { recursive: true });
  for (const d of [join(home, ".ssh"), join(home, ".bashrc.d"), outside]) mkdirSync(d, { recursive: true });
  writeFileSync(join(project, ".git/hooks/pre-commit"), "#!/bin/sh\n");
  writeFileSync(join(project, "Makefile"), "all:\n");
  writeFileSync(join(project, ".claude/settings.json"), "{}\n");
  writeFileSync(join(home, ".ssh/id_ed25519"), "key\n");
  writeFileSync(join(home, ".bashrc"), "# rc\n");
  writeFileSync(join(outside, "secret.json"), "{}\n");
  writeFileSync(join(project, ".design/plan.json"), JSON.stringify({ schemaVersion: 4, goal: "g", roles: [{ name: "api", goal: "x", scope: { directories: ["src"], patterns: [], dependencies: [] }, acceptanceCriteria: [{ criterion: "c", check: "true" }] }] }));
  writeFileSync(join(project, ".design/memory.jsonl"), "");
  writeFileSync(join(project, ".design/reflection.jsonl"), "");
  writeFileSync(join(project, ".design/tmp/eval.json"), JSON.stringify({ whatWorked: ["a"], whatFailed: [], doNextTime: ["b"] }));
  writeFileSync(join(project, ".design/tmp/updates.json"), JSON.stringify([{ roleIndex: 0, status: "in_progress" }]));
  symlinkSync(outside, join(project, ".design/out"));
  symlinkSync(join(outside, "secret.json"), join(project, ".design/secret.json"));
  symlinkSync(join(home, ".bashrc.d", "x"), join(project, ".design/dangling.json"));
  symlinkSync(home, join(project, "home-link"));
});

after(() => rmSync(base, { recursive: true, force: true }));

const INSIDE = [".design", ".design/plan.json", ".design/memory.jsonl", ".design/reflection.jsonl", ".design/tmp/eval.json", ".design/x.json", ".design/tmp", ".design/history", ".design/new/deep.json"];
const ESCAPES = [
  ".", "..", "../..", ".git", ".git/hooks/pre-commit", "Makefile", ".claude", ".claude/settings.json", "src",
  ".design/..", ".design/../Makefile", ".design/out", ".design/out/x.json", ".design/secret.json", ".design/dangling.json",
  "home-link/.ssh", "~", "~/.bashrc", "$HOME", "$HOME/.ssh", "${HOME}/.bashrc", "/", "", " ",
];
const TEXT = ["add rate limiting", "it's", "x", "a,b", "../docs", "$(touch pwn)", "`touch pwn`", "; touch pwn", "design", "execute", "pre-flight", "5", "-1", "--help"];
const WRAPS: Array<(s: string) => string> = [(s) => s, (s) => `"${s}"`, (s) => `'${s}'`, (s) => `'${s.replaceAll("'", "'\\''")}'`];

function generate(r: () => number): { command: string; skill: Skill | undefined } {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const skill = r() < 0.5 ? pick(SKILLS) : undefined;
  const owner = skill ?? pick(SKILLS);
  const sub = pick(SKILL_COMMANDS[owner]);
  const spec = SPECS[sub];
  const anyPath = () => (r() < 0.5 ? pick(INSIDE) : r() < 0.5 ? pick(ESCAPES) : join(r() < 0.5 ? project : base, pick([...INSIDE, ...ESCAPES]).replace(/^~.*|^\$.*/, "x")));
  const valueFor = (name: string, type: string, choices: string[]): string => {
    if (type === "i") return pick(["3", "0", "-1", "5x", "10"]);
    if (choices.length && r() < 0.7) return pick(choices);
    if (/path|dir|outputs|inputs/.test(name)) {
      return /outputs|inputs/.test(name) && r() < 0.5 ? Array.from({ length: 1 + Math.floor(r() * 3) }, anyPath).join(",") : anyPath();
    }
    if (name === "skill") return r() < 0.8 ? owner : pick(TEXT);
    return pick(TEXT);
  };
  const words: string[] = [];
  for (const [name] of spec.p) if (r() < 0.85) words.push(pick(WRAPS)(valueFor(name, "s", [])));
  for (const [name, [type, required, ...choices]] of Object.entries(spec.f)) {
    if (!required && r() < 0.5) continue;
    if (type === "b") words.push(`--${name}`);
    else if (r() < 0.3) words.push(`--${name}=${pick(WRAPS)(valueFor(name, type, choices))}`);
    else words.push(`--${name}`, pick(WRAPS)(valueFor(name, type, choices)));
  }
  if (r() < 0.1) words.push(pick(["--design-dir", "--evil", "-x", "--"]), pick(ESCAPES));
  if (r() < 0.05) words.push(pick(["; touch pwn", "| sh", "> ~/.bashrc", "&& touch pwn", "$(touch pwn)"]));
  // shuffle flags and positionals a little: the parser takes flags anywhere
  if (r() < 0.3) words.reverse();
  let command = `node "${ROOT}/skills/${owner}/scripts/plan.js" ${sub}${words.length ? " " + words.join(" ") : ""}`;
  if (spec.s) {
    command = r() < 0.5 ? `echo '[{"roleIndex": 0, "status": "in_progress"}]' | ${command}` : `${command} < ${pick([".design/tmp/updates.json", ".design/tmp/eval.json", ...ESCAPES.slice(0, 6)])}`;
  }
  return { command, skill };
}

describe("the hook's approvals, run under bash", () => {
  it("the snapshot sees a change outside .design/ (control)", () => {
    const before = snapshot();
    spawnSync("bash", ["-c", "echo x >> Makefile; touch .design/ok; ln -sf elsewhere .design/../link"], { cwd: project });
    const now = snapshot();
    assert.notDeepEqual(now, before);
    rmSync(join(project, "link"));
    writeFileSync(join(project, "Makefile"), "all:\n");
    rmSync(join(project, ".design/ok"));
    assert.deepEqual(snapshot(), before);
  });

  it(`change nothing outside .design/ (seed ${SEED}, ${CASES} generated calls)`, () => {
    const r = rng(SEED);
    const before = snapshot();
    let approved = 0;
    let ran = 0;
    for (let i = 0; i < CASES; i++) {
      const { command, skill } = generate(r);
      if (!permits({ tool_name: "Bash", tool_input: { command }, cwd: project }, ROOT, skill)) continue;
      approved++;
      if (ran >= MAX_RUNS) continue;
      ran++;
      const res = spawnSync("bash", ["-c", command], {
        cwd: project,
        env: { PATH: process.env.PATH, HOME: home, LANG: "C.UTF-8" },
        encoding: "utf8",
        timeout: 30_000,
      });
      assert.equal(res.error, undefined, `${command}: ${res.error}`);
      const now = snapshot();
      const changed = [...new Set([...before.keys(), ...now.keys()])].filter((k) => before.get(k) !== now.get(k));
      assert.deepEqual(changed, [], `case ${i} (seed ${SEED}) changed files outside .design/: ${command}\n${res.stdout}`);
    }
    // The generator must reach the interesting part: approved calls that actually ran.
    assert.ok(ran >= 10, `only ${ran} approved calls ran (${approved} approved of ${CASES})`);
    console.log(`${approved} of ${CASES} generated calls approved, ${ran} run under bash`);
  });
});
