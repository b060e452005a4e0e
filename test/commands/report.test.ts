import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { planWith, project } from "../helpers/design-dir.ts";
import { reportPlan } from "../helpers/report-plans.ts";

const P = ".design/plan.json";

describe("report", () => {
  it("writes .design/report.html and answers a Unicode summary with the file:// link", async (t) => {
    const plan: any = planWith([{ name: "api", dirs: ["src/api/"] }, { name: "docs", dirs: ["docs/"], deps: ["api"] }, { name: "ui", dirs: ["src/api/ui/"] }]);
    plan.goal = "Ship <orders> & docs";
    plan.roles[0].status = "completed";
    plan.roles[0].attemptLog = [
      { attempt: 1, model: "haiku", agent: "api", outcome: "failed", startedAt: "2026-11-26T07:00:00Z", endedAt: "2026-11-26T07:02:00Z", usage: { tokens: 1200, toolUses: 7 } },
      { attempt: 2, model: "sonnet", agent: "api--2", outcome: "completed", startedAt: "2026-11-26T07:02:10Z", endedAt: "2026-11-26T07:05:00Z", usage: { tokens: 3400, toolUses: 12 }, evidence: [{ check: "npm test -- api", exitCode: 0, output: "14 passing" }] },
    ];
    plan.roles[0].acceptanceCriteria = [{ criterion: "api tests pass", check: "npm test -- api" }];
    const p = project(t, {
      [P]: plan,
      ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "run-1", startedAt: "2026-11-26T06:59:00Z", completedAt: "2026-11-26T07:10:00Z", outcome: "partial" },
      ".design/memory.jsonl": [
        { id: "m1", timestamp: "2026-11-20T00:00:00Z", category: "pattern", keywords: ["old"], content: "Before the run" },
        { id: "m2", timestamp: "2026-11-26T07:08:00Z", category: "convention", keywords: ["api"], content: "Stored in this run" },
      ],
      ".design/reflection.jsonl": [{ id: "r1", timestamp: "2026-11-26T07:09:00Z", skill: "execute", goal: "Ship orders", outcome: "partial", goalAchieved: false, evaluation: { whatWorked: [], whatFailed: [], doNextTime: [] } }],
      ".design/integration-verifier-report.json": { status: "FAIL", summary: "docs missing" },
    });
    const out: any = await p.run("report");
    assert.equal(out.ok, true);
    assert.equal(out.path, ".design/report.html");
    assert.ok(out.url.startsWith("file:///") && out.url.endsWith("/.design/report.html"));
    assert.deepEqual(out.summary.split("\n"), [
      "Plan: Ship <orders> & docs",
      "Roles: ✔ 1 completed  ○ 2 pending",
      "  ✔ api   sonnet  2 attempts  4,600 tok",
      "  ○ ui    sonnet  0 attempts",
      "  ○ docs  sonnet  0 attempts  ← api",
      "Never together (same files): api ⇄ ui",
      "Cost: 4,600 tokens (haiku 1,200, sonnet 3,400) over 1 run",
      "Next: start docs, ui",
      "Memories: 2 stored",
      `Report: ${out.url}`,
    ]);
    const html = p.read(".design/report.html");
    assert.ok(html.includes("Ship &lt;orders&gt; &amp; docs") && !html.includes("<orders>"), "plan text is escaped");
    assert.ok(!/<script/i.test(html), "no script");
    assert.match(html, /Content-Security-Policy" content="default-src 'none'/);
    assert.ok(!/(src|href)="(https?:)?\/\//.test(html), "no external resource");
    for (const s of ["14 passing", "4,600", "Stored in this run", "FAIL", "docs missing", "goal not met", "run-1", "120 s"]) assert.ok(html.includes(s), s);
    assert.ok(!html.includes("Before the run"), "only the memories stored during the run");
  });

  it("exits 0 on a missing or broken plan and says so, writing no report", async (t) => {
    const p = project(t, {});
    const out: any = await p.run("report");
    assert.equal(out.exitCode, 0);
    assert.equal(out.url, null);
    assert.match(out.problems[0], /No plan at \.design\/plan\.json/);
    assert.equal(p.exists(".design/report.html"), false);
    const q = project(t, { [P]: "{" });
    const bad: any = await q.run("report");
    assert.equal(bad.exitCode, 0);
    assert.match(bad.problems[0], /invalid JSON/);
  });

  it("writes nothing through a .design that links out of the project", async (t) => {
    const outside = mkdtempSync(join(tmpdir(), "do-report-out-"));
    t.after(() => rmSync(outside, { recursive: true, force: true }));
    const p = project(t, {});
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(outside, "plan.json"), JSON.stringify(reportPlan(3)));
    symlinkSync(outside, join(p.dir, ".design"));
    const out: any = await p.run("report");
    assert.equal(out.exitCode, 0);
    assert.equal(out.url, null);
    assert.ok(out.problems.some((x: string) => /resolves outside/.test(x)), JSON.stringify(out.problems));
    assert.equal(require("node:fs").existsSync(join(outside, "report.html")), false);
  });

  it("draws 300 roles in one summary line each", async (t) => {
    const p = project(t, { [P]: reportPlan(300) });
    const out: any = await p.run("report");
    const lines = out.summary.split("\n");
    assert.equal(lines.filter((l: string) => /^ {2}\S /.test(l)).length, 300);
  });

  it("costs nothing when not asked for: no other command's bundle but run-end's (execute's close) and run-begin's (a run without a plan) holds the report's code", () => {
    const { readdirSync, readFileSync } = require("node:fs");
    const dist = join(__dirname, "../../dist");
    const files: string[] = ["plan.js", ...readdirSync(join(dist, "commands"), { recursive: true }).filter((f: string) => f.endsWith(".js")).map((f: string) => join("commands", f))];
    const holding = files.filter((f) => readFileSync(join(dist, f), "utf8").includes("do report</title>"));
    assert.deepEqual(holding, [join("commands", "plan", "report.js"), join("commands", "run", "begin.js"), join("commands", "run", "end.js")]);
  });

  it("takes what runs next from the scheduler, counts the memories and names an interrupted run", async (t) => {
    // b waits on a (dependency), c shares a's folder (overlap): statuses alone would call c ready.
    const plan: any = planWith([{ name: "a", dirs: ["src/"] }, { name: "b", dirs: ["docs/"], deps: ["a"] }, { name: "c", dirs: ["src/api/"] }]);
    plan.roles[0].status = "in_progress";
    plan.roles[0].attemptLog = [{ attempt: 1, model: "sonnet", agent: "a", outcome: "running" }];
    const p = project(t, {
      [P]: plan,
      ".design/memory.jsonl": [1, 2, 3].map((i) => ({ id: `m${i}`, timestamp: "2026-11-20T00:00:00Z", category: "pattern", keywords: ["k"], content: `Learning ${i}` })),
      ".design/run-design.json": { schemaVersion: 1, skill: "design", runId: "r", goal: "g", goalSha256: "x", inputs: [], phases: ["pre-flight", "experts", "plan"], completed: [{ phase: "pre-flight", outputs: [], decisions: "" }], startedAt: "2026-11-26T00:00:00Z", updatedAt: "2026-11-26T00:00:00Z", completedAt: null, outcome: null },
    });
    const out: any = await p.run("report");
    const lines = out.summary.split("\n");
    assert.ok(lines.includes("Next: running a; b waits for a (dependency); c waits for a (overlap)"), out.summary);
    assert.ok(lines.includes("Memories: 3 stored"));
    assert.ok(lines.includes("Interrupted: /do:design stopped after pre-flight; it resumes at experts"));
  });
});
