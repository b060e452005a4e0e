// The report in a real browser (Debian's headless Chromium, driven over the DevTools pipe): for plans of 2, 40 and
// 300 roles, what a person would see. Every role's box is drawn and none covers another, the page logs no error
// and asks for nothing beyond its own file, the graph's screenshot is not blank, the dark scheme and print work,
// and every box is a keyboard stop linking to its role. Screenshots are kept in .cache/report-screenshots/ (CI
// keeps that folder as an artifact). Without Chromium the tests fail under CI and say why elsewhere.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { invoke } from "../../src/main.ts";
import { makeContext } from "../../src/lib/command/command.ts";
import { Browser, chromiumWorks, type Page } from "../helpers/browser.ts";
import { decodePng, inkOf } from "../helpers/png.ts";
import { reportPlan } from "../helpers/report-plans.ts";

const SHOTS = resolve(__dirname, "../../.cache/report-screenshots");
const available = chromiumWorks();

describe("the report in headless Chromium", { skip: !available && !process.env.CI ? "Chromium is not installed (apt-get install chromium)" : false }, () => {
  let browser: Browser;
  let base: string;
  before(() => {
    assert.ok(available, "CI must have Chromium: .ci/run installs Debian's chromium");
    browser = Browser.launch();
    base = mkdtempSync(join(tmpdir(), "do-report-"));
    mkdirSync(SHOTS, { recursive: true });
  });
  after(() => {
    browser?.close();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  async function reportOf(n: number): Promise<{ url: string; plan: any }> {
    const dir = join(base, `p${n}`);
    mkdirSync(join(dir, ".design"), { recursive: true });
    const plan = reportPlan(n);
    writeFileSync(join(dir, ".design/plan.json"), JSON.stringify(plan));
    const out = await invoke("report", [], makeContext(dir));
    assert.equal(out.exitCode, 0);
    const doc = out.output as any;
    assert.equal(doc.url, pathToFileURL(join(dir, ".design/report.html")).href);
    return { url: doc.url, plan };
  }

  const boxes = (page: Page) =>
    page.evaluate<Array<{ role: string; x: number; y: number; w: number; h: number }>>(
      `[...document.querySelectorAll("#graph a.node")].map((a) => { const r = a.querySelector("rect").getBoundingClientRect(); return { role: a.dataset.role, x: r.x, y: r.y, w: r.width, h: r.height }; })`,
    );

  for (const n of [2, 40, 300]) {
    it(`shows every one of ${n} roles, apart, with nothing but its own file loaded`, async () => {
      const { url, plan } = await reportOf(n);
      const page = await browser.page(1280, 1000);
      await page.open(url);
      const drawn = await boxes(page);
      assert.deepEqual(drawn.map((b) => Number(b.role)).sort((a, b) => a - b), plan.roles.map((_: unknown, i: number) => i));
      for (let i = 0; i < drawn.length; i++) {
        const a = drawn[i];
        assert.ok(a.w > 100 && a.h > 30, `role ${a.role} is drawn at a readable size`);
        for (let j = i + 1; j < drawn.length; j++) {
          const b = drawn[j];
          const apart = a.x + a.w <= b.x + 0.5 || b.x + b.w <= a.x + 0.5 || a.y + a.h <= b.y + 0.5 || b.y + b.h <= a.y + 0.5;
          assert.ok(apart, `roles ${a.role} and ${b.role} overlap on screen`);
        }
      }
      // Edges end on their boxes as the browser lays them out (SVG user units).
      const loose = await page.evaluate<string[]>(`(() => {
        const box = (i) => document.querySelector('#graph a.node[data-role="' + i + '"] rect').getBBox();
        const on = (b, p) => p.x >= b.x - 1 && p.x <= b.x + b.width + 1 && p.y >= b.y - 1 && p.y <= b.y + b.height + 1 &&
          (Math.abs(p.x - b.x) < 1 || Math.abs(p.x - b.x - b.width) < 1 || Math.abs(p.y - b.y) < 1 || Math.abs(p.y - b.y - b.height) < 1);
        return [...document.querySelectorAll("#graph path[data-kind]")].filter((p) => {
          const len = p.getTotalLength();
          return !on(box(p.dataset.from), p.getPointAtLength(0)) || !on(box(p.dataset.to), p.getPointAtLength(len));
        }).map((p) => p.dataset.from + ">" + p.dataset.to);
      })()`);
      assert.deepEqual(loose, []);
      assert.deepEqual(page.errors(), [], "no console error");
      assert.deepEqual([...new Set(page.requests())], [url], "no request leaves the file");
      const links = await page.evaluate<number>(`document.querySelectorAll('#graph a[href^="#role-"]').length`);
      assert.equal(links, n, "every box is a link, a keyboard stop");
      const targets = await page.evaluate<number>(`[...document.querySelectorAll('#graph a[href^="#role-"]')].filter((a) => document.getElementById(a.getAttribute("href").slice(1))).length`);
      assert.equal(targets, n, "every link leads to its role's section");

      const graph = await page.evaluate<{ x: number; y: number; width: number; height: number }>(`(() => { const r = document.getElementById("graph").getBoundingClientRect(); return { x: r.x, y: r.y + window.scrollY, width: Math.min(r.width, 1200), height: Math.min(r.height, 2400) }; })()`);
      const shot = await page.send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true, clip: { ...graph, scale: 1 } });
      const png = Buffer.from(shot.data, "base64");
      writeFileSync(join(SHOTS, `report-${n}-roles.png`), png);
      const ink = inkOf(decodePng(png));
      assert.ok(ink.colours >= 6 && ink.ink > 0.05, `the graph is not blank: ${JSON.stringify(ink)}`);
    });
  }

  it("follows the dark scheme, prints, and keeps plan text as text", async () => {
    const { url } = await reportOf(12);
    const page = await browser.page(1280, 900);
    await page.send("Emulation.setEmulatedMedia", { features: [{ name: "prefers-color-scheme", value: "dark" }] });
    await page.open(url);
    const bg = await page.evaluate<string>(`getComputedStyle(document.body).backgroundColor`);
    const [r, g, b] = bg.match(/\d+/g)!.map(Number);
    assert.ok(r + g + b < 120, `a dark background in the dark scheme: ${bg}`);
    const full = await page.send("Page.captureScreenshot", { format: "png" });
    writeFileSync(join(SHOTS, "report-dark.png"), Buffer.from(full.data, "base64"));
    await page.send("Emulation.setEmulatedMedia", { media: "print", features: [] });
    const pdf = await page.send("Page.printToPDF", { printBackground: false });
    assert.ok(Buffer.from(pdf.data, "base64").subarray(0, 5).toString() === "%PDF-", "prints to a PDF");
    // The goals hold <with> "markup": shown as text, never as elements.
    const injected = await page.evaluate<number>(`document.querySelectorAll("with").length`);
    assert.equal(injected, 0);
    assert.ok((await page.evaluate<string>(`document.body.innerText`)).includes(`Work item 0 <with> "markup" & text`));
    assert.deepEqual(page.errors(), []);
  });

  it("shows the whole run on screen: attempts, evidence, reflexion, phases, verdicts, cost, memories, history", async () => {
    const dir = join(base, "run");
    mkdirSync(join(dir, ".design"), { recursive: true });
    const plan = reportPlan(3);
    const check = plan.roles[1].acceptanceCriteria[0].check;
    plan.roles[1].status = "failed";
    plan.roles[1].attemptLog = [
      { attempt: 1, model: "haiku", agent: "r1", outcome: "stalled", startedAt: "2026-11-26T08:00:00Z", endedAt: "2026-11-26T08:03:00Z" },
      {
        attempt: 2, model: "sonnet", agent: "r1--2", outcome: "failed", startedAt: "2026-11-26T08:04:00Z", endedAt: "2026-11-26T08:06:00Z",
        reflexion: { rootCause: "it stalled reading logs", wrongAssumptions: "logs were small", alternative: "tail the logs" },
        usage: { tokens: 7777, toolUses: 5, durationMs: 120000 },
        evidence: [{ kind: "check", check, exitCode: 2, passed: false, timedOut: false, durationMs: 900, output: "expected 3, got 2" }],
      },
    ];
    const line = (o: object) => JSON.stringify(o) + "\n";
    writeFileSync(join(dir, ".design/plan.json"), JSON.stringify(plan));
    writeFileSync(join(dir, ".design/run-execute.json"), JSON.stringify({
      schemaVersion: 1, skill: "execute", runId: "run-b", goal: "g", startedAt: "2026-11-26T07:59:00Z", updatedAt: "2026-11-26T08:10:00Z", completedAt: "2026-11-26T08:10:00Z", outcome: "failed",
      phases: ["pre-flight", "workers", "verify"], completed: [{ phase: "workers", at: "2026-11-26T08:07:00Z", outputs: [], decisions: "0 completed, 1 failed" }], skippedPhases: ["verify"],
    }));
    writeFileSync(join(dir, ".design/integration-verifier-report.json"), JSON.stringify({ status: "FAIL", summary: "r1 broke the build", crossRoleIssues: [{ issue: "r2 reads what r1 never wrote", severity: "blocking" }] }));
    writeFileSync(join(dir, ".design/memory.jsonl"), line({ id: "m", timestamp: "2026-11-26T08:08:00Z", category: "mistake", keywords: ["logs"], content: "Tail long logs" }));
    writeFileSync(join(dir, ".design/reflection.jsonl"), line({ id: "r", timestamp: "2026-11-26T08:09:00Z", skill: "execute", goal: "ship it", outcome: "failed", goalAchieved: false, evaluation: { whatWorked: [], whatFailed: ["r1 stalled twice"], doNextTime: ["Tail long logs"] } }));
    const out = await invoke("report", [], makeContext(dir));
    const url = (out.output as any).url as string;
    const page = await browser.page(1280, 1000);
    await page.open(url);
    const text = await page.evaluate<string>(`document.body.innerText`);
    for (const s of [
      "stalled (stalled)", "r1--2", "7,777", "120 s",
      "Before attempt 2: root cause it stalled reading logs",
      "✖ failed (exit 2, 0.9 s, attempt 2)", "expected 3, got 2",
      "Phases of the run", "0 completed, 1 failed", "verify: not reached",
      "Integration verifier: FAIL", "r2 reads what r1 never wrote", "Goal review: goal not met", "r1 stalled twice",
      "Tail long logs", "Run history", "ship it",
    ]) assert.ok(text.includes(s), `the page does not show: ${s}`);
    // The attempt with its tier, agent and outcome is one row of the role's table, as a reader sees it.
    const row = await page.evaluate<string>(`document.querySelector('#role-1 tr[data-attempt="2"]').innerText`);
    assert.deepEqual(row.split("\t").map((c) => c.trim()), ["2", "sonnet", "r1--2", "failed", "120 s", "7,777", "5"]);
    assert.deepEqual(page.errors(), []);
    assert.deepEqual([...new Set(page.requests())], [url]);
  });

  it("a live run's report reloads itself and shows the later state, with no request and no error [feature:execute/helper-schedules]", { timeout: 60_000 }, async () => {
    const dir = join(base, "live");
    mkdirSync(join(dir, ".design"), { recursive: true });
    const plan = reportPlan(2);
    for (const r of plan.roles) Object.assign(r, { status: "pending", attempts: 0, attemptLog: [], result: null });
    writeFileSync(join(dir, ".design/plan.json"), JSON.stringify(plan));
    const begin = await invoke("run-begin", ["execute"], makeContext(dir));
    assert.equal(begin.exitCode, 0, JSON.stringify(begin.output));
    const url = pathToFileURL(join(dir, ".design/report.html")).href;
    const page = await browser.page(1280, 1000);
    await page.open(url);
    const statusNow = () => page.evaluate<string>(`document.querySelector('#graph a.node[data-role="0"]').dataset.status`);
    assert.equal(await statusNow(), "pending");
    assert.equal(await page.evaluate<string>(`document.querySelector('meta[http-equiv="refresh"]')?.content ?? ""`), "10");
    // The run advances: next records the first starts and rewrites the report; the open page reloads on its own.
    const next = await invoke("next", [".design/plan.json"], makeContext(dir));
    assert.equal(next.exitCode, 0);
    const deadline = Date.now() + 30_000;
    let seen = await statusNow().catch(() => "");
    while (seen !== "in_progress" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      seen = await statusNow().catch(() => "");
    }
    assert.equal(seen, "in_progress", "the page shows the later state without anyone reloading it");
    assert.deepEqual(page.errors(), [], "no console error (the CSP lets the refresh through)");
    assert.deepEqual([...new Set(page.requests())], [url], "no request but its own file");
  });
});
