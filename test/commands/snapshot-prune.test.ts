// run-end of an execute run prunes the attempts' snapshot objects no snapshot the plan records can need
// (src/lib/git/snapshot-prune.ts): older than the plan's earliest recorded snapshot and than the hour's grace. The
// snapshot the plan records stays whole (clean-attempt still undoes from it after the prune), a young object and
// anything that is not a plain object file stay, and the repository's own objects are never touched.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, lstatSync, lutimesSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { planWith } from "../helpers/design-dir.ts";
import { git, gitProject, PLAN } from "../helpers/git-project.ts";
import { earliestSnapshot, pruneSnapshots } from "../../src/lib/git/snapshot-prune.ts";

const OLD = new Date("2020-01-01T00:00:00Z");
const files = { "src/api/a.ts": "original a\n", "src/ui/u.ts": "original u\n" };
const plan = (): any => planWith([{ name: "api", acceptanceCriteria: [{ criterion: "c", check: "true" }] }, { name: "ui" }]);

/** Every loose object file under .design/snapshots/objects, as <fan>/<rest>. */
function objectFiles(dir: string): string[] {
  const root = join(dir, ".design/snapshots/objects");
  if (!existsSync(root)) return [];
  return readdirSync(root).filter((f) => /^[0-9a-f]{2}$/.test(f)).flatMap((f) => readdirSync(join(root, f)).map((n) => `${f}/${n}`)).sort();
}

function plant(dir: string, rel: string, body: string, when: Date): string {
  const file = join(dir, ".design/snapshots/objects", rel);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, body);
  utimesSync(file, when, when);
  return file;
}

describe("snapshot pruning at run-end", () => {
  it("removes old objects no recorded snapshot needs and keeps the recorded snapshot whole", async (t) => {
    const p = await gitProject(t, plan(), files, { grant: false });
    rmSync(join(p.dir, ".design/run-execute.json"));
    const begun: any = await p.run("run-begin", ["execute"]);
    assert.equal(begun.ok, true, JSON.stringify(begun));
    const granted: any = await p.run("grant", ["--approve"], { consent: true });
    assert.equal(granted.recorded, true, JSON.stringify(granted));
    p.write("src/api/notes.md", "the user's untracked notes\n");
    const started: any = await p.run("update-status", [PLAN], { stdin: JSON.stringify([{ roleIndex: 0, status: "in_progress", agent: "api" }]) });
    assert.equal(started.ok, true, JSON.stringify(started));
    const recorded = objectFiles(p.dir);
    assert.ok(recorded.length > 0, "the start's snapshot wrote objects of its own");
    const repoObjects = git(p.dir, "count-objects", "-v");

    const stale = plant(p.dir, `aa/${"1".repeat(38)}`, "an object of a finished plan", OLD);
    const young = plant(p.dir, `bb/${"2".repeat(38)}`, "an object a start may be recording now", new Date());
    const link = join(p.dir, ".design/snapshots/objects/cc", "3".repeat(38));
    mkdirSync(join(link, ".."), { recursive: true });
    symlinkSync(join(p.dir, "src/api/a.ts"), link);
    lutimesSync(link, OLD, OLD);
    writeFileSync(join(p.dir, ".design/snapshots/objects/aa/not-an-object"), "x");
    utimesSync(join(p.dir, ".design/snapshots/objects/aa/not-an-object"), OLD, OLD);

    const failed: any = await p.run("update-status", [PLAN], { stdin: JSON.stringify([{ roleIndex: 0, status: "failed", result: "stalled" }]) });
    assert.equal(failed.ok, true, JSON.stringify(failed));
    const out: any = await p.run("run-end", ["execute", "--outcome", "partial"]);
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.deepEqual(out.snapshotsPruned, { objects: 1, bytes: "an object of a finished plan".length });
    assert.equal(existsSync(stale), false);
    for (const kept of [young, link, join(p.dir, ".design/snapshots/objects/aa/not-an-object")]) assert.ok(existsSync(kept) || lstatOk(kept), `${kept} kept`);
    for (const rel of recorded) assert.ok(existsSync(join(p.dir, ".design/snapshots/objects", rel)), `the recorded snapshot's ${rel} kept`);
    assert.equal(git(p.dir, "count-objects", "-v"), repoObjects, "the repository's own objects untouched");
    assert.equal(p.read("src/api/a.ts"), "original a\n");

    // The snapshot still serves the next run: the failed attempt's change is undone from it, the user's notes stay.
    p.write("src/api/a.ts", "the attempt's half-done edit\n");
    const again: any = await p.run("run-begin", ["execute"]);
    assert.equal(again.ok, true, JSON.stringify(again));
    assert.equal((await p.run("grant", ["--approve"], { consent: true }) as any).recorded, true);
    const clean: any = await p.run("clean-attempt", [PLAN, "--role", "api"]);
    assert.equal(clean.ok, true, JSON.stringify(clean));
    assert.deepEqual(clean.restored, ["src/api/a.ts"]);
    assert.equal(p.read("src/api/a.ts"), "original a\n");
    assert.equal(p.read("src/api/notes.md"), "the user's untracked notes\n");
  });

  it("keeps everything when the plan's earliest snapshot is older than the objects, or has no readable time", (t) => {
    const design = mkdtempSync(join(tmpdir(), "do-prune-"));
    t.after(() => rmSync(design, { recursive: true, force: true }));
    mkdirSync(join(design, "snapshots/objects/aa"), { recursive: true });
    const obj = join(design, "snapshots/objects/aa", "4".repeat(38));
    writeFileSync(obj, "x");
    const weekAgo = new Date(Date.now() - 7 * 86400_000);
    utimesSync(obj, weekAgo, weekAgo);
    const snap = (at: unknown) => ({ roles: [{ attemptLog: [{ attempt: 1, snapshot: { tree: "a".repeat(40), base: null, at, skipped: [], complete: true } }] }] });
    // Recorded three weeks ago: its objects (a week old here) may be its own.
    assert.deepEqual(pruneSnapshots(design, snap(new Date(Date.now() - 21 * 86400_000).toISOString())), { objects: 0, bytes: 0 });
    assert.deepEqual(pruneSnapshots(design, snap("not a time")), { objects: 0, bytes: 0 });
    assert.equal(earliestSnapshot(snap("not a time")), -Infinity);
    assert.equal(earliestSnapshot({ roles: [] }), null);
    assert.ok(existsSync(obj));
    // Recorded yesterday: the week-old object belongs to no snapshot the plan records.
    assert.deepEqual(pruneSnapshots(design, snap(new Date(Date.now() - 86400_000).toISOString())), { objects: 1, bytes: 1 });
    assert.equal(existsSync(obj), false);
  });
});

function lstatOk(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
