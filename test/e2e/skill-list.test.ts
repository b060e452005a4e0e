// skill-find against the list Claude Code offers the model. A scratch HOME gets real collections the way a user
// adds them (`claude plugin marketplace add` of the fixture marketplaces, `claude plugin install` of seven plugins:
// test/fixtures/skill-list/README.md says where each file came from), plus a user skill and command; the project
// (a git repository) holds the cases issue 18 named (helpers/skill-project.ts) and the session starts in a subfolder.
// The list the CLI sends in its first request, less the release's built-in skills (a session with an empty HOME),
// must be exactly skill-find's entries without `hidden`, and each hidden one must be absent from it:
// - with this plugin loaded (--plugin-dir), skill-find run by the scripted lead through the Bash tool, as the
//   improve skill runs it (the plugin's hook approves it);
// - without it, skill-find from a copy of dist/ outside any plugin, against the CLI with only the installs.
// The second list is also the one test/commands/skill-list.test.ts checks without the CLI
// (test/fixtures/skill-list/expected.json); the HOME the CLI wrote is the snapshot that test reads.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { CLAUDE_CODE_VERSION, ensureClaude, PLUGIN_DIR, ROOT, runClaude, scratchHome } from "./lib/claude.ts";
import { bash, check, flowScript, ok, turn, type Flow } from "./lib/lead.ts";
import { cleanup } from "./lib/project.ts";
import { assertClean, session } from "./lib/session.ts";
import { requestText, startStub } from "./lib/stub.ts";
import { FIXTURE, INSTALLS, MARKETPLACES, marketplaceNames, skillProject, type SkillProject } from "../helpers/skill-project.ts";

const TIMEOUT = 180_000;

/** The skills a request offers: `- name[ (display)]: description` lines after the Skill tool's listing header. */
export function offeredSkills(body: any): Array<{ name: string; display?: string; description: string }> {
  const text = requestText(body);
  const at = text.search(/The following skills are (?:\S+ )?available for use with the Skill tool/);
  if (at < 0) return [];
  const out: Array<{ name: string; display?: string; description: string }> = [];
  for (const line of text.slice(at).split("\n").slice(1)) {
    const m = /^- (.+?)(?: \(([^()]*)\))?: (.*)$/.exec(line);
    if (m) out.push({ name: m[1], ...(m[2] ? { display: m[2] } : {}), description: m[3] });
    else if (line.trim() === "" && out.length > 0) break;
  }
  return out;
}

function git(dir: string): void {
  const run = (...args: string[]) =>
    spawnSync("git", ["-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "-c", "init.defaultBranch=main", ...args], { cwd: dir, encoding: "utf8" });
  assert.equal(run("init", "-q").status, 0);
  run("add", "-A");
  run("commit", "-q", "-m", "skill project");
}

interface Comparison {
  cli: string[];
  find: string[];
  hidden: string[];
  builtins: string[];
}

/**
 * skill-find's offered names against the CLI's list less the built-ins; the hidden ones must be absent, but for a
 * plugin's skill whose name its command already offers (2.1.197 lists that name twice, 2.1.332 once: names are
 * compared once each, and the description the newest release shows is checked).
 */
function compare(t: any, label: string, offered: Array<{ name: string; description?: string }>, found: any, builtins: Set<string>): Comparison {
  const cli = [...new Set(offered.map((s) => s.name).filter((n) => !builtins.has(n)))].sort();
  const skills: any[] = found.skills;
  assert.equal(found.count, skills.length, "the listing was cut");
  const find = skills.filter((s) => !s.hidden).map((s) => s.qualifiedName).sort();
  const hidden = skills.filter((s) => s.hidden).map((s) => s.qualifiedName).sort();
  t.diagnostic(`${label}: Claude Code ${CLAUDE_CODE_VERSION} offers ${cli.length} (plus ${offered.length - cli.length} built-in), skill-find ${find.length} offered + ${hidden.length} hidden; agreeing ${find.filter((n) => cli.includes(n)).length}/${new Set([...cli, ...find]).size}`);
  assert.deepEqual(find, cli, `${label}: skill-find's offered names are the CLI's list`);
  for (const h of hidden) if (!find.includes(h)) assert.ok(!offered.some((o) => o.name === h), `${label}: ${h} is hidden but the CLI offers it`);
  // trailofbits/skills' skill-improver: a command and a skill of one name. skill-find offers the command.
  const improver = skills.filter((s) => s.qualifiedName === "skill-improver:skill-improver");
  if (improver.length) {
    assert.deepEqual(improver.map((s) => [s.kind, s.hidden ?? null]), [["command", null], ["skill", "the plugin's command of the same name is offered in its place"]]);
    const shown = offered.filter((o) => o.name === "skill-improver:skill-improver");
    t.diagnostic(`${label}: Claude Code ${CLAUDE_CODE_VERSION} lists skill-improver:skill-improver ${shown.length} time(s)`);
    if (shown.length === 1) assert.equal(shown[0].description, improver[0].description, "the one entry is the command's");
  }
  assert.equal(found.offered, find.length);
  return { cli, find, hidden, builtins: [...builtins] };
}

describe("skill-find = the skills Claude Code offers", { concurrency: 1 }, () => {
  let parent: string;
  let home: string;
  let proj: SkillProject;
  let builtins: Set<string>;
  /** The fixture marketplaces, copied out of this repository (2.1.197 records a marketplace folder's git commit). */
  let marketplaces: string;

  before(async () => {
    ensureClaude();
    parent = mkdtempSync(join(tmpdir(), "do-e2e-skills-"));
    home = scratchHome();
    proj = skillProject(parent, home, git);
    marketplaces = join(parent, "marketplaces");
    cpSync(MARKETPLACES, marketplaces, { recursive: true });
    const stub = await startStub([]);
    try {
      for (const m of marketplaceNames()) {
        const r = await runClaude(["plugin", "marketplace", "add", join(marketplaces, m)], { cwd: tmpdir(), home, stubUrl: stub.url, timeoutMs: 60_000 });
        assert.equal(r.code, 0, r.stdout + r.stderr);
      }
      for (const id of INSTALLS) {
        const r = await runClaude(["plugin", "install", id], { cwd: tmpdir(), home, stubUrl: stub.url, timeoutMs: 60_000 });
        assert.equal(r.code, 0, r.stdout + r.stderr);
      }
      assert.deepEqual(stub.escapes, []);
    } finally {
      await stub.close();
    }
    // The release's built-in skills: what it offers with nothing installed, in an empty folder.
    const empty = mkdtempSync(join(tmpdir(), "do-e2e-empty-"));
    try {
      const base = await session({ prompt: "hi", cwd: empty, pluginDir: null, script: [{ text: "ok" }] });
      assertClean(base);
      builtins = new Set(offeredSkills(base.main[0].body).map((s) => s.name));
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  after(() => cleanup(parent, home));

  it("the installs leave the plugin records and cache the snapshot holds", () => {
    const config = join(home, ".claude");
    const fill = (text: string) => text.replaceAll("${CONFIG}", config).replaceAll("${MARKETPLACES}", marketplaces);
    const records = (file: string, snapshot: boolean) => {
      const doc = JSON.parse(snapshot ? fill(readFileSync(join(FIXTURE, "home/plugins", file), "utf8")) : readFileSync(join(config, "plugins", file), "utf8"));
      return JSON.stringify(doc, (k, v) => (k === "installedAt" || k === "lastUpdated" ? undefined : v));
    };
    for (const f of ["installed_plugins.json", "known_marketplaces.json"]) assert.equal(records(f, false), records(f, true), f);
    const files = (dir: string) =>
      readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && e.name !== ".in_use")
        .map((e) => relative(dir, join(e.parentPath, e.name)))
        .sort();
    const cache = files(join(config, "plugins/cache"));
    assert.deepEqual(cache, files(join(FIXTURE, "home/plugins/cache")));
    for (const f of cache) assert.equal(readFileSync(join(config, "plugins/cache", f), "utf8"), readFileSync(join(FIXTURE, "home/plugins/cache", f), "utf8"), f);
  });

  it("with this plugin loaded: the list skill-find gives inside the session is the one the model is offered", { timeout: TIMEOUT }, async (t) => {
    let found: any;
    const helper = join(PLUGIN_DIR, "skills", "improve", "scripts", "plan.js");
    const s = await session({
      prompt: "Which skills are there?",
      cwd: proj.cwd,
      home,
      maxTurns: 4,
      script: flowScript(function* (): Flow {
        const ctx = yield turn("Listing them.", bash(`node "${helper}" skill-find`, "List the skills"));
        found = ok(ctx.results[0]);
        check(Array.isArray(found.skills), JSON.stringify(found).slice(0, 500));
        yield turn("Listed.");
      }),
    });
    assertClean(s);
    const offered = offeredSkills(s.main[0].body);
    const c = compare(t, "--plugin-dir", offered, found, builtins);
    // This plugin is there, and replaces the installed plugin of the same name (morphiax/claude-do's "do").
    for (const n of ["do:design", "do:execute", "do:improve", "do:recon", "do:reflect", "do:plan-status"]) assert.ok(c.find.includes(n), n);
    assert.ok(!c.cli.includes("do:work") && !c.find.includes("do:work"));
    // The cases of the issue, as both name them.
    for (const n of ["greet", "ideas", "linked", "borrowed", "app-local", "release-notes", "ops:deploy", "plain", "user-notes", "standup"]) assert.ok(c.find.includes(n), n);
    for (const n of ["above-root", "manual-only", "theme-factory", "example-skills:claude-api", "claude-api:mcp-builder"]) assert.ok(!c.cli.includes(n), n);
    assert.deepEqual(c.hidden.sort(), ["accessibility-compliance:accessibility-audit", "debugging-toolkit:smart-debug", "manual-only", "skill-improver:skill-improver"]);
    const by = new Map<string, any>(found.skills.map((x: any) => [x.qualifiedName, x]));
    assert.equal(by.get("borrowed").unread, "its real path leaves the project");
    // Found through the link (where Claude Code finds it), with the file it resolves to; both above the session's
    // folder, so absolute.
    assert.equal(by.get("linked").path, join(realpathSync(proj.root), ".claude/skills/linked/SKILL.md"));
    assert.equal(by.get("linked").realPath, realpathSync(join(proj.root, "vendor/skills/linked-real/SKILL.md")));
    assert.equal(by.get("greet").path, join(realpathSync(proj.root), ".claude/skills/greet/SKILL.md"));
    assert.equal(by.get("app-local").path, ".claude/skills/app-local/SKILL.md");
    assert.equal(by.get("app-local").inProject, true);
    // 2.1.332 shows a frontmatter name unlike the folder's beside it; 2.1.197 does not.
    const ideas = offered.find((o) => o.name === "ideas");
    t.diagnostic(`Claude Code ${CLAUDE_CODE_VERSION} lists ideas as ${JSON.stringify(ideas)}; skill-find's displayName ${by.get("ideas").displayName}`);
    if (ideas?.display) assert.equal(ideas.display, by.get("ideas").displayName);
  });

  it("without it: skill-find outside any plugin lists what the CLI with the installs offers, each name qualified once", { timeout: TIMEOUT }, async (t) => {
    const s = await session({ prompt: "hi", cwd: proj.cwd, home, pluginDir: null, script: [{ text: "ok" }] });
    assertClean(s);
    const offered = offeredSkills(s.main[0].body);
    // dist/ copied where no .claude-plugin/plugin.json is above it: skill-find without a plugin of its own.
    const bare = mkdtempSync(join(tmpdir(), "do-e2e-bare-"));
    try {
      cpSync(join(ROOT, "dist"), join(bare, "dist"), { recursive: true });
      const r = spawnSync(process.execPath, [join(bare, "dist", "plan.js"), "skill-find"], {
        cwd: proj.cwd, encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
      });
      assert.equal(r.status, 0, r.stderr);
      const found = JSON.parse(r.stdout);
      const c = compare(t, "installs only", offered, found, builtins);
      assert.ok(c.find.includes("do:work") && c.find.includes("do:release"), "morphiax/claude-do's skill and command");
      assert.ok(!c.find.some((n) => n.startsWith("do:do:")));
      const expected = JSON.parse(readFileSync(join(FIXTURE, "expected.json"), "utf8"));
      assert.deepEqual(c.hidden, expected.hidden);
      if (expected.releases[CLAUDE_CODE_VERSION]) assert.deepEqual(c.cli, expected.releases[CLAUDE_CODE_VERSION], "the recorded list (expected.json) is this release's");
      else t.diagnostic(`Claude Code ${CLAUDE_CODE_VERSION} is not recorded in expected.json: ${JSON.stringify(c.cli)}`);
      // This checkout's own dist/plan.js, started from a shell (not through a skill of a session that loaded it): the
      // installed plugin named do (morphiax/claude-do) is what the session offers, and skill-find says the same.
      const own = spawnSync(process.execPath, [join(ROOT, "dist", "plan.js"), "skill-find"], {
        cwd: proj.cwd, encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
      });
      assert.equal(own.status, 0, own.stderr);
      const checkout = compare(t, "a do checkout's helper", offered, JSON.parse(own.stdout), builtins);
      assert.ok(checkout.find.includes("do:work") && !checkout.find.includes("do:design"), "the installed do, not the checkout");
      const work = JSON.parse(spawnSync(process.execPath, [join(ROOT, "dist", "plan.js"), "skill-find", "/do:work"], { cwd: proj.cwd, encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home } }).stdout);
      assert.deepEqual([work.match, work.skill?.qualifiedName], ["exact", "do:work"], "the name as the user types it, slash and all");
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
