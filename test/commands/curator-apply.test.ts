// curator-apply: the curator's report applied in one call (stored, a duplicate boosted instead, boost and decay
// lists, gates' refusals answered), an invalid report writing nothing, content with shell syntax stored byte for
// byte; and the auxiliary's usage recorded by curator-apply and validate-auxiliary-report (issue 24).
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { planWith, project, type Project } from "../helpers/design-dir.ts";
import { changed, outsideOwned, snapshot } from "../helpers/changes.ts";
import { projectFolderName } from "../../src/lib/cost/usage.ts";

const T0 = Date.parse("2026-11-26T10:00:00Z");
const R = ".design/memory-curator-report.json";
const EXISTING = {
  id: "11111111-1111-4111-8111-111111111111", timestamp: "2026-10-01T00:00:00Z", category: "mistake", keywords: ["npm-test", "database"],
  content: "npm test needs DATABASE_URL set; acceptance checks should call npm run test:unit instead", source: "execute", goal_context: "old", importance: 6, usage_count: 0,
};
const HELPED = { ...EXISTING, id: "22222222-2222-4222-8222-222222222222", category: "convention", keywords: ["lint"], content: "The project formats with biome, not prettier", importance: 4 };
const MISLED = { ...EXISTING, id: "33333333-3333-4333-8333-333333333333", category: "approach", keywords: ["cache"], content: "Cache the GraphQL schema in memory between requests", importance: 5 };

function report(extra: Record<string, unknown> = {}) {
  return {
    memories: [
      { category: "pattern", keywords: ["vite", "proxy"], importance: 7, surprise: "the README says the API runs on its own port", content: "The dev server proxies /api to port 8080 through vite.config.ts server.proxy" },
      { category: "failure", keywords: "pnpm,workspace", importance: 8, surprise: "a worker lost an attempt to a second lockfile it created", content: "pnpm install at a package root ignores the workspace lockfile; run it from the repository root" },
    ],
    boost: [HELPED.id],
    decay: [MISLED.id],
    rejected: [{ candidate: "role api finished", gate: "transferability" }],
    summary: "Kept 2 of 3 candidates.",
    ...extra,
  };
}

function setup(t: TestContext, rep: unknown = report()): Project {
  return project(t, {
    ".design/plan.json": planWith(["api"]),
    ".design/run-execute.json": { schemaVersion: 1, skill: "execute", runId: "run-1", goal: "Add the login page", goalSha256: "x", inputs: [], phases: ["a"], completed: [], startedAt: "2026-11-26T09:00:00Z", updatedAt: "2026-11-26T09:00:00Z", completedAt: null, outcome: null },
    ".design/memory.jsonl": [EXISTING, HELPED, MISLED],
    [R]: rep,
  });
}

const memories = (p: Project) => p.read(".design/memory.jsonl").trim().split("\n").map((l) => JSON.parse(l));

describe("curator-apply", () => {
  it("answers a memory without specificity, or scored high without its surprise, in rejected; refuses a report that scores every memory alike", async (t) => {
    const vague = { category: "pattern", keywords: ["x"], importance: 3, content: "stuff" };
    const generic = { category: "approach", keywords: ["jest"], importance: 4, content: "Be careful with tests" };
    const loud = { category: "mistake", keywords: ["vite", "proxy"], importance: 9, content: "The dev server proxies /api to port 8080 through vite.config.ts server.proxy" };
    const p = setup(t, report({ memories: [vague, generic, loud], boost: [], decay: [] }));
    const out: any = await p.run("curator-apply", [R], { now: T0 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.deepEqual(out.stored, []);
    assert.deepEqual(out.rejected.map((r: any) => [r.content, r.gate]), [["stuff", "keywords"], ["Be careful with tests", "specificity"], [loud.content, "importance"]]);
    assert.match(out.rejected[2].reason, /record what was unexpected as "surprise"/);
    const flat = setup(t, report({ memories: [{ ...loud, importance: 5 }, { ...generic, importance: 5 }, { ...vague, importance: 5 }], boost: [], decay: [] }));
    const before = flat.read(".design/memory.jsonl");
    const refused: any = await flat.run("curator-apply", [R], { now: T0 });
    assert.equal(refused.code, "E_INVALID");
    assert.match(refused.error, /every memory has importance 5: score each by how unexpected it was/);
    assert.equal(flat.read(".design/memory.jsonl"), before);
  });

  it("stores each kept memory with its own fields, source the skill and goal the run's; applies boost and decay", async (t) => {
    const p = setup(t);
    const before = snapshot(p.dir);
    const out = await p.run("curator-apply", [R], { now: T0 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.equal((out.stored as string[]).length, 2);
    assert.deepEqual(out.boosted, [HELPED.id]);
    assert.deepEqual(out.decayed, [MISLED.id]);
    assert.deepEqual(out.rejected, []);
    assert.equal(out.summary, "Kept 2 of 3 candidates.");
    const all = memories(p);
    const added = all.filter((m) => (out.stored as string[]).includes(m.id));
    assert.deepEqual(added.map((m) => [m.category, m.keywords, m.importance, m.source, m.goal_context, m.timestamp]), [
      ["pattern", ["vite", "proxy"], 7, "execute", "Add the login page", "2026-11-26T10:00:00Z"],
      ["failure", ["pnpm", "workspace"], 8, "execute", "Add the login page", "2026-11-26T10:00:00Z"],
    ]);
    assert.equal(all.find((m) => m.id === HELPED.id).importance, 5);
    assert.equal(all.find((m) => m.id === MISLED.id).importance, 4);
    assert.deepEqual((out.usage as { recorded: boolean }).recorded, false, "no Claude Code session here: nothing recorded");
    const paths = changed(before, snapshot(p.dir));
    assert.deepEqual(paths, [".design/memory.jsonl"]);
    assert.deepEqual(outsideOwned("curator-apply", "execute", paths), []);
  });

  it("a duplicate of a stored memory becomes a boost of that entry, once", async (t) => {
    const dup = { category: "mistake", keywords: ["npm-test"], importance: 7, surprise: "the failure names no variable at all", content: "npm test needs DATABASE_URL set, so acceptance checks should call npm run test:unit" };
    const p = setup(t, report({ memories: [dup, { ...dup }], boost: [EXISTING.id], decay: [] }));
    const out = await p.run("curator-apply", [R], { now: T0 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.deepEqual(out.stored, []);
    assert.deepEqual(out.boosted, [EXISTING.id], "boosted once for its duplicates and its place in the boost list");
    assert.deepEqual((out.duplicates as Array<{ duplicateOf: string }>).map((d) => d.duplicateOf), [EXISTING.id, EXISTING.id]);
    assert.equal(memories(p).length, 3);
    assert.equal(memories(p).find((m) => m.id === EXISTING.id).importance, 7);
  });

  it("answers what the gates refused and ids it could not find, storing the rest", async (t) => {
    const p = setup(t, report({
      memories: [
        { category: "pattern", keywords: ["ci"], importance: 6, content: "Run 14 tests took 3.2 s on 2026-11-26" },
        { category: "wisdom", keywords: ["x"], importance: 6, content: "The API client retries idempotent requests itself" },
        { category: "pattern", keywords: ["api"], importance: 11, content: "The API client retries idempotent requests itself" },
        { category: "pattern", keywords: ["retry"], importance: 6, content: "The API client retries idempotent requests itself" },
      ],
      boost: ["44444444-4444-4444-8444-444444444444"],
      decay: [],
    }));
    const out = await p.run("curator-apply", [R], { now: T0 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.equal((out.stored as string[]).length, 1);
    assert.deepEqual((out.rejected as Array<{ gate: string }>).map((r) => r.gate), ["session-specific", "category", "importance"]);
    assert.deepEqual(out.notFound, [{ id: "44444444-4444-4444-8444-444444444444", list: "boost" }]);
  });

  it("stores content with shell syntax byte for byte", async (t) => {
    const content = "Quote args in checks: bash -c \"npm test -- --grep '$(whoami)'\" expands `id` and $HOME; use a file; a && b || c > /dev/null";
    const p = setup(t, report({ memories: [{ category: "mistake", keywords: ["bash", "quoting"], importance: 7, surprise: "quotes inside a heredoc still expand", content }], boost: [], decay: [] }));
    const out = await p.run("curator-apply", [R], { now: T0 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    const [id] = out.stored as string[];
    assert.equal(memories(p).find((m) => m.id === id).content, content);
  });

  it("an invalid report is refused whole: nothing written", async (t) => {
    const bad: unknown[] = [
      { summary: "no memories" },
      { memories: "x", summary: "s" },
      { memories: [], },
      { memories: ["text"], summary: "s" },
      { memories: [{ category: "pattern", keywords: [1], content: "c", importance: 5 }], summary: "s" },
      { memories: [{ category: "pattern", keywords: ["k"], content: 5 }], summary: "s" },
      { memories: [{ category: "pattern", keywords: ["k"], content: "c", importance: "high" }], summary: "s" },
      { memories: [], boost: "all", summary: "s" },
      { memories: [], decay: [7], summary: "s" },
      [],
    ];
    for (const rep of bad) {
      // a good memory first: it must not be stored when the report is invalid
      const withGood = Array.isArray(rep) || !Array.isArray((rep as { memories?: unknown }).memories) ? rep : { ...(rep as object), memories: [report().memories[0], ...((rep as { memories: unknown[] }).memories)] };
      const p = setup(t, withGood);
      const before = snapshot(p.dir);
      const out = await p.run("curator-apply", [R], { now: T0 });
      assert.equal(out.code, "E_INVALID", JSON.stringify(rep));
      assert.match(out.error as string, /^Schema validation failed: /);
      assert.deepEqual(changed(before, snapshot(p.dir)), [], JSON.stringify(rep));
    }
    const p = setup(t);
    writeFileSync(join(p.dir, R), "{ not json");
    const before = snapshot(p.dir);
    assert.equal((await p.run("curator-apply", [R])).code, "E_JSON");
    assert.equal((await p.run("curator-apply", [".design/missing.json"])).code, "E_NOT_FOUND");
    assert.equal((await p.run("curator-apply", [R, "--memory", ".design/plan.json"])).code, "E_PATH");
    assert.equal((await p.run("curator-apply", [R, "--skill", "deploy"])).code, "E_USAGE");
    assert.deepEqual(changed(before, snapshot(p.dir)), []);
  });
});

/** A scratch Claude config folder and session holding one recorded transcript of agent `name`. */
function session(t: TestContext, p: Project, name: string): void {
  const config = mkdtempSync(join(tmpdir(), "do-config-"));
  const id = "734b318d-9e25-44d0-aa79-756686109261";
  const saved = { c: process.env.CLAUDE_CONFIG_DIR, s: process.env.CLAUDE_CODE_SESSION_ID };
  process.env.CLAUDE_CONFIG_DIR = config;
  process.env.CLAUDE_CODE_SESSION_ID = id;
  t.after(() => {
    saved.c === undefined ? delete process.env.CLAUDE_CONFIG_DIR : (process.env.CLAUDE_CONFIG_DIR = saved.c);
    saved.s === undefined ? delete process.env.CLAUDE_CODE_SESSION_ID : (process.env.CLAUDE_CODE_SESSION_ID = saved.s);
    rmSync(config, { recursive: true, force: true });
  });
  const dir = join(config, "projects", projectFolderName(realpathSync(p.dir)), id, "subagents");
  mkdirSync(dir, { recursive: true });
  copyFileSync(resolve(__dirname, "../fixtures/transcripts/2.1.332/agent-probe.jsonl"), join(dir, "agent-a1.jsonl"));
  writeFileSync(join(dir, "agent-a1.meta.json"), JSON.stringify({ agentType: "general-purpose", name }));
}

describe("auxiliaries' usage without a record-usage call (issue 24)", () => {
  it("curator-apply records the curator's usage in the plan", async (t) => {
    const p = setup(t);
    session(t, p, "memory-curator");
    const out = await p.run("curator-apply", [R], { now: T0 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.deepEqual(out.usage, { recorded: true, agent: "memory-curator", tokens: 12968, toolUses: 3, durationMs: (out.usage as { durationMs: number }).durationMs, runSpend: 12968 });
    assert.deepEqual(p.json(".design/plan.json").progress.auxiliaries.map((a: any) => [a.agent, a.runId, a.usage.tokens]), [["memory-curator", "run-1", 12968]]);
  });

  it("validate-auxiliary-report records a valid report's agent (its type, or --agent), and nothing for an invalid one", async (t) => {
    const p = setup(t);
    writeFileSync(join(p.dir, ".design/scout-report.json"), JSON.stringify({ scopeAreas: [], discrepancies: [], summary: "ok" }));
    writeFileSync(join(p.dir, ".design/bad-report.json"), JSON.stringify({ scopeAreas: [] }));
    session(t, p, "scout");
    const before = snapshot(p.dir);
    const invalid = await p.run("validate-auxiliary-report", [".design/bad-report.json", "--type", "scout"], { now: T0 });
    assert.equal(invalid.code, "E_INVALID");
    assert.deepEqual(changed(before, snapshot(p.dir)), []);
    const out = await p.run("validate-auxiliary-report", [".design/scout-report.json", "--type", "scout"], { now: T0 });
    assert.equal(out.exitCode, 0, JSON.stringify(out));
    assert.equal((out.usage as { recorded: boolean; tokens: number }).recorded, true);
    assert.deepEqual(p.json(".design/plan.json").progress.auxiliaries.map((a: any) => [a.agent, a.usage.tokens]), [["scout", 12968]]);
    const other = await p.run("validate-auxiliary-report", [".design/scout-report.json", "--type", "scout", "--agent", "challenger"], { now: T0 });
    assert.equal((other.usage as { recorded: boolean; reason: string }).recorded, false);
    assert.match((other.usage as { reason: string }).reason, /no transcript of an agent named challenger/);
    assert.equal((await p.run("validate-auxiliary-report", [".design/scout-report.json", "--type", "scout", "--agent", "Bad Name"])).code, "E_USAGE");
  });
});
