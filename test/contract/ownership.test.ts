// Ownership, through the built bundle (in-process in `npm test`, real processes under `npm run test:soak`): each
// helper command writes only its own files under .design/ (src/base/owned.ts). Every writing command, pointed at
// every other command's file (the plan, the grant, the execute run, the Workflow script, installed and draft specs,
// the memory, reflection and recon files, a dotfile, a file nobody owns), directly, through a symlink from its own
// file, or through a hard link, answers E_PATH naming its rule, and the project is byte-identical afterwards (modes,
// link counts and symlink targets included). Files a command derives itself (the run state, the history folder, the
// Workflow script, the grant, installed specs and plan) are judged the same way. And each writer's own call, as the
// skills make it, still succeeds on the same project.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { cpSync, linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { planWith, writeFiles, type Files } from "../helpers/design-dir.ts";
import { pool } from "../helpers/pool.ts";
import { snapshotLinks } from "../helpers/snapshot.ts";
import { cli } from "../helpers/cli.ts";
import { helperCall } from "../helpers/soak.ts";

const runState = (skill: string) => ({
  schemaVersion: 1, skill, runId: `run-${skill}`, goal: "g", goalSha256: "x", inputs: [], phases: ["a", "b"], completed: [],
  startedAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z", completedAt: null, outcome: null,
});
const iv = { title: "t", leverageLevel: 6, leverageGroup: "Feedbacks", designGoal: "g", confidence: "high", effort: "small" };
const recon = { schemaVersion: 1, goal: "g", scope: "src/", interventions: [iv], contradictions: [] };

/** A project holding one of every file a helper command owns, plus files nobody owns. */
const TEMPLATE: Files = {
  ".design/plan.json": planWith(["a", "b"]),
  ".design/draft/plan.json": planWith(["a"], { verificationSpecs: [{ role: "a", path: ".design/specs/x.sh", runCommand: "sh .design/specs/x.sh" }] }),
  ".design/draft/specs/x.sh": "#!/bin/sh\necho draft\n",
  ".design/specs/x.sh": "#!/bin/sh\necho installed\n",
  ".design/grant.json": { version: 1, revoked: true },
  ".design/run-execute.json": runState("execute"),
  ".design/run-design.json": runState("design"),
  ".design/workflow.js": "export const meta = {};\n",
  ".design/memory.jsonl": [{ id: "m1", timestamp: "2026-01-01T00:00:00Z", category: "pattern", keywords: ["api"], content: "x", importance: 5 }],
  ".design/reflection.jsonl": [{ id: "r1", timestamp: "2026-01-01T00:00:00Z", skill: "design", goal: "g", outcome: "completed", goalAchieved: true }],
  ".design/recon.json": recon,
  ".design/tmp/recon-draft.json": recon,
  ".design/.git/config": "[core]\n\tbare = false\n",
  ".design/conftest.py": "import os\n",
  ".design/history/old/x.txt": "x\n",
  "src/app.sh": "#!/bin/sh\necho app\n",
};

const NEW_MEMORY = ["--category", "pattern", "--keywords", "eslint", "--content", "Run eslint --fix before a commit"];
const NEW_REFLECTION = ["--skill", "design", "--goal", "g", "--outcome", "completed"];

interface Writer {
  name: string;
  /** The call with `V` in place of the write argument. */
  args: (v: string) => string[];
  stdin?: string;
  /** The paths its rule allows (the first is what the skills pass). */
  own: string[];
  /** A folder argument (.design itself) rather than a file. */
  dir?: boolean;
}

const WRITERS: Writer[] = [
  { name: "memory-add", args: (v) => ["memory-add", v, ...NEW_MEMORY], own: [".design/memory.jsonl"] },
  { name: "memory-add --boost", args: (v) => ["memory-add", v, "--boost", "--id", "m1"], own: [".design/memory.jsonl"] },
  { name: "reflection-add", args: (v) => ["reflection-add", v, ...NEW_REFLECTION], stdin: "{}", own: [".design/reflection.jsonl"] },
  { name: "recon-rank", args: (v) => ["recon-rank", ".design/tmp/recon-draft.json", "--out", v], own: [".design/recon.json"] },
  { name: "recon-rank --replace", args: (v) => ["recon-rank", ".design/tmp/recon-draft.json", `--out=${v}`, "--replace"], own: [".design/recon.json"] },
  { name: "update-status", args: (v) => ["update-status", v], stdin: '[{"roleIndex":0,"status":"in_progress"}]', own: [".design/plan.json"] },
  { name: "resume-reset", args: (v) => ["resume-reset", v], own: [".design/plan.json"] },
  { name: "next", args: (v) => ["next", v], own: [".design/plan.json"] },
  { name: "add-constraints", args: (v) => ["add-constraints", v], stdin: '[{"role":"a","constraints":["x"]}]', own: [".design/plan.json"] },
  { name: "finalize", args: (v) => ["finalize", v], own: [".design/plan.json", ".design/draft/plan.json"] },
  { name: "finalize --validate-only", args: (v) => ["finalize", v, "--validate-only"], own: [".design/plan.json", ".design/draft/plan.json"] },
  { name: "archive", args: (v) => ["archive", v, "--include-plan"], own: [".design"], dir: true },
  { name: "run-start", args: (v) => ["run-start", "design", "--phases", "a,b", "--fresh", "--design-dir", v], own: [".design"], dir: true },
  { name: "run-checkpoint", args: (v) => ["run-checkpoint", "design", "--phase", "a", `--design-dir=${v}`], own: [".design"], dir: true },
  { name: "run-complete", args: (v) => ["run-complete", "design", "--outcome", "aborted", "--design-dir", v], own: [".design"], dir: true },
];

/** Files of other commands (and of none) a write argument may be pointed at. */
const FILE_TARGETS = [
  ".design/plan.json", ".design/draft/plan.json", ".design/grant.json", ".design/run-execute.json", ".design/workflow.js",
  ".design/specs/x.sh", ".design/draft/specs/x.sh", ".design/memory.jsonl", ".design/reflection.jsonl", ".design/recon.json",
  ".design/.git/config", ".design/conftest.py", ".design/tmp/new.json", ".design/specs/new.sh", ".design/history/old/x.txt",
];
/** The same for a folder argument. */
const DIR_TARGETS = [".design/specs", ".design/draft", ".design/draft/specs", ".design/history", ".design/tmp", ".design/.git", ".design/plan.json"];
/** The files a symlink from a command's own file leads to. */
const LINK_TARGETS = [".design/plan.json", ".design/grant.json", ".design/run-execute.json", ".design/workflow.js", ".design/specs/x.sh", ".design/draft/specs/x.sh", ".design/conftest.py"];

interface Case {
  name: string;
  args: string[];
  stdin?: string;
  /** Changes to the template's copy before the call: symlinks and hard links (paths relative to the project). */
  links?: Array<{ kind: "symlink" | "hardlink"; from: string; to: string }>;
}

const CASES: Case[] = [];
for (const w of WRITERS) {
  const targets = (w.dir ? DIR_TARGETS : FILE_TARGETS).filter((t) => !w.own.includes(t));
  for (const t of targets) CASES.push({ name: `${w.name} · ${t}`, args: w.args(t), stdin: w.stdin });
  if (!w.dir) {
    // Its own file, made a link to another command's file: the real path decides.
    for (const t of LINK_TARGETS.filter((x) => !w.own.includes(x))) {
      CASES.push({ name: `${w.name} · ${w.own[0]} → ${t}`, args: w.args(w.own[0]), stdin: w.stdin, links: [{ kind: "symlink", from: w.own[0], to: t }] });
    }
    CASES.push({
      name: `${w.name} · ${w.own[0]} hard-linked to .design/specs/x.sh`,
      args: w.args(w.own[0]),
      stdin: w.stdin,
      links: [{ kind: "hardlink", from: w.own[0], to: ".design/specs/x.sh" }],
    });
  }
}
// Files the commands derive themselves.
const runStateLink = { kind: "symlink" as const, from: ".design/run-design.json", to: ".design/run-execute.json" };
const historyLink = { kind: "symlink" as const, from: ".design/history", to: ".design/specs" };
CASES.push(
  { name: "run-start · its run state → run-execute.json", args: ["run-start", "design", "--phases", "a,b", "--fresh"], links: [runStateLink] },
  { name: "run-checkpoint · its run state → run-execute.json", args: ["run-checkpoint", "design", "--phase", "a"], links: [runStateLink] },
  { name: "run-complete · its run state → run-execute.json", args: ["run-complete", "design"], links: [runStateLink] },
  { name: "run-start · its run state → plan.json", args: ["run-start", "design", "--phases", "a,b", "--fresh"], links: [{ ...runStateLink, to: ".design/plan.json" }] },
  { name: "run-start --fresh · history → specs/", args: ["run-start", "design", "--phases", "a,b", "--fresh"], links: [historyLink] },
  { name: "archive · history → specs/", args: ["archive", ".design", "--include-plan"], links: [historyLink] },
  { name: "recon-rank --replace · history → specs/", args: ["recon-rank", ".design/tmp/recon-draft.json", "--replace"], links: [historyLink] },
  { name: "workflow · workflow.js → specs/x.sh", args: ["workflow", ".design/plan.json"], links: [{ kind: "symlink", from: ".design/workflow.js", to: ".design/specs/x.sh" }] },
  { name: "workflow · workflow.js → plan.json", args: ["workflow", ".design/plan.json"], links: [{ kind: "symlink", from: ".design/workflow.js", to: ".design/plan.json" }] },
  { name: "grant --revoke · grant.json → specs/x.sh", args: ["grant", ".design/plan.json", "--revoke"], links: [{ kind: "symlink", from: ".design/grant.json", to: ".design/specs/x.sh" }] },
  { name: "grant --revoke · grant.json → run-execute.json", args: ["grant", ".design/plan.json", "--revoke"], links: [{ kind: "symlink", from: ".design/grant.json", to: ".design/run-execute.json" }] },
  { name: "finalize (draft) · specs/x.sh → grant.json", args: ["finalize", ".design/draft/plan.json"], links: [{ kind: "symlink", from: ".design/specs/x.sh", to: ".design/grant.json" }] },
  { name: "finalize (draft) · specs/x.sh → workflow.js", args: ["finalize", ".design/draft/plan.json"], links: [{ kind: "symlink", from: ".design/specs/x.sh", to: ".design/workflow.js" }] },
  { name: "finalize (draft) · plan.json → grant.json", args: ["finalize", ".design/draft/plan.json"], links: [{ kind: "symlink", from: ".design/plan.json", to: ".design/grant.json" }] },
  { name: "finalize (draft) · plan.json → run-execute.json", args: ["finalize", ".design/draft/plan.json"], links: [{ kind: "symlink", from: ".design/plan.json", to: ".design/run-execute.json" }] },
);

function applyLinks(proj: string, links: Case["links"] = []): void {
  for (const l of links) {
    const from = join(proj, l.from);
    const to = join(proj, l.to);
    rmSync(from, { recursive: true, force: true });
    mkdirSync(dirname(from), { recursive: true });
    if (l.kind === "symlink") symlinkSync(relative(dirname(from), to), from);
    else linkSync(to, from);
  }
}

let root = "";
let template = "";

describe("ownership: every writing command, pointed at a file it does not own, answers E_PATH and changes nothing", () => {
  let outcomes: Array<{ code: number | null; json: any; stdout: string; before: Record<string, string>; after: Record<string, string> }> = [];

  before(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), "do-own-")));
    template = join(root, "template");
    writeFiles(template, TEMPLATE);
    outcomes = await pool(CASES, Math.max(2, availableParallelism()), async (c, i) => {
      const proj = join(root, `case-${i}`);
      cpSync(template, proj, { recursive: true, verbatimSymlinks: true });
      applyLinks(proj, c.links);
      const before = snapshotLinks(proj);
      const r = await helperCall(c.args, { cwd: proj, stdin: c.stdin });
      let json: any;
      try {
        json = JSON.parse(r.stdout);
      } catch {
        json = undefined;
      }
      const after = snapshotLinks(proj);
      rmSync(proj, { recursive: true, force: true });
      return { code: r.code, json, stdout: r.stdout, before, after };
    });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("has a case for every writing command", () => {
    const covered = new Set(CASES.map((c) => c.args[0]));
    for (const cmd of ["memory-add", "reflection-add", "recon-rank", "update-status", "next", "resume-reset", "add-constraints", "finalize", "archive", "run-start", "run-checkpoint", "run-complete", "workflow", "grant"]) {
      assert.ok(covered.has(cmd), cmd);
    }
  });

  CASES.forEach((c, i) => {
    it(c.name, () => {
      const o = outcomes[i];
      assert.equal(o.code, 1, o.stdout);
      assert.equal(o.json?.code, "E_PATH", o.stdout);
      assert.match(o.json.error, / is not (?:the project's \.design\/|a[n ]|\.design\/)[^:]*: \/|is a file with other hard links: \//, o.stdout);
      assert.deepEqual(o.after, o.before, "every file byte-identical, links included");
    });
  });
});

// As real processes: each writer loads the lock library, whose exit handlers a shared test process would collect
// once per command file.
describe("ownership: each writer's own call, as the skills make it, still writes", () => {
  const own: Array<[string, string[], string?]> = [
    ...WRITERS.map((w): [string, string[], string?] => [w.name, w.args(w.own[0]), w.stdin]),
    ["finalize (draft)", ["finalize", ".design/draft/plan.json"]],
    ["workflow", ["workflow", ".design/plan.json"]],
    ["grant --revoke", ["grant", ".design/plan.json", "--revoke"]],
    ["memory-add (another memory file)", ["memory-add", ".design/memory-team.jsonl", ...NEW_MEMORY]],
    ["recon-rank (taken name: recon-2.json)", ["recon-rank", ".design/tmp/recon-draft.json"]],
  ];
  let dir = "";
  let results: Array<{ json: any; stdout: string }> = [];
  before(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "do-own-ok-")));
    results = await pool(own, Math.max(2, availableParallelism()), async ([, args, stdin], i) => {
      const proj = join(dir, `p${i}`);
      writeFiles(proj, TEMPLATE);
      return cli(args, { cwd: proj, stdin });
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  own.forEach(([name], i) => {
    it(name, () => assert.equal(results[i].json?.ok, true, results[i].stdout));
  });

  it("a link between two files of the same rule is written through: .design/memory.jsonl → memory-main.jsonl", async () => {
    const proj = join(dir, "link");
    writeFiles(proj, TEMPLATE);
    writeFiles(proj, { ".design/memory-main.jsonl": "" });
    unlinkSync(join(proj, ".design/memory.jsonl"));
    symlinkSync("memory-main.jsonl", join(proj, ".design/memory.jsonl"));
    const r = await cli(["memory-add", ".design/memory.jsonl", ...NEW_MEMORY], { cwd: proj });
    assert.equal(r.json?.ok, true, r.stdout);
    assert.equal(snapshotLinks(proj)[".design/memory.jsonl"], "link memory-main.jsonl");
  });
});
