// The permission hook's record of a verified grant (src/lib/grant/grant-cache.ts), as an attacker who can write inside the
// project would try it: every change to what the grant binds must end the cached verdict exactly as a full
// verification ends the grant, whatever timestamps are restored; the record itself must be the hook's own (private,
// bounded, well-formed, for this root) or it is ignored. Each case compares the cached answer with a full
// verification of the same state.
import { after, before, describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync, chownSync, copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync,
  renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { strictlyInside } from "../../src/lib/checks/evidence.ts";
import { grantState, projectPath, type GrantCacheUse } from "../../src/lib/grant/grant.ts";
import { grantCachePath, MAX_GRANT_CACHE, readGrantCache, writeGrantCache } from "../../src/lib/grant/grant-cache.ts";
import { planWith, project } from "../helpers/design-dir.ts";

let config: string;
let saved: string | undefined;

before(() => {
  saved = process.env.CLAUDE_CONFIG_DIR;
  config = realpathSync(mkdtempSync(join(tmpdir(), "do-grant-cache-config-")));
  process.env.CLAUDE_CONFIG_DIR = config;
});
after(() => {
  if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
  else process.env.CLAUDE_CONFIG_DIR = saved;
  rmSync(config, { recursive: true, force: true });
});

const keyPath = () => join(config, "do", "grant.key");
const SPEC = "#!/bin/sh\necho spec\n";

const runState = (over: Record<string, unknown> = {}) => ({
  schemaVersion: 1, skill: "execute", runId: "run-1", goal: "g", goalSha256: "0".repeat(64), inputs: [], phases: ["grant", "workers"], completed: [],
  startedAt: "2026-11-24T00:00:00Z", updatedAt: "2026-11-24T00:00:00Z", completedAt: null, outcome: null, ...over,
});

/** A project with an approved grant (the real `grant --approve`), two roles, a verification spec file. */
async function granted(t: TestContext) {
  const plan = planWith(
    [
      { name: "api", dirs: ["src/api/"], acceptanceCriteria: [{ criterion: "api tests pass", check: "npm test -- api" }] },
      { name: "docs", dirs: ["docs/"], deps: ["api"], acceptanceCriteria: [{ criterion: "docs build", check: "npm run docs" }] },
    ],
    { context: { testCommand: "npm test", buildCommand: "npm run build" }, verificationSpecs: [{ role: "api", path: ".design/specs/spec-api.sh", runCommand: "sh .design/specs/spec-api.sh", sha256: createHash("sha256").update(SPEC).digest("hex") }] },
  );
  const p = project(t, { ".design/plan.json": plan, ".design/run-execute.json": runState(), ".design/specs/spec-api.sh": SPEC, "src/api/a.ts": "x\n" });
  const out: any = await p.run("grant", ["--approve"], { consent: true });
  assert.equal(out.recorded, true, JSON.stringify(out));
  const root = realpathSync(p.dir);
  const record = grantCachePath(keyPath(), root);
  t.after(() => rmSync(record, { force: true }));
  return { p, root, record, file: (rel: string) => join(root, rel) };
}

/** One read through the cache: whether the grant holds, what the cache did, and the grant as data. */
function cached(root: string, now = Date.now()) {
  const use: GrantCacheUse = {};
  const s = grantState(root, now, process.env, undefined, use);
  return { holds: "grant" in s, outcome: use.outcome, view: "grant" in s ? view(s.grant) : s.why };
}

/** A full verification of the same state (no cache). */
function full(root: string, now = Date.now()) {
  const s = grantState(root, now, process.env);
  return { holds: "grant" in s, view: "grant" in s ? view(s.grant) : s.why };
}

const view = (g: any) => JSON.stringify({ ...g, workers: [...g.workers] });

/** The cached answer must be the full verification's, whatever the state. */
function agrees(root: string, now = Date.now()) {
  const c = cached(root, now);
  const f = full(root, now);
  assert.equal(c.holds, f.holds, `cached ${c.view} vs full ${f.view}`);
  if (f.holds) assert.equal(c.view, f.view);
  return c;
}

/** Rewrite a file's bytes in place (same inode) and put its access and modification times back. */
function rewriteKeepingTimes(path: string, text: string): void {
  const st = statSync(path, { bigint: true });
  writeFileSync(path, text);
  // To the nanosecond (utimes through a Date keeps milliseconds only).
  const at = (ns: bigint) => `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, "0")}`;
  assert.equal(spawnSync("touch", ["-m", "-d", at(st.mtimeNs), path]).status, 0);
  assert.equal(spawnSync("touch", ["-a", "-d", at(st.atimeNs), path]).status, 0);
  const now = statSync(path, { bigint: true });
  assert.equal(now.mtimeNs, st.mtimeNs, "mtime restored");
  assert.equal(now.ino, st.ino, "same inode");
}

describe("the verified-grant cache answers only what a full verification would", () => {
  it("records a full verification, then answers from the record without verifying anew", async (t) => {
    const g = await granted(t);
    assert.equal(existsSync(g.record), false);
    const first = cached(g.root);
    assert.deepEqual([first.holds, first.outcome], [true, "written"]);
    const st = lstatSync(g.record);
    assert.ok(st.isFile() && (st.mode & 0o777) === 0o600 && st.uid === process.getuid!(), "a private regular file");
    assert.equal(g.record.startsWith(join(config, "do") + "/"), true, "beside the key");
    const second = cached(g.root);
    assert.deepEqual([second.holds, second.outcome], [true, "hit"]);
    assert.equal(second.view, full(g.root).view, "the same grant, workers included");
    // The plan of a hit is the plan as read (run-checks' approval takes the role's commands from it).
    const s = grantState(g.root, Date.now(), process.env, undefined, {});
    assert.ok("grant" in s);
    assert.deepEqual(s.plan, g.p.json(".design/plan.json"));
  });

  it("a call no grant item covers, or a grant of another root, never reaches the cache", async (t) => {
    const g = await granted(t);
    const use: GrantCacheUse = {};
    assert.ok("why" in grantState(g.root, Date.now(), process.env, () => false, use));
    assert.equal(use.outcome, undefined);
    assert.equal(existsSync(g.record), false);
  });

  it("ends on any change of plan.json, grant.json, the run state or a spec file, timestamps restored or not", async (t) => {
    const edits: Array<[string, (g: Awaited<ReturnType<typeof granted>>) => void]> = [
      ["a plan check rewritten, same size, same inode, times restored", (g) => {
        const text = readFileSync(g.file(".design/plan.json"), "utf8");
        const bent = text.replace("npm test -- api", "npm test -- xyz");
        assert.equal(bent.length, text.length);
        rewriteKeepingTimes(g.file(".design/plan.json"), bent);
      }],
      ["a spec file rewritten, same size, same inode, times restored", (g) => rewriteKeepingTimes(g.file(".design/specs/spec-api.sh"), SPEC.replace("spec", "pwnd"))],
      ["grant.json with a widened item, times restored", (g) => {
        const doc = g.p.json(".design/grant.json");
        doc.edits[0].value = "src/";
        rewriteKeepingTimes(g.file(".design/grant.json"), JSON.stringify(doc, null, 2));
      }],
      ["the run state finished, times restored", (g) => rewriteKeepingTimes(g.file(".design/run-execute.json"), JSON.stringify(runState({ completedAt: "2026-11-24T01:00:00Z" }), null, 2))],
      ["the run state of another run", (g) => writeFileSync(g.file(".design/run-execute.json"), JSON.stringify(runState({ runId: "run-2" }), null, 2))],
      ["a spec file deleted", (g) => unlinkSync(g.file(".design/specs/spec-api.sh"))],
      ["plan.json replaced by a link to an identical copy", (g) => {
        copyFileSync(g.file(".design/plan.json"), g.file(".design/tmp-plan.json"));
        unlinkSync(g.file(".design/plan.json"));
        symlinkSync("tmp-plan.json", g.file(".design/plan.json"));
      }],
      ["a spec file replaced by a link to an identical copy", (g) => {
        copyFileSync(g.file(".design/specs/spec-api.sh"), g.file("src/api/spec-copy.sh"));
        unlinkSync(g.file(".design/specs/spec-api.sh"));
        symlinkSync(g.file("src/api/spec-copy.sh"), g.file(".design/specs/spec-api.sh"));
      }],
      ["the specs folder replaced by a link to a folder outside the project", (g) => {
        const outside = mkdtempSync(join(tmpdir(), "do-grant-cache-out-"));
        t.after(() => rmSync(outside, { recursive: true, force: true }));
        copyFileSync(g.file(".design/specs/spec-api.sh"), join(outside, "spec-api.sh"));
        rmSync(g.file(".design/specs"), { recursive: true });
        symlinkSync(outside, g.file(".design/specs"));
      }],
      ["grant.json replaced by a FIFO", (g) => {
        unlinkSync(g.file(".design/grant.json"));
        assert.equal(spawnSync("mkfifo", [g.file(".design/grant.json")]).status, 0);
      }],
      ["a spec file replaced by a FIFO", (g) => {
        unlinkSync(g.file(".design/specs/spec-api.sh"));
        assert.equal(spawnSync("mkfifo", [g.file(".design/specs/spec-api.sh")]).status, 0);
      }],
      ["plan.json grown past its cap", (g) => writeFileSync(g.file(".design/plan.json"), readFileSync(g.file(".design/plan.json"), "utf8") + " ".repeat(8 << 20))],
    ];
    for (const [what, edit] of edits) {
      const g = await granted(t);
      assert.equal(cached(g.root).outcome, "written", what);
      assert.equal(cached(g.root).outcome, "hit", what);
      edit(g);
      const after = agrees(g.root);
      assert.equal(after.holds, false, `${what}: the grant ends`);
      assert.notEqual(after.outcome, "hit", what);
    }
  });

  it("a touch or a byte-identical rewrite keeps the answer a full verification gives (the bytes are what count)", async (t) => {
    const g = await granted(t);
    cached(g.root);
    const later = new Date(Date.now() + 5000);
    for (const f of [".design/plan.json", ".design/grant.json", ".design/run-execute.json", ".design/specs/spec-api.sh"]) utimesSync(g.file(f), later, later);
    assert.equal(agrees(g.root).outcome, "hit");
    // A new inode with the same bytes (an atomic rewrite, as the helper's writers do).
    const plan = readFileSync(g.file(".design/plan.json"));
    writeFileSync(g.file(".design/plan.json.new"), plan);
    renameSync(g.file(".design/plan.json.new"), g.file(".design/plan.json"));
    assert.equal(agrees(g.root).outcome, "hit");
    // A status update changes the plan's bytes but not its fingerprint: a miss, verified in full, recorded anew.
    const doc = g.p.json(".design/plan.json");
    doc.roles[0].status = "in_progress";
    writeFileSync(g.file(".design/plan.json"), JSON.stringify(doc, null, 2));
    const c = agrees(g.root);
    assert.deepEqual([c.holds, c.outcome], [true, "written"]);
    assert.equal(cached(g.root).outcome, "hit");
  });

  it("honours the expiry by the clock, a record or not", async (t) => {
    const g = await granted(t);
    cached(g.root);
    assert.equal(cached(g.root).outcome, "hit");
    const expires = Date.parse(g.p.json(".design/grant.json").expiresAt);
    const late = agrees(g.root, expires + 1);
    assert.deepEqual([late.holds, late.outcome], [false, undefined]);
    assert.equal(agrees(g.root, expires - 1000).outcome, "hit");
  });

  it("ends when the key is deleted or rotated", async (t) => {
    const g = await granted(t);
    cached(g.root);
    const key = readFileSync(keyPath());
    // Rotated: another key in a new file (what deleting it and approving anew would make).
    unlinkSync(keyPath());
    writeFileSync(keyPath(), `${"ab".repeat(32)}\n`, { mode: 0o600 });
    const rotated = agrees(g.root);
    assert.deepEqual([rotated.holds, rotated.outcome], [false, undefined]);
    // The same key bytes in a new file: a miss, and the full verification holds again.
    unlinkSync(keyPath());
    writeFileSync(keyPath(), key, { mode: 0o600 });
    const again = cached(g.root);
    assert.deepEqual([again.holds, again.outcome], [true, "written"], "another key file: verified in full");
    assert.equal(cached(g.root).outcome, "hit");
    unlinkSync(keyPath());
    const gone = agrees(g.root);
    assert.deepEqual([gone.holds, gone.outcome], [false, undefined]);
    writeFileSync(keyPath(), key, { mode: 0o600 });
  });

  it("never serves one root's record to another root", async (t) => {
    const a = await granted(t);
    const b = await granted(t);
    cached(a.root);
    assert.ok(readGrantCache(a.record, a.root));
    assert.equal(readGrantCache(a.record, b.root), null, "the record names its root");
    // A's record under B's name: refused, and B verifies in full.
    copyFileSync(a.record, b.record);
    chmodSync(b.record, 0o600);
    const c = agrees(b.root);
    assert.deepEqual([c.holds, c.outcome], [true, "written"]);
    assert.equal(readGrantCache(b.record, b.root)?.root, b.root);
    // B's grant.json copied into A: recorded for another root, nothing holds.
    writeFileSync(a.file(".design/grant.json"), readFileSync(b.file(".design/grant.json")));
    assert.equal(agrees(a.root).holds, false);
  });

  it("a new approval (another run) is never answered by the record of the last one", async (t) => {
    const g = await granted(t);
    cached(g.root);
    const old = readFileSync(g.record);
    const oldGrant = readFileSync(g.file(".design/grant.json"));
    writeFileSync(g.file(".design/run-execute.json"), JSON.stringify(runState({ runId: "run-2" }), null, 2));
    assert.equal(agrees(g.root).holds, false, "the old grant's run is over");
    const out: any = await g.p.run("grant", ["--approve"], { consent: true });
    assert.equal(out.recorded, true);
    const c = agrees(g.root);
    assert.deepEqual([c.holds, c.outcome], [true, "written"]);
    // The old record put back: its grant.json is not this one.
    writeFileSync(g.record, old, { mode: 0o600 });
    assert.deepEqual([agrees(g.root).holds, cached(g.root).outcome], [true, "hit"]);
    // And the old grant.json put back beside the old record: its run is not the current one.
    writeFileSync(g.file(".design/grant.json"), oldGrant);
    writeFileSync(g.record, old, { mode: 0o600 });
    assert.equal(agrees(g.root).holds, false);
  });

  it("ignores a record that is not the hook's own: corrupt, oversized, shared, foreign, linked, or of another shape", async (t) => {
    const g = await granted(t);
    cached(g.root);
    const good = readFileSync(g.record);
    const header = (bytes: Buffer) => {
      const n = Number(bytes.toString("latin1", 0, 8));
      return { n, doc: JSON.parse(bytes.toString("utf8", 8, 8 + n)), rest: bytes.subarray(8 + n) };
    };
    const withHeader = (doc: unknown, rest: Buffer) => {
      const h = Buffer.from(JSON.stringify(doc));
      return Buffer.concat([Buffer.from(String(h.length).padStart(8, "0")), h, rest]);
    };
    const { doc, rest } = header(good);
    const plant: Array<[string, () => void]> = [
      ["garbage", () => writeFileSync(g.record, "not a record", { mode: 0o600 })],
      ["empty", () => writeFileSync(g.record, "", { mode: 0o600 })],
      ["truncated", () => writeFileSync(g.record, good.subarray(0, good.length - 1), { mode: 0o600 })],
      ["a byte too many", () => writeFileSync(g.record, Buffer.concat([good, Buffer.from("x")]), { mode: 0o600 })],
      ["oversized", () => writeFileSync(g.record, Buffer.concat([good, Buffer.alloc(MAX_GRANT_CACHE)]), { mode: 0o600 })],
      ["an unknown key", () => writeFileSync(g.record, withHeader({ ...doc, extra: 1 }, rest), { mode: 0o600 })],
      ["a __proto__ key", () => {
        const text = Buffer.from(`{"__proto__":{"root":"/elsewhere"},${JSON.stringify(doc).slice(1)}`);
        writeFileSync(g.record, Buffer.concat([Buffer.from(String(text.length).padStart(8, "0")), text, rest]), { mode: 0o600 });
      }],
      ["another format", () => writeFileSync(g.record, withHeader({ ...doc, format: 1 }, rest), { mode: 0o600 })],
      ["another root", () => writeFileSync(g.record, withHeader({ ...doc, root: "/elsewhere" }, rest), { mode: 0o600 })],
      ["sizes that do not add up", () => writeFileSync(g.record, withHeader({ ...doc, sizes: [doc.sizes[0] + 1, doc.sizes[1], doc.sizes[2]] }, rest), { mode: 0o600 })],
      ["a worker of the wrong type", () => writeFileSync(g.record, withHeader({ ...doc, workers: [[1, "api"]] }, rest), { mode: 0o600 })],
      ["readable by others", () => { writeFileSync(g.record, good); chmodSync(g.record, 0o644); }],
      ["writable by the group", () => { writeFileSync(g.record, good); chmodSync(g.record, 0o620); }],
      ["a link to a good record", () => {
        writeFileSync(join(config, "do", "elsewhere.json"), good, { mode: 0o600 });
        rmSync(g.record, { force: true });
        symlinkSync(join(config, "do", "elsewhere.json"), g.record);
      }],
      ["a hard link of a good record", () => {
        rmSync(g.record, { force: true });
        writeFileSync(g.record, good, { mode: 0o600 });
        linkSync(g.record, join(config, "do", "second-name.json"));
      }],
      ["a folder", () => mkdirSync(g.record)],
      ["a FIFO", () => assert.equal(spawnSync("mkfifo", [g.record]).status, 0)],
    ];
    if (process.getuid!() === 0) plant.push(["owned by another user", () => { writeFileSync(g.record, good, { mode: 0o600 }); chownSync(g.record, 4242, 4242); }]);
    for (const [what, make] of plant) {
      rmSync(g.record, { recursive: true, force: true });
      rmSync(join(config, "do", "elsewhere.json"), { force: true });
      rmSync(join(config, "do", "second-name.json"), { force: true });
      make();
      assert.equal(readGrantCache(g.record, g.root), null, `${what}: refused`);
      const c = agrees(g.root);
      assert.equal(c.holds, true, what);
      assert.notEqual(c.outcome, "hit", what);
      if (!["a folder"].includes(what)) {
        // The full verification replaced it with the hook's own record (never through the link).
        assert.equal(c.outcome, "written", what);
        assert.ok(lstatSync(g.record).isFile() && (lstatSync(g.record).mode & 0o777) === 0o600, what);
        assert.equal(cached(g.root).outcome, "hit", what);
      }
      if (what === "a link to a good record") assert.deepEqual(readFileSync(join(config, "do", "elsewhere.json")), good, "the link's target is untouched");
    }
    rmSync(g.record, { recursive: true, force: true });
    rmSync(join(config, "do", "elsewhere.json"), { force: true });
    rmSync(join(config, "do", "second-name.json"), { force: true });
  });

  it("a record the project could write is never used: a config folder inside the project grants nothing", async (t) => {
    const g = await granted(t);
    cached(g.root);
    const good = readFileSync(g.record);
    const inside = join(g.root, "src/api/config");
    mkdirSync(join(inside, "do"), { recursive: true, mode: 0o700 });
    copyFileSync(keyPath(), join(inside, "do", "grant.key"));
    const env = { ...process.env, CLAUDE_CONFIG_DIR: inside };
    writeFileSync(grantCachePath(join(inside, "do", "grant.key"), g.root), good, { mode: 0o600 });
    const use: GrantCacheUse = {};
    assert.ok("why" in grantState(g.root, Date.now(), env, undefined, use), "no grant with the key inside the project");
    assert.equal(use.outcome, undefined);
  });

  it("writes only into a private folder of this user, and prunes records older than the longest grant", async (t) => {
    const g = await granted(t);
    const dir = join(config, "do");
    chmodSync(dir, 0o777);
    assert.deepEqual([cached(g.root).holds, cached(g.root).outcome], [true, "miss"], "a folder others may write: no record");
    assert.equal(existsSync(g.record), false);
    chmodSync(dir, 0o700);
    const stale = join(dir, "grant-cache-0123456789abcdef.json");
    const staleTemp = join(dir, "grant-cache-0123456789abcdef.json.1-abc.tmp");
    const fresh = join(dir, "grant-cache-fedcba9876543210.json");
    const other = join(dir, "notes.json");
    for (const f of [stale, staleTemp, fresh, other]) writeFileSync(f, "x", { mode: 0o600 });
    const old = new Date(Date.now() - 13 * 3600_000);
    for (const f of [stale, staleTemp, other]) utimesSync(f, old, old);
    assert.equal(cached(g.root).outcome, "written");
    assert.deepEqual([existsSync(stale), existsSync(staleTemp), existsSync(fresh), existsSync(other)], [false, false, true, true]);
    assert.ok(readdirSync(dir).every((n) => !n.endsWith(".tmp")), "no temp file left behind");
    rmSync(fresh);
    rmSync(other);
  });

  it("writeGrantCache refuses a folder that is a link or not this user's", (t) => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "do-grant-cache-w-")));
    t.after(() => rmSync(base, { recursive: true, force: true }));
    mkdirSync(join(base, "real"), { mode: 0o700 });
    symlinkSync(join(base, "real"), join(base, "link"));
    const record = { root: "/r", key: "k", grant: Buffer.from("g"), run: Buffer.from("r"), plan: Buffer.from("p"), specs: [], workers: [] };
    assert.equal(writeGrantCache(join(base, "link", "grant-cache-0000000000000000.json"), record, Date.now(), 1000), false);
    assert.deepEqual(readdirSync(join(base, "real")), []);
    assert.equal(writeGrantCache(join(base, "real", "grant-cache-0000000000000000.json"), record, Date.now(), 1000), true);
    const back = readGrantCache(join(base, "real", "grant-cache-0000000000000000.json"), "/r");
    assert.ok(back && back.plan.equals(Buffer.from("p")) && back.key === "k");
    if (process.getuid!() === 0) {
      chownSync(join(base, "real"), 4242, 4242);
      assert.equal(writeGrantCache(join(base, "real", "grant-cache-0000000000000001.json"), record, Date.now(), 1000), false);
    }
  });
});

describe("the spec files' path check", () => {
  it("strictlyInside says exactly what path.relative says (the check the full verification made before)", () => {
    const roots = ["/", "/p", "/p/", "/p/q", "/a b/p", "/p/..x", "/.."];
    const parts = ["", "/", "p", "q", "..", "...", "..x", ".x", ".", "x..", "p..", "q/r", "../p", "p/../q", "//", "a b"];
    let n = 0;
    for (const root of roots) {
      for (const a of parts) for (const b of parts) for (const c of ["", "/", "/x"]) {
        const abs = `/${a}/${b}${c}`.replace(/\/+$/, "") || "/";
        const rel = relative(root, abs);
        const expected = !(rel === "" || rel.startsWith("..") || isAbsolute(rel));
        assert.equal(strictlyInside(root, abs), expected, `${root} ${abs}`);
        n++;
      }
    }
    assert.ok(n > 5000);
  });

  it("projectPath gives what it gave through path.relative", () => {
    const before = (projectDir: string, path: string): string | null => {
      const abs = isAbsolute(path) ? resolve(path) : resolve(projectDir, path);
      const rel = relative(resolve(projectDir), abs);
      if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return null;
      return rel.split(sep).join(posix.sep);
    };
    const roots = ["/", "/p", "/p/", "/p/q", "/p/..x"];
    const paths = ["", ".", "..", "x", "..x", "x/..", "x/../..", "/p", "/p/x", "/p/..x/y", "/px", "/p//x/", "/q/../p/x", "a b/c", "./x/./y"];
    for (const root of roots) for (const path of paths) assert.equal(projectPath(root, path), before(root, path), `${root} ${path}`);
  });
});
