import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
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
