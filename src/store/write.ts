// The locked write protocol (contract 1.7): every writer locks the target, reads it, writes a complete new copy to
// a unique temp file in the same directory, fsyncs, renames it over the target and releases the lock. JSONL
// appends write the new line with O_APPEND under the same lock. The lock is store/lock.ts.
import {
  chmodSync, closeSync, constants, fstatSync, fsyncSync, mkdirSync, openSync, readSync, readdirSync, renameSync, statSync, unlinkSync, writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { crashPoint } from "../base/crash-point.js";
import { HelperError, detail } from "../base/errors.js";
import { acquire, alive, hex12, LOCK_STALE_MS, LOCK_TIMEOUT_MS, type Release } from "./lock.js";
import { MAX_FILE_BYTES, MAX_JSONL_BYTES, readText } from "./read.js";

export { LOCK_STALE_MS, LOCK_TIMEOUT_MS };

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
}

const TEMP = /^\.(.+)\.(\d+)\.[0-9a-f]{12}\.tmp$/;

/** True for the helper's own temporary files (never archived, swept when their writer is dead). */
export function isTempName(name: string): boolean {
  return TEMP.test(name);
}

export function isLockName(name: string): boolean {
  return name.endsWith(".lock");
}

/** Remove temp files of `target` left by writers that died mid-write. Call only while holding its lock. */
export function sweepOrphans(target: string): void {
  const dir = dirname(target);
  const base = basename(target);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = TEMP.exec(name);
    if (m && m[1] === base && !alive(Number(m[2]))) {
      try {
        unlinkSync(join(dir, name));
      } catch {
        /* another writer's sweep got it first */
      }
    }
  }
}

/**
 * Replace `target` with `data` atomically: unique temp file, fsync, rename, fsync of the directory. A cache that is
 * checked on every read (`durable: false`) skips both fsyncs: after a crash it is either whole or detected as bad.
 */
export function writeAtomic(target: string, data: string | Buffer, durable = true): void {
  const dir = dirname(target);
  const tmp = join(dir, `.${basename(target)}.${process.pid}.${hex12()}.tmp`);
  let mode: number | undefined;
  try {
    mode = statSync(target).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  let fd: number | undefined;
  try {
    fd = openSync(tmp, "wx", mode ?? 0o644);
    const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    crashPoint("write:temp-written");
    if (durable) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    crashPoint("write:temp-synced");
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, target);
    crashPoint("write:renamed");
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* never created */
    }
    throw err;
  }
  if (durable) fsyncDir(dir);
}

/**
 * Run `fn` while holding the exclusive lock on `target` (proper-lockfile, `<target>.lock`). The target need not
 * exist; its directory must. Gives up with E_LOCKED after 10 s; a lock whose holder died is reclaimed at once, one
 * of an unknown holder broken after LOCK_STALE_MS. The lock is always released.
 */
export function withLock<T>(target: string, fn: (lost: () => boolean) => T | Promise<T>): Promise<T> {
  let compromised = false;
  let release: Release;
  try {
    release = acquire(target, () => {
      compromised = true;
    });
  } catch (err) {
    return Promise.reject(err);
  }
  crashPoint("lock:acquired");
  const done = () => {
    crashPoint("lock:release");
    try {
      release();
    } catch {
      /* already released or compromised: nothing left to undo */
    }
  };
  let result: T | Promise<T>;
  try {
    sweepOrphans(target);
    result = fn(() => compromised);
  } catch (err) {
    done();
    return Promise.reject(err);
  }
  // A synchronous critical section releases before returning, so a second in-process caller never waits on a
  // release that only a later microtask would run.
  if (result instanceof Promise) return result.finally(done);
  done();
  return Promise.resolve(result);
}

/**
 * Locked read-modify-write of one file. `change` gets the current text (null when the file does not exist)
 * and returns the new text (or null to leave the file alone) plus a result. Throws what `change` throws,
 * with the file untouched. A current file that is not a regular file of at most `maxBytes` is a read error.
 */
export async function updateText<R>(
  target: string,
  change: (current: string | null) => { text: string | null; result: R },
  writeError = "Error writing file",
  readError = `Error reading ${target}`,
  maxBytes = MAX_FILE_BYTES,
): Promise<R> {
  return withLock(target, (lost) => {
    const cur = readText(target, maxBytes);
    if (cur.kind === "error") throw new HelperError("E_READ", `${readError}: ${cur.detail}`);
    const { text, result } = change(cur.kind === "ok" ? cur.text : null);
    if (text !== null) {
      if (lost()) throw new HelperError("E_LOCKED", `Lock on ${target} was lost; nothing written`);
      try {
        writeAtomic(target, text);
      } catch (err) {
        throw new HelperError("E_WRITE", `${writeError}: ${detail(err)}`);
      }
    }
    return result;
  });
}

/** The bytes of a JSONL file with one more entry: old bytes unchanged, a newline repaired, the entry, "\n". */
export function withAppendedLine(current: string | null, entry: unknown): string {
  const old = current ?? "";
  const sep = old === "" || old.endsWith("\n") || old.endsWith("\r") ? "" : "\n";
  return `${old}${sep}${JSON.stringify(entry)}\n`;
}

/** Append one JSON object to a JSONL file under its lock, creating the directory and the file if needed. */
export async function appendJsonl(target: string, entry: unknown, writeError = "Error writing file"): Promise<void> {
  try {
    ensureDir(dirname(target));
  } catch (err) {
    throw new HelperError("E_WRITE", `${writeError}: ${detail(err)}`);
  }
  await updateText(target, (cur) => ({ text: withAppendedLine(cur, entry), result: undefined }), writeError, undefined, MAX_JSONL_BYTES);
}

export interface Appended {
  /** Byte offset of the new line in the file, and its length in bytes (without the newline). */
  start: number;
  length: number;
  /** The file after the append (bigint stat: nanosecond times). */
  stat: import("node:fs").BigIntStats;
}

/**
 * Append one line to a text file with O_APPEND, creating it if needed; call only while holding its lock. Every
 * old byte stays; a missing final newline is repaired first (Fix D6). The line goes out in one write(2), so a
 * writer killed mid-append leaves the file as it was or with the whole line; file and (for a new file) directory
 * are fsynced. A reader (readers never lock) that races the write sees the file without the line or, rarely, with
 * its first part only: a line that does not parse, which readers skip.
 */
export function appendLine(target: string, line: string): Appended {
  // Never through a link or into a FIFO, and never into a file with a second name (it may be a file of another
  // command's): the target is already the real path confine() judged.
  const fd = openSync(target, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${target} is not a regular file`);
    if (st.nlink > 1) throw new Error(`${target} has other hard links`);
    const before = st.size;
    let sep = "";
    if (before > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, before - 1);
      if (last[0] !== 10 && last[0] !== 13) sep = "\n";
    }
    const buf = Buffer.from(`${sep}${line}\n`, "utf8");
    crashPoint("append:before");
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    crashPoint("append:written");
    fsyncSync(fd);
    const stat = fstatSync(fd, { bigint: true });
    if (before === 0) fsyncDir(dirname(target));
    return { start: Number(stat.size) - buf.length + sep.length, length: buf.length - sep.length - 1, stat };
  } finally {
    closeSync(fd);
  }
}

function fsyncDir(dir: string): void {
  try {
    const dfd = openSync(dir, "r");
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    /* best effort: some file systems refuse to fsync a directory */
  }
}

/** Replace physical line `line` (0-based) of `text`, keeping every other byte, line ends included. */
export function replaceLine(text: string, line: number, replacement: string): string {
  const parts = text.split(/(\r\n|\r|\n)/);
  parts[line * 2] = replacement;
  return parts.join("");
}

/** Move directory entries with rename; on failure, move back what was moved and rethrow. */
/** .design entries that outlive a run: archive and a fresh run-start leave them in place. */
export const PERSISTENT: ReadonlySet<string> = new Set([
  "memory.jsonl", ".memory.jsonl.index", ".memory.jsonl.terms", "reflection.jsonl", "handoff.md", "recon.json", "history",
]);

/** Enough for any burst of archives within one second; a bound so a broken file system cannot loop forever. */
const MAX_SUFFIX = 10_000;

/**
 * Create <historyDir>/<stamp>, or the first free <stamp>-2, <stamp>-3 ..., exclusively, so nothing archived
 * earlier is ever overwritten (D18). Returns the folder name; throws the OS error or a "no free name" error.
 */
export function makeHistoryFolder(historyDir: string, stamp: string): string {
  ensureDir(historyDir);
  for (let k = 1; k <= MAX_SUFFIX; k++) {
    const name = k === 1 ? stamp : `${stamp}-${k}`;
    if (makeDirExclusive(join(historyDir, name))) return name;
  }
  throw new Error(`no free name for ${stamp}`);
}

/** Create a directory that must not exist yet; false when it already does. */
export function makeDirExclusive(dir: string): boolean {
  try {
    mkdirSync(dir);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}
