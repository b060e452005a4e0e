// next, record-usage, memory-add and curator-apply killed at every step boundary and at random moments between:
// the retried call completes the work or reports it, and nothing is recorded twice.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliInProcess as call } from "../helpers/cli.ts";
import { assertNothingBlocks, assertSound, copyProject, crashSweep, duplicateKeys, jsonlOf } from "../helpers/crash.ts";
import { planWith, writeFiles } from "../helpers/design-dir.ts";

const P = ".design/plan.json";
const MEM = ".design/memory.jsonl";
const RUN = { schemaVersion: 1, skill: "execute", runId: "run-7", goal: "Add the login page", goalSha256: "x", inputs: [], phases: ["a"], completed: [], startedAt: "2026-03-03T09:00:00Z", updatedAt: "2026-03-03T09:00:00Z", completedAt: null, outcome: null };

function template(t: { after: (fn: () => void) => void }, files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "do-crash-tpl-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFiles(dir, files);
  return dir;
}
const planOf = (dir: string) => JSON.parse(readFileSync(join(dir, P), "utf8"));

describe("next killed at any point", () => {
  it("records each start once; the retry hands it out or reports it running", async (t) => {
    const tpl = template(t, { [P]: planWith(["api", "ui", { name: "docs", deps: ["api"] }]), ".design/run-execute.json": RUN });
    await crashSweep({
      prepare: () => copyProject(t, tpl),
      call: { args: ["next"] },
      check: async (dir) => {
        assertSound(dir);
        const r = await call(["next"], { cwd: dir });
        assert.equal(r.code, 0, r.stdout);
        const named = [...r.json.start, ...r.json.running].map((s: { name: string }) => s.name).sort();
        assert.deepEqual(named, ["api", "ui"], "both starts handed out or reported running");
        for (const role of planOf(dir).roles.slice(0, 2)) {
          assert.equal(role.status, "in_progress");
          assert.equal(role.attemptLog.length, 1, `${role.name}: one recorded start`);
          assert.equal(role.attemptLog[0].runId, "run-7");
        }
        assertNothingBlocks(dir);
      },
    });
  });
});

describe("record-usage killed at any point", () => {
  it("the retry records the usage once, in its attempt", async (t) => {
    const plan: any = planWith([{ name: "api", status: "in_progress" }, "ui"]);
    plan.roles[0].attemptLog = [{ attempt: 1, model: "haiku", agent: "api", outcome: "running", runId: "run-7" }];
    const tpl = template(t, { [P]: plan, ".design/run-execute.json": RUN });
    const args = ["record-usage", "--agent", "api", "--tokens", "4378", "--tool-uses", "2", "--duration-ms", "213"];
    // No Claude Code session in the child: the notification's numbers are what it records.
    await crashSweep({
      prepare: () => copyProject(t, tpl),
      call: { args, env: { CLAUDE_CODE_SESSION_ID: "" } },
      check: async (dir) => {
        assertSound(dir);
        const r = await call(args, { cwd: dir });
        assert.equal(r.code, 0, r.stdout);
        const log = planOf(dir).roles[0].attemptLog;
        assert.equal(log.length, 1);
        assert.equal(log[0].usage.tokens, 4378);
        assertNothingBlocks(dir);
      },
    });
  });
});

describe("memory-add killed at any point", () => {
  it("the memory is stored once: the retry stores it or names the stored one, and the next add works", async (t) => {
    const tpl = template(t, { [MEM]: [{ id: "11111111-1111-4111-8111-111111111111", timestamp: "2026-10-01T00:00:00Z", category: "pattern", keywords: ["lint"], content: "The project formats with biome, not prettier", source: "execute", goal_context: "old", importance: 4, usage_count: 0 }] });
    const args = ["memory-add", "--category", "pattern", "--keywords", "rest,api", "--content", "Paginate list endpoints with cursor tokens"];
    await crashSweep({
      prepare: () => copyProject(t, tpl),
      call: { args },
      check: async (dir) => {
        assertSound(dir);
        const r = await call(args, { cwd: dir });
        if (r.code !== 0) assert.equal(r.json?.gate ?? r.json?.code, r.json?.gate ? "duplicate" : "E_INVALID", r.stdout);
        const mine = jsonlOf(dir, MEM).filter((m) => m.content === "Paginate list endpoints with cursor tokens");
        assert.equal(mine.length, 1, "stored once");
        assert.deepEqual(duplicateKeys(join(dir, MEM), "id"), []);
        const next = await call(["memory-add", "--category", "mistake", "--keywords", "db", "--content", "Run migrations before the seed script"], { cwd: dir });
        assert.equal(next.code, 0, next.stdout);
        assert.equal(jsonlOf(dir, MEM).length, 3);
        assertNothingBlocks(dir);
      },
    });
  });
});

describe("curator-apply killed at any point", () => {
  it("the retry stores each kept memory once and boosts or decays each entry once", async (t) => {
    const base = { timestamp: "2026-10-01T00:00:00Z", source: "execute", goal_context: "old", usage_count: 0 };
    const HELPED = { ...base, id: "22222222-2222-4222-8222-222222222222", category: "convention", keywords: ["lint"], content: "The project formats with biome, not prettier", importance: 4 };
    const MISLED = { ...base, id: "33333333-3333-4333-8333-333333333333", category: "approach", keywords: ["cache"], content: "Cache the GraphQL schema in memory between requests", importance: 5 };
    const EXISTING = { ...base, id: "11111111-1111-4111-8111-111111111111", category: "mistake", keywords: ["npm-test", "database"], content: "npm test needs DATABASE_URL set; acceptance checks should call npm run test:unit instead", importance: 6 };
    const report = {
      memories: [
        { category: "pattern", keywords: ["vite", "proxy"], importance: 7, content: "The dev server proxies /api to port 8080 through vite.config.ts server.proxy" },
        { category: "mistake", keywords: ["npm-test"], importance: 7, content: "npm test needs DATABASE_URL set, so acceptance checks should call npm run test:unit" },
        { category: "failure", keywords: "pnpm,workspace", importance: 8, content: "pnpm install at a package root ignores the workspace lockfile; run it from the repository root" },
      ],
      boost: [HELPED.id],
      decay: [MISLED.id],
      rejected: [],
      summary: "Kept 3.",
    };
    const tpl = template(t, { [P]: planWith(["api"]), ".design/run-execute.json": RUN, [MEM]: [EXISTING, HELPED, MISLED], ".design/memory-curator-report.json": report });
    const args = ["curator-apply", ".design/memory-curator-report.json"];
    const sweep = await crashSweep({
      prepare: () => copyProject(t, tpl),
      call: { args },
      minPoints: 8,
      check: async (dir) => {
        assertSound(dir);
        const r = await call(args, { cwd: dir });
        assert.equal(r.code, 0, r.stdout);
        assert.equal(r.json.stored.length, 2, r.stdout);
        assert.deepEqual(r.json.boosted.sort(), [EXISTING.id, HELPED.id].sort());
        assert.deepEqual(r.json.decayed, [MISLED.id]);
        const all = jsonlOf(dir, MEM);
        assert.equal(all.length, 5, "two stored, once each");
        assert.deepEqual(all.filter((m) => r.json.stored.includes(m.id)).map((m) => m.category).sort(), ["failure", "pattern"]);
        const importance = (id: string) => all.find((m) => m.id === id).importance;
        assert.deepEqual([importance(EXISTING.id), importance(HELPED.id), importance(MISLED.id)], [7, 5, 4], "each adjusted once");
        assert.deepEqual(duplicateKeys(join(dir, MEM), "id"), []);
        assertNothingBlocks(dir);
      },
    });
    assert.ok(sweep.points.includes("curator:stored") && sweep.points.includes("curator:adjusted"), sweep.points.join(", "));
  });
});
