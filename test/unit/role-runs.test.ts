// Issue 31: the grant covers the work the plan asks for. A role's `runs` (the program it builds, its examples) and
// the verifier's end-to-end run are part of the plan, the grant and the hook, for that role's worker only; a
// prefix with plain words is all a prefix allows. Tested as an attacker: the prefixes finalize refuses, the command
// lines the hook refuses under a granted prefix, another role's run, and a command outside every list.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { permits, type HookInput } from "../../src/hooks/permit.ts";
import { plainWords, prefixCovers, prefixProblem, quoteCovered, quotedCommands } from "../../src/lib/checks/role-runs.ts";
import { planWith, project } from "../helpers/design-dir.ts";

const ROOT = resolve(__dirname, "../..");

describe("a run prefix: what finalize lets a plan grant [feature:execute/grant-covers-runs]", () => {
  it("allows the project's own program: a path, an interpreter with its script or module, a build tool's subcommand", () => {
    for (const p of ["python3 -m textkit", "python3.12 -m textkit.cli", "node src/cli.js", "node dist/cli.js --verbose", "./bin/tool", "bin/tool run", "java -jar build/app.jar", "go run ./cmd/tool", "python3 -m pytest", "cargo run --", "cargo run", "npm run demo", "npx textkit", "uv run python -m textkit", "make", "make examples", "textkit", "deno run src/main.ts", "ruby bin/app.rb"]) {
      assert.equal(prefixProblem(p), "", p);
    }
  });

  it("refuses an interpreter by itself, an option before the script, a shell, a wrapper, a general tool, an assignment, anything but plain words", () => {
    const rows = [
      "python3", "python3 -c", "python3 -c print(1)", "node", "node -e", "node --require ./x.js src/cli.js", "node --import=x src/cli.js", "node -p 1",
      "ruby -e", "perl -e", "php -r", "deno eval", "deno run", "java -cp x Main", "python3 -m", "python3 -m -c",
      "bash -c", "bash", "sh script.sh", "/bin/sh x", "zsh", "env", "env python3 -m textkit", "sudo make", "xargs", "timeout 5 node src/cli.js",
      "nice node src/cli.js", "nohup node src/cli.js", "eval", "exec node src/cli.js", "time node src/cli.js", "tmux new-session", "screen",
      "git", "git -c core.pager=sh log", "curl", "wget", "rm", "find .", "awk", "sed", "tee", "cp", "tar", "ssh host", "docker run",
      "npm", "npm install", "npm i", "npm exec", "npm ci", "pip install", "cargo install", "go get", "go install", "yarn add", "pnpm dlx",
      "npx", "npx -y", "npx -p evil x", "uv run", "uv run -m x", "uv run bash", "poetry run sh", "bundle exec", "npx bash -c",
      "FOO=1 node src/cli.js", "PATH=. make",
      "python3 -m pip", "python3 -m timeit", "python3 -m http.server", "python3 -m pdb", "python3 -m venv", "go run", "go run github.com/x/y", "nix run",
      "node src/cli.js; rm -rf x", "node src/cli.js && id", "node src/cli.js | sh", "node src/cli.js > out", "node src/cli.js < in",
      "node $(id)", "node `id`", "node ${X}", "node $X", "node src/*.js", "node src/cli.js?", "node [ab].js", "node ~/x.js", "node {a,b}.js",
      "node 'src/cli.js'", 'node "src/cli.js"', "node src\\cli.js", "node src/cli.js # x", "node src/cli.js\nid", "node\tsrc/cli.js", " node src/cli.js",
      "node src/cli.js ", "node  src/cli.js", "", "-x", "node src/cli.js !x", "node (x)",
    ];
    const allowed = rows.filter((p) => prefixProblem(p) === "");
    assert.deepEqual(allowed, [], "prefixes that would be granted");
  });

  it("covers the prefix followed by plain words only; dash words only where the program gets them", () => {
    const yes: Array<[string, string]> = [
      ["python3 -m textkit", "python3 -m textkit"],
      ["python3 -m textkit", "python3 -m textkit --help"],
      ["python3 -m textkit", "python3 -m textkit count examples/a.txt --words"],
      ["python3 -m textkit", "python3 -m textkit wc -- --weird"],
      ["node src/cli.js", "node src/cli.js list --all"],
      ["node src/cli.js", "node  src/cli.js list"],
      ["cargo run --", "cargo run -- --help"],
      ["npm run demo", "npm run demo examples/a.txt"],
      ["make", "make examples"],
      ["./bin/tool", "./bin/tool --out=build/x.txt a,b a:b a@b 50%"],
    ];
    for (const [p, c] of yes) assert.ok(prefixCovers(p, c), `${p} ⊇ ${c}`);
    const no: Array<[string, string]> = [
      ["python3 -m textkit", "python3 -m textkit; id"],
      ["python3 -m textkit", "python3 -m textkit && id"],
      ["python3 -m textkit", "python3 -m textkit || id"],
      ["python3 -m textkit", "python3 -m textkit | sh"],
      ["python3 -m textkit", "python3 -m textkit & id"],
      ["python3 -m textkit", "python3 -m textkit $(id)"],
      ["python3 -m textkit", "python3 -m textkit `id`"],
      ["python3 -m textkit", "python3 -m textkit ${IFS}id"],
      ["python3 -m textkit", "python3 -m textkit $HOME"],
      ["python3 -m textkit", "python3 -m textkit > /etc/passwd"],
      ["python3 -m textkit", "python3 -m textkit >out"],
      ["python3 -m textkit", "python3 -m textkit 2>&1"],
      ["python3 -m textkit", "python3 -m textkit < /etc/shadow"],
      ["python3 -m textkit", "python3 -m textkit <<EOF"],
      ["python3 -m textkit", "python3 -m textkit *"],
      ["python3 -m textkit", "python3 -m textkit ex?mple"],
      ["python3 -m textkit", "python3 -m textkit [a]"],
      ["python3 -m textkit", "python3 -m textkit {a,b}"],
      ["python3 -m textkit", "python3 -m textkit ~/x"],
      ["python3 -m textkit", "python3 -m textkit 'a b'"],
      ["python3 -m textkit", 'python3 -m textkit "a"'],
      ["python3 -m textkit", "python3 -m textkit a\\ b"],
      ["python3 -m textkit", "python3 -m textkit #x"],
      ["python3 -m textkit", "python3 -m textkit !!"],
      ["python3 -m textkit", "python3 -m textkit\nid"],
      ["python3 -m textkit", "python3 -m textkit x\rid"],
      ["python3 -m textkit", "python3 -m textkit\tx"],
      ["python3 -m textkit", "python3 -m textkit x\0"],
      ["python3 -m textkit", " python3 -m textkit"],
      ["python3 -m textkit", "python3 -m textkit "],
      ["python3 -m textkit", "X=1 python3 -m textkit"],
      ["python3 -m textkit", "env python3 -m textkit"],
      ["python3 -m textkit", "python3 -m textkitx"],
      ["python3 -m textkit", "python3 -m textki"],
      ["python3 -m textkit", "python3 -c textkit"],
      ["python3 -m textkit", "python3 -m evil"],
      ["python3 -m textkit", "python3"],
      ["python3 -m textkit", "python3 -m textkit (x)"],
      ["python3 -m textkit", "python3 -m textkit é"],
      // Not the program's options: the tool's.
      ["cargo run", "cargo run --manifest-path /tmp/x/Cargo.toml"],
      ["cargo run", "cargo run --config build.rustc-wrapper=x"],
      ["npm run demo", "npm run demo --scripts-prepend-node-path"],
      ["make", "make -f /tmp/Makefile"],
      ["make", "make SHELL=/tmp/x"],
      ["make examples", "make examples --eval=x"],
      ["textkit", "textkit --help"],
      ["npx textkit", "npx textkit --yes"],
      ["cargo run --", "cargo run --manifest-path=x --"],
      // A prefix that could not be granted covers nothing, even when the command is plain.
      ["python3", "python3 x.py"],
      ["bash -c", "bash -c id"],
      ["node -e", "node -e 1"],
      ["env", "env id"],
      ["node src/cli.js; id", "node src/cli.js; id"],
    ];
    const covered = no.filter(([p, c]) => prefixCovers(p, c));
    assert.deepEqual(covered, [], "command lines a prefix would let through");
  });

  it("splits plain words as bash would, and nothing else", () => {
    assert.deepEqual(plainWords("node src/cli.js  list"), ["node", "src/cli.js", "list"]);
    for (const t of ["", " x", "x ", "a\tb", "a'b", 'a"b', "a;b", "a|b", "a$b", "a`b", "a*b", "a\\b", "a~b"]) assert.equal(plainWords(t), null, JSON.stringify(t));
  });
});

describe("commands a brief quotes", () => {
  it("finds the command-like spans, not file names or identifiers", () => {
    const text = "Run `python3 -m textkit --help` and `pytest -q`; edit `src/textkit/cli.py`, keep `parse()` pure, see `./bin/tool x` and `npm run demo <file>`.";
    assert.deepEqual(quotedCommands(text), ["python3 -m textkit --help", "pytest -q", "./bin/tool x", "npm run demo <file>"]);
  });

  it("a quote is covered by an exact command, a prefix (placeholders as plain words) or the prefix itself", () => {
    assert.ok(quoteCovered("pytest -q", ["pytest -q"], []));
    assert.ok(quoteCovered("python3 -m textkit --help", [], ["python3 -m textkit"]));
    assert.ok(quoteCovered("python3 -m textkit", [], ["python3 -m textkit"]));
    assert.ok(quoteCovered("python3 -m textkit count <file>", [], ["python3 -m textkit"]));
    assert.ok(quoteCovered("python3 -m textkit ...", [], ["python3 -m textkit"]));
    assert.ok(!quoteCovered("python3 -m textkit --help", ["python3 -m textkit"], []), "an exact command covers only itself");
    assert.ok(!quoteCovered("pytest", ["pytest -q"], []));
    assert.ok(!quoteCovered("python3 -m textkit | wc", [], ["python3 -m textkit"]));
  });
});

describe("finalize refuses a brief that asks for a command nothing granted covers", () => {
  const base = (role: Record<string, unknown>, aux: Record<string, unknown> = {}) => {
    const plan: any = planWith([{ name: "cli", dirs: ["textkit/"], acceptanceCriteria: [{ criterion: "tests pass", check: "python3 -m pytest -q" }], ...role }], { context: { testCommand: "python3 -m pytest -q" } });
    plan.auxiliaryRoles = plan.auxiliaryRoles.map((a: any) => (a.name === "integration-verifier" ? { ...a, ...aux } : a));
    return plan;
  };

  it("names the command and the way out; a runs entry or an exact check resolves it", async (t) => {
    const constraint = ["Run each example with `python3 -m textkit <example>` before writing its output."];
    const p = project(t, { ".design/plan.json": base({ constraints: constraint, goal: "The CLI prints `python3 -m textkit --help`." }) });
    const r: any = await p.run("finalize");
    assert.equal(r.code, "E_INVALID");
    const mine = r.issues.filter((i: string) => /nothing granted/.test(i));
    assert.equal(mine.length, 2, JSON.stringify(r.issues));
    assert.match(mine[0], /^Role 0 \(cli\): its brief asks for `The CLI|^Role 0 \(cli\): its brief asks for `python3 -m textkit --help`/);
    assert.match(mine.join("\n"), /add it to the role's runs \(exact, or as a prefix with args "plain"\) or reword the brief/);
    const fixed = project(t, { ".design/plan.json": base({ constraints: constraint, goal: "The CLI prints `python3 -m textkit --help`.", runs: [{ command: "python3 -m textkit", args: "plain" }] }) });
    const ok: any = await fixed.run("finalize");
    assert.equal(ok.validated, true);
    const exact = project(t, { ".design/plan.json": base({ goal: "Passing `python3 -m pytest -q` is the goal." }) });
    assert.equal(((await exact.run("finalize")) as any).validated, true, "a quoted check is granted already");
  });

  it("refuses a runs prefix the grant could not record, and a verifier goal quoting an ungranted command", async (t) => {
    const p = project(t, {
      ".design/plan.json": base({ runs: [{ command: "python3", args: "plain" }, { command: "bash -c", args: "plain" }, { command: "echo a\nid" }] }, { goal: "Exercise the goal end to end with `python3 -m textkit count README.md`." }),
    });
    const r: any = await p.run("finalize");
    const text = r.issues.join("\n");
    assert.match(text, /Role 0 \(cli\): runs\[0\] `python3` cannot be granted as a prefix: python3 by itself runs any code/);
    assert.match(text, /Role 0 \(cli\): runs\[1\] `bash -c` cannot be granted as a prefix: bash runs or changes anything/);
    assert.match(text, /Role 0 \(cli\): runs\[2\] `echo a\nid` must be one line/);
    assert.match(text, /AuxiliaryRole \d+ \(integration-verifier\): its goal asks for `python3 -m textkit count README.md`, which nothing granted covers/);
    const fixed = project(t, { ".design/plan.json": base({}, { goal: "Exercise the goal end to end with `python3 -m textkit count README.md`.", runs: [{ command: "python3 -m textkit count README.md" }] }) });
    assert.equal(((await fixed.run("finalize")) as any).validated, true);
  });
});

describe("the grant and the hook: runs for that role's worker only, the verifier's run for the auxiliaries [feature:execute/grant-covers-runs]", () => {
  let saved: string | undefined;
  let home: string;
  before(() => {
    saved = process.env.CLAUDE_PROJECT_DIR;
    home = realpathSync(mkdtempSync(join(tmpdir(), "do-runs-home-")));
  });
  after(() => {
    if (saved === undefined) delete process.env.CLAUDE_PROJECT_DIR;
    else process.env.CLAUDE_PROJECT_DIR = saved;
    rmSync(home, { recursive: true, force: true });
  });
  const runState = { schemaVersion: 1, skill: "execute", runId: "run-1", goal: "g", goalSha256: "0".repeat(64), inputs: [], phases: ["grant", "workers"], completed: [], startedAt: "2026-11-24T00:00:00Z", updatedAt: "2026-11-24T00:00:00Z", completedAt: null, outcome: null };
  const plan = () => {
    const doc: any = planWith(
      [
        { name: "cli", dirs: ["textkit/"], acceptanceCriteria: [{ criterion: "tests", check: "python3 -m pytest -q" }], runs: [{ command: "python3 -m textkit", args: "plain", why: "its examples" }, { command: "python3 examples/demo.py" }] },
        { name: "docs", dirs: ["docs/"], deps: ["cli"], acceptanceCriteria: [{ criterion: "docs", check: "python3 -m pytest -q docs" }], runs: [{ command: "node tools/render.js", args: "plain" }] },
      ],
      { context: { testCommand: "python3 -m pytest -q" } },
    );
    doc.auxiliaryRoles = doc.auxiliaryRoles.map((a: any) => (a.name === "integration-verifier" ? { ...a, runs: [{ command: "python3 -m textkit count README.md" }] } : a));
    return doc;
  };

  it("proposes each run once, the prefixes apart, for whom; no command joined by a pipe sign", async (t) => {
    const p = project(t, { ".design/plan.json": plan(), ".design/run-execute.json": runState });
    const out: any = await p.run("grant");
    assert.deepEqual(out.commands.map((c: any) => [c.value, c.kind, c.roles]), [
      ["python3 -m pytest -q", "check", ["cli"]],
      ["python3 -m textkit", "run-prefix", ["cli"]],
      ["python3 examples/demo.py", "run", ["cli"]],
      ["python3 -m pytest -q docs", "check", ["docs"]],
      ["node tools/render.js", "run-prefix", ["docs"]],
      ["python3 -m pytest -q", "test", ["(plan)"]],
      ["python3 -m textkit count README.md", "run", ["(auxiliaries)"]],
    ]);
    const summary = out.summary.join("\n");
    assert.ok(!/ \| /.test(summary), summary);
    assert.equal(summary.split("\n").filter((l: string) => l.includes("`python3 -m pytest -q`")).length, 1, "a command that is a check and the test command is listed once");
    assert.match(summary, /Commands, each exactly as written \(4\):\n {2}- `python3 -m pytest -q` \(cli, every worker\)/);
    assert.match(summary, / {2}- `python3 -m textkit count README\.md` \(the verifier and auxiliaries\)/);
    assert.match(summary, /Commands followed by plain words of the worker's choosing .*\(2\):\n {2}- `python3 -m textkit …` \(cli\)\n {2}- `node tools\/render\.js …` \(docs\)/);
    assert.match(summary, /run code of their choosing with your rights/);
  });

  it("approves a run for its role's worker, the lead and the auxiliaries; refuses it for another role's worker, and anything bent", async (t) => {
    const p = project(t, { ".design/plan.json": plan(), ".design/run-execute.json": runState });
    assert.equal(((await p.run("grant", ["--approve"], { consent: true })) as any).recorded, true);
    const root = realpathSync(p.dir);
    process.env.CLAUDE_PROJECT_DIR = root;
    const transcript = join(home, "projects", "p", "s.jsonl");
    const subagents = join(home, "projects", "p", "s", "subagents");
    mkdirSync(subagents, { recursive: true });
    writeFileSync(transcript, "");
    for (const [id, name] of [["c", "cli"], ["d", "docs"], ["v", "integration-verifier"], ["x", "stranger"]]) writeFileSync(join(subagents, `agent-${id}.meta.json`), JSON.stringify({ name }));
    const who = { lead: {}, cli: { agent_id: "c", transcript_path: transcript }, docs: { agent_id: "d", transcript_path: transcript }, verifier: { agent_id: "v", transcript_path: transcript }, stranger: { agent_id: "x", transcript_path: transcript } };
    const sh = (command: string, w: Record<string, unknown>) => permits({ tool_name: "Bash", tool_input: { command, description: "x" }, cwd: root, ...w } as HookInput, ROOT);
    const rights = (command: string) => Object.entries(who).filter(([, w]) => sh(command, w)).map(([k]) => k);
    assert.deepEqual(rights("python3 -m textkit --help"), ["lead", "cli", "verifier"], "the cli role's prefix");
    assert.deepEqual(rights("python3 -m textkit count examples/a.txt"), ["lead", "cli", "verifier"]);
    assert.deepEqual(rights("python3 examples/demo.py"), ["lead", "cli", "verifier"], "the cli role's exact run");
    assert.deepEqual(rights("node tools/render.js docs/index.md"), ["lead", "docs", "verifier"], "the docs role's prefix");
    assert.deepEqual(rights("python3 -m textkit count README.md"), ["lead", "cli", "verifier"], "the verifier's run, also within the cli prefix");
    assert.deepEqual(rights("python3 -m pytest -q"), ["lead", "cli", "docs", "verifier"], "the plan's test command");
    // Outside every list, or bent: refused for everyone.
    const bent = [
      "python3 -m textkit; id", "python3 -m textkit && id", "python3 -m textkit $(id)", "python3 -m textkit `id`", "python3 -m textkit > x",
      "python3 -m textkit *", "X=1 python3 -m textkit", "python3 -m textkit\nid", "python3 -c 'import os'", "python3 examples/demo.py --x",
      "python3 examples/demo.py x", "node -e 1", "bash -c id", "python3", "python3 -m evil", "node tools/render.js | sh", "id", "python3 -m textkit 'a'",
    ];
    assert.deepEqual(bent.filter((c) => rights(c).length > 0), [], "bent or ungranted commands approved");
    assert.ok(!sh("python3 -m textkit --help", { ...who.cli, tool_input: undefined }), "no input");
    // A changed run ends the grant for all.
    const doc = p.json(".design/plan.json");
    doc.roles[0].runs[0].command = "python3 -m textkit.evil";
    writeFileSync(join(root, ".design/plan.json"), JSON.stringify(doc));
    assert.deepEqual(rights("python3 -m textkit --help"), [], "a plan changed after the approval grants nothing");
  });
});

describe("a spec's file name against its runner (issue 31)", () => {
  it("refuses what the runner cannot run, says the name it takes, and lets the rest through", async () => {
    const { specNameProblem } = await import("../../src/lib/plan/spec-names.ts");
    assert.match(specNameProblem(".design/specs/spec-cli.test.py", "python3 -m pytest -q .design/specs/spec-cli.test.py"), /the '\.' in 'spec-cli\.test' reads as a package: name it test_spec_cli\.py/);
    assert.match(specNameProblem(".design/specs/spec_cli.py", "python3 -m pytest -q .design/specs/"), /given a folder, collects only test_\*\.py/);
    assert.equal(specNameProblem(".design/specs/spec_cli.py", "python3 -m pytest -q .design/specs/spec_cli.py"), "", "a file named on the command runs by name");
    assert.equal(specNameProblem(".design/specs/test_spec_cli.py", "python3 -m pytest -q .design/specs/"), "");
    assert.match(specNameProblem(".design/specs/spec-api.go", "go test ./.design/specs/"), /\*_test\.go/);
    assert.match(specNameProblem(".design/specs/spec-api.rb", "bundle exec rspec .design/specs/spec-api.rb"), /_spec\.rb/);
    for (const [path, cmd] of [[".design/specs/spec-api.test.ts", "npx vitest run .design/specs/spec-api.test.ts"], [".design/specs/spec-api.sh", "sh .design/specs/spec-api.sh"]]) assert.equal(specNameProblem(path, cmd), "", path);
  });

  it("finalize refuses the specs ref's old Python name, naming the fix", async (t) => {
    const plan: any = planWith([{ name: "cli", dirs: ["textkit/"], acceptanceCriteria: [{ criterion: "tests", check: "python3 -m pytest -q" }] }], {
      context: { testCommand: "python3 -m pytest -q" },
      verificationSpecs: [{ role: "cli", path: ".design/specs/spec-cli.test.py", runCommand: "python3 -m pytest -q .design/specs/spec-cli.test.py" }],
    });
    const p = project(t, { ".design/plan.json": plan, ".design/specs/spec-cli.test.py": "def test_x():\n    assert True\n" });
    const r: any = await p.run("finalize");
    assert.equal(r.code, "E_INVALID");
    assert.ok(r.issues.some((i: string) => /verificationSpecs\[0\]: '\.design\/specs\/spec-cli\.test\.py' cannot be run by its command .*name it test_spec_cli\.py/.test(i)), JSON.stringify(r.issues));
  });
});

describe("a plan /do:execute cannot carry out says so (issue 31)", () => {
  it("finalize names each scope entry the grant never covers (an installed plugin's skill, .claude, .git)", async (t) => {
    const plan: any = planWith([{ name: "improve-skill", dirs: [], patterns: ["/home/u/.claude/plugins/cache/x/skills/debug/SKILL.md", ".claude/skills/greet/SKILL.md"] }, { name: "docs", dirs: ["docs/"] }]);
    plan.roles[0].scope.patterns = ["/home/u/.claude/plugins/cache/x/skills/debug/SKILL.md", ".claude/skills/greet/SKILL.md"];
    const p = project(t, { ".design/plan.json": plan });
    const out: any = await p.run("finalize");
    assert.equal(out.validated, true);
    assert.deepEqual(out.scopeWarnings, [
      "Role 0 (improve-skill): /do:execute cannot carry out edits of '/home/u/.claude/plugins/cache/x/skills/debug/SKILL.md' (leaves the project): its grant never covers them and a background worker cannot ask; apply them by hand, or give the worker an Edit rule in the settings first",
      "Role 0 (improve-skill): /do:execute cannot carry out edits of '.claude/skills/greet/SKILL.md' (inside .claude/ (settings and hooks)): its grant never covers them and a background worker cannot ask; apply them by hand, or give the worker an Edit rule in the settings first",
    ]);
  });
});
