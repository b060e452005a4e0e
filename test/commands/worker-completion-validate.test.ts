import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";
import { invoke } from "../../src/main.ts";

const report = (over: Record<string, unknown> = {}) => ({
  role: "api-developer",
  achieved: true,
  filesChanged: ["src/api/users.ts"],
  acceptanceCriteria: [{ criterion: "tests pass", passed: true, evidence: "npm test: 12 passed" }],
  keyDecisions: ["REST, not GraphQL"],
  contextForDependents: "Users endpoint at /api/users",
  ...over,
});

async function validate(t: any, stdin: string) {
  return project(t).run("worker-completion-validate", [], { stdin });
}

describe("worker-completion-validate", () => {
  it("accepts a full report from stdin", async (t) => {
    assert.deepEqual(await validate(t, JSON.stringify(report())), { ok: true, valid: true, exitCode: 0 });
  });

  it("accepts a report without the optional keyDecisions and contextForDependents", async (t) => {
    const { keyDecisions: _k, contextForDependents: _c, ...minimal } = report();
    assert.equal((await validate(t, JSON.stringify(minimal))).ok, true);
  });

  it("rejects text that is not JSON, including empty stdin", async (t) => {
    const out = await validate(t, "done!");
    assert.match(out.error as string, /^Invalid JSON in worker completion: /);
    assert.equal(out.exitCode, 1);
    assert.match((await validate(t, "")).error as string, /^Invalid JSON in worker completion: /);
  });

  it("rejects a non-object report [Fix D7]", async (t) => {
    assert.equal((await validate(t, "[1]")).error, "Schema validation failed: report must be a JSON object");
  });

  it("lists absent fields and wrong types", async (t) => {
    assert.equal(
      (await validate(t, JSON.stringify({ role: "test" }))).error,
      "Schema validation failed: Missing required fields: achieved, filesChanged, acceptanceCriteria",
    );
    assert.equal(
      (await validate(t, JSON.stringify(report({ role: 1, achieved: "yes", filesChanged: "a.ts", acceptanceCriteria: {} })))).error,
      "Schema validation failed: Field 'role' must be str, got int; Field 'achieved' must be bool, got str; " +
        "Field 'filesChanged' must be list, got str; Field 'acceptanceCriteria' must be list, got dict",
    );
  });

  it("checks criteria and the optional fields only when the required fields are right", async (t) => {
    const out = await validate(
      t,
      JSON.stringify(report({ acceptanceCriteria: ["x", { criterion: "c" }], keyDecisions: "one", contextForDependents: ["x"] })),
    );
    assert.equal(
      out.error,
      "Schema validation failed: acceptanceCriteria[0] must be an object; acceptanceCriteria[1]: missing passed, evidence; " +
        "keyDecisions must be an array; contextForDependents must be a string",
    );
    const early = await validate(t, JSON.stringify(report({ achieved: 1, keyDecisions: "one" })));
    assert.equal(early.error, "Schema validation failed: Field 'achieved' must be bool, got int");
  });

  it("does not check the types inside criteria or filesChanged", async (t) => {
    const out = await validate(t, JSON.stringify(report({ filesChanged: [1], acceptanceCriteria: [{ criterion: 1, passed: "y", evidence: null }] })));
    assert.equal(out.ok, true);
  });

  it("reads the report from a file argument instead of stdin, as expert-validate takes its artifact", async (t) => {
    const p = project(t, { ".design/worker-api.json": JSON.stringify(report()), ".design/worker-bad.json": JSON.stringify({ role: "x" }) });
    let read = false;
    const noStdin = { ...p.ctx(), stdin: async () => ((read = true), "not json") };
    const out = await invoke("worker-completion-validate", [".design/worker-api.json"], noStdin);
    assert.deepEqual(out.output, { ok: true, valid: true });
    assert.equal(read, false, "given a file, stdin is not read");
    assert.match((await p.run("worker-completion-validate", [".design/worker-bad.json"])).error as string, /^Schema validation failed: Missing required fields/);
    const missing = await p.run("worker-completion-validate", [".design/worker-none.json"]);
    assert.deepEqual([missing.code, missing.error], ["E_NOT_FOUND", "Report file not found: .design/worker-none.json"]);
    const outside = await p.run("worker-completion-validate", ["/etc/passwd"]);
    assert.equal(outside.code, "E_PATH", JSON.stringify(outside));
    assert.equal((await p.run("worker-completion-validate", [".design/worker-api.json", "x"])).code, "E_USAGE");
  });

  it("says in --help that the file stands in for stdin", async (t) => {
    const help = await project(t).run("worker-completion-validate", ["--help"]);
    assert.equal(help.usage, "worker-completion-validate [report_path] (or < report.json)");
  });
});
