// The bash parser checks are read with (src/lib/checks/shell.ts): words after quote removal, expansions kept opaque,
// here-documents, lists, pipelines and compound commands; and what it refuses.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { expansions, parseShell, ShellParseError, simpleCommands, wordText, type List, type Word } from "../../src/lib/checks/shell.ts";

/** Each simple command's words as the shell would pass them, `<raw>` for an expansion. */
function argv(text: string): string[][] {
  return simpleCommands(parseShell(text)).map((c) => [...c.assigns, ...c.words].map(show));
}
const show = (w: Word) => w.parts.map((p) => (p.kind === "lit" ? p.text : `<${p.raw}>`)).join("");

function refuses(text: string, message?: RegExp): void {
  assert.throws(() => parseShell(text), (e: unknown) => e instanceof ShellParseError && (!message || message.test(e.message)), text);
}

/** bash -n's own verdict, for the cases where the parser must agree with it. */
const bashAccepts = (text: string) => spawnSync("bash", ["-O", "extglob", "-n"], { input: text }).status === 0;

describe("parseShell: words", () => {
  it("removes quotes and keeps what they protect", () => {
    assert.deepEqual(argv(`echo 'a b' "c d" e\\ f 'x'"y"z`), [["echo", "a b", "c d", "e f", "xyz"]]);
    assert.deepEqual(argv(`printf '%s' "a;b|c&&d"`), [["printf", "%s", "a;b|c&&d"]]);
  });

  it("applies the double-quote escapes only to $ ` \" \\ and newline", () => {
    assert.deepEqual(argv(`echo "\\$x \\\` \\" \\\\ \\n"`), [["echo", '$x ` " \\ \\n']]);
    assert.deepEqual(argv(`echo "a\\\nb"`), [["echo", "ab"]]);
  });

  it("decodes $'…' and joins line continuations", () => {
    assert.deepEqual(argv(`echo $'a\\nb\\t\\x41\\'' c\\\n  d`), [["echo", "a\nb\tA'", "c", "d"]]);
  });

  it("keeps every expansion opaque: $VAR ${…} $(…) backticks $((…)) and special parameters", () => {
    assert.deepEqual(argv(`echo $HOME "\${x:-a b}" $(date) \`pwd\` $((1+2)) $1 $@ $? a$`), [
      ["echo", "<$HOME>", "<${x:-a b}>", "<$(date)>", "<`pwd`>", "<$((1+2))>", "<$1>", "<$@>", "<$?>", "a$"],
      ["date"],
      ["pwd"],
    ]);
  });

  it("parses the body of a command substitution, nested quotes and parentheses included", () => {
    assert.deepEqual(argv(`x="$(python3 -c "print('(')" | tr -d ')')"`), [
      ['x=<$(python3 -c "print(\'(\')" | tr -d \')\')>'],
      ["python3", "-c", "print('(')"],
      ["tr", "-d", ")"],
    ]);
    assert.deepEqual(argv("echo $(case a in a) echo x;; esac)").slice(1), [["echo", "x"]]);
  });

  it("ends ${{ … }} at the closing braces and marks it as a CI expression", () => {
    const [e] = expansions(parseShell("echo ${{ matrix.os }}-x"));
    assert.equal(e.raw, "${{ matrix.os }}");
    assert.equal(e.ci, true);
    assert.equal(expansions(parseShell("echo ${x}"))[0].ci, undefined);
  });

  it("treats an assignment before the command and array elements as words", () => {
    const [c] = simpleCommands(parseShell(`A=1 B="2 3" env`));
    assert.deepEqual(c.assigns.map(show), ["A=1", "B=2 3"]);
    assert.deepEqual(c.words.map(wordText), ["env"]);
    assert.deepEqual(argv(`a=(x "$(pwd)" z)`), [["a=(x <$(pwd)> z )"], ["pwd"]]);
  });

  it("reads process substitution and extended globs as words", () => {
    assert.deepEqual(argv("diff <(sort a) <(sort b)").map((c) => c[0]), ["diff", "sort", "sort"]);
    assert.deepEqual(argv("ls !(x|y).txt"), [["ls", "!(x|y).txt"]]);
  });
});

describe("parseShell: commands", () => {
  it("splits lists, and-or chains and pipelines", () => {
    const list = parseShell("a && b || c; d | e & f\ng");
    assert.deepEqual(list.items.map((i) => i.sep), [";", "&", "\n", ""]);
    const first = list.items[0].node;
    assert.deepEqual(first.rest.map((r) => r.op), ["&&", "||"]);
    assert.equal(list.items[1].node.first.cmds.length, 2);
  });

  it("records redirections and skips comments", () => {
    const [c] = simpleCommands(parseShell("cmd 2>&1 >/dev/null <in &>>log # note | x"));
    assert.deepEqual(c.redirs.map((r) => [r.op, show(r.target)]), [[">&", "1"], [">", "/dev/null"], ["<", "in"], ["&>>", "log"]]);
    assert.deepEqual(c.words.map(show), ["cmd"]);
  });

  it("reads here-documents, quoted or not, tab-stripped or not", () => {
    const list = parseShell("cat <<EOF | grep x\nline $1\nEOF\ncat <<-'E'\n\tbody\n\tE\necho done");
    const cmds = simpleCommands(list);
    assert.equal(cmds[0].redirs[0].heredoc, "line $1\n");
    assert.equal(cmds[2].redirs[0].heredoc, "\tbody\n");
    assert.deepEqual(cmds.map((c) => wordText(c.words[0])), ["cat", "grep", "cat", "echo"]);
  });

  it("reads if, loops, case, groups, subshells, functions, [[ ]] and (( ))", () => {
    const text = [
      "if [ -f a ]; then x; elif y; then z; else w; fi",
      "for f in *.json; do jq . \"$f\"; done",
      "for ((i=0; i<3; i++)); do echo $i; done",
      "while read -r l; do echo \"$l\"; done < f",
      "case \"$1\" in a|b) one ;; (c) two ;; *) ;; esac",
      "{ a; b; } > log",
      "( cd x && make )",
      "f() { g \"$@\"; }",
      "function h { :; }",
      "[[ $x == *.py && -f $x || $y =~ ^(a|b)$ ]]",
      "(( n > 2 ))",
    ].join("\n");
    const list = parseShell(text);
    assert.deepEqual(
      list.items.map((i) => i.node.first.cmds[0].type),
      ["if", "for", "for", "loop", "case", "group", "subshell", "func", "func", "cond", "arith"],
    );
    assert.ok(bashAccepts(text));
    // bash 4's fall-through terminators (not checked against bash -n: macOS ships bash 3.2)
    assert.equal(parseShell("case x in a) b ;& c) d ;;& *) ;; esac").items[0].node.first.cmds[0].type, "case");
  });

  it("agrees with bash -n on what it refuses", () => {
    const bad = [
      "npm test &&",
      "echo 'abc",
      'echo "abc',
      "if true; then echo",
      "echo $(date",
      "for x in a b; do echo",
      "case x in a) echo",
      "{ echo a",
      "echo a )",
      "; ls",
      "| grep x",
      "then echo",
      "echo `date",
      "cat <",
    ];
    for (const text of bad) {
      refuses(text);
      assert.equal(bashAccepts(text), false, `bash accepts ${text}`);
    }
  });

  it("names what it expected", () => {
    refuses("if true; then echo", /expected 'fi'/);
    refuses("echo 'abc", /unterminated single quote/);
    refuses("npm test &&", /unexpected end of input/);
  });

  it("visits the simple commands inside every compound command and substitution", () => {
    const list: List = parseShell('if a; then b "$(c)"; fi; for x in $(d); do e; done; case $(f) in *) g;; esac; h=`i`');
    assert.deepEqual(simpleCommands(list).map((c) => (c.words.length ? wordText(c.words[0]) : show(c.assigns[0]))), ["a", "b", "c", "d", "e", "f", "g", "h=<`i`>", "i"]);
  });

  it("sees the commands bash runs inside ${…}, $((…)), (( )), for ((…)), unquoted here-documents and =~ regexes", () => {
    const names = (text: string) => simpleCommands(parseShell(text)).map((c) => (c.words.length ? wordText(c.words[0]) : null));
    assert.deepEqual(names("echo ${x:-$(pwd)} $(( $(nproc) + 1 ))"), ["echo", "pwd", "nproc"]);
    assert.deepEqual(names("(( $(count) > 2 )) && for ((i = 0; i < $(limit); i++)); do :; done"), ["count", "limit", ":"]);
    assert.deepEqual(names("cat <<EOF\nbuilt at $(date) by `whoami`, \\$(not)\nEOF\n"), ["cat", "date", "whoami"]);
    assert.deepEqual(names("cat <<'EOF'\n$(not run)\nEOF\n"), ["cat"]);
    assert.deepEqual(names('[[ $tag =~ $(pattern)"$suffix" ]]'), ["pattern"]);
    assert.deepEqual(names("echo ${x:-'$(quoted)'}"), ["echo"]);
    assert.deepEqual(expansions(parseShell("[[ $v =~ $re ]]")).map((e) => e.raw), ["$v", "$re"]);
  });

  it("ends ${…} and $((…)) where bash does when a substitution inside holds braces, parentheses or quotes", () => {
    assert.deepEqual(argv("echo ${v:-$(f() { :; }; f)} next"), [["echo", "<${v:-$(f() { :; }; f)}>", "next"], [], [":"], ["f"]].filter((c) => c.length));
    assert.deepEqual(argv("echo $(( $(case x in a) echo 1;; esac) + 1 ))")[0], ["echo", "<$(( $(case x in a) echo 1;; esac) + 1 ))>"]);
    assert.deepEqual(argv("echo $(( $(echo ')') ))")[0], ["echo", "<$(( $(echo ')') ))>"]);
  });

  it("reads `$((a; b))` and `((a; b))` as arithmetic, as bash 5.2 does (an error when it runs, not commands)", () => {
    assert.deepEqual(argv("x=$((cd sub; make))"), [["x=<$((cd sub; make))>"]]);
    assert.deepEqual(simpleCommands(parseShell("((cd sub; make))")), []);
  });

  it("parses substitutions nested 90 deep in ${…} and $((…)) without parsing each level again per level", () => {
    let param = "x";
    let arith = "1";
    for (let k = 0; k < 90; k++) {
      param = `\${a:-$(echo ${param})}`;
      arith = `$(( $(echo ${arith}) + 1 ))`;
    }
    assert.equal(simpleCommands(parseShell(`echo ${param}`)).length, 91);
    assert.equal(simpleCommands(parseShell(`echo ${arith}`)).length, 91);
  });
});
