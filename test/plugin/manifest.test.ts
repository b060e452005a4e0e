import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { OLDEST_CLAUDE_CODE } from "../e2e/lib/claude.ts";
import { ROOT } from "./plugin-files.ts";

const plugin = JSON.parse(readFileSync(join(ROOT, ".claude-plugin/plugin.json"), "utf8"));
const market = JSON.parse(readFileSync(join(ROOT, ".claude-plugin/marketplace.json"), "utf8"));

describe("manifests", () => {
  it("name the plugin do with a semver version", () => {
    assert.equal(plugin.name, "do");
    assert.match(plugin.version, /^\d+\.\d+\.\d+$/);
  });

  it("carry the metadata a marketplace shows", () => {
    assert.equal(typeof plugin.description, "string");
    assert.equal(plugin.author.name, "do maintainers");
    assert.equal(plugin.license, "MIT");
    assert.match(plugin.homepage, /^https:\/\/github\.com\//);
    assert.match(plugin.repository, /^https:\/\/github\.com\//);
    assert.ok(Array.isArray(plugin.keywords) && plugin.keywords.length > 0);
  });

  it("list the plugin in its own marketplace at the same version", () => {
    assert.equal(market.name, "do");
    assert.equal(typeof market.owner.name, "string");
    assert.equal(typeof market.metadata.description, "string");
    assert.equal(market.plugins.length, 1);
    const [entry] = market.plugins;
    assert.equal(entry.name, plugin.name);
    assert.equal(entry.source, "./");
    assert.equal(entry.version, plugin.version);
    assert.equal(typeof entry.description, "string");
  });

  it("keep package.json at the plugin's version", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    assert.equal(pkg.version, plugin.version);
  });
});

describe("what the CLI reads from the manifest and the root", () => {
  it("declares the oldest supported Claude Code in engines, the one the e2e suite and README name", () => {
    assert.deepEqual(plugin.engines, { "claude-code": `>=${OLDEST_CLAUDE_CODE}` });
    assert.match(readFileSync(join(ROOT, "README.md"), "utf8"), new RegExp(`Claude Code ${OLDEST_CLAUDE_CODE.replaceAll(".", "\\.")} or newer`));
  });

  it("declares that the plugin reaches no network host", () => {
    assert.deepEqual(plugin.network, { hosts: [] });
  });

  it("tracks no lockfile at the root (claude plugin install would run npm ci), and pins the dev install in dev/", () => {
    const roots = ["package-lock.json", "npm-shrinkwrap.json", "bun.lock", "bun.lockb"];
    const git = spawnSync("git", ["ls-files", "--", ...roots], { cwd: ROOT, encoding: "utf8" });
    if (git.status === 0) assert.equal(git.stdout.trim(), "", "a lockfile is tracked at the root");
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    assert.equal(pkg.dependencies, undefined, "the plugin has no runtime dependencies: dist/ is self-contained");
    const lock = JSON.parse(readFileSync(join(ROOT, "dev", "package-lock.json"), "utf8"));
    assert.equal(lock.name, pkg.name);
    assert.deepEqual(lock.packages[""].devDependencies, pkg.devDependencies, "dev/package-lock.json is out of date: node scripts/setup.mjs install");
    for (const [name, spec] of Object.entries(pkg.devDependencies)) assert.ok(lock.packages[`node_modules/${name}`]?.version, `${name}@${spec} is not pinned`);
  });
});
