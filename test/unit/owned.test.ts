// The table of ownership (src/base/owned.ts) against the helper's own commands, and each rule on its own: every
// argument a command declares `path: "write"` has exactly one row and no row names anything else; each rule allows
// its own files and nothing of another rule, no dotfile and no other spelling.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { registry } from "../../src/registry.ts";
import { OWN, OWNED_ARGS, ownerOf, runStateOwner, type Owner } from "../../src/base/owned.ts";

const seg = (rel: string) => (rel === "" ? [] : rel.split("/"));

describe("the table of ownership", () => {
  it("has a row for every write argument of every command, and no other row", async () => {
    const writes: string[] = [];
    for (const name of Object.keys(registry).sort()) {
      const def = (await registry[name].load()).default;
      for (const p of def.positionals) if (p.path === "write") writes.push(`${name} ${p.name}`);
      for (const [flag, f] of Object.entries(def.flags)) if (f.path === "write") writes.push(`${name} ${flag}`);
    }
    const rows = Object.entries(OWNED_ARGS).flatMap(([cmd, args]) => Object.keys(args).map((a) => `${cmd} ${a}`));
    assert.deepEqual(rows.sort(), writes.sort());
    for (const w of writes) assert.ok(ownerOf(...(w.split(" ") as [string, string])), w);
  });

  it("answers nothing for a command or argument it does not list, inherited names included", () => {
    assert.equal(ownerOf("status", "plan_path"), undefined);
    assert.equal(ownerOf("memory-add", "from"), undefined);
    assert.equal(ownerOf("__proto__", "x"), undefined);
    assert.equal(ownerOf("memory-add", "constructor"), undefined);
  });

  const ALL = [
    "", "plan.json", "draft/plan.json", "grant.json", "workflow.js", "run-execute.json", "run-design.json", "specs/x.sh",
    "specs/a/b.ts", "draft/specs/x.sh", "memory.jsonl", "memory-team.jsonl", "reflection.jsonl", "recon.json", "recon-2.json",
    "history", "history/x", ".git/config", "conftest.py", ".memory.jsonl", ".recon.json", "specs/.hidden.sh", "specs/.git/x",
    "PLAN.json", "Memory.jsonl", "tmp/memory.jsonl", "tmp/plan.json", "sub/recon.json", "specs", "draft", "memory.jsonl.bak",
  ];
  const allowed = (o: Owner) => ALL.filter((r) => o.allows(seg(r)));

  it("allows each rule's own files only", () => {
    assert.deepEqual(allowed(OWN.designDir), [""]);
    assert.deepEqual(allowed(OWN.memory), ["memory.jsonl", "memory-team.jsonl"]);
    assert.deepEqual(allowed(OWN.reflection), ["reflection.jsonl"]);
    assert.deepEqual(allowed(OWN.recon), ["recon.json", "recon-2.json"]);
    assert.deepEqual(allowed(OWN.plan), ["plan.json"]);
    assert.deepEqual(allowed(OWN.planOrDraft), ["plan.json", "draft/plan.json"]);
    assert.deepEqual(allowed(OWN.spec), ["specs/x.sh", "specs/a/b.ts"]);
    assert.deepEqual(allowed(OWN.workflow), ["workflow.js"]);
    assert.deepEqual(allowed(OWN.grant), ["grant.json"]);
    assert.deepEqual(allowed(OWN.history), ["history"]);
    assert.deepEqual(allowed(runStateOwner("design")), ["run-design.json"]);
    assert.deepEqual(allowed(runStateOwner("execute")), ["run-execute.json"]);
  });

  it("gives no two commands' rules a file in common (but the plan, which finalize shares with the plan writers)", () => {
    const rules: Record<string, Owner> = {
      memory: OWN.memory, reflection: OWN.reflection, recon: OWN.recon, plan: OWN.planOrDraft, spec: OWN.spec,
      workflow: OWN.workflow, grant: OWN.grant, history: OWN.history, design: runStateOwner("design"), execute: runStateOwner("execute"),
    };
    for (const rel of ALL) {
      const owners = Object.entries(rules).filter(([, o]) => o.allows(seg(rel))).map(([n]) => n);
      assert.ok(owners.length <= 1, `${rel}: ${owners.join(", ")}`);
    }
  });
});
