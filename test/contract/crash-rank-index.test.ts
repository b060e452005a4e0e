// `next` killed at any point while it writes the memory file's ranking index (.design/.memory.jsonl.terms, a cache
// replaced by an atomic rename): the retry answers as the full scan does, leaves a fresh, whole index and no temp
// file behind.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliInProcess as call } from "../helpers/cli.ts";
import { assertNothingBlocks, assertSound, copyProject, crashSweep } from "../helpers/crash.ts";
import { planWith, writeFiles } from "../helpers/design-dir.ts";
import { soak } from "../helpers/soak.ts";
import { rankMemoryIndexed, type Route } from "../../src/commands/memory/rank-index.ts";
import { rankMemoryFile } from "../../src/commands/memory/rank-file.ts";
import { searchQuery } from "../../src/commands/memory/scoring.ts";

const P = ".design/plan.json";
const MEM = ".design/memory.jsonl";
const WORDS = "api queue cache redis worker retry backoff schema migration auth router lint deploy build trace".split(" ");

function bigMemory(): string {
  let text = "";
  for (let i = 0; i < 2000; i++) {
    const w = (k: number) => WORDS[(i * 7 + k * 3) % WORDS.length];
    text += JSON.stringify({ id: `m-${i}`, timestamp: "2026-01-01T00:00:00Z", category: "pattern", keywords: [w(1)], content: `Prefer the ${w(2)} ${w(3)} path when ${w(4)} fails (${i})`, source: "t", goal_context: "", importance: 1 + (i % 9), usage_count: 0 }) + "\n";
  }
  return text;
}

describe("next killed while it writes the ranking index", () => {
  it("the retry answers as the full scan and leaves a fresh index and no temp file", async (t) => {
    const tpl = mkdtempSync(join(tmpdir(), "do-crash-tpl-"));
    t.after(() => rmSync(tpl, { recursive: true, force: true }));
    writeFiles(tpl, { [P]: planWith([{ name: "queue", goal: "Make the queue worker retry", dirs: ["src/queue/"] }]), [MEM]: bigMemory() });
    const queries = [searchQuery(["redis cache retry"])];
    await crashSweep({
      prepare: () => copyProject(t, tpl),
      call: { args: ["next"] },
      random: soak(12, 60),
      check: async (dir) => {
        assertSound(dir);
        const r = await call(["next"], { cwd: dir });
        assert.equal(r.code, 0, r.stdout);
        const named = [...r.json.start, ...r.json.running].map((s: { name: string }) => s.name);
        assert.deepEqual(named, ["queue"]);
        assert.deepEqual(readdirSync(join(dir, ".design")).filter((n) => n.endsWith(".tmp")), [], "no temp file left");
        let route: Route | undefined;
        const mem = join(dir, MEM);
        const through = rankMemoryIndexed(mem, join(dir, ".design/.memory.jsonl.terms"), queries, 3, 1.8e9, (x) => (route = x));
        assert.equal(route, "index", "the index is whole and fresh");
        assert.deepEqual(through, rankMemoryFile(mem, queries, 3, 1.8e9));
        assertNothingBlocks(dir);
      },
    });
  });
});
