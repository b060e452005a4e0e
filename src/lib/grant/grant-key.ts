// Making the per-user grant key (`<config>/do/grant.key`), the one write outside `.design/` the helper makes
// itself, and only for `grant --approve` (the hook reads the key through grant.ts and never loads this module).
//
// Written whole or not at all: 32 random bytes as hex go into a new temp file beside the key (O_EXCL, O_NOFOLLOW,
// mode 0600), are fsynced, and the temp file is then link()ed to the key's name. link() never replaces an existing
// name, so the O_EXCL rule holds: two approvals at once make one key, the loser reads the winner's. A kill at any
// step leaves no key (the next approval makes it) or the whole key; a dead writer's temp file is removed by the
// next one.
//
// A key file that an earlier version left half-written (it created the key with O_EXCL and wrote into it, so a
// kill could leave it empty or cut short) blocked every later approval until the user deleted it by hand. Decided:
// such a file is replaced, and only such a file: a regular file of this user, no other link to it, shorter than a
// key and holding nothing but lowercase hex digits (an empty file included). It can never have signed a grant: a
// key is read only as exactly 64 hex digits (grant.ts, `keyAt`), so no grant verifies with it and replacing it
// widens no trust. Anything else that is not a key (other text, a key of another shape, a link, a folder) is left
// alone and the approval refuses, naming the file. The replacement moves the partial file aside first (rename),
// checks that what it moved is the partial file it judged, and links the new key in as above.
import { closeSync, constants, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { crashPoint } from "../../base/crash-point.js";
import { grantKeyPath, readGrantKey } from "./grant.js";
import { insideByRealPath } from "../checks/evidence.js";
import { readRegularWithStat } from "../../base/safe-read.js";

const KEY_BYTES = 32;
/** A key as an earlier version could leave it when killed while writing it: hex digits, fewer than 64. */
const PARTIAL_KEY = /^[0-9a-f]{0,63}$/;

/**
 * The key, made on first use (see the header) in a folder of mode 0700. Only `grant --approve` calls it. Throws an
 * Error whose message says what is wrong and what the user can do.
 */
export function ensureGrantKey(projectRoot: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  const path = grantKeyPath(env);
  if (path === null) throw new Error("no place for the grant key: neither CLAUDE_CONFIG_DIR nor HOME is an absolute path");
  if (insideByRealPath(projectRoot, path)) throw new Error(`the grant key ${path} would lie inside the project`);
  sweepDeadTemps(path); // a killed approval's temp name (of the key itself, when it was killed after the link)
  const have = readGrantKey(projectRoot, env);
  if (have) return have;
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = (require("node:crypto") as typeof import("node:crypto")).randomBytes(KEY_BYTES);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${hex12()}.tmp`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    try {
      writeSync(fd, `${key.toString("hex")}\n`);
      crashPoint("key:temp-written");
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    crashPoint("key:temp-synced");
    if (linkKey(temp, path)) return key;
    const other = readGrantKey(projectRoot, env); // made meanwhile by another approval
    if (other) return other;
    if (movePartialAside(path)) {
      const made = readGrantKey(projectRoot, env);
      if (made) return made;
      if (linkKey(temp, path)) return key;
      const last = readGrantKey(projectRoot, env);
      if (last) return last;
    }
    throw new Error(`${path} exists but is not a grant key (a regular file of 64 hex digits): delete it to make a new one`);
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      /* linked or not, the temp name goes */
    }
  }
}

/** link() the whole temp key to the key's name: false when the name is taken. */
function linkKey(temp: string, path: string): boolean {
  try {
    linkSync(temp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  crashPoint("key:linked");
  fsyncDir(dirname(path));
  return true;
}

/**
 * Move a partial key (header) out of the key's name. True when the name is free now (or already holds a key made
 * meanwhile); false when the file there is something else, left in place.
 */
function movePartialAside(path: string): boolean {
  const judged = partialKey(path);
  if (judged === null) return false;
  const aside = join(dirname(path), `.${basename(path)}.${process.pid}.${hex12()}.partial`);
  try {
    renameSync(path, aside);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
  const moved = partialKey(aside);
  if (moved === null || moved.ino !== judged.ino) {
    // Another approval put a new key there between the look and the move: put it back (never over a newer one).
    try {
      linkSync(aside, path);
    } catch {
      /* a key is there again: the caller reads it */
    }
    try {
      unlinkSync(aside);
    } catch {
      /* nothing to clean */
    }
    return true;
  }
  unlinkSync(aside);
  crashPoint("key:partial-removed");
  return true;
}

/** The file at `path` when it is a partial key (header), else null. */
function partialKey(path: string): { ino: number } | null {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return null;
  }
  if (!st.isFile() || st.nlink !== 1 || (typeof process.getuid === "function" && st.uid !== process.getuid())) return null;
  const read = readRegularWithStat(path, 256, { noFollow: true });
  if (!read || read.stat.ino !== st.ino) return null;
  return PARTIAL_KEY.test(read.bytes.toString("latin1")) ? { ino: st.ino } : null;
}

/** Remove temp and aside files of the key left by processes that died (their pid is in the name). */
function sweepDeadTemps(path: string): void {
  const base = basename(path);
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^\.(.+)\.(\d+)\.[0-9a-f]{12}\.(?:tmp|partial)$/.exec(name);
    if (!m || m[1] !== base || alive(Number(m[2]))) continue;
    try {
      unlinkSync(join(dirname(path), name));
    } catch {
      /* another approval's sweep got it */
    }
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function hex12(): string {
  return (require("node:crypto") as typeof import("node:crypto")).randomBytes(6).toString("hex");
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* best effort */
  }
}
