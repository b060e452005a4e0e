// skill-find on the HOME Claude Code 2.1.332 wrote when the fixture collections were installed
// (test/fixtures/skill-list/home: installed_plugins.json, known_marketplaces.json and the plugin cache, paths made
// placeholders) and the project of helpers/skill-project.ts, without the CLI: the skills it offers must be the list
// the CLI sent the model there (test/fixtures/skill-list/expected.json, recorded on 2.1.332 and 2.1.197 and checked
// against the live CLI by test/e2e/skill-list.test.ts). Then resolution as the lead would call it, and the reads.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeContext } from "../../src/lib/command/command.ts";
import { indexSkills, ownPluginRoot, resolveSkill, SHADOWED, startedBySession, type SkillInfo } from "../../src/lib/skills/skill-index.ts";
import { invoke } from "../../src/main.ts";
import { FIXTURE, installSnapshot, MARKETPLACES, marketplaceNames, skillProject, type SkillProject } from "../helpers/skill-project.ts";

const expected = JSON.parse(readFileSync(join(FIXTURE, "expected.json"), "utf8"));
const NEWEST = Object.keys(expected.releases)[0];

let parent: string;
let home: string;
let config: string;
let proj: SkillProject;
const saved = { HOME: process.env.HOME, CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR };

before(() => {
  parent = realpathSync(mkdtempSync(join(tmpdir(), "do-skill-list-")));
  home = join(parent, "home");
  config = join(home, ".claude");
  mkdirSync(config, { recursive: true });
  proj = skillProject(parent, home, (dir) => mkdirSync(join(dir, ".git")));
  installSnapshot(config);
  process.env.HOME = home;
  delete process.env.CLAUDE_CONFIG_DIR;
});
after(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(parent, { recursive: true, force: true });
});

const find = async (...argv: string[]) => (await invoke("skill-find", argv, makeContext(proj.cwd))).output as Record<string, any>;
const offered = (skills: SkillInfo[]) => skills.filter((s) => !s.hidden).map((s) => s.qualifiedName).sort();
const hidden = (skills: SkillInfo[]) => skills.filter((s) => s.hidden).map((s) => s.qualifiedName).sort();

describe("skill-find on the HOME Claude Code wrote", () => {
  it("offers exactly what the CLI offered there, and hides what it did not offer", () => {
    const index = indexSkills(proj.cwd, process.env, null);
    assert.deepEqual(index.problems, []);
    assert.deepEqual(offered(index.skills), expected.releases[NEWEST]);
    for (const release of Object.keys(expected.releases)) assert.deepEqual(expected.releases[release], expected.releases[NEWEST], `${release} offered the same`);
    assert.deepEqual(hidden(index.skills), expected.hidden);
  });

  it("reads a local-directory marketplace's plugins from that directory, as the CLI does", () => {
    const by = new Map(indexSkills(proj.cwd, process.env, null).skills.map((s) => [s.qualifiedName, s]));
    assert.equal(by.get("superpowers:brainstorming")?.path, join(MARKETPLACES, "superpowers-dev/skills/brainstorming/SKILL.md"));
    assert.equal(by.get("example-skills:mcp-builder")?.path, join(MARKETPLACES, "agent-skills-sample/skills/mcp-builder/SKILL.md"));
    assert.equal(by.get("superpowers:brainstorming")?.source, "installed");
    assert.equal(by.get("superpowers:brainstorm")?.kind, "command");
    assert.equal(by.get("superpowers:brainstorm")?.description, "Deprecated - use the superpowers:brainstorming skill instead");
  });

  it("honours a strict: false entry's skills list: anthropics/skills' folder is not read whole, each plugin gets its own", () => {
    const names = indexSkills(proj.cwd, process.env, null).skills.map((s) => s.qualifiedName);
    assert.deepEqual(names.filter((n) => n.startsWith("example-skills:")).sort(), ["example-skills:mcp-builder", "example-skills:skill-creator"]);
    assert.deepEqual(names.filter((n) => n.startsWith("claude-api:")), ["claude-api:claude-api"]);
    assert.ok(!names.some((n) => n.endsWith(":theme-factory")), "a skill no entry lists is not loaded");
  });

  it("reads plugins from the cache when the marketplace is not a local directory (as for a GitHub marketplace)", () => {
    const alt = join(parent, "github-home");
    const altConfig = join(alt, ".claude");
    cpSync(config, altConfig, { recursive: true });
    const known: Record<string, unknown> = {};
    for (const m of marketplaceNames()) {
      const name = JSON.parse(readFileSync(join(MARKETPLACES, m, ".claude-plugin/marketplace.json"), "utf8")).name;
      const location = join(altConfig, "plugins/marketplaces", name);
      mkdirSync(join(location, ".claude-plugin"), { recursive: true });
      cpSync(join(MARKETPLACES, m, ".claude-plugin/marketplace.json"), join(location, ".claude-plugin/marketplace.json"));
      known[name] = { source: { source: "github", repo: `example/${name}` }, installLocation: location };
    }
    writeFileSync(join(altConfig, "plugins/known_marketplaces.json"), JSON.stringify(known, null, 2));
    writeFileSync(join(altConfig, "plugins/installed_plugins.json"), readFileSync(join(config, "plugins/installed_plugins.json"), "utf8").replaceAll(config, altConfig));
    const index = indexSkills(proj.cwd, { CLAUDE_CONFIG_DIR: altConfig }, null);
    assert.deepEqual(index.problems, []);
    // The user's skill and command live in the other config folder: everything else is the same list.
    const same = (l: string[]) => l.filter((n) => n !== "user-notes" && n !== "standup");
    assert.deepEqual(same(offered(index.skills)), same(expected.releases[NEWEST]));
    const work = index.skills.find((s) => s.qualifiedName === "do:work");
    assert.equal(work?.path, join(altConfig, "plugins/cache/do/do/8.9.0/skills/work/SKILL.md"));
    rmSync(alt, { recursive: true, force: true });
  });

  it("names a plugin's skill by its folder and qualifies a frontmatter name once (morphiax/claude-do: `name: do:work`)", async () => {
    const all = indexSkills(proj.cwd, process.env, null).skills;
    const work = all.find((s) => s.qualifiedName === "do:work");
    assert.deepEqual([work?.name, work?.displayName, work?.plugin], ["work", undefined, "do"]);
    assert.ok(!all.some((s) => s.qualifiedName.startsWith("do:do:") || s.displayName?.startsWith("do:do:")));
  });

  it("replaces an installed plugin named like this one (do) with this one, as a --plugin-dir session does", () => {
    const names = indexSkills(proj.cwd, process.env, ownPluginRoot()).skills.map((s) => s.qualifiedName);
    assert.ok(names.includes("do:design") && names.includes("do:plan-status"));
    assert.ok(!names.includes("do:work") && !names.includes("do:release"));
  });

  it("keeps the installed do when the helper runs from a do checkout no session loaded, and finds do:work as typed", async () => {
    const root = ownPluginRoot()!;
    const names = (skills: SkillInfo[]) => skills.filter((s) => !s.hidden).map((s) => s.qualifiedName).sort();
    assert.deepEqual(names(indexSkills(proj.cwd, process.env, root, undefined, false).skills), expected.releases[NEWEST]);
    // How skill-find tells: a session runs this plugin's helper through a skill's scripts link, a shell its dist/plan.js.
    const via = async (entry: string, ...argv: string[]) => (await invoke("skill-find", argv, makeContext(proj.cwd, { entry }))).output as Record<string, any>;
    const fromShell = await via(join(root, "dist/plan.js"));
    assert.deepEqual(names(fromShell.skills), expected.releases[NEWEST]);
    assert.equal(fromShell.offered, expected.releases[NEWEST].length, "the offered count is the CLI's");
    const fromSkill = await via(join(root, "skills/improve/scripts/plan.js"));
    assert.ok(names(fromSkill.skills).includes("do:design") && !names(fromSkill.skills).includes("do:work"));
    for (const q of ["do:work", "/do:work", "DO:WORK"]) {
      const r = await via(join(root, "dist/plan.js"), q);
      assert.deepEqual([r.match, r.skill?.qualifiedName], ["exact", "do:work"], q);
    }
    assert.equal(startedBySession(join(root, "skills/improve/scripts/plan.js"), root), true);
    for (const entry of [join(root, "dist/plan.js"), "/elsewhere/skills/improve/scripts/plan.js", join(root, "skills/improve/plan.js")]) assert.equal(startedBySession(entry, root), false, entry);
  });

  it("lists a plugin's command and skill of one name once, as the command (trailofbits/skills' skill-improver)", async () => {
    const index = indexSkills(proj.cwd, process.env, null);
    const improver = index.skills.filter((s) => s.qualifiedName === "skill-improver:skill-improver");
    assert.deepEqual(improver.map((s) => [s.kind, s.hidden ?? null]), [["command", null], ["skill", SHADOWED]]);
    assert.match(improver[0].description, /^Iteratively reviews and fixes a Claude Code skill until it meets quality standards\./);
    const r = await find("skill-improver:skill-improver");
    assert.deepEqual([r.match, r.skill?.kind], ["exact", "command"], "one candidate, not two");
    const bare = await find("skill-improver");
    assert.deepEqual([bare.match, bare.skill?.kind], ["exact", "command"], "the name within its plugin: the command, not also the skill");
    const partial = await find("improver");
    assert.deepEqual([partial.match, partial.candidates?.map((c: SkillInfo) => c.qualifiedName)], ["ambiguous", ["skill-improver:cancel-skill-improver", "skill-improver:skill-improver"]]);
    const all = await find();
    const shown = all.skills.filter((s: SkillInfo) => !s.hidden).map((s: SkillInfo) => s.qualifiedName);
    assert.equal(all.offered, new Set(shown).size, "each offered name counted once");
    assert.equal(shown.filter((n: string) => n === "skill-improver:skill-improver").length, 1);
    const search = await find("--search", "improve skill quality");
    assert.equal(search.skills.filter((s: any) => s.qualifiedName === "skill-improver:skill-improver").length, 1);
    // The skill file is still reachable by its path.
    const byPath = await find(improver[1].path);
    assert.deepEqual([byPath.match, byPath.skill?.kind], ["exact", "skill"]);
  });
});

describe("skill-find from a subfolder of the project", () => {
  it("finds the parent project's skills and commands up to the git root, not above it", async () => {
    const out = await find();
    const by = new Map((out.skills as SkillInfo[]).map((s) => [s.qualifiedName, s]));
    assert.equal(by.get("app-local")?.path, ".claude/skills/app-local/SKILL.md");
    assert.equal(by.get("app-local")?.inProject, true);
    assert.equal(by.get("greet")?.path, join(proj.root, ".claude/skills/greet/SKILL.md"));
    assert.equal(by.get("greet")?.inProject, false, "above the working folder");
    assert.equal(by.get("greet")?.description, "Use when the user wants a greeting.");
    assert.equal(by.get("ops:deploy")?.kind, "command");
    assert.equal(by.get("plain")?.description, "Summarise the open issues.", "a command without frontmatter: its first line");
    assert.equal(by.has("above-root"), false);
    assert.ok((out.roots as any[]).some((r) => r.source === "project" && r.path === join(proj.root, ".claude/skills") && r.exists));
  });

  it("resolves the parent's skill by name instead of another one containing it", async () => {
    const out = await find("greet");
    assert.deepEqual([out.match, out.skill.qualifiedName, out.skill.source], ["exact", "greet", "project"]);
  });

  it("resolves by folder name and by frontmatter name, and asks when a frontmatter name is also another skill's name", async () => {
    const byFolder = await find("ideas");
    assert.deepEqual([byFolder.match, byFolder.skill.displayName], ["exact", "brainstorming"]);
    const both = await find("brainstorming");
    assert.equal(both.match, "ambiguous");
    assert.deepEqual(both.candidates.map((c: SkillInfo) => c.qualifiedName).sort(), ["ideas", "superpowers:brainstorming"]);
    const qualified = await find("superpowers:brainstorming");
    assert.deepEqual([qualified.match, qualified.skill.kind], ["exact", "skill"]);
    const command = await find("brainstorm");
    assert.deepEqual([command.match, command.skill.qualifiedName, command.skill.kind], ["exact", "superpowers:brainstorm", "command"]);
    // Without this plugin (named do too), morphiax/claude-do's skill by its folder name.
    const work = resolveSkill("work", indexSkills(proj.cwd, process.env, null).skills, { cwd: proj.cwd, home });
    assert.deepEqual([work.match, work.match === "exact" && work.skill.qualifiedName], ["exact", "do:work"]);
  });

  it("finds nothing where the CLI loads nothing, and says so with every skill there is", async () => {
    for (const q of ["theme-factory", "above-root", "example-skills:claude-api"]) {
      const out = await find(q);
      assert.equal(out.match, "none", q);
      assert.equal(out.resolved, false, q);
      assert.equal(out.count, (out.skills as unknown[]).length);
    }
  });

  it("resolves paths: ~, through a linked skill folder, to the linked-to file, relative to the working folder", async () => {
    for (const q of ["~/.claude/skills/user-notes/SKILL.md", "~/.claude/skills/user-notes", "~/.claude/commands/standup.md"]) {
      const out = await find(q);
      assert.equal(out.match, "exact", q);
      assert.equal(out.skill.source, "user", q);
    }
    for (const q of [join(proj.root, ".claude/skills/linked/SKILL.md"), "../.claude/skills/linked", join(proj.root, "vendor/skills/linked-real/SKILL.md"), "../vendor/skills/linked-real"]) {
      const out = await find(q);
      assert.deepEqual([out.match, out.skill?.qualifiedName], ["exact", "linked"], q);
    }
    const linked = (await find("linked")).skill as SkillInfo;
    assert.deepEqual([linked.path, linked.realPath], [join(proj.root, ".claude/skills/linked/SKILL.md"), join(proj.root, "vendor/skills/linked-real/SKILL.md")]);
    assert.equal(linked.description, "Use when reached through a linked folder");
  });

  it("lists a project skill whose SKILL.md links out of the project by name, never reading it", async () => {
    const secret = "Use when SECRET-FROM-OUTSIDE";
    writeFileSync(proj.outsideFile, `---\nname: shared-skill\ndescription: ${secret}\n---\n`);
    try {
      const out = await find("borrowed");
      assert.deepEqual([out.match, out.skill.description, out.skill.unread, out.skill.realPath], ["exact", "", "its real path leaves the project", proj.outsideFile]);
      const all = JSON.stringify(await find());
      assert.ok(!all.includes("SECRET-FROM-OUTSIDE"));
      // The same file is read when it is the user's own skill (the user's folder is not the project).
      const user = join(home, ".claude/skills/shared");
      symlinkSync(join(proj.outsideFile, ".."), user);
      const mine = await find("shared");
      assert.equal(mine.skill.description, secret);
      rmSync(user);
    } finally {
      writeFileSync(proj.outsideFile, "---\nname: shared-skill\ndescription: Use when a skill lives outside the project\n---\n");
    }
  });

  it("keeps what the CLI does not offer the model, hidden, so the user can still name it", async () => {
    const manual = await find("manual-only");
    assert.deepEqual([manual.match, manual.skill.hidden], ["exact", "disable-model-invocation: true"]);
    const smart = await find("debugging-toolkit:smart-debug");
    assert.match(smart.skill.hidden, /without a description/);
    const out = await find();
    assert.equal(out.offered, out.count - expected.hidden.length);
  });

  it("resolves a SKILL.md inside the working folder that Claude Code does not load, by its path only", async () => {
    mkdirSync(join(proj.cwd, "skills/draft"), { recursive: true });
    writeFileSync(join(proj.cwd, "skills/draft/SKILL.md"), "---\nname: draft\ndescription: Use when drafting\n---\n");
    try {
      const out = await find("skills/draft/SKILL.md");
      assert.deepEqual([out.match, out.skill.path, out.skill.inProject, out.skill.description], ["exact", "skills/draft/SKILL.md", true, "Use when drafting"]);
      assert.match(out.skill.hidden, /not a folder Claude Code loads/);
      assert.equal((await find("draft")).match, "none", "not by name: the CLI does not list it");
      assert.equal((await find(join(proj.root, "vendor/README.md"))).match, "none", "a path to something else");
    } finally {
      rmSync(join(proj.cwd, "skills"), { recursive: true, force: true });
    }
  });
});
