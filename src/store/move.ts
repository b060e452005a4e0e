// Moves of .design entries into history folders (archive, a replaced run, a replaced recon): all or none on an
// error, and, for the moves into history, a journal a kill leaves behind for the next caller to finish (see
// moveIntoHistory). Part of the store (src/store.ts).
import { readdirSync, realpathSync, renameSync, unlinkSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { crashPoint } from "../base/crash-point.js";
import { isInside } from "./confine.js";
import { MAX_FILE_BYTES, pathKind, readText } from "./read.js";
import { ensureDir, sweepOrphans, writeAtomic } from "./write.js";

/**
 * Move `names` (relative paths) from `fromDir` into `toDir`, all or none: an error moves back what moved and
 * rethrows. A plain move, for one that nothing must finish after a kill (see moveIntoHistory for the archive's).
 */
export function moveEntries(fromDir: string, names: readonly string[], toDir: string): void {
  moveGroups(toDir, [{ from: fromDir, names }]);
}

/** One source folder of a move and the entries it gives up. */
export interface MoveGroup {
  from: string;
  names: readonly string[];
}

/** The journal a history folder holds while entries move into it (see moveIntoHistory). */
export const MOVING = ".moving.json";

/**
 * Move the groups' entries into the history folder `toDir` so that a kill at any point leaves either nothing moved
 * or a journal (`<toDir>/.moving.json`, each group's source relative to `toDir` and its names) that the next
 * caller's resumeMoves completes into the same folder: an archive is never split over two folders, and a stopped
 * run's outputs never stay behind to pass as the next run's. An error (not a kill) moves back what moved.
 */
export function moveIntoHistory(toDir: string, groups: readonly MoveGroup[]): void {
  const journal = join(toDir, MOVING);
  const body = { groups: groups.map((g) => ({ from: relative(toDir, g.from) || ".", names: [...g.names] })) };
  writeAtomic(journal, `${JSON.stringify(body)}\n`);
  crashPoint("move:journal");
  moveGroups(toDir, groups, () => unlinkQuiet(journal));
  unlinkQuiet(journal);
}

function moveGroups(toDir: string, groups: readonly MoveGroup[], onUndo?: () => void): void {
  const moved: Array<[string, string]> = [];
  try {
    for (const g of groups) {
      for (const name of g.names) {
        const from = join(g.from, name);
        const to = join(toDir, name);
        ensureDir(dirname(to));
        if (!renameUnlessDone(from, to)) continue;
        moved.push([from, to]);
        crashPoint("move:entry");
      }
    }
  } catch (err) {
    for (const [from, to] of moved.reverse()) {
      try {
        renameSync(to, from);
      } catch {
        /* best effort */
      }
    }
    onUndo?.();
    throw err;
  }
}

/**
 * rename(from, to); false when `from` is gone and `to` is there: another caller's resumeMoves finished this entry
 * while this one was moving the others.
 */
function renameUnlessDone(from: string, to: string): boolean {
  try {
    renameSync(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" && pathKind(to) !== "missing") return false;
    throw err;
  }
}

function realQuiet(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

function unlinkQuiet(p: string): void {
  try {
    unlinkSync(p);
  } catch {
    /* already gone */
  }
}

/**
 * Finish every move a kill interrupted under `historyDir`: for each folder holding a journal, move the entries it
 * names that are still at their source (and not yet in the folder) into it, then drop the journal. A source outside
 * `within` (the project's .design/, real path) or a name that climbs out is skipped: the journal is only ever the
 * helper's, but it is read as data. Returns the folders it finished.
 */
export function resumeMoves(historyDir: string, within: string): string[] {
  let folders: string[];
  try {
    folders = readdirSync(historyDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
  const finished: string[] = [];
  for (const folder of folders) {
    const toDir = join(historyDir, folder);
    const journal = join(toDir, MOVING);
    const read = readText(journal, MAX_FILE_BYTES);
    if (read.kind === "missing") {
      // A kill while the journal was being written left its temp file (and nothing moved): swept once its writer
      // is dead, so the folder holds nothing that looks archived.
      sweepOrphans(journal);
      continue;
    }
    const home = realQuiet(toDir);
    if (home === null) continue;
    for (const g of read.kind === "ok" ? journalGroups(read.text) : []) {
      const from = realQuiet(resolve(toDir, g.from));
      if (from === null || !isInside(within, from)) continue;
      for (const name of g.names) {
        const src = resolve(from, name);
        const dest = resolve(home, name);
        if (!isInside(from, src) || !isInside(home, dest) || pathKind(dest) !== "missing" || pathKind(src) === "missing") continue;
        // Through links neither way: the source's folder and the destination's stay where they are named.
        const srcDir = realQuiet(dirname(src));
        if (srcDir === null || !isInside(from, srcDir)) continue;
        ensureDir(dirname(dest));
        const destDir = realQuiet(dirname(dest));
        if (destDir === null || !isInside(home, destDir)) continue;
        renameUnlessDone(join(srcDir, basename(src)), join(destDir, basename(dest)));
        crashPoint("move:resume");
      }
    }
    unlinkQuiet(journal);
    finished.push(folder);
  }
  return finished;
}

function journalGroups(text: string): Array<{ from: string; names: string[] }> {
  try {
    const doc = JSON.parse(text) as { groups?: unknown };
    if (!Array.isArray(doc.groups)) return [];
    return doc.groups.flatMap((g: { from?: unknown; names?: unknown }) =>
      typeof g?.from === "string" && Array.isArray(g.names) ? [{ from: g.from, names: g.names.filter((n): n is string => typeof n === "string" && n !== "") }] : []);
  } catch {
    return [];
  }
}
