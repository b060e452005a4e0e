// Reading .design files: readers never lock (writers only rename complete files into place or append one whole
// line), so a read sees a whole old or a whole new file. Startup is a hot path: everything here is synchronous.
// Every file is opened through openRegular (base/safe-read.ts): without blocking, a regular file only (a FIFO or a
// device is refused at once), and at most the cap of its kind.
//
// Why one file: every read of .design/ (text, JSON, JSONL scans and counts) shares the same bounded, non-blocking
// open and chunked UTF-8 decoding.
import { closeSync, lstatSync, readSync, readdirSync, readlinkSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { grewPast, openRegular, readSmallRegular } from "../base/safe-read.js";
import { detail } from "../base/errors.js";

const MiB = 1024 * 1024;
/** Plans, drafts, reports, recon files, spec and input files: the largest plan the benchmarks use (30,000 roles) is
 * about 18 MB. */
export const MAX_FILE_BYTES = 64 * MiB;
/** memory.jsonl and reflection.jsonl: 200,000 memory entries are about 63 MB. */
export const MAX_JSONL_BYTES = 256 * MiB;
/** Run state (`run-<skill>.json`): a phase list and its checkpoints. */
export const MAX_STATE_BYTES = 4 * MiB;

/** A refusal of openRegular as the error readers report (missing files are values, not errors). */
class ReadRefused extends Error {
  constructor(
    message: string,
    readonly missing: boolean,
  ) {
    super(message);
  }
}

/**
 * `path` opened for reading: a regular file of at most `maxBytes`, never blocking on a FIFO. Throws an Error whose
 * message says why not (`code` ENOENT when it is missing). The caller closes the descriptor.
 */
export function openForRead(path: string, maxBytes: number): number {
  const o = openRegular(path, maxBytes);
  if (o.ok) return o.fd;
  throw Object.assign(new Error(o.error), o.reason === "missing" ? { code: "ENOENT" } : {});
}

/** `path` opened for reading under the cap; throws ReadRefused. */
function openCapped(path: string, maxBytes: number): { fd: number; size: number } {
  const o = openRegular(path, maxBytes);
  if (!o.ok) throw new ReadRefused(o.error, o.reason === "missing");
  return o;
}

/**
 * Where the whole lines in `buf[0, have)` end: just after the last line end, not counting a final "\r" that may be
 * half of a "\r\n" still to come; 0 when no line has ended yet. A cut there never splits a UTF-8 sequence.
 */
export function wholeLinesEnd(buf: Buffer, have: number): number {
  const limit = have > 0 && buf[have - 1] === 13 ? have - 1 : have;
  const lf = limit > 0 ? buf.lastIndexOf(10, limit - 1) : -1;
  const cr = limit > 0 ? buf.lastIndexOf(13, limit - 1) : -1;
  return Math.max(lf, cr) + 1;
}

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
function readUtf8(path: string, maxBytes: number): string {
  const { fd, size } = openCapped(path, maxBytes);
  try {
    if (size < WHOLE) {
      // One read of the known size (plus one byte, to notice a file that grew since fstat), one string: a 200 KB
      // plan read in 64 KB chunks made four young strings and a flattened copy, garbage the GC then had to scan.
      const buf = Buffer.allocUnsafe(size + 1);
      let n = 0;
      for (let r; n < buf.length && (r = readSync(fd, buf, n, buf.length - n, null)) > 0; ) n += r;
      if (n <= size) return buf.toString("utf8", 0, n);
      return readRest(fd, path, maxBytes, buf.subarray(0, n));
    }
    return readRest(fd, path, maxBytes);
  } finally {
    closeSync(fd);
  }
}

function readRest(fd: number, path: string, maxBytes: number, head?: Buffer): string {
  chunk ??= Buffer.allocUnsafe(CHUNK);
  let text = "";
  let carry = 0; // bytes of an unfinished UTF-8 sequence kept at the start of the buffer for the next read
  let total = head ? head.length : 0;
  if (head) {
    const cut = utf8Cut(head, head.length);
    text = head.toString("utf8", 0, cut);
    carry = head.length - cut;
    head.copy(chunk, 0, cut);
  }
  for (let n; (n = readSync(fd, chunk, carry, CHUNK - carry, null)) > 0; ) {
    total += n;
    if (total > maxBytes) throw new ReadRefused(grewPast(path, maxBytes).error, false);
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

/**
 * Read a UTF-8 file of at most `maxBytes`. A missing file is a value, not an exception; a FIFO, a device, a folder
 * or a larger file is an error.
 */
export function readText(path: string, maxBytes: number = MAX_FILE_BYTES): TextRead {
  try {
    return { kind: "ok", text: readUtf8(path, maxBytes) };
  } catch (err) {
    if (err instanceof ReadRefused) return err.missing ? { kind: "missing" } : { kind: "error", detail: err.message };
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    return { kind: "error", detail: detail(err) };
  }
}

/** Raw bytes of a regular file of at most `maxBytes`, or null when it is missing, anything else, or unreadable. */
export function readBytes(path: string, maxBytes: number = MAX_FILE_BYTES): Buffer | null {
  const r = readSmallRegular(path, maxBytes);
  return r.ok ? r.bytes : null;
}

export type BytesRead = { kind: "ok"; bytes: Buffer } | { kind: "missing" } | { kind: "error"; detail: string };

/** readBytes with the reason: a missing file is a value, anything else refused is an error. */
export function readFileBytes(path: string, maxBytes: number = MAX_FILE_BYTES): BytesRead {
  const r = readSmallRegular(path, maxBytes);
  if (r.ok) return { kind: "ok", bytes: r.bytes };
  return r.reason === "missing" ? { kind: "missing" } : { kind: "error", detail: r.error };
}

export type JsonRead =
  | { kind: "ok"; value: unknown; text: string }
  | { kind: "missing" }
  | { kind: "error"; detail: string }
  | { kind: "invalid"; detail: string };

/**
 * How deeply parsed JSON may nest (objects and arrays). JSON.parse takes any depth, but the walks after it do not:
 * JSON.stringify (every answer, every write) and the recursive readers overflow the stack near 5,000 levels. No
 * file or input of the helper nests beyond a dozen.
 */
export const MAX_JSON_DEPTH = 256;

/** Whether `v`, an object or array, holds containers more than `room` levels deep. Recursion stops at the cap. */
function deeper(v: object, room: number): boolean {
  if (room === 0) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === "object" && x !== null && deeper(x, room - 1)) return true;
    }
    return false;
  }
  for (const k in v) {
    const x: unknown = (v as Record<string, unknown>)[k];
    if (typeof x === "object" && x !== null && deeper(x, room - 1)) return true;
  }
  return false;
}

/**
 * JSON.parse, refusing a value nested deeper than MAX_JSON_DEPTH with a SyntaxError, so every caller's "invalid
 * JSON" path answers it. Text shorter than two brackets per level cannot nest that deep and is not walked.
 */
export function parseJsonText(text: string): unknown {
  const v: unknown = JSON.parse(text);
  if (typeof v === "object" && v !== null && text.length > 2 * MAX_JSON_DEPTH && deeper(v, MAX_JSON_DEPTH)) {
    throw new SyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return v;
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; detail: string } {
  try {
    return { ok: true, value: parseJsonText(text) };
  } catch (err) {
    return { ok: false, detail: detail(err) };
  }
}

export function readJson(path: string, maxBytes: number = MAX_FILE_BYTES): JsonRead {
  const r = readText(path, maxBytes);
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
    v = parseJsonText(t);
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
    let total = 0;
    for (let n; (n = readSync(fd, chunk, carry, CHUNK - carry, null)) > 0; ) {
      total += n;
      if (total > MAX_JSONL_BYTES) return { kind: "error", detail: grewPast(path, MAX_JSONL_BYTES).error };
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

/** A JSONL file opened for a scan (a regular file under MAX_JSONL_BYTES), or what the scan reports instead. */
function openForScan(path: string): number | { kind: "missing" } | { kind: "error"; detail: string } {
  const o = openRegular(path, MAX_JSONL_BYTES);
  if (o.ok) return o.fd;
  return o.reason === "missing" ? { kind: "missing" } : { kind: "error", detail: o.error };
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
    let total = 0;
    for (;;) {
      if (have === buf.length) {
        // One line longer than the buffer: make room for the rest of it.
        const bigger = Buffer.allocUnsafe(2 * buf.length);
        buf.copy(bigger, 0, 0, have);
        buf = bigger;
      }
      const n = readSync(fd, buf, have, buf.length - have, null);
      have += n;
      total += n;
      if (total > MAX_JSONL_BYTES) return { kind: "error", detail: grewPast(path, MAX_JSONL_BYTES).error };
      const last = n === 0;
      // Complete lines only (the last read takes the rest).
      const cut = last ? have : wholeLinesEnd(buf, have);
      if (cut === 0 && !last) continue;
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
  const r = readText(path, MAX_JSONL_BYTES);
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
