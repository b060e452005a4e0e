// A small parser of the bash command language, enough to see a check as the shell will: quoting, expansions
// (`$VAR`, `${…}`, `$(…)`, backticks, `$((…))`), redirections and here-documents, pipelines, `&&`/`||` lists
// and the compound commands. It never executes or expands anything: an expansion stays an opaque part of its
// word (a command substitution keeps its parsed body; `${…}`, `$((…))` and an unquoted here-document keep the
// expansions inside them, so every command the script would run is visible). What it cannot parse it refuses with
// ShellParseError; callers then skip the analyses that need a tree (bash -n is the judge of syntax, not this
// parser). test/unit/shell-differential.test.ts holds it to mvdan/sh and lists where it reads differently on purpose.
//
// Why one file: one recursive-descent grammar of bash; its productions call each other, and split apart they would
// only import each other back.

export class ShellParseError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** Literal text after quote removal, or an expansion the shell alone can resolve. */
export type Part =
  | { kind: "lit"; text: string; quoted: boolean }
  | {
      kind: "exp";
      /** The expansion as written, e.g. `$HOME`, `${x:-y}`, `$(date)`. */
      raw: string;
      quoted: boolean;
      /** The parsed body of `$(…)`, a backtick substitution or `<(…)`/`>(…)`. */
      body?: List;
      /** The expansions inside `${…}` or `$((…))` (`${x:-$(pwd)}` runs pwd). */
      inner?: Part[];
      /** `${{ … }}`: a CI expression the shell cannot expand. */
      ci?: boolean;
    };

export interface Word {
  parts: Part[];
  start: number;
  end: number;
}

export interface Redir {
  op: string;
  target: Word;
  /** A here-document's body (the text between the operator's line and the delimiter). */
  heredoc?: string;
  /** The body as the shell expands it, when the delimiter is unquoted: literal text and expansions. */
  heredocParts?: Part[];
}

export interface Simple {
  type: "simple";
  assigns: Word[];
  words: Word[];
  redirs: Redir[];
  start: number;
  end: number;
}

export type Compound =
  | { type: "group" | "subshell"; body: List }
  | { type: "if"; branches: Array<{ cond: List; body: List }>; elseBody: List | null }
  | { type: "loop"; cond: List; body: List }
  | { type: "for"; words: Word[]; body: List; /** `for ((…))`: the expansions of its three expressions. */ arith?: Part[] }
  | { type: "case"; word: Word; arms: Array<{ patterns: Word[]; body: List }> }
  | { type: "func"; name: string; body: Command }
  | { type: "arith"; raw: string; inner: Part[] }
  | { type: "cond"; words: Word[] };

export type Command = Simple | (Compound & { redirs: Redir[]; start: number; end: number });

export interface Pipeline {
  negated: boolean;
  cmds: Command[];
  start: number;
  end: number;
}

export interface AndOr {
  first: Pipeline;
  rest: Array<{ op: "&&" | "||"; node: Pipeline }>;
  start: number;
  end: number;
}

export interface List {
  items: Array<{ node: AndOr; sep: string }>;
}

const BLANK = new Set([" ", "\t"]);
const META = new Set([" ", "\t", "\n", ";", "&", "|", "<", ">", "(", ")"]);
const DQ_ESCAPABLE = new Set(["$", "`", '"', "\\", "\n"]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const SPECIAL_PARAM = /^[0-9@*#?$!-]/;
const EXTGLOB = new Set(["@", "!", "+", "*", "?"]);
const LIST_END = new Set(["then", "elif", "else", "fi", "do", "done", "esac", "}"]);
const MAX_DEPTH = 200;

interface PendingHeredoc {
  redir: Redir;
  delim: string;
  stripTabs: boolean;
  /** Any quoting in the delimiter: the body stays literal text. */
  quoted: boolean;
}

class Parser {
  i = 0;
  private heredocs: PendingHeredoc[] = [];
  depth = 0;
  /**
   * Where each `$(` list starting at an offset ends, shared by the parsers of one script: the scans for where a
   * `${…}` or `$((…))` ends parse the substitutions inside, and without it nested ones would be parsed again at
   * every level (exponential in the nesting).
   */
  ends = new Map<number, number>();

  constructor(readonly s: string) {}

  fail(message: string, at = this.i): never {
    throw new ShellParseError(message, at);
  }

  enter(): void {
    if (++this.depth > MAX_DEPTH) this.fail("nesting too deep");
  }

  private leave(): void {
    this.depth--;
  }

  // ---------------------------------------------------------------- blanks, newlines, comments

  /** Spaces, tabs and line continuations. */
  skipBlanks(): void {
    const s = this.s;
    for (;;) {
      if (BLANK.has(s[this.i])) this.i++;
      else if (s[this.i] === "\\" && s[this.i + 1] === "\n") this.i += 2;
      else return;
    }
  }

  private skipComment(): void {
    if (this.s[this.i] !== "#") return;
    while (this.i < this.s.length && this.s[this.i] !== "\n") this.i++;
  }

  /** Consume one newline and the bodies of the here-documents it starts. */
  private newline(): void {
    this.i++;
    const pending = this.heredocs;
    this.heredocs = [];
    for (const h of pending) {
      const bodyStart = this.i;
      let bodyEnd = this.s.length;
      while (this.i < this.s.length) {
        const eol = this.s.indexOf("\n", this.i);
        const lineEnd = eol < 0 ? this.s.length : eol;
        let line = this.s.slice(this.i, lineEnd);
        if (h.stripTabs) line = line.replace(/^\t+/, "");
        const lineStart = this.i;
        this.i = eol < 0 ? this.s.length : eol + 1;
        if (line === h.delim) {
          bodyEnd = lineStart;
          break;
        }
      }
      h.redir.heredoc = this.s.slice(bodyStart, Math.min(bodyEnd, this.s.length));
      if (!h.quoted) h.redir.heredocParts = this.scanOrNone(bodyStart, Math.min(bodyEnd, this.s.length), "heredoc");
    }
  }

  /**
   * The text between `from` and `to` read for expansions only, as bash reads a `${…}` word, an arithmetic
   * expression or an unquoted here-document: `$…` and backticks expand, the rest is literal text. Offsets stay
   * those of the whole script.
   */
  private scanParts(from: number, to: number, mode: "param" | "arith" | "heredoc"): Part[] {
    const p = new Parser(this.s.slice(0, to));
    p.i = from;
    p.depth = this.depth;
    p.ends = this.ends;
    p.enter();
    const s = p.s;
    const parts: Part[] = [];
    const lit = (text: string, quoted: boolean) => {
      const last = parts[parts.length - 1];
      if (last && last.kind === "lit") last.text += text;
      else parts.push({ kind: "lit", text, quoted });
    };
    while (p.i < s.length) {
      const c = s[p.i];
      if (c === "\\" && p.i + 1 < s.length) {
        const e = s[p.i + 1];
        if (mode !== "heredoc" || !"$`\\\n".includes(e)) lit(c + e, true);
        else if (e !== "\n") lit(e, true);
        p.i += 2;
      } else if (c === "'" && mode === "param") {
        const close = s.indexOf("'", p.i + 1);
        const end = close < 0 ? s.length : close + 1;
        lit(s.slice(p.i, end), true);
        p.i = end;
      } else if (c === "$") p.readDollar(parts, lit, true);
      else if (c === "`") parts.push(p.readBacktick(true));
      else {
        lit(c, true);
        p.i++;
      }
    }
    return parts;
  }

  /** scanParts, or undefined where bash would fail only when it expands the text (an unterminated `$(`). */
  private scanOrNone(from: number, to: number, mode: "param" | "arith" | "heredoc"): Part[] | undefined {
    try {
      return this.scanParts(from, to, mode);
    } catch (e) {
      if (e instanceof ShellParseError) return undefined;
      throw e;
    }
  }

  /** Blanks, comments and newlines between commands. */
  skipSpace(): void {
    for (;;) {
      this.skipBlanks();
      this.skipComment();
      if (this.s[this.i] === "\n") this.newline();
      else return;
    }
  }

  /** The unquoted reserved-word candidate at the cursor (a plain word followed by a delimiter), or null. */
  private peekPlain(): string | null {
    const s = this.s;
    let j = this.i;
    while (j < s.length && !META.has(s[j]) && !"'\"\\$`".includes(s[j])) j++;
    if (j === this.i) return null;
    if (j < s.length && !META.has(s[j])) return null;
    return s.slice(this.i, j);
  }

  private expectWord(w: string): void {
    this.skipSpace();
    if (this.peekPlain() !== w) this.fail(`expected '${w}'`);
    this.i += w.length;
  }

  // ---------------------------------------------------------------- lists

  /** Commands separated by `;`, `&` or newlines, up to EOF, `)`, `;;` or one of `stops` in command position. */
  parseList(stops: ReadonlySet<string>): List {
    this.enter();
    const items: List["items"] = [];
    const s = this.s;
    for (;;) {
      this.skipSpace();
      if (this.i >= s.length || s[this.i] === ")" || s.startsWith(";;", this.i) || s.startsWith(";&", this.i)) break;
      const w = this.peekPlain();
      if (w !== null && stops.has(w)) break;
      if (w !== null && LIST_END.has(w)) this.fail(`unexpected '${w}'`);
      const node = this.parseAndOr();
      this.skipBlanks();
      let sep = "";
      const c = s[this.i];
      if (c === ";" && s[this.i + 1] !== ";" && s[this.i + 1] !== "&") {
        sep = ";";
        this.i++;
      } else if (c === "&" && s[this.i + 1] !== "&" && s[this.i + 1] !== ">") {
        sep = "&";
        this.i++;
      } else {
        this.skipComment();
        if (s[this.i] === "\n") {
          sep = "\n";
          this.newline();
        }
      }
      items.push({ node, sep });
      if (sep === "") break;
    }
    this.leave();
    return { items };
  }

  private parseAndOr(): AndOr {
    const start = this.i;
    const first = this.parsePipeline();
    const rest: AndOr["rest"] = [];
    for (;;) {
      this.skipBlanks();
      const op = this.s.slice(this.i, this.i + 2);
      if (op !== "&&" && op !== "||") break;
      this.i += 2;
      this.skipSpace();
      rest.push({ op, node: this.parsePipeline() });
    }
    return { first, rest, start, end: this.i };
  }

  private parsePipeline(): Pipeline {
    this.skipBlanks();
    const start = this.i;
    let negated = false;
    for (;;) {
      const w = this.peekPlain();
      if (w === "!") {
        negated = !negated;
        this.i++;
      } else if (w === "time") {
        this.i += 4;
        this.skipBlanks();
        if (this.peekPlain() === "-p") this.i += 2;
      } else break;
      this.skipBlanks();
    }
    const cmds = [this.parseCommand()];
    for (;;) {
      this.skipBlanks();
      if (this.s[this.i] !== "|" || this.s[this.i + 1] === "|") break;
      this.i += this.s[this.i + 1] === "&" ? 2 : 1;
      this.skipSpace();
      cmds.push(this.parseCommand());
    }
    return { negated, cmds, start, end: this.i };
  }

  // ---------------------------------------------------------------- commands

  private parseCommand(): Command {
    this.skipBlanks();
    const start = this.i;
    const s = this.s;
    if (this.i >= s.length) this.fail("unexpected end of input");
    const compound = this.parseCompound();
    if (compound) {
      const redirs: Redir[] = [];
      for (;;) {
        this.skipBlanks();
        const r = this.tryRedir();
        if (!r) break;
        redirs.push(r);
      }
      return { ...compound, redirs, start, end: this.i };
    }
    const simple = this.parseSimple();
    // `name () compound`: a function definition.
    if (simple.words.length === 1 && simple.assigns.length === 0 && simple.redirs.length === 0) {
      const save = this.i;
      this.skipBlanks();
      if (s[this.i] === "(") {
        this.i++;
        this.skipBlanks();
        if (s[this.i] === ")") {
          this.i++;
          this.skipSpace();
          const name = wordText(simple.words[0]) ?? "";
          return { type: "func", name, body: this.parseCommand(), redirs: [], start, end: this.i };
        }
      }
      this.i = save;
    }
    return simple;
  }

  /** The compound command at the cursor (its redirections aside), or null when a simple command starts here. */
  private parseCompound(): Compound | null {
    const s = this.s;
    const w = this.peekPlain();
    if (s[this.i] === "(") return this.parseParenthesized();
    switch (w) {
      case "{": {
        this.i++;
        const body = this.parseList(new Set(["}"]));
        this.expectWord("}");
        return { type: "group", body };
      }
      case "if":
        return this.parseIf();
      case "while":
      case "until": {
        this.i += w.length;
        const cond = this.parseList(new Set(["do"]));
        this.expectWord("do");
        const body = this.parseList(new Set(["done"]));
        this.expectWord("done");
        return { type: "loop", cond, body };
      }
      case "for":
      case "select":
        this.i += w.length;
        return this.parseFor();
      case "case":
        return this.parseCase();
      case "function":
        return this.parseFunctionKeyword();
      case "[[":
        this.i += 2;
        return { type: "cond", words: this.parseCond() };
    }
    if (w !== null && LIST_END.has(w)) this.fail(`unexpected '${w}'`);
    return null;
  }

  /** `((…))` (arithmetic) or `( list )` (a subshell). */
  private parseParenthesized(): Compound {
    const s = this.s;
    if (s[this.i + 1] === "(") {
      const end = this.arithEnd(this.i + 2);
      if (end >= 0) {
        const compound: Compound = { type: "arith", raw: s.slice(this.i, end), inner: this.scanOrNone(this.i + 2, end - 2, "arith") ?? [] };
        this.i = end;
        return compound;
      }
    }
    this.i++;
    const body = this.parseList(new Set());
    this.skipSpace();
    if (s[this.i] !== ")") this.fail("expected ')'");
    this.i++;
    return { type: "subshell", body };
  }

  private parseIf(): Compound {
    this.i += 2;
    const branches: Array<{ cond: List; body: List }> = [];
    let elseBody: List | null = null;
    for (;;) {
      const cond = this.parseList(new Set(["then"]));
      this.expectWord("then");
      const body = this.parseList(new Set(["elif", "else", "fi"]));
      branches.push({ cond, body });
      this.skipSpace();
      const next = this.peekPlain();
      if (next === "elif") {
        this.i += 4;
        continue;
      }
      if (next === "else") {
        this.i += 4;
        elseBody = this.parseList(new Set(["fi"]));
      }
      this.expectWord("fi");
      break;
    }
    return { type: "if", branches, elseBody };
  }

  /** After `for` or `select`: `((…))` or a name with its optional `in` words, then the body. */
  private parseFor(): Compound {
    const s = this.s;
    this.skipBlanks();
    const words: Word[] = [];
    let arith: Part[] | undefined;
    if (s.startsWith("((", this.i)) {
      const end = this.arithEnd(this.i + 2);
      if (end < 0) this.fail("unterminated '(('");
      arith = this.scanOrNone(this.i + 2, end - 2, "arith") ?? [];
      this.i = end;
    } else {
      words.push(this.readWord());
      this.skipSpace();
      if (this.peekPlain() === "in") {
        this.i += 2;
        for (;;) {
          this.skipBlanks();
          const c = s[this.i];
          if (c === ";" || c === "\n" || c === undefined || c === "#") break;
          if (META.has(c)) this.fail(`unexpected '${c}'`);
          words.push(this.readWord());
        }
      }
    }
    this.skipBlanks();
    if (s[this.i] === ";") this.i++;
    this.skipSpace();
    let body: List;
    if (this.peekPlain() === "{") {
      this.i++;
      body = this.parseList(new Set(["}"]));
      this.expectWord("}");
    } else {
      this.expectWord("do");
      body = this.parseList(new Set(["done"]));
      this.expectWord("done");
    }
    return { type: "for", words, body, ...(arith ? { arith } : {}) };
  }

  private parseCase(): Compound {
    const s = this.s;
    this.i += 4;
    this.skipBlanks();
    const word = this.readWord();
    this.expectWord("in");
    const arms: Array<{ patterns: Word[]; body: List }> = [];
    for (;;) {
      this.skipSpace();
      if (this.peekPlain() === "esac") break;
      if (s[this.i] === "(") this.i++;
      const patterns: Word[] = [];
      for (;;) {
        this.skipBlanks();
        patterns.push(this.readWord());
        this.skipBlanks();
        if (s[this.i] === "|") this.i++;
        else break;
      }
      if (s[this.i] !== ")") this.fail("expected ')' after a case pattern");
      this.i++;
      const body = this.parseList(new Set(["esac"]));
      arms.push({ patterns, body });
      this.skipSpace();
      if (s.startsWith(";;&", this.i)) this.i += 3;
      else if (s.startsWith(";;", this.i) || s.startsWith(";&", this.i)) this.i += 2;
      else if (this.peekPlain() !== "esac") this.fail("expected ';;' or 'esac'");
    }
    this.expectWord("esac");
    return { type: "case", word, arms };
  }

  /** `function name [()] compound`. */
  private parseFunctionKeyword(): Compound {
    const s = this.s;
    this.i += 8;
    this.skipBlanks();
    const name = this.peekPlain();
    if (name === null) this.fail("expected a function name");
    this.i += name.length;
    this.skipBlanks();
    if (s[this.i] === "(") {
      this.i++;
      this.skipBlanks();
      if (s[this.i] !== ")") this.fail("expected ')'");
      this.i++;
    }
    this.skipSpace();
    return { type: "func", name, body: this.parseCommand() };
  }

  private parseSimple(): Simple {
    const start = this.i;
    const s = this.s;
    const assigns: Word[] = [];
    const words: Word[] = [];
    const redirs: Redir[] = [];
    for (;;) {
      this.skipBlanks();
      if (this.i >= s.length) break;
      if (s[this.i] === "#") break;
      const r = this.tryRedir();
      if (r) {
        redirs.push(r);
        continue;
      }
      const c = s[this.i];
      if (META.has(c) && !((c === "<" || c === ">") && s[this.i + 1] === "(")) break;
      const word = this.readWord();
      if (words.length === 0 && isAssignment(word)) assigns.push(word);
      else words.push(word);
    }
    if (assigns.length === 0 && words.length === 0 && redirs.length === 0) {
      this.fail(this.i >= s.length ? "unexpected end of input" : `unexpected '${s[this.i]}'`);
    }
    return { type: "simple", assigns, words, redirs, start, end: this.i };
  }

  /** A redirection at the cursor (with its target word), or null with the cursor unchanged. */
  private tryRedir(): Redir | null {
    const s = this.s;
    const save = this.i;
    let j = this.i;
    if (s[j] === "{") {
      const m = /^\{[A-Za-z_][A-Za-z0-9_]*\}(?=[<>])/.exec(s.slice(j, j + 80));
      if (m) j += m[0].length;
    } else {
      while (j < s.length && s[j] >= "0" && s[j] <= "9") j++;
    }
    const rest = s.slice(j, j + 3);
    const op =
      ["&>>", "<<<", "<<-"].find((o) => rest.startsWith(o)) ??
      ["&>", ">>", "<<", "<&", ">&", "<>", ">|"].find((o) => rest.startsWith(o)) ??
      (rest[0] === "<" || rest[0] === ">" ? rest[0] : null);
    if (op === null || (op.length === 1 && rest[1] === "(" && j === this.i)) return null;
    this.i = j + op.length;
    this.skipBlanks();
    if (this.i >= s.length || (META.has(s[this.i]) && !("<>".includes(s[this.i]) && s[this.i + 1] === "("))) {
      this.i = save;
      this.fail(`missing target of '${op}'`, j);
    }
    const target = this.readWord();
    const redir: Redir = { op, target };
    if (op === "<<" || op === "<<-") {
      const delim = target.parts.map((p) => (p.kind === "lit" ? p.text : p.raw)).join("");
      const quoted = target.parts.some((p) => p.kind === "lit" && p.quoted);
      this.heredocs.push({ redir, delim, stripTabs: op === "<<-", quoted });
    }
    return redir;
  }

  /** The words of `[[ … ]]` up to and including `]]`; operators between them are skipped. */
  private parseCond(): Word[] {
    const s = this.s;
    const words: Word[] = [];
    let regexNext = false;
    for (;;) {
      this.skipBlanks();
      if (s[this.i] === "\n") {
        this.newline();
        continue;
      }
      if (this.i >= s.length) this.fail("expected ']]'");
      if (this.peekPlain() === "]]") {
        this.i += 2;
        return words;
      }
      if (regexNext) {
        words.push(this.readRegex());
        regexNext = false;
        continue;
      }
      const two = s.slice(this.i, this.i + 2);
      if (two === "&&" || two === "||") {
        this.i += 2;
        continue;
      }
      if ("()<>!".includes(s[this.i])) {
        this.i++;
        continue;
      }
      const w = this.readWord();
      if (wordText(w) === "=~") regexNext = true;
      words.push(w);
    }
  }

  /** The right side of `=~`: up to a blank outside parentheses and quotes; its expansions stay expansions. */
  private readRegex(): Word {
    const s = this.s;
    const start = this.i;
    let depth = 0;
    const parts: Part[] = [];
    const lit = (text: string) => {
      const last = parts[parts.length - 1];
      if (last && last.kind === "lit") last.text += text;
      else parts.push({ kind: "lit", text, quoted: true });
    };
    while (this.i < s.length) {
      const c = s[this.i];
      if (depth === 0 && (BLANK.has(c) || c === "\n")) break;
      if (c === "\\") {
        lit(s.slice(this.i, this.i + 2));
        this.i += 2;
        continue;
      }
      if (c === "'") {
        const close = s.indexOf(c, this.i + 1);
        if (close < 0) this.fail("unterminated quote");
        lit(s.slice(this.i + 1, close));
        this.i = close + 1;
        continue;
      }
      if (c === '"') {
        this.i++;
        this.readDoubleQuoted(parts, (text) => lit(text));
        continue;
      }
      if (c === "$" && s[this.i + 1] !== undefined && !BLANK.has(s[this.i + 1]) && s[this.i + 1] !== ")") {
        this.readDollar(parts, (text) => lit(text), false);
        continue;
      }
      if (c === "(") depth++;
      else if (c === ")") depth--;
      lit(c);
      this.i++;
    }
    if (parts.length === 0) lit("");
    return { parts, start, end: this.i };
  }

  /**
   * Where `((` … `))` ends (after the closing parentheses), searching from `from`; -1 when it does not. Quoted
   * text and escapes are skipped: `$(( $(echo ')') ))` ends at its own `))`.
   */
  private arithEnd(from: number): number {
    const s = this.s;
    let depth = 0;
    for (let j = from; j < s.length; j++) {
      const c = s[j];
      if (c === "\\") j++;
      else if (c === "'" || c === '"') {
        j = this.quoteEnd(j);
        if (j < 0) return -1;
      } else if (c === "$" && s[j + 1] === "(" && s[j + 2] !== "(") {
        // A command substitution ends where its list does (a `case` pattern's `)` is no closing parenthesis).
        j = this.substitutionEnd(j + 2);
        if (j < 0) return -1;
      } else if (c === "(") depth++;
      else if (c === ")") {
        if (depth === 0) return s[j + 1] === ")" ? j + 2 : -1;
        depth--;
      }
    }
    return -1;
  }

  // ---------------------------------------------------------------- words

  /** One word: quoted and unquoted segments and expansions up to an unquoted metacharacter. */
  readWord(): Word {
    const s = this.s;
    const start = this.i;
    const parts: Part[] = [];
    const lit = (text: string, quoted: boolean) => {
      const last = parts[parts.length - 1];
      if (last && last.kind === "lit" && last.quoted === quoted) last.text += text;
      else parts.push({ kind: "lit", text, quoted });
    };
    while (this.i < s.length) {
      const c = s[this.i];
      if ((c === "<" || c === ">") && s[this.i + 1] === "(" && this.i === start) {
        this.i += 2;
        const body = this.parseList(new Set());
        this.skipSpace();
        if (s[this.i] !== ")") this.fail("expected ')'");
        this.i++;
        parts.push({ kind: "exp", raw: s.slice(start, this.i), quoted: false, body });
        continue;
      }
      if (c === "(" && this.i > start && EXTGLOB.has(s[this.i - 1])) {
        const end = this.balancedParen(this.i);
        lit(s.slice(this.i, end), false);
        this.i = end;
        continue;
      }
      if (c === "(" && this.i > start && isArrayAssignmentPrefix(parts)) {
        // `name=( word … )`: the elements are words (their substitutions stay visible), kept in this word.
        this.i++;
        lit("(", false);
        for (;;) {
          this.skipSpace();
          if (this.i >= s.length) this.fail("expected ')'");
          if (s[this.i] === ")") break;
          const element = this.readWord();
          if (element.end === element.start) this.fail(`unexpected '${s[this.i]}'`);
          parts.push(...element.parts, { kind: "lit", text: " ", quoted: false });
        }
        this.i++;
        lit(")", false);
        continue;
      }
      if (META.has(c)) break;
      if (c === "'") {
        const close = s.indexOf("'", this.i + 1);
        if (close < 0) this.fail("unterminated single quote");
        lit(s.slice(this.i + 1, close), true);
        this.i = close + 1;
      } else if (c === '"') {
        this.i++;
        this.readDoubleQuoted(parts, lit);
      } else if (c === "\\") {
        if (this.i + 1 >= s.length) {
          lit("\\", false);
          this.i++;
        } else {
          if (s[this.i + 1] !== "\n") lit(s[this.i + 1], true);
          this.i += 2;
        }
      } else if (c === "$") {
        this.readDollar(parts, lit, false);
      } else if (c === "`") {
        parts.push(this.readBacktick(false));
      } else {
        lit(c, false);
        this.i++;
      }
    }
    return { parts, start, end: this.i };
  }

  /** The index of the `)` closing a `$(` whose list starts at `from`, or -1 when it does not parse. */
  private substitutionEnd(from: number): number {
    const known = this.ends.get(from);
    if (known !== undefined) return known;
    const p = new Parser(this.s);
    p.i = from;
    p.depth = this.depth;
    p.ends = this.ends;
    let end = -1;
    try {
      p.parseList(new Set());
      p.skipSpace();
      if (this.s[p.i] === ")") end = p.i;
    } catch (e) {
      if (!(e instanceof ShellParseError)) throw e;
    }
    this.ends.set(from, end);
    return end;
  }

  /**
   * The index of the quote closing the one at `j` (`'…'`, `$'…'` with its escapes, `"…"` with its escapes), or -1.
   * For the scans that only look for where a construct ends.
   */
  private quoteEnd(j: number): number {
    const s = this.s;
    const q = s[j];
    const escapes = q === '"' || s[j - 1] === "$";
    for (let k = j + 1; k < s.length; k++) {
      if (s[k] === "\\" && escapes) k++;
      else if (s[k] === q) return k;
    }
    return -1;
  }

  private balancedParen(from: number): number {
    const s = this.s;
    let depth = 0;
    for (let j = from; j < s.length; j++) {
      const c = s[j];
      if (c === "\\") j++;
      else if (c === "'" || c === '"') {
        const close = this.quoteEnd(j);
        if (close < 0) this.fail("unterminated quote", j);
        j = close;
      } else if (c === "(") depth++;
      else if (c === ")" && --depth === 0) return j + 1;
    }
    this.fail("expected ')'", from);
  }

  private readDoubleQuoted(parts: Part[], lit: (text: string, quoted: boolean) => void): void {
    const s = this.s;
    for (;;) {
      if (this.i >= s.length) this.fail("unterminated double quote");
      const c = s[this.i];
      if (c === '"') {
        this.i++;
        // An empty "" still makes a (quoted, empty) word.
        lit("", true);
        return;
      }
      if (c === "\\" && this.i + 1 < s.length) {
        const e = s[this.i + 1];
        if (DQ_ESCAPABLE.has(e)) {
          if (e !== "\n") lit(e, true);
        } else lit(c + e, true);
        this.i += 2;
      } else if (c === "$") {
        this.readDollar(parts, lit, true);
      } else if (c === "`") {
        parts.push(this.readBacktick(true));
      } else {
        lit(c, true);
        this.i++;
      }
    }
  }

  readDollar(parts: Part[], lit: (text: string, quoted: boolean) => void, quoted: boolean): void {
    const s = this.s;
    const start = this.i;
    const next = s[this.i + 1];
    if (next === "(") {
      if (s[this.i + 2] === "(") {
        const end = this.arithEnd(this.i + 3);
        if (end >= 0) {
          const inner = this.scanOrNone(start + 3, end - 2, "arith");
          this.i = end;
          parts.push({ kind: "exp", raw: s.slice(start, end), quoted, ...(inner?.some((p) => p.kind === "exp") ? { inner } : {}) });
          return;
        }
      }
      this.i += 2;
      const saved = this.heredocs;
      this.heredocs = [];
      const body = this.parseList(new Set());
      this.skipSpace();
      this.heredocs = [...saved, ...this.heredocs];
      if (s[this.i] !== ")") this.fail("unterminated '$('", start);
      this.i++;
      parts.push({ kind: "exp", raw: s.slice(start, this.i), quoted, body });
      return;
    }
    if (next === "{") {
      // `${{ … }}` (GitHub Actions) ends at `}}`; the shell would end it at the first `}`.
      const ci = s[this.i + 2] === "{" ? s.indexOf("}}", this.i + 3) : -1;
      const end = ci >= 0 ? ci + 2 : this.braceEnd(this.i + 2);
      const raw = s.slice(start, end);
      const inner = raw.startsWith("${{") ? undefined : this.scanOrNone(start + 2, end - 1, "param");
      this.i = end;
      parts.push({
        kind: "exp",
        raw,
        quoted,
        ...(raw.startsWith("${{") ? { ci: true } : {}),
        ...(inner?.some((p) => p.kind === "exp") ? { inner } : {}),
      });
      return;
    }
    if (next === "'" && !quoted) {
      this.i += 2;
      lit(this.readAnsiC(), true);
      return;
    }
    if (next === '"' && !quoted) {
      this.i += 2;
      this.readDoubleQuoted(parts, lit);
      return;
    }
    const rest = s.slice(this.i + 1, this.i + 200);
    const m = NAME.exec(rest) ?? SPECIAL_PARAM.exec(rest);
    if (m) {
      this.i += 1 + m[0].length;
      parts.push({ kind: "exp", raw: s.slice(start, this.i), quoted });
      return;
    }
    lit("$", quoted);
    this.i++;
  }

  /**
   * Where `${…}` ends, scanning from just after `${`: nested `${`, `$(…)`, backticks, quotes and escapes are
   * skipped over (`${v:-$(f() { :; })}` ends at its own brace).
   */
  private braceEnd(from: number): number {
    const s = this.s;
    let depth = 1;
    for (let j = from; j < s.length; j++) {
      const c = s[j];
      if (c === "\\") j++;
      else if (c === "'" || c === '"') {
        const close = this.quoteEnd(j);
        if (close >= 0) j = close;
      } else if (c === "$" && s[j + 1] === "(" && s[j + 2] !== "(") {
        const end = this.substitutionEnd(j + 2);
        if (end >= 0) j = end;
      }
      else if (c === "`") {
        const close = s.indexOf("`", j + 1);
        if (close >= 0) j = close;
      } else if (c === "$" && s[j + 1] === "{") {
        depth++;
        j++;
      } else if (c === "}" && --depth === 0) return j + 1;
    }
    this.fail("unterminated '${'", from - 2);
  }

  private readAnsiC(): string {
    const s = this.s;
    let out = "";
    for (;;) {
      if (this.i >= s.length) this.fail("unterminated $'");
      const c = s[this.i];
      if (c === "'") {
        this.i++;
        return out;
      }
      if (c !== "\\") {
        out += c;
        this.i++;
        continue;
      }
      const e = s[this.i + 1];
      this.i += 2;
      const simple: Record<string, string> = {
        n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v",
        "\\": "\\", "'": "'", '"': '"', "?": "?",
      };
      if (e in simple) out += simple[e];
      else if (e === "x" || e === "u" || e === "U") {
        const max = e === "x" ? 2 : e === "u" ? 4 : 8;
        const m = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(s.slice(this.i, this.i + max));
        if (m) {
          this.i += m[0].length;
          const code = parseInt(m[0], 16);
          out += code <= 0x10ffff ? String.fromCodePoint(code) : "";
        } else out += "\\" + e;
      } else if (e >= "0" && e <= "7") {
        const m = /^[0-7]{0,2}/.exec(s.slice(this.i, this.i + 2)) as RegExpExecArray;
        this.i += m[0].length;
        out += String.fromCharCode(parseInt(e + m[0], 8) & 0xff);
      } else if (e === "c" && this.i < s.length) {
        out += String.fromCharCode(s.charCodeAt(this.i) & 0x1f);
        this.i++;
      } else if (e === undefined) this.fail("unterminated $'");
      else out += "\\" + e;
    }
  }

  /** A backtick substitution: its text with the backslashes it removes, parsed on its own. */
  readBacktick(quoted: boolean): Part {
    const s = this.s;
    const start = this.i;
    let inner = "";
    let j = this.i + 1;
    for (;;) {
      if (j >= s.length) this.fail("unterminated backtick", start);
      const c = s[j];
      if (c === "`") break;
      if (c === "\\" && j + 1 < s.length && ("$`\\".includes(s[j + 1]) || (quoted && s[j + 1] === '"'))) {
        inner += s[j + 1];
        j += 2;
        continue;
      }
      inner += c;
      j++;
    }
    this.i = j + 1;
    let body: List | undefined;
    try {
      body = parseShell(inner);
    } catch (e) {
      if (!(e instanceof ShellParseError)) throw e;
    }
    return { kind: "exp", raw: s.slice(start, this.i), quoted, ...(body ? { body } : {}) };
  }
}

/** `NAME=` / `NAME+=` / `NAME[i]=` at the start of a word's unquoted text. */
function isAssignment(word: Word): boolean {
  const first = word.parts[0];
  return first !== undefined && first.kind === "lit" && !first.quoted && /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(first.text);
}

/** The word so far is exactly `NAME=` (an array assignment follows). */
function isArrayAssignmentPrefix(parts: Part[]): boolean {
  return parts.length === 1 && parts[0].kind === "lit" && !parts[0].quoted && /^[A-Za-z_][A-Za-z0-9_]*\+?=$/.test(parts[0].text);
}

/** The word's value when it holds no expansion (quotes removed), else null. */
export function wordText(word: Word): string | null {
  let out = "";
  for (const p of word.parts) {
    if (p.kind !== "lit") return null;
    out += p.text;
  }
  return out;
}

/** True when the word has no quoted part and no expansion: a bare word as typed. */
export function isBare(word: Word): boolean {
  return word.parts.length === 1 && word.parts[0].kind === "lit" && !word.parts[0].quoted;
}

/** Parse a whole script; throws ShellParseError on anything it cannot read to the end. */
export function parseShell(text: string): List {
  const p = new Parser(text);
  const list = p.parseList(new Set());
  p.skipBlanks();
  if (p.i < text.length) p.fail(`unexpected '${text[p.i]}'`);
  return list;
}

// ---------------------------------------------------------------- walking

/** Every simple command of a list, those inside compound commands and substitutions included, in order. */
export function simpleCommands(list: List): Simple[] {
  const out: Simple[] = [];
  const parts = (ps: readonly Part[]): void => {
    for (const p of ps) {
      if (p.kind !== "exp") continue;
      if (p.body) walkList(p.body);
      if (p.inner) parts(p.inner);
    }
  };
  const words = (ws: readonly Word[]) => {
    for (const w of ws) parts(w.parts);
  };
  const redirs = (rs: readonly Redir[]) => {
    for (const r of rs) {
      parts(r.target.parts);
      if (r.heredocParts) parts(r.heredocParts);
    }
  };
  const walkCommand = (c: Command): void => {
    switch (c.type) {
      case "simple":
        out.push(c);
        words(c.assigns);
        words(c.words);
        redirs(c.redirs);
        return;
      case "group":
      case "subshell":
        walkList(c.body);
        break;
      case "if":
        for (const b of c.branches) {
          walkList(b.cond);
          walkList(b.body);
        }
        if (c.elseBody) walkList(c.elseBody);
        break;
      case "loop":
        walkList(c.cond);
        walkList(c.body);
        break;
      case "for":
        words(c.words);
        if (c.arith) parts(c.arith);
        walkList(c.body);
        break;
      case "case":
        words([c.word]);
        for (const a of c.arms) walkList(a.body);
        break;
      case "func":
        walkCommand(c.body);
        break;
      case "cond":
        words(c.words);
        break;
      case "arith":
        parts(c.inner);
        break;
    }
    redirs(c.redirs);
  };
  const walkList = (l: List): void => {
    for (const { node } of l.items) {
      for (const pl of [node.first, ...node.rest.map((r) => r.node)]) pl.cmds.forEach(walkCommand);
    }
  };
  walkList(list);
  return out;
}

/** Every expansion part in the list's words (recursively), for checks on what the shell would expand. */
export function expansions(list: List): Array<Extract<Part, { kind: "exp" }>> {
  const out: Array<Extract<Part, { kind: "exp" }>> = [];
  const seen = new Set<Word>();
  const visitParts = (ps: readonly Part[]): void => {
    for (const p of ps) {
      if (p.kind === "exp") {
        out.push(p);
        if (p.body) visit(p.body);
        if (p.inner) visitParts(p.inner);
      }
    }
  };
  const visitWord = (w: Word) => {
    if (seen.has(w)) return;
    seen.add(w);
    visitParts(w.parts);
  };
  const visitCommand = (c: Command): void => {
    if (c.type === "simple") {
      c.assigns.forEach(visitWord);
      c.words.forEach(visitWord);
    } else if (c.type === "group" || c.type === "subshell") visit(c.body);
    else if (c.type === "if") {
      for (const b of c.branches) {
        visit(b.cond);
        visit(b.body);
      }
      if (c.elseBody) visit(c.elseBody);
    } else if (c.type === "loop") {
      visit(c.cond);
      visit(c.body);
    } else if (c.type === "for") {
      c.words.forEach(visitWord);
      if (c.arith) visitParts(c.arith);
      visit(c.body);
    } else if (c.type === "arith") visitParts(c.inner);
    else if (c.type === "case") {
      visitWord(c.word);
      for (const a of c.arms) {
        a.patterns.forEach(visitWord);
        visit(a.body);
      }
    } else if (c.type === "func") visitCommand(c.body);
    else if (c.type === "cond") c.words.forEach(visitWord);
    for (const r of c.redirs) {
      visitWord(r.target);
      if (r.heredocParts) visitParts(r.heredocParts);
    }
  };
  const visit = (l: List): void => {
    for (const { node } of l.items) {
      for (const pl of [node.first, ...node.rest.map((r) => r.node)]) pl.cmds.forEach(visitCommand);
    }
  };
  visit(list);
  return out;
}
