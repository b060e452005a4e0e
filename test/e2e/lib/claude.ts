// The Claude Code CLI under test: installed on demand into <repo>/.cache/claude-code/<version>, run with a scratch HOME
// and an environment that keeps it offline (every request goes to the stub on 127.0.0.1; anything else is sent to
// the stub as a proxy request and refused there).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(__dirname, "../../..");
/** The newest Claude Code release: what the suite runs by default. Change it here only. */
export const NEWEST_CLAUDE_CODE = "2.1.332";
/** The oldest release the plugin supports (README, plugin.json `engines`): CI runs the suite on it too. */
export const OLDEST_CLAUDE_CODE = "2.1.197";
/** The Claude Code version the suite runs: DO_E2E_CLAUDE_VERSION, or the newest release. */
export const CLAUDE_CODE_VERSION = process.env.DO_E2E_CLAUDE_VERSION?.trim() || NEWEST_CLAUDE_CODE;
if (!/^\d+\.\d+\.\d+$/.test(CLAUDE_CODE_VERSION)) throw new Error(`DO_E2E_CLAUDE_VERSION must be a release like 2.1.330, not "${CLAUDE_CODE_VERSION}"`);

/**
 * What the releases the suite was run on do differently, as measured (the tests assert it for a release listed here
 * and only report it for any other). `taskTools`: TaskCreate/TaskUpdate/TaskList offered to the lead by default
 * (off since 2.1.233 for current models unless CLAUDE_CODE_ENABLE_TODO_TOOLS=1). `deferredSendMessage`: SendMessage
 * is listed as a deferred tool that the model loads through ToolSearch. `validateJson`: `plugin validate --json`.
 */
export const KNOWN_BEHAVIOUR: Record<string, { taskTools: boolean; deferredSendMessage: boolean; validateJson: boolean }> = {
  "2.1.197": { taskTools: true, deferredSendMessage: false, validateJson: false },
  "2.1.330": { taskTools: false, deferredSendMessage: true, validateJson: true },
  "2.1.332": { taskTools: false, deferredSendMessage: true, validateJson: true },
};
/** The measured behaviour of the release under test, or undefined for a release the suite was not run on. */
export const BEHAVIOUR = KNOWN_BEHAVIOUR[CLAUDE_CODE_VERSION];

/** The plugin the --plugin-dir sessions load: this checkout, or DO_E2E_PLUGIN_DIR (e.g. a patched copy). */
export const PLUGIN_DIR = process.env.DO_E2E_PLUGIN_DIR ? resolve(process.env.DO_E2E_PLUGIN_DIR) : ROOT;
export const CACHE_DIR = process.env.DO_E2E_CLAUDE_DIR ?? join(ROOT, ".cache", "claude-code", CLAUDE_CODE_VERSION);

export interface Cli {
  /** argv[0] and leading arguments (the native binary, or node + the package's fallback launcher). */
  command: string;
  prefix: string[];
  version: string;
}

function probe(command: string, prefix: string[]): string | null {
  const r = spawnSync(command, [...prefix, "--version"], { encoding: "utf8", timeout: 30_000, env: offlineEnv(tmpdir(), "http://127.0.0.1:9") });
  return r.status === 0 ? r.stdout.trim() : null;
}

function locate(dir: string): Cli | null {
  const bin = join(dir, "node_modules", ".bin", "claude");
  if (existsSync(bin)) {
    const v = probe(bin, []);
    if (v?.split(" ")[0] === CLAUDE_CODE_VERSION) return { command: bin, prefix: [], version: v };
  }
  // Installed with scripts off: the package's bin is a placeholder, its launcher still finds the native binary.
  const wrapper = join(dir, "node_modules", "@anthropic-ai", "claude-code", "cli-wrapper.cjs");
  if (existsSync(wrapper)) {
    const v = probe(process.execPath, [wrapper]);
    if (v?.split(" ")[0] === CLAUDE_CODE_VERSION) return { command: process.execPath, prefix: [wrapper], version: v };
  }
  return null;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

let cached: Cli | null = null;

/**
 * The CLI under test as its native binary, run without node: what a user of the native installer has. The package's
 * bin is that binary once its install script ran; with scripts off it is in the platform package beside it.
 */
export function nativeClaude(): Cli {
  const cli = ensureClaude();
  if (cli.command !== process.execPath) return cli;
  const pkgs = join(CACHE_DIR, "node_modules", "@anthropic-ai");
  for (const bin of [join(pkgs, "claude-code", "bin", "claude.exe"), join(pkgs, `claude-code-${process.platform}-${process.arch}`, "claude")]) {
    if (!existsSync(bin)) continue;
    const v = probe(bin, []);
    if (v?.split(" ")[0] === CLAUDE_CODE_VERSION) return { command: bin, prefix: [], version: v };
  }
  throw new Error(`no native Claude Code ${CLAUDE_CODE_VERSION} binary under ${pkgs}`);
}

/** Say once per test process which CLI runs (on stderr, so the suite's log shows it next to the results). */
function announce(cli: Cli): Cli {
  process.stderr.write(`# e2e: Claude Code ${cli.version.split(" ")[0]} (${cli.command === process.execPath ? cli.prefix[0] : cli.command})\n`);
  return cli;
}

/** The CLI under test, installed first when the cache folder does not hold it. Safe to call from parallel test files. */
export function ensureClaude(): Cli {
  if (cached) return cached;
  const found = locate(CACHE_DIR);
  if (found) return (cached = announce(found));
  mkdirSync(CACHE_DIR, { recursive: true });
  const lock = `${CACHE_DIR}.lock`;
  const deadline = Date.now() + 240_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another test process is installing; take over a lock left by a process that died.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 180_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        /* gone already */
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      sleep(500);
      const other = locate(CACHE_DIR);
      if (other) return (cached = announce(other));
    }
  }
  try {
    const again = locate(CACHE_DIR);
    if (again) return (cached = announce(again));
    writeFileSync(join(CACHE_DIR, "package.json"), JSON.stringify({ name: "claude-code-cache", private: true }) + "\n");
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const r = spawnSync(npm, ["install", "--prefix", CACHE_DIR, `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`, "--no-audit", "--no-fund", "--no-save"], {
      encoding: "utf8",
      timeout: 240_000,
    });
    if (r.status !== 0) throw new Error(`npm install of @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} failed:\n${r.stderr}\n${r.stdout}`);
    const cli = locate(CACHE_DIR);
    if (!cli) throw new Error(`@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} installed into ${CACHE_DIR} but does not run`);
    return (cached = announce(cli));
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Environment of every CLI run: nothing inherited but PATH, so no key, config or proxy of the caller leaks in. */
export function offlineEnv(home: string, stubUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    USER: "e2e",
    LANG: "C.UTF-8",
    TERM: "dumb",
    TMPDIR: process.env.TMPDIR ?? tmpdir(),
    SHELL: "/bin/bash",
    // Agent transcripts and task output go under the scratch HOME, not /tmp/claude-<uid>.
    CLAUDE_CODE_TMPDIR: join(home, "tmp"),
    ANTHROPIC_API_KEY: "sk-fake",
    ANTHROPIC_BASE_URL: stubUrl,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: "1",
    CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: "1",
    CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_UPDATES: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_GROWTHBOOK: "1",
    DISABLE_INSTALLATION_CHECKS: "1",
    // Any connection not meant for the stub goes to the stub as a proxy request and is refused (and recorded).
    HTTPS_PROXY: stubUrl,
    HTTP_PROXY: stubUrl,
    https_proxy: stubUrl,
    http_proxy: stubUrl,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    // `claude plugin install` runs `npm ci` in a plugin that ships a package-lock.json: keep npm off the network
    // (it fails at once from an empty cache instead of timing out after 60 s).
    npm_config_offline: "true",
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    ...extra,
  };
}

/** A scratch HOME that the CLI will not greet with first-run questions. */
export function scratchHome(): string {
  const home = mkdtempSync(join(tmpdir(), "do-e2e-home-"));
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = e2e\n\temail = e2e@example.invalid\n[init]\n\tdefaultBranch = main\n");
  return home;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
  /** `--output-format json` result object, when stdout held one. */
  json: any;
}

export interface RunOptions {
  cwd: string;
  home: string;
  stubUrl: string;
  timeoutMs?: number;
  env?: Record<string, string>;
  input?: string;
  /** Called once the CLI started, with a function that kills it (its process group) at once. */
  onStart?: (kill: () => void) => void;
  /** The CLI to run (default: ensureClaude()), e.g. nativeClaude() for a run without node on PATH. */
  cli?: Cli;
}

/** Run the CLI once; never throws on a non-zero exit, and kills it (its process group) at the timeout. */
export function runClaude(args: string[], opts: RunOptions): Promise<RunResult> {
  const cli = opts.cli ?? ensureClaude();
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn(cli.command, [...cli.prefix, ...args], {
      cwd: opts.cwd,
      env: offlineEnv(opts.home, opts.stubUrl, opts.env),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, opts.timeoutMs ?? 60_000);
    child.on("error", (e) => {
      clearTimeout(timer);
      fail(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      let json: any;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      done({ code, signal, stdout, stderr, timedOut, ms: Date.now() - started, json });
    });
    opts.onStart?.(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    });
    child.stdin.end(opts.input ?? "");
  });
}

/** Read a JSON file, or undefined when missing or unparsable. */
export function readJson(path: string): any {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}
