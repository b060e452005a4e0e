// Pruning the attempts' snapshot objects (`.design/snapshots/objects`, lib/git/snapshot.ts): run-end of an execute
// run removes the loose objects no snapshot the plan still records can need, so the folder does not grow with every
// run. It never touches the repository's own object store (the snapshots only ever read it as an alternate), and
// `commit` writes its objects there, never here.
//
// Which objects a recorded snapshot needs, without walking its trees: git freshens an object it is asked to write
// again (the blobs `hash-object -w` hashes, the trees `write-tree` writes for the scope), so every object of this
// folder that a snapshot uses was written or freshened when that snapshot was taken. An object older than the plan's
// earliest recorded snapshot (less an hour) and older than an hour (a start being recorded right now) belongs to no
// snapshot the plan records: a finished plan's, or an attempt that a kill never recorded. Each removal is one
// unlink of an object nothing reads: a kill between two leaves a folder that is only partly pruned.
import { lstatSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { isSnapshot } from "./snapshot.js";

/** Objects written this recently are kept whatever the plan records: a start may be recording its snapshot now. */
export const SNAPSHOT_GRACE_MS = 60 * 60 * 1000;

export interface Pruned {
  /** Loose objects removed. */
  objects: number;
  bytes: number;
}

/** The earliest time (ms) of a snapshot recorded anywhere in the plan, or null when it records none. */
export function earliestSnapshot(plan: unknown): number | null {
  let earliest: number | null = null;
  const walk = (v: unknown, depth: number): void => {
    if (depth > 12 || v === null || typeof v !== "object") return;
    if (isSnapshot(v)) {
      const at = Date.parse(String((v as { at?: unknown }).at));
      // A snapshot with no readable time keeps everything: nothing tells which objects are its own.
      earliest = Math.min(earliest ?? Infinity, Number.isFinite(at) ? at : -Infinity);
      return;
    }
    for (const x of Array.isArray(v) ? v : Object.values(v)) walk(x, depth + 1);
  };
  walk(plan, 0);
  return earliest;
}

/**
 * Remove the snapshot objects of `design` (the project's .design/, real path) that the plan's recorded snapshots
 * cannot need (see the header). Reads no link: a fan-out folder or object that is a link is left alone. `nowMs` is the
 * machine's clock (the objects' times are), never a run's given time.
 */
export function pruneSnapshots(design: string, plan: unknown, nowMs = Date.now()): Pruned {
  const out: Pruned = { objects: 0, bytes: 0 };
  const earliest = earliestSnapshot(plan);
  const cutoff = Math.min(nowMs - SNAPSHOT_GRACE_MS, earliest === null ? Infinity : earliest - SNAPSHOT_GRACE_MS);
  if (!Number.isFinite(cutoff)) return out;
  const objects = join(design, "snapshots", "objects");
  let fans: string[];
  try {
    if (!lstatSync(join(design, "snapshots")).isDirectory() || !lstatSync(objects).isDirectory()) return out;
    fans = readdirSync(objects);
  } catch {
    return out;
  }
  for (const fan of fans) {
    if (!/^[0-9a-f]{2}$/.test(fan)) continue;
    const dir = join(objects, fan);
    let names: string[];
    try {
      if (!lstatSync(dir).isDirectory()) continue;
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!/^[0-9a-f]{38}([0-9a-f]{24})?$/.test(name)) continue;
      const file = join(dir, name);
      try {
        const st = lstatSync(file);
        if (!st.isFile() || st.mtimeMs >= cutoff) continue;
        unlinkSync(file);
        out.objects++;
        out.bytes += st.size;
      } catch {
        /* gone already, or not ours to remove */
      }
    }
  }
  return out;
}
