// A granted execute project inside a real git repository, for commit, clean-attempt and finish: the plan, an open
// execute run, the user's grant (approved as grant-approve.js records it) and a first commit of the project's files.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestContext } from "node:test";
import { project, type Files, type Project } from "./design-dir.ts";

export const PLAN = ".design/plan.json";
export const RUN_STATE = { schemaVersion: 1, skill: "execute", runId: "run-1", completedAt: null };

/** git in the project, with its own identity and no user or system configuration. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" } });
}

export interface GitProject extends Project {
  git: (...args: string[]) => string;
  write: (rel: string, text: string) => void;
  /** The paths of HEAD's commit, with their status letter: "A src/api/a.ts". */
  headFiles: () => string[];
  /** `git status --porcelain` lines, but those of `.design/`. */
  status: () => string[];
  /** A folder outside the project for marker files. */
  outside: string;
}

/**
 * A project with `plan` and `files`, a git repository holding them all in one first commit (`repo` false: none),
 * an open execute run and an approved grant.
 */
export async function gitProject(t: TestContext, plan: unknown, files: Files = {}, opts: { repo?: boolean; grant?: boolean } = {}): Promise<GitProject> {
  const p = project(t, { [PLAN]: plan, ".design/run-execute.json": RUN_STATE, ...files });
  const outside = mkdtempSync(join(tmpdir(), "do-outside-"));
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  if (opts.repo !== false) {
    git(p.dir, "init", "-q", "-b", "main");
    git(p.dir, "config", "user.name", "Test User");
    git(p.dir, "config", "user.email", "test@example.com");
    git(p.dir, "config", "commit.gpgSign", "false");
    git(p.dir, "add", "-A");
    git(p.dir, "commit", "-q", "-m", "start");
  }
  if (opts.grant !== false) {
    const g: any = await p.run("grant", ["--approve"], { consent: true });
    assert.equal(g.recorded, true, JSON.stringify(g));
  }
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(p.dir, rel)), { recursive: true });
    writeFileSync(join(p.dir, rel), text);
  };
  return {
    ...p,
    outside,
    git: (...args) => git(p.dir, ...args),
    write,
    headFiles: () => git(p.dir, "show", "--name-status", "--format=", "-z", "HEAD").split("\0").filter(Boolean).reduce<string[]>((acc, v, i, all) => (i % 2 === 0 ? [...acc, `${v} ${all[i + 1]}`] : acc), []),
    status: () => git(p.dir, "status", "--porcelain", "--untracked-files=all").split("\n").filter((l) => l !== "" && !l.slice(3).startsWith(".design/")),
  };
}

/** An executable script outside the project that creates `marker` when anything runs it. */
export function markerScript(dir: string, name: string, marker: string, tail = ""): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\ntouch '${marker}'\n${tail}\n`);
  chmodSync(path, 0o755);
  return path;
}

export const exists = existsSync;
