// The lock of the write protocol: proper-lockfile's `<target>.lock` directory, taken synchronously, with the
// holder's identity inside it so a waiter reclaims a dead holder's lock at once (see `HOLDER` below). Only writers
// load it (store/write.ts); the lock library itself is required on the first lock.
import {
  closeSync, constants, mkdirSync, openSync, readdirSync, readSync, realpathSync, rmdirSync, statSync, unlinkSync, utimesSync, writeSync,
} from "node:fs";
import { join } from "node:path";
import { crashPoint } from "../base/crash-point.js";
import { HelperError, detail } from "../base/errors.js";

export const LOCK_TIMEOUT_MS = 10_000;
/** A lock whose holder stopped refreshing it for this long is broken by the next writer. */
export const LOCK_STALE_MS = 4_000;
const LOCK_UPDATE_MS = 1_000;

export function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** 12 random hex digits for a temp name: uniqueness, not secrecy (the name is opened with O_EXCL anyway). */
export function hex12(): string {
  return (Math.floor(Math.random() * 2 ** 24).toString(16).padStart(6, "0") + Math.floor(Math.random() * 2 ** 24).toString(16).padStart(6, "0"));
}

/** Block the thread for `ms` (the lock's retry back-off; the helper has nothing else to do meanwhile). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export type Release = () => void;

/**
 * The file system proper-lockfile's sync API is given: the five calls it makes (mkdir, stat, utimes, rmdir, and
 * realpath, which `realpath: false` never reaches). Without it the library clones all of node:fs (`{ ...fs }` in
 * its sync adapter), which runs every lazy getter of node:fs and loads fs/promises, readline, fs streams, watchers
 * and Dir: ~20 built-in modules that no writer uses.
 */
const LOCK_FS = { mkdirSync, realpathSync, rmdirSync, statSync, utimesSync };

/**
 * Who holds a lock: a file `holder.<pid>.<12 hex>` inside `<target>.lock`, holding `<host>\n<boot id>\n<start>\n`
 * (the kernel's boot id and the process's start time in clock ticks, Linux; empty elsewhere). A waiter that finds
 * the holder's process gone (or the pid now another process's, or the machine rebooted) reclaims the lock at once
 * instead of waiting out LOCK_STALE_MS; a lock with no holder file, a torn one or one of another host keeps the
 * staleness rule. Reclaiming is an unlink of that exact file name, which one waiter only can win: the unlink also
 * freshens the directory's mtime, so no other waiter can break the emptied lock as stale before the winner removes
 * it, and a later holder's file has another name.
 */
const HOLDER = /^holder\.(\d{1,10})\.[0-9a-f]{12}$/;

interface Identity {
  host: string;
  boot: string;
  start: string;
}

let selfIdentity: Identity | undefined;

function readSmall(path: string): string {
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const buf = Buffer.alloc(4096);
      const n = readSync(fd, buf, 0, buf.length, null);
      return buf.toString("utf8", 0, n);
    } finally {
      closeSync(fd);
    }
  } catch {
    return "";
  }
}

/** A process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat), "" where unknown. */
function startTime(pid: number | "self"): string {
  const stat = readSmall(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return /^\d+$/.test(fields[19] ?? "") ? fields[19] : "";
}

function identity(): Identity {
  selfIdentity ??= {
    host: (require("node:os") as typeof import("node:os")).hostname().replace(/\s/g, "_"),
    boot: readSmall("/proc/sys/kernel/random/boot_id").trim(),
    start: startTime("self"),
  };
  return selfIdentity;
}

/**
 * Write this process's holder file into the lock it just took, keeping the directory's mtime as proper-lockfile
 * recorded it (its refresh takes any other mtime for a lock stolen from it). Returns the file's path, or undefined
 * when it could not be written (the lock then behaves as one of an unknown holder).
 */
function markHolder(lockDir: string): string | undefined {
  try {
    const before = statSync(lockDir);
    const path = join(lockDir, `holder.${process.pid}.${hex12()}`);
    const id = identity();
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      writeSync(fd, `${id.host}\n${id.boot}\n${id.start}\n`);
    } finally {
      closeSync(fd);
    }
    utimesSync(lockDir, before.atime, before.mtime);
    return path;
  } catch {
    return undefined;
  }
}

/** True when the holder file `name` names a process that is certainly gone. */
function holderDead(lockDir: string, name: string): boolean {
  const m = HOLDER.exec(name);
  if (!m) return false;
  const [host, boot, start, end] = readSmall(join(lockDir, name)).split("\n");
  if (end !== "") return false; // torn or foreign: unknown holder
  const me = identity();
  if (host !== me.host) return false; // another machine's process: no way to ask it
  if (boot !== "" && me.boot !== "" && boot !== me.boot) return true; // written before this machine rebooted
  const pid = Number(m[1]);
  if (!alive(pid)) return true;
  // The pid is taken: by the holder, or by a later process that reused it.
  return start !== "" && pid !== process.pid && startTime(pid) !== "" && startTime(pid) !== start;
}

/** The lock's mtime (refreshed every second by a live holder) is older than LOCK_STALE_MS, judged now. */
function staleNow(lockDir: string): boolean {
  try {
    return statSync(lockDir).mtimeMs < Date.now() - LOCK_STALE_MS;
  } catch {
    return false;
  }
}

/**
 * Remove `lockDir` if its one holder file names a dead process (dead: true) or whatever holds it (dead: false, the
 * lock is stale). True when the caller should try to take the lock again at once.
 */
function breakLock(lockDir: string, dead: boolean): boolean {
  let names: string[];
  try {
    names = readdirSync(lockDir);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
  if (names.length !== 1 || !HOLDER.test(names[0])) return false;
  if (dead ? !holderDead(lockDir, names[0]) : !staleNow(lockDir)) return false;
  try {
    unlinkSync(join(lockDir, names[0]));
  } catch (err) {
    // ENOENT: another waiter won this holder file; its lock is gone or new, ask again.
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
  crashPoint("lock:reclaimed");
  try {
    rmdirSync(lockDir);
  } catch {
    /* gone already, or not ours to judge: the loop asks again */
  }
  return true;
}

/**
 * Take the exclusive lock on `target` (proper-lockfile's `<target>.lock` directory, its mtime refreshed every
 * second while the event loop runs, stale after LOCK_STALE_MS), synchronously: mkdir, utimes and stat, no thread
 * pool. A lock whose recorded holder is dead is reclaimed at once (above). Retries with jittered back-off up to
 * LOCK_TIMEOUT_MS.
 */
export function acquire(target: string, onCompromised: () => void): Release {
  // Loaded here, not at the top: only writers pay for it. (The build gives it plain node:fs for graceful-fs.)
  const lockfile = require("proper-lockfile") as typeof import("proper-lockfile");
  const lockDir = `${target}.lock`;
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  let delay = 10;
  for (;;) {
    try {
      const release = lockfile.lockSync(target, { realpath: false, stale: LOCK_STALE_MS, update: LOCK_UPDATE_MS, onCompromised, fs: LOCK_FS });
      const holder = markHolder(lockDir);
      return () => {
        if (holder !== undefined) {
          try {
            unlinkSync(holder);
          } catch {
            /* reclaimed or broken by another writer: release() reports nothing either */
          }
        }
        release();
      };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // ENOTEMPTY: proper-lockfile judged the lock stale and could not remove it, as it holds a holder file. The
      // directory may be a new holder's by now (proper-lockfile's stat and rmdir are two steps): judged again.
      if (code === "ENOTEMPTY" && breakLock(lockDir, false)) continue;
      if (code !== "ELOCKED" && code !== "ENOTEMPTY") {
        throw new HelperError("E_WRITE", `Cannot lock ${target}: ${detail(err)}`);
      }
      if (breakLock(lockDir, true)) continue;
      if (Date.now() >= deadline) {
        throw new HelperError("E_LOCKED", `Timed out after ${LOCK_TIMEOUT_MS / 1000}s waiting for lock on ${target}`);
      }
      sleepSync(delay * (0.5 + Math.random()));
      delay = Math.min(200, delay * 2);
    }
  }
}

