// Sample projects for the sessions: a small Node codebase under git, with an optional .design/ state.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface Sample {
  dir: string;
  path(rel: string): string;
  read(rel: string): string;
  json(rel: string): any;
  jsonl(rel: string): any[];
  exists(rel: string): boolean;
  list(rel: string): string[];
  write(rel: string, content: string | object): void;
}

export function sampleAt(dir: string): Sample {
  const path = (rel: string) => join(dir, rel);
  return {
    dir,
    path,
    read: (rel) => readFileSync(path(rel), "utf8"),
    json: (rel) => JSON.parse(readFileSync(path(rel), "utf8")),
    jsonl: (rel) =>
      readFileSync(path(rel), "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l)),
    exists: (rel) => existsSync(path(rel)),
    list: (rel) => (existsSync(path(rel)) ? readdirSync(path(rel)).sort() : []),
    write: (rel, content) => {
      mkdirSync(dirname(path(rel)), { recursive: true });
      writeFileSync(path(rel), typeof content === "string" ? content : JSON.stringify(content, null, 2) + "\n");
    },
  };
}

const FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "todo-api", version: "1.0.0", private: true, scripts: { test: "node --test" } }, null, 2) + "\n",
  "README.md": "# todo-api\n\nA tiny todo service used as the sample project of the do end-to-end tests.\n",
  "src/db/store.js": "const todos = new Map();\nmodule.exports = { todos };\n",
  "src/api/server.js": "const { todos } = require('../db/store');\nmodule.exports = function list() { return [...todos.values()]; };\n",
  "src/ui/index.html": "<!doctype html><title>todos</title>\n",
  "test/store.test.js": "const test = require('node:test');\ntest('store loads', () => require('../src/db/store'));\n",
  // A project skill for /do:improve to analyse.
  ".claude/skills/greet/SKILL.md":
    "---\nname: greet\ndescription: Use when the user wants a greeting.\n---\n\n# Greet\n\nSay hello to the user by name. If no name is given, ask for it.\n",
};

/** A fresh sample project (git repository, one commit) in a temp folder; removed by `cleanup`. */
export function sampleProject(prefix = "do-e2e-proj-"): Sample {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const s = sampleAt(dir);
  for (const [rel, content] of Object.entries(FILES)) s.write(rel, content);
  const git = (...args: string[]) =>
    spawnSync("git", ["-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "-c", "init.defaultBranch=main", ...args], { cwd: dir, encoding: "utf8" });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "sample project");
  return s;
}

/** A copy of a project's current state, to run a second skill on the same starting point. */
export function forkProject(from: Sample, prefix = "do-e2e-fork-"): Sample {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(from.dir, dir, { recursive: true });
  return sampleAt(dir);
}

export function cleanup(...dirs: (string | undefined)[]): void {
  if (process.env.DO_E2E_KEEP) return;
  for (const d of dirs) if (d) rmSync(d, { recursive: true, force: true });
}

/** A copy of a plugin's files (manifests, skills, commands, hooks, dist), to break on purpose. */
export function pluginCopy(from: string, prefix = "do-e2e-plugin-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const d of [".claude-plugin", "skills", "commands", "hooks", "dist"]) {
    if (existsSync(join(from, d))) cpSync(join(from, d), join(dir, d), { recursive: true, verbatimSymlinks: true });
  }
  return dir;
}

/** Replace text in a file of a plugin copy; throws when the text is not there (the mutation would prove nothing). */
export function mutate(dir: string, rel: string, from: string | RegExp, to: string): void {
  const path = join(dir, rel);
  const text = readFileSync(path, "utf8");
  const next = text.replace(from, to);
  if (next === text) throw new Error(`${rel}: ${from} not found`);
  writeFileSync(path, next);
}
