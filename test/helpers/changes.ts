// Which files a call changed: a snapshot of every file under a folder (path → sha256 of its bytes), and the paths
// added, removed or changed between two snapshots. The run-begin / run-end / curator-apply tests check them
// against the command's rows in src/base/owned.ts.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, lstatSync } from "node:fs";
import { join, relative } from "node:path";
import { FIXED_WRITES, OWN, OWNED_ARGS, runStateOwner, type Owner } from "../../src/base/owned.ts";

export type Snapshot = Map<string, string>;

export function snapshot(root: string): Snapshot {
  const out: Snapshot = new Map();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else out.set(relative(root, p), st.isFile() ? createHash("sha256").update(readFileSync(p)).digest("hex") : "other");
    }
  };
  try {
    walk(root);
  } catch {
    /* no folder yet */
  }
  return out;
}

export function changed(before: Snapshot, after: Snapshot): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((p) => before.get(p) !== after.get(p)).sort();
}

/**
 * The changed paths (relative to the project) that none of the command's owned rules allows: its fixed writes and
 * its write arguments' rules. Lock and temp files never outlive a call, so they are not expected here.
 */
export function outsideOwned(command: string, skill: string, paths: readonly string[]): string[] {
  const rules: Owner[] = [...Object.values(OWNED_ARGS[command] ?? {})];
  // recordedOutput (anything in .design/) only moves a replaced run's outputs: the tests name those moves themselves.
  for (const r of FIXED_WRITES[command] ?? []) if (r !== OWN.recordedOutput) rules.push(r === "runState" ? runStateOwner(skill) : r);
  return paths.filter((p) => {
    if (!p.startsWith(".design/")) return true;
    const rel = p.slice(".design/".length).split("/");
    // history/<folder>/… is what the history rule's folder holds
    if (rel[0] === "history" && rules.some((o) => o.allows(["history"]))) return false;
    // a memory file's duplicate-gate index is memory-add's own cache beside the memory file
    if (rel.length === 1 && /^\.memory[A-Za-z0-9_-]*\.jsonl\.index$/.test(rel[0]) && rules.some((o) => o.allows(["memory.jsonl"]))) return false;
    return !rules.some((o) => o.allows(rel));
  });
}
