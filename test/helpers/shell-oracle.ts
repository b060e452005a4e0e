// The differential test's two readings of one script, in one canonical text each: what lib/checks/shell.ts parses, and
// what mvdan/sh (the `mvdan-sh` devDependency, a GopherJS build of the Go parser shfmt uses) parses. The text keeps
// what a verdict reads (test/unit/shell-differential.test.ts says why each part matters) and drops what none does:
//   list      items joined by " ; ", a background item ends in " &"
//   and-or    pipelines joined by " && " / " || "
//   pipeline  "! " when negated, commands joined by " | "
//   command   CMD[assignments|argv words|redirections], or the compound's kind with its parts
//   word      literal text after quote removal, each expansion as ⟨raw⟩ (⟨"raw⟩ when double-quoted) followed by the
//             bodies of the command substitutions it runs, {…}
//   redirect  operator, target word, and a here-document's body (a word when its delimiter is unquoted)
// Not kept: a redirection's file descriptor, `|&` against `|`, `;;&` against `;;`, `until` against `while`,
// `select` against `for`, `time`: none of them changes which commands run, their argv or the exit status a
// check analysis reads.
import { createRequire } from "node:module";
import type { Command, List, Part, Redir, Word } from "../../src/lib/checks/shell.ts";

// ---------------------------------------------------------------- ours

const esc = (text: string) => text.replace(/[⟨⟩{}\\]/g, (c) => `\\${c}`);

function oursPart(p: Part): string {
  if (p.kind === "lit") return esc(p.text);
  return `⟨${p.quoted ? '"' : ""}${esc(p.raw)}⟩${oursBodies(p).map((b) => `{${b}}`).join("")}`;
}

/** The command substitutions an expansion runs: its own body, or those nested in its parts. */
function oursBodies(p: Extract<Part, { kind: "exp" }>): string[] {
  if (p.body) return [oursList(p.body)];
  const out: string[] = [];
  for (const q of p.inner ?? []) if (q.kind === "exp") out.push(...oursBodies(q));
  return out;
}

const oursWord = (w: Word) => w.parts.map(oursPart).join("");

function oursRedir(r: Redir): string {
  let out = `${r.op}${oursWord(r.target)}`;
  if (r.heredoc !== undefined) out += `<<${r.heredocParts ? r.heredocParts.map(oursPart).join("") : esc(r.heredoc)}>>`;
  return out;
}

const oursRedirs = (rs: readonly Redir[]) => (rs.length ? ` R[${rs.map(oursRedir).join(",")}]` : "");

/** The expansions of a `[[ … ]]` or `(( … ))` expression: no word splitting there, so no quote mark. */
function oursExps(parts: readonly Part[]): string {
  return unquote(parts.filter((p) => p.kind === "exp").map(oursPart).join(" "));
}

const unquote = (text: string) => text.replace(/⟨"/g, "⟨");

function oursCommand(c: Command): string {
  switch (c.type) {
    case "simple":
      return `CMD[${c.assigns.map(oursWord).join(",")}|${c.words.map(oursWord).join(",")}|${c.redirs.map(oursRedir).join(",")}]`;
    case "group":
      return `{ ${oursList(c.body)} }${oursRedirs(c.redirs)}`;
    case "subshell":
      return `( ${oursList(c.body)} )${oursRedirs(c.redirs)}`;
    case "if": {
      const branches = c.branches.map((b) => `${oursList(b.cond)} THEN ${oursList(b.body)}`).join(" ELIF ");
      return `IF[${branches}${c.elseBody ? ` ELSE ${oursList(c.elseBody)}` : ""}]${oursRedirs(c.redirs)}`;
    }
    case "loop":
      return `LOOP[${oursList(c.cond)} DO ${oursList(c.body)}]${oursRedirs(c.redirs)}`;
    case "for": {
      const head = c.words.length ? c.words.map(oursWord).join(",") : `((${oursExps(c.arith ?? [])}))`;
      return `FOR[${head} DO ${oursList(c.body)}]${oursRedirs(c.redirs)}`;
    }
    case "case":
      return `CASE[${oursWord(c.word)} IN ${c.arms.map((a) => `${a.patterns.map(oursWord).join("|")}) ${oursList(a.body)}`).join(" ;; ")}]${oursRedirs(c.redirs)}`;
    case "func":
      return `FUNC[${c.name} ${oursCommand(c.body)}]${oursRedirs(c.redirs)}`;
    case "arith":
      return `ARITH[${oursExps(c.inner ?? [])}]${oursRedirs(c.redirs)}`;
    case "cond":
      return `COND[${c.words.map((w) => oursExps(w.parts)).filter((x) => x).join(" ")}]${oursRedirs(c.redirs)}`;
  }
}

export function oursList(list: List): string {
  return list.items
    .map(({ node, sep }) => {
      const pipes = [node.first, ...node.rest.map((r) => r.node)].map((p) => `${p.negated ? "! " : ""}${p.cmds.map(oursCommand).join(" | ")}`);
      const ops = node.rest.map((r) => r.op);
      return pipes.map((p, k) => (k === 0 ? p : `${ops[k - 1]} ${p}`)).join(" ") + (sep === "&" ? " &" : "");
    })
    .join(" ; ");
}

// ---------------------------------------------------------------- mvdan/sh

/* eslint-disable @typescript-eslint/no-explicit-any */
type Node = any;

interface Mvdan {
  syntax: any;
  parser: any;
  redirOps: Map<number, string>;
  binOps: Map<number, string>;
}

let mvdan: Mvdan | undefined;

function load(): Mvdan {
  if (mvdan) return mvdan;
  const { syntax } = createRequire(__filename)("mvdan-sh");
  const parser = syntax.NewParser(syntax.KeepComments(false), syntax.Variant(syntax.LangBash));
  // The token numbers of the GopherJS build carry no names: learn them from one parse of each operator.
  const redirOps = new Map<number, string>();
  for (const op of [">", ">>", "<", "<>", ">|", ">&", "<&", "&>", "&>>", "<<<"]) {
    redirOps.set(parser.Parse(`a ${op}x`, "").Stmts[0].Redirs[0].Op, op);
  }
  for (const op of ["<<", "<<-"]) redirOps.set(parser.Parse(`a ${op}x\nx\n`, "").Stmts[0].Redirs[0].Op, op);
  const binOps = new Map<number, string>();
  for (const op of ["&&", "||", "|", "|&"]) binOps.set(parser.Parse(`a ${op} b`, "").Stmts[0].Cmd.Op, op);
  mvdan = { syntax, parser, redirOps, binOps };
  return mvdan;
}

/** Character offsets of a UTF-8 source's byte offsets (mvdan/sh counts bytes). */
function charOffsets(src: string): (byte: number) => number {
  if (/^[\x00-\x7f]*$/.test(src)) return (b) => b;
  const map: number[] = [];
  let byte = 0;
  for (let i = 0; i < src.length; ) {
    const cp = src.codePointAt(i) as number;
    const len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (let k = 0; k < len; k++) map[byte + k] = i;
    byte += len;
    i += cp > 0xffff ? 2 : 1;
  }
  map[byte] = src.length;
  return (b) => map[b] ?? src.length;
}

/** `$'…'`'s text, decoded as bash decodes it (the escapes a check uses). */
function ansiC(raw: string): string {
  const named: Record<string, string> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };
  return raw.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (m, e: string) => {
    if (e[0] === "x" || e[0] === "u" || e[0] === "U") {
      if (e.length === 1) return m;
      const code = parseInt(e.slice(1), 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : "";
    }
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8) & 0xff);
    if (e[0] === "c" && e.length === 2) return String.fromCharCode(e.charCodeAt(1) & 0x1f);
    return named[e] ?? m;
  });
}

class Renderer {
  private readonly at: (byte: number) => number;

  constructor(
    private readonly m: Mvdan,
    private readonly src: string,
  ) {
    this.at = charOffsets(src);
  }

  private type = (n: Node): string => n.fakeType ?? this.m.syntax.NodeType(n);

  /**
   * mvdan/sh reads `f() { …; } | x` and `f() { …; } && x` as a function whose body is the whole pipe or list;
   * bash defines the function as the first member (test/e2e-free check: `f() { :; } | cat; type f` finds no f).
   * The statement is given bash's shape: the operator around a function whose body is the left operand.
   */
  private hoist(st: Node): Node {
    const c = st.Cmd;
    if (!c || this.type(c) !== "FuncDecl" || !c.Body.Cmd || this.type(c.Body.Cmd) !== "BinaryCmd" || c.Body.Negated) return st;
    const bin = c.Body.Cmd;
    const fn = { Cmd: { fakeType: "FuncDecl", Name: c.Name, Body: bin.X }, Redirs: [], Negated: false, Background: false };
    return { Cmd: { fakeType: "BinaryCmd", Op: bin.Op, X: fn, Y: bin.Y }, Redirs: st.Redirs, Negated: st.Negated, Background: st.Background };
  }
  private raw = (n: Node): string => this.src.slice(this.at(n.Pos().Offset()), this.at(n.End().Offset()));
  private arr = (xs: Node): Node[] => (xs ? Array.from(xs as ArrayLike<Node>) : []);

  /** Command substitutions run inside a node that is not one itself (a parameter or arithmetic expansion). */
  private nestedBodies(n: Node): string[] {
    const out: string[] = [];
    this.m.syntax.Walk(n, (x: Node) => {
      if (!x || x === n) return true;
      const t = this.type(x);
      if (t === "CmdSubst" || t === "ProcSubst") {
        out.push(this.stmts(x.Stmts));
        return false;
      }
      return true;
    });
    return out;
  }

  private exp(n: Node, quoted: boolean): string {
    const t = this.type(n);
    const bodies = t === "CmdSubst" || t === "ProcSubst" ? [this.stmts(n.Stmts)] : this.nestedBodies(n);
    return `⟨${quoted ? '"' : ""}${esc(this.raw(n))}⟩${bodies.map((b) => `{${b}}`).join("")}`;
  }

  /** Literal text with the backslashes the shell removes gone: unquoted, any escape; in "…", only before $ ` " \ newline. */
  private lit(value: string, quoted: boolean): string {
    return quoted ? value.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c)) : value.replace(/\\(.)/gs, (_, c: string) => (c === "\n" ? "" : c));
  }

  private part(p: Node, quoted: boolean): string {
    switch (this.type(p)) {
      case "Lit":
        return esc(this.lit(p.Value, quoted));
      case "SglQuoted":
        return esc(p.Dollar ? ansiC(p.Value) : p.Value);
      case "DblQuoted":
        return this.arr(p.Parts).map((q) => this.part(q, true)).join("");
      case "ExtGlob":
        return esc(this.raw(p));
      default:
        return this.exp(p, quoted);
    }
  }

  word = (w: Node): string => (w ? this.arr(w.Parts).map((p) => this.part(p, false)).join("") : "");

  /** A here-document body: quoted delimiter, its text as is; unquoted, a word whose escapes are those of "…". */
  private heredoc(r: Node): string {
    const quotedDelim = this.arr(r.Word.Parts).some((p) => this.type(p) !== "Lit" || /\\/.test(p.Value));
    if (quotedDelim) return esc(this.arr(r.Hdoc.Parts).map((p) => p.Value).join(""));
    return this.arr(r.Hdoc.Parts)
      .map((p) => (this.type(p) === "Lit" ? esc(p.Value.replace(/\\([$`\\\n])/g, (_: string, c: string) => (c === "\n" ? "" : c))) : this.exp(p, true)))
      .join("");
  }

  private redir = (r: Node): string => {
    const op = this.m.redirOps.get(r.Op) ?? `?${r.Op}`;
    let out = `${op}${this.word(r.Word)}`;
    if (op === "<<" || op === "<<-") out += `<<${r.Hdoc ? this.heredoc(r) : ""}>>`;
    return out;
  };

  private redirs = (st: Node) => {
    const rs = this.arr(st.Redirs);
    return rs.length ? ` R[${rs.map(this.redir).join(",")}]` : "";
  };

  private assign(a: Node): string {
    if (a.Naked) return a.Name ? esc(a.Name.Value) : this.word(a.Value);
    const index = a.Index ? `[${esc(this.raw(a.Index))}]` : "";
    const value = a.Array ? `(${this.arr(a.Array.Elems).map((e: Node) => `${e.Index ? `[${esc(this.raw(e.Index))}]=` : ""}${this.word(e.Value)} `).join("")})` : this.word(a.Value);
    return `${esc(a.Name.Value)}${index}${a.Append ? "+=" : "="}${value}`;
  }

  /** Every expansion in the words of a `[[ … ]]` or `(( … ))` expression, in order. */
  private exps(x: Node): string {
    const out: string[] = [];
    this.m.syntax.Walk(x, (n: Node) => {
      if (!n) return true;
      const t = this.type(n);
      if (t === "Word") {
        for (const p of this.arr(n.Parts)) {
          const pt = this.type(p);
          if (pt === "DblQuoted") for (const q of this.arr(p.Parts)) this.type(q) !== "Lit" && out.push(this.exp(q, true));
          else if (pt !== "Lit" && pt !== "SglQuoted" && pt !== "ExtGlob") out.push(this.exp(p, false));
        }
        return false;
      }
      return true;
    });
    return unquote(out.join(" "));
  }

  private simple(st: Node, assigns: string[], words: string[]): string {
    return `CMD[${assigns.join(",")}|${words.join(",")}|${this.arr(st.Redirs).map(this.redir).join(",")}]`;
  }

  /** One pipeline member: a statement whose command is not a pipe. */
  command(st: Node): string {
    const c = st.Cmd;
    if (!c) return this.simple(st, [], []);
    const r = this.redirs(st);
    switch (this.type(c)) {
      case "CallExpr":
        return this.simple(st, this.arr(c.Assigns).map((a) => this.assign(a)), this.arr(c.Args).map(this.word));
      case "DeclClause":
        return this.simple(st, [], [esc(c.Variant.Value), ...this.arr(c.Args).map((a) => this.assign(a))]);
      case "LetClause":
        return this.simple(st, [], ["let", ...this.arr(c.Exprs).map((e) => esc(this.raw(e)))]);
      case "Block":
        return `{ ${this.stmts(c.Stmts)} }${r}`;
      case "Subshell":
        return `( ${this.stmts(c.Stmts)} )${r}`;
      case "IfClause": {
        const parts: string[] = [];
        let node = c;
        let first = true;
        let elseBody: string | null = null;
        while (node) {
          if (!first && this.arr(node.Cond).length === 0) {
            elseBody = this.stmts(node.Then);
            break;
          }
          parts.push(`${this.stmts(node.Cond)} THEN ${this.stmts(node.Then)}`);
          first = false;
          node = node.Else;
        }
        return `IF[${parts.join(" ELIF ")}${elseBody !== null ? ` ELSE ${elseBody}` : ""}]${r}`;
      }
      case "WhileClause":
        return `LOOP[${this.stmts(c.Cond)} DO ${this.stmts(c.Do)}]${r}`;
      case "ForClause": {
        const loop = c.Loop;
        const head = this.type(loop) === "CStyleLoop" ? `((${this.exps(loop)}))` : [esc(loop.Name.Value), ...this.arr(loop.Items).map(this.word)].join(",");
        return `FOR[${head} DO ${this.stmts(c.Do)}]${r}`;
      }
      case "CaseClause":
        return `CASE[${this.word(c.Word)} IN ${this.arr(c.Items).map((it) => `${this.arr(it.Patterns).map(this.word).join("|")}) ${this.stmts(it.Stmts)}`).join(" ;; ")}]${r}`;
      case "FuncDecl":
        return `FUNC[${esc(c.Name.Value)} ${this.command(c.Body)}]${r}`;
      case "ArithmCmd":
        return `ARITH[${this.exps(c.X)}]${r}`;
      case "TestClause":
        return `COND[${this.exps(c.X)}]${r}`;
      case "TimeClause":
        return c.Stmt ? this.pipeline(c.Stmt) : "CMD[||]";
      default:
        return `${this.type(c)}?`;
    }
  }

  private pipeline(st: Node): string {
    st = this.hoist(st);
    const members: Node[] = [];
    const flatten = (s0: Node, top: boolean) => {
      const s = this.hoist(s0);
      const c = s.Cmd;
      if (c && this.type(c) === "BinaryCmd" && (this.m.binOps.get(c.Op) === "|" || this.m.binOps.get(c.Op) === "|&") && (top || !s.Negated)) {
        flatten(c.X, false);
        flatten(c.Y, false);
      } else if (c && this.type(c) === "TimeClause" && c.Stmt && !top) flatten(c.Stmt, false);
      else members.push(s);
    };
    flatten(st, true);
    const neg = st.Negated ? "! " : "";
    return neg + members.map((m) => this.command(m)).join(" | ");
  }

  private andOr(st0: Node): string {
    const st = this.hoist(st0);
    const c = st.Cmd;
    if (c && this.type(c) === "BinaryCmd" && !st.Negated) {
      const op = this.m.binOps.get(c.Op);
      if (op === "&&" || op === "||") return `${this.andOr(c.X)} ${op} ${this.andOr(c.Y)}`;
    }
    return this.pipeline(st);
  }

  stmts = (stmts: Node): string => this.arr(stmts).map((st) => this.andOr(st) + (st.Background ? " &" : "")).join(" ; ");
}

/** mvdan/sh's reading of a script in the canonical text, or its syntax error. */
export function mvdanRead(src: string): { ok: true; text: string } | { ok: false; error: string } {
  const m = load();
  let file: Node;
  try {
    file = m.parser.Parse(src, "");
  } catch (e) {
    const err = e as Node;
    return { ok: false, error: typeof err?.Error === "function" ? String(err.Error()) : String(err?.message ?? err) };
  }
  return { ok: true, text: new Renderer(m, src).stmts(file.Stmts) };
}
