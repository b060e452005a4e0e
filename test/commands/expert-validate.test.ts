import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";

describe("expert-validate", () => {
  it("accepts an artifact with a summary and an array of verification properties", async (t) => {
    const p = project(t, { ".design/expert-api.json": { summary: "REST API", verificationProperties: [], extra: { free: true } } });
    assert.deepEqual(await p.run("expert-validate", [".design/expert-api.json"]), { ok: true, valid: true, exitCode: 0 });
  });

  it("does not check the items of verificationProperties", async (t) => {
    const p = project(t, { "e.json": { summary: null, verificationProperties: [1, "x", {}] } });
    assert.equal((await p.run("expert-validate", ["e.json"])).ok, true);
  });

  it("requires the artifact path", async (t) => {
    const out = await project(t).run("expert-validate");
    assert.equal(out.code, "E_USAGE");
    assert.equal(out.exitCode, 1);
  });

  it("reports a missing, unreadable or unparsable file", async (t) => {
    const p = project(t, { "bad.json": "{", "dir/f": "" });
    assert.equal((await p.run("expert-validate", ["nope.json"])).error, "Artifact file not found: nope.json");
    assert.match((await p.run("expert-validate", ["dir"])).error as string, /^Error reading artifact: /);
    assert.match((await p.run("expert-validate", ["bad.json"])).error as string, /^Invalid JSON in artifact: /);
  });

  it("rejects a non-object artifact [Fix D7]", async (t) => {
    const p = project(t, { "s.json": "\"summary verificationProperties\"" });
    const out = await p.run("expert-validate", ["s.json"]);
    assert.equal(out.error, "Artifact must be a JSON object");
    assert.equal(out.exitCode, 1);
  });

  it("lists absent fields in the contract's order", async (t) => {
    const p = project(t, { "a.json": {}, "b.json": { verificationProperties: [] } });
    assert.equal((await p.run("expert-validate", ["a.json"])).error, "Missing required fields: summary, verificationProperties");
    assert.equal((await p.run("expert-validate", ["b.json"])).error, "Missing required fields: summary");
  });

  it("requires verificationProperties to be an array", async (t) => {
    const p = project(t, { "a.json": { summary: "s", verificationProperties: {} } });
    assert.equal((await p.run("expert-validate", ["a.json"])).error, "verificationProperties must be an array");
  });
});
