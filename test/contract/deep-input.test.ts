// Deep and huge input: every command that reads JSON (a file of the project, a JSONL line, standard input) answers
// one JSON document, never a stack trace or an internal error, whatever the input nests or weighs. Issue 18 found
// a 5,000-deep object crashing reflection-search (a stack trace, no JSON) and workflow (E_INTERNAL): JSON.parse
// takes any depth, the JSON.stringify of the answer and the recursive walks after it do not. Parsed input deeper
// than 256 levels is now refused where it is parsed (E_JSON for a file or stdin, a skipped line in a JSONL file),
// and the plan algorithms walk dependency chains of any length without recursion or quadratic memory.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { registry } from "../../src/registry.ts";
import { PLAN_JS } from "../helpers/cli.ts";
import { writeFiles, type Files } from "../helpers/design-dir.ts";
import { helperCall } from "../helpers/soak.ts";

const DEPTH = 5000;
const deepObject = `${'{"a":'.repeat(DEPTH)}1${"}".repeat(DEPTH)}`;
const deepArray = `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`;
const NESTED = /JSON nested deeper than 256 levels/;

const role = (name: string, extra: Record<string, unknown> = {}) => ({
  name, goal: "g", model: "sonnet", scope: { directories: [`src/${name}`], dependencies: [] as string[] },
  acceptanceCriteria: [{ criterion: "c", check: "npm test" }], ...extra,
});
const plan = (roles: unknown[], extra: Record<string, unknown> = {}) => ({ schemaVersion: 4, goal: "g", roles, ...extra });
const now = new Date().toISOString().slice(0, 19) + "Z";
const memoryLine = (extra = "") => `{"id":"m1","timestamp":"${now}","category":"pattern","keywords":["api"],"content":"check the api first","importance":5${extra}}`;
const reflectionLine = (evaluation: string) =>
  `{"id":"r1","timestamp":"${now}","skill":"execute","goal":"g","outcome":"completed","goalAchieved":true,"evaluation":${evaluation}}`;
const runState = (extra = "") =>
  `{"schemaVersion":1,"skill":"design","runId":"x","goal":"g","phases":["pre-flight","plan"],"completed":[],"inputs":{},"startedAt":"${now}","completedAt":null${extra}}`;

/** Every JSON file a command reads, as one text: the whole deep document, or a valid one with a deep value inside. */
function files(mode: "whole" | "inside" | "huge"): Files {
  if (mode === "whole") {
    const all: Files = {};
    for (const path of [
      ".design/plan.json", ".design/draft/plan.json", ".design/recon.json", ".design/tmp/recon-draft.json", ".design/grant.json",
      ".design/run-design.json", ".design/run-execute.json", ".design/expert-architect.json", ".design/challenger-report.json",
      ".design/tmp/remember.json", ".design/tmp/memories.json",
    ]) all[path] = deepObject;
    all[".design/memory.jsonl"] = `${deepObject}\n${deepArray}\n`;
    all[".design/reflection.jsonl"] = `${deepObject}\n`;
    return all;
  }
  if (mode === "inside") {
    const deep = JSON.parse(`${"[".repeat(300)}${"]".repeat(300)}`); // past the cap, well within JSON.stringify's reach
    return {
      ".design/plan.json": `{"schemaVersion":4,"goal":"g","context":${deepObject},"roles":[${JSON.stringify(role("api", { status: "completed" })).slice(0, -1)},"result":${deepObject}},${JSON.stringify(role("web"))}]}`,
      ".design/draft/plan.json": JSON.stringify(plan([role("api", { constraints: deep })])),
      ".design/worker-api.json": `{"contextForDependents":${deepObject}}`,
      ".design/recon.json": `{"schemaVersion":1,"goal":"g","scope":"src","interventions":${deepArray}}`,
      ".design/tmp/recon-draft.json": `{"schemaVersion":1,"goal":"g","interventions":[${deepObject}]}`,
      ".design/grant.json": `{"version":1,"planFingerprint":"x","runId":"x","edits":[${deepObject}],"commands":[]}`,
      ".design/run-design.json": runState(`,"x":${deepObject}`),
      ".design/run-execute.json": runState(`,"x":${deepArray}`),
      ".design/expert-architect.json": `{"summary":"s","verificationProperties":${deepArray}}`,
      ".design/challenger-report.json": `{"issues":[${deepObject}],"summary":"s"}`,
      ".design/tmp/remember.json": `{"category":"pattern","keywords":["api"],"content":"c","x":${deepObject}}`,
      ".design/tmp/memories.json": `{"api":${deepArray}}`,
      ".design/memory.jsonl": `${memoryLine()}\n${memoryLine(`,"x":${deepObject}`).replace('"m1"', '"m2"')}\n`,
      ".design/reflection.jsonl": `${reflectionLine('{"whatWorked":["a"],"whatFailed":[],"doNextTime":[]}')}\n${reflectionLine(deepObject)}\n`,
    };
  }
  // huge: a 5,000-role dependency chain (every other role failed once) with a 1 MB goal; 1 MB lines and fields.
  const roles = Array.from({ length: 5000 }, (_, i) => role(`r${i}`, {
    scope: { directories: [`src/r${i}`], dependencies: i ? [`r${i - 1}`] : [] },
    ...(i % 2 ? { status: "failed", attempts: 1 } : {}),
  }));
  const big = "x".repeat(1 << 20);
  return {
    ".design/plan.json": JSON.stringify(plan(roles, { goal: big })),
    ".design/draft/plan.json": JSON.stringify(plan(roles)),
    ".design/memory.jsonl": `${memoryLine().replace("check the api first", big)}\n`,
    ".design/reflection.jsonl": `${reflectionLine(JSON.stringify({ whatWorked: [big], whatFailed: [], doNextTime: [] }))}\n`,
    ".design/tmp/recon-draft.json": JSON.stringify({ schemaVersion: 1, goal: big, interventions: [] }),
  };
}

const STDIN: Record<string, string> = {
  deepObject,
  deepArray,
  deepInside: `[{"roleIndex":0,"status":"in_progress","result":${deepObject}}]`,
  hugeArray: JSON.stringify(Array.from({ length: 200_000 }, () => ({ roleIndex: 0, result: "r" }))),
  hugeString: JSON.stringify({ role: "api", achieved: true, filesChanged: [], acceptanceCriteria: [], whatWorked: ["x".repeat(4 << 20)], whatFailed: [], doNextTime: [] }),
};

/** Every command that reads JSON, with the arguments that make it read each of its inputs. */
const CALLS: Array<{ args: string[]; stdin?: boolean }> = [
  { args: ["status"] }, { args: ["summary"] }, { args: ["overlap-matrix"] }, { args: ["tasklist-data"] }, { args: ["worker-pool"] },
  { args: ["retry-candidates"] }, { args: ["next"] }, { args: ["circuit-breaker"] }, { args: ["plan-view"] }, { args: ["report"] },
  { args: ["design-tier", "--goal", "add an api"] }, { args: ["design-tier", "--goal", "x", "--draft", ".design/draft/plan.json"] },
  { args: ["run-checks", "--role", "0"] }, { args: ["commit", ".design/plan.json", "--role", "0", "--report", ".design/expert-architect.json"] },
  { args: ["clean-attempt", ".design/plan.json", "--role", "0"] }, { args: ["finish", ".design/plan.json", "--agent", "api", "--tokens", "5"] },
  { args: ["record-usage", "--agent", "api", "--tokens", "5"] }, { args: ["budget", "--tokens", "100"] },
  { args: ["plan-diff", ".design/plan.json", ".design/draft/plan.json"] }, { args: ["health-check"] }, { args: ["plan-health-summary"] },
  { args: ["preflight", "execute"] }, { args: ["preflight", "design"] }, { args: ["skill-find", "--source", "user"] },
  { args: ["watch", "execute", "--max-seconds", "1"] },
  { args: ["memory-search", "--goal", "api"] }, { args: ["memory-review"] }, { args: ["reflect-metrics", "--skill", "execute"] },
  { args: ["reflection-search"] }, { args: ["reflection-search", "--skill", "execute"] },
  { args: ["grant"] }, { args: ["grant", "--approve"] }, { args: ["workflow"] }, { args: ["workflow", "--memories", ".design/tmp/memories.json"] },
  { args: ["update-status"], stdin: true }, { args: ["resume-reset"] }, { args: ["add-constraints"], stdin: true },
  { args: ["memory-add", "--boost", "--id", "m1"] }, { args: ["memory-add", "--from", ".design/tmp/remember.json"] },
  { args: ["memory-add", "--category", "pattern", "--keywords", "api", "--content", "check the api first"] },
  { args: ["reflection-add", "--skill", "execute", "--goal", "g", "--outcome", "completed"], stdin: true },
  { args: ["archive", ".design"] }, { args: ["run-start", "design", "--phases", "pre-flight,experts,cross-review,plan,finalize,reflect-and-report", "--goal", "g", "--inputs", ".design/plan.json"] },
  { args: ["run-checkpoint", "design", "--phase", "pre-flight"] }, { args: ["run-complete", "design"] }, { args: ["run-status", "design"] },
  { args: ["expert-validate", ".design/expert-architect.json"] }, { args: ["reflection-validate"], stdin: true },
  { args: ["memory-summary", "--goal", "api"] }, { args: ["validate-checks"] }, { args: ["recon-validate"] },
  { args: ["recon-rank", ".design/tmp/recon-draft.json"] }, { args: ["recon-summary"] },
  { args: ["validate-auxiliary-report", ".design/challenger-report.json", "--type", "challenger"] },
  { args: ["worker-completion-validate"], stdin: true },
  { args: ["finalize"] }, { args: ["finalize", ".design/draft/plan.json"] }, { args: ["finalize", "--validate-only"] },
  { args: ["task-sync"], stdin: true }, { args: ["challenge-resolve"], stdin: true },
  { args: ["recon-findings", "--artifacts", ".design/expert-architect.json"] },
  { args: ["improve-guards", ".design/draft/plan.json", "--analysts", ".design/expert-architect.json"] },
  { args: ["expert-validate", ".design/expert-architect.json", "--scores"] },
  { args: ["run-begin", "execute"] }, { args: ["run-begin", "execute", "--fresh", "--budget", "100"] }, { args: ["run-begin", "design", "--goal", "g"] },
  { args: ["run-end", "design", "--outcome", "aborted"] }, { args: ["run-end", "execute", "--outcome", "aborted", "--eval", ".design/tmp/memories.json"] },
  { args: ["curator-apply", ".design/challenger-report.json"] },
];
/** Commands that read no JSON input of the project's: nothing here to feed them. */
const NO_JSON_INPUT = ["team-name", "sync-check", "schema", "self-test"];

interface Case {
  name: string;
  args: string[];
  files: Files;
  stdin?: string;
}

const CASES: Case[] = [];
for (const mode of ["whole", "inside", "huge"] as const) {
  const all = files(mode);
  for (const c of CALLS) {
    if (!c.stdin) CASES.push({ name: `${c.args.join(" ")} on ${mode} files`, args: c.args, files: all });
    else {
      for (const [kind, stdin] of Object.entries(STDIN)) {
        if (mode === "huge" && !kind.startsWith("huge")) continue;
        CASES.push({ name: `${c.args.join(" ")} with ${kind} stdin, ${mode} files`, args: c.args, files: all, stdin });
      }
    }
  }
}

describe("deep and huge input", { concurrency: availableParallelism() + 1 }, () => {
  const config = mkdtempSync(join(tmpdir(), "do-deep-config-"));
  const saved = process.env.CLAUDE_CONFIG_DIR;
  before(() => {
    // skill-find reads the user's installed_plugins.json, outside the project: a deep one there too.
    writeFiles(config, { "plugins/installed_plugins.json": `{"version":2,"plugins":${deepObject}}` });
    process.env.CLAUDE_CONFIG_DIR = config;
  });
  after(() => {
    if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
    else process.env.CLAUDE_CONFIG_DIR = saved;
    rmSync(config, { recursive: true, force: true });
  });

  it("calls every command that reads JSON", () => {
    const called = new Set(CALLS.map((c) => c.args[0]));
    assert.deepEqual(Object.keys(registry).filter((n) => !called.has(n) && !NO_JSON_INPUT.includes(n)), []);
  });

  for (const c of CASES) {
    it(`answers one JSON document: ${c.name}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "do-deep-"));
      try {
        writeFiles(dir, c.files);
        const r = await helperCall(c.args, { cwd: dir, stdin: c.stdin });
        assert.equal(r.stdout.trim().split("\n").length, 1, "one line");
        assert.notEqual(r.json, undefined, `a JSON document: ${r.stdout.slice(0, 300)}`);
        assert.equal(typeof r.json.ok, "boolean");
        assert.equal(r.code, r.json.ok ? 0 : 1);
        assert.notEqual(r.json.code, "E_INTERNAL", r.stdout.slice(0, 300));
        assert.equal(r.stderr, "");
        assert.doesNotMatch(r.stdout, /\n\s+at |Error: .*\n\s+at /, "no stack trace");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it("names the depth in the refusal of a deep plan, stdin and run state", async () => {
    const dir = mkdtempSync(join(tmpdir(), "do-deep-"));
    try {
      writeFiles(dir, files("whole"));
      for (const args of [["status"], ["next"], ["workflow"], ["overlap-matrix"], ["finalize"]]) {
        const r = await helperCall(args, { cwd: dir });
        assert.equal(r.json.code, "E_JSON", `${args[0]}: ${r.stdout}`);
        assert.match(r.json.error, args[0] === "status" ? /^invalid_json$/ : NESTED); // status keeps the contract's word
      }
      const up = await helperCall(["reflection-validate"], { cwd: dir, stdin: deepObject });
      assert.equal(up.json.code, "E_JSON");
      const run = await helperCall(["run-checkpoint", "design", "--phase", "pre-flight"], { cwd: dir });
      assert.match(run.json.error, NESTED);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("skips a deep memory or reflection line as it skips a corrupt one, and still reads the rest", async () => {
    const dir = mkdtempSync(join(tmpdir(), "do-deep-"));
    try {
      writeFiles(dir, files("inside"));
      const search = await helperCall(["reflection-search", "--skill", "execute"], { cwd: dir });
      assert.equal(search.json.ok, true, search.stdout);
      assert.equal(search.json.reflections.length, 1);
      const memories = await helperCall(["memory-search", "--goal", "api"], { cwd: dir });
      assert.equal(memories.json.ok, true, memories.stdout);
      assert.deepEqual(memories.json.memories.map((m: any) => m.id), ["m1"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses more than 64 MiB on stdin with E_READ, as a real process", async () => {
    const dir = mkdtempSync(join(tmpdir(), "do-deep-"));
    try {
      writeFiles(dir, { ".design/plan.json": JSON.stringify(plan([role("api")])) });
      // The helper stops reading at the limit, so the writer here may meet a closed pipe: that is expected.
      const child = spawn(process.execPath, [PLAN_JS, "update-status"], { cwd: dir });
      let stdout = "";
      child.stdout.on("data", (c) => (stdout += c));
      child.stdin.on("error", () => undefined);
      child.stdin.end(`[${" ".repeat(65 << 20)}]`);
      const code = await new Promise((done) => child.on("close", done));
      assert.equal(code, 1);
      assert.deepEqual(JSON.parse(stdout), { ok: false, error: "Input too large: stdin holds more than 64 MiB", code: "E_READ" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
