import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { project, writeFiles } from "../helpers/design-dir.ts";
import { parseFrontmatter, resolveSkill, type SkillInfo } from "../../src/lib/skill-index.ts";

const skill = (name: string, description = `Use when ${name}`) => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;

// A scratch Claude config folder laid out the way Claude Code 2.1.330 leaves it after `plugin marketplace add`,
// `plugin install toy@scratch` (user scope), `plugin install toy2@scratch --scope project` in another project and
// `plugin init mine` (a skills-dir plugin).
let config: string;
let saved: string | undefined;
before(() => {
  config = mkdtempSync(join(tmpdir(), "do-skill-config-"));
  saved = process.env.CLAUDE_CONFIG_DIR;
  process.env.CLAUDE_CONFIG_DIR = config;
});
after(() => {
  if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
  else process.env.CLAUDE_CONFIG_DIR = saved;
  rmSync(config, { recursive: true, force: true });
});

function installs(projectPath: string): void {
  const cache = join(config, "plugins", "cache", "scratch");
  writeFiles(config, {
    "skills/mine/.claude-plugin/plugin.json": { name: "mine", version: "0.1.0", skills: ["./"] },
    "skills/mine/SKILL.md": "---\nname: mine\ndescription: Use when mine, a folded\n  description over\n  three lines\n---\n# mine\n",
    "skills/review-notes/SKILL.md": skill("review-notes"),
    "plugins/cache/scratch/toy/0.1.0/.claude-plugin/plugin.json": { name: "toy", version: "0.1.0" },
    "plugins/cache/scratch/toy/0.1.0/skills/toy-skill/SKILL.md": skill("toy-skill"),
    "plugins/cache/scratch/toy/0.1.0/skills/code-review/SKILL.md": skill("code-review"),
    "plugins/cache/scratch/toy2/1.2.0/.claude-plugin/plugin.json": { name: "toy2", version: "1.2.0", skills: "./extra" },
    "plugins/cache/scratch/toy2/1.2.0/extra/deep-skill/SKILL.md": skill("deep-skill"),
    "plugins/cache/scratch/here/1.0.0/skills/here-skill/SKILL.md": skill("here-skill"),
    "plugins/installed_plugins.json": {
      version: 2,
      plugins: {
        "toy@scratch": [{ scope: "user", installPath: join(cache, "toy", "0.1.0"), version: "0.1.0" }],
        "toy2@scratch": [{ scope: "project", installPath: join(cache, "toy2", "1.2.0"), version: "1.2.0", projectPath: "/somewhere/else" }],
        "here@scratch": [{ scope: "local", installPath: join(cache, "here", "1.0.0"), version: "1.0.0", projectPath }],
        "evil@scratch": [{ scope: "user", installPath: tmpdir(), version: "1" }],
      },
    },
  });
}

function setup(t: any) {
  const p = project(t, {
    ".claude/skills/deploy/SKILL.md": skill("deploy", '"Use when shipping: build, tag, push"'),
    "skills/lint-fix/SKILL.md": skill("lint-fix"),
  });
  installs(p.dir);
  return p;
}

describe("skill-find", () => {
  it("lists the project's, the user's, this plugin's and installed plugins' skills", async (t) => {
    const out = await setup(t).run("skill-find");
    assert.equal(out.ok, true);
    const by = new Map((out.skills as SkillInfo[]).map((s) => [s.qualifiedName, s]));
    assert.equal(by.get("deploy")?.source, "project");
    assert.equal(by.get("deploy")?.path, ".claude/skills/deploy/SKILL.md");
    assert.equal(by.get("deploy")?.inProject, true);
    assert.equal(by.get("deploy")?.description, "Use when shipping: build, tag, push");
    assert.equal(by.get("lint-fix")?.source, "project");
    assert.equal(by.get("mine")?.source, "user");
    assert.equal(by.get("mine")?.description, "Use when mine, a folded description over three lines");
    assert.equal(by.get("mine")?.inProject, false);
    assert.equal(by.get("review-notes")?.source, "user");
    for (const s of ["design", "execute", "recon", "improve", "reflect"]) assert.equal(by.get(`do:${s}`)?.source, "plugin", s);
    assert.equal(by.get("toy:toy-skill")?.source, "installed");
    assert.equal(by.get("toy:code-review")?.plugin, "toy");
    assert.equal(by.get("here:here-skill")?.source, "installed", "a local install made in this project counts");
    assert.equal(by.has("toy2:deep-skill"), false, "a project install made elsewhere does not count");
    assert.equal(out.count, (out.skills as unknown[]).length);
    assert.ok((out.problems as string[]).some((p) => p.startsWith("evil@scratch")), "an install path outside the config folder is skipped");
    assert.ok((out.roots as any[]).some((r) => r.source === "user" && r.exists));
  });

  it("follows a plugin's own skills paths", async (t) => {
    const p = setup(t);
    writeFiles(config, {
      "plugins/installed_plugins.json": {
        version: 2,
        plugins: { "toy2@scratch": [{ scope: "project", installPath: join(config, "plugins/cache/scratch/toy2/1.2.0"), projectPath: p.dir }] },
      },
    });
    const out = await p.run("skill-find", ["deep"]);
    assert.equal(out.match, "partial");
    assert.equal((out.skill as SkillInfo).qualifiedName, "toy2:deep-skill");
    installs(p.dir);
  });

  it("resolves an exact name, a qualified name and a unique part of a name [feature:improve/resolve-target]", async (t) => {
    const p = setup(t);
    const exact = await p.run("skill-find", ["deploy"]);
    assert.deepEqual([exact.match, exact.resolved, (exact.skill as SkillInfo).path], ["exact", true, ".claude/skills/deploy/SKILL.md"]);
    const qualified = await p.run("skill-find", ["do:recon"]);
    assert.equal(qualified.match, "exact");
    assert.equal((qualified.skill as SkillInfo).source, "plugin");
    const partial = await p.run("skill-find", ["LINT"]);
    assert.deepEqual([partial.match, (partial.skill as SkillInfo).name], ["partial", "lint-fix"]);
  });

  it("names a resolved skill's feature file beside its SKILL.md, inside or outside the project, and null without one [feature:improve/declared-features]", async (t) => {
    const p = setup(t);
    writeFiles(p.dir, { ".claude/skills/deploy/skill.json": { goal: "g", acceptance_criteria: ["c"], features: [] } });
    writeFiles(config, { "skills/review-notes/skill.json": "{}" });
    assert.equal(((await p.run("skill-find", ["deploy"])).skill as SkillInfo).features, ".claude/skills/deploy/skill.json");
    assert.equal(((await p.run("skill-find", ["review-notes"])).skill as SkillInfo).features, join(realpathSync(config), "skills/review-notes/skill.json"));
    assert.equal(((await p.run("skill-find", ["lint-fix"])).skill as SkillInfo).features, null);
    // Only a regular file counts; this plugin's own skills declare theirs.
    writeFiles(p.dir, { "skills/lint-fix/skill.json/x": "" });
    assert.equal(((await p.run("skill-find", ["lint-fix"])).skill as SkillInfo).features, null);
    const own = (await p.run("skill-find", ["do:execute"])).skill as SkillInfo;
    assert.equal(own.features, join(dirname(own.path), "skill.json"));
    // A listing and the candidates of an ambiguous name stay as they were: no feature file lookups.
    const listed = (await p.run("skill-find")).skills as SkillInfo[];
    assert.ok(listed.every((x) => !("features" in x)));
  });

  it("answers an ambiguous name with the candidates and advice to ask [feature:improve/resolve-target]", async (t) => {
    const out = await setup(t).run("skill-find", ["review"]);
    assert.equal(out.ok, true);
    assert.equal(out.match, "ambiguous");
    assert.equal(out.resolved, false);
    assert.deepEqual((out.candidates as SkillInfo[]).map((c) => c.qualifiedName).sort(), ["review-notes", "toy:code-review"]);
    assert.match(out.advice as string, /Ask the user/);
  });

  it("answers an unknown name with every skill there is", async (t) => {
    const out = await setup(t).run("skill-find", ["nothing-like-this"]);
    assert.equal(out.match, "none");
    assert.equal(out.resolved, false);
    assert.ok((out.skills as SkillInfo[]).some((s) => s.name === "deploy"));
    assert.equal(out.count, (out.skills as unknown[]).length);
  });

  it("resolves a path to a SKILL.md or its folder", async (t) => {
    const p = setup(t);
    for (const q of ["skills/lint-fix/SKILL.md", "./skills/lint-fix", "skills/lint-fix/"]) {
      const out = await p.run("skill-find", [q]);
      assert.equal(out.match, "exact", q);
      assert.equal((out.skill as SkillInfo).name, "lint-fix", q);
    }
  });

  it("filters by source and refuses an unknown one", async (t) => {
    const p = setup(t);
    const out = await p.run("skill-find", ["--source", "project"]);
    assert.deepEqual((out.skills as SkillInfo[]).map((s) => s.name).sort(), ["deploy", "lint-fix"]);
    const bad = await p.run("skill-find", ["--source", "everywhere"]);
    assert.equal(bad.ok, false);
    assert.equal(bad.code, "E_USAGE");
  });

  it("works with no config folder at all", async (t) => {
    const p = project(t, { ".claude/skills/solo/SKILL.md": skill("solo") });
    process.env.CLAUDE_CONFIG_DIR = join(p.dir, "no-such-config");
    t.after(() => (process.env.CLAUDE_CONFIG_DIR = config));
    const out = await p.run("skill-find", ["solo"]);
    assert.equal(out.match, "exact");
    assert.deepEqual(out.problems, []);
  });
});

describe("skill resolution rules", () => {
  const s = (name: string, plugin: string | null = null): SkillInfo => ({
    name, qualifiedName: plugin ? `${plugin}:${name}` : name, source: plugin ? "installed" : "project", plugin,
    path: `x/${name}/SKILL.md`, inProject: true, description: "",
  } as unknown as SkillInfo);

  it("treats two exact matches as ambiguous, and an exact match beats partial ones", () => {
    assert.equal(resolveSkill("design", [s("design"), s("design", "do")]).match, "ambiguous");
    const r = resolveSkill("design", [s("design"), s("design-review")]);
    assert.equal(r.match, "exact");
  });

  it("finds nothing for an empty query", () => {
    assert.equal(resolveSkill("  ", [s("a")]).match, "none");
  });

  it("reads name and description from frontmatter only", () => {
    assert.deepEqual(parseFrontmatter("---\nname: 'it''s'\ndescription: >\n  folded\n  text\nother: x\n---\nname: body\n"), { name: "it's", description: "folded text" });
    assert.deepEqual(parseFrontmatter("# no frontmatter\nname: x\n"), {});
    assert.deepEqual(parseFrontmatter("---\nname: open\n"), {});
  });

  it("searches names and descriptions with a score and a limit (seed 002's skill search) [feature:improve/resolve-target]", async (t) => {
    const p = project(t, {
      ".claude/skills/deploy/SKILL.md": skill("deploy", "Use when shipping a release: build, tag and push the image"),
      ".claude/skills/release-notes/SKILL.md": skill("release-notes", "Use when writing the changelog for a release"),
      ".claude/skills/tidy/SKILL.md": skill("tidy", "Use when the code needs formatting"),
    });
    const out: any = await p.run("skill-find", ["--search", "release image", "--source", "project"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    // deploy: "release" and "image" in its description (0.5 each); release-notes: "release" in its name (1).
    assert.deepEqual(out.skills.map((s: any) => [s.name, s.score]), [["deploy", 0.5], ["release-notes", 0.5]]);
    assert.equal(out.count, 2);
    assert.deepEqual(Object.keys(out.skills[0]).sort(), ["description", "name", "path", "qualifiedName", "score", "source"]);
    const named: any = await p.run("skill-find", ["--search", "release", "--source", "project"]);
    assert.deepEqual(named.skills.map((s: any) => [s.name, s.score]), [["release-notes", 1], ["deploy", 0.5]], "a name match outranks a description match");
    const exact: any = await p.run("skill-find", ["--search", "tidy", "--source", "project"]);
    assert.deepEqual(exact.skills.map((s: any) => [s.name, s.score]), [["tidy", 1]]);
    const capped: any = await p.run("skill-find", ["--search", "use when", "--source", "project", "--limit", "1"]);
    assert.deepEqual([capped.skills.length, capped.count], [1, 3]);
    assert.deepEqual((await p.run("skill-find", ["--search", "zzz", "--source", "project"])).skills, []);
    assert.equal((await p.run("skill-find", ["deploy", "--search", "x"])).code, "E_USAGE");
    assert.equal((await p.run("skill-find", ["--search", "x", "--limit", "0"])).code, "E_USAGE");
  });

  it("answers a name that matches none with suggestions ranked by name and description [feature:improve/resolve-target]", async (t) => {
    const p = project(t, { ".claude/skills/deploy/SKILL.md": skill("deploy", "Use when shipping a release") });
    const out: any = await p.run("skill-find", ["shipping", "--source", "project"]);
    assert.equal(out.match, "none");
    assert.deepEqual(out.suggestions.map((s: any) => [s.name, s.score]), [["deploy", 0.5]]);
    assert.match(out.advice, /suggestions/);
  });
});
