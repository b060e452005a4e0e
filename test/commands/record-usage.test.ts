// record-usage: what each agent cost, read from its own transcript as Claude Code writes it (fixtures recorded from
// the real CLI, 2.1.332 and 2.1.197, test/fixtures/transcripts/README.md), recorded in the worker's attempt or in
// progress.auxiliaries; the task notification's numbers only when no transcript is found.
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { planWith, project, type Project } from "../helpers/design-dir.ts";
import { projectFolderName, usageOfTranscripts } from "../../src/lib/cost/usage.ts";

const P = ".design/plan.json";
const FIXTURES = resolve(__dirname, "../fixtures/transcripts");
const SESSION = "734b318d-9e25-44d0-aa79-756686109261";
const runState = { schemaVersion: 1, skill: "execute", runId: "run-7", completedAt: null };

/** Point the helper at a scratch Claude config folder and session (restored after the test). */
function claudeSession(t: TestContext, session = SESSION): string {
  const config = mkdtempSync(join(tmpdir(), "do-config-"));
  const saved = { c: process.env.CLAUDE_CONFIG_DIR, s: process.env.CLAUDE_CODE_SESSION_ID };
  process.env.CLAUDE_CONFIG_DIR = config;
  process.env.CLAUDE_CODE_SESSION_ID = session;
  t.after(() => {
    saved.c === undefined ? delete process.env.CLAUDE_CONFIG_DIR : (process.env.CLAUDE_CONFIG_DIR = saved.c);
    saved.s === undefined ? delete process.env.CLAUDE_CODE_SESSION_ID : (process.env.CLAUDE_CODE_SESSION_ID = saved.s);
    rmSync(config, { recursive: true, force: true });
  });
  return config;
}

/** Put a recorded transcript into the session's folder as agent `<id>`, named `name` (or as a Workflow agent). */
function plant(config: string, p: Project, version: string, id: string, meta: Record<string, unknown>, folder?: string, sub = ""): string {
  const dir = join(config, "projects", folder ?? projectFolderName(realpathSync(p.dir)), SESSION, "subagents", sub);
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(FIXTURES, version, "agent-probe.jsonl"), join(dir, `agent-${id}.jsonl`));
  writeFileSync(join(dir, `agent-${id}.meta.json`), JSON.stringify(meta));
  return join(dir, `agent-${id}.jsonl`);
}

function started(t: TestContext): Project {
  const plan: any = planWith([{ name: "api", status: "in_progress" }, "ui"]);
  plan.roles[0].attemptLog = [{ attempt: 1, model: "haiku", agent: "api", outcome: "running", runId: "run-7" }];
  return project(t, { [P]: plan, ".design/run-execute.json": runState });
}

describe("usage from a transcript", () => {
  for (const version of ["2.1.332", "2.1.197"]) {
    it(`sums each API response once (${version}): tokens, its parts, tool uses, requests, duration`, () => {
      const file = join(FIXTURES, version, "agent-probe.jsonl");
      const u = usageOfTranscripts([file]);
      assert.ok(u);
      assert.deepEqual(
        [u.tokens, u.inputTokens, u.outputTokens, u.cacheCreationTokens, u.cacheReadTokens, u.toolUses, u.requests, u.source, u.transcripts],
        [12968, 1107, 150, 211, 11500, 3, 3, "transcript", 1],
      );
      const times = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.type === "user" || e.type === "assistant").map((e) => Date.parse(e.timestamp));
      assert.equal(u.durationMs, Math.max(...times) - Math.min(...times));
      assert.match(String(u.model), /haiku/);
    });
  }

  it("reads nothing it cannot: a missing file gives no usage, torn lines are skipped", (t) => {
    const dir = mkdtempSync(join(tmpdir(), "do-usage-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    assert.equal(usageOfTranscripts([join(dir, "none.jsonl")]), null);
    const torn = join(dir, "torn.jsonl");
    const good = readFileSync(join(FIXTURES, "2.1.197", "agent-probe.jsonl"), "utf8");
    writeFileSync(torn, `{"type":"assistant","message":{"id":"x","usage":{"input_tokens":5}}}\nnot json\n${good}{"type":"assistant","message":`);
    assert.equal(usageOfTranscripts([torn])?.tokens, 12968 + 5);
  });
});

describe("record-usage", () => {
  it("records a worker's usage in its attempt, from its transcript [feature:execute/cost-recorded] [ac:execute/4]", async (t) => {
    const config = claudeSession(t);
    const p = started(t);
    plant(config, p, "2.1.332", "a553911363294eb96", { agentType: "general-purpose", name: "api" });
    plant(config, p, "2.1.197", "b000000000000000", { agentType: "general-purpose", name: "someone-else" });
    const out: any = await p.run("record-usage", ["--agent", "api", "--tokens", "4378", "--tool-uses", "3", "--duration-ms", "213"], { now: Date.UTC(2026, 0, 3) });
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual([out.recordedFor, out.role, out.roleIndex, out.attempt, out.runSpend], ["attempt", "api", 0, 1, 12968]);
    const usage = p.json(P).roles[0].attemptLog[0].usage;
    assert.deepEqual([usage.tokens, usage.toolUses, usage.requests, usage.source, usage.recordedAt], [12968, 3, 3, "transcript", "2026-01-03T00:00:00Z"]);
    assert.deepEqual(usage.notified, { tokens: 4378, toolUses: 3, durationMs: 213 }, "the notification's numbers are kept beside, for comparison");
    // Again: the same record, replaced (an agent resumed by SendMessage is summed whole).
    await p.run("record-usage", ["--agent", "api"]);
    assert.equal(p.json(P).roles[0].attemptLog[0].usage.tokens, 12968);
    assert.equal(p.json(P).roles[0].attemptLog[0].usage.notified, undefined);
  });

  it("finds a Workflow agent by its label, or by its prompt where the release writes no label", async (t) => {
    const config = claudeSession(t);
    const p = started(t);
    plant(config, p, "2.1.332", "w1", { agentType: "workflow-subagent", description: "api" }, undefined, "workflows/wf_1");
    assert.equal(((await p.run("record-usage", ["--agent", "api"])) as any).usage.tokens, 12968);
    // 2.1.197: no description; the helper's workflow prompt names the agent first thing.
    const q = started(t);
    const file = plant(config, q, "2.1.197", "w2", { agentType: "workflow-subagent", spawnDepth: 1 }, undefined, "workflows/wf_2");
    const lines = readFileSync(file, "utf8").split("\n");
    const first = JSON.parse(lines[0]);
    first.message.content = "You are api, the worker for role 0 (\"api\") of the plan in .design/plan.json.";
    writeFileSync(file, [JSON.stringify(first), ...lines.slice(1)].join("\n"));
    assert.equal(((await q.run("record-usage", ["--agent", "api"])) as any).usage.tokens, 12968);
  });

  it("finds the session under another project folder name, and records an auxiliary in progress.auxiliaries", async (t) => {
    const config = claudeSession(t);
    const p = started(t);
    plant(config, p, "2.1.197", "c1", { agentType: "general-purpose", name: "challenger" }, "-some-other-spelling");
    const out: any = await p.run("record-usage", ["--agent", "challenger"]);
    assert.equal(out.recordedFor, "auxiliary");
    assert.deepEqual(p.json(P).progress.auxiliaries.map((a: any) => [a.agent, a.runId, a.usage.tokens]), [["challenger", "run-7", 12968]]);
    await p.run("record-usage", ["--agent", "challenger"]);
    assert.equal(p.json(P).progress.auxiliaries.length, 1, "recorded again: replaced, not added");
  });

  it("falls back to the notification's numbers, and says what it could not find", async (t) => {
    claudeSession(t);
    const p = started(t);
    const none: any = await p.run("record-usage", ["--agent", "api"]);
    assert.equal(none.code, "E_NOT_FOUND");
    assert.match(none.error, /pass the task notification's numbers \(--tokens, --tool-uses, --duration-ms\)/);
    const out: any = await p.run("record-usage", ["--agent", "api", "--tokens", "4378", "--tool-uses", "2", "--duration-ms", "213"]);
    assert.deepEqual([out.usage.tokens, out.usage.toolUses, out.usage.durationMs, out.usage.source], [4378, 2, 213, "notification"]);
  });

  it("refuses a name that is neither a worker's attempt nor an auxiliary, and a malformed one, writing nothing", async (t) => {
    const config = claudeSession(t);
    const p = started(t);
    plant(config, p, "2.1.197", "x1", { name: "stranger" });
    const before = p.read(P);
    assert.equal(((await p.run("record-usage", ["--agent", "stranger"])) as any).code, "E_NOT_FOUND");
    for (const bad of ["../api", "API", "a b", ""]) assert.equal(((await p.run("record-usage", ["--agent", bad])) as any).code, "E_USAGE", bad);
    assert.equal(((await p.run("record-usage", ["--agent", "api", "--tokens", "-1"])) as any).code, "E_USAGE");
    assert.equal(p.read(P), before);
  });
});

describe("a stopped attempt's cost (issue 31)", () => {
  it("update-status recording a stall takes the stopped agent's cost from its transcript; the report counts it", async (t) => {
    const config = claudeSession(t);
    const p = started(t);
    plant(config, p, "2.1.332", "a1", { agentType: "general-purpose", name: "api" });
    const out: any = await p.run("update-status", [], { stdin: '[{"roleIndex": 0, "status": "failed", "stalled": true, "result": "stalled"}]' });
    assert.equal(out.ok, true, JSON.stringify(out));
    const entry = p.json(P).roles[0].attemptLog[0];
    assert.deepEqual([entry.outcome, entry.usage?.tokens, entry.usage?.source], ["stalled", 12968, "transcript"]);
    const report: any = await p.run("report");
    assert.match(report.summary, /^Cost: 12,968 tokens/m, report.summary);
    // Without a transcript (another session), nothing is made up: the attempt stays unmeasured.
    claudeSession(t, "0a0a0a0a-0000-4000-8000-000000000000");
    const q = started(t);
    await q.run("update-status", [], { stdin: '[{"roleIndex": 0, "status": "failed", "stalled": true, "result": "stalled"}]' });
    assert.equal(q.json(P).roles[0].attemptLog[0].usage, undefined);
  });
});
