import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { planWith, project } from "../helpers/design-dir.ts";

const mem = { id: "m1", category: "pattern", content: "c", timestamp: "2026-01-01T00:00:00Z" };
const refl = { id: "r1", skill: "design", goal: "g", outcome: "completed", timestamp: "2026-01-01T00:00:00Z" };

describe("health-check", () => {
  it("is healthy with a valid plan and clean JSONL files", async (t) => {
    const p = project(t, { ".design/plan.json": planWith(["a"]), ".design/memory.jsonl": [mem], ".design/reflection.jsonl": [refl] });
    assert.deepEqual(await p.run("health-check"), { ok: true, healthy: true, issues: [], warnings: [], exitCode: 0 });
  });

  it("stays ok but unhealthy without plan.json", async (t) => {
    const p = project(t, { ".design/memory.jsonl": [mem] });
    const out = await p.run("health-check");
    assert.deepEqual(out, { ok: true, healthy: false, issues: ["plan.json not found: run /do:design <goal> to plan (a skill that only plans or researches may go on without one)"], warnings: [], exitCode: 0 });
  });

  it("after an archive, says where the earlier plans went and what to run (issue 24)", async (t) => {
    const p = project(t, { ".design/history/20260101T000000Z/plan.json": planWith(["a"]) });
    const out: any = await p.run("health-check");
    assert.deepEqual(out.issues, ["plan.json not found: earlier plans are archived in .design/history/; run /do:design <goal> to plan (a skill that only plans or researches may go on without one)"]);
  });

  it("strips trailing slashes and reports a missing directory or a file", async (t) => {
    const p = project(t, { "d/plan.json": planWith(["a"]), "f": "x" });
    assert.equal((await p.run("health-check", ["d///"])).healthy, true);
    const missing = await p.run("health-check", ["nope/"]);
    assert.equal(missing.error, "Design directory not found: nope");
    assert.equal(missing.exitCode, 1);
    assert.equal((await p.run("health-check", ["f"])).error, "f is not a directory");
  });

  it("reports unreadable, invalid, non-object and wrong-version plans as issues", async (t) => {
    const issueOf = async (content: unknown) => (await project(t, { ".design/plan.json": content }).run("health-check")).issues as string[];
    assert.match((await issueOf("{"))[0], /^plan\.json is not valid JSON: /);
    assert.deepEqual(await issueOf([1]), ["plan.json is not a JSON object"]);
    assert.deepEqual(await issueOf({ roles: [] }), ["Invalid schema version: None (expected 4)"]);
    assert.deepEqual(await issueOf({ schemaVersion: "4" }), ["Invalid schema version: 4 (expected 4)"]);
    const dir = await project(t, { ".design/plan.json/x": "" }).run("health-check");
    assert.match((dir.issues as string[])[0], /^Cannot read plan\.json: /);
  });

  it("warns per bad JSONL line with physical line numbers and fields in canonical order [Fix D7, D10]", async (t) => {
    const p = project(t, {
      ".design/plan.json": planWith(["a"]),
      ".design/memory.jsonl": `${JSON.stringify(mem)}\n\nnot json\n5\n{"content":"x","category":"c"}\n`,
      ".design/reflection.jsonl": `{"goal":"g"}\r\n[1]\n`,
    });
    const out = await p.run("health-check");
    assert.equal(out.healthy, true);
    assert.deepEqual(out.warnings, [
      "memory.jsonl line 3: invalid JSON",
      "memory.jsonl line 4: not a JSON object",
      "memory.jsonl line 5: missing fields {'id', 'timestamp'}",
      "reflection.jsonl line 1: missing fields {'id', 'skill', 'outcome', 'timestamp'}",
      "reflection.jsonl line 2: not a JSON object",
    ]);
  });

  it("reports an unreadable JSONL file as an issue", async (t) => {
    const out = await project(t, { ".design/plan.json": planWith(["a"]), ".design/memory.jsonl/x": "" }).run("health-check");
    assert.equal(out.healthy, false);
    assert.match((out.issues as string[])[0], /^Cannot read memory\.jsonl: /);
  });

  it("reports broken symlinks in name order", async (t) => {
    const p = project(t, { ".design/plan.json": planWith(["a"]), ".design/real.txt": "x" });
    symlinkSync("gone.json", join(p.dir, ".design/b-link"));
    symlinkSync("/nowhere/at/all", join(p.dir, ".design/a-link"));
    symlinkSync("real.txt", join(p.dir, ".design/ok-link"));
    const out = await p.run("health-check");
    assert.deepEqual(out.issues, ["Broken symlink: a-link -> /nowhere/at/all", "Broken symlink: b-link -> gone.json"]);
  });

  it("warns about helper lock and temporary files older than 60 seconds", async (t) => {
    const p = project(t, {
      ".design/plan.json": planWith(["a"]),
      ".design/plan.json.lock/x": "",
      ".design/.memory.jsonl.123.0123456789ab.tmp": "",
      ".design/fresh.jsonl.lock": "",
      ".design/notes.tmp": "",
    });
    const old = new Date("2026-01-01T00:00:00Z");
    for (const f of ["plan.json.lock", ".memory.jsonl.123.0123456789ab.tmp", "notes.tmp"]) utimesSync(join(p.dir, ".design", f), old, old);
    const fresh = new Date("2026-01-01T00:00:30Z");
    utimesSync(join(p.dir, ".design/fresh.jsonl.lock"), fresh, fresh);
    const out = await p.run("health-check", [], { now: Date.parse("2026-01-01T00:01:05Z") });
    assert.equal(out.healthy, true);
    assert.deepEqual(out.warnings, ["Stale helper file: .memory.jsonl.123.0123456789ab.tmp", "Stale helper file: plan.json.lock"]);
  });
});
