// The grant key is made whole or not at all (temp file, fsync, link), and a key file an earlier version left
// half-written is replaced, while anything else that is not a key stays and is named in the refusal.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureGrantKey } from "../../src/lib/grant/grant-key.ts";
import { readGrantKey } from "../../src/lib/grant/grant.ts";

function setup(t: { after: (fn: () => void) => void }) {
  const root = mkdtempSync(join(tmpdir(), "do-key-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const project = join(root, "project");
  mkdirSync(project);
  const env = { CLAUDE_CONFIG_DIR: join(root, "config") };
  const key = join(root, "config", "do", "grant.key");
  return { project, env, key, dir: join(root, "config", "do") };
}

describe("the grant key", () => {
  it("is made once, 64 hex digits and a newline, mode 0600 in a folder of 0700, and no temp file stays", (t) => {
    const s = setup(t);
    const made = ensureGrantKey(s.project, s.env);
    assert.equal(made.length, 32);
    assert.equal(readFileSync(s.key, "utf8"), `${made.toString("hex")}\n`);
    assert.equal(lstatSync(s.key).mode & 0o777, 0o600);
    assert.equal(lstatSync(s.key).nlink, 1, "the temp name is gone");
    assert.equal(lstatSync(s.dir).mode & 0o777, 0o700);
    assert.deepEqual(readdirSync(s.dir), ["grant.key"]);
    assert.deepEqual(ensureGrantKey(s.project, s.env), made, "the second approval reads the same key");
  });

  it("replaces what an earlier version left when killed while writing it: empty, or fewer than 64 hex digits", (t) => {
    for (const partial of ["", "0123abc", "f".repeat(63)]) {
      const s = setup(t);
      mkdirSync(s.dir, { recursive: true, mode: 0o700 });
      writeFileSync(s.key, partial, { mode: 0o600 });
      assert.equal(readGrantKey(s.project, s.env), null);
      const made = ensureGrantKey(s.project, s.env);
      assert.equal(readFileSync(s.key, "utf8"), `${made.toString("hex")}\n`, JSON.stringify(partial));
      assert.deepEqual(readdirSync(s.dir), ["grant.key"]);
    }
  });

  it("leaves anything else that is not a key in place, and refuses naming it", (t) => {
    const cases: Array<[string, (s: ReturnType<typeof setup>) => void]> = [
      ["other text", (s) => writeFileSync(s.key, "hello world\n", { mode: 0o600 })],
      ["a key of another shape (upper case)", (s) => writeFileSync(s.key, `${"A".repeat(64)}\n`, { mode: 0o600 })],
      ["too long", (s) => writeFileSync(s.key, "a".repeat(100), { mode: 0o600 })],
      ["hex with a newline before 64 digits", (s) => writeFileSync(s.key, "abc\n", { mode: 0o600 })],
      ["a link to a partial key", (s) => {
        writeFileSync(join(s.dir, "elsewhere"), "", { mode: 0o600 });
        symlinkSync(join(s.dir, "elsewhere"), s.key);
      }],
      ["a partial key with a second name", (s) => {
        writeFileSync(join(s.dir, "other-name"), "", { mode: 0o600 });
        linkSync(join(s.dir, "other-name"), s.key);
      }],
      ["a folder", (s) => mkdirSync(s.key)],
    ];
    for (const [what, plant] of cases) {
      const s = setup(t);
      mkdirSync(s.dir, { recursive: true, mode: 0o700 });
      plant(s);
      const before = lstatSync(s.key);
      assert.throws(() => ensureGrantKey(s.project, s.env), /exists but is not a grant key.*delete it/, what);
      const after = lstatSync(s.key);
      assert.equal(after.ino, before.ino, `${what}: left in place`);
      assert.deepEqual(readdirSync(s.dir).filter((n) => n.endsWith(".tmp") || n.endsWith(".partial")), [], `${what}: no temp left`);
    }
  });

  it("removes a temp key a killed approval left, and never links a half-written one", (t) => {
    const s = setup(t);
    mkdirSync(s.dir, { recursive: true, mode: 0o700 });
    const dead = join(s.dir, ".grant.key.999999999.0123456789ab.tmp");
    writeFileSync(dead, "abc", { mode: 0o600 });
    chmodSync(dead, 0o600);
    const made = ensureGrantKey(s.project, s.env);
    assert.equal(existsSync(dead), false);
    assert.equal(readFileSync(s.key, "utf8"), `${made.toString("hex")}\n`);
  });
});
