import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { project, writeFiles } from "../helpers/design-dir.ts";
import { readFrontmatter } from "../../src/lib/skills/frontmatter.ts";
import { indexSkills, resolveSkill, type SkillInfo } from "../../src/lib/skills/skill-index.ts";

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
    ".claude/commands/lint-all.md": "---\ndescription: Lint every package\n---\nLint.\n",
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
    assert.equal(by.has("lint-fix"), false, "a project's skills/ folder is not one Claude Code loads skills from");
    assert.deepEqual([by.get("lint-all")?.source, by.get("lint-all")?.kind, by.get("lint-all")?.description], ["project", "command", "Lint every package"]);
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
    assert.deepEqual([partial.match, (partial.skill as SkillInfo).name], ["partial", "lint-all"]);
  });

  it("names a resolved skill's feature file beside its SKILL.md, inside or outside the project, and null without one [feature:improve/declared-features]", async (t) => {
    const p = setup(t);
    writeFiles(p.dir, { ".claude/skills/deploy/skill.json": { goal: "g", acceptance_criteria: ["c"], features: [] } });
    writeFiles(config, { "skills/review-notes/skill.json": "{}" });
    assert.equal(((await p.run("skill-find", ["deploy"])).skill as SkillInfo).features, ".claude/skills/deploy/skill.json");
    assert.equal(((await p.run("skill-find", ["review-notes"])).skill as SkillInfo).features, join(realpathSync(config), "skills/review-notes/skill.json"));
    writeFiles(p.dir, { ".claude/skills/no-features/SKILL.md": "---\nname: no-features\ndescription: Use when testing\n---\nBody\n" });
    assert.equal(((await p.run("skill-find", ["no-features"])).skill as SkillInfo).features, null);
    // Only a regular file counts; this plugin's own skills declare theirs.
    writeFiles(p.dir, { ".claude/skills/no-features/skill.json/x": "" });
    assert.equal(((await p.run("skill-find", ["no-features"])).skill as SkillInfo).features, null);
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

  it("resolves a path to a SKILL.md or its folder, also one Claude Code does not load", async (t) => {
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
    assert.deepEqual((out.skills as SkillInfo[]).map((s) => s.name).sort(), ["deploy", "lint-all"]);
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

  it("prefers the name Claude Code lists, then a name within a plugin; two at the same step are ambiguous", () => {
    const listed = resolveSkill("design", [s("design"), s("design", "do")]);
    assert.deepEqual([listed.match, listed.match === "exact" && listed.skill.qualifiedName], ["exact", "design"]);
    assert.equal(resolveSkill("design", [s("design", "a"), s("design", "do")]).match, "ambiguous");
    assert.equal(resolveSkill("design", [s("design"), s("design")]).match, "ambiguous");
    const r = resolveSkill("design", [s("design"), s("design-review")]);
    assert.equal(r.match, "exact");
  });

  it("finds nothing for an empty query", () => {
    assert.equal(resolveSkill("  ", [s("a")]).match, "none");
  });

  // Each case as Claude Code 2.1.197 and 2.1.332 listed it when it was a project skill (the value skill-find shows).
  const cases: Array<[string, string, Record<string, unknown> | null]> = [
    ["a colon in a plain value", "---\nname: c\ndescription: Use when shipping: build, tag, push\n---\n", { name: "c", description: "Use when shipping: build, tag, push" }],
    ["an anchor and an alias", "---\nx: &d Use when anchored\ndescription: *d\n---\n", { x: "Use when anchored", description: "Use when anchored" }],
    ["comments", "---\nname: c # the name\ndescription: Use when commented # trailing\n---\n", { name: "c", description: "Use when commented" }],
    ["an indentation indicator", "---\ndescription: |2-\n    Use when indented\n    two lines\n---\n", { description: "  Use when indented\n  two lines" }],
    ["a flow mapping", "---\n{name: flowy, description: Use when flow}\n---\n", { name: "flowy", description: "Use when flow" }],
    ["a folded block", "---\ndescription: >-\n  Use when folded\n\n  second para\n---\n", { description: "Use when folded\nsecond para" }],
    ["a quoted name", "---\nname: 'it''s'\n---\n", { name: "it's" }],
    ["a repeated key (the last wins)", "---\ndescription: first\ndescription: second\n---\n", { description: "second" }],
    ["an unclosed flow sequence (read as text)", "---\ndescription: [unclosed\n---\n", { description: "[unclosed" }],
    ["CRLF line ends", "---\r\nname: crlf\r\n---\r\nbody\r\n", { name: "crlf" }],
    ["a byte-order mark", "\uFEFF---\nname: bom\n---\n", { name: "bom" }],
    ["no frontmatter", "# Title\nname: x\n", null],
    ["no closing line", "---\nname: open\n", null],
  ];
  for (const [what, text, data] of cases) {
    it(`reads frontmatter: ${what}`, () => assert.deepEqual(readFrontmatter(text).data, data));
  }

  it("never evaluates a ---js block (gray-matter would): it is no frontmatter, as for Claude Code", () => {
    const g = globalThis as { pwned?: number };
    const fm = readFrontmatter('---js\n{ name: (globalThis.pwned = 1, "x") }\n---\nFirst line.\n');
    assert.equal(fm.data, null);
    assert.equal(g.pwned, undefined);
  });
});

// Plugin layouts and descriptions as Claude Code 2.1.197 and 2.1.332 list them: each plugin below was installed from
// a local marketplace like this one into a scratch HOME, and `expected` is the list both releases sent the model
// (names and descriptions), `hiddenNames` what they loaded without offering it.
describe("plugin layouts, as Claude Code reads them", () => {
  const md = (fm: string, body = "body") => `---\n${fm}---\n${body}\n`;
  const lab = () => ({
    ".claude-plugin/marketplace.json": {
      name: "lab",
      owner: { name: "x" },
      plugins: [
        { name: "pj", source: "./pj" },
        { name: "pk", source: "./pk" },
        { name: "pm", source: "./pm", skills: ["./alt/m2"] },
        { name: "pn", source: "./pn", strict: false },
        { name: "pr", source: "./", strict: false, skills: ["./skills", "./extra/r2"] },
        { name: "pc", source: "./pc", strict: false, skills: ["./skills/c1"] },
        { name: "pz", source: "./pz" },
        { name: "pt", source: "./pt", skills: ["./../../outside", "./inside"] },
      ],
    },
    // plugin.json `skills` adds to skills/; `commands` replaces commands/.
    "pj/.claude-plugin/plugin.json": { name: "pj", version: "1.0.0", skills: ["./extra-skills"], commands: ["./more/cmd-a.md"] },
    "pj/skills/default-s/SKILL.md": md("name: default-s\ndescription: Use when default skills dir\n"),
    "pj/extra-skills/extra-s/SKILL.md": md("name: extra-s\ndescription: Use when extra skills dir\n"),
    "pj/commands/base-cmd.md": md("description: base command\n"),
    "pj/more/cmd-a.md": md("description: command a\n"),
    "pj/skills/nodesc/SKILL.md": md("name: nodesc\n", "Paragraph."),
    "pj/skills/hidden/SKILL.md": md("name: hidden\ndescription: hid\ndisable-model-invocation: true\n"),
    "pj/skills/folder-p/SKILL.md": md("name: other-name\ndescription: Use when folder differs\n"),
    "pj/skills/whentouse/SKILL.md": md("name: whentouse\nwhen_to_use: only when to use\n", "x"),
    // `skills: "./"`: the root's own SKILL.md is one skill, named by its frontmatter.
    "pk/.claude-plugin/plugin.json": { name: "pk", version: "1.0.0", skills: "./" },
    "pk/SKILL.md": md("name: pk-root\ndescription: Use when root skill\n"),
    "pk/skills/pk-inner/SKILL.md": md("name: pk-inner\ndescription: Use when pk inner\n"),
    "pk/commands/nested/deep.md": md("description: nested plugin command\n"),
    // A strict entry's skills add to plugin.json's.
    "pm/.claude-plugin/plugin.json": { name: "pm", version: "1.0.0" },
    "pm/skills/m1/SKILL.md": md("name: m1\ndescription: Use when m1\n"),
    "pm/alt/m2/SKILL.md": md("name: m2\ndescription: Use when m2\n"),
    // No plugin.json, strict: false, no lists: the default folders.
    "pn/skills/n1/SKILL.md": md("name: n1\ndescription: Use when n1\n"),
    "pn/commands/ncmd.md": md("description: n command\n"),
    // At the marketplace root, the entry's list is the plugin's skills (skills/ only because it is listed).
    "skills/r1/SKILL.md": md("name: r1\ndescription: Use when r1\n"),
    "extra/r2/SKILL.md": md("name: r2\ndescription: Use when r2\n"),
    // plugin.json and components in a strict: false entry: not loaded at all.
    "pc/.claude-plugin/plugin.json": { name: "pc", version: "1.0.0" },
    "pc/skills/c1/SKILL.md": md("name: c1\ndescription: Use when c1\n"),
    // Folder names become names with anything but [A-Za-z0-9_-] made "-".
    "pz/skills/dot.name/SKILL.md": md("name: dot.name\ndescription: Use when plugin dotted\n"),
    "pz/skills/Up Case/SKILL.md": md("description: Use when plugin upper\n"),
    // A listed path out of the plugin, and a skill folder linked out of it (pt/skills/linked, made below): neither
    // is read. 2.1.332 loads neither; 2.1.197 lists the linked one as pt:linked.
    "pt/inside/SKILL.md": md("name: inside\ndescription: Use when inside\n"),
    "pt/skills/.keep": "",
  });
  const expected = [
    ["pj:cmd-a", "command a"], ["pj:default-s", "Use when default skills dir"], ["pj:extra-s", "Use when extra skills dir"],
    ["pj:folder-p", "Use when folder differs"], ["pj:whentouse", "x - only when to use"],
    ["pk:nested:deep", "nested plugin command"], ["pk:pk-inner", "Use when pk inner"], ["pk:pk-root", "Use when root skill"],
    ["pm:m1", "Use when m1"], ["pm:m2", "Use when m2"], ["pn:n1", "Use when n1"], ["pn:ncmd", "n command"],
    ["pr:r1", "Use when r1"], ["pr:r2", "Use when r2"], ["pt:inside", "Use when inside"],
    ["pz:Up-Case", "Use when plugin upper"], ["pz:dot-name", "Use when plugin dotted"],
  ];
  const hiddenNames = ["pj:hidden", "pj:nodesc"];

  it("lists each plugin's skills and commands as the CLI did, and not what it did not load", async (t) => {
    const base = mkdtempSync(join(tmpdir(), "do-skill-lab-"));
    const cfg = join(base, "config");
    const market = join(base, "market");
    t.after(() => rmSync(base, { recursive: true, force: true }));
    writeFiles(market, lab());
    writeFiles(base, { "outside/SKILL.md": md("name: outside\ndescription: Use when outside\n") });
    symlinkSync(join(base, "outside"), join(market, "pt/skills/linked"));
    writeFiles(cfg, {
      "plugins/known_marketplaces.json": { lab: { source: { source: "directory", path: market }, installLocation: market } },
      "plugins/installed_plugins.json": {
        version: 2,
        plugins: Object.fromEntries(["pj", "pk", "pm", "pn", "pr", "pc", "pz", "pt"].map((n) => [`${n}@lab`, [{ scope: "user", installPath: join(cfg, "plugins/cache/lab", n, "1.0.0"), version: "1.0.0" }]])),
      },
    });
    const index = indexSkills(base, { CLAUDE_CONFIG_DIR: cfg }, null, base);
    const mine = index.skills.filter((s) => s.source === "installed");
    assert.deepEqual(mine.filter((s) => !s.hidden).map((s) => [s.qualifiedName, s.description]).sort(), expected);
    assert.deepEqual(mine.filter((s) => s.hidden).map((s) => s.qualifiedName).sort(), hiddenNames);
    const by = new Map(mine.map((s) => [s.qualifiedName, s]));
    assert.equal(by.get("pj:folder-p")?.displayName, "pj:other-name");
    assert.equal(by.get("pz:dot-name")?.displayName, "pz:dot.name");
    assert.equal(by.get("pk:pk-root")?.displayName, undefined);
    assert.ok(index.problems.some((p) => p.startsWith("pc: plugin.json and a strict: false")), JSON.stringify(index.problems));
    assert.ok(index.problems.some((p) => p.includes("./../../outside leaves the plugin")), JSON.stringify(index.problems));
    assert.ok(index.problems.some((p) => p.includes("pt/skills/linked/SKILL.md: outside its plugin")), JSON.stringify(index.problems));
    assert.ok(!JSON.stringify(index.skills).includes("Use when outside"));
  });

  it("takes a description from the body's first line when the frontmatter has none, as for project skills", async (t) => {
    const p = project(t, {
      ".git/HEAD": "ref: refs/heads/main\n",
      ".claude/skills/no-desc/SKILL.md": md("name: no-desc\n", "\n## The Heading Line\n\nmore"),
      ".claude/skills/no-fm/SKILL.md": "No frontmatter at all.\n",
      ".claude/skills/number/SKILL.md": md("name: number\ndescription: 42\n"),
      ".claude/skills/long/SKILL.md": md("name: long\n", "x".repeat(150)),
    });
    const out = await p.run("skill-find", ["--source", "project"]);
    const by = new Map((out.skills as SkillInfo[]).map((s) => [s.name, s.description]));
    assert.equal(by.get("no-desc"), "The Heading Line");
    assert.equal(by.get("no-fm"), "No frontmatter at all.");
    assert.equal(by.get("number"), "42");
    assert.equal(by.get("long"), `${"x".repeat(97)}...`);
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
