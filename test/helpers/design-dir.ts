// Throwaway project folders for tests: a temp dir with files written from objects, removed after the test.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestContext } from "node:test";
import { makeContext, type Context, type Result } from "../../src/lib/command/command.ts";
import { invoke } from "../../src/main.ts";

export type Files = Record<string, unknown>;

/** Write files (objects become JSON, arrays of objects under *.jsonl become JSONL, strings stay text). */
export function writeFiles(dir: string, files: Files): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    let text: string;
    if (typeof content === "string") text = content;
    else if (rel.endsWith(".jsonl") && Array.isArray(content)) text = content.map((e) => JSON.stringify(e)).join("\n") + "\n";
    else text = JSON.stringify(content, null, 2);
    writeFileSync(p, text);
  }
}

export interface Project {
  dir: string;
  ctx: (opts?: { stdin?: string; now?: number; consent?: boolean }) => Context;
  /**
   * Run a command in-process; returns its JSON document with `exitCode` beside it. `consent` stands for the user's
   * approval of the `grant-approve.js` call (what that entry sets).
   */
  run: (name: string, argv?: string[], opts?: { stdin?: string; now?: number; consent?: boolean }) => Promise<Result & { exitCode: number }>;
  read: (rel: string) => string;
  json: (rel: string) => any;
  exists: (rel: string) => boolean;
  list: (rel: string) => string[];
}

export function project(t: TestContext, files: Files = {}): Project {
  const dir = mkdtempSync(join(tmpdir(), "do-test-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFiles(dir, files);
  const ctx = (opts: { stdin?: string; now?: number; consent?: boolean } = {}) => makeContext(dir, opts);
  return {
    dir,
    ctx,
    run: async (name, argv = [], opts = {}) => {
      const out = await invoke(name, argv, ctx(opts));
      return { ...out.output, exitCode: out.exitCode };
    },
    read: (rel) => readFileSync(join(dir, rel), "utf8"),
    json: (rel) => JSON.parse(readFileSync(join(dir, rel), "utf8")),
    exists: (rel) => existsSync(join(dir, rel)),
    list: (rel) => readdirSync(join(dir, rel)).sort(),
  };
}

export interface RoleInit {
  name: string;
  deps?: string[];
  dirs?: string[];
  status?: string | null;
  [key: string]: unknown;
}

/**
 * The auxiliary roles finalize requires of every plan (src/lib/plan/plan-rules.ts): challenger and integration-verifier
 * always, a scout because a plan that records no goalType is taken to touch code.
 */
export const REQUIRED_AUXILIARIES = [
  { name: "challenger", type: "pre-execution", trigger: "before-execution", goal: "Find the plan's gaps before any worker starts" },
  { name: "scout", type: "pre-execution", trigger: "before-execution", goal: "Check the plan's assumptions against the code" },
  { name: "integration-verifier", type: "post-execution", trigger: "after-all-roles-complete", goal: "Verify the roles work together" },
  { name: "memory-curator", type: "post-execution", trigger: "after-all-roles-complete", goal: "Keep what this run teaches" },
];

/**
 * A schemaVersion 4 plan whose roles pass finalize unless a test overrides a field. It lists the auxiliaries
 * finalize requires; a plan of 4 or more roles also needs specs or a specsWaiver, which the test gives.
 */
export function planWith(roles: Array<string | RoleInit>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemaVersion: 4,
    goal: "Test goal",
    auxiliaryRoles: REQUIRED_AUXILIARIES.map((a) => ({ ...a })),
    roles: roles.map((r) => {
      const init: RoleInit = typeof r === "string" ? { name: r } : r;
      const { name, deps = [], dirs, status, ...rest } = init;
      const role: Record<string, unknown> = {
        name,
        goal: `Do ${name}`,
        model: "sonnet",
        scope: { directories: dirs ?? [`src/${name}/`], patterns: [], dependencies: deps },
        acceptanceCriteria: [{ criterion: `${name} works`, check: "npm test" }],
        ...rest,
      };
      if (status !== undefined) role.status = status;
      return role;
    }),
    ...extra,
  };
}

/**
 * Evidence `run-checks` would record for role `i` whose checks all passed (or the `failing` ones failed), put into
 * its running attempt (opened here when the role has none): what `update-status … completed` requires. Mutates
 * and returns the plan. For fixtures only: the real evidence comes from run-checks.
 */
export function withEvidence(plan: any, i: number, opts: { failing?: string[]; projectDir?: string } = {}): any {
  const role = plan.roles[i];
  role.status = "in_progress";
  const log = (role.attemptLog ??= []);
  let open = log[log.length - 1];
  if (!open || open.outcome !== "running") {
    open = { attempt: log.length + 1, model: role.model ?? "sonnet", agent: String(role.name), outcome: "running" };
    log.push(open);
  }
  const sha = (s: string | Buffer) => createHash("sha256").update(s).digest("hex");
  const one = (kind: "check" | "spec", command: string, path?: string) => {
    const passed = !(opts.failing ?? []).includes(command);
    const e: Record<string, unknown> = { kind, check: command, sha256: sha(command), exitCode: passed ? 0 : 1, signal: null, timedOut: false, passed, durationMs: 5, output: passed ? "ok" : "not ok", ranAt: "2026-01-01T00:00:00Z" };
    if (kind === "spec") {
      e.spec = path;
      e.specSha256 = opts.projectDir && path && existsSync(join(opts.projectDir, path)) ? sha(readFileSync(join(opts.projectDir, path))) : null;
    }
    return e;
  };
  const evidence = (role.acceptanceCriteria ?? []).map((c: any) => one("check", c.check));
  for (const s of plan.verificationSpecs ?? []) if (s.role === role.name) evidence.push(one("spec", s.runCommand, s.path));
  open.evidence = evidence;
  return plan;
}
