// The writers' lock (store.ts): proper-lockfile's protocol without the library, a `<target>.lock` directory whose
// mtime says whether its holder is alive. A holder of either kind must exclude the other; a dead holder's lock
// is broken after LOCK_STALE_MS; the lock is gone after every write, and after an error inside it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { cli } from "../helpers/cli.ts";
import { LOCK_STALE_MS, updateText, withLock } from "../../src/store.ts";

function dir(t: { after: (fn: () => void) => void }): string {
  const d = mkdtempSync(join(tmpdir(), "do-lock-"));
  t.after(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

describe("writers' lock", () => {
  it("takes and removes <target>.lock around the critical section, also when it throws", async (t) => {
    const target = join(dir(t), "plan.json");
    let inside = false;
    await withLock(target, () => {
      inside = existsSync(`${target}.lock`);
    });
    assert.equal(inside, true);
    assert.equal(existsSync(`${target}.lock`), false);
    await assert.rejects(withLock(target, () => {
      throw new Error("boom");
    }), /boom/);
    assert.equal(existsSync(`${target}.lock`), false);
  });

  it("breaks a lock whose holder stopped refreshing it, and only then", async (t) => {
    const target = join(dir(t), "plan.json");
    mkdirSync(`${target}.lock`);
    const old = new Date(Date.now() - LOCK_STALE_MS - 2_000);
    utimesSync(`${target}.lock`, old, old);
    const started = Date.now();
    assert.equal(await updateText(target, () => ({ text: "{}\n", result: "written" })), "written");
    assert.ok(Date.now() - started < LOCK_STALE_MS, "a stale lock is broken at once");
    assert.equal(existsSync(`${target}.lock`), false);
  });

  it("waits for a live holder that uses proper-lockfile, and proper-lockfile sees ours as held", async (t) => {
    const d = dir(t);
    mkdirSync(join(d, ".design"));
    const target = join(d, ".design", "memory.jsonl");
    writeFileSync(target, "");
    const release = lockfile.lockSync(target, { realpath: false, stale: LOCK_STALE_MS });
    const started = Date.now();
    const child = cli(["memory-add", "--category", "pattern", "--keywords", "k", "--content", "written after the other holder let go"], { cwd: d });
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(readFileSync(target, "utf8"), "", "nothing written while the other holder has the lock");
    release();
    const r = await child;
    assert.equal(r.json.ok, true, r.stdout);
    assert.ok(Date.now() - started >= 600);
    assert.match(readFileSync(target, "utf8"), /written after the other holder let go/);
    await withLock(target, () => {
      assert.equal(lockfile.checkSync(target, { realpath: false, stale: LOCK_STALE_MS }), true, "proper-lockfile sees our lock as held");
      assert.throws(() => lockfile.lockSync(target, { realpath: false, stale: LOCK_STALE_MS }), (e: NodeJS.ErrnoException) => e.code === "ELOCKED");
    });
    assert.equal(lockfile.checkSync(target, { realpath: false, stale: LOCK_STALE_MS }), false);
  });
});
