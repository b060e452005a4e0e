import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
      "Run: run-1 partial (ended 2026-11-26T07:10:00Z); verifier FAIL; goal not met",
      "Cost: 4,600 tokens (haiku 1,200, sonnet 3,400) over 1 run",
      "Next: start docs, ui",
      "Memories: 1 stored by this run; 2 in the project",
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

  it("costs nothing when not asked for: no bundle but the report's own, run-end's (execute's close) and run-begin's (a run without a plan) holds the report's code", () => {
    const { readdirSync, readFileSync } = require("node:fs");
    const dist = join(__dirname, "../../dist");
    const files: string[] = ["plan.js", "permit.js", ...readdirSync(join(dist, "commands"), { recursive: true }).filter((f: string) => f.endsWith(".js")).map((f: string) => join("commands", f))];
    // A string each part of the report keeps through minification: the HTML, the terminal summary, the gathering.
    const markers = ["do report</title>", "Never together (same files): ", "The scheduler could not answer"];
    // The commands that write the report: report itself, run-end (execute's close) and run-begin (no plan).
    const writers = new Set([join("commands", "plan", "report.js"), join("commands", "run", "begin.js"), join("commands", "run", "end.js")]);
    for (const marker of markers) {
      const holding = files.filter((f) => readFileSync(join(dist, f), "utf8").includes(marker));
      assert.ok(holding.includes(join("commands", "plan", "report.js")), `${marker}: the marker is not in the report's bundle`);
      assert.deepEqual(holding.filter((f) => !writers.has(f)), [], `${marker}: other bundles hold the report's code`);
    }
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
    assert.ok(lines.includes("Memories: 0 stored by this run; 3 in the project"));
    assert.ok(lines.includes("Interrupted: /do:design stopped after pre-flight; it resumes at experts"));
  });

  it("shows the whole run: attempts with tier, agent, stalls, reflexion and escalation; every check's evidence; phases; verdicts; memories", async (t) => {
    const plan: any = planWith([{ name: "store", dirs: ["src/db/"] }, { name: "api", dirs: ["src/api/"], deps: ["store"] }]);
    plan.goal = "Due dates";
    // store completed: update-status keeps only its attempts, so its checks live in the evidence alone.
    plan.roles[0] = { name: "store", goal: "store due dates", status: "completed", result: "stored", model: "sonnet", scope: { directories: ["src/db/"], patterns: [], dependencies: [] }, attempts: 1 };
    plan.roles[0].attemptLog = [
      { attempt: 1, model: "haiku", agent: "store", outcome: "stalled", startedAt: "2026-11-26T08:00:00Z", endedAt: "2026-11-26T08:04:00Z" },
      {
        attempt: 2, model: "sonnet", agent: "store--2", outcome: "completed", startedAt: "2026-11-26T08:05:00Z", endedAt: "2026-11-26T08:06:30Z",
        escalated: { from: "haiku", reason: "failed on its first tier before" },
        reflexion: { rootCause: "the worker read the whole repository", wrongAssumptions: "that the store had tests", alternative: "write the test first" },
        usage: { tokens: 5000, toolUses: 4, durationMs: 90000 },
        evidence: [
          { kind: "check", check: "node --test test/", exitCode: 0, passed: true, timedOut: false, durationMs: 1500, output: "# pass 3" },
          { kind: "spec", check: "sh .design/specs/spec-store.sh", exitCode: 0, passed: true, timedOut: false, durationMs: 800, output: "spec ok" },
        ],
      },
    ];
    plan.roles[1].status = "failed";
    plan.roles[1].attemptLog = [
      { attempt: 1, model: "sonnet", agent: "api", outcome: "failed", startedAt: "2026-11-26T08:07:00Z", endedAt: "2026-11-26T08:09:00Z", evidence: [{ kind: "check", check: plan.roles[1].acceptanceCriteria[0].check, exitCode: null, passed: false, timedOut: true, durationMs: 300000, output: "killed" }] },
    ];
    const p = project(t, {
      [P]: plan,
      ".design/run-execute.json": {
        schemaVersion: 1, skill: "execute", runId: "run-9", goal: "Due dates", startedAt: "2026-11-26T07:59:00Z", updatedAt: "2026-11-26T08:20:00Z", completedAt: "2026-11-26T08:20:00Z", outcome: "partial",
        phases: ["pre-flight", "workers", "verify", "learn", "close"],
        completed: [
          { phase: "pre-flight", at: "2026-11-26T07:59:10Z", outputs: [], decisions: "0 roles reset, 2 to run" },
          { phase: "workers", at: "2026-11-26T08:10:00Z", outputs: [], decisions: "1 completed, 1 failed, 0 skipped" },
          { phase: "verify", at: "2026-11-26T08:15:00Z", outputs: [], decisions: "goal partial, 0 fix rounds" },
        ],
        skippedPhases: ["learn", "close"],
      },
      ".design/integration-verifier-report.json": { status: "FAIL", summary: "api missing", crossRoleIssues: [{ issue: "api never reads dueDate", affectedRoles: ["api"], severity: "blocking" }, { issue: "naming", severity: "low" }] },
      ".design/regression-checker-report.json": { passed: true, changes: [], regressions: [], summary: "nothing broke" },
      ".design/memory.jsonl": [{ id: "m1", timestamp: "2026-11-26T08:16:00Z", category: "mistake", keywords: ["api"], content: "Time-box api checks" }],
      ".design/reflection.jsonl": [
        { id: "r0", timestamp: "2026-11-01T00:00:00Z", skill: "execute", goal: "Earlier goal", outcome: "completed", goalAchieved: true, evaluation: { whatWorked: ["old"], whatFailed: [], doNextTime: [] } },
        { id: "r1", timestamp: "2026-11-26T08:19:00Z", skill: "execute", goal: "Due dates", outcome: "partial", goalAchieved: false, evaluation: { whatWorked: ["the spec caught a bad default"], whatFailed: ["api's check timed out"], doNextTime: ["Time-box api checks"] } },
      ],
    });
    const out: any = await p.run("report");
    assert.ok(out.summary.split("\n").includes("Run: run-9 partial (ended 2026-11-26T08:20:00Z); verifier FAIL; goal partial"), out.summary);
    const html = p.read(".design/report.html");
    const has = (s: string) => assert.ok(html.includes(s), `the report lacks: ${s}`);
    // Attempts: tier, agent, outcome with the stall, duration, escalation and the retry's reflexion.
    has(`<tr data-attempt="1"><td>1</td><td>haiku</td><td>store</td><td>stalled (stalled)</td><td>240 s</td>`);
    has(`<td>sonnet <span class="muted">(escalated from haiku: failed on its first tier before)</span></td><td>store--2</td><td>completed</td><td>90 s</td><td>5,000</td><td>4</td>`);
    has("Before attempt 2: root cause the worker read the whole repository; wrong assumption that the store had tests; instead write the test first");
    // A completed role's checks and its spec, from the evidence; a timed-out check of the failed role.
    has(`<h4>Checks run</h4>`);
    has(`Check: <code>node --test test/</code><div class="pass">✔ passed (exit 0, 1.5 s, attempt 2)</div><pre># pass 3</pre>`);
    has(`Spec: <code>sh .design/specs/spec-store.sh</code><div class="pass">✔ passed (exit 0, 0.8 s, attempt 2)</div>`);
    has(`✖ failed (timed out, 300 s, attempt 1)</div><pre>killed</pre>`);
    // Phases, verdicts and the goal review of this run (not the earlier one), memories of this run.
    has(`<li data-phase="verify"><strong>verify</strong> <span class="muted">2026-11-26T08:15:00Z</span> — goal partial, 0 fix rounds</li>`);
    has(`<li class="muted" data-phase="learn">learn: not reached</li>`);
    has("<li>api never reads dueDate</li>");
    assert.ok(!html.includes("<li>naming</li>"), "only blocking issues are listed");
    has("Regression checker: <strong>no regression</strong> — nothing broke");
    has("Goal review: <strong>goal partial</strong>");
    has("<li>api&#39;s check timed out</li>");
    assert.ok(!html.includes("<li>old</li>"), "an earlier run's evaluation is not this run's goal review");
    has("<strong>mistake</strong>: Time-box api checks");
    has("Earlier goal");
  });

  it("agrees with itself (issue 31): one tier per role, this run's memories apart from the file's, the unmeasured attempts named, a dependent waiting on a retry not skipped", async (t) => {
    const plan: any = planWith([{ name: "store", dirs: ["src/db/"] }, { name: "api", dirs: ["src/api/"], deps: ["store"] }, { name: "ui", dirs: ["src/ui/"], deps: ["api"] }]);
    plan.roles[0].model = "haiku";
    plan.roles[0].status = "failed";
    plan.roles[0].attempts = 1;
    plan.roles[0].attemptLog = [{ attempt: 1, model: "sonnet", agent: "store", outcome: "failed", usage: { tokens: 900 } }, { attempt: 2, model: "sonnet", agent: "store--2", outcome: "interrupted" }];
    plan.roles[1].status = "skipped";
    plan.roles[2].status = "skipped";
    const p = project(t, {
      [P]: plan,
      ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "run-1", goal: "g", startedAt: "2026-11-26T08:00:00Z", updatedAt: "2026-11-26T08:00:00Z", completedAt: null, outcome: null, phases: ["pre-flight", "workers"], completed: [] },
      ".design/memory.jsonl": [
        { id: "old", timestamp: "2026-11-01T00:00:00Z", category: "pattern", keywords: ["k"], content: "Older learning" },
        { id: "new", timestamp: "2026-11-26T08:30:00Z", category: "pattern", keywords: ["k"], content: "This run's learning" },
      ],
    });
    const out: any = await p.run("report");
    const lines: string[] = out.summary.split("\n");
    // The summary, the graph and the section all say sonnet (the last attempt's tier), the section naming the plan's.
    assert.ok(lines.some((l) => /✖ store +sonnet/.test(l)), out.summary);
    const html = p.read(".design/report.html");
    assert.ok(html.includes("<dt>Tier</dt><dd>sonnet (its last attempt; the plan names haiku)</dd>"), "the section");
    assert.ok(html.includes("failed · sonnet"), "the graph");
    assert.ok(!/failed · haiku|<dd>haiku<\/dd>/.test(html));
    // Memories: the run's own, then the file's.
    assert.ok(lines.includes("Memories: 1 stored by this run; 2 in the project"), out.summary);
    // store has a retry left: api and ui are shown waiting for it, not skipped.
    assert.ok(lines.some((l) => /^Cost: 900 tokens .*; 1 attempt without a usage record, not in this sum$/.test(l)), out.summary);
    assert.ok(lines.some((l) => /○ api .*\(waits for store's retry\)/.test(l)), out.summary);
    assert.ok(lines.some((l) => /○ ui .*\(waits for store's retry\)/.test(l)), out.summary);
    assert.ok(lines.includes("Roles: ✖ 1 failed  ○ 2 pending"), out.summary);
    assert.ok(html.includes("<dt>Waits for</dt><dd>the retry of store (skipped until then)</dd>"));
    // With no retry left, skipped is skipped.
    plan.roles[0].attempts = 3;
    writeFileSync(join(p.dir, ".design/plan.json"), JSON.stringify(plan));
    const after: any = await p.run("report");
    assert.ok(after.summary.split("\n").includes("Roles: ✖ 1 failed  ⊘ 2 skipped"), after.summary);
  });

  it("writes a report for an execute run that had no plan (aborted), and none for a project that never ran one", async (t) => {
    const p = project(t, {
      ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "run-a", goal: "no plan", startedAt: "2026-11-26T09:00:00Z", updatedAt: "2026-11-26T09:00:05Z", completedAt: "2026-11-26T09:00:05Z", outcome: "aborted", phases: ["pre-flight"], completed: [], skippedPhases: ["pre-flight"] },
      ".design/reflection.jsonl": [{ id: "r1", timestamp: "2026-11-26T09:00:04Z", skill: "execute", goal: "no plan", outcome: "aborted", goalAchieved: false, evaluation: { whatWorked: [], whatFailed: ["no plan"], doNextTime: ["run /do:design first"] } }],
    });
    const out: any = await p.run("report");
    assert.equal(out.exitCode, 0);
    assert.equal(out.path, ".design/report.html");
    assert.match(out.problems[0], /No plan at \.design\/plan\.json/);
    assert.ok(out.summary.split("\n").includes("Run: run-a aborted (ended 2026-11-26T09:00:05Z); goal not met"), out.summary);
    const html = p.read(".design/report.html");
    assert.ok(html.includes("aborted") && html.includes("run /do:design first") && html.includes("No plan at"), "the aborted run is shown");
    const q = project(t, {});
    const none: any = await q.run("report");
    assert.equal(none.url, null);
    assert.equal(q.exists(".design"), false, "a look at the status creates no .design/");
  });
});
