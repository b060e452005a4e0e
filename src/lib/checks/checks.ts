// Acceptance-check analysis shared by validate-checks and finalize, on the check as the shell sees it
// (lib/checks/shell.ts parses it): the inline Python each `python -c` receives after quoting and expansion (what only
// the shell can know is masked), exit-code maskers, leftover CI expressions and template placeholders, text that
// is not a command, and whether a check only reads files (finalize's existence-only rule). Two children judge
// what this module cannot: one python3 compiles every extracted source, and bash -n checks the shell syntax of
// all checks at once (split only when that fails).
// node:child_process is loaded only when a child is needed (finalize and validate-checks load this module on
// every call; most plans have no inline Python).
//
// Why one file: every judgement of a check (inline Python, maskers, CI expressions, prose, the existence-only rule)
// reads the same parse, and bash -n batches them together.
import { isBare, parseShell, ShellParseError, simpleCommands, expansions, wordText } from "./shell.js";
import type { AndOr, Command, List, Part, Pipeline, Simple, Word } from "./shell.js";

let childProcess: typeof import("node:child_process") | undefined;
const childProcesses = () => (childProcess ??= require("node:child_process") as typeof import("node:child_process"));

export type Severity = "error" | "warning";

export interface Finding {
  /** `shell-syntax`, `python-syntax`, `exit-masked`, `masked-step`, `ci-expression`, `placeholder`, `not-a-command`. */
  code: string;
  severity: Severity;
  message: string;
}

const basename = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** The literal name a simple command runs (leading `\` or quotes removed), or null when it is computed. */
function commandName(c: Simple): string | null {
  return c.words.length ? wordText(c.words[0]) : null;
}

/** Longer checks are left to bash -n alone: parsing stays linear, but a plan of such checks would be slow. */
const MAX_PARSED = 64 * 1024;

function tryParse(check: string): List | null {
  if (check.length > MAX_PARSED) return null;
  try {
    return parseShell(check);
  } catch (e) {
    if (e instanceof ShellParseError) return null;
    throw e;
  }
}

// ---------------------------------------------------------------- inline Python (contract 3.9, as the shell passes it)

const PYTHON = /^(?:python(?:3(?:\.\d+)?t?)?|pypy3?)$/;
/** Commands that run the command given in their later arguments (argv, never re-parsed by a shell). */
const RUNNERS = new Set([
  "env", "sudo", "doas", "nice", "nohup", "time", "timeout", "exec", "command", "xargs", "stdbuf", "taskset", "chrt",
  "uv", "uvx", "poetry", "pipenv", "pdm", "hatch", "rye", "conda", "mamba", "micromamba", "pixi", "tox", "nox",
  "sde", "xvfb-run", "spin", "docker", "podman", "kubectl", "nsenter", "chroot", "unshare", "strace", "ltrace",
  "valgrind", "srun", "mpirun", "mpiexec", "firejail", "flock", "catchsegv", "setsid", "pyenv", "pyenv-exec",
]);
/** Python options that take the next argument (or the rest of their cluster). */
const PY_ARG_OPTIONS = new Set(["W", "X"]);

export interface PythonSource {
  source: string;
  /** [start, end) offsets in `source` of the text standing for a shell expansion. */
  masks: Array<[number, number]>;
}

const PLACEHOLDER = "_sh_";

/** The Python source a word hands to `python -c`, expansions masked, skipping the first `skip` literal chars. */
function maskedSource(word: Word, skip: number): PythonSource {
  let source = "";
  const masks: Array<[number, number]> = [];
  for (const p of word.parts) {
    if (p.kind === "lit") {
      const drop = Math.min(skip, p.text.length);
      skip -= drop;
      source += p.text.slice(drop);
    } else {
      // After a digit a name would make an invalid number (`1_sh_`); a digit keeps it one.
      const prev = source[source.length - 1] ?? "";
      const ph = /[0-9]/.test(prev) || (prev === "." && /[0-9]\.$/.test(source)) ? "0" : PLACEHOLDER;
      masks.push([source.length, source.length + ph.length]);
      source += ph;
    }
  }
  return { source, masks };
}

/** The code of the python `-c` at or after `words[k]` (python's own options first), or null. */
function pythonCode(words: readonly Word[], k: number): PythonSource | null {
  for (; k < words.length; k++) {
    const w = wordText(words[k]);
    if (w === null) return null; // a computed option or script (`$FLAGS`): python's arguments are unknown
    if (w === "-c") return k + 1 < words.length ? maskedSource(words[k + 1], 0) : null;
    if (w === "-" || w === "--" || !w.startsWith("-")) return null;
    if (w.startsWith("--")) {
      if (w === "--check-hash-based-pycs") k++;
      else if (w === "--help" || w === "--version") return null;
      continue;
    }
    for (let ci = 1; ci < w.length; ci++) {
      const ch = w[ci];
      if (ch === "c") return ci + 1 < w.length ? maskedSource(words[k], ci + 1) : k + 1 < words.length ? maskedSource(words[k + 1], 0) : null;
      if (ch === "m") return null;
      if (PY_ARG_OPTIONS.has(ch)) {
        if (ci + 1 === w.length) k++;
        break;
      }
    }
  }
  return null;
}

/** Where `python … -c CODE` starts in this simple command, directly or after a runner such as env or uv run. */
function pythonOf(c: Simple): PythonSource | null {
  const words = c.words;
  const name = commandName(c);
  if (name === null) return null;
  const base = basename(name);
  if (PYTHON.test(base)) {
    const code = pythonCode(words, 1);
    if (code || !words.slice(1).some((w) => wordText(w) === "-m")) return code;
  } else if (!RUNNERS.has(base)) return null;
  for (let k = 1; k < words.length; k++) {
    const w = wordText(words[k]);
    if (w !== null && PYTHON.test(basename(w))) return pythonCode(words, k + 1);
  }
  return null;
}

/** Every inline Python source of a parsed check, nested substitutions included, in order. */
function pythonSourcesOf(list: List): PythonSource[] {
  const out: PythonSource[] = [];
  for (const c of simpleCommands(list)) {
    const src = pythonOf(c);
    if (src) out.push(src);
  }
  return out;
}

/**
 * The Python sources a shell would pass to every `python -c` / `python3 -c` in a check, in order, with the
 * parts only the shell can know (`$VAR`, `${…}`, `$(…)`, backticks) replaced by a placeholder name. A check the
 * parser cannot read yields none (its shell syntax is judged by bash -n).
 */
export function extractPythonSources(check: string): string[] {
  const list = tryParse(check);
  return list ? pythonSourcesOf(list).map((p) => p.source) : [];
}

// ---------------------------------------------------------------- exit status and its maskers

// What running a piece of a check can lead to, as a set of bits: it finishes with status 0 or not (the script goes
// on), or it ends the whole script (`exit`, or a failure under `set -e`) with status 0 or not. `exit N` ends the
// script wherever it stands, in an `if` body, after `&&` or `||`, in a `{ … }` group; only a subshell (`( … )`,
// `$( … )`, a pipeline's member) keeps it inside.
const FALL_ZERO = 1;
const FALL_FAIL = 2;
const EXIT_ZERO = 4;
const EXIT_FAIL = 8;
const FALLS = FALL_ZERO | FALL_FAIL;
const EXITS = EXIT_ZERO | EXIT_FAIL;
const VARIES = FALL_ZERO | FALL_FAIL;
type Outcomes = number;

/** Inside a subshell an exit only ends the subshell: its status is what the parent sees. */
const contained = (o: Outcomes): Outcomes => (o & FALLS) | (o & EXIT_ZERO ? FALL_ZERO : 0) | (o & EXIT_FAIL ? FALL_FAIL : 0);

/** Always-success commands: as the right side of `||` or the last of a list they hide a failure. */
function successWord(c: Command): string | null {
  if (c.type !== "simple") return null;
  if (c.words.length === 0) {
    // `|| status=$?` keeps the failure for a later `exit "$status"`: a masker only of a check that ends there.
    if (c.assigns.length === 0 || c.assigns.some((w) => w.parts.some((p) => p.kind === "exp" && p.body))) return null;
    const first = c.assigns[0].parts[0];
    const name = first.kind === "lit" ? /^[A-Za-z_][A-Za-z0-9_]*/.exec(first.text)?.[0] : undefined;
    return name ? `${name}=` : null;
  }
  const name = commandName(c);
  if (name === "true" || name === ":" || name === "echo" || name === "printf") return name;
  if ((name === "exit" || name === "return") && c.words.length === 2 && wordText(c.words[1]) === "0") return `${name} 0`;
  return null;
}

/** What `exit [N]` leads to: the script ends with N (mod 256), or with a status only the run knows. */
function exitOutcomes(c: Simple, prev: Outcomes): Outcomes {
  if (c.words.length > 2) return FALL_FAIL; // "too many arguments": bash does not exit
  const arg = c.words.length === 2 ? c.words[1] : null;
  // `exit` and `exit $?` end with the status of the command before.
  if (arg === null || (arg.parts.length === 1 && arg.parts[0].kind === "exp" && arg.parts[0].raw === "$?")) {
    return (prev & FALL_ZERO ? EXIT_ZERO : 0) | (prev & FALL_FAIL ? EXIT_FAIL : 0);
  }
  const text = wordText(arg);
  if (text === null || !/^\d+$/.test(text)) return EXIT_ZERO | EXIT_FAIL;
  const value = text;
  return Number(BigInt(value) % 256n) === 0 ? EXIT_ZERO : EXIT_FAIL;
}

/** Pipe ends that trim or copy output and succeed whatever it was: the pipeline's status is theirs. */
const SINKS = new Set(["tail", "head", "tee", "cat", "less", "more"]);

interface MaskScan {
  pipefailFrom: number;
  errexitFrom: number;
  pipestatus: boolean;
  maskers: string[];
  /** An `if` whose every branch succeeds: a masker only when it leaves the whole check exiting 0. */
  ifs: number;
  /**
   * The functions the check defines (a call runs the body in this shell: its `exit` ends the script); `sure` when
   * the definition is an item of the check's own list, so that it has run before any later call.
   */
  funcs: Map<string, { body: Command; sure: boolean }>;
  /** How many times the check defines each name, anywhere in it. */
  definitions: Map<string, number>;
  root: List | null;
  /** Functions being followed now (a recursive call is an unknown command). */
  calling: Set<string>;
}

/** Offsets of the first `set -o pipefail` and `set -e` (any spelling) among the top-level commands. */
function shellOptions(list: List): { pipefail: number; errexit: number } {
  let pipefail = Infinity;
  let errexit = Infinity;
  for (const { node } of list.items) {
    for (const pl of [node.first, ...node.rest.map((r) => r.node)]) {
      for (const c of pl.cmds) {
        if (c.type !== "simple" || commandName(c) !== "set") continue;
        const args = c.words.slice(1).map(wordText);
        args.forEach((a, k) => {
          if (a === null || !/^-[A-Za-z]+$/.test(a)) return;
          if (a.includes("e")) errexit = Math.min(errexit, c.start);
          if (a.endsWith("o") && args[k + 1] === "pipefail") pipefail = Math.min(pipefail, c.start);
          if (a.endsWith("o") && args[k + 1] === "errexit") errexit = Math.min(errexit, c.start);
        });
      }
    }
  }
  return { pipefail, errexit };
}

/**
 * The outcomes of a list run in order. `top`: the check's own list or a group's, where a trailing `; exit 0` or
 * `; echo` after a command that can fail is a masker (in an `if` body it is control flow). `cond`: an `if` or
 * `while` condition, where `set -e` does not end the script.
 */
function outcomesOfList(list: List, scan: MaskScan, top = false, cond = false, prev: Outcomes = FALL_ZERO): Outcomes {
  let acc: Outcomes = prev & FALLS;
  list.items.forEach((it, k) => {
    if (!(acc & FALLS)) return; // an earlier exit ended the script: the rest never runs
    const o = outcomesOfAndOr(it.node, scan, cond, acc & FALLS);
    const only = it.node.rest.length === 0 && it.node.first.cmds.length === 1 ? it.node.first.cmds[0] : null;
    if (list === scan.root && only?.type === "func" && it.sep !== "&") scan.funcs.set(only.name, { body: only.body, sure: true });
    const lastNode = it.node;
    if (top && k === list.items.length - 1 && k > 0 && acc & FALL_FAIL && lastNode.rest.length === 0 && lastNode.first.cmds.length === 1 && !lastNode.first.negated) {
      const cmd = lastNode.first.cmds[0];
      const word = successWord(cmd) ?? (cmd.type === "group" && o === FALL_ZERO ? "{ … }" : null);
      if (word !== null) scan.maskers.push(`; ${word}`);
    }
    acc = (acc & EXITS) | (it.sep === "&" ? FALL_ZERO : o);
  });
  return acc;
}

/** `prev`: the status `$?` holds before it runs (what a bare `exit` ends with). */
function outcomesOfAndOr(node: AndOr, scan: MaskScan, cond: boolean, prev: Outcomes): Outcomes {
  // Under `set -e` only the failure of the last pipeline of an `&&`/`||` list ends the script.
  const errexit = !cond && node.start > scan.errexitFrom;
  const last = node.rest.length;
  const pipeline = (pl: Pipeline, k: number, before: Outcomes): Outcomes => {
    // `set -e` is off inside a condition, a non-last part of `&&`/`||` and a pipeline negated with `!`.
    const o = outcomesOfPipeline(pl, scan, cond || k < last || pl.negated, before);
    return errexit && k === last && !pl.negated && o & FALL_FAIL ? (o & ~FALL_FAIL) | EXIT_FAIL : o;
  };
  let acc = pipeline(node.first, 0, prev);
  node.rest.forEach(({ op, node: p }, i) => {
    const runs = op === "&&" ? FALL_ZERO : FALL_FAIL;
    if (!(acc & runs)) return;
    const o = pipeline(p, i + 1, runs);
    // `a || echo`: a's failure turns into success, unless a can itself end the script failing (`x && exit 1 ||
    // echo "failed as expected"` inverts a command; it does not hide one).
    if (op === "||" && !(acc & EXIT_FAIL) && p.cmds.length === 1 && !p.negated && !(o & (FALL_FAIL | EXIT_FAIL))) {
      const word = successWord(p.cmds[0]);
      if (word !== null) scan.maskers.push(`|| ${word}`);
    }
    acc = (acc & ~runs) | o;
  });
  return acc;
}

function outcomesOfPipeline(pl: Pipeline, scan: MaskScan, cond: boolean, prev: Outcomes): Outcomes {
  const n = pl.cmds.length;
  // Each member of a real pipeline runs in a subshell: an exit there ends only that member.
  const outs = pl.cmds.map((c) => (n > 1 ? contained(outcomesOfCommand(c, scan, cond, prev)) : outcomesOfCommand(c, scan, cond, prev)));
  let o = outs[n - 1];
  if (n > 1 && pl.start > scan.pipefailFrom) {
    // Under pipefail a writer whose reader has gone dies of SIGPIPE (`yes | head -1`, `echo x | true`).
    o = (outs.every((x) => x & FALL_ZERO) ? FALL_ZERO : 0) | FALL_FAIL;
  } else if (n > 1 && !scan.pipestatus) {
    const sink = pl.cmds[n - 1];
    const name = sink.type === "simple" ? commandName(sink) : null;
    if (name !== null && SINKS.has(basename(name))) {
      if (outs.slice(0, n - 1).some((x) => x & FALL_FAIL)) scan.maskers.push(`| ${basename(name)}`);
      o = FALL_ZERO;
    }
  }
  if (!pl.negated) return o;
  return (o & EXITS) | (o & FALL_ZERO ? FALL_FAIL : 0) | (o & FALL_FAIL ? FALL_ZERO : 0);
}

/**
 * A `$((…))` bash cannot evaluate (`$((a; b))`, a variable holding `a b`) is an expansion error: the shell running
 * the command exits with status 1.
 */
function arithmeticMayExit(c: Simple): boolean {
  return [...c.assigns, ...c.words, ...c.redirs.map((r) => r.target)].some((w) => w.parts.some((p) => p.kind === "exp" && p.raw.startsWith("$((")));
}

function outcomesOfSimple(c: Simple, scan: MaskScan, cond: boolean, prev: Outcomes): Outcomes {
  const o = outcomesOfCall(c, scan, cond, prev);
  return arithmeticMayExit(c) ? o | EXIT_FAIL : o;
}

function outcomesOfCall(c: Simple, scan: MaskScan, cond: boolean, prev: Outcomes): Outcomes {
  if (c.words.length === 0) {
    const subs = c.assigns.flatMap((w) => w.parts).filter((p): p is Extract<Part, { kind: "exp" }> => p.kind === "exp" && !!p.body);
    // A command substitution does not inherit `set -e` (bash without inherit_errexit): read it as a condition.
    return subs.length ? contained(outcomesOfList(subs[subs.length - 1].body as List, scan, false, true, prev)) : FALL_ZERO;
  }
  const name = commandName(c);
  if (name === "exit") return exitOutcomes(c, prev);
  if (name === "false") return FALL_FAIL;
  const fn = name === null ? undefined : scan.funcs.get(name);
  // A function defined twice, or called from its own body: which body runs is not known here, and it may exit.
  if (fn && name !== null && (scan.calling.has(name) || (scan.definitions.get(name) ?? 0) > 1)) return VARIES | EXITS;
  if (fn && name !== null) {
    scan.calling.add(name);
    const o = outcomesOfCommand(fn.body, scan, cond, prev);
    scan.calling.delete(name);
    return fn.sure ? o : o | FALL_FAIL; // the definition may not have run (`x && f() { …; }`): then the call fails
  }
  // `set` with literal options only changes options (a bad one is a usage error bash -n does not see).
  if (name === "set" && c.words.slice(1).every((w) => /^[-+]([A-Za-z]+|o)$|^[a-z]+$/.test(wordText(w) ?? ""))) return FALL_ZERO;
  return successWord(c) !== null ? FALL_ZERO : VARIES;
}

function outcomesOfIf(c: Extract<Command, { type: "if" }>, scan: MaskScan, cond: boolean, prev: Outcomes): Outcomes {
  let out: Outcomes = 0;
  let condVaries = false;
  let reached = true; // whether control can reach the next branch (every earlier condition can fail)
  let before = prev;
  for (const b of c.branches) {
    if (!reached) break;
    const o = outcomesOfList(b.cond, scan, false, true, before);
    before = FALL_FAIL;
    if (o & FALL_FAIL && o & FALL_ZERO) condVaries = true;
    out |= o & EXITS;
    if (o & FALL_ZERO) out |= outcomesOfList(b.body, scan, false, cond);
    reached = (o & FALL_FAIL) !== 0;
  }
  if (reached) out |= c.elseBody ? outcomesOfList(c.elseBody, scan, false, cond, FALL_FAIL) : FALL_ZERO;
  if (condVaries && !(out & (FALL_FAIL | EXIT_FAIL))) scan.ifs++;
  return out;
}

function outcomesOfCommand(c: Command, scan: MaskScan, cond: boolean, prev: Outcomes): Outcomes {
  switch (c.type) {
    case "simple":
      return outcomesOfSimple(c, scan, cond, prev);
    case "group":
      return outcomesOfList(c.body, scan, true, cond, prev);
    case "subshell":
      return contained(outcomesOfList(c.body, scan, true, cond, prev));
    case "if":
      return outcomesOfIf(c, scan, cond, prev);
    case "loop": {
      const o = outcomesOfList(c.cond, scan, false, true, prev);
      return FALL_ZERO | (o & EXITS) | (o & FALL_ZERO ? outcomesOfList(c.body, scan, false, cond) : 0);
    }
    case "for":
      return FALL_ZERO | outcomesOfList(c.body, scan, false, cond, prev);
    case "case":
      return c.arms.reduce((o, a) => o | outcomesOfList(a.body, scan, false, cond, prev), FALL_ZERO);
    case "func":
      if (!scan.funcs.get(c.name)?.sure) scan.funcs.set(c.name, { body: c.body, sure: false });
      return FALL_ZERO; // defining runs nothing; a later call runs the body
    default:
      return VARIES;
  }
}

/** How many function definitions of each name a list holds, nested ones and those in substitutions included. */
function definitionCounts(list: List): Map<string, number> {
  const counts = new Map<string, number>();
  const visitList = (l: List): void => {
    for (const { node } of l.items) for (const pl of [node.first, ...node.rest.map((r) => r.node)]) pl.cmds.forEach(visit);
  };
  const visitParts = (parts: readonly Part[]): void => {
    for (const p of parts) {
      if (p.kind !== "exp") continue;
      if (p.body) visitList(p.body);
      if (p.inner) visitParts(p.inner);
    }
  };
  const visit = (c: Command): void => {
    switch (c.type) {
      case "simple":
        for (const w of [...c.assigns, ...c.words]) visitParts(w.parts);
        return;
      case "func":
        counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
        visit(c.body);
        return;
      case "group":
      case "subshell":
        visitList(c.body);
        return;
      case "if":
        for (const b of c.branches) {
          visitList(b.cond);
          visitList(b.body);
        }
        if (c.elseBody) visitList(c.elseBody);
        return;
      case "loop":
        visitList(c.cond);
        visitList(c.body);
        return;
      case "for":
        visitList(c.body);
        return;
      case "case":
        for (const a of c.arms) visitList(a.body);
        return;
      default:
        return;
    }
  };
  visitList(list);
  return counts;
}

/** The maskers of a parsed check and whether they leave it exiting 0 whatever happens. */
function maskersOf(list: List, check: string): { maskers: string[]; alwaysZero: boolean } {
  const opts = shellOptions(list);
  const scan: MaskScan = { pipefailFrom: opts.pipefail, errexitFrom: opts.errexit, pipestatus: check.includes("PIPESTATUS"), maskers: [], ifs: 0, funcs: new Map(), definitions: definitionCounts(list), calling: new Set(), root: list };
  const alwaysZero = !(outcomesOfList(list, scan, true) & (FALL_FAIL | EXIT_FAIL));
  // An `if` that cannot fail is named only when nothing else explains why the check cannot.
  if (alwaysZero && scan.ifs > 0 && scan.maskers.length === 0) scan.maskers.push("if");
  // An assignment after `||` or `;` keeps a status for later: a masker only when nothing comes later.
  const maskers = scan.maskers.filter((m) => alwaysZero || !m.endsWith("="));
  return { maskers: [...new Set(maskers)], alwaysZero };
}

const maskerText = (m: string) => (m === "if" ? "'if' with no failing branch" : `'${m.endsWith("=") ? `${m}…` : m}'`);

// ---------------------------------------------------------------- text the shell cannot use

/** English words that do not occur as bare arguments of real commands together. */
const FUNCTION_WORDS = new Set([
  "the", "an", "to", "of", "that", "this", "these", "those", "is", "are", "was", "were", "be", "should", "must",
  "when", "after", "before", "with", "they", "them", "their", "there", "every", "each", "its", "would", "than",
]);
const VERBS = new Set([
  "returns", "exits", "succeeds", "passes", "fails", "works", "exists", "contains", "shows", "outputs", "prints",
  "responds", "renders", "compiles", "loads", "displays", "appears", "includes",
]);
/** Commands whose arguments are free text or patterns: prose there is data. */
const TEXT_COMMANDS = new Set([
  "echo", "printf", "grep", "egrep", "fgrep", "rg", "git", "sed", "awk", "jq", "yq", "test", "[", "expr", "read",
  "export", "set", "local", "declare", "alias", "print", "say", "notify-send", "logger", "gh", "wall",
]);

/** A reason this simple command reads as a sentence rather than a command, or null. */
function proseReason(c: Simple): string | null {
  if (c.words.length === 0 || c.redirs.length > 0) return null;
  const first = c.words[0];
  const name = isBare(first) ? wordText(first) as string : null;
  if (name === null || TEXT_COMMANDS.has(name)) return null;
  let score = 0;
  if (/^\d+$/.test(name)) score += 2;
  else if (/^[A-Z][a-z]+[,.:]$/.test(name)) score += 2;
  else if (/^[A-Z][a-z]+$/.test(name)) score += 1;
  const args = c.words.slice(1);
  args.forEach((w, k) => {
    if (!isBare(w)) return;
    const t = wordText(w) as string;
    const lower = t.toLowerCase().replace(/[,.:]$/, "");
    if (FUNCTION_WORDS.has(lower)) score++;
    else if (VERBS.has(lower)) {
      score++;
      const next = args[k + 1] ? wordText(args[k + 1]) : null;
      if (next !== null && /^\d+$/.test(next)) score++;
    } else if (/^[\u2010-\u2015\u2026]+$/.test(t)) score++;
  });
  const last = args.length ? wordText(args[args.length - 1]) : null;
  if (last !== null && args.length >= 2 && /^[A-Za-z]+\.$/.test(last)) score++;
  return score >= 2 ? "reads as a sentence, not a command" : null;
}

/** The simple commands a check runs at its top level (not inside substitutions or compound commands). */
function topLevelSimple(list: List): Simple[] {
  const out: Simple[] = [];
  for (const { node } of list.items) {
    for (const pl of [node.first, ...node.rest.map((r) => r.node)]) {
      for (const c of pl.cmds) if (c.type === "simple") out.push(c);
    }
  }
  return out;
}

/** Commands that take patterns or text, where a quoted `${{ … }}` is what they look for. */
const PATTERN_COMMANDS = new Set(["grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "perl", "yq", "jq", "test", "[", "echo", "printf"]);

/**
 * A `${{ … }}` in quoted text that reaches a command which does not search for it (GitHub fills it in first), or
 * that a here-string feeds to any command as its input.
 */
function quotedCiExpression(list: List): string | null {
  for (const c of simpleCommands(list)) {
    const name = commandName(c);
    const input = c.redirs.filter((r) => r.op === "<<<").map((r) => r.target);
    const searched = name !== null && PATTERN_COMMANDS.has(basename(name));
    for (const w of searched ? input : [...c.assigns, ...c.words, ...input]) {
      for (const p of w.parts) {
        if (p.kind !== "lit") continue;
        const m = /\$\{\{.*?\}\}/s.exec(p.text);
        if (m) return m[0];
      }
    }
  }
  return null;
}

const clip = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}...` : text);

// ---------------------------------------------------------------- static analysis of one check

export interface CheckAnalysis {
  /** False when lib/checks/shell.ts could not read the check: the tree-based findings below are then absent. */
  parsed: boolean;
  python: PythonSource[];
  /** Findings that need no child process. */
  findings: Finding[];
  /** Every masker, e.g. `|| true`, `| tail`, `; exit 0`, `if` (finalize's antiPatternWarnings). */
  maskers: string[];
}

export function analyzeCheck(check: string): CheckAnalysis {
  const list = tryParse(check);
  if (!list) return { parsed: false, python: [], findings: [], maskers: [] };
  const findings: Finding[] = [];
  for (const c of topLevelSimple(list)) {
    const name = commandName(c);
    if (name !== null && isBare(c.words[0]) && /^\{[A-Za-z_][\w.-]*\}$/.test(name)) {
      findings.push({ code: "placeholder", severity: "error", message: `'${clip(name)}' is a template placeholder, not a command` });
      break;
    }
    const prose = proseReason(c);
    if (prose) {
      findings.push({ code: "not-a-command", severity: "error", message: `'${clip(check.slice(c.start, c.end).trim())}' ${prose}` });
      break;
    }
  }
  const ci = expansions(list).find((e) => e.ci)?.raw ?? quotedCiExpression(list);
  if (ci) {
    findings.push({ code: "ci-expression", severity: "error", message: `'${clip(ci)}' is a CI expression: only a CI runner fills it in` });
  }
  const scanned = maskersOf(list, check);
  const { maskers } = scanned;
  const masked = maskedMessage(scanned);
  if (masked !== null) {
    findings.push({ code: "exit-masked", severity: "error", message: masked });
  } else {
    for (const m of maskers) findings.push({ code: "masked-step", severity: "warning", message: `${maskerText(m)} masks failures` });
  }
  return { parsed: true, python: pythonSourcesOf(list), findings, maskers };
}

/**
 * Why a check can never fail, naming the part that masks its exit status (`'|| true' masks failures: the check
 * exits 0 whatever happens`), or null when it can fail or cannot be parsed. finalize refuses such a check.
 */
export function maskedExit(check: string): string | null {
  const list = tryParse(check);
  if (!list) return null;
  return maskedMessage(maskersOf(list, check));
}

function maskedMessage({ maskers, alwaysZero }: { maskers: string[]; alwaysZero: boolean }): string | null {
  if (!alwaysZero || maskers.length === 0) return null;
  return `${maskers.map(maskerText).join(", ")} ${maskers.length > 1 ? "mask" : "masks"} failures: the check exits 0 whatever happens`;
}

/** Whether a check, run as `bash -c` with no options set, can exit non-zero; null when it cannot be parsed. */
export function canFail(check: string): boolean | null {
  const list = tryParse(check);
  return list ? !maskersOf(list, check).alwaysZero : null;
}

/** The masker words of a check for finalize's antiPatternWarnings (none when it cannot be parsed). */
export function maskersIn(check: string): string[] {
  const list = tryParse(check);
  return list ? maskersOf(list, check).maskers : [];
}

export const maskerWarning = (m: string) => `${maskerText(m)} masks failures`;

// ---------------------------------------------------------------- existence-only (finalize, contract 3.8 reworked)

/** Commands that only read files or text: a check made of these proves nothing runs. */
const SURFACE = new Set([
  "grep", "egrep", "fgrep", "rg", "ag", "ack", "test", "[", "ls", "wc", "cat", "head", "tail", "stat", "file", "du",
  "find", "diff", "cmp", "sort", "uniq", "cut", "tr", "awk", "gawk", "sed", "jq", "yq", "tree", "readlink", "realpath",
  "basename", "dirname", "md5sum", "sha1sum", "sha256sum", "shasum", "xxd", "od", "strings", "less", "more", "tee",
  "nl", "column", "comm", "cksum", "zcat", "zgrep",
]);
/** Commands that neither inspect nor run anything worth a check: setup and output. */
const NEUTRAL = new Set([
  "cd", "pushd", "popd", "export", "unset", "set", "shopt", "true", "false", ":", "echo", "printf", "exit", "return",
  "sleep", "local", "declare", "readonly", "read", "trap", "wait", "mkdir", "touch", "rm", "cp", "mv", "ln", "chmod",
  "source", ".",
]);
const GIT_SURFACE = new Set(["grep", "ls-files", "diff", "status", "log", "show", "cat-file", "ls-tree", "rev-parse", "blame"]);
const SHELLS = new Set(["bash", "sh", "zsh", "dash"]);
const WRAPPERS = new Set(["env", "sudo", "nice", "nohup", "time", "timeout", "command", "exec", "xargs", "stdbuf"]);

type Kind = "surface" | "neutral" | "behaviour";

function kindOfSimple(c: Simple, depth: number): Kind {
  const words = c.words;
  if (words.length === 0) return "neutral";
  let k = 0;
  // A wrapper runs the command after its options (and timeout's duration).
  for (;;) {
    const name = wordText(words[k]);
    if (name === null) return "behaviour";
    const base = basename(name.replace(/^!/, ""));
    if (WRAPPERS.has(base)) {
      k++;
      while (k < words.length) {
        const w = wordText(words[k]);
        if (w === null || !(w.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w) || (base === "timeout" && /^\d+(\.\d+)?[smhd]?$/.test(w)))) break;
        k++;
      }
      if (k >= words.length) return "neutral";
      continue;
    }
    if (SHELLS.has(base) && wordText(words[k + 1] ?? { parts: [], start: 0, end: 0 }) === "-c" && words[k + 2]) {
      const script = wordText(words[k + 2]);
      const inner = script === null ? null : tryParse(script);
      return inner && depth < 4 ? kindOfList(inner, depth + 1) : "behaviour";
    }
    if (base === "git") {
      const sub = words.slice(k + 1).map(wordText).find((w) => w === null || !w.startsWith("-"));
      return sub !== null && sub !== undefined && GIT_SURFACE.has(sub) ? "surface" : "behaviour";
    }
    if (base === "find" && words.some((w) => /^-(exec|execdir|ok|okdir)$/.test(wordText(w) ?? ""))) return "behaviour";
    if (SURFACE.has(base.toLowerCase())) return "surface";
    if (NEUTRAL.has(base)) return "neutral";
    return "behaviour";
  }
}

function kindOfList(list: List, depth: number): Kind {
  let kind: Kind = "neutral";
  const visit = (c: Command): Kind => {
    switch (c.type) {
      case "simple":
        return kindOfSimple(c, depth);
      case "cond":
        return "surface";
      case "arith":
      case "func":
        return "neutral";
      default:
        return "neutral";
    }
  };
  for (const c of simpleCommandsAndConds(list)) {
    const k = visit(c);
    if (k === "behaviour") return "behaviour";
    if (k === "surface") kind = "surface";
  }
  return kind;
}

/** Simple commands (substitutions included) and `[[ … ]]` tests of a list. */
function simpleCommandsAndConds(list: List): Command[] {
  const out: Command[] = [...simpleCommands(list)];
  const visit = (l: List) => {
    for (const { node } of l.items) {
      for (const pl of [node.first, ...node.rest.map((r) => r.node)]) pl.cmds.forEach(visitCommand);
    }
  };
  const visitCommand = (c: Command): void => {
    if (c.type === "cond") out.push(c);
    else if (c.type === "group" || c.type === "subshell") visit(c.body);
    else if (c.type === "if") {
      for (const b of c.branches) {
        visit(b.cond);
        visit(b.body);
      }
      if (c.elseBody) visit(c.elseBody);
    } else if (c.type === "loop") {
      visit(c.cond);
      visit(c.body);
    } else if (c.type === "for") visit(c.body);
    else if (c.type === "case") c.arms.forEach((a) => visit(a.body));
    else if (c.type === "func") visitCommand(c.body);
  };
  visit(list);
  return out;
}

const GREP_START = /^\s*(?:grep|egrep|fgrep|rg)\s/i;
const GREP_PIPED = /\|\s*(?:grep|egrep|fgrep|rg)\s/i;
const FILE_TEST = /^\s*(?:test|\[\[?)\s+-[fedsrwx]/i;

/** Contract 3.8's text rule, kept for checks the parser cannot read. */
function surfaceOnlyByText(check: string): boolean {
  const cmd = check.trim().replace(/^[!\s]+/, "");
  if (cmd.includes("&&") || cmd.includes("||")) return false;
  return GREP_START.test(cmd) || GREP_PIPED.test(cmd) || FILE_TEST.test(cmd);
}

/**
 * True when no part of a check runs anything: every command in it (each side of `&&`, `||`, `;` and `|`, and
 * the commands inside `$(…)`) only reads files or text (grep, test, wc, ls, cat, …) or is setup or output
 * (cd, echo, exit). A check the parser cannot read falls back to contract 3.8's text rule.
 */
export function isSurfaceOnly(check: string): boolean {
  const list = tryParse(check);
  if (!list) return surfaceOnlyByText(check);
  return kindOfList(list, 0) !== "behaviour";
}

// ---------------------------------------------------------------- compilation (one python3 child)

const COMPILER = `
import json, sys
out = []
for src in json.loads(sys.stdin.buffer.read().decode("utf-8")):
    try:
        compile(src, "<check>", "exec", dont_inherit=True)
        out.append(None)
    except SyntaxError as e:
        if e.lineno is None:
            out.append(["Compilation error: %s" % (e.msg,)])
        else:
            out.append(["SyntaxError: %s at line %s" % (e.msg, e.lineno), e.lineno, e.offset,
                        getattr(e, "end_lineno", None), getattr(e, "end_offset", None)])
    except Exception as e:
        out.append(["Compilation error: %s" % (e,)])
sys.stdout.write(json.dumps(out))
`;

export const PYTHON_TIMEOUT_MS = 10_000;
export const PYTHON_UNAVAILABLE = "python3 unavailable";

export interface CompileOptions {
  /** The interpreter to run (tests point it elsewhere). */
  command?: string;
  timeoutMs?: number;
}

/** Where a SyntaxError lies: 1-based line, 1-based column and the end (when Python gives one). */
export type PythonErrorAt = [line: number, col: number | null, endLine: number | null, endCol: number | null];

interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a child with `input` on stdin; null when it cannot start or does not finish within the timeout. */
function runChild(command: string, args: string[], input: string, timeoutMs: number, env?: NodeJS.ProcessEnv): Promise<ChildResult | null> {
  return new Promise((resolve) => {
    let settled = false;
    let stdout = "";
    let stderr = "";
    const finish = (r: ChildResult | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    let child: import("node:child_process").ChildProcess;
    try {
      child = childProcesses().spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], windowsHide: true, ...(env ? { env } : {}) });
    } catch {
      resolve(null);
      return;
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      child.stdout?.destroy(); // do not wait for pipes a grandchild may still hold
      child.stderr?.destroy();
      finish(null);
    }, timeoutMs);
    child.on("error", () => finish(null));
    child.stdout?.setEncoding("utf8");
    child.stderr?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => (stdout += chunk));
    child.stderr?.on("data", (chunk: string) => (stderr += chunk));
    child.on("close", (code) => finish({ code, stdout, stderr }));
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(input);
  });
}

/**
 * Compile every source with one python3 child (JSON array on stdin, one outcome per source on stdout).
 * `errors[k]` is null when source k compiles; `at[k]` places a SyntaxError. `available` is false when python3
 * could not be started, did not answer within the timeout, or answered something unreadable.
 */
export async function compilePython(
  sources: readonly string[],
  opts: CompileOptions = {},
): Promise<{ available: boolean; errors: Array<string | null>; at: Array<PythonErrorAt | null> }> {
  const unavailable = { available: false, errors: sources.map(() => null), at: sources.map(() => null) };
  if (sources.length === 0) return { available: true, errors: [], at: [] };
  const r = await runChild(opts.command ?? "python3", ["-I", "-S", "-c", COMPILER], JSON.stringify(sources), opts.timeoutMs ?? PYTHON_TIMEOUT_MS);
  if (!r || r.code !== 0) return unavailable;
  try {
    const parsed: unknown = JSON.parse(r.stdout);
    const entry = (e: unknown) => e === null || (Array.isArray(e) && typeof e[0] === "string");
    if (Array.isArray(parsed) && parsed.length === sources.length && parsed.every(entry)) {
      const rows = parsed as Array<null | [string, ...unknown[]]>;
      const num = (v: unknown) => (typeof v === "number" ? v : null);
      return {
        available: true,
        errors: rows.map((e) => (e === null ? null : e[0])),
        at: rows.map((e) => (e === null || typeof e[1] !== "number" ? null : [e[1], num(e[2]), num(e[3]), num(e[4])])),
      };
    }
  } catch {
    /* unreadable answer */
  }
  return unavailable;
}

/** True when a SyntaxError lies on or next to text standing for a shell expansion: only the shell knows it. */
export function errorAtMask(src: PythonSource, at: PythonErrorAt | null): boolean {
  if (!at || src.masks.length === 0) return false;
  const lineStarts = [0];
  for (let k = 0; k < src.source.length; k++) if (src.source[k] === "\n") lineStarts.push(k + 1);
  const abs = (line: number, col: number) => (lineStarts[line - 1] ?? src.source.length) + Math.max(col - 1, 0);
  const [line, col, endLine, endCol] = at;
  const a = abs(line, col ?? 1);
  let b = endLine !== null && endCol !== null ? abs(endLine, endCol) : a + 1;
  if (b <= a) b = a + 1;
  return src.masks.some(([ms, me]) => ms <= b && me >= a);
}

// ---------------------------------------------------------------- shell syntax (bash -n)

export const BASH_TIMEOUT_MS = 10_000;
const BASH_PARALLEL = 4;

export interface ShellOptions {
  /** The bash to run (tests point it elsewhere). */
  command?: string;
  timeoutMs?: number;
}

/** bash -n's first complaint, worded as a finding: `Shell syntax error: …`. */
function bashMessage(stderr: string): string {
  const line = stderr.split("\n").find((l) => l.trim() !== "" && !/warning:/.test(l)) ?? "";
  const rest = line.replace(/^[^:]*bash[^:]*: /, "").replace(/^line \d+: /, "").trim();
  if (rest === "") return "Shell syntax error";
  return rest.startsWith("syntax error") ? `Shell ${rest}` : `Shell syntax error: ${rest}`;
}

/**
 * bash -n on every check: the checks the parser read go to one bash as functions of one script (split in halves
 * while that fails, down to single checks); the others, and every single check, get a bash of their own. The
 * text is on stdin, never in an argument or a shell string; nothing runs. `errors[k]` is null when check k
 * parses. `available` is false when bash cannot be started or does not answer in time.
 */
export async function shellSyntax(
  checks: readonly string[],
  parsed: readonly boolean[],
  opts: ShellOptions = {},
): Promise<{ available: boolean; errors: Array<string | null> }> {
  const errors: Array<string | null> = checks.map(() => null);
  if (checks.length === 0) return { available: true, errors };
  let available = true;
  const env = { PATH: process.env.PATH ?? "", LC_ALL: "C" };
  let running = 0;
  const queue: Array<() => void> = [];
  const bash = async (text: string): Promise<ChildResult | null> => {
    if (running >= BASH_PARALLEL) await new Promise<void>((go) => queue.push(go));
    running++;
    try {
      return await runChild(opts.command ?? "bash", ["-O", "extglob", "-n"], text, opts.timeoutMs ?? BASH_TIMEOUT_MS, env);
    } finally {
      running--;
      queue.shift()?.();
    }
  };
  const one = async (k: number) => {
    const r = await bash(checks[k]);
    if (!r || r.code === null) available = false;
    else if (r.code !== 0) errors[k] = bashMessage(r.stderr);
  };
  const batch = async (ks: number[]): Promise<void> => {
    if (!available) return;
    if (ks.length === 1) return one(ks[0]);
    const script = ks.map((k) => `__do_check_${k}() {\n:\n${checks[k]}\n}\n`).join("");
    const r = await bash(script);
    if (!r || r.code === null) {
      available = false;
      return;
    }
    if (r.code === 0) return;
    const half = Math.ceil(ks.length / 2);
    await Promise.all([batch(ks.slice(0, half)), batch(ks.slice(half))]);
  };
  const readable = checks.map((_, k) => k).filter((k) => parsed[k]);
  const unreadable = checks.map((_, k) => k).filter((k) => !parsed[k]);
  await Promise.all([readable.length ? batch(readable) : Promise.resolve(), ...unreadable.map(one)]);
  return available ? { available, errors } : { available, errors: checks.map(() => null) };
}

// ---------------------------------------------------------------- verdicts

export interface CheckVerdict {
  valid: boolean;
  /** The first error's message; null when valid. */
  error: string | null;
  /** Present when the check holds inline Python that could not be compiled because python3 is unavailable. */
  skipped?: typeof PYTHON_UNAVAILABLE;
  /** Every finding, errors first; absent when there is none. */
  findings?: Finding[];
}

export interface VerifyOptions {
  python?: CompileOptions;
  /** bash -n options; false skips the shell syntax check (finalize). */
  shell?: ShellOptions | false;
}

/**
 * Verdict per check string: valid iff no finding is an error. Findings: bash -n's syntax errors, inline Python
 * that does not compile once the shell has handed it over (errors on a masked expansion are left out: only the
 * shell knows that text), exit-code maskers, CI expressions, placeholders and prose. All sources of all checks go
 * to a single python3 child, started only when at least one source exists; bash runs once for all checks
 * unless one of them fails.
 */
export async function verifyChecks(
  checks: readonly string[],
  opts: VerifyOptions = {},
): Promise<{ verdicts: CheckVerdict[]; pythonAvailable: boolean; bashAvailable: boolean }> {
  const analyses = checks.map(analyzeCheck);
  const unique = [...new Set(analyses.flatMap((a) => a.python.map((p) => p.source)))];
  const [compiled, shell] = await Promise.all([
    compilePython(unique, opts.python),
    opts.shell === false
      ? Promise.resolve({ available: true, errors: checks.map(() => null) })
      : shellSyntax(checks, analyses.map((a) => a.parsed), opts.shell ?? {}),
  ]);
  const index = new Map(unique.map((src, k) => [src, k]));
  const verdicts = analyses.map((a, k): CheckVerdict => {
    const findings: Finding[] = [];
    const shellError = shell.errors[k];
    if (shellError !== null) findings.push({ code: "shell-syntax", severity: "error", message: shellError });
    let skipped = false;
    if (a.python.length && !compiled.available) skipped = true;
    else {
      for (const p of a.python) {
        const j = index.get(p.source) as number;
        const message = compiled.errors[j];
        if (message !== null && !errorAtMask(p, compiled.at[j])) {
          findings.push({ code: "python-syntax", severity: "error", message });
          break;
        }
      }
    }
    findings.push(...a.findings);
    findings.sort((x, y) => (x.severity === y.severity ? 0 : x.severity === "error" ? -1 : 1));
    const firstError = findings.find((f) => f.severity === "error");
    return {
      valid: !firstError,
      error: firstError ? firstError.message : null,
      ...(skipped ? { skipped: PYTHON_UNAVAILABLE } : {}),
      ...(findings.length ? { findings } : {}),
    };
  });
  return { verdicts, pythonAvailable: compiled.available, bashAvailable: shell.available };
}
