// The hook's variant corpus (issue 24, items 1 and 9): every helper call the skills and commands write, filled in
// as the lead would run it, times the harmless decorations a model adds (a trailing `2>&1`, a `cd <root> &&`
// prefix, the helper path unquoted or single-quoted, a quoted-delimiter here-doc or `cat .design/<file> |` for
// stdin, `'\''` inside single-quoted text, spaces after the commas of a list, plain free text in double quotes,
// `--flag=value`) and their plausible combinations, must be approved; the shapes a model might also type that are
// no decoration (a pipe into `head`, `2>/dev/null`) are counted as asking the user; the shapes that must stay
// refused never are. Every approved variant is then run under bash (`eval`, as Claude Code's Bash tool runs a command)
// in a scratch project with a scratch HOME, with a `node` on PATH that records what it is given: bash must hand it exactly the argv the hook judged (the hook's
// own parse, and the undecorated call's argv with the decoration's intended change), from the project root, with
// the stdin the hook saw, and nothing outside `.design/` may change.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseHelperLine } from "../../src/hooks/helper-line.ts";
import { permits, SKILLS, type HookInput, type Skill } from "../../src/hooks/permit.ts";
import { commaList } from "../../src/store/confine.ts";
import { snapshotLinks } from "../helpers/snapshot.ts";
import { commandCalls, filled, writtenCalls } from "../helpers/skill-calls.ts";

const ROOT = resolve(__dirname, "../..");

let base: string;
let project: string;
let home: string;
let outside: string;
let bin: string;
let out: string;
let savedProjectDir: string | undefined;

/** What the stdin files hold (the fake node records what arrives). */
const STDIN_FILES: Record<string, string> = {
  ".design/tmp/eval.json": JSON.stringify({ whatWorked: ["a"], whatFailed: [], doNextTime: ["b"] }) + "\n",
  ".design/tmp/constraints.json": JSON.stringify([{ role: "api", constraints: ["Reuse the fixtures"] }]) + "\n",
  ".design/tmp/update.json": JSON.stringify([{ roleIndex: 0, status: "failed", reflexion: "it's the schema" }]) + "\n",
  ".design/tmp/updates.json": JSON.stringify([{ roleIndex: 0, status: "completed", result: "done" }]) + "\n",
  ".design/worker-api.json": JSON.stringify({ role: "api", achieved: true, filesChanged: [], acceptanceCriteria: [] }) + "\n",
  ".design/tmp/tasks.json": "[]\n",
  ".design/tmp/resolutions.json": JSON.stringify([{ issue: 0, proceed: "the user's call" }]) + "\n",
};

before(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "do-permit-variants-")));
  project = join(base, "project");
  home = join(base, "home");
  outside = join(base, "outside");
  // The fake node and its records live outside the scratch tree the snapshot watches.
  bin = realpathSync(mkdtempSync(join(tmpdir(), "do-permit-variants-bin-")));
  out = join(bin, "record");
  for (const d of [".design/tmp", ".design/history/20260101T000000Z", ".design/draft/specs", "src/api", ".claude/skills/greet", ".git/hooks"]) {
    mkdirSync(join(project, d), { recursive: true });
  }
  mkdirSync(join(home, ".ssh"), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(home, ".bashrc"), "# rc\n");
  writeFileSync(join(outside, "secret.json"), "{}\n");
  writeFileSync(join(project, "Makefile"), "all:\n");
  writeFileSync(join(project, ".claude/skills/greet/SKILL.md"), "---\nname: greet\ndescription: Use when greeting.\n---\n# Greet\n");
  for (const f of [".design/plan.json", ".design/draft/plan.json", ".design/memory.jsonl", ".design/reflection.jsonl", ".design/tmp/remember.json", ".design/tmp/memories.json"]) {
    writeFileSync(join(project, f), "{}\n");
  }
  for (const [f, text] of Object.entries(STDIN_FILES)) writeFileSync(join(project, f), text);
  assert.equal(spawnSync("mkfifo", [join(project, ".design/fifo.json")]).status, 0, "mkfifo");
  symlinkSync(join(outside, "secret.json"), join(project, ".design/tmp/link.json"));
  mkdirSync(join(project, ".design/tmp/dir.json"));
  // `node` as bash finds it on PATH: records its argv (NUL-separated), its physical cwd and its stdin.
  writeFileSync(
    join(bin, "node"),
    '#!/bin/sh\n: > "$DO_VARIANT_OUT.argv"\nfor a in "$@"; do printf \'%s\\0\' "$a" >> "$DO_VARIANT_OUT.argv"; done\npwd -P > "$DO_VARIANT_OUT.cwd"\nl=; while IFS= read -r l; do printf \'%s\\n\' "$l"; done > "$DO_VARIANT_OUT.stdin"; printf %s "$l" >> "$DO_VARIANT_OUT.stdin"\n',
    { mode: 0o755 },
  );
  savedProjectDir = process.env.CLAUDE_PROJECT_DIR;
  process.env.CLAUDE_PROJECT_DIR = project;
});

after(() => {
  if (savedProjectDir === undefined) delete process.env.CLAUDE_PROJECT_DIR;
  else process.env.CLAUDE_PROJECT_DIR = savedProjectDir;
  rmSync(base, { recursive: true, force: true });
  rmSync(bin, { recursive: true, force: true });
});

/** A call as the undecorated corpus holds it: who writes it, the command, and its parts (read by the test's own regex). */
interface Base {
  owner: Skill | "commands";
  command: string;
  script: string;
  /** The argument text after the helper path, without a `< file` redirect. */
  args: string;
  echo?: string;
  redirect?: string;
}

interface Variant {
  group: string;
  command: string;
  cwd: string;
  /** The argv node must get (after the helper path) and its stdin; computed from the undecorated call's run. */
  argv: (baseArgv: string[]) => string[];
  stdin: (baseStdin: string) => string;
  /** Owner of the call, to check the skill's own hook too. */
  base: Base;
}

const CALL = /^(?:echo '((?:[^']|'\\'')*)' \| )?node "([^"]+)" (.*?)(?: < (\S+))?$/;

function baseOf(owner: Base["owner"], command: string): Base {
  const m = CALL.exec(command);
  assert.ok(m, `not a call shape the corpus knows: ${command}`);
  return { owner, command, echo: m[1], script: m[2], args: m[3], redirect: m[4] };
}

/** Every written call once: the five skills' (filled) and the commands' (on the commands' helper path). */
function corpus(): Base[] {
  const seen = new Set<string>();
  const calls: Base[] = [];
  for (const skill of SKILLS) {
    for (const c of writtenCalls(skill)) {
      const command = filled(c, skill);
      // run-checks, finish, commit and clean-attempt run programs: approved only under a grant (test/unit/permit.test.ts).
      if (/ (run-checks|finish|commit|clean-attempt) /.test(command)) continue;
      if (seen.has(command)) continue;
      seen.add(command);
      calls.push(baseOf(skill, command));
    }
  }
  for (const c of commandCalls()) calls.push(baseOf("commands", filled(c, "commands")));
  return calls;
}

/** Rebuild a call from its parts: `feed` before node, `stdin` after the arguments. */
function rebuild(b: Base, o: { script?: string; args?: string; feed?: string | null; stdin?: string | null; prefix?: string; suffix?: string } = {}): string {
  const feed = o.feed === undefined ? (b.echo !== undefined ? `echo '${b.echo}' | ` : "") : o.feed ?? "";
  const stdin = o.stdin === undefined ? (b.redirect !== undefined ? ` < ${b.redirect}` : "") : o.stdin ?? "";
  return `${o.prefix ?? ""}${feed}node ${o.script ?? `"${b.script}"`} ${o.args ?? b.args}${stdin}${o.suffix ?? ""}`;
}

const same = (argv: string[]) => argv;
const sameIn = (s: string) => s;
/** The literal an echo gives (bash's echo adds a newline). */
const echoed = (lit: string) => lit.replaceAll("'\\''", "'") + "\n";
const fileText = (rel: string) => STDIN_FILES[rel] ?? readFileSync(join(project, rel), "utf8");

/** A free-text flag with a single-quoted value in the call, e.g. ` --goal 'api'`. */
const TEXT_FLAG = / --(goal|decisions|content|goal-context|keywords) '([^']*)'/;
/** A comma list, quoted or bare. */
const LIST_FLAG = / --(outputs|inputs|phases|keywords) (?:'([^' ]*,[^' ]*)'|([^' ]*,[^' ]*))(?= |$)/;

/** The decorations of item 1, one variant each where it applies. */
function decorations(b: Base): Variant[] {
  const v: Variant[] = [];
  const add = (group: string, command: string | null, argv = same, stdin = sameIn, cwd = project) => {
    if (command !== null) v.push({ group, command, cwd, argv, stdin, base: b });
  };
  const hasStdin = b.echo !== undefined || b.redirect !== undefined;
  const stdinText = b.echo !== undefined ? echoed(b.echo) : b.redirect !== undefined ? fileText(b.redirect) : "";
  add("as written", b.command);
  add("2>&1", `${b.command} 2>&1`);
  add("cd root", `cd "${project}" && ${b.command}`);
  add("cd root unquoted", `cd ${project} && ${b.command}`);
  add("cd root from a subfolder", `cd "${project}" && ${b.command}`, same, sameIn, join(project, "src/api"));
  add("unquoted helper path", rebuild(b, { script: b.script }));
  add("single-quoted helper path", rebuild(b, { script: `'${b.script}'` }));
  add("cd root, 2>&1", `cd "${project}" && ${b.command} 2>&1`);
  add("unquoted path, 2>&1", rebuild(b, { script: b.script, suffix: " 2>&1" }));
  add("cd root, unquoted path, 2>&1", rebuild(b, { prefix: `cd ${project} && `, script: b.script, suffix: " 2>&1" }));
  if (hasStdin) {
    const body = stdinText.endsWith("\n") ? stdinText : stdinText + "\n";
    const toBody = () => body;
    add("here-doc <<'EOF'", rebuild(b, { feed: null, stdin: ` <<'EOF'\n${body}EOF` }), same, toBody);
    add("here-doc << 'EOF'", rebuild(b, { feed: null, stdin: ` << 'EOF'\n${body}EOF` }), same, toBody);
    add('here-doc <<"JSON", 2>&1', rebuild(b, { feed: null, stdin: ` <<"JSON" 2>&1\n${body}JSON` }), same, toBody);
    add("cd root, here-doc, 2>&1", rebuild(b, { prefix: `cd "${project}" && `, feed: null, stdin: ` <<'EOF' 2>&1\n${body}EOF\n` }), same, toBody);
    const file = b.redirect ?? ".design/tmp/updates.json";
    add("cat .design/<file> |", rebuild(b, { feed: `cat ${file} | `, stdin: null }), same, () => fileText(file));
    add("cd root, cat, 2>&1", rebuild(b, { prefix: `cd "${project}" && `, feed: `cat ${file} | `, stdin: null, suffix: " 2>&1" }), same, () => fileText(file));
    if (b.echo !== undefined) {
      const lit = b.echo.replace(/"result": "[^"]*"/, `"result": "it'\\''s done"`);
      if (lit !== b.echo) add("echo with '\\''", rebuild(b, { feed: `echo '${lit}' | ` }), same, () => echoed(lit));
    }
  }
  const text = TEXT_FLAG.exec(b.args);
  if (text) {
    const [whole, flag, value] = text;
    const apostrophe = `${value} for the user'\\''s API`;
    const meant = `${value} for the user's API`;
    const swap = (from: string, to: string) => (argv: string[]) => argv.map((a, i) => (argv[i - 1] === `--${flag}` && a === from ? to : a));
    add(`--${flag} with '\\''`, rebuild(b, { args: b.args.replace(whole, ` --${flag} '${apostrophe}'`) }), swap(value, meant));
    add(`--${flag} "plain text"`, rebuild(b, { args: b.args.replace(whole, ` --${flag} "${meant}"`) }), swap(value, meant));
    add(`--${flag}='text'`, rebuild(b, { args: b.args.replace(whole, ` --${flag}='${value}'`) }), (argv) => {
      const i = argv.indexOf(`--${flag}`);
      return [...argv.slice(0, i), `--${flag}=${value}`, ...argv.slice(i + 2)];
    });
    add(`cd root, --${flag} with '\\'', 2>&1`, rebuild(b, { prefix: `cd "${project}" && `, args: b.args.replace(whole, ` --${flag} '${apostrophe}'`), suffix: " 2>&1" }), swap(value, meant));
  }
  const list = LIST_FLAG.exec(b.args);
  if (list) {
    const [whole, flag, quoted, bare] = list;
    const value = quoted ?? bare;
    const spaced = value.split(",").join(", ");
    const swap = (argv: string[]) => argv.map((a, i) => (argv[i - 1] === `--${flag}` && a === value ? spaced : a));
    add(`--${flag} 'a, b'`, rebuild(b, { args: b.args.replace(whole, ` --${flag} '${spaced}'`) }), swap);
    add(`--${flag} "a, b", 2>&1`, rebuild(b, { args: b.args.replace(whole, ` --${flag} "${spaced}"`), suffix: " 2>&1" }), swap);
  }
  return v;
}

/** Calls with shapes of their own: skill-find targets as the skills take them. */
function special(bases: Base[]): Variant[] {
  const v: Variant[] = [];
  for (const b of bases.filter((x) => / skill-find /.test(` ${x.args} `))) {
    const current = /^skill-find (\S+)/.exec(b.args)![1];
    for (const target of ["greet", "Greet", "gree", "do:execute", "my_plugin:greet-formal", ".claude/skills/greet/SKILL.md", "./.claude/skills/greet/SKILL.md", ".claude/skills/greet", `${project}/.claude/skills/greet/SKILL.md`]) {
      v.push({
        group: `skill-find ${/[/.]/.test(target) ? "a path" : target.includes(":") ? "plugin:name" : "a name"}`,
        command: rebuild(b, { args: b.args.replace(`skill-find ${current}`, `skill-find ${target}`) }),
        cwd: project,
        argv: (argv) => argv.map((a) => (a === current ? target : a)),
        stdin: sameIn,
        base: b,
      });
    }
  }
  return v;
}

/** Shapes a model may type that are no decoration of item 1: left to the user (one per call, in turn). */
const ASKED: Array<(c: string) => string> = [(c) => `${c} | head -n 40`, (c) => `${c} 2>/dev/null`, (c) => `${c} | jq .`];

/** Shapes that must stay refused, built on a few representative calls. */
function mustRefuse(bases: Base[]): Array<[string, string, string?]> {
  // A plain call without stdin (execute's grant proposal).
  const status = bases.find((b) => b.args === "grant .design/plan.json")!;
  const c = status.command;
  const upd = bases.find((b) => b.args === "update-status .design/plan.json" && b.redirect === ".design/tmp/update.json")!;
  const echoUpd = bases.find((b) => b.echo !== undefined)!;
  const goal = bases.find((b) => /^run-begin improve /.test(b.args))!;
  const find = bases.find((b) => /^skill-find /.test(b.args))!;
  const cur = bases.find((b) => b.args.startsWith("curator-apply "))!;
  const view = bases.find((b) => b.owner === "commands" && b.args.startsWith("report "))!;
  const script = status.script;
  const updNode = `node "${upd.script}" update-status .design/plan.json`;
  const withGoal = (text: string) => rebuild(goal, { args: goal.args.replace(TEXT_FLAG, ` --goal ${text}`) });
  return [
    ["2>&1 | tee", `${c} 2>&1 | tee .design/tmp/out.txt`],
    ["| tee", `${c} | tee x`],
    ["cd elsewhere", `cd /tmp && ${c}`],
    ["cd a subfolder", `cd "${project}/src" && ${c}`],
    ["cd up", `cd "${project}/.." && ${c}`],
    ["cd dotdot inside", `cd "${project}/src/.." && ${c}`],
    ["cd relative", `cd . && ${c}`],
    ["cd home", `cd ~ && ${c}`],
    ["cd $VAR", `cd "$CLAUDE_PROJECT_DIR" && ${c}`],
    ["cd -P", `cd -P "${project}" && ${c}`],
    ["cd ; rm", `cd "${project}"; rm -rf src; ${c}`],
    ["cd ; command", `cd "${project}"; ${c}`],
    ["cd || ", `cd "${project}" || ${c}`],
    ["cd && cd", `cd "${project}" && cd src && ${c}`],
    ["cd && second command", `cd "${project}" && ${c} && rm -rf src`],
    ["cd glued &&", `cd "${project}"&& ${c}`],
    ["cd from outside the project", `cd "${project}" && ${c}`, outside],
    ["here-doc with an unquoted delimiter", `${updNode} <<EOF\n$(touch ${outside}/pwned)\nEOF`],
    ["here-doc <<-", `${updNode} <<-'EOF'\n[]\nEOF`],
    ["here-string", `${updNode} <<< '[]'`],
    ["here-doc then a second command", `${updNode} <<'EOF'\n[]\nEOF\ntouch ${outside}/pwned`],
    ["here-doc then a blank line and a command", `${updNode} <<'EOF'\n[]\nEOF\n\ntouch x`],
    ["here-doc never ended", `${updNode} <<'EOF'\n[]\n`],
    ["here-doc ended with trailing space", `${updNode} <<'EOF'\n[]\nEOF \ntouch x`],
    ["here-doc with an argument after it", `${updNode} <<'EOF' .design/x\n[]\nEOF`],
    ["here-doc and echo", `echo '[]' | ${updNode} <<'EOF'\n[]\nEOF`],
    ["here-doc and < file", `${updNode} < .design/tmp/update.json <<'EOF'\n[]\nEOF`],
    ["here-doc for a command without stdin", `${c} <<'EOF'\n[]\nEOF`],
    ["here-doc delimiter $", `${updNode} <<'$EOF'\n[]\n$EOF`],
    ["here-doc with a carriage return", `${updNode} <<'EOF'\r\n[]\r\nEOF`],
    ["newline without a here-doc", `${c}\ntouch x`],
    ["cat /etc/passwd", `cat /etc/passwd | ${updNode}`],
    ["cat a FIFO", `cat .design/fifo.json | ${updNode}`],
    ["< a FIFO", `${updNode} < .design/fifo.json`],
    ["cat a folder", `cat .design/tmp/dir.json | ${updNode}`],
    ["cat a link out", `cat .design/tmp/link.json | ${updNode}`],
    ["cat up", `cat .design/../Makefile | ${updNode}`],
    ["cat two files", `cat .design/tmp/update.json .design/tmp/updates.json | ${updNode}`],
    ["cat -n", `cat -n .design/tmp/update.json | ${updNode}`],
    ["cat missing", `cat .design/tmp/none.json | ${updNode}`],
    ["cat ~", `cat ~/.bashrc | ${updNode}`],
    ["cat and <", `cat .design/tmp/update.json | ${updNode} < .design/tmp/update.json`],
    ["cat | tee |", `cat .design/tmp/update.json | tee x | ${updNode}`],
    ["2>/tmp/x", `${c} 2>/tmp/x`],
    ["2>.design/x", `${c} 2>.design/tmp/x.txt`],
    [">&2", `${c} >&2`],
    ["1>&2", `${c} 1>&2`],
    ["&>", `${c} &> .design/tmp/x.txt`],
    ["2>&1 >x", `${c} 2>&1 > x`],
    [">x 2>&1", `${c} > x 2>&1`],
    ["2>&1 twice", `${c} 2>&1 2>&1`],
    ["2>&1 before arguments", `node "${script}" status 2>&1 .design/plan.json`],
    ["2>&1 before < file", `${updNode} 2>&1 < .design/tmp/update.json`],
    ["2>&1 glued", `${c}2>&1`],
    ["2>&-", `${c} 2>&-`],
    ["2>&1 then command", `${c} 2>&1; touch x`],
    ['"$(…)" free text', withGoal(`"$(touch ${outside}/pwned)"`)],
    ['"`…`" free text', withGoal('"`touch pwned`"')],
    ['"$VAR" free text', withGoal('"$HOME"')],
    ['"${…}" free text', withGoal('"${HOME}"')],
    ['"!" free text', withGoal('"it works!"')],
    ['"\\"" free text', withGoal('"say \\"hi\\""')],
    ["unquoted $ free text", withGoal("$(id)")],
    // run-begin's --inputs are hashed only: any file inside the project (improve's target), never one outside it.
    ["--inputs outside the project", goal.command.replace(/--inputs \S+/, `--inputs '${outside}/secret.json'`)],
    ["--inputs up and out", goal.command.replace(/--inputs \S+/, "--inputs '../outside/secret.json'")],
    ["--inputs through a link out", goal.command.replace(/--inputs \S+/, "--inputs '.design/tmp/link.json'")],
    ["--inputs home", goal.command.replace(/--inputs \S+/, "--inputs '~/.bashrc'")],
    ["unterminated quote", withGoal("'don't'")],
    ["echo in double quotes", `echo "[]" | ${updNode}`],
    ["echo $() ", `echo "$(id)" | ${updNode}`],
    ["echo -e", `echo -e '[]' | ${updNode}`],
    ["echo two words", `echo '[]' '[]' | ${updNode}`],
    ["echo unquoted", `echo [] | ${updNode}`],
    ["echo for a command without stdin", `echo '[]' | ${c}`],
    ["echo with a bare escape", `echo '[]'\\x | ${updNode}`],
    ["printf", `printf '[]' | ${updNode}`],
    ["helper path with ~", `node ~/skills/execute/scripts/plan.js status .design/plan.json`],
    ["helper path with $", `node $HOME/skills/execute/scripts/plan.js status .design/plan.json`],
    ["helper path relative", `node skills/execute/scripts/plan.js status .design/plan.json`],
    ["helper path glob", `node ${script.replace("plan.js", "pla*.js")} status .design/plan.json`],
    ["helper path half-quoted", `node "${script.slice(0, 10)}"${script.slice(10)}x status .design/plan.json`],
    ["env before node", `NODE_OPTIONS=--require=./x.js ${c}`],
    ["exec node", `exec ${c}`],
    ["the commands' path with a skill's subcommand", `node "${view.script}" finalize .design/draft/plan.json`],
    ["the commands' path elsewhere", `node "${outside}/dist/plan.js" report .design/plan.json`],
    ["skill-find with a space", rebuild(find, { args: find.args.replace(/skill-find \S+/, "skill-find 'my skill'") })],
    ["skill-find with $", rebuild(find, { args: find.args.replace(/skill-find \S+/, "skill-find '$x'") })],
    ["skill-find with ;", rebuild(find, { args: find.args.replace(/skill-find \S+/, "skill-find 'a;b'") })],
    ["skill-find with ~", rebuild(find, { args: find.args.replace(/skill-find \S+/, "skill-find ~/skills/x") })],
    ["list entry outside", withGoal("'g'").replace(/--inputs \S+/, "--inputs '.design/recon.json, /etc/passwd'")],
    ["list empty entry", withGoal("'g'").replace(/--inputs \S+/, "--inputs '.design/recon.json, ,.design/plan.json'")],
    ["list entry with a tab", withGoal("'g'").replace(/--inputs \S+/, "--inputs '.design/recon.json,\t.design/plan.json'")],
    ["unquoted spaced list", withGoal("'g'").replace(/--inputs \S+/, "--inputs .design/recon.json, .design/plan.json")],
    ["report file and stdin", rebuild(cur, { stdin: " < .design/worker-api.json" })],
    ["report file outside", rebuild(cur, { args: "curator-apply /etc/passwd" })],
    ["echo feeding a here-doc call", `${rebuild(echoUpd, { suffix: "" })} <<'EOF'\n[]\nEOF`],
  ];
}

const event = (command: string, cwd: string, extra: Partial<HookInput> = {}): HookInput => ({ tool_name: "Bash", tool_input: { command, description: "x" }, cwd, ...extra }) as HookInput;
const approved = (v: { command: string; cwd: string }, skill?: Skill) => permits(event(v.command, v.cwd), ROOT, skill);

type Record_ = { argv: string[]; cwd: string; stdin: string } | { error: string };

/**
 * Run commands under bash as Claude Code's Bash tool does (`eval` of the command text; cwd; a scratch HOME), with the
 * recording `node` first on PATH: one bash running them in turn, stdin /dev/null unless the command feeds one. Returns what `node` got for each, in order.
 */
function runRecorded(list: ReadonlyArray<{ command: string; cwd: string }>): Record_[] {
  const dir = mkdtempSync(join(bin, "batch-"));
  try {
    writeFileSync(join(dir, "list"), list.map((v) => `${v.cwd}\0${v.command}\0`).join(""));
    const script = [
      "i=0",
      "while IFS= read -r -d '' cwd && IFS= read -r -d '' cmd; do",
      // No subshell: each command is an approved helper call (a `cd` in it is undone by the next iteration's).
      '  cd "$cwd" && export DO_VARIANT_OUT="$REC/$i" && { eval "$cmd"; } </dev/null >"$REC/$i.out" 2>&1',
      "  i=$((i+1))",
      'done < "$REC/list"',
    ].join("\n");
    const res = spawnSync("bash", ["-c", script], {
      cwd: project,
      env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home, LANG: "C.UTF-8", REC: dir },
      encoding: "utf8",
      timeout: 600_000,
    });
    assert.equal(res.error, undefined, String(res.error));
    return list.map((_, i) => {
      const rec = join(dir, String(i));
      if (!existsSync(`${rec}.argv`)) return { error: `node never ran: ${existsSync(`${rec}.out`) ? readFileSync(`${rec}.out`, "utf8") : "(no output)"}` };
      const argv = readFileSync(`${rec}.argv`, "utf8").split("\0");
      argv.pop();
      return { argv, cwd: readFileSync(`${rec}.cwd`, "utf8").trim(), stdin: readFileSync(`${rec}.stdin`, "utf8") };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const outsideDesign = () => Object.fromEntries(Object.entries(snapshotLinks(base)).filter(([k]) => !k.startsWith("project/.design/")));

describe("the hook's variant corpus: every written call x the decorations of item 1", () => {
  it("approves every plausible decoration, asks for at most 1 in 10 plausible variants, and each approved one runs exactly the argv and stdin it judged", () => {
    const bases = corpus();
    assert.ok(bases.length >= 60, `${bases.length} written calls`);
    const variants = [...bases.flatMap(decorations), ...special(bases)];
    const asked = bases.map((b, i) => ({ command: ASKED[i % ASKED.length](b.command), cwd: project }));
    // Every decoration of item 1 is approved, by the plugin's hook and by the call's own skill's.
    const refused = variants.filter((v) => !approved(v) || (v.base.owner !== "commands" && !approved(v, v.base.owner))).map((v) => `${v.group}: ${v.command}`);
    assert.deepEqual(refused, []);
    // The other shapes a model may type are left to the user.
    assert.deepEqual(asked.filter((a) => approved(a)).map((a) => a.command), []);
    const plausible = variants.length + asked.length;
    assert.ok(asked.length * 10 <= plausible, `${asked.length} of ${plausible} plausible variants ask`);

    // Run each: first the undecorated call (what the call means), then every variant against it.
    const snap = outsideDesign();
    const records = runRecorded([...bases.map((b) => ({ command: b.command, cwd: project })), ...variants]);
    const truth = new Map<string, { argv: string[]; stdin: string }>();
    const wrong: string[] = [];
    bases.forEach((b, i) => {
      const r = records[i];
      if ("error" in r) wrong.push(`${b.command}: ${r.error}`);
      else truth.set(b.command, { argv: r.argv.slice(1), stdin: r.stdin });
    });
    assert.deepEqual([...wrong], []);
    variants.forEach((v, i) => {
      const r = records[bases.length + i];
      const what = `${v.group}: ${JSON.stringify(v.command)}`;
      if ("error" in r) {
        wrong.push(`${what}: ${r.error}`);
        return;
      }
      const judged = parseHelperLine(v.command)!;
      const meant = truth.get(v.base.command)!;
      const got = JSON.stringify(r.argv.slice(1));
      if (r.argv[0] !== v.base.script) wrong.push(`${what}: ran ${r.argv[0]}`);
      if (got !== JSON.stringify(judged.words)) wrong.push(`${what}: bash passed ${got}, the hook judged ${JSON.stringify(judged.words)}`);
      if (got !== JSON.stringify(v.argv(meant.argv))) wrong.push(`${what}: got ${got}, meant ${JSON.stringify(v.argv(meant.argv))}`);
      if (r.stdin !== v.stdin(meant.stdin)) wrong.push(`${what}: stdin ${JSON.stringify(r.stdin)}, meant ${JSON.stringify(v.stdin(meant.stdin))}`);
      if (r.cwd !== project) wrong.push(`${what}: ran in ${r.cwd}`);
    });
    const now = outsideDesign();
    const changed = [...new Set([...Object.keys(snap), ...Object.keys(now)])].filter((k) => snap[k] !== now[k]);
    assert.deepEqual(changed, [], "files outside .design/ changed");
    assert.deepEqual(wrong, []);
    console.log(
      `variant corpus: ${bases.length} written calls, ${plausible} plausible variants (${variants.length} decorated, all approved and run; ` +
        `${asked.length} other shapes asked: ${((asked.length / plausible) * 100).toFixed(1)}%)`,
    );
    const groups = new Map<string, number>();
    for (const v of variants) groups.set(v.group, (groups.get(v.group) ?? 0) + 1);
    console.log(`by decoration: ${[...groups].map(([g, n]) => `${g} ${n}`).join("; ")}`);
  });

  it("a list with spaces after its commas reaches the helper as the entries the hook judged", () => {
    for (const value of [".design/a.json, .design/b.json", ".design/a.json ,  .design/b.json", "a, b ,c"]) {
      assert.deepEqual(commaList(value), value.split(",").map((e) => e.replace(/^ +| +$/g, "")));
    }
    // A tab or a no-break space would be trimmed by the helper but is not what the hook judged: refused.
    const goal = corpus().find((b) => /^run-begin improve /.test(b.args))!;
    for (const sep of [",\t", ",\u00a0", ",\n"]) {
      const command = goal.command.replace(/--inputs \S+/, `--inputs '.claude/skills/greet/SKILL.md${sep}.design/plan.json'`);
      assert.equal(approved({ command, cwd: project }), false, JSON.stringify(sep));
    }
  });

  it("refuses every shape that must stay refused", () => {
    const bases = corpus();
    const rows = mustRefuse(bases);
    const wrongly = rows.filter(([, command, cwd]) => approved({ command, cwd: cwd ?? project })).map(([what, command]) => `${what}: ${JSON.stringify(command)}`);
    assert.deepEqual(wrongly, []);
    // Nor for an agent, in plan mode, or with the sandbox off, whatever the decoration.
    const decorated = decorations(bases.find((b) => b.redirect !== undefined)!);
    const leaked = decorated.filter(
      (v) =>
        permits(event(v.command, v.cwd, { agent_id: "a1", transcript_path: join(home, "t.jsonl") }), ROOT) ||
        permits(event(v.command, v.cwd, { permission_mode: "plan" }), ROOT) ||
        permits({ ...event(v.command, v.cwd), tool_input: { command: v.command, dangerouslyDisableSandbox: true } } as HookInput, ROOT),
    );
    assert.deepEqual(leaked.map((v) => v.group), []);
    console.log(`variant corpus: ${rows.length} must-refuse shapes, none approved`);
  });

  it("the shapes it refuses because of their stdin file would block bash or read elsewhere", () => {
    // Control: the FIFO really blocks a `<` redirect (bash waits for a writer), which is why the hook refuses it.
    const res = spawnSync("bash", ["-c", "cat < .design/fifo.json"], { cwd: project, timeout: 1500 });
    assert.equal((res.error as NodeJS.ErrnoException | undefined)?.code, "ETIMEDOUT");
  });

  it("without CLAUDE_PROJECT_DIR, a cd prefix still needs the event's cwd to be the root", (t) => {
    const prev = process.env.CLAUDE_PROJECT_DIR;
    delete process.env.CLAUDE_PROJECT_DIR;
    t.after(() => (process.env.CLAUDE_PROJECT_DIR = prev));
    const status = corpus().find((b) => b.args === "grant .design/plan.json")!;
    const command = `cd "${project}" && ${status.command}`;
    assert.ok(approved({ command, cwd: project }));
    assert.ok(!approved({ command, cwd: join(project, "src") }), "a subfolder is a root only by CLAUDE_PROJECT_DIR");
  });
});
