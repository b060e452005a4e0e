import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planWith, project } from "../helpers/design-dir.ts";

describe("overlap-matrix", () => {
  it("lists, per earlier role, the later roles whose territory overlaps it", async (t) => {
    const plan = planWith([
      { name: "api", dirs: ["src/api/"] },
      { name: "api-v2", dirs: ["src/api/v2"] },
      { name: "db", dirs: ["src/db/"] },
      { name: "ui", dirs: ["web/"] },
      { name: "infra", dirs: ["deploy/"] },
      { name: "cli", dirs: ["bin/"] },
      { name: "docs", dirs: ["docs/"] },
      { name: "guides", dirs: ["docs/**/*.md"] },
    ]);
    const out = await project(t, { ".design/plan.json": plan }).run("overlap-matrix");
    assert.deepEqual(out, { ok: true, matrix: { "0": [1], "6": [7] }, exitCode: 0 });
  });

  it("skips pairs that a dependency path already orders, even transitively", async (t) => {
    const plan = planWith([
      { name: "a", dirs: ["src/"] },
      { name: "b", dirs: ["lib/"], deps: ["a"] },
      { name: "c", dirs: ["src/c/"], deps: ["b"] },
      { name: "d", dirs: ["src/c/d/"] },
    ]);
    const out = await project(t, { ".design/plan.json": plan }).run("overlap-matrix");
    assert.deepEqual(out.matrix, { "0": [3], "2": [3] });
  });

  it("decides patterns and directories by the files they can share, listing later roles in ascending order", async (t) => {
    const pats = (...patterns: string[]) => ({ directories: [], patterns, dependencies: [] });
    const plan = planWith([
      { name: "a", scope: pats("src/**/*.ts") },
      { name: "b", dirs: ["lib/"] },
      { name: "c", dirs: ["src/api/**"] },
      { name: "d", scope: pats("**/*.md") }, // Markdown files anywhere: in lib/, under src/api/, in src
      { name: "e", dirs: ["./src"] },
      { name: "f", scope: pats("*.json") }, // top-level JSON files only
      { name: "g", dirs: ["."] }, // the whole project
    ]);
    const out = await project(t, { ".design/plan.json": plan }).run("overlap-matrix");
    assert.deepEqual(out.matrix, { "0": [2, 4, 6], "1": [3, 6], "2": [3, 4, 6], "3": [4, 6], "4": [6], "5": [6] });
  });

  it("prints an empty matrix when nothing overlaps or there are no roles", async (t) => {
    const p = project(t, { ".design/plan.json": planWith(["a", "b"]), "empty.json": { schemaVersion: 4 } });
    assert.deepEqual((await p.run("overlap-matrix")).matrix, {});
    assert.deepEqual((await p.run("overlap-matrix", ["empty.json"])).matrix, {});
  });

  it("records nothing between the roles of a cycle", async (t) => {
    const plan = planWith([{ name: "a", dirs: ["src/"], deps: ["b"] }, { name: "b", dirs: ["src/"], deps: ["a"] }]);
    assert.deepEqual((await project(t, { ".design/plan.json": plan }).run("overlap-matrix")).matrix, {});
  });

  it("gives a role with a null scope no territory instead of crashing [Fix D7]", async (t) => {
    const plan = { roles: [{ name: "a", scope: null }, { name: "b", scope: { directories: ["src/"] } }, { name: "c", scope: { patterns: ["src/x"] } }] };
    const out = await project(t, { "p.json": plan }).run("overlap-matrix", ["p.json"]);
    assert.deepEqual(out, { ok: true, matrix: { "1": [2] }, exitCode: 0 });
  });

  it("does not read a string of dependencies as an ordering [Fix D26]", async (t) => {
    const plan = planWith([{ name: "a", dirs: ["src/"] }, { name: "b", dirs: ["src/"], deps: "a" as unknown as string[] }]);
    assert.deepEqual((await project(t, { ".design/plan.json": plan }).run("overlap-matrix")).matrix, { "0": [1] });
  });

  it("does not read a string of directories as a territory", async (t) => {
    const plan = planWith([{ name: "a", dirs: "src/" as unknown as string[] }, { name: "b", dirs: ["src/"] }]);
    assert.deepEqual((await project(t, { ".design/plan.json": plan }).run("overlap-matrix")).matrix, {});
  });

  it("fails on a missing plan or a plan of the wrong shape [Fix D7]", async (t) => {
    const p = project(t, { "a.json": "[]", "b.json": { roles: "ab" } });
    const missing = await p.run("overlap-matrix", ["nope.json"]);
    assert.equal(missing.error, "Plan file not found: nope.json");
    assert.equal(missing.exitCode, 1);
    assert.equal((await p.run("overlap-matrix", ["a.json"])).error, "Invalid plan structure: top-level value must be an object");
    assert.equal((await p.run("overlap-matrix", ["b.json"])).error, "Invalid plan structure: 'roles' must be an array");
  });
});
