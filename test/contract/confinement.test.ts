// The helper's confinement contract, through the built bundle (real processes under `npm run test:soak`, which CI
// runs; in-process in `npm test`, see cliInProcess in test/helpers/cli.ts): every command that writes, reads or
// hashes a path, given that path in every escape form (absolute, `..`, `--flag=value`, a comma-list entry, a
// symlinked folder or file leading out, a `.design` that is itself a symlink out), refuses with E_PATH and exit 1,
// and every file of the scratch project and of the scratch outside folder is byte-identical afterwards (modes and
// symlink targets included). One template is built once; each case runs on its own copy, in parallel.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  chmodSync, cpSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { planWith, writeFiles } from "../helpers/design-dir.ts";
import { pool } from "../helpers/pool.ts";
import { helperCall } from "../helpers/soak.ts";

type Access = "write" | "read";
interface Case {
  name: string;
  /** `{OUT}` is replaced by the case's absolute outside folder. */
  args: string[];
  stdin?: string;
  /** "proj" (a normal project) or "proj2" (whose .design is a symlink to the outside folder). */
  project?: "proj" | "proj2";
  access: Access;
  /** Files written over the template's copy before the call (paths relative to the case folder). */
  files?: Record<string, unknown>;
}

const plan = planWith(["a", "b"]);
const memory = [{ id: "m1", timestamp: "2026-01-01T00:00:00Z", category: "pattern", keywords: ["api"], content: "x", importance: 5 }];
const reflection = [{ id: "r1", timestamp: "2026-01-01T00:00:00Z", skill: "design", goal: "g", outcome: "completed", goalAchieved: true }];
const runState = {
  schemaVersion: 1, skill: "design", runId: "r", goal: "g", goalSha256: "x", inputs: [], phases: ["a", "b"], completed: [],
  startedAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z", completedAt: null, outcome: null,
};
const report = { type: "challenger", issues: [] };

/** The files of a design directory (inside the project, and the same again outside it). */
const designFiles = (prefix: string) => ({
  [`${prefix}/plan.json`]: plan,
  [`${prefix}/memory.jsonl`]: memory,
  [`${prefix}/reflection.jsonl`]: reflection,
  [`${prefix}/recon.json`]: { schemaVersion: 1, interventions: [] },
  [`${prefix}/report.json`]: report,
  [`${prefix}/run-design.json`]: runState,
  [`${prefix}/handoff.md`]: "notes\n",
  [`${prefix}/skills/design/SKILL.md`]: "---\nname: design\n---\n",
});

let root = "";
let template = "";

function buildTemplate(dir: string): void {
  writeFiles(dir, {
    ...designFiles("proj/.design"),
    ...designFiles("outside"),
    "outside/secret.txt": "secret\n",
    "outside/plan-spec.json": planWith(["a"], { verificationSpecs: [{ role: "a", path: "../outside/secret.txt", runCommand: "true" }] }),
    "proj/src/app.sh": "#!/bin/sh\necho app\n",
    "proj/.git/hooks/pre-commit": "#!/bin/sh\nexit 0\n",
    "proj2/src/app.sh": "#!/bin/sh\necho app2\n",
  });
  chmodSync(join(dir, "proj/src/app.sh"), 0o755);
  chmodSync(join(dir, "proj/.git/hooks/pre-commit"), 0o755);
  chmodSync(join(dir, "outside/secret.txt"), 0o600);
  // Relative links, so every copy of the template points into its own outside folder.
  symlinkSync("../../outside", join(dir, "proj/.design/out"));
  symlinkSync("../../outside/plan.json", join(dir, "proj/.design/outplan.json"));
  symlinkSync("../../outside/memory.jsonl", join(dir, "proj/.design/outmem.jsonl"));
  symlinkSync("../../outside/reflection.jsonl", join(dir, "proj/.design/outrefl.jsonl"));
  symlinkSync("../../outside/secret.txt", join(dir, "proj/.design/outsecret.txt"));
  symlinkSync("../outside", join(dir, "proj/link-out"));
  symlinkSync("../outside", join(dir, "proj2/.design"));
}

/** A plan whose verification spec path is `path`: a finalize whose spec leaves the project through data. */
const specPlan = (path: string) => planWith(["a"], { verificationSpecs: [{ role: "a", path, runCommand: "true" }] });

/** Every entry under `dir` by lstat: type, mode, bytes or link text. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(dir, r));
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) out[r] = `link ${readlinkSync(join(dir, r))}`;
      else if (st.isDirectory()) {
        out[`${r}/`] = `dir ${mode}`;
        walk(r);
      } else out[r] = `file ${mode} ${readFileSync(join(dir, r)).toString("base64")}`;
    }
  };
  walk("");
  return out;
}

// ---------------------------------------------------------------- the table

const NEW_MEMORY = ["--category", "pattern", "--keywords", "eslint", "--content", "Run eslint --fix before a commit"];
const NEW_REFLECTION = ["--skill", "design", "--goal", "g", "--outcome", "completed"];

/** A write positional: every escape form of a file path. `file` exists in the outside folder. */
function writeFileForms(cmd: string, file: string, link: string, rest: string[] = [], stdin?: string): Case[] {
  const c = (form: string, value: string, project: Case["project"] = "proj"): Case => ({
    name: `${cmd} · ${form}`, args: [cmd, value, ...rest], stdin, project, access: "write",
  });
  return [
    c("absolute", `{OUT}/${file}`),
    c("..", `../outside/${file}`),
    c(".. inside .design", `.design/../../outside/${file}`),
    c("symlinked folder", `.design/out/${file}`),
    c("symlinked file", `.design/${link}`),
    c("project file outside .design", ".git/hooks/pre-commit"),
    c("project root", "src/app.sh"),
    c(".design is a symlink out", `.design/${file}`, "proj2"),
  ];
}

/** A read positional: every escape form of a file path. */
function readFileForms(cmd: string, file: string, link: string, rest: string[] = [], stdin?: string): Case[] {
  const c = (form: string, value: string, project: Case["project"] = "proj"): Case => ({
    name: `${cmd} · ${form}`, args: [cmd, ...(value === "" ? [] : [value]), ...rest], stdin, project, access: "read",
  });
  return [
    c("absolute", `{OUT}/${file}`),
    c("..", `../outside/${file}`),
    c("symlinked folder", `link-out/${file}`),
    c("symlinked file", `.design/${link}`),
    c(".design is a symlink out", `.design/${file}`, "proj2"),
  ];
}

/** A design-dir argument (positional or flag) in every escape form; flags also as --flag=value. */
function dirForms(cmd: string, flag: string | null, access: Access, rest: string[] = []): Case[] {
  const c = (form: string, value: string, project: Case["project"] = "proj", eq = false): Case => ({
    name: `${cmd} · ${flag ?? "design_dir"} ${form}${eq ? " (--flag=value)" : ""}`,
    args: [cmd, ...rest, ...(flag === null ? [value] : eq ? [`--${flag}=${value}`] : [`--${flag}`, value])],
    project,
    access,
  });
  const cases = [
    c("absolute", "{OUT}"),
    c("..", "../outside"),
    c("symlinked folder", access === "write" ? ".design/out" : "link-out"),
    c(".design is a symlink out", ".design", "proj2"),
  ];
  if (access === "write") cases.push(c("project root", "."), c("project folder", "src"));
  if (flag !== null) cases.push(c("absolute", "{OUT}", "proj", true), c("..", "../outside", "proj", true));
  return cases;
}

/** A comma-list flag: the escaping entry after a good one, in both flag forms. */
function listForms(cmd: string, flag: string, good: string, rest: string[]): Case[] {
  const c = (form: string, bad: string, eq = false): Case => ({
    name: `${cmd} · --${flag} entry ${form}${eq ? " (--flag=value)" : ""}`,
    args: [cmd, ...rest, ...(eq ? [`--${flag}=${good},${bad}`] : [`--${flag}`, `${good}, ${bad}`])],
    access: "read",
  });
  return [
    c("absolute", "{OUT}/secret.txt"),
    c("..", "../outside/secret.txt"),
    c("symlinked folder", "link-out/secret.txt"),
    c("symlinked file", ".design/outsecret.txt"),
    c("absolute", "{OUT}/secret.txt", true),
  ];
}

/** The absolute and the symlinked-file forms only (for a command whose argument is declared like one fully covered). */
const two = (cases: Case[]) => cases.filter((c) => / · (absolute|symlinked file)/.test(c.name));

const UPDATE = '[{"roleIndex":0,"status":"in_progress"}]';
const CONSTRAINTS = '[{"role":"a","constraints":["x"]}]';

const CASES: Case[] = [
  // writers
  ...writeFileForms("update-status", "plan.json", "outplan.json", [], UPDATE),
  ...writeFileForms("resume-reset", "plan.json", "outplan.json"),
  ...writeFileForms("add-constraints", "plan.json", "outplan.json", [], CONSTRAINTS),
  ...writeFileForms("finalize", "plan.json", "outplan.json"),
  ...writeFileForms("memory-add", "memory.jsonl", "outmem.jsonl", NEW_MEMORY),
  ...two(writeFileForms("memory-add", "memory.jsonl", "outmem.jsonl", ["--boost", "--id", "m1"])).map((c) => ({ ...c, name: `${c.name} (--boost)` })),
  ...writeFileForms("reflection-add", "reflection.jsonl", "outrefl.jsonl", NEW_REFLECTION, "{}"),
  ...dirForms("archive", null, "write"),
  { name: "archive · a folder inside .design", args: ["archive", ".design/skills"], access: "write" },
  ...dirForms("run-start", "design-dir", "write", ["design", "--phases", "a,b", "--fresh"]),
  ...dirForms("run-checkpoint", "design-dir", "write", ["design", "--phase", "a"]),
  ...dirForms("run-complete", "design-dir", "write", ["design"]),
  ...listForms("run-start", "inputs", ".design/plan.json", ["design", "--phases", "a,b", "--fresh"]),
  ...listForms("run-checkpoint", "outputs", ".design/plan.json", ["design", "--phase", "a"]),
  // hashes through data: finalize's spec paths
  ...[
    ["..", "../outside/secret.txt"],
    ["absolute", "/etc/hostname"],
    ["through a symlinked file", ".design/outsecret.txt"],
  ].flatMap(([form, path]): Case[] => [
    { name: `finalize · spec path ${form}`, args: ["finalize", ".design/plan.json"], files: { "proj/.design/plan.json": specPlan(path) }, access: "read" },
    { name: `finalize · draft's spec path ${form}`, args: ["finalize", ".design/draft/plan.json"], files: { "proj/.design/draft/plan.json": specPlan(path) }, access: "read" },
  ]),
  // readers
  // Readers sharing one argument declaration get every form once and two forms each after that.
  ...readFileForms("status", "plan.json", "outplan.json"),
  ...["summary", "overlap-matrix", "tasklist-data", "worker-pool", "retry-candidates", "circuit-breaker", "validate-checks"].flatMap(
    (cmd) => two(readFileForms(cmd, "plan.json", "outplan.json")),
  ),
  ...two(readFileForms("finalize", "plan.json", "outplan.json", ["--validate-only"])).map((c) => ({ ...c, access: "write" as const })),
  ...readFileForms("plan-diff", "plan.json", "outplan.json", [".design/plan.json"]),
  ...two(readFileForms("plan-diff", "plan.json", "outplan.json")).map((c) => ({ ...c, args: ["plan-diff", ".design/plan.json", ...c.args.slice(1)], name: `${c.name} (plan_b)` })),
  ...readFileForms("memory-search", "memory.jsonl", "outmem.jsonl", ["--goal", "api"]),
  ...two(readFileForms("memory-review", "memory.jsonl", "outmem.jsonl")),
  ...two(readFileForms("memory-summary", "memory.jsonl", "outmem.jsonl")),
  ...readFileForms("reflection-search", "reflection.jsonl", "outrefl.jsonl"),
  ...readFileForms("recon-validate", "recon.json", "out/recon.json"),
  ...two(readFileForms("recon-summary", "recon.json", "out/recon.json")),
  ...readFileForms("expert-validate", "report.json", "out/report.json"),
  ...two(readFileForms("validate-auxiliary-report", "report.json", "out/report.json", ["--type", "challenger"])),
  ...dirForms("health-check", null, "read"),
  ...dirForms("plan-health-summary", null, "read"),
  ...dirForms("sync-check", null, "read").map((c) => ({ ...c, args: c.args.map((a) => (a === "{OUT}" || a === "../outside" ? `${a}/skills` : a)) })),
  ...dirForms("run-status", "design-dir", "read", ["design"]),
];

/** One case's helper call: a real process under `npm run test:soak`, the bundle in-process in `npm test`. */
function run(c: Case, caseDir: string): Promise<{ code: number | null; stdout: string }> {
  const out = join(caseDir, "outside");
  const args = c.args.map((a) => a.replaceAll("{OUT}", out));
  return helperCall(args, { cwd: join(caseDir, c.project ?? "proj"), stdin: c.stdin });
}

interface Outcome {
  code: number | null;
  json: any;
  stdout: string;
  before: Record<string, string>;
  after: Record<string, string>;
}
let outcomes: Outcome[] = [];

describe("confinement: every path in every escape form is refused with E_PATH and changes nothing", () => {
  before(async () => {
    root = mkdtempSync(join(tmpdir(), "do-confine-"));
    template = join(root, "template");
    mkdirSync(template);
    buildTemplate(template);
    const base = snapshot(template);
    outcomes = await pool(CASES, Math.max(2, availableParallelism()), async (c, i) => {
      const caseDir = join(root, `case-${i}`);
      cpSync(template, caseDir, { recursive: true, verbatimSymlinks: true });
      if (c.files) writeFiles(caseDir, c.files);
      const before = c.files ? snapshot(caseDir) : base;
      const r = await run(c, caseDir);
      let json: any;
      try {
        json = JSON.parse(r.stdout);
      } catch {
        json = undefined;
      }
      const after = snapshot(caseDir);
      rmSync(caseDir, { recursive: true, force: true });
      return { code: r.code, json, stdout: r.stdout, before, after };
    });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("covers every command that takes a path", () => {
    const covered = new Set(CASES.map((c) => c.args[0]));
    for (const cmd of [
      "update-status", "resume-reset", "add-constraints", "finalize", "memory-add", "reflection-add", "archive", "run-start",
      "run-checkpoint", "run-complete", "status", "summary", "overlap-matrix", "tasklist-data", "worker-pool",
      "retry-candidates", "circuit-breaker", "validate-checks", "plan-diff", "memory-search", "memory-review",
      "memory-summary", "reflection-search", "recon-validate", "recon-summary", "expert-validate",
      "validate-auxiliary-report", "health-check", "plan-health-summary", "sync-check", "run-status",
    ]) {
      assert.ok(covered.has(cmd), `${cmd} has no confinement case`);
    }
  });

  CASES.forEach((c, i) => {
    it(c.name, () => {
      const o = outcomes[i];
      assert.equal(o.code, 1, `exit code; output: ${o.stdout}`);
      assert.equal(o.json?.ok, false, o.stdout);
      assert.equal(o.json?.code, "E_PATH", o.stdout);
      const wording = c.access === "write" ? / resolves outside the project's \.design\/: |is not the project's \.design\/: / : / resolves outside the project(?:'s \.design\/)?: /;
      assert.match(o.json.error, wording);
      assert.deepEqual(o.after, o.before, "every file byte-identical, modes and links included");
    });
  });
});

describe("confinement: the commands that always exit 0 report the escape and read nothing outside", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "do-confine-soft-"));
    buildTemplate(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const soft: Array<[string, string[], Case["project"]]> = [
    ["preflight · design_dir absolute", ["preflight", "design", "{OUT}"], "proj"],
    ["preflight · design_dir ..", ["preflight", "design", "../outside"], "proj"],
    ["preflight · .design is a symlink out", ["preflight", "design"], "proj2"],
    ["plan-view · absolute", ["plan-view", "{OUT}/plan.json"], "proj"],
    ["plan-view · symlinked file", ["plan-view", ".design/outplan.json"], "proj"],
    ["plan-view · .design is a symlink out", ["plan-view"], "proj2"],
  ];
  for (const [name, args, project] of soft) {
    it(name, async () => {
      const beforeSnap = snapshot(dir);
      const r = await run({ name, args, project, access: "read" }, dir);
      const json = JSON.parse(r.stdout);
      assert.equal(r.code, 0, r.stdout);
      assert.equal(json.ok, true);
      assert.ok(json.problems.some((p: string) => / resolves outside the project: /.test(p)), r.stdout);
      // Nothing of the outside plan leaked into the output.
      assert.doesNotMatch(r.stdout, /Do a|Test goal|roleCount":2/);
      assert.deepEqual(snapshot(dir), beforeSnap);
    });
  }
});
