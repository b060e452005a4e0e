// Without Node.js 18+ on PATH (Claude Code's native installer needs none): the PreToolUse hook's command exits 0
// and prints nothing, and the SessionStart check (hooks/node-check.sh, plain sh) says once what to install. Both are
// run here as Claude Code runs them, `/bin/sh -c <command>` with ${CLAUDE_PLUGIN_ROOT} substituted (measured on
// 2.1.197 and 2.1.332: test/e2e/no-node.test.ts), against a PATH whose `node` is missing, old, broken or real.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIN_NODE_MAJOR, supportedNode } from "../../src/hooks/node-version.ts";
import { ROOT } from "./plugin-files.ts";

const hooks = JSON.parse(readFileSync(join(ROOT, "hooks", "hooks.json"), "utf8")).hooks;
const command = (event: string) => {
  const entries = hooks[event];
  assert.equal(entries?.length, 1, `one ${event} entry`);
  assert.equal(entries[0].hooks.length, 1);
  assert.equal(entries[0].hooks[0].type, "command");
  return String(entries[0].hooks[0].command).replaceAll("${CLAUDE_PLUGIN_ROOT}", ROOT);
};

let base: string;
/** A PATH folder holding the tools the hook commands may use (sh, tr, cut) and, when given, a `node` script. */
function pathWith(node?: string): string {
  const d = mkdtempSync(join(base, "bin-"));
  for (const tool of ["sh", "tr", "cut", "cat"]) {
    const found = spawnSync("/bin/sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
    assert.ok(found, `${tool} is on this machine`);
    symlinkSync(found, join(d, tool));
  }
  if (node !== undefined) {
    writeFileSync(join(d, "node"), node);
    chmodSync(join(d, "node"), 0o755);
  }
  return d;
}
/** A `node` that prints a version and, asked to run anything, fails the way a too-old node fails on the bundle. */
const oldNode = (version: string) => `#!/bin/sh\nif [ "$1" = --version ]; then echo ${version}; exit 0; fi\necho "SyntaxError: Unexpected token '?'" >&2\nexit 1\n`;
/** The real node, under the name `node`. */
const realNode = () => `#!/bin/sh\nexec "${process.execPath}" "$@"\n`;

function sh(cmd: string, PATH: string, input = "") {
  return spawnSync("/bin/sh", ["-c", cmd], { input, encoding: "utf8", env: { PATH, HOME: base, CLAUDE_PLUGIN_ROOT: ROOT } });
}

/** A hook event whose Bash call the hook approves (a skill's own helper call, from a project holding .design/). */
function approvable(project: string): string {
  return JSON.stringify({
    hook_event_name: "PreToolUse",
    permission_mode: "default",
    cwd: project,
    tool_name: "Bash",
    tool_input: { command: `node "${ROOT}/skills/execute/scripts/plan.js" next .design/plan.json`, description: "x" },
  });
}

before(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "do-node-check-")));
});
after(() => rmSync(base, { recursive: true, force: true }));

describe("the Node.js version the plugin supports", () => {
  it("is one number, the same in package.json engines and README's requirements", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    assert.equal(pkg.engines.node, `>=${MIN_NODE_MAJOR}`);
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const install = readme.slice(readme.indexOf("## Install"));
    assert.match(install.split("\n").slice(1, 6).join("\n"), new RegExp(`Node\\.js ${MIN_NODE_MAJOR}`), "README's install section names Node.js first");
    assert.match(readme, new RegExp(`- Node\\.js ${MIN_NODE_MAJOR} or newer`));
  });

  it("supportedNode reads process.versions.node", () => {
    for (const v of ["18.0.0", "18.20.4", "20.20.2", "22.1.0", "100.0.0"]) assert.equal(supportedNode(v), true, v);
    for (const v of ["17.9.1", "16.20.2", "9.1.0", "0.12.18", "", "v20.1.0", "x.1", "18"]) assert.equal(supportedNode(v), false, v);
  });
});

describe("the PreToolUse hook command", () => {
  let project: string;
  before(() => {
    project = join(base, "project");
    mkdirSync(join(project, ".design"), { recursive: true });
  });

  it("runs dist/permit.js through sh and is silent, exit 0, where node is missing or fails", () => {
    const cmd = command("PreToolUse");
    assert.equal(cmd, `node "${ROOT}/dist/permit.js" 2>/dev/null || exit 0`);
    for (const [what, PATH] of [
      ["no node on PATH", pathWith()],
      ["a node too old to parse the bundle", pathWith(oldNode("v12.22.12"))],
      ["a node that is not executable", (() => { const d = pathWith("not a program"); chmodSync(join(d, "node"), 0o644); return d; })()],
    ] as const) {
      const r = sh(cmd, PATH, approvable(project));
      assert.equal(r.status, 0, `${what}: ${r.stderr}`);
      assert.equal(r.stdout, "", what);
      assert.equal(r.stderr, "", what);
    }
  });

  it("with a supported node, approves the helper call as before", () => {
    const r = sh(command("PreToolUse"), pathWith(realNode()), approvable(project));
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision, "allow");
  });

  it("has no opinion on a node older than the plugin supports that still runs the bundle", () => {
    // A node that runs permit.js but reports an unsupported release (process.versions.node set before it loads).
    const preload = join(base, "old-version.cjs");
    writeFileSync(preload, 'Object.defineProperty(process.versions, "node", { value: "16.20.2" });\n');
    // Only the environment Claude Code gives a hook (none of the test runner's, e.g. a CLAUDE_PROJECT_DIR).
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: base };
    const r = spawnSync(process.execPath, ["-r", preload, join(ROOT, "dist", "permit.js")], { input: approvable(project), encoding: "utf8", env });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, "");
    const control = spawnSync(process.execPath, [join(ROOT, "dist", "permit.js")], { input: approvable(project), encoding: "utf8", env });
    assert.notEqual(control.stdout, "", "the same event is approved on this node");
  });
});

describe("the SessionStart check (hooks/node-check.sh)", () => {
  const check = (PATH: string) => {
    const r = sh(command("SessionStart"), PATH, JSON.stringify({ hook_event_name: "SessionStart", source: "startup" }));
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, "");
    return r.stdout;
  };
  const message = (PATH: string) => {
    const out = check(PATH);
    assert.notEqual(out, "", "the check said nothing");
    const doc = JSON.parse(out);
    assert.deepEqual(Object.keys(doc).sort(), ["hookSpecificOutput", "systemMessage"]);
    assert.equal(doc.hookSpecificOutput.hookEventName, "SessionStart");
    for (const text of [doc.systemMessage, doc.hookSpecificOutput.additionalContext]) {
      assert.match(text, /Node\.js 18\+ on PATH/);
      assert.match(text, /Install Node\.js 18 or newer \(nodejs\.org, nvm, or your package manager\)/);
      assert.match(text, /restart Claude Code/);
    }
    return doc;
  };

  it("is a plain sh script run with sh (no Node, no exec bit needed)", () => {
    assert.equal(command("SessionStart"), `sh "${ROOT}/hooks/node-check.sh"`);
    assert.equal(hooks.SessionStart[0].matcher, undefined, "every session start: startup, resume, clear, compact");
  });

  it("says nothing where node is 18 or newer", () => {
    for (const v of ["v18.0.0", "v18.20.4", "v19.9.0", "v20.20.2", "v22.11.0", "v100.1.0"]) assert.equal(check(pathWith(oldNode(v))), "", v);
    assert.equal(check(pathWith(realNode())), "", process.version);
  });

  it("names what it found and what to install where node is missing or older", () => {
    assert.match(message(pathWith()).systemMessage, /found no node\./);
    for (const v of ["v17.9.1", "v16.20.2", "v14.21.3", "v9.11.2", "v0.12.18"]) assert.match(message(pathWith(oldNode(v))).systemMessage, new RegExp(`found node ${v.replaceAll(".", "\\.")}\\.`), v);
    assert.match(message(pathWith("#!/bin/sh\nexit 3\n")).systemMessage, /found a node that does not print its version/);
  });

  it("keeps what a node prints out of the JSON but its version digits", () => {
    for (const out of ['v1"7.0.0\\n"}', "v16.0.0 $(id) `id`", "v".repeat(200)]) {
      const doc = message(pathWith(`#!/bin/sh\nprintf '%s' '${out.replaceAll("'", "")}'\n`));
      const found = /found (.*?)\. Install/.exec(doc.systemMessage)?.[1] ?? "";
      assert.match(found, /^(node v[0-9.]{1,23}|a node that does not print its version)$/, out);
    }
  });
});
