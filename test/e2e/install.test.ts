// Install like a user: validate the manifests, then, with a scratch HOME, add a `git archive` of HEAD (what a
// GitHub install gets) as a marketplace, install do@do with npm, bun, pnpm and yarn replaced by shims that record
// any call, list it, check the installed copy (no package manager ran, no node_modules, at most 3 MB, its helper and
// self-test), and run a skill and a command from the installed copy (no --plugin-dir).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { BEHAVIOUR, CLAUDE_CODE_VERSION, ensureClaude, ROOT, runClaude, scratchHome } from "./lib/claude.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { commandNames, commandPrompt, delivery, SKILLS, skillPrompt } from "./lib/prompts.ts";
import { assertClean, session } from "./lib/session.ts";
import { startStub, type Stub } from "./lib/stub.ts";

/** The commit to install; HEAD unless DO_E2E_REF names another. */
const REF = process.env.DO_E2E_REF ?? "HEAD";
/** The package managers an install must not run (bunx and npx too: they fetch packages). */
const PACKAGE_MANAGERS = ["npm", "npx", "bun", "bunx", "pnpm", "yarn", "corepack"];
// Issue 33: an install of at most 3 MB. A source of "./" copies the whole marketplace folder but .git (measured on
// 2.1.332), here a `git archive`, which like GitHub's release and tag zips leaves out what .gitattributes marks
// export-ignore (the sources, tests, benchmarks, build scripts: nothing an installed plugin runs or reads); dist/
// keeps the code several commands share once, in dist/chunks/ (scripts/build.mjs). 7.4 MB at 0.11.0, ~2.6 MB since.
const MAX_INSTALLED_BYTES = 3_000_000;

function archive(ref: string): string {
  const dir = mkdtempSync(join(tmpdir(), "do-e2e-archive-"));
  const tar = spawnSync("git", ["archive", "--format=tar", ref], { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 });
  assert.equal(tar.status, 0, `git archive ${ref}: ${tar.stderr}`);
  const x = spawnSync("tar", ["-x", "-C", dir], { input: tar.stdout });
  assert.equal(x.status, 0, `tar -x: ${x.stderr}`);
  return dir;
}

/** A folder of shims named like the package managers: each appends its name and arguments to `log` and fails. */
function packageManagerShims(dir: string, log: string): string {
  mkdirSync(dir, { recursive: true });
  for (const name of PACKAGE_MANAGERS) {
    const shim = join(dir, name);
    writeFileSync(shim, `#!/bin/sh\nprintf '%s\\n' "${name} $* (in $PWD)" >> '${log}'\nexit 1\n`);
    chmodSync(shim, 0o755);
  }
  return dir;
}

/** Every node_modules folder under dir, and the bytes of its files (symlinks counted as links, not followed). */
function footprint(dir: string): { bytes: number; nodeModules: string[]; files: number } {
  let bytes = 0;
  let files = 0;
  const nodeModules: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.name === "node_modules") nodeModules.push(p);
      const st = lstatSync(p);
      if (e.isDirectory()) walk(p);
      else {
        bytes += st.size;
        files++;
      }
    }
  };
  walk(dir);
  return { bytes, nodeModules, files };
}

/** `claude plugin validate` offers --json on the newer releases (2.1.330 has it, 2.1.197 does not). */
async function validateHasJson(cli: (args: string[]) => ReturnType<typeof runClaude>): Promise<boolean> {
  const help = await cli(["plugin", "validate", "--help"]);
  return /--json/.test(help.stdout + help.stderr);
}

const ROOT_CLAUDE_MD = /CLAUDE\.md at the plugin root is not loaded/;

describe(`install from a git archive of ${REF}`, () => {
  let source: string;
  let home: string;
  let stub: Stub;
  let project: Sample;
  let installPath: string;
  let shimLog: string;
  let shimPath: string;
  const cli = (args: string[], cwd = tmpdir(), env: Record<string, string> = {}) => runClaude(args, { cwd, home, stubUrl: stub.url, timeoutMs: 60_000, env });

  before(async () => {
    ensureClaude();
    source = archive(REF);
    home = scratchHome();
    stub = await startStub();
    project = sampleProject();
    shimLog = join(home, "package-manager-calls.log");
    shimPath = [packageManagerShims(join(home, "shims"), shimLog), process.env.PATH ?? "/usr/bin:/bin"].join(delimiter);
  });

  after(async () => {
    await stub?.close();
    cleanup(source, home, project?.dir);
  });

  it("claude plugin validate: no error, and no warning or finding but the root CLAUDE.md note", { timeout: 120_000 }, async (t) => {
    const plugin = JSON.parse(readFileSync(join(source, ".claude-plugin", "plugin.json"), "utf8"));
    assert.deepEqual(plugin.network, { hosts: [] }, "plugin.json declares that the plugin reaches no host");
    // The feature files beside each SKILL.md (skill.json) are in the archive: validate must pass them without a word.
    for (const s of SKILLS) assert.ok(existsSync(join(source, "skills", s, "skill.json")), `skills/${s}/skill.json is not in the archive`);
    const json = await validateHasJson(cli);
    if (BEHAVIOUR) assert.equal(json, BEHAVIOUR.validateJson, `Claude Code ${CLAUDE_CODE_VERSION}: validate --json offered`);
    if (json) {
      t.diagnostic(`Claude Code ${CLAUDE_CODE_VERSION}: validate --json`);
      for (const target of [source, join(source, ".claude-plugin", "plugin.json")]) {
        const r = await cli(["plugin", "validate", "--json", target]);
        assert.equal(r.code, 0, r.stdout + r.stderr);
        const report = JSON.parse(r.stdout);
        assert.equal(report.success, true, r.stdout);
        const parts = [report.manifest, ...(report.contents ?? [])].filter(Boolean);
        assert.ok(parts.length > 0, r.stdout);
        for (const part of parts) {
          assert.deepEqual(part.errors, [], `${part.file}: ${JSON.stringify(part.errors)}`);
          for (const w of part.warnings) assert.match(w.message, ROOT_CLAUDE_MD, `${part.file}: unexpected warning ${JSON.stringify(w)}`);
        }
        const warnings = parts.flatMap((p: any) => p.warnings);
        assert.equal(warnings.length, existsSync(join(source, "CLAUDE.md")) ? 1 : 0, JSON.stringify(warnings));
        // network.hosts is declared: the plugin's hook and helper calls run a local process and reach no host.
        assert.equal(report.hosts.declared.plugin, true, JSON.stringify(report.hosts));
        assert.deepEqual(report.hosts.named, [], JSON.stringify(report.hosts));
        assert.deepEqual(report.advice, [], JSON.stringify(report.advice));
        // The plugin directory's checks (icon, README...): nothing to report, nothing undecided.
        assert.deepEqual(report.directory.findings, [], JSON.stringify(report.directory.findings));
        assert.deepEqual(report.directory.undecided, [], JSON.stringify(report.directory.undecided));
        assert.equal(report.directory.failure, null);
        assert.deepEqual(
          [...report.provides.skills].sort(),
          SKILLS.map((s) => `do:${s}`).sort(),
        );
        assert.deepEqual([...report.provides.commands].sort(), commandNames(source).map((c) => `do:${c}`));
      }
    } else {
      // 2.1.197 prints text only, knows no `engines`, `network` or icon: those keys get an unknown-field warning.
      t.diagnostic(`Claude Code ${CLAUDE_CODE_VERSION}: validate has no --json, reading its text`);
      for (const target of [source, join(source, ".claude-plugin", "plugin.json")]) {
        const r = await cli(["plugin", "validate", target]);
        const out = r.stdout + r.stderr;
        assert.equal(r.code, 0, out);
        assert.match(out, /Validation passed/, out);
        assert.doesNotMatch(out, /error/i, out);
        const warnings = out.split("\n").filter((l) => l.trim().startsWith("❯"));
        const allowed = [/Unknown field '(engines|network)'/, ...(existsSync(join(source, "CLAUDE.md")) ? [ROOT_CLAUDE_MD] : [])];
        for (const w of warnings) assert.ok(allowed.some((a) => a.test(w)), `unexpected warning: ${w}`);
      }
    }
  });

  it("marketplace add, install do@do with no package manager run, details: five skills and the commands", { timeout: 120_000 }, async (t) => {
    const env = { PATH: shimPath };
    const add = await cli(["plugin", "marketplace", "add", source], tmpdir(), env);
    assert.equal(add.code, 0, add.stdout + add.stderr);
    assert.match(add.stdout, /Successfully added marketplace: do/);
    const inst = await cli(["plugin", "install", "do@do"], tmpdir(), env);
    assert.equal(inst.code, 0, inst.stdout + inst.stderr);
    assert.match(inst.stdout, /Successfully installed plugin: do@do/);
    t.diagnostic(`plugin install took ${inst.ms} ms`);
    const calls = existsSync(shimLog) ? readFileSync(shimLog, "utf8").trim().split("\n") : [];
    assert.deepEqual(calls, [], "claude plugin install ran a package manager");

    const details = await cli(["plugin", "details", "do@do"]);
    assert.equal(details.code, 0, details.stdout + details.stderr);
    const line = /Skills \((\d+)\)\s+(.*)/.exec(details.stdout);
    assert.ok(line, details.stdout);
    const listed = line[2].split(",").map((s) => s.trim()).sort();
    const expected = [...SKILLS, ...commandNames(source)].sort();
    assert.deepEqual(listed, expected, details.stdout);
    assert.equal(Number(line[1]), expected.length);

    const list = await cli(["plugin", "list", "--json"]);
    const entry = JSON.parse(list.stdout).find((p: any) => p.id === "do@do");
    assert.ok(entry?.enabled, list.stdout);
    installPath = entry.installPath;
    assert.ok(installPath.startsWith(home), installPath);
    assert.deepEqual(stub.escapes, [], "the plugin commands tried to reach another host");
  });

  it("the installed copy: no node_modules, at most 3 MB, only what runs, no root lockfile", (t) => {
    assert.ok(installPath, "not installed");
    const f = footprint(installPath);
    t.diagnostic(`installed copy: ${f.files} files, ${f.bytes} bytes`);
    assert.deepEqual(f.nodeModules, [], "the install left node_modules in the plugin cache");
    assert.ok(f.bytes <= MAX_INSTALLED_BYTES, `the installed copy holds ${f.bytes} bytes (limit ${MAX_INSTALLED_BYTES})`);
    // .gitattributes export-ignore: what only working on the plugin needs is not shipped; what runs is.
    for (const dev of ["src", "test", "bench", "scripts", "dev", "docs", "tsconfig.json"]) assert.ok(!existsSync(join(installPath, dev)), `${dev} was installed`);
    for (const runs of ["dist/plan.js", "dist/permit.js", "dist/chunks", "hooks/hooks.json", ".claude-plugin/plugin.json", "commands"]) assert.ok(existsSync(join(installPath, runs)), `${runs} is missing from the installed copy`);
    // The reason no package manager runs: the CLI runs `npm ci` when the root holds package.json and one of these.
    for (const lock of ["package-lock.json", "npm-shrinkwrap.json", "bun.lock", "bun.lockb"]) assert.ok(!existsSync(join(installPath, lock)), `${lock} at the installed root`);
  });

  it("the installed copy: every skills/*/scripts/plan.js resolves and self-test passes", { timeout: 120_000 }, () => {
    assert.ok(installPath, "not installed");
    const skills = readdirSync(join(installPath, "skills")).sort();
    assert.deepEqual(skills, [...SKILLS].sort());
    for (const s of skills) {
      const script = join(installPath, "skills", s, "scripts", "plan.js");
      const real = realpathSync(script);
      assert.ok(real.startsWith(realpathSync(installPath)), `${script} resolves outside the installed copy: ${real}`);
      assert.match(readFileSync(real, "utf8").slice(0, 100), /^#!\/usr\/bin\/env node/);
    }
    const r = spawnSync(process.execPath, [join(installPath, "skills", "design", "scripts", "plan.js"), "self-test"], { cwd: tmpdir(), encoding: "utf8", timeout: 60_000 });
    assert.equal(r.status, 0, r.stdout.slice(0, 2000) + r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.ok, true);
    assert.equal(doc.failed, 0);
    assert.ok(doc.passed > 0);
  });

  it("the installed plugin runs /do:design and /do:plan-status without --plugin-dir", { timeout: 120_000 }, async (t) => {
    assert.ok(installPath, "not installed");
    const design = await session({ prompt: "/do:design add due dates", cwd: project.dir, home, pluginDir: null, script: [{ text: "ok" }] });
    assertClean(design);
    // Both 2.1.197 and 2.1.330 load a plugin of a local-directory marketplace from that directory, not the cache copy.
    const base = /Base directory for this skill: (.*)/.exec(design.received)?.[1];
    const root = [installPath, source].find((r) => base === join(r, "skills", "design"));
    assert.ok(root, `unexpected base directory ${base} (installed ${installPath}, marketplace ${source})`);
    t.diagnostic(`Claude Code ${CLAUDE_CODE_VERSION}: skills load from ${root === installPath ? "the installed copy" : "the marketplace directory"}`);
    const d = delivery(skillPrompt(root, "design"), root, "add due dates", design.received);
    assert.deepEqual(d.missing, [], "the skill body did not arrive");
    assert.equal(JSON.parse(d.injected[0]).skill, "design");

    const view = await session({ prompt: "/do:plan-status", cwd: project.dir, home, pluginDir: null, script: [{ text: "ok" }] });
    assertClean(view);
    const v = delivery(commandPrompt(root, "plan-status"), root, "", view.received);
    assert.deepEqual(v.missing, [], "the command body did not arrive");
    assert.equal(JSON.parse(v.injected[0]).state, "none");
  });
});
