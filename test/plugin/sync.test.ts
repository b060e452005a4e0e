import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { makeContext } from "../../src/lib/command/command.ts";
import { invoke } from "../../src/main.ts";
import { ROOT, skillFiles } from "./plugin-files.ts";

// The three shared blocks, located the way the helper's sync-check locates them (contract 4.15).
const BLOCKS = {
  "Script Setup": /### Script Setup\n\n([\s\S]*?)\n\n/,
  "Liveness Pipeline Table": /\| Rule \| Action \|\n\|---\|---\|\n((?:\|.*?\|\n)+)/,
  "Finalize Fallback": /\*\*Fallback\*\* \(if finalize fails\):?\n((?:\d+\. .*?\n)+)/,
};

const EXPECTED: Record<keyof typeof BLOCKS, readonly string[]> = {
  "Script Setup": ["design", "execute", "recon", "improve", "reflect"],
  // execute's table is its own (workers judged by `next`'s clock): checked below only for not counting turns.
  "Liveness Pipeline Table": ["design", "recon", "improve"],
  "Finalize Fallback": ["design", "improve", "reflect"],
};

describe("shared protocol blocks", () => {
  const files = skillFiles();

  for (const [block, re] of Object.entries(BLOCKS) as Array<[keyof typeof BLOCKS, RegExp]>) {
    it(`${block} is present exactly where it belongs`, () => {
      const shared = block === "Liveness Pipeline Table" ? files.filter((f) => f.name !== "execute") : files;
      const found = shared.filter((f) => re.test(f.raw)).map((f) => f.name).sort();
      assert.deepEqual(found, [...EXPECTED[block]].sort());
    });
  }

  it("Script Setup blocks are identical", () => {
    const texts = new Set(files.map((f) => BLOCKS["Script Setup"].exec(f.raw)?.[1]));
    assert.equal(texts.size, 1);
  });

  it("liveness tables act on the helper's stalled, never on counted turns [feature:design/stall-by-the-clock] [feature:recon/stall-by-the-clock] [feature:improve/stall-by-the-clock]", () => {
    for (const f of files.filter((x) => EXPECTED["Liveness Pipeline Table"].includes(x.name))) {
      const rows = BLOCKS["Liveness Pipeline Table"].exec(f.raw)![1].split("\n");
      assert.ok(rows.some((r) => r.trim().startsWith("| Stalled") && r.includes("`waiting.stalled`")), f.rel);
      assert.ok(rows.some((r) => r.trim().startsWith("| Proceed with available")), f.rel);
      assert.doesNotMatch(f.raw, /of your turns|turn timeout|\b\d+ turns\b/i, f.rel);
      // Every report check names the agents still out, so the answer carries their liveness.
      const checks = f.raw.split("\n").filter((l) => l.includes("plan.js\" expert-validate "));
      assert.ok(checks.length > 0, f.rel);
      for (const c of checks) assert.match(c, /--waiting '\{names still out\}'/, `${f.rel}: ${c.trim()}`);
    }
  });

  it("finalize fallbacks are word-for-word the same", () => {
    const texts = new Set(
      files.filter((f) => EXPECTED["Finalize Fallback"].includes(f.name)).map((f) => BLOCKS["Finalize Fallback"].exec(f.raw)![1]),
    );
    assert.equal(texts.size, 1);
  });

  it("sync-check passes on our own skills/", async () => {
    const out = await invoke("sync-check", ["skills"], makeContext(ROOT));
    assert.equal(out.output.ok, true, JSON.stringify(out.output));
    assert.deepEqual(out.output.drifted, []);
    assert.equal((out.output.synced as unknown[]).length, 3);
  });
});
