// CLI conventions (contract 1.1-1.4) on the built bundle.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { builtinModules } from "node:module";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cli, cliSync, PLAN_JS } from "../helpers/cli.ts";
import { planWith, writeFiles } from "../helpers/design-dir.ts";
import { commandNames } from "../../src/registry.ts";

const scratch = () => mkdtempSync(join(tmpdir(), "do-cli-"));

describe("the bundle", () => {
  it("requires nothing but Node's own modules and its own files in dist/ at run time", () => {
    // dist/plan.js, one file per command under dist/commands/ and the shared chunks under dist/chunks/
    // (scripts/build.mjs); finalize requires dist/zod.js.
    const dist = dirname(PLAN_JS);
    const under = (d: string) => readdirSync(join(dist, d), { recursive: true }).filter((f) => String(f).endsWith(".js")).map((f) => join(dist, d, String(f)));
    const files = [PLAN_JS, ...under("commands"), ...under("chunks")];
    const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
    const foreign = files.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/require\(["']([^"']+)["']\)/g)]
        .map((m) => m[1])
        .filter((r) => !builtins.has(r) && !(/^\.\.?\//.test(r) && existsSync(join(dirname(file), r)) && join(dirname(file), r).startsWith(`${dist}/`)))
        .map((r) => `${file}: ${r}`),
    );
    assert.deepEqual(foreign, []);
  });

  it("bundles gray-matter (and js-yaml's safe schema only) into skill-find's file and no other", () => {
    const dist = dirname(PLAN_JS);
    const under = (d: string) => readdirSync(join(dist, d), { recursive: true }).filter((f) => String(f).endsWith(".js")).map((f) => join(dist, d, String(f)));
    const files = [PLAN_JS, join(dist, "permit.js"), ...under("commands"), ...under("chunks")];
    const withYaml = files.filter((f) => readFileSync(f, "utf8").includes("YAMLException")).map((f) => f.slice(dist.length + 1));
    assert.deepEqual(withYaml, ["commands/skills/find.js"]);
    const find = readFileSync(join(dist, "commands/skills/find.js"), "utf8");
    assert.ok(!find.includes("esprima") && !find.includes("tag:yaml.org,2002:js/function"), "js-yaml's full schema (!!js/function, esprima) is not bundled");
  });

  it("required rather than started, runs nothing and exports run(), which answers as the command line does", async () => {
    const dir = scratch();
    try {
      writeFiles(dir, { ".design/plan.json": planWith(["api", { name: "web", deps: ["api"] }]) });
      const lines = [["status"], ["team-name", "design"], ["bogus"], [], ["summary", "../outside.json"], ["update-status"]];
      // A child requires the bundle and prints what run() returns for each command line, then its own exit code.
      const script = [
        `const m = require(${JSON.stringify(PLAN_JS)});`,
        "(async () => {",
        `  for (const argv of ${JSON.stringify(lines)}) {`,
        '    const r = await m.run(argv, { cwd: process.cwd(), now: () => Date.now(), stdin: async () => "[]" });',
        "    process.stdout.write(JSON.stringify([r.exitCode, r.output]) + '\\n');",
        "  }",
        "  process.stdout.write(JSON.stringify({ exports: Object.keys(m), exitCode: process.exitCode ?? null }) + '\\n');",
        "})();",
      ].join("\n");
      const child = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
        const c = spawn(process.execPath, ["-e", script], { cwd: dir });
        let stdout = "";
        let stderr = "";
        c.stdout.on("data", (d) => (stdout += d));
        c.stderr.on("data", (d) => (stderr += d));
        c.on("close", (code) => done({ code, stdout, stderr }));
      });
      assert.equal(child.stderr, "");
      assert.equal(child.code, 0);
      const out = child.stdout.trim().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(out.at(-1), { exports: ["run"], exitCode: null }, "nothing ran on require, no exit code set");
      for (const [i, argv] of lines.entries()) {
        const r = await cli(argv, { cwd: dir, stdin: "[]" });
        assert.deepEqual(out[i], [r.code, r.json], `run(${JSON.stringify(argv)}) answers as the process does`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("starts with a shebang", () => {
    assert.ok(readFileSync(PLAN_JS, "utf8").startsWith("#!/usr/bin/env node\n"));
  });
});

describe("command line", () => {
  it("answers --help for every command with ok, usage and arguments", async () => {
    const dir = scratch();
    try {
      const outs = await Promise.all(commandNames.map((name) => cli([name, "--help"], { cwd: dir })));
      outs.forEach((r, i) => {
        assert.equal(r.code, 0, `${commandNames[i]}: ${r.stdout}`);
        assert.equal(r.json.ok, true);
        assert.equal(r.json.command, commandNames[i]);
        assert.match(r.json.usage, new RegExp(`^${commandNames[i]}`));
        assert.ok(Array.isArray(r.json.arguments));
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("treats --help after a value flag as that flag's value", () => {
    const dir = scratch();
    try {
      const r = cliSync(["memory-search", "--goal", "--help"], { cwd: dir });
      assert.equal(r.code, 0);
      assert.equal(r.json.ok, true);
      assert.equal(r.json.command, undefined, "not the help document");
      assert.deepEqual(r.json.memories, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lists every command when none is given", () => {
    const r = cliSync([], { cwd: tmpdir() });
    assert.equal(r.code, 1);
    assert.deepEqual(r.json.commands, commandNames);
  });

  it("accepts flags before, between and after positionals, and --flag=value", () => {
    const dir = scratch();
    try {
      writeFiles(dir, { "m.jsonl": [{ id: "a", timestamp: "2026-01-01T00:00:00Z", category: "pattern", keywords: ["api"], content: "rest api", importance: 5 }] });
      const a = cliSync(["memory-search", "--goal", "rest api", "m.jsonl", "--limit=1"], { cwd: dir });
      const b = cliSync(["memory-search", "m.jsonl", "--limit", " 1 ", "--goal=rest api"], { cwd: dir });
      assert.equal(a.code, 0, a.stdout);
      assert.equal(a.json.memories.length, 1);
      assert.deepEqual(a.json.memories.map((m: { id: string }) => m.id), b.json.memories.map((m: { id: string }) => m.id));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("does not wait for stdin in a command that does not read it", async () => {
    const dir = scratch();
    try {
      writeFiles(dir, { ".design/plan.json": planWith(["a"]) });
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [PLAN_JS, "status"], { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
        let s = "";
        child.stdout.on("data", (c) => (s += c));
        const timer = setTimeout(() => reject(new Error("status blocked on an open stdin")), 5000);
        child.on("close", () => {
          clearTimeout(timer);
          resolve(s);
        });
      });
      assert.equal(JSON.parse(out).ok, true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it("writes a large answer whole to a slow reader, through a blocking or a non-blocking pipe", async () => {
    // The answer is written with write(2), not through process.stdout. When stdout is non-blocking (here: a preload
    // builds process.stdout, whose libuv pipe sets O_NONBLOCK; in life another process sharing the pipe can), what
    // would block is handed to the stream, which waits for the reader.
    const dir = scratch();
    try {
      const big = "retry queue worker ".repeat(40_000);
      const lines = [0, 1, 2, 3].map((i) => JSON.stringify({
        id: `m${i}`, timestamp: "2026-01-01T00:00:00Z", category: "pattern", keywords: ["queue", "retry"], content: `${big}${i}`,
        source: "test", goal_context: "", importance: 5, usage_count: 0,
      }));
      writeFiles(dir, { ".design/memory.jsonl": `${lines.join("\n")}\n`, "nonblock.cjs": "process.stdout;\n" });
      const search = [PLAN_JS, "memory-search", "--goal", "retry queue", "--keywords", "queue", "--limit", "4"];
      for (const args of [search, ["--require", join(dir, "nonblock.cjs"), ...search]]) {
        const { text, code } = await new Promise<{ text: string; code: number | null }>((resolve) => {
          const child = spawn(process.execPath, args, { cwd: dir, stdio: ["ignore", "pipe", "ignore"] });
          const chunks: Buffer[] = [];
          child.stdout.pause();
          setTimeout(() => child.stdout.resume(), 300);
          child.stdout.on("data", (c: Buffer) => chunks.push(c));
          child.on("close", (c) => resolve({ text: Buffer.concat(chunks).toString("utf8"), code: c }));
        });
        assert.equal(code, 0);
        assert.ok(text.length > 3_000_000 && text.endsWith("}\n"), `${text.length} bytes`);
        const out = JSON.parse(text);
        assert.equal(out.ok, true);
        assert.equal(out.memories.length, 4);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("loads no stream, net, crypto, assert or fs/promises module in the calls on the main path", async () => {
    // Each of these costs milliseconds of every call (bench/README.md): process.stdout builds the streams stack (net
    // for a pipe), node:assert builds process.stderr, a clone of node:fs loads fs/promises and readline, node:crypto
    // some twenty modules. A preload records what the process loaded.
    const dir = scratch();
    try {
      writeFiles(dir, {
        ".design/plan.json": planWith(["a", "b"]),
        "loaded.cjs": 'process.on("exit", () => require("fs").writeFileSync(process.env.DO_LOADED, process.moduleLoadList.join("\\n")));\n',
      });
      const calls: Array<[string[], string?]> = [
        [["status"]],
        [["update-status"], '[{"roleIndex":0,"status":"in_progress"}]'],
        [["memory-add", "--category", "pattern", "--keywords", "zebras", "--content", "a learning about zebras"]],
        [["run-start", "execute", "--phases", "one,two", "--goal", "g"]], // hashes the goal: node:crypto (not checked)
        [["run-checkpoint", "execute", "--phase", "one"]],
        [["preflight", "execute"]],
        [["overlap-matrix"]],
        [["skill-find"]], // not on the main path: gray-matter and js-yaml load no forbidden module either
      ];
      const forbidden = /^NativeModule (net|stream|crypto|assert|readline|internal\/fs\/promises|internal\/streams\/readable)$/;
      for (const [args, stdin] of calls) {
        const out = join(dir, "loaded.txt");
        const { code, text } = await new Promise<{ code: number | null; text: string }>((resolve) => {
          const child = spawn(process.execPath, ["--require", join(dir, "loaded.cjs"), PLAN_JS, ...args], {
            cwd: dir, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, DO_LOADED: out },
          });
          let s = "";
          child.stdout.on("data", (c) => (s += c));
          child.stdin.end(stdin ?? "");
          child.on("close", (c) => resolve({ code: c, text: s }));
        });
        assert.equal(code, 0, `${args[0]}: ${text}`);
        assert.equal(JSON.parse(text).ok, true, args[0]);
        const loaded = readFileSync(out, "utf8").split("\n");
        if (args[0] !== "run-start") assert.deepEqual(loaded.filter((m) => forbidden.test(m)), [], args[0]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
