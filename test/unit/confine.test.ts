// The store's confinement check on its own: real paths of missing, dangling and looping paths, the two roots, the
// boundary of a root (a sibling that shares its prefix is outside), and the argument walk over a command's spec.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { HelperError } from "../../src/base/errors.ts";
import { confine, confined, isInside, projectRoots, realPath } from "../../src/store.ts";
import { confineArgs } from "../../src/lib/command/command.ts";
import { OWN } from "../../src/base/owned.ts";

function scratch(t: TestContext): { root: string; proj: string; out: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "do-confine-unit-")));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const proj = join(root, "proj");
  const out = join(root, "out");
  mkdirSync(join(proj, ".design"), { recursive: true });
  mkdirSync(out);
  return { root, proj, out };
}

function refusal(fn: () => unknown): HelperError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof HelperError);
    return err;
  }
  assert.fail("expected an E_PATH refusal");
}

describe("realPath", () => {
  it("resolves a path that does not exist through its nearest existing ancestor", (t) => {
    const { proj, out } = scratch(t);
    symlinkSync(out, join(proj, ".design/link"));
    assert.equal(realPath(join(proj, ".design/a/b/c.json")), join(proj, ".design/a/b/c.json"));
    assert.equal(realPath(join(proj, ".design/link/new/x.json")), join(out, "new/x.json"));
  });

  it("follows a dangling symlink to where it points", (t) => {
    const { proj, out } = scratch(t);
    symlinkSync(join(out, "missing.json"), join(proj, ".design/plan.json"));
    assert.equal(realPath(join(proj, ".design/plan.json")), join(out, "missing.json"));
  });

  it("refuses a symlink loop with E_PATH", (t) => {
    const { proj } = scratch(t);
    symlinkSync("b", join(proj, ".design/a"));
    symlinkSync("a", join(proj, ".design/b"));
    assert.equal(refusal(() => realPath(join(proj, ".design/a/x"))).code, "E_PATH");
  });
});

describe("confine", () => {
  it("returns the real path of a write inside .design/, following an inside symlink", (t) => {
    const { proj } = scratch(t);
    mkdirSync(join(proj, ".design/real"));
    symlinkSync("real", join(proj, ".design/alias"));
    assert.equal(confine(proj, "x", ".design/plan.json", "write", OWN.plan), join(proj, ".design/plan.json"));
    assert.equal(confine(proj, "x", ".design/alias/p.json", "write", OWN.recordedOutput), join(proj, ".design/real/p.json"));
    assert.equal(confine(proj, "x", ".design", "write", OWN.designDir), join(proj, ".design"));
  });

  it("refuses writes outside .design/ with the contract's words, and reads outside the project", (t) => {
    const { proj, out } = scratch(t);
    const w = refusal(() => confine(proj, "plan_path '../out/p.json'", "../out/p.json", "write", OWN.plan));
    assert.equal(w.code, "E_PATH");
    assert.equal(w.message, `plan_path '../out/p.json' resolves outside the project's .design/: ${join(out, "p.json")}`);
    assert.deepEqual(w.extra, { path: join(out, "p.json") });
    assert.match(refusal(() => confine(proj, "x", "src/a.ts", "write", OWN.recordedOutput)).message, /outside the project's \.design\/: /);
    assert.equal(confine(proj, "x", "src/a.ts", "read"), join(proj, "src/a.ts"));
    const r = refusal(() => confine(proj, "--inputs entry '/etc/hostname'", "/etc/hostname", "read"));
    assert.equal(r.message, `--inputs entry '/etc/hostname' resolves outside the project: ${realPath("/etc/hostname")}`);
  });

  it("treats a sibling sharing the root's prefix as outside", (t) => {
    const { proj } = scratch(t);
    mkdirSync(join(proj, ".design-evil"));
    assert.equal(confined(proj, ".design-evil/x", "write", OWN.recordedOutput), null);
    assert.equal(isInside(join(proj, ".design"), join(proj, ".design-evil")), false);
    assert.equal(isInside(join(proj, ".design"), join(proj, ".design/x")), true);
  });

  it("refuses every write when .design itself is a symlink, even to a folder of the project", (t) => {
    const { root, out } = scratch(t);
    const p2 = join(root, "p2");
    mkdirSync(join(p2, "elsewhere"), { recursive: true });
    symlinkSync(out, join(p2, ".design"));
    assert.equal(confined(p2, ".design/memory.jsonl", "write", OWN.memory), null);
    assert.equal(confined(p2, ".design/memory.jsonl", "read"), null);
    rmSync(join(p2, ".design"));
    symlinkSync("elsewhere", join(p2, ".design"));
    assert.equal(confined(p2, ".design/memory.jsonl", "write", OWN.memory), null);
    assert.equal(confined(p2, ".design/memory.jsonl", "read"), join(p2, "elsewhere/memory.jsonl"));
  });

  it("measures both roots from the project's real directory", (t) => {
    const { root, proj } = scratch(t);
    symlinkSync(proj, join(root, "via"));
    assert.deepEqual(projectRoots(join(root, "via")), { project: proj, design: join(proj, ".design") });
    assert.equal(confine(join(root, "via"), "x", ".design/p.json", "write", OWN.recordedOutput), join(proj, ".design/p.json"));
  });
});

describe("confineArgs", () => {
  // run-start's and update-status's declarations: a read list, a write flag, a write positional.
  const runStart = {
    positionals: [{ name: "skill", help: "" }],
    flags: {
      inputs: { type: "string" as const, help: "", path: "read" as const, list: true },
      "design-dir": { type: "string" as const, help: "", path: "write" as const },
      goal: { type: "string" as const, help: "" },
    },
  };
  const updateStatus = { positionals: [{ name: "plan_path", help: "", path: "write" as const }], flags: {} };

  it("passes paths inside their roots and ignores arguments that are not paths", (t) => {
    const { proj } = scratch(t);
    confineArgs(proj, "run-start", runStart, { skill: "/etc/passwd", inputs: ".design/a, src/b ,", "design-dir": ".design", goal: "/etc/passwd" });
    confineArgs(proj, "update-status", updateStatus, { plan_path: ".design/plan.json" });
  });

  it("refuses a positional, a flag and each comma-list entry by its own name", (t) => {
    const { proj } = scratch(t);
    const ok = { skill: "design", inputs: "", "design-dir": ".design" };
    assert.match(refusal(() => confineArgs(proj, "update-status", updateStatus, { plan_path: "/tmp/p.json" })).message, /^plan_path '\/tmp\/p\.json' resolves outside the project's \.design\/: /);
    assert.match(refusal(() => confineArgs(proj, "run-start", runStart, { ...ok, "design-dir": ".." })).message, /^--design-dir '\.\.' resolves outside the project's \.design\/: /);
    assert.match(refusal(() => confineArgs(proj, "run-start", runStart, { ...ok, inputs: ".design/plan.json,../x" })).message, /^--inputs entry '\.\.\/x' resolves outside the project: /);
  });

  it("refuses a write argument that names a file its command does not own, naming the rule", (t) => {
    const { proj } = scratch(t);
    const e = refusal(() => confineArgs(proj, "update-status", updateStatus, { plan_path: ".design/grant.json" }));
    assert.equal(e.code, "E_PATH");
    assert.equal(e.message, `plan_path '.design/grant.json' is not .design/plan.json: ${join(proj, ".design/grant.json")}`);
    assert.deepEqual(e.extra, { path: join(proj, ".design/grant.json"), allowed: ".design/plan.json" });
    assert.match(refusal(() => confineArgs(proj, "run-start", runStart, { skill: "design", inputs: "", "design-dir": ".design/sub" })).message, /^--design-dir '\.design\/sub' is not the project's \.design\/: /);
  });

  it("refuses a write argument of a command the table has no row for", (t) => {
    const { proj } = scratch(t);
    const e = refusal(() => confineArgs(proj, "new-writer", updateStatus, { plan_path: ".design/plan.json" }));
    assert.equal(e.message, "plan_path '.design/plan.json' has no owner rule: nothing may write it");
  });
});
