// The store: the only module that reads or writes .design files. Readers never lock; every writer locks the
// target, reads it, writes a complete new copy to a unique temp file in the same directory, fsyncs, renames it
// over the target and releases the lock (contract 1.7). JSONL appends write the new line with O_APPEND under the
// same lock (appendJsonl); a rewrite of existing lines uses the copy-and-rename protocol.
//
// Startup is a hot path: everything here is synchronous (no libuv thread pool), the lock library is loaded only by
// writers, and node:crypto is not loaded at all.
import {
  chmodSync, closeSync, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readSync, readFileSync, readdirSync,
  readlinkSync, realpathSync, renameSync, rmdirSync, statSync, unlinkSync, utimesSync, writeSync, type Stats,
} from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import type { ArgSpec, Args } from "./lib/args.js";
import { HelperError, detail } from "./lib/errors.js";

export const LOCK_TIMEOUT_MS = 10_000;
/** A lock whose holder stopped refreshing it for this long is broken by the next writer. */
export const LOCK_STALE_MS = 4_000;
const LOCK_UPDATE_MS = 1_000;

// ---------------------------------------------------------------- reading

export type TextRead = { kind: "ok"; text: string } | { kind: "missing" } | { kind: "error"; detail: string };

const CHUNK = 64 * 1024;
/** Files under this size are read with one buffer of their size; larger ones through the reused chunk. */
const WHOLE = 1024 * 1024;
let chunk: Buffer | undefined;

/**
 * The whole file as UTF-8 text, the same string readFileSync(path, "utf8") gives (a BOM kept, invalid bytes as
 * U+FFFD), read through one reused 64 KB buffer: Node 20 reads "utf8" files 8 KB at a time, and one buffer the
 * size of a large file costs a page fault per 4 KB.
 */
function readUtf8(path: string): string {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size < WHOLE) {
      // One read of the known size (plus one byte, to notice a file that grew since fstat), one string: a 200 KB
      // plan read in 64 KB chunks made four young strings and a flattened copy, garbage the GC then had to scan.
      const buf = Buffer.allocUnsafe(size + 1);
      let n = 0;
      for (let r; n < buf.length && (r = readSync(fd, buf, n, buf.length - n, null)) > 0; ) n += r;
      if (n <= size) return buf.toString("utf8", 0, n);
      return readRest(fd, buf.subarray(0, n));
    }
    return readRest(fd);
  } finally {
    closeSync(fd);
  }
}

function readRest(fd: number, head?: Buffer): string {
  chunk ??= Buffer.allocUnsafe(CHUNK);
  let text = "";
  let carry = 0; // bytes of an unfinished UTF-8 sequence kept at the start of the buffer for the next read
  if (head) {
    const cut = utf8Cut(head, head.length);
    text = head.toString("utf8", 0, cut);
    carry = head.length - cut;
    head.copy(chunk, 0, cut);
  }
  for (let n; (n = readSync(fd, chunk, carry, CHUNK - carry, null)) > 0; ) {
    const end = carry + n;
    const cut = utf8Cut(chunk, end);
    text += chunk.toString("utf8", 0, cut);
    chunk.copy(chunk, 0, cut, end);
    carry = end - cut;
  }
  return carry ? text + chunk.toString("utf8", 0, carry) : text;
}

/**
 * Where to cut `buf[0, end)` so no UTF-8 sequence that the next bytes could still complete is split: before a
 * lead byte in the last three bytes whose sequence needs more bytes than are there. Decoding the pieces then gives
 * what decoding the whole would (invalid bytes become U+FFFD the same way).
 */
function utf8Cut(buf: Buffer, end: number): number {
  for (let i = end - 1; i >= 0 && i >= end - 3; i--) {
    const b = buf[i];
    if (b < 0x80) return end; // ASCII: nothing pending
    if (b >= 0xc0) {
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return end - i < need ? i : end;
    }
  }
  return end;
}

/** Read a UTF-8 file. A missing file is a value, not an exception. */
export function readText(path: string): TextRead {
  try {
    return { kind: "ok", text: readUtf8(path) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    return { kind: "error", detail: detail(err) };
  }
}

/** Raw bytes of a regular file, or null when it is missing, not a regular file, or unreadable. */
export function readBytes(path: string): Buffer | null {
  try {
    return statSync(path).isFile() ? readFileSync(path) : null;
  } catch {
    return null;
  }
}

export type JsonRead =
  | { kind: "ok"; value: unknown; text: string }
  | { kind: "missing" }
  | { kind: "error"; detail: string }
  | { kind: "invalid"; detail: string };

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; detail: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, detail: detail(err) };
  }
}

export function readJson(path: string): JsonRead {
  const r = readText(path);
  if (r.kind !== "ok") return r;
  const p = parseJson(r.text);
  return p.ok ? { kind: "ok", value: p.value, text: r.text } : { kind: "invalid", detail: p.detail };
}

/** Physical lines of a text file; \r\n, \r and \n all end a line (contract 1.6). */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

export interface JsonlEntry {
  /** 0-based physical line number. */
  line: number;
  value: Record<string, unknown>;
}

export interface JsonlRead {
  entries: JsonlEntry[];
  /** Non-blank lines that are not JSON objects: skipped by readers, kept byte for byte by writers. */
  skipped: number;
  skippedLines: number[];
}

export interface JsonlScan {
  skipped: number;
  skippedLines: number[];
}

/**
 * Visit every JSON object line of a JSONL text (0-based physical line numbers), without keeping them: a reader
 * that needs only a few entries lets the rest die young instead of surviving into the old heap.
 */
export function scanJsonl(
  text: string,
  visit: (value: Record<string, unknown>, line: number) => void,
  /** A cheaper exact parser for lines of a known layout; undefined sends the line to JSON.parse. */
  fastParse?: (line: string) => Record<string, unknown> | undefined,
): JsonlScan {
  const skippedLines: number[] = [];
  scanLines(text, 0, true, visit, fastParse, skippedLines);
  return { skipped: skippedLines.length, skippedLines };
}

/**
 * The lines of `text`, numbered from `first`; with `last` false the segment after the final line end is left out
 * (a caller that reads in chunks passes it on with the next one). Returns the number of the next line.
 */
function scanLines(
  text: string,
  first: number,
  last: boolean,
  visit: (value: Record<string, unknown>, line: number) => void,
  fastParse: ((line: string) => Record<string, unknown> | undefined) | undefined,
  skippedLines: number[],
): number {
  // One pass with indexOf instead of a regex split: memory files are read whole on every search.
  let start = 0;
  let lf = -1;
  let cr = -1;
  let i = first;
  for (; last ? start <= text.length : start < text.length; i++) {
    if (lf < start) lf = text.indexOf("\n", start);
    if (cr !== Infinity && cr < start) cr = text.indexOf("\r", start);
    if (lf === -1) lf = Infinity;
    if (cr === -1) cr = Infinity;
    const end = Math.min(lf, cr, text.length);
    const raw = text.slice(start, end);
    start = end + (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? 2 : 1);
    const t = raw.trim();
    if (t === "") continue;
    const value = fastParse?.(t) ?? objectLine(t);
    if (value) visit(value, i);
    else skippedLines.push(i + 1);
  }
  return i;
}

/** The object a trimmed JSONL line holds; undefined when it is not JSON or not an object (the line is skipped). */
function objectLine(t: string): Record<string, unknown> | undefined {
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    return undefined;
  }
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export type JsonlFileScan = ({ kind: "ok" } & JsonlScan) | { kind: "missing" } | { kind: "error"; detail: string };

/**
 * scanJsonl over a file read 64 KB at a time: the same visits, line numbers and skipped lines, without ever
 * holding the whole text (on this machine every fresh MB costs ~3.5 ms of page faults, and a large file's text
 * was read, joined and flattened into several).
 */
export function scanJsonlFile(
  path: string,
  visit: (value: Record<string, unknown>, line: number) => void,
  fastParse?: (line: string) => Record<string, unknown> | undefined,
): JsonlFileScan {
  const fd = openForScan(path);
  if (typeof fd !== "number") return fd;
  const skippedLines: number[] = [];
  try {
    chunk ??= Buffer.allocUnsafe(CHUNK);
    let pending = "";
    let line = 0;
    let carry = 0;
    for (let n; (n = readSync(fd, chunk, carry, CHUNK - carry, null)) > 0; ) {
      const end = carry + n;
      const cut = utf8Cut(chunk, end);
      const text = pending + chunk.toString("utf8", 0, cut);
      chunk.copy(chunk, 0, cut, end);
      carry = end - cut;
      // Complete lines only: up to the last line end, not counting a final "\r" that may be half of "\r\n".
      const limit = text.endsWith("\r") ? text.length - 1 : text.length;
      const p = Math.max(text.lastIndexOf("\n", limit - 1), text.lastIndexOf("\r", limit - 1));
      if (p < 0 || limit === 0) {
        pending = text;
        continue;
      }
      line = scanLines(text.slice(0, p + 1), line, false, visit, fastParse, skippedLines);
      pending = text.slice(p + 1);
    }
    scanLines(carry ? pending + chunk.toString("utf8", 0, carry) : pending, line, true, visit, fastParse, skippedLines);
  } catch (err) {
    return { kind: "error", detail: detail(err) };
  } finally {
    closeSync(fd);
  }
  return { kind: "ok", skipped: skippedLines.length, skippedLines };
}

/** `path` opened for reading, or what a scan reports when it cannot be opened. */
function openForScan(path: string): number | { kind: "missing" } | { kind: "error"; detail: string } {
  try {
    return openSync(path, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    return { kind: "error", detail: detail(err) };
  }
}

/**
 * What scanJsonlFile would count: the object lines of a JSONL file, and the lines it would skip, without making a
 * string per line or keeping any entry. The file is decoded 64 KB at a time (more for a longer line), each piece
 * cut at a line end so no partial line is carried as a string; a line the sticky `shape` matches from its first
 * character to its line end is counted in place, any other goes through trim and JSON.parse as in scanLines.
 * `shape` must match only complete JSON objects and must end with a lookahead for a line end or the input's end.
 */
export function countJsonlFile(path: string, shape: RegExp): ({ kind: "ok"; count: number } & JsonlScan) | { kind: "missing" } | { kind: "error"; detail: string } {
  const fd = openForScan(path);
  if (typeof fd !== "number") return fd;
  const skippedLines: number[] = [];
  let count = 0;
  let line = 0;
  try {
    chunk ??= Buffer.allocUnsafe(CHUNK);
    let buf = chunk;
    let have = 0;
    for (;;) {
      if (have === buf.length) {
        // One line longer than the buffer: make room for the rest of it.
        const bigger = Buffer.allocUnsafe(2 * buf.length);
        buf.copy(bigger, 0, 0, have);
        buf = bigger;
      }
      const n = readSync(fd, buf, have, buf.length - have, null);
      have += n;
      const last = n === 0;
      // Complete lines only: up to the last line end, not counting a final "\r" that may be half of "\r\n".
      let cut = have;
      if (!last) {
        const limit = have > 0 && buf[have - 1] === 13 ? have - 1 : have;
        const lf = limit > 0 ? buf.lastIndexOf(10, limit - 1) : -1;
        const cr = limit > 0 ? buf.lastIndexOf(13, limit - 1) : -1;
        cut = Math.max(lf, cr) + 1;
        if (cut === 0) continue;
      }
      // A cut after a line end never splits a UTF-8 sequence (line ends are ASCII).
      const text = buf.toString("utf8", 0, cut);
      let start = 0;
      for (; last ? start <= text.length : start < text.length; line++) {
        shape.lastIndex = start;
        let end: number;
        if (shape.test(text)) {
          count++;
          end = shape.lastIndex;
        } else {
          const lf = text.indexOf("\n", start);
          const cr = text.indexOf("\r", start);
          end = Math.min(lf < 0 ? text.length : lf, cr < 0 ? text.length : cr);
          const t = text.slice(start, end).trim();
          if (t !== "") {
            if (objectLine(t)) count++;
            else skippedLines.push(line + 1);
          }
        }
        start = end + (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? 2 : 1);
      }
      if (last) break;
      buf.copy(buf, 0, cut, have);
      have -= cut;
    }
  } catch (err) {
    return { kind: "error", detail: detail(err) };
  } finally {
    closeSync(fd);
  }
  return { kind: "ok", count, skipped: skippedLines.length, skippedLines };
}

export function parseJsonl(text: string): JsonlRead {
  const entries: JsonlEntry[] = [];
  const scan = scanJsonl(text, (value, line) => entries.push({ line, value }));
  return { entries, ...scan };
}

export type JsonlFile = ({ kind: "ok"; text: string } & JsonlRead) | { kind: "missing" } | { kind: "error"; detail: string };

export function readJsonl(path: string): JsonlFile {
  const r = readText(path);
  if (r.kind !== "ok") return r;
  return { kind: "ok", text: r.text, ...parseJsonl(r.text) };
}

export type PathKind = "missing" | "file" | "directory" | "other";

export function pathKind(path: string): PathKind {
  let st: Stats;
  try {
    st = statSync(path);
  } catch {
    return "missing";
  }
  return st.isFile() ? "file" : st.isDirectory() ? "directory" : "other";
}

export interface DirEntry {
  name: string;
  isSymlink: boolean;
  /** For symlinks: the link text and whether its target resolves. */
  linkText?: string;
  broken?: boolean;
  mtimeMs: number;
}

/** Entries of a directory, sorted by name (throws the OS error; callers word it). */
export function listDir(dir: string): DirEntry[] {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const p = join(dir, name);
      const st = lstatSync(p);
      if (!st.isSymbolicLink()) return { name, isSymlink: false, mtimeMs: st.mtimeMs };
      let broken = false;
      try {
        statSync(p);
      } catch {
        broken = true;
      }
      return { name, isSymlink: true, linkText: readlinkSync(p), broken, mtimeMs: st.mtimeMs };
    });
}

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
}

// ---------------------------------------------------------------- writing

const TEMP = /^\.(.+)\.(\d+)\.[0-9a-f]{12}\.tmp$/;

/** True for the helper's own temporary files (never archived, swept when their writer is dead). */
export function isTempName(name: string): boolean {
  return TEMP.test(name);
}

export function isLockName(name: string): boolean {
  return name.endsWith(".lock");
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

/** 12 random hex digits for a temp name: uniqueness, not secrecy (the name is opened with O_EXCL anyway). */
function hex12(): string {
  return (Math.floor(Math.random() * 2 ** 24).toString(16).padStart(6, "0") + Math.floor(Math.random() * 2 ** 24).toString(16).padStart(6, "0"));
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
    if (durable) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, target);
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

/** Block the thread for `ms` (the lock's retry back-off; the helper has nothing else to do meanwhile). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

type Release = () => void;

/**
 * The file system proper-lockfile's sync API is given: the five calls it makes (mkdir, stat, utimes, rmdir, and
 * realpath, which `realpath: false` never reaches). Without it the library clones all of node:fs (`{ ...fs }` in
 * its sync adapter), which runs every lazy getter of node:fs and loads fs/promises, readline, fs streams, watchers
 * and Dir: ~20 built-in modules that no writer uses.
 */
const LOCK_FS = { mkdirSync, realpathSync, rmdirSync, statSync, utimesSync };

/**
 * Take the exclusive lock on `target` (proper-lockfile's `<target>.lock` directory, its mtime refreshed every
 * second while the event loop runs, stale after LOCK_STALE_MS), synchronously: mkdir, utimes and stat, no thread
 * pool. Retries with jittered back-off up to LOCK_TIMEOUT_MS.
 */
function acquire(target: string, onCompromised: () => void): Release {
  // Loaded here, not at the top: only writers pay for it. (The build gives it plain node:fs for graceful-fs.)
  const lockfile = require("proper-lockfile") as typeof import("proper-lockfile");
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  let delay = 10;
  for (;;) {
    try {
      return lockfile.lockSync(target, { realpath: false, stale: LOCK_STALE_MS, update: LOCK_UPDATE_MS, onCompromised, fs: LOCK_FS });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ELOCKED") {
        throw new HelperError("E_WRITE", `Cannot lock ${target}: ${detail(err)}`);
      }
      if (Date.now() >= deadline) {
        throw new HelperError("E_LOCKED", `Timed out after ${LOCK_TIMEOUT_MS / 1000}s waiting for lock on ${target}`);
      }
      sleepSync(delay * (0.5 + Math.random()));
      delay = Math.min(200, delay * 2);
    }
  }
}

/**
 * Run `fn` while holding the exclusive lock on `target` (proper-lockfile, `<target>.lock`). The target need not
 * exist; its directory must. Gives up with E_LOCKED after 10 s; a lock whose holder died is broken after
 * LOCK_STALE_MS. The lock is always released.
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
  const done = () => {
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
 * with the file untouched.
 */
export async function updateText<R>(
  target: string,
  change: (current: string | null) => { text: string | null; result: R },
  writeError = "Error writing file",
  readError = `Error reading ${target}`,
): Promise<R> {
  return withLock(target, (lost) => {
    const cur = readText(target);
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
  await updateText(target, (cur) => ({ text: withAppendedLine(cur, entry), result: undefined }), writeError);
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
  const fd = openSync(target, "a+", 0o644);
  try {
    const before = fstatSync(fd).size;
    let sep = "";
    if (before > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, before - 1);
      if (last[0] !== 10 && last[0] !== 13) sep = "\n";
    }
    const buf = Buffer.from(`${sep}${line}\n`, "utf8");
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
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
export function moveEntries(fromDir: string, names: readonly string[], toDir: string): void {
  const moved: string[] = [];
  try {
    for (const name of names) {
      ensureDir(dirname(join(toDir, name)));
      renameSync(join(fromDir, name), join(toDir, name));
      moved.push(name);
    }
  } catch (err) {
    for (const name of moved.reverse()) {
      try {
        renameSync(join(toDir, name), join(fromDir, name));
      } catch {
        /* best effort */
      }
    }
    throw err;
  }
}

/** .design entries that outlive a run: archive and a fresh run-start leave them in place. */
export const PERSISTENT: ReadonlySet<string> = new Set([
  "memory.jsonl", ".memory.jsonl.index", "reflection.jsonl", "handoff.md", "recon.json", "history",
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

// ---------------------------------------------------------------- confinement

/**
 * What the helper may do with a path: `write` (write, create, move, append, lock) only inside the project's
 * `.design/`, `read` (read, hash, list, test existence) only inside the project. The project is the working
 * directory; both rules compare real paths (every symlink followed).
 */
export type PathAccess = "read" | "write";

const MAX_LINKS = 40;

/** The real path of `abs`: every symlink followed; a path that does not exist yet resolves through its nearest
 * existing ancestor (a dangling symlink resolves to where it points). */
export function realPath(abs: string, depth = 0): string {
  if (depth > MAX_LINKS) throw new HelperError("E_PATH", `Too many levels of symbolic links: ${abs}`);
  // lstat first, without an exception for a missing path: the usual cases (an existing file, a file about to be
  // created) cost two system calls and no throw.
  let st: Stats | undefined;
  try {
    st = lstatSync(abs, { throwIfNoEntry: false });
  } catch {
    st = undefined; // ENOTDIR, EACCES: no such entry as far as the helper can go
  }
  if (st === undefined) {
    const parent = dirname(abs);
    return parent === abs ? abs : join(realPath(parent, depth + 1), basename(abs));
  }
  try {
    return realpathSync.native(abs);
  } catch {
    /* a dangling or looping symlink (or an unreadable ancestor): resolved by hand below */
  }
  if (!st.isSymbolicLink()) return join(realPath(dirname(abs), depth + 1), basename(abs));
  let link: string;
  try {
    link = readlinkSync(abs);
  } catch {
    return abs;
  }
  return realPath(resolve(realPath(dirname(abs), depth + 1), link), depth + 1);
}

/** The two roots of a project: its real directory and `<real directory>/.design`. */
export function projectRoots(cwd: string): { project: string; design: string } {
  const project = realPath(resolve(cwd));
  return { project, design: join(project, ".design") };
}

export function isInside(root: string, real: string): boolean {
  return real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The message of an E_PATH refusal (the permission hook and the docs quote these words). */
export function outsideMessage(label: string, real: string, access: PathAccess): string {
  return access === "write"
    ? `${label} resolves outside the project's .design/: ${real}`
    : `${label} resolves outside the project: ${real}`;
}

/**
 * The one check every path the helper uses goes through. `value` is as given (relative to cwd or absolute);
 * `label` names it in the error (e.g. `--inputs entry '/etc/passwd'`). Returns the real path to operate on, so a
 * symlink inside the allowed root is followed (written through) and never replaced; anything resolving outside
 * the allowed root throws E_PATH before anything is read or written.
 */
export function confine(cwd: string, label: string, value: string, access: PathAccess): string {
  const roots = projectRoots(cwd);
  const real = realPath(resolve(cwd, value));
  const root = access === "write" ? roots.design : roots.project;
  if (!isInside(root, real)) throw new HelperError("E_PATH", outsideMessage(label, real, access), { path: real });
  return real;
}

/** `confine` that answers instead of throwing: the real path, or null when it leaves the allowed root. */
export function confined(cwd: string, value: string, access: PathAccess): string | null {
  try {
    return confine(cwd, "", value, access);
  } catch {
    return null;
  }
}

/** How an argument names it in an E_PATH message: `plan_path '<value>'`, `--design-dir '<value>'`. */
export function argLabel(name: string, value: string, flag: boolean, entry = false): string {
  return `${flag ? `--${name}` : name}${entry ? " entry" : ""} '${value}'`;
}

/** Comma-separated list → trimmed non-empty items (the helper's list arguments). */
export function commaList(v: unknown): string[] {
  return typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : [];
}

/**
 * Check every path argument a command declares (`path: "read" | "write"` on a positional or flag; `list: true`
 * for a comma-separated list, checked entry by entry) before the command runs. Throws E_PATH on the first one
 * that resolves outside its root. Arguments left at an empty value are not paths and are skipped.
 */
export function confineArgs(cwd: string, spec: ArgSpec, args: Args): void {
  for (const p of spec.positionals) {
    const v = args[p.name];
    if (p.path && typeof v === "string" && v !== "") confine(cwd, argLabel(p.name, v, false), v, p.path);
  }
  for (const [name, f] of Object.entries(spec.flags)) {
    const v = args[name];
    if (!f.path || typeof v !== "string") continue;
    if (f.list) for (const item of commaList(v)) confine(cwd, argLabel(name, item, true, true), item, f.path);
    else if (v !== "") confine(cwd, argLabel(name, v, true), v, f.path);
  }
}

/**
 * Read a file the command derived itself (e.g. `<design_dir>/plan.json`) under the read rule: a file that resolves
 * outside the project (a symlink out) reads as an error, never as its contents.
 */
export function readConfined<T>(cwd: string, abs: string, read: (real: string) => T): T | { kind: "error"; detail: string } {
  const real = realPath(abs);
  if (!isInside(projectRoots(cwd).project, real)) return { kind: "error", detail: outsideMessage(basename(abs), real, "read") };
  return read(real);
}
