// The shapes of a helper call the permission hook reads, as a small grammar: the exact words bash would pass to
// `node` and where its stdin comes from, or null for anything else. Pure syntax: which paths, subcommands and
// arguments are allowed is permit.ts's business. The grammar (one space between the fixed parts, `␣` below):
//
//   call     := [ "cd␣" word "␣&&␣" ] [ feed "␣|␣" ] "node␣" word args [ stdin ] [ "␣2>&1" ] [ body ]
//   feed     := "echo␣" 'single-quoted literal, '\'' inside'  |  "cat␣" word
//   args     := ( "␣"+ word )*            (a word never starts with `<` or `2>&1`)
//   stdin    := "␣"+ "<␣"+ word  |  "␣"+ "<<" ["␣"] ( 'DELIM' | "DELIM" )
//   body     := "\n" line* "\n" DELIM ["\n"]     (only after a `<<` stdin; the first line equal to DELIM ends it)
//   word     := ( [A-Za-z0-9_.,:/=@%+-] | 'text without a quote' | "text without $ ` \ ! or a quote" | \' )+
//
// Trailing spaces on the first line are allowed; anything else (a second command, another redirect, `2>&1`
// anywhere but last, a here-doc with an unquoted delimiter, which expands `$(…)`, a here-string, a newline
// outside a here-doc, a carriage return, NUL) is not a helper call.

/** A parsed helper call: what bash runs, as data. */
export interface HelperLine {
  /** The folder of a `cd <dir> &&` prefix, as bash receives it. */
  cd?: string;
  /** The helper path `node` is given. */
  script: string;
  /** The words after the helper path: subcommand first. */
  words: string[];
  /** Where stdin comes from: an echoed literal, a here-doc body, or a file (`< file` or `cat file |`). */
  stdin?: { kind: "echo" | "heredoc"; text: string } | { kind: "redirect" | "cat"; path: string };
  /** A trailing `2>&1`. */
  mergesStderr: boolean;
}

/** Characters a bare (unquoted) word may hold: none is special to bash in an argument. */
const BARE = /[A-Za-z0-9_.,:/=@%+-]/;
/** An echo literal: single-quoted text, `'\''` for a quote inside. */
const ECHO_LITERAL = /^'(?:[^']*'\\'')*[^']*'$/;
/** A quoted here-doc delimiter (quoted: the body is taken literally, nothing in it expands). */
const DELIMITER = /^(?:'([A-Za-z_][A-Za-z0-9_]{0,31})'|"([A-Za-z_][A-Za-z0-9_]{0,31})")(?= |$)/;

/**
 * One shell word starting at `i` and ending at a space or the end of `line`: its value as bash passes it and the
 * index after it. Null when it is empty or holds anything the shell would interpret.
 */
export function readWord(line: string, i: number): { value: string; end: number } | null {
  let value = "";
  const start = i;
  while (i < line.length && line[i] !== " ") {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return null;
      value += line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      const end = line.indexOf('"', i + 1);
      if (end < 0) return null;
      const inner = line.slice(i + 1, end);
      if (/[$`\\!]/.test(inner)) return null;
      value += inner;
      i = end + 1;
    } else if (c === "\\" && line[i + 1] === "'") {
      value += "'";
      i += 2;
    } else if (BARE.test(c)) {
      value += c;
      i++;
    } else return null;
  }
  return i > start ? { value, end: i } : null;
}

/** The helper call a Bash command holds, per the grammar above, or null. */
export function parseHelperLine(command: string, maxLength = 16_384): HelperLine | null {
  if (command.length > maxLength || /[\r\0]/.test(command)) return null;
  const nl = command.indexOf("\n");
  const line = nl < 0 ? command : command.slice(0, nl);
  const out: HelperLine = { script: "", words: [], mergesStderr: false };
  let i = 0;
  if (line.startsWith("cd ")) {
    const dir = readWord(line, 3);
    if (!dir || !line.startsWith(" && ", dir.end)) return null;
    out.cd = dir.value;
    i = dir.end + 4;
  }
  if (line.startsWith("echo ", i)) {
    const lit = readWord(line, i + 5);
    if (!lit || !ECHO_LITERAL.test(line.slice(i + 5, lit.end)) || !line.startsWith(" | ", lit.end)) return null;
    out.stdin = { kind: "echo", text: lit.value };
    i = lit.end + 3;
  } else if (line.startsWith("cat ", i)) {
    const file = readWord(line, i + 4);
    if (!file || !line.startsWith(" | ", file.end)) return null;
    out.stdin = { kind: "cat", path: file.value };
    i = file.end + 3;
  }
  if (!line.startsWith("node ", i)) return null;
  const script = readWord(line, i + 5);
  if (!script) return null;
  out.script = script.value;
  i = script.end;
  let delimiter: string | undefined;
  let redirected = false;
  while (i < line.length) {
    if (line[i] !== " ") return null;
    while (line[i] === " ") i++;
    if (i >= line.length) break; // trailing spaces
    if (out.mergesStderr) return null; // `2>&1` comes last
    if (line.startsWith("2>&1", i) && (i + 4 === line.length || line[i + 4] === " ")) {
      out.mergesStderr = true;
      i += 4;
      continue;
    }
    if (line[i] === "<") {
      if (redirected || out.stdin) return null; // one stdin, and nothing but `2>&1` after it
      redirected = true;
      if (line[i + 1] === "<") {
        let j = i + 2;
        if (line[j] === " ") j++;
        const m = DELIMITER.exec(line.slice(j));
        if (!m) return null; // `<<EOF` (expands), `<<-`, `<<<`, anything else
        delimiter = m[1] ?? m[2];
        i = j + m[0].length;
        continue;
      }
      if (line[i + 1] !== " ") return null;
      i += 1;
      while (line[i] === " ") i++;
      const file = readWord(line, i);
      if (!file) return null;
      out.stdin = { kind: "redirect", path: file.value };
      i = file.end;
      continue;
    }
    if (redirected) return null; // arguments end at the stdin redirect
    const word = readWord(line, i);
    if (!word) return null;
    out.words.push(word.value);
    i = word.end;
  }
  if (delimiter === undefined) return nl < 0 ? out : null;
  if (nl < 0) return null;
  const lines = command.slice(nl + 1).split("\n");
  const k = lines.indexOf(delimiter);
  if (k < 0) return null;
  const after = lines.slice(k + 1);
  if (after.length > 1 || (after.length === 1 && after[0] !== "")) return null; // a second command after the body
  out.stdin = { kind: "heredoc", text: lines.slice(0, k).map((l) => l + "\n").join("") };
  return out;
}
