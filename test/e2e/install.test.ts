// Install like a user: validate the manifests, then, with a scratch HOME, add a `git archive` of HEAD (what a
// GitHub install gets) as a marketplace, install do@do, list it, check the installed copy's helper, and run a skill
// and a command from the installed copy (no --plugin-dir).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureClaude, ROOT, runClaude, scratchHome } from "./lib/claude.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { commandNames, commandPrompt, delivery, SKILLS, skillPrompt } from "./lib/prompts.ts";
import { assertClean, session } from "./lib/session.ts";
import { startStub, type Stub } from "./lib/stub.ts";

/** The commit to install; HEAD unless DO_E2E_REF names another. */
const REF = process.env.DO_E2E_REF ?? "HEAD";

function archive(ref: string): string {
  const dir = mkdtempSync(join(tmpdir(), "do-e2e-archive-"));
  const tar = spawnSync("git", ["archive", "--format=tar", ref], { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 });
  assert.equal(tar.status, 0, `git archive ${ref}: ${tar.stderr}`);
  const x = spawnSync("tar", ["-x", "-C", dir], { input: tar.stdout });
  assert.equal(x.status, 0, `tar -x: ${x.stderr}`);
  return dir;
}

describe(`install from a git archive of ${REF}`, () => {
  let source: string;
  let home: string;
  let stub: Stub;
  let project: Sample;
  let installPath: string;
  const cli = (args: string[], cwd = tmpdir()) => runClaude(args, { cwd, home, stubUrl: stub.url, timeoutMs: 60_000 });

  before(async () => {
    ensureClaude();
    source = archive(REF);
    home = scratchHome();
    stub = await startStub();
    project = sampleProject();
  });

  after(async () => {
    await stub?.close();
    cleanup(source, home, project?.dir);
  });

  it("claude plugin validate: no error, and no warning but the root CLAUDE.md one", { timeout: 120_000 }, async () => {
    for (const target of [source, join(source, ".claude-plugin", "plugin.json")]) {
      const r = await cli(["plugin", "validate", target]);
      const out = r.stdout + r.stderr;
      assert.equal(r.code, 0, out);
      assert.match(out, /Validation passed/, out);
      assert.doesNotMatch(out, /error/i, out);
      const warnings = out.split("\n").filter((l) => l.trim().startsWith("❯"));
      const allowed = existsSync(join(source, "CLAUDE.md")) ? [/CLAUDE\.md at the plugin root is not loaded/] : [];
      for (const w of warnings) assert.ok(allowed.some((a) => a.test(w)), `unexpected warning: ${w}`);
    }
  });

  it("marketplace add, install do@do, details: five skills and the commands", { timeout: 120_000 }, async () => {
    const add = await cli(["plugin", "marketplace", "add", source]);
    assert.equal(add.code, 0, add.stdout + add.stderr);
    assert.match(add.stdout, /Successfully added marketplace: do/);
    const inst = await cli(["plugin", "install", "do@do"]);
    assert.equal(inst.code, 0, inst.stdout + inst.stderr);
    assert.match(inst.stdout, /Successfully installed plugin: do@do/);
    assert.ok(inst.ms < 30_000, `install took ${inst.ms} ms`);

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
    // Claude Code 2.1.197 loads a plugin of a local-directory marketplace from that directory, not from the cache copy.
    const base = /Base directory for this skill: (.*)/.exec(design.received)?.[1];
    const root = [installPath, source].find((r) => base === join(r, "skills", "design"));
    assert.ok(root, `unexpected base directory ${base} (installed ${installPath}, marketplace ${source})`);
    t.diagnostic(`skills load from ${root === installPath ? "the installed copy" : "the marketplace directory"}`);
    const d = delivery(skillPrompt(root, "design"), root, "add due dates", design.received);
    assert.deepEqual(d.missing, [], "the skill body did not arrive");
    assert.equal(JSON.parse(d.injected[0]).skill, "design");

    const view = await session({ prompt: "/do:plan-status", cwd: project.dir, home, pluginDir: null, script: [{ text: "ok" }] });
    assertClean(view);
    const v = delivery(commandPrompt(root, "plan-status"), root, "", view.received);
    assert.deepEqual(v.missing, [], "the command body did not arrive");
    assert.equal(JSON.parse(v.injected[0]).state, "none");
  });

  it("the install leaves the plugin copy without node_modules (it ships package.json and package-lock.json)", {
    todo: "Claude Code runs `npm ci --ignore-scripts` in an installed plugin that has package.json + package-lock.json: see the report",
  }, () => {
    assert.ok(installPath, "not installed");
    const npmLogs = existsSync(join(home, ".npm", "_logs")) ? readdirSync(join(home, ".npm", "_logs")) : [];
    const ranNpm = npmLogs.some((f) => readFileSync(join(home, ".npm", "_logs", f), "utf8").includes(installPath));
    assert.equal(ranNpm, false, "claude plugin install ran npm ci in the installed copy");
  });
});
