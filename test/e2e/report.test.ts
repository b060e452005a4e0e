// /do:plan-status writes the run report and hands the lead its file:// link and the Unicode summary, through the real
// CLI (`claude -p "/do:plan-status"`), on a plan in each state an execute run leaves: fresh, partly run with a
// failure, completed, and an aborted run that had no plan. Each state is made by the helper's own calls as
// execute's SKILL.md spells them, run as processes (run-start, grant, the user's grant-approve.js, update-status,
// run-checks running the plan's real checks, record-usage, run-checkpoint, memory-add, reflection-add,
// run-complete). Each report is then opened in headless Chromium with no network: every role is drawn, the page
// logs no error and asks for nothing but its own file. The partly run plan's report is kept as
// .cache/e2e-reports/plan-status-partial.html (and its picture in .cache/report-screenshots/): README's screenshot,
// docs/report.png, is made from it by scripts/report-screenshot.mjs.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ensureClaude, PLUGIN_DIR, ROOT } from "./lib/claude.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { commandPrompt, delivery } from "./lib/prompts.ts";
import { assertClean, session } from "./lib/session.ts";
import { REQUIRED_AUXILIARIES } from "./lib/fixtures.ts";
import { Browser, chromiumWorks } from "../helpers/browser.ts";
import { PLAN_JS } from "../helpers/cli.ts";

const TIMEOUT = 180_000;
const REPORTS = resolve(ROOT, ".cache/e2e-reports");
const SHOTS = resolve(ROOT, ".cache/report-screenshots");
const GOAL = "add due dates to the todo API";
const PHASES = "pre-flight,challenge,grant,workers,verify,learn,close";
const API_TEST = "test/api.test.js";

/** Four roles on the sample project: store first, api on it, ui on api; docs alone. Real checks, run by run-checks. */
function planDoc(): object {
  const role = (name: string, model: string, dirs: string[], patterns: string[], deps: string[], criterion: string, check: string) => ({
    name,
    goal: `${name}: its part of ${GOAL}`,
    model,
    scope: { directories: dirs, patterns, dependencies: deps },
    expertContext: [],
    constraints: [],
    acceptanceCriteria: [{ criterion, check }],
    assumptions: [],
    rollbackTriggers: [],
    fallback: "",
  });
  return {
    schemaVersion: 4,
    goal: GOAL,
    context: { stack: "Node 20, CommonJS, node:test", conventions: [], testCommand: "node --test test/", buildCommand: null, lsp: null },
    expertArtifacts: [],
    designDecisions: [],
    verificationSpecs: [],
    roles: [
      role("schema-designer", "haiku", ["src/db"], [], [], "The store tests pass", "node --test test/"),
      role("api-developer", "sonnet", ["src/api"], [], ["schema-designer"], "The API test passes", `node --test ${API_TEST}`),
      role("ui-developer", "sonnet", ["src/ui"], [], ["api-developer"], "The page still loads", "node --test test/"),
      role("docs-writer", "haiku", [], ["README.md"], [], "The README mentions due dates", "grep -q 'due date' README.md"),
    ],
    auxiliaryRoles: REQUIRED_AUXILIARIES,
  };
}
const ROLE_NAMES = (planDoc() as any).roles.map((r: any) => r.name) as string[];

describe("/do:plan-status writes .design/report.html and shows its link and summary, through claude -p", () => {
  let config: string;
  const projects: Sample[] = [];
  let browser: Browser | undefined;
  const chromium = chromiumWorks();

  before(() => {
    ensureClaude();
    config = mkdtempSync(join(tmpdir(), "do-e2e-report-config-"));
    if (chromium) browser = Browser.launch();
    else assert.ok(!process.env.CI, "CI must have Chromium: .ci/run installs Debian's chromium");
    mkdirSync(REPORTS, { recursive: true });
    mkdirSync(SHOTS, { recursive: true });
  });
  after(() => {
    browser?.close();
    cleanup(config, ...projects.map((p) => p.dir));
  });

  /** The helper (or execute's grant-approve.js: the user's consent) as a process, the way the lead's Bash runs it. */
  function helper(p: Sample, args: string[], stdin = "", script = PLAN_JS): any {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, CLAUDE_CONFIG_DIR: config };
    const r = spawnSync(process.execPath, [script, ...args], { cwd: p.dir, input: stdin, encoding: "utf8", env });
    let doc: any;
    try {
      doc = JSON.parse(r.stdout);
    } catch {
      /* said below */
    }
    assert.equal(doc?.ok, true, `${args.join(" ")}: ${r.stdout} ${r.stderr}`);
    return doc;
  }
  const update = (p: Sample, updates: object[]) => helper(p, ["update-status", ".design/plan.json"], JSON.stringify(updates));
  const checkpoint = (p: Sample, phase: string, decisions: string) => helper(p, ["run-checkpoint", "execute", "--phase", phase, "--decisions", decisions]);

  function fresh(): Sample {
    const p = sampleProject("do-e2e-report-");
    projects.push(p);
    p.write(".design/plan.json", planDoc());
    return p;
  }

  /** Phases 1 to 3 of an execute run: the run opened, the grant proposed and approved by the user. */
  function begin(p: Sample): void {
    helper(p, ["run-start", "execute", "--phases", PHASES, "--goal", GOAL]);
    checkpoint(p, "pre-flight", "0 roles reset, 4 to run");
    checkpoint(p, "challenge", "0 blocking resolved, 0 constraints added");
    const proposal = helper(p, ["grant", ".design/plan.json"]);
    assert.ok(proposal.commands.some((c: any) => c.value === `node --test ${API_TEST}`), JSON.stringify(proposal));
    helper(p, [".design/plan.json"], "", join(ROOT, "skills/execute/scripts/grant-approve.js"));
    checkpoint(p, "grant", "grant approved, 0 memories injected");
  }

  /** One worker's attempt: started, its checks run for real, its cost recorded, closed as the checks decide. */
  function attempt(p: Sample, i: number, usage: [number, number, number], work?: () => void): boolean {
    const role = (p.json(".design/plan.json") as any).roles[i];
    update(p, [{ roleIndex: i, status: "in_progress", model: role.model, agent: role.name }]);
    work?.();
    const checks = helper(p, ["run-checks", ".design/plan.json", "--role", String(i)]);
    helper(p, ["record-usage", ".design/plan.json", "--agent", role.name, "--tokens", String(usage[0]), "--tool-uses", String(usage[1]), "--duration-ms", String(usage[2])]);
    update(p, [{ roleIndex: i, status: checks.passed ? "completed" : "failed", result: checks.passed ? `${role.name} done` : `attempt 1: its check failed` }]);
    return checks.passed;
  }

  function close(p: Sample, outcome: string, achieved: boolean, evaluation: object, goal = GOAL): void {
    p.write(".design/tmp/eval.json", evaluation);
    helper(p, ["reflection-add", ".design/reflection.jsonl", "--skill", "execute", "--goal", goal, "--outcome", outcome, "--goal-achieved", String(achieved)], JSON.stringify(evaluation));
    helper(p, ["run-complete", "execute", "--outcome", outcome]);
  }

  /** /do:plan-status through the CLI: the JSON the command injected into what the lead received. */
  async function planStatus(p: Sample): Promise<{ doc: any; received: string }> {
    const s = await session({ prompt: "/do:plan-status", cwd: p.dir, script: [{ text: "Shown." }] });
    assertClean(s);
    const d = delivery(commandPrompt(PLUGIN_DIR, "plan-status"), PLUGIN_DIR, "", s.received);
    assert.deepEqual(d.missing, [], "the command's body did not arrive");
    return { doc: JSON.parse(d.injected[0]), received: s.received };
  }

  /** What every state shares: the file written, its link and the Unicode summary in the lead's prompt, no Mermaid. */
  function assertHanded(p: Sample, doc: any, received: string): string {
    const url = pathToFileURL(join(realpathSync(p.dir), ".design/report.html")).href;
    assert.equal(doc.ok, true, JSON.stringify(doc));
    assert.equal(doc.path, ".design/report.html");
    assert.equal(doc.url, url);
    assert.ok(p.exists(".design/report.html"), "report.html was not written");
    const lines: string[] = doc.summary.split("\n");
    assert.equal(lines[lines.length - 1], `Report: ${url}`, "the summary ends with the report's link");
    assert.ok(received.includes(JSON.stringify(doc.summary).slice(1, -1)), "the lead received the summary as the helper wrote it");
    assert.ok(!/mermaid/i.test(received), "no Mermaid block reaches the lead");
    return url;
  }

  /** The role lines of the summary: glyph and name, in dependency order. */
  const roleLines = (summary: string) =>
    summary
      .split("\n")
      .filter((l) => /^ {2}\S /.test(l))
      .map((l) => l.trim().split(/\s+/).slice(0, 2).join(" "));

  /** The report in headless Chromium: every role drawn, no error, no request but the file. Returns the page text. */
  async function inBrowser(url: string, roles: string[], shot?: string): Promise<string> {
    if (!browser) return "";
    const page = await browser.page(1280, 900);
    await page.open(url);
    const drawn = await page.evaluate<string[]>(`[...document.querySelectorAll("#graph a.node")].map((a) => a.getAttribute("aria-label"))`);
    assert.deepEqual(drawn.map((l) => l.replace(/: .*$/, "")).sort(), [...roles].sort(), "every role is a node of the graph");
    const sections = await page.evaluate<number>(`document.querySelectorAll("section.role").length`);
    assert.equal(sections, roles.length, "every role has its section");
    assert.deepEqual(page.errors(), [], "no console error");
    assert.deepEqual([...new Set(page.requests())], [url], "no request leaves the file");
    if (shot) {
      const png = await page.send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true });
      writeFileSync(join(SHOTS, shot), Buffer.from(png.data, "base64"));
    }
    return page.evaluate<string>(`document.body.innerText`);
  }

  it("a fresh plan: every role pending, what next would start, and the report", { timeout: TIMEOUT }, async () => {
    const p = fresh();
    const { doc, received } = await planStatus(p);
    const url = assertHanded(p, doc, received);
    assert.equal(doc.state, "ready");
    assert.deepEqual(doc.counts, { pending: 4 });
    assert.deepEqual(roleLines(doc.summary), ["○ schema-designer", "○ docs-writer", "○ api-developer", "○ ui-developer"]);
    assert.match(doc.summary, /^ {2}○ api-developer .* ← schema-designer$/m, "a dependency is drawn");
    assert.match(doc.summary, /^Next: start schema-designer, docs-writer; api-developer waits for schema-designer \(dependency\); ui-developer waits for api-developer \(dependency\)$/m);
    assert.doesNotMatch(doc.summary, /^Run: /m, "no run yet");
    const text = await inBrowser(url, ROLE_NAMES);
    if (browser) assert.match(text, /No execute run recorded/);
  });

  it("a run that completed one role and failed another: attempts, real evidence, cost, verdicts, memory, history", { timeout: TIMEOUT }, async () => {
    const p = fresh();
    begin(p);
    assert.equal(attempt(p, 0, [18_240, 11, 64_000]), true, "schema-designer's check passes");
    assert.equal(attempt(p, 1, [42_310, 23, 151_000]), false, "api-developer's test does not exist yet");
    checkpoint(p, "workers", "1 completed, 1 failed, 1 skipped: api-developer failed its check, ui-developer waits on it");
    p.write(".design/integration-verifier-report.json", {
      status: "FAIL",
      acceptanceCriteria: [{ role: "api-developer", criterion: "The API test passes", result: "fail", details: `${API_TEST} is missing` }],
      crossRoleIssues: [{ issue: "The list endpoint never returns dueDate", affectedRoles: ["api-developer"], severity: "blocking", suggestedFix: "Retry api-developer" }],
      testResults: { command: "node --test test/", exitCode: 0, output: "pass 1" },
      endToEndVerification: { tested: false, result: "skipped", details: "the API is not done" },
      summary: "The store carries due dates; the API does not return them yet.",
    });
    helper(p, ["validate-auxiliary-report", ".design/integration-verifier-report.json", "--type", "integration-verifier"]);
    checkpoint(p, "verify", "goal partial, 0 fix rounds");
    helper(p, ["memory-add", ".design/memory.jsonl", "--category", "mistake", "--keywords", "api,tests", "--content", "Write the API's test file before its acceptance check names it", "--importance", "6", "--source", "execute", "--goal-context", GOAL]);
    checkpoint(p, "learn", "1 memories stored, 0 boosted, 0 decayed");
    close(p, "partial", false, {
      whatWorked: ["The store change passed its check on the first attempt"],
      whatFailed: [`api-developer's check named ${API_TEST}, which no one wrote`],
      doNextTime: ["Write the API's test file before its acceptance check names it"],
    });

    const { doc, received } = await planStatus(p);
    const url = assertHanded(p, doc, received);
    assert.equal(doc.state, "in_progress");
    // ui-developer was skipped with its dependency's failure, but api-developer has a retry left (which brings it
    // back): the report shows it pending, waiting for that retry (issue 31), not skipped.
    assert.deepEqual(doc.counts, { completed: 1, failed: 1, pending: 2 });
    assert.deepEqual(roleLines(doc.summary), ["✔ schema-designer", "○ docs-writer", "✖ api-developer", "○ ui-developer"]);
    assert.match(doc.summary, /ui-developer .*\(waits for api-developer's retry\)$/m);
    assert.match(doc.summary, /^ {2}✔ schema-designer +haiku +1 attempt +18,240 tok$/m);
    assert.match(doc.summary, /^Run: \S+ partial \(ended [^)]+\); verifier FAIL; goal partial$/m);
    assert.match(doc.summary, /^Cost: 60,550 tokens \(haiku 18,240, sonnet 42,310\) over 1 run$/m);
    assert.match(doc.summary, /^Memories: 1 stored by this run; \d+ in the project$/m);

    const html = p.read(".design/report.html");
    copyFileSync(p.path(".design/report.html"), join(REPORTS, "plan-status-partial.html"));
    for (const s of ["# pass 1", "Could not find", "The list endpoint never returns dueDate", "goal partial", "Write the API&#39;s test file", "60,550", "151 s"]) {
      assert.ok(html.includes(s), `the report lacks ${s}`);
    }
    const text = await inBrowser(url, ROLE_NAMES, "e2e-partial.png");
    if (browser) {
      for (const s of ["✔ passed (exit 0", "✖ failed (exit 1", "Integration verifier: FAIL", "Goal review: goal partial", "Phases of the run", "Memories stored", "Run history"]) {
        assert.ok(text.includes(s), `the page does not show ${s}`);
      }
    }
  });

  it("a completed run: every role done with passing evidence, the verifier's PASS and the goal met", { timeout: TIMEOUT }, async () => {
    const p = fresh();
    begin(p);
    attempt(p, 0, [9_100, 6, 30_000]);
    attempt(p, 3, [4_200, 3, 12_000], () => p.write("README.md", "# todo-api\n\nEach todo may carry a due date (ISO 8601).\n"));
    attempt(p, 1, [30_500, 17, 95_000], () => p.write(API_TEST, "const test = require('node:test');\ntest('list loads', () => require('../src/api/server.js')());\n"));
    attempt(p, 2, [12_800, 8, 41_000]);
    checkpoint(p, "workers", "4 completed, 0 failed, 0 skipped: none");
    p.write(".design/integration-verifier-report.json", {
      status: "PASS",
      acceptanceCriteria: ROLE_NAMES.map((role) => ({ role, criterion: "its check", result: "pass", details: "re-run" })),
      crossRoleIssues: [],
      testResults: { command: "node --test test/", exitCode: 0, output: "pass 2" },
      endToEndVerification: { tested: true, result: "pass", details: "the list carries due dates" },
      summary: "All four roles fit together.",
    });
    checkpoint(p, "verify", "goal achieved, 0 fix rounds");
    checkpoint(p, "learn", "0 memories stored, 0 boosted, 0 decayed");
    close(p, "completed", true, { whatWorked: ["Every check passed on the first attempt"], whatFailed: [], doNextTime: [] });

    const { doc, received } = await planStatus(p);
    const url = assertHanded(p, doc, received);
    assert.equal(doc.state, "done");
    assert.deepEqual(doc.counts, { completed: 4 });
    assert.deepEqual(roleLines(doc.summary).map((l) => l[0]), ["✔", "✔", "✔", "✔"]);
    assert.match(doc.summary, /^Run: \S+ completed \(ended [^)]+\); verifier PASS; goal achieved$/m);
    assert.match(doc.summary, /^Next: nothing left to run/m);
    const text = await inBrowser(url, ROLE_NAMES);
    if (browser) assert.ok(text.includes("Integration verifier: PASS") && text.includes("Goal review: goal achieved"), "the verdicts are shown");
  });

  it("an aborted run that had no plan: plan-status says so, and the report shows the run", { timeout: TIMEOUT }, async () => {
    const p = sampleProject("do-e2e-report-");
    projects.push(p);
    helper(p, ["run-start", "execute", "--phases", PHASES, "--goal", "no plan"]);
    close(p, "aborted", false, { whatWorked: [], whatFailed: ["No plan to execute"], doNextTime: ["Run /do:design first"] }, "no plan");
    const { doc, received } = await planStatus(p);
    const url = assertHanded(p, doc, received);
    assert.equal(doc.state, "none");
    assert.match(doc.problems[0], /^No plan at \.design\/plan\.json: run \/do:design <goal> to make one\.$/);
    assert.match(doc.summary, /^Run: \S+ aborted \(ended [^)]+\); goal not met$/m);
    const text = await inBrowser(url, []);
    if (browser) assert.ok(text.includes("No plan at .design/plan.json") && text.includes("Run /do:design first"), "the page says there was no plan");
  });
});
