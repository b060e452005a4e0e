// A lock whose holder is dead is reclaimed at once; one whose holder is alive, or cannot be asked, keeps the
// staleness rule. Each planted lock has its mtime in the future where the test is about the holder, so only the
// holder check (never LOCK_STALE_MS) can explain a writer that gets through.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, rmdirSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { cli } from "../helpers/cli.ts";
import { runCrashing } from "../helpers/crash.ts";
import { planWith, writeFiles } from "../helpers/design-dir.ts";

function tempProject(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), "do-lock-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFiles(dir, { ".design/plan.json": planWith(["a", "b"]) });
  return dir;
}

const read = (path: string) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};
const HOST = hostname().replace(/\s/g, "_");
const BOOT = read("/proc/sys/kernel/random/boot_id").trim();
function startOf(pid: number): string {
  const stat = read(`/proc/${pid}/stat`);
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "";
}

/** A pid no process has any more (a child that has exited and been reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(r.stdout);
}

/** Plant `<plan>.lock` with one holder file; `mtime` in seconds from now (future: never stale). */
function plantLock(dir: string, holder: { pid: number; content?: string } | null, mtime: number): string {
  const lock = join(dir, ".design/plan.json.lock");
  mkdirSync(lock);
  if (holder) {
    const content = holder.content ?? `${HOST}\n${BOOT}\n${startOf(holder.pid)}\n`;
    writeFileSync(join(lock, `holder.${holder.pid}.0123456789ab`), content);
  }
  const when = new Date(Date.now() + mtime * 1000);
  utimesSync(lock, when, when);
  return lock;
}

const update = (dir: string, result: string) =>
  cli(["update-status"], { cwd: dir, stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", result }]) });
const resultOf = (dir: string) => JSON.parse(readFileSync(join(dir, ".design/plan.json"), "utf8")).roles[0].result ?? null;

describe("a lock whose holder is dead", () => {
  it("is reclaimed at once from a writer killed while holding it", async (t) => {
    const dir = tempProject(t);
    const killed = await runCrashing({ args: ["update-status"], stdin: '[{"roleIndex":1,"status":"in_progress","result":"k"}]' }, dir, { at: "lock:acquired" });
    assert.equal(killed.killed, true);
    const lock = join(dir, ".design/plan.json.lock");
    const names = readdirSync(lock);
    assert.equal(names.length, 1);
    assert.match(names[0], /^holder\.\d+\.[0-9a-f]{12}$/);
    const [host, boot, start, end] = readFileSync(join(lock, names[0]), "utf8").split("\n");
    assert.deepEqual([host, boot, end], [HOST, BOOT, ""]);
    assert.match(start, BOOT ? /^\d+$/ : /^\d*$/);
    const future = new Date(Date.now() + 3600_000);
    utimesSync(lock, future, future); // only the holder check can free it now
    const r = await update(dir, "after");
    assert.equal(r.code, 0, r.stdout);
    assert.equal(resultOf(dir), "after");
    assert.equal(existsSync(lock), false);
  });

  it("is reclaimed at once when the pid is gone, or now belongs to a later process", async (t) => {
    for (const holder of [{ pid: deadPid() }, { pid: process.pid, content: `${HOST}\n${BOOT}\n1\n` }]) {
      const dir = tempProject(t);
      plantLock(dir, holder, 3600);
      const r = await update(dir, "x");
      assert.equal(r.code, 0, `${JSON.stringify(holder)}: ${r.stdout}`);
      assert.equal(resultOf(dir), "x");
    }
  });

  it("is reclaimed by one waiter only when many wait at once: no update lost", async (t) => {
    for (let round = 0; round < 3; round++) {
      const dir = mkdtempSync(join(tmpdir(), "do-lock-"));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      writeFiles(dir, { ".design/plan.json": planWith(Array.from({ length: 8 }, (_, i) => `r${i}`)) });
      plantLock(dir, { pid: deadPid() }, 3600);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => cli(["update-status"], { cwd: dir, stdin: JSON.stringify([{ roleIndex: i, status: "in_progress", result: `w${i}` }]) })),
      );
      results.forEach((r, i) => assert.equal(r.code, 0, `writer ${i}: ${r.stdout}`));
      const plan = JSON.parse(readFileSync(join(dir, ".design/plan.json"), "utf8"));
      plan.roles.forEach((r: { result: string }, i: number) => assert.equal(r.result, `w${i}`, `round ${round}: writer ${i}'s update`));
      assert.equal(existsSync(join(dir, ".design/plan.json.lock")), false);
    }
  });
});

describe("a lock whose holder is alive or unknown", () => {
  it("waits for a live holder, a torn holder file or another host's until it lets go", async (t) => {
    const dead = deadPid();
    const holders = [{ pid: process.pid }, { pid: dead, content: "" }, { pid: dead, content: `${HOST}\n` }, { pid: dead, content: `elsewhere\n${BOOT}\n1\n` }];
    await Promise.all(
      holders.map(async (holder) => {
        const dir = tempProject(t);
        const lock = plantLock(dir, holder, 3600);
        let released = false;
        const writer = update(dir, "waited").then((r) => ({ r, afterRelease: released }));
        await new Promise((resolve) => setTimeout(resolve, 800));
        assert.equal(resultOf(dir), null, `${JSON.stringify(holder)}: the writer took the lock`);
        for (const n of readdirSync(lock)) unlinkSync(join(lock, n));
        rmdirSync(lock);
        released = true;
        const { r, afterRelease } = await writer;
        assert.equal(r.code, 0, r.stdout);
        assert.equal(afterRelease, true);
        assert.equal(resultOf(dir), "waited");
      }),
    );
  });

  it("keeps the staleness rule for a lock with no holder file, a torn one, or another host's", async (t) => {
    const dead = deadPid();
    const cases = [null, { pid: dead, content: "" }, { pid: dead, content: `${HOST}\n` }, { pid: dead, content: `elsewhere\n${BOOT}\n1\n` }];
    for (const holder of cases) {
      const dir = tempProject(t);
      plantLock(dir, holder, -10); // stale
      const r = await update(dir, "stale");
      assert.equal(r.code, 0, `${JSON.stringify(holder)}: ${r.stdout}`);
      assert.equal(resultOf(dir), "stale");
    }
  });
});
