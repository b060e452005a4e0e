// sandboxCheck (src/hooks/sandbox.ts): what a hook can tell about Claude Code's sandbox from the settings files the
// CLI reads, on a scratch HOME, project, managed folder and PATH. The precedence, the widening keys and the
// missing-program rule are the ones measured on 2.1.197 and 2.1.332 (test/e2e/sandbox.test.ts checks the verdicts
// against the real CLI); here every branch, and every file the hook must not trust.
import { after, before, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_SETTINGS_BYTES, projectWidening, readSettingsFile, sandboxCheck, sandboxState, type SandboxOptions } from "../../src/hooks/sandbox.ts";

let root: string;
let n = 0;
let home: string;
let proj: string;
let managed: string;
let bin: string;
let env: NodeJS.ProcessEnv;
const opts = (): SandboxOptions => ({ platform: "linux", managedDir: managed });

const ON = { sandbox: { enabled: true, failIfUnavailable: true } };

function put(path: string, content: unknown): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
}
const user = (c: unknown) => put(join(home, ".claude", "settings.json"), c);
const shared = (c: unknown) => put(join(proj, ".claude", "settings.json"), c);
const local = (c: unknown) => put(join(proj, ".claude", "settings.local.json"), c);
const policy = (c: unknown) => put(join(managed, "managed-settings.json"), c);
function program(dir: string, name: string, mode = 0o755): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, name);
  writeFileSync(p, "#!/bin/sh\nexit 0\n");
  chmodSync(p, mode);
  return p;
}
const check = () => sandboxCheck({ cwd: proj }, env, opts());

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "do-sandbox-")));
});
after(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => {
  const base = join(root, String(++n));
  home = join(base, "home");
  proj = join(base, "proj");
  managed = join(base, "managed");
  bin = join(base, "bin");
  for (const d of [home, proj, managed]) mkdirSync(d, { recursive: true });
  program(bin, "bwrap");
  program(bin, "socat");
  env = { HOME: home, PATH: bin, CLAUDE_PROJECT_DIR: proj };
});

describe("sandboxCheck: which settings turn the sandbox on", () => {
  it("off when no settings file turns it on", () => {
    assert.deepEqual(check(), { state: "off", reason: "no settings file sets sandbox.enabled to true" });
    user({ permissions: { allow: ["Bash(npm test)"] } });
    assert.equal(check().state, "off");
  });

  it("on from any one source with failIfUnavailable: user, project, local, managed", () => {
    for (const [name, write] of [["user", user], ["project", shared], ["local", local], ["managed", policy]] as const) {
      beforeEachLike();
      write(ON);
      const c = check();
      assert.equal(c.state, "on", `${name}: ${c.reason}`);
      assert.match(c.reason, /failIfUnavailable/);
    }
  });

  it("unknown when only sandbox.enabled is set: where the sandbox cannot start the CLI runs commands unsandboxed", () => {
    user({ sandbox: { enabled: true } });
    const c = check();
    assert.equal(c.state, "unknown");
    assert.match(c.reason, /failIfUnavailable is not true/);
    // failIfUnavailable may come from another file than enabled.
    shared({ sandbox: { failIfUnavailable: true } });
    assert.equal(check().state, "on");
  });

  it("the file that wins decides: local > project > user, managed above all (a project's false turns off the user's true)", () => {
    user(ON);
    shared({ sandbox: { enabled: false } });
    assert.deepEqual(check(), { state: "off", reason: ".claude/settings.json sets sandbox.enabled to false" });
    shared(ON);
    local({ sandbox: { enabled: false } });
    assert.deepEqual(check(), { state: "off", reason: ".claude/settings.local.json sets sandbox.enabled to false" });
    local(ON);
    policy({ sandbox: { enabled: false } });
    assert.equal(check().state, "off");
    policy({ sandbox: { enabled: true } });
    local({ sandbox: { enabled: false, failIfUnavailable: true } });
    assert.equal(check().state, "on", "managed true wins over local false");
    // A higher file's failIfUnavailable false wins too.
    local({ sandbox: { failIfUnavailable: false } });
    assert.equal(check().state, "unknown");
  });

  it("managed drop-ins override the base file, later names earlier ones", () => {
    policy({ sandbox: { enabled: false } });
    put(join(managed, "managed-settings.d", "10-on.json"), ON);
    assert.equal(check().state, "on");
    put(join(managed, "managed-settings.d", "20-off.json"), { sandbox: { enabled: false } });
    assert.match(check().reason, /20-off\.json sets sandbox\.enabled to false/);
    put(join(managed, "managed-settings.d", ".hidden.json"), ON);
    put(join(managed, "managed-settings.d", "30-notes.txt"), "not settings");
    assert.equal(check().state, "off");
  });

  it("CLAUDE_CONFIG_DIR replaces ~/.claude as the user's folder", () => {
    user(ON);
    const cfg = join(root, String(n), "cfg");
    mkdirSync(cfg);
    env.CLAUDE_CONFIG_DIR = cfg;
    assert.equal(check().state, "off", "~/.claude/settings.json is not read when CLAUDE_CONFIG_DIR is set");
    put(join(cfg, "settings.json"), ON);
    assert.equal(check().state, "on");
    env.CLAUDE_CONFIG_DIR = "relative/cfg";
    assert.equal(check().state, "unknown");
  });

  it("the project folder is CLAUDE_PROJECT_DIR, else the event's cwd; neither, or one that does not exist: unknown", () => {
    shared(ON);
    const elsewhere = join(root, String(n), "elsewhere");
    mkdirSync(elsewhere);
    assert.equal(sandboxCheck({ cwd: elsewhere }, env, opts()).state, "on", "the project's settings, not the cwd's");
    delete env.CLAUDE_PROJECT_DIR;
    assert.equal(sandboxCheck({ cwd: elsewhere }, env, opts()).state, "off");
    assert.equal(sandboxCheck({ cwd: proj }, env, opts()).state, "on");
    for (const cwd of [undefined, 42, "relative/dir", join(root, "missing"), `${proj}\0x`]) assert.equal(sandboxCheck({ cwd }, env, opts()).state, "unknown", String(cwd));
    assert.equal(sandboxState({ cwd: proj }, env, opts()), "on");
  });
});

// beforeEach runs per `it`; a loop inside one test needs a fresh layout per round.
function beforeEachLike(): void {
  const base = join(root, String(++n));
  home = join(base, "home");
  proj = join(base, "proj");
  managed = join(base, "managed");
  bin = join(base, "bin");
  for (const d of [home, proj, managed]) mkdirSync(d, { recursive: true });
  program(bin, "bwrap");
  program(bin, "socat");
  env = { HOME: home, PATH: bin, CLAUDE_PROJECT_DIR: proj };
}

describe("sandboxCheck: the sandbox's programs on Linux", () => {
  beforeEach(() => user(ON));

  it("off when bwrap or socat is not on PATH (the CLI then runs every command unsandboxed)", () => {
    env.PATH = "";
    assert.match(check().reason, /^bwrap is not on PATH/);
    const other = join(root, String(n), "other");
    program(other, "bwrap");
    env.PATH = other;
    assert.deepEqual([check().state, check().reason.split(":")[0]], ["off", "socat is not on PATH"]);
    env.PATH = [other, bin].join(":");
    assert.equal(check().state, "on");
  });

  it("a relative PATH entry, a file that is not executable or a folder of that name does not count", () => {
    const noexec = join(root, String(n), "noexec");
    program(noexec, "bwrap", 0o644);
    program(noexec, "socat", 0o644);
    const dirs = join(root, String(n), "dirs");
    mkdirSync(join(dirs, "bwrap"), { recursive: true });
    mkdirSync(join(dirs, "socat"), { recursive: true });
    env.PATH = `bin:${noexec}:${dirs}`;
    // root may execute a file without x bits: only the folder and the relative entry are certain to be skipped.
    if (process.getuid?.() !== 0) assert.equal(check().state, "off");
    env.PATH = `bin:${dirs}`;
    assert.equal(check().state, "off");
  });

  it("off when the bwrap found is inside the project (a worker could have planted it)", () => {
    const planted = join(proj, "node_modules", ".bin");
    program(planted, "bwrap");
    env.PATH = `${planted}:${bin}`;
    assert.match(check().reason, /bwrap Claude Code would run is inside the project/);
    // Also through a link from outside the project.
    const link = join(root, String(n), "link");
    mkdirSync(link);
    symlinkSync(join(planted, "bwrap"), join(link, "bwrap"));
    env.PATH = `${link}:${bin}`;
    assert.equal(check().state, "off");
  });

  it("managed settings may name the programs; other files may not", () => {
    const custom = join(root, String(n), "custom");
    const bw = program(custom, "bwrap-2");
    env.PATH = join(root, String(n), "socat-only");
    program(env.PATH, "socat");
    policy({ sandbox: { bwrapPath: bw } });
    assert.equal(check().state, "on");
    policy({ sandbox: { bwrapPath: join(custom, "missing") } });
    assert.match(check().reason, /bwrap is not executable at/);
    policy({ sandbox: { bwrapPath: "bwrap-2" } });
    assert.equal(check().state, "off", "a relative bwrapPath");
    policy({});
    user({ sandbox: { ...ON.sandbox, bwrapPath: bw } });
    assert.match(check().reason, /^bwrap is not on PATH/);
  });

  it("other platforms: no program check, failIfUnavailable alone decides", () => {
    env.PATH = "";
    assert.equal(sandboxCheck({ cwd: proj }, env, { platform: "darwin", managedDir: managed }).state, "on");
    user({ sandbox: { enabled: true } });
    const c = sandboxCheck({ cwd: proj }, env, { platform: "darwin", managedDir: managed });
    assert.equal(c.state, "unknown");
  });
});

describe("sandboxCheck: the project's own settings may not widen the sandbox", () => {
  // Measured on both releases: each of these reaches the sandbox from .claude/settings.json, in a workspace never
  // trusted (the permissions.* entries are "ignored" for approvals, yet still open the sandbox).
  const WIDENING: [string, unknown][] = [
    ["sandbox.excludedCommands", { sandbox: { excludedCommands: ["npm test"] } }],
    ["sandbox.filesystem.allowWrite", { sandbox: { filesystem: { allowWrite: ["~"] } } }],
    ["sandbox.filesystem.allowRead", { sandbox: { filesystem: { allowRead: ["~/.ssh"] } } }],
    ["sandbox.filesystem.disabled", { sandbox: { filesystem: { disabled: true } } }],
    ["sandbox.network.allowedDomains", { sandbox: { network: { allowedDomains: ["evil.example"] } } }],
    ["sandbox.network.httpProxyPort", { sandbox: { network: { httpProxyPort: 8080 } } }],
    ["sandbox.network.allowAllUnixSockets", { sandbox: { network: { allowAllUnixSockets: true } } }],
    ["sandbox.enableWeakerNestedSandbox", { sandbox: { enableWeakerNestedSandbox: true } }],
    ["sandbox.allowNestedUserNamespaces", { sandbox: { allowNestedUserNamespaces: true } }],
    ["sandbox.credentials", { sandbox: { credentials: { files: [] } } }],
    ["sandbox.bwrapPath", { sandbox: { bwrapPath: "/tmp/bwrap" } }],
    ["sandbox.network", { sandbox: { network: true } }],
    ["sandbox (not an object)", { sandbox: "on" }],
    ["permissions.additionalDirectories", { permissions: { additionalDirectories: ["/tmp"] } }],
    ["permissions.allow Edit(//tmp/**)", { permissions: { allow: ["Edit(//tmp/**)"] } }],
    ["permissions.allow Edit(~/.bashrc)", { permissions: { allow: ["Edit(~/.bashrc)"] } }],
    ["permissions.allow Edit(/../../x)", { permissions: { allow: ["Edit(/../../x)"] } }],
    ["permissions.allow Write(../sibling/**)", { permissions: { allow: ["Write(../sibling/**)"] } }],
    ["permissions.allow MultiEdit(src\\..\\..\\x)", { permissions: { allow: ["MultiEdit(src\\..\\..\\x)"] } }],
    ["permissions.allow Edit", { permissions: { allow: ["Bash(npm test)", "Edit"] } }],
    ["permissions.allow WebFetch(domain:evil.example)", { permissions: { allow: ["WebFetch(domain:evil.example)"] } }],
    ["permissions.allow WebFetch", { permissions: { allow: ["WebFetch"] } }],
    ["permissions.allow (not a list)", { permissions: { allow: "Edit" } }],
    ["permissions.allow (an entry that is not text)", { permissions: { allow: [{ tool: "Edit" }] } }],
    ["permissions (not an object)", { permissions: [] }],
    ["env", { env: { PATH: "/tmp/fake-bwrap:/usr/bin" } }],
    ["env", { env: { MAX_THINKING_TOKENS: "1000" } }],
  ];
  for (const [key, extra] of WIDENING) {
    it(`${key} in .claude/settings.json or .claude/settings.local.json: off`, () => {
      user(ON);
      for (const [file, write] of [[".claude/settings.json", shared], [".claude/settings.local.json", local]] as const) {
        write(extra);
        const c = check();
        assert.equal(c.state, "off", `${file}: ${c.reason}`);
        assert.ok(c.reason.startsWith(`${file} widens the sandbox: ${key}`), c.reason);
        rmSync(join(proj, file));
      }
      // The same in the user's own settings is the user's choice.
      user({ ...(extra as object), sandbox: { ...ON.sandbox, ...((extra as any).sandbox ?? {}) } });
      if (key.startsWith("sandbox (") || key === "sandbox.network") return;
      assert.equal(check().state, "on", check().reason);
    });
  }

  it("what narrows it, or stays inside the project, is accepted", () => {
    user(ON);
    shared({
      sandbox: { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false, autoAllowBashIfSandboxed: false, ignoreViolations: { "*": ["/tmp"] }, filesystem: { denyWrite: ["src/gen"], denyRead: ["~/.aws"] }, network: { deniedDomains: ["evil.example"] } },
      permissions: { allow: ["Bash(npm test)", "Edit(src/**)", "Write(./docs/*.md)", "Read(~/.npmrc)", "mcp__x__y"], deny: ["Edit(//etc/**)"], additionalDirectories: [] },
      env: {},
      hooks: {},
    });
    const c = check();
    assert.equal(c.state, "on", c.reason);
  });

  it("projectWidening names the first widening key and null for none", () => {
    assert.equal(projectWidening({}), null);
    assert.equal(projectWidening({ sandbox: { enabled: true } }), null);
    assert.equal(projectWidening({ sandbox: { excludedCommands: [] } }), "sandbox.excludedCommands");
  });
});

describe("sandboxCheck: files it cannot trust make it unknown", () => {
  it("a settings file that is a symbolic link, even to a valid file", () => {
    const real = join(root, String(n), "real.json");
    put(real, ON);
    mkdirSync(join(proj, ".claude"));
    symlinkSync(real, join(proj, ".claude", "settings.json"));
    assert.deepEqual(check(), { state: "unknown", reason: ".claude/settings.json is a symbolic link" });
  });

  it("a FIFO (never opened: it would block), a folder, an oversized file", () => {
    mkdirSync(join(proj, ".claude"));
    const fifo = join(proj, ".claude", "settings.json");
    const made = spawnSync("mkfifo", [fifo]);
    if (made.status === 0) assert.deepEqual(check(), { state: "unknown", reason: ".claude/settings.json is not a regular file" });
    rmSync(fifo, { force: true });
    mkdirSync(join(home, ".claude", "settings.json"), { recursive: true });
    assert.deepEqual(check(), { state: "unknown", reason: "~/.claude/settings.json is not a regular file" });
    rmSync(join(home, ".claude", "settings.json"), { recursive: true });
    user(JSON.stringify(ON) + " ".repeat(MAX_SETTINGS_BYTES));
    assert.match(check().reason, /^~\/\.claude\/settings\.json is over 1048576 bytes$/);
  });

  it("not plain JSON (the CLI ignores comments and trailing commas), not an object", () => {
    for (const text of ['// on\n{"sandbox": {"enabled": true}}', '{"sandbox": {"enabled": true,}}', "[]", "null", '"on"', "\ufeff{}", ""]) {
      user(text);
      const c = check();
      assert.equal(c.state, "unknown", JSON.stringify(text));
      assert.match(c.reason, /^~\/\.claude\/settings\.json is (not valid JSON|not a JSON object)$/);
    }
  });

  it("a sandbox value that is not true or false", () => {
    user({ sandbox: { enabled: "true", failIfUnavailable: true } });
    assert.deepEqual(check(), { state: "unknown", reason: "~/.claude/settings.json: sandbox.enabled is not true or false" });
    user({ sandbox: { enabled: true, failIfUnavailable: 1 } });
    assert.equal(check().state, "unknown");
    // A lower file's bad value does not matter once a higher one decides.
    shared(ON);
    user({ sandbox: { enabled: "yes" } });
    assert.equal(check().state, "on");
  });

  it("a managed-settings.d that cannot be listed, or holds too many files", () => {
    user(ON);
    put(join(managed, "managed-settings.d"), "a file, not a folder");
    assert.equal(check().state, "on", "ENOTDIR: no drop-ins");
    rmSync(join(managed, "managed-settings.d"));
    for (let i = 0; i < 65; i++) put(join(managed, "managed-settings.d", `${String(i).padStart(2, "0")}.json`), {});
    assert.match(check().reason, /holds over 64 files/);
  });

  it("readSettingsFile: absent, a file inside a file, a valid object", () => {
    assert.deepEqual(readSettingsFile(join(proj, "none.json")), { kind: "absent" });
    put(join(proj, "f"), "x");
    assert.deepEqual(readSettingsFile(join(proj, "f", "settings.json")), { kind: "absent" });
    put(join(proj, "ok.json"), { a: 1 });
    assert.deepEqual(readSettingsFile(join(proj, "ok.json")), { kind: "ok", doc: { a: 1 } });
  });
});
