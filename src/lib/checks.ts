// Acceptance-check analysis shared by validate-checks and finalize: surface-only detection (contract 3.8), the
// `|| true` anti-pattern, extraction of the Python source a shell would pass to `python3 -c` (3.9), and one
// batched python3 child that compiles every extracted source.
// node:child_process is loaded only when a check has Python to compile (finalize and validate-checks load this
// module on every call; most plans have none).
let childProcess: typeof import("node:child_process") | undefined;
const childProcesses = () => (childProcess ??= require("node:child_process") as typeof import("node:child_process"));

// ---------------------------------------------------------------- surface-only (contract 3.8)

const GREP_START = /^\s*(?:grep|egrep|fgrep|rg)\s/i;
const GREP_PIPED = /\|\s*(?:grep|egrep|fgrep|rg)\s/i;
const FILE_TEST = /^\s*(?:test|\[\[?)\s+-[fedsrwx]/i;

/** True when a check only inspects text or file existence (grep, test -f, [ -d ...), not behaviour. */
export function isSurfaceOnly(check: string): boolean {
  const cmd = check.trim().replace(/^[!\s]+/, "");
  if (cmd.includes("&&") || cmd.includes("||")) return false;
  return GREP_START.test(cmd) || GREP_PIPED.test(cmd) || FILE_TEST.test(cmd);
}

const MASKING = /\|\|\s*(?:(true|echo)(?![\w-])|(:))/;

/** The word of a `|| true`, `|| echo` or `|| :` that masks a check's failure, or null. */
export function maskingWord(check: string): string | null {
  const m = MASKING.exec(check);
  return m ? (m[1] ?? m[2]) : null;
}

// ---------------------------------------------------------------- inline Python extraction (contract 3.9)

const PYTHON_C = /python3[ \t]+-c(?=[ \t'"])/g;
const WORD_END = new Set([" ", "\t", "\n", "\r", ";", "&", "|", "<", ">", "(", ")"]);
const DQ_ESCAPABLE = new Set(["$", "`", '"', "\\"]);

/**
 * Read one shell word starting at `start`: quoted and unquoted segments concatenated until unquoted whitespace,
 * an operator character or the end. Returns the word's value and where it ended, or null for an unterminated
 * quote.
 */
export function readShellWord(s: string, start: number): { value: string; end: number } | null {
  let out = "";
  let i = start;
  while (i < s.length) {
    const c = s[i];
    if (c === "'") {
      const close = s.indexOf("'", i + 1);
      if (close < 0) return null;
      out += s.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        if (i >= s.length) return null;
        const d = s[i];
        if (d === '"') break;
        if (d === "\\" && i + 1 < s.length) {
          const e = s[i + 1];
          if (DQ_ESCAPABLE.has(e)) out += e;
          else if (e !== "\n") out += d + e;
          i += 2;
          continue;
        }
        out += d;
        i++;
      }
      i++;
    } else if (WORD_END.has(c)) {
      break;
    } else if (c === "\\") {
      // An unquoted backslash quotes the next character; backslash-newline is a line continuation; a
      // trailing backslash stays itself.
      if (i + 1 >= s.length) out += c;
      else if (s[i + 1] !== "\n") out += s[i + 1];
      i += 2;
    } else {
      out += c;
      i++;
    }
  }
  return { value: out, end: i };
}

/**
 * The Python sources a shell would pass to every `python3 -c '...'` / `python3 -c "..."` in a check, in order.
 * Occurrences whose argument is unquoted or has an unterminated quote are not validated (left out).
 */
export function extractPythonSources(check: string): string[] {
  const sources: string[] = [];
  PYTHON_C.lastIndex = 0;
  for (let m = PYTHON_C.exec(check); m; m = PYTHON_C.exec(check)) {
    let i = m.index + m[0].length;
    while (check[i] === " " || check[i] === "\t") i++;
    if (check[i] !== "'" && check[i] !== '"') continue;
    const word = readShellWord(check, i);
    if (!word) continue;
    sources.push(word.value);
    PYTHON_C.lastIndex = Math.max(PYTHON_C.lastIndex, word.end);
  }
  return sources;
}

// ---------------------------------------------------------------- compilation

const COMPILER = `
import json, sys
out = []
for src in json.loads(sys.stdin.buffer.read().decode("utf-8")):
    try:
        compile(src, "<check>", "exec", dont_inherit=True)
        out.append(None)
    except SyntaxError as e:
        if e.lineno is None:
            out.append("Compilation error: %s" % (e.msg,))
        else:
            out.append("SyntaxError: %s at line %s" % (e.msg, e.lineno))
    except Exception as e:
        out.append("Compilation error: %s" % (e,))
sys.stdout.write(json.dumps(out))
`;

export const PYTHON_TIMEOUT_MS = 10_000;
export const PYTHON_UNAVAILABLE = "python3 unavailable";

export interface CompileOptions {
  /** The interpreter to run (tests point it elsewhere). */
  command?: string;
  timeoutMs?: number;
}

/**
 * Compile every source with one python3 child (JSON array on stdin, one outcome per source on stdout).
 * `errors[k]` is null when source k compiles. `available` is false when python3 could not be started, did not
 * answer within the timeout, or answered something unreadable.
 */
export function compilePython(
  sources: readonly string[],
  opts: CompileOptions = {},
): Promise<{ available: boolean; errors: Array<string | null> }> {
  const unavailable = { available: false, errors: sources.map(() => null) };
  if (sources.length === 0) return Promise.resolve({ available: true, errors: [] });
  return new Promise((resolve) => {
    let settled = false;
    let stdout = "";
    const finish = (text: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (text === null) return resolve(unavailable);
      try {
        const parsed: unknown = JSON.parse(text);
        if (
          Array.isArray(parsed) &&
          parsed.length === sources.length &&
          parsed.every((e) => e === null || typeof e === "string")
        ) {
          return resolve({ available: true, errors: parsed as Array<string | null> });
        }
      } catch {
        /* unreadable answer */
      }
      resolve(unavailable);
    };
    let child: import("node:child_process").ChildProcess;
    try {
      child = childProcesses().spawn(opts.command ?? "python3", ["-I", "-S", "-c", COMPILER], {
        stdio: ["pipe", "pipe", "ignore"],
        windowsHide: true,
      });
    } catch {
      resolve(unavailable);
      return;
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      child.stdout?.destroy(); // do not wait for pipes a grandchild may still hold
      finish(null);
    }, opts.timeoutMs ?? PYTHON_TIMEOUT_MS);
    child.on("error", () => finish(null));
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.on("close", (code) => finish(code === 0 ? stdout : null));
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(JSON.stringify(sources));
  });
}

export interface CheckVerdict {
  valid: boolean;
  /** The first failing source's message; null when valid. */
  error: string | null;
  /** Present when the check holds inline Python that could not be compiled because python3 is unavailable. */
  skipped?: typeof PYTHON_UNAVAILABLE;
}

/**
 * Verdict per check string (contract 3.9 step 5): valid iff every inline Python source compiles. All sources of
 * all checks go to a single python3 child, started only when at least one source exists.
 */
export async function verifyChecks(
  checks: readonly string[],
  opts: CompileOptions = {},
): Promise<{ verdicts: CheckVerdict[]; pythonAvailable: boolean }> {
  const perCheck = checks.map(extractPythonSources);
  const unique = [...new Set(perCheck.flat())];
  const { available, errors } = await compilePython(unique, opts);
  const errorOf = new Map(unique.map((src, k) => [src, errors[k]]));
  const verdicts = perCheck.map((sources): CheckVerdict => {
    if (sources.length === 0) return { valid: true, error: null };
    if (!available) return { valid: true, error: null, skipped: PYTHON_UNAVAILABLE };
    const failing = sources.map((s) => errorOf.get(s)).find((e) => e !== null && e !== undefined);
    return failing ? { valid: false, error: failing } : { valid: true, error: null };
  });
  return { verdicts, pythonAvailable: available };
}
