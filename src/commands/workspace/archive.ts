// archive: move a finished run's artifacts from the project's .design/ (the only directory it accepts, its real
// path, symlinks followed) into .design/history/<UTC stamp>/, keeping the
// persistent files, locks, in-flight temporary files and the state of an unfinished skill run (contract 4.20;
// D18). Two archives in the same second
// get their own folders (-2, -3, ...). The plan lock is held while moving, so a concurrent update-status either
// finishes first or finds the plan gone.
import { join } from "node:path";
import { defineCommand } from "../../lib/command.js";
import { HelperError, detail } from "../../lib/errors.js";
import { compactStamp } from "../../lib/values.js";
import { isRunFileName, readRun } from "../../lib/run-state.js";
import {
  argLabel, confine, isLockName, isTempName, listDir, makeHistoryFolder, moveEntries, pathKind, PERSISTENT, projectRoots, withLock,
} from "../../store.js";

const NOTHING = { message: "nothing to archive" };

function candidates(dir: string, shown: string): string[] {
  let names: string[];
  try {
    names = listDir(dir).map((e) => e.name);
  } catch (err) {
    throw new HelperError("E_READ", `Error reading ${shown}: ${detail(err)}`);
  }
  return names.filter((n) => !PERSISTENT.has(n) && !isLockName(n) && !isTempName(n) && !isIncompleteRun(dir, n));
}

/** Create history/<stamp>, or the first free history/<stamp>-<k>; returns the folder name. */
function makeDestination(historyDir: string, stamp: string): string {
  try {
    return makeHistoryFolder(historyDir, stamp);
  } catch (err) {
    throw new HelperError("E_WRITE", `Error creating archive directory: ${detail(err)}`);
  }
}

/** An unfinished run's state stays in place so the skill can resume; a finished one goes with its run. */
function isIncompleteRun(dir: string, name: string): boolean {
  if (!isRunFileName(name)) return false;
  const r = readRun(join(dir, name));
  return r.kind === "ok" && r.run.completedAt === null;
}

export default defineCommand({
  positionals: [{ name: "design_dir", help: "the project's design directory: .design", path: "write" }],
  flags: {},
  async run(ctx, args) {
    const given = args.design_dir as string;
    const shown = given.replace(/\/+$/, "") || given;
    // Only the project's own .design/ is ever archived (confineArgs already refused anything outside it).
    const dir = confine(ctx.cwd, argLabel("design_dir", given, false), given, "write");
    const { design } = projectRoots(ctx.cwd);
    if (dir !== design) {
      throw new HelperError("E_PATH", `design_dir '${given}' is not the project's .design/: ${dir}`, { path: dir });
    }
    const kind = pathKind(dir);
    if (kind === "missing") return NOTHING;
    if (kind !== "directory") throw new HelperError("E_USAGE", `${shown} is not a directory`);
    if (candidates(dir, shown).length === 0) return NOTHING;

    return withLock(join(dir, "plan.json"), () => {
      // Listed again under the lock: the entries to move are the ones present now.
      const names = candidates(dir, shown);
      if (names.length === 0) return NOTHING;
      const historyDir = confine(ctx.cwd, `history folder '${shown}/history'`, join(dir, "history"), "write");
      const folder = makeDestination(historyDir, compactStamp(ctx.now()));
      try {
        moveEntries(dir, names, join(historyDir, folder));
      } catch (err) {
        throw new HelperError("E_WRITE", `Error archiving files: ${detail(err)}`);
      }
      return { archivedTo: `${shown}/history/${folder}`, archived: names };
    });
  },
});
