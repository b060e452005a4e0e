// The commands a role's work needs besides its checks (issue 31): running the program it builds, its examples, the
// verifier's end-to-end run. A plan lists them per role (`roles[].runs`, and `auxiliaryRoles[].runs` for the
// verifier's run) as `{command, args?}`: `args` absent or "none" grants the line exactly as written (like a check);
// "plain" grants it as a prefix followed by plain words of the worker's choosing.
//
// What a prefix allows is decided here, once, for finalize (which refuses a prefix it cannot allow), for the grant
// (which never records one) and for the permission hook (which approves a call only when `prefixCovers` says so):
// - the prefix and every word after it are plain words: letters, digits and `_ . / : @ % + , = -` only, separated
//   by spaces. No quote, `$`, backtick, `;`, `&`, `|`, `<`, `>`, `(`, `)`, glob (`* ? [ ]`), brace, `~`, `#`, `!`,
//   backslash, tab or line break, so the words bash passes are exactly the words written, and nothing else runs;
// - the prefix names one program of the project's: not a shell, a wrapper that runs another program (env, sudo,
//   xargs, timeout, …), a general file, network or version-control tool, nor an interpreter by itself: an
//   interpreter needs its script (`node src/cli.js`, `python3 -m textkit`, `java -jar app.jar`), never an option
//   before it (`node -e`, `python3 -c`, `node --require` are refused); a runner that starts any program (`npx`,
//   `uv run`, `poetry run`, `npm exec`, …) needs the program after it, judged by the same rules; a build tool needs
//   its subcommand, and never one that installs or executes packages;
// - the first word is no variable assignment (`X=1 cmd`);
// - words after the prefix may start with `-` only when the program itself gets them: after a project path, an
//   interpreter's script or module, or a prefix ending in `--`. After any other prefix (`cargo run`, `npm run demo`,
//   `make`, a program by its bare name), a dash word would be an option of the tool, and a `NAME=value` word a
//   setting of it (`make SHELL=…`): both refused.
//
// This module imports nothing: the permission hook bundles it.

/** A plain word: nothing in it that bash would expand, split, redirect or run. */
const PLAIN = /^[A-Za-z0-9_./:@%+,=-]+$/;

/** Programs a prefix may never start with (their basename): shells, wrappers, general tools. */
const REFUSED = new Set([
  // shells and what evaluates text
  "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "busybox", "eval", "exec", "command", "builtin", "source", ".",
  // wrappers that run another program
  "env", "sudo", "doas", "su", "runuser", "pkexec", "xargs", "nohup", "nice", "ionice", "timeout", "time", "stdbuf", "setsid", "chroot",
  "unshare", "nsenter", "script", "watch", "strace", "ltrace", "gdb", "lldb", "valgrind", "parallel", "flock", "chrt", "taskset", "firejail",
  // general file, text and system tools
  "find", "awk", "gawk", "mawk", "nawk", "sed", "rm", "rmdir", "mv", "cp", "dd", "ln", "chmod", "chown", "chgrp", "tee", "install", "truncate",
  "shred", "tar", "zip", "unzip", "rsync", "scp", "ssh", "sftp", "curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ftp",
  "git", "hg", "svn", "docker", "podman", "kubectl", "systemctl", "crontab", "at", "kill", "pkill", "killall",
  "vi", "vim", "nvim", "emacs", "nano", "ed", "ex", "less", "more", "man", "sqlite3", "psql", "mysql", "mongo", "redis-cli",
  "osascript", "open", "xdg-open", "powershell", "pwsh", "cmd", "tmux", "screen", "expect", "unbuffer", "xterm", "sg", "newgrp",
  "ssh-agent", "dbus-launch", "batch", "systemd-run", "sshpass", "proxychains",
  // package installers
  "pip", "pip3", "pipx", "gem", "apt", "apt-get", "brew", "dnf", "yum", "apk", "pacman", "conda", "mamba", "corepack", "nix", "nix-shell", "nix-env",
]);

/** Interpreters: a prefix needs the script (or module) they run; no option may come before it. */
const INTERPRETERS = new Set([
  "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "ruby", "perl", "php", "lua", "luajit", "rscript", "julia", "tsx", "ts-node",
  "esno", "jiti", "elixir", "erl", "escript", "guile", "racket", "sbcl", "runghc", "runhaskell", "scala", "kotlin", "swift", "dart", "groovy", "java",
  "deno", "bun", "tclsh", "wish", "raku",
]);

/**
 * Modules `python -m` may not run as a prefix: installers, servers, debuggers, REPLs and the ones that evaluate their
 * arguments as code (`timeit`, `trace`, `cProfile`, `runpy`), which plain words would turn into a program of any kind.
 */
const MODULES_REFUSED = new Set([
  "pip", "pip3", "ensurepip", "venv", "virtualenv", "pipx", "uv", "poetry", "twine", "build", "setuptools", "easy_install", "http.server",
  "timeit", "trace", "cprofile", "profile", "pdb", "doctest", "runpy", "code", "idlelib", "site", "webbrowser", "smtpd", "sqlite3", "zipapp",
  "compileall", "py_compile", "pydoc", "asyncio", "ipython", "jupyter", "ipykernel", "tkinter", "turtle", "antigravity",
]);

/** How an interpreter names its script by an option: `python3 -m mod`, `java -jar app.jar`, `deno run file`. */
const SCRIPT_OPTION: Record<string, readonly string[]> = { python: ["-m"], python2: ["-m"], python3: ["-m"], pypy: ["-m"], pypy3: ["-m"], java: ["-jar"], deno: ["run"], bun: ["run"] };

/** Runners that start whichever program follows them: the prefix must name it. */
const RUNNERS: ReadonlyArray<readonly string[]> = [
  ["npx"], ["pnpx"], ["bunx"], ["uvx"], ["npm", "exec"], ["npm", "x"], ["pnpm", "exec"], ["pnpm", "dlx"], ["yarn", "exec"], ["yarn", "dlx"],
  ["uv", "run"], ["poetry", "run"], ["pipenv", "run"], ["pdm", "run"], ["hatch", "run"], ["rye", "run"], ["bundle", "exec"], ["mise", "exec"],
  ["direnv", "exec"],
];

/** Build tools: a prefix needs a subcommand, never one that installs, executes or configures. */
const BUILD_TOOLS = new Set(["npm", "pnpm", "yarn", "cargo", "go", "make", "gmake", "dotnet", "mvn", "gradle", "gradlew", "rake", "uv", "poetry", "pipenv", "pdm", "hatch", "rye", "mix", "stack", "cabal", "zig", "just", "task", "bundle", "mise", "direnv", "bazel", "cmake", "meson", "ninja", "sbt", "lein", "clojure"]);
const BUILD_SUBCOMMANDS_REFUSED = new Set(["install", "i", "ci", "add", "exec", "x", "dlx", "get", "publish", "uninstall", "remove", "rm", "link", "config", "set", "env", "shell", "tool", "self", "login", "logout", "adduser", "token", "owner", "unpublish", "deprecate", "cache", "eval", "repl", "-c", "-e"]);
/** Tools that take no subcommand for make-like targets (a bare `make` is a prefix of its own). */
const BARE_TOOLS = new Set(["make", "gmake", "just", "ninja"]);

/** The basename of a program word, lower-cased, a version suffix off (`python3.12` → `python3`, `node20` stays). */
function programName(word: string): string {
  const base = word.slice(word.lastIndexOf("/") + 1).toLowerCase();
  return base.replace(/^(python[23]?|pypy3?)\.[0-9]+$/, "$1");
}

/** The words of a line split as bash would split plain words, or null when it holds anything but plain words. */
export function plainWords(text: string): string[] | null {
  if (text !== text.trim() || text === "") return null;
  const words = text.split(/ +/);
  return words.every((w) => PLAIN.test(w)) ? words : null;
}

interface Judged {
  /** Why the prefix cannot be granted, or "". */
  problem: string;
  /** Whether words after it go to the program (so they may start with `-`). */
  closed: boolean;
}

/** Judge the program part of a prefix (after any runner words; `atRunner` only words the message: same rules). */
function judgeProgram(words: readonly string[], atRunner: boolean): Judged {
  const refuse = (problem: string): Judged => ({ problem, closed: false });
  if (words.length === 0) return refuse(atRunner ? "the runner must name the program it runs" : "it is empty");
  const [first, ...rest] = words;
  if (first.startsWith("-")) return refuse(`it starts with an option (${first}), not a program`);
  if (first.includes("=")) return refuse(`it starts with a variable assignment (${first})`);
  const name = programName(first);
  if (REFUSED.has(name)) return refuse(`${name} runs or changes anything it is told to: name the project's own program instead`);
  const endsOpen = words[words.length - 1] === "--";
  if (INTERPRETERS.has(name)) {
    const options = SCRIPT_OPTION[name] ?? [];
    const next = rest[0];
    if (next === undefined) return refuse(`${name} by itself runs any code: name the script or module it runs (e.g. \`${name} ${options.includes("-m") ? "-m <module>" : "<file>"}\`)`);
    if (options.includes(next)) {
      const target = rest[1];
      if (target === undefined || target.startsWith("-")) return refuse(`${name} ${next} must name what it runs`);
      if (next === "-m" && MODULES_REFUSED.has(target.toLowerCase())) return refuse(`${name} -m ${target} installs, serves, debugs or evaluates code: name the project's own module`);
      return { problem: "", closed: true };
    }
    if (next.startsWith("-")) return refuse(`${name} ${next}: an interpreter option before the script can run code of any kind (node -e, python3 -c): name the script first`);
    // A script is a file (`src/cli.js`, `bin/rails`): a bare word would be a subcommand of the interpreter (`deno eval`).
    if (!/[./]/.test(next)) return refuse(`${name} ${next}: name the script file it runs (a path such as src/cli.js)`);
    return { problem: "", closed: true };
  }
  for (const runner of RUNNERS) {
    if (runner.length <= words.length && runner.every((w, k) => programName(words[k]) === w || (k > 0 && words[k] === w))) {
      const after = words.slice(runner.length);
      if (after[0]?.startsWith("-")) return refuse(`${runner.join(" ")} ${after[0]}: an option of the runner, not a program`);
      return judgeProgram(after, true);
    }
  }
  if (BUILD_TOOLS.has(name) && !first.includes("/")) {
    const sub = rest[0];
    if (sub === undefined) return BARE_TOOLS.has(name) ? { problem: "", closed: endsOpen } : refuse(`${name} needs its subcommand (e.g. \`${name} run <script>\`)`);
    if (BUILD_SUBCOMMANDS_REFUSED.has(sub) || sub.startsWith("-") && !BARE_TOOLS.has(name)) return refuse(`${name} ${sub} installs, executes or configures packages: not a prefix to grant`);
    // `go run` builds and runs whatever package its first word names, a module from the network included.
    if (name === "go" && sub === "run" && !(rest[1] !== undefined && (rest[1].startsWith("./") || rest[1].endsWith(".go")))) {
      return refuse("go run must name the project's package in the prefix (go run ./cmd/tool): its next word could name any module");
    }
    return { problem: "", closed: endsOpen };
  }
  // A program of the project (a path: its words are its own), or one on PATH by its bare name (whose options are
  // not known here: a dash word after it only past a closing `--`).
  return { problem: "", closed: first.includes("/") || endsOpen };
}

/**
 * Why a prefix (a `runs` entry with `args: "plain"`) cannot be granted, or "" when it can. Shared by finalize, the
 * grant and the hook.
 */
export function prefixProblem(prefix: string): string {
  const words = plainWords(prefix);
  if (words === null || prefix.includes("  ")) return "a prefix must be plain words (letters, digits and _ . / : @ % + , = -) separated by single spaces: no quotes, $, backticks, ; & | < > ( ), globs, ~, # or line breaks";
  return judgeProgram(words, false).problem;
}

/**
 * Whether `command` is the prefix followed by plain words only, as the hook approves it: the prefix's words
 * exactly, then words of `PLAIN` characters, none starting with `-` unless the program gets them (see the header).
 */
export function prefixCovers(prefix: string, command: string): boolean {
  const head = plainWords(prefix);
  if (head === null) return false;
  const judged = judgeProgram(head, false);
  if (judged.problem) return false;
  if (/[\n\r\0]/.test(command)) return false;
  const words = plainWords(command);
  if (words === null || words.length < head.length) return false;
  for (let k = 0; k < head.length; k++) if (words[k] !== head[k]) return false;
  const tail = words.slice(head.length);
  return judged.closed || tail.every((w) => !w.startsWith("-") && !w.includes("="));
}

/** One entry of `runs` as a plan holds it (unchecked). */
export interface RunEntry {
  command: string;
  args: "none" | "plain";
}

/** The `runs` entries of a role or an auxiliary role that carry a command string. */
export function runsOf(role: unknown): RunEntry[] {
  if (typeof role !== "object" || role === null) return [];
  const runs = (role as Record<string, unknown>).runs;
  if (!Array.isArray(runs)) return [];
  const out: RunEntry[] = [];
  for (const r of runs) {
    if (typeof r !== "object" || r === null) continue;
    const o = r as Record<string, unknown>;
    if (typeof o.command === "string") out.push({ command: o.command, args: o.args === "plain" ? "plain" : "none" });
  }
  return out;
}

/** Problems of one role's `runs` entries, as finalize words them (`label`: "Role 0 (cli)"). */
export function runIssues(label: string, role: unknown): string[] {
  const issues: string[] = [];
  runsOf(role).forEach((r, k) => {
    const at = `${label}: runs[${k}] \`${r.command}\``;
    if (r.command.trim() === "") issues.push(`${label}: runs[${k}] has an empty command`);
    else if (/[\n\r\0]/.test(r.command)) issues.push(`${at} must be one line`);
    else if (r.args === "plain") {
      const why = prefixProblem(r.command);
      if (why) issues.push(`${at} cannot be granted as a prefix: ${why}`);
    }
  });
  return issues;
}

// ---------------------------------------------------------------- commands quoted in a brief

/** First words that make a backticked span a command a worker would run. */
const COMMAND_WORDS = new Set([
  ...INTERPRETERS, ...BUILD_TOOLS, "npx", "pnpx", "bunx", "uvx", "pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "ava", "tap", "tsc",
  "eslint", "ruff", "mypy", "pyright", "flake8", "black", "prettier", "rspec", "phpunit", "ctest", "bats",
]);

/**
 * The command-like spans quoted in backticks in a text: a span whose first word is an interpreter, a build or test
 * tool, or a `./` path. Placeholders (`<file>`, `{name}`, a trailing `...` or `…`) are kept as written.
 */
export function quotedCommands(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/`([^`\n]+)`/g)) {
    const span = m[1].trim().replace(/^\$ +/, "");
    const first = span.split(/\s+/)[0] ?? "";
    if (first.startsWith("./") || COMMAND_WORDS.has(programName(first))) out.push(span);
  }
  return out;
}

/**
 * Whether a command quoted in a brief is covered by what a role is granted: equal to one of its exact commands, or
 * (with placeholders read as plain words) within one of its prefixes, or the prefix itself.
 */
export function quoteCovered(span: string, exact: readonly string[], prefixes: readonly string[]): boolean {
  if (exact.some((c) => c.trim() === span)) return true;
  const filled = span.replace(/\s*(?:\.\.\.|…)$/, "").replace(/<[^<>\s]+>|\{[^{}\s]+\}|\[[^[\]\s]+\]/g, "x").trim();
  return prefixes.some((p) => p.trim() === filled || prefixCovers(p, filled));
}
