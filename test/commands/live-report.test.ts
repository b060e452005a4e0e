// The live report (issue 29): run-begin writes `.design/report.html` when an execute run starts with work to do;
// while the run is open, each command that changes its state (next's starts, update-status, finish, run-checks, an
// execute checkpoint) rewrites it, and the page carries a meta refresh; the report of a closed run has none, and no
// command writes a report nobody asked for. Through the built bundle too: the commands load the report's own bundle
// at run time (scripts/build.mjs keeps that import external).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import { planWith, project } from "../helpers/design-dir.ts";
import { cli } from "../helpers/cli.ts";

const P = ".design/plan.json";
const REFRESH = /<meta http-equiv="refresh" content="10">/;
const statusOf = (html: string, role: string) => new RegExp(`aria-label="${role}: ([a-z_]+)"`).exec(html)?.[1];

describe("the live report [feature:execute/helper-schedules]", () => {
  it("starts with the run, follows each state change while it is open, and stops reloading once it closes", async (t) => {
    const p = project(t, { [P]: planWith(["api", "web"]) });
    const begin: any = await p.run("run-begin", ["execute"]);
    assert.equal(begin.ok, true, JSON.stringify(begin));
    assert.deepEqual([begin.report?.path, begin.report?.live], [".design/report.html", true]);
    assert.match(begin.announce, /live report: file:/);
    let html = p.read(".design/report.html");
    assert.match(html, REFRESH);
    assert.match(html, /data-live="true"/);
    assert.equal(statusOf(html, "api"), "pending");

    await p.run("next", [P]);
    html = p.read(".design/report.html");
    assert.equal(statusOf(html, "api"), "in_progress", "next's start shows");

    const failed: any = await p.run("update-status", [P], { stdin: JSON.stringify([{ roleIndex: 1, status: "failed", stalled: true, result: "stalled" }]) });
    assert.equal(failed.ok, true, JSON.stringify(failed));
    html = p.read(".design/report.html");
    assert.equal(statusOf(html, "web"), "failed", "a stall recorded shows");

    const cp: any = await p.run("run-checkpoint", ["execute", "--phase", "challenge"]);
    assert.equal(cp.ok, true, JSON.stringify(cp));
    assert.match(p.read(".design/report.html"), /challenge/);

    const end: any = await p.run("run-end", ["execute", "--outcome", "partial"]);
    assert.equal(end.ok, true, JSON.stringify(end));
    html = p.read(".design/report.html");
    assert.doesNotMatch(html, REFRESH, "a closed run's report does not reload");
    assert.doesNotMatch(html, /data-live/);
  });

  it("writes no report nobody asked for: no report yet, or no open run", async (t) => {
    const p = project(t, { [P]: planWith(["api"]) });
    await p.run("next", [P]);
    assert.equal(p.exists(".design/report.html"), false, "no run, no report: next leaves it unwritten");
    await p.run("report", [P]);
    const before = p.read(".design/report.html");
    assert.doesNotMatch(before, REFRESH, "no open run: a static report");
    await p.run("update-status", [P], { stdin: JSON.stringify([{ roleIndex: 0, status: "failed", result: "x" }]) });
    assert.equal(p.read(".design/report.html"), before, "no open execute run: the report is left as it was");
  });

  it("the built bundle rewrites it through the report's own bundle", async (t) => {
    const p = project(t, { [P]: planWith(["api", "web"]) });
    const cwd = realpathSync(p.dir);
    const begin = await cli(["run-begin", "execute"], { cwd });
    assert.equal(begin.json?.ok, true, begin.stdout + begin.stderr);
    assert.equal(statusOf(p.read(".design/report.html"), "api"), "pending");
    const next = await cli(["next", P], { cwd });
    assert.equal(next.json?.ok, true, next.stdout + next.stderr);
    assert.equal(statusOf(p.read(".design/report.html"), "api"), "in_progress");
  });
});
