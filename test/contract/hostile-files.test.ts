// Hostile files: a FIFO, a device, a symlink to /dev/zero, a folder or an oversized file where the helper or the
// hook expects a small JSON file. Every read answers at once with a refusal ({ok:false}) instead of blocking on the
// FIFO, reading /dev/zero until memory runs out, or loading a file of any size. Each case runs in a child process
// killed after a deadline, so a regression fails here instead of hanging the suite.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { planWith, writeFiles } from "../helpers/design-dir.ts";
import { PLAN_JS } from "../helpers/cli.ts";

const ROOT = resolve(__dirname, "../..");
/** Long enough for a loaded machine; a blocked read never finishes at all. */
const DEADLINE_MS = 30_000;
const MiB = 1024 * 1024;

function mkfifo(path: string): void {
  const r = spawnSync("mkfifo", [path]);
  assert.equal(r.status, 0, `mkfifo ${path}: ${r.stderr}`);
}

/** A sparse file of `size` bytes: as large as it says, without the disk space. */
function sparse(path: string, size: number): void {
  const fd = openSync(path, "w");
  closeSync(fd);
  spawnSync("truncate", ["-s", String(size), path]);
}

/** A command in a child process with a deadline; the child is killed when it passes. */
function bounded(args: string[], cwd: string, stdin = ""): { killed: boolean; json: any; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, args, { cwd, input: stdin, encoding: "utf8", timeout: DEADLINE_MS, killSignal: "SIGKILL" });
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { killed: r.signal !== null, json, stdout: r.stdout, stderr: r.stderr };
}

let base = "";
before(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "do-hostile-")));
});
after(() => rmSync(base, { recursive: true, force: true }));

describe("readSmallRegular (the hook's and the store's reader)", () => {
  it("refuses a FIFO, a link to /dev/zero, a device, a folder and an oversized file at once; reads a small file", () => {
    const dir = join(base, "unit");
    mkdirSync(dir);
    mkfifo(join(dir, "fifo.json"));
    symlinkSync("/dev/zero", join(dir, "zero.json"));
    symlinkSync("small.json", join(dir, "link.json"));
    writeFileSync(join(dir, "small.json"), '{"a":1}');
    sparse(join(dir, "big.json"), 2 * MiB);
    mkdirSync(join(dir, "folder.json"));
    const script = `
      const { readSmallRegular, readSmallText } = require(${JSON.stringify(join(ROOT, "src/base/safe-read.ts"))});
      const d = ${JSON.stringify(dir)};
      const cap = ${MiB};
      const show = (r) => (r.ok ? { ok: true, text: r.bytes.toString("utf8") } : { ok: false, reason: r.reason, error: r.error });
      const out = {
        fifo: show(readSmallRegular(d + "/fifo.json", cap)),
        zero: show(readSmallRegular(d + "/zero.json", cap)),
        zeroNoFollow: show(readSmallRegular(d + "/zero.json", cap, { noFollow: true })),
        devNull: show(readSmallRegular("/dev/null", cap)),
        big: show(readSmallRegular(d + "/big.json", cap)),
        folder: show(readSmallRegular(d + "/folder.json", cap)),
        missing: show(readSmallRegular(d + "/nothing.json", cap)),
        small: show(readSmallRegular(d + "/small.json", cap)),
        exact: show(readSmallRegular(d + "/small.json", 7)),
        overByOne: show(readSmallRegular(d + "/small.json", 6)),
        link: show(readSmallRegular(d + "/link.json", cap)),
        linkNoFollow: show(readSmallRegular(d + "/link.json", cap, { noFollow: true })),
        text: readSmallText(d + "/small.json", cap),
      };
      process.stdout.write(JSON.stringify(out));
    `;
    const r = bounded(["--import", "tsx", "-e", script], ROOT);
    assert.equal(r.killed, false, "a read blocked past the deadline");
    const o = r.json;
    assert.ok(o, r.stderr);
    assert.deepEqual(
      Object.fromEntries(Object.entries(o).map(([k, v]: [string, any]) => [k, v.ok ? "ok" : v.reason])),
      {
        fifo: "not_regular", zero: "not_regular", zeroNoFollow: "link", devNull: "not_regular", big: "too_large",
        folder: "not_regular", missing: "missing", small: "ok", exact: "ok", overByOne: "too_large", link: "ok",
        linkNoFollow: "link", text: "ok",
      },
    );
    assert.match(o.fifo.error, /fifo\.json is a FIFO, not a regular file$/);
    assert.match(o.zero.error, /zero\.json is a character device, not a regular file$/);
    assert.match(o.big.error, /big\.json is larger than 1 MiB \(2097152 bytes\)$/);
    assert.equal(o.small.text, '{"a":1}');
    assert.deepEqual(o.text, { ok: true, text: '{"a":1}' });
  });
});

describe("the helper meets hostile files in .design/", () => {
  /** A project whose `.design/<name>` is a FIFO (plus whatever `files` adds). */
  function withFifo(name: string, files: Record<string, unknown> = {}): string {
    const dir = join(base, `fifo-${name.replace(/\W/g, "-")}-${Math.random().toString(16).slice(2)}`);
    writeFiles(dir, { ".design/.keep": "", ...files });
    mkfifo(join(dir, ".design", name));
    return dir;
  }
  /** A project whose `.design/<name>` is a sparse file of `size` bytes. */
  function withHuge(name: string, size: number, files: Record<string, unknown> = {}): string {
    const dir = join(base, `huge-${name.replace(/\W/g, "-")}-${Math.random().toString(16).slice(2)}`);
    writeFiles(dir, { ".design/.keep": "", ...files });
    sparse(join(dir, ".design", name), size);
    return dir;
  }

  const FIFO_CASES: Array<{ name: string; file: string; args: string[]; stdin?: string; files?: Record<string, unknown>; error: RegExp; exit0?: boolean }> = [
    { name: "status reads a FIFO plan", file: "plan.json", args: ["status"], error: /^invalid_json$/ },
    { name: "update-status reads a FIFO plan", file: "plan.json", args: ["update-status"], stdin: '[{"roleIndex":0,"status":"in_progress"}]', error: /^Error reading plan file: .*is a FIFO/ },
    { name: "finalize reads a FIFO plan", file: "plan.json", args: ["finalize"], error: /is a FIFO/ },
    { name: "memory-search reads a FIFO memory file", file: "memory.jsonl", args: ["memory-search", "--goal", "api"], error: /^Error reading memory file: .*is a FIFO/ },
    { name: "memory-add appends to a FIFO memory file", file: "memory.jsonl", args: ["memory-add", "--category", "pattern", "--keywords", "eslint", "--content", "Run eslint --fix before a commit"], error: /^Error reading memory file: .*is a FIFO/ },
    { name: "reflection-add appends to a FIFO reflection file", file: "reflection.jsonl", args: ["reflection-add", "--skill", "design", "--goal", "g", "--outcome", "completed"], stdin: "{}", error: /is a FIFO/ },
    { name: "run-checkpoint reads a FIFO run state", file: "run-design.json", args: ["run-checkpoint", "design", "--phase", "a"], error: /is a FIFO/ },
    { name: "run-status reads a FIFO run state", file: "run-design.json", args: ["run-status", "design"], error: /is a FIFO/ },
    { name: "recon-rank reads a FIFO draft", file: "tmp-draft.json", args: ["recon-rank", ".design/tmp-draft.json"], error: /^Error reading recon draft: .*is a FIFO/ },
    { name: "workflow replaces a FIFO workflow.js only after reading it", file: "workflow.js", args: ["workflow"], files: { ".design/plan.json": planWith(["a"]) }, error: /is a FIFO/ },
  ];

  for (const c of FIFO_CASES) {
    it(c.name, () => {
      const dir = withFifo(c.file, c.files);
      const r = bounded([PLAN_JS, ...c.args], dir, c.stdin);
      assert.equal(r.killed, false, "blocked on the FIFO");
      assert.equal(r.json?.ok, false, r.stdout);
      assert.match(r.json.error, c.error);
      assert.match(JSON.stringify(r.json), /is a FIFO, not a regular file/);
      assert.ok(existsSync(join(dir, ".design", c.file)));
    });
  }

  it("preflight and plan-view, which always exit 0, report a FIFO plan, memory and run state as problems", () => {
    const dir = withFifo("plan.json");
    mkfifo(join(dir, ".design/memory.jsonl"));
    mkfifo(join(dir, ".design/run-design.json"));
    mkfifo(join(dir, ".design/reflection.jsonl"));
    for (const args of [["preflight", "design"], ["plan-view"], ["health-check"], ["plan-health-summary"]]) {
      const r = bounded([PLAN_JS, ...args], dir);
      assert.equal(r.killed, false, `${args[0]} blocked on a FIFO`);
      assert.ok(r.json, `${args[0]}: ${r.stdout}${r.stderr}`);
    }
    const pre = bounded([PLAN_JS, "preflight", "design"], dir);
    assert.equal(pre.json.ok, true);
    assert.ok(pre.json.problems.some((p: string) => /memory\.jsonl: cannot read: .*is a FIFO/.test(p)), pre.stdout);
  });

  it("run-start hashes a FIFO input as missing instead of waiting for a writer", () => {
    const dir = withFifo("input.json");
    const r = bounded([PLAN_JS, "run-start", "design", "--phases", "a", "--inputs", ".design/input.json"], dir);
    assert.equal(r.killed, false);
    assert.equal(r.json?.ok, true, r.stdout);
    assert.deepEqual(r.json.missingInputs, [".design/input.json"]);
  });

  it("sync-check and skill-find meet a FIFO named SKILL.md", () => {
    const dir = join(base, "skills-fifo");
    for (const s of ["design", "execute", "recon", "improve", "reflect"]) mkdirSync(join(dir, "skills", s), { recursive: true });
    for (const s of ["design", "execute", "recon", "improve", "reflect"]) mkfifo(join(dir, "skills", s, "SKILL.md"));
    mkdirSync(join(dir, ".claude/skills/evil"), { recursive: true });
    mkfifo(join(dir, ".claude/skills/evil/SKILL.md"));
    const sync = bounded([PLAN_JS, "sync-check", "skills"], dir);
    assert.equal(sync.killed, false);
    assert.match(sync.json?.error, /^Error reading SKILL\.md for skill design: .*is a FIFO/);
    const find = bounded([PLAN_JS, "skill-find", "--source", "project"], dir);
    assert.equal(find.killed, false);
    assert.ok(find.json, find.stdout);
  });

  it("refuses plan, run state and memory files over their caps without reading them", () => {
    const cases: Array<[string, number, string[], RegExp]> = [
      ["plan.json", 64 * MiB + 1, ["finalize"], /^Error reading plan file: .*larger than 64 MiB/],
      ["run-design.json", 4 * MiB + 1, ["run-checkpoint", "design", "--phase", "a"], /larger than 4 MiB/],
      ["memory.jsonl", 256 * MiB + 1, ["memory-search", "--goal", "api"], /^Error reading memory file: .*larger than 256 MiB/],
      ["memory.jsonl", 256 * MiB + 1, ["memory-add", "--category", "pattern", "--keywords", "eslint", "--content", "Run eslint --fix before a commit"], /^Error reading memory file: .*larger than 256 MiB/],
    ];
    for (const [file, size, args, error] of cases) {
      const dir = withHuge(file, size);
      const r = bounded([PLAN_JS, ...args], dir);
      assert.equal(r.killed, false, `${args[0]} took past the deadline`);
      assert.equal(r.json?.ok, false, `${args[0]}: ${r.stdout}`);
      assert.match(r.json.error, error, args[0]);
    }
  });
});
