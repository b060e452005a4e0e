// Reading a file that someone else may have planted: opened without blocking (a FIFO opened for reading waits for a
// writer; O_NONBLOCK returns at once), checked on the open descriptor to be a regular file (a FIFO, a socket or a
// device such as /dev/zero is refused before a byte is read), and capped in size (a file larger than the cap is
// refused, also one that grows past it while it is read). Optionally a final symlink is refused (O_NOFOLLOW).
// Imports only node:fs: the permission hook bundles this file, and the helper's store opens every file through it.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

/** Why a read was refused: what the reader can branch on. */
export type ReadRefusal = "missing" | "link" | "not_regular" | "too_large" | "not_private" | "error";

export type Opened = { ok: true; fd: number; size: number; stat: Stats } | { ok: false; reason: ReadRefusal; error: string };

export type SafeRead = { ok: true; bytes: Buffer } | { ok: false; reason: ReadRefusal; error: string };

export interface SafeOpenOptions {
  /** Refuse a path whose last component is a symlink (for rules that refuse links). */
  noFollow?: boolean;
  /**
   * A file only this user may have written: owned by this uid, no permission bit for group or others, one link
   * (for the hook's own record beside the grant key).
   */
  privateTo?: number;
}

/** What a non-regular file is, for the message. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

/** Sizes as people read them: 64 MiB, 1 KiB, 12 bytes. */
export function bytesText(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/**
 * Open `path` for reading: a regular file of at most `maxBytes` (by fstat of the descriptor), never blocking.
 * The caller closes the descriptor. Never throws.
 */
export function openRegular(path: string, maxBytes: number, opts: SafeOpenOptions = {}): Opened {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (opts.noFollow ? constants.O_NOFOLLOW : 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: false, reason: "missing", error: `${path} does not exist` };
    // O_NOFOLLOW on a final symlink: ELOOP on Linux, EMLINK on FreeBSD.
    if (opts.noFollow && (code === "ELOOP" || code === "EMLINK")) return { ok: false, reason: "link", error: `${path} is a symbolic link` };
    return { ok: false, reason: "error", error: (err as Error).message };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      closeSync(fd);
      return { ok: false, reason: "not_regular", error: `${path} is ${kindOf(st)}, not a regular file` };
    }
    if (opts.privateTo !== undefined && (st.uid !== opts.privateTo || (st.mode & 0o077) !== 0 || st.nlink !== 1)) {
      closeSync(fd);
      return { ok: false, reason: "not_private", error: `${path} is not private to user ${opts.privateTo} (owner ${st.uid}, mode ${(st.mode & 0o777).toString(8)}, ${st.nlink} links)` };
    }
    if (st.size > maxBytes) {
      closeSync(fd);
      return { ok: false, reason: "too_large", error: `${path} is larger than ${bytesText(maxBytes)} (${st.size} bytes)` };
    }
    return { ok: true, fd, size: st.size, stat: st };
  } catch (err) {
    closeSync(fd);
    return { ok: false, reason: "error", error: (err as Error).message };
  }
}

/** The refusal of a file that grew past `maxBytes` while it was read. */
export function grewPast(path: string, maxBytes: number): { ok: false; reason: "too_large"; error: string } {
  return { ok: false, reason: "too_large", error: `${path} is larger than ${bytesText(maxBytes)} (it grew while read)` };
}

/**
 * The bytes of a regular file of at most `maxBytes`, read without blocking on a FIFO or device and without reading
 * past the cap (a file that grows past it while read is refused). Never throws: `{ok: false, reason, error}`.
 */
export function readSmallRegular(path: string, maxBytes: number, opts: SafeOpenOptions = {}): SafeRead {
  const o = openRegular(path, maxBytes, opts);
  if (!o.ok) return o;
  return readOpened(o, path, maxBytes);
}

/** Read an opened regular file (`openRegular`) up to `maxBytes`, then close it. */
function readOpened(o: { fd: number; size: number }, path: string, maxBytes: number): SafeRead {
  try {
    // One byte more than the cap: a file that grew past it is noticed, never read in full.
    const buf = Buffer.allocUnsafe(Math.min(o.size, maxBytes) + 1);
    let n = 0;
    for (let r; n < buf.length && (r = readSync(o.fd, buf, n, buf.length - n, null)) > 0; ) n += r;
    if (n > maxBytes) return grewPast(path, maxBytes);
    if (n === buf.length) {
      // The file grew, but not past the cap (yet): read on up to it.
      const rest = readSmallRest(o.fd, maxBytes - n + 1);
      if (n + rest.length > maxBytes) return grewPast(path, maxBytes);
      return { ok: true, bytes: Buffer.concat([buf, rest]) };
    }
    return { ok: true, bytes: buf.subarray(0, n) };
  } catch (err) {
    return { ok: false, reason: "error", error: (err as Error).message };
  } finally {
    closeSync(o.fd);
  }
}

/** Up to `limit` more bytes of `fd`. */
function readSmallRest(fd: number, limit: number): Buffer {
  const parts: Buffer[] = [];
  let total = 0;
  const chunk = Buffer.allocUnsafe(Math.min(limit, 64 * 1024));
  for (let r; total < limit && (r = readSync(fd, chunk, 0, Math.min(chunk.length, limit - total), null)) > 0; ) {
    parts.push(Buffer.from(chunk.subarray(0, r)));
    total += r;
  }
  return Buffer.concat(parts);
}

/** readSmallRegular decoded as UTF-8 (a BOM kept, invalid bytes as U+FFFD, as readFileSync(path, "utf8")). */
export function readSmallText(path: string, maxBytes: number, opts: SafeOpenOptions = {}): { ok: true; text: string } | { ok: false; reason: ReadRefusal; error: string } {
  const r = readSmallRegular(path, maxBytes, opts);
  return r.ok ? { ok: true, text: r.bytes.toString("utf8") } : r;
}

/** The bytes of a regular file of at most `maxBytes`, or null for any refusal (the grant's and the hook's reads). */
export function readRegular(path: string, maxBytes: number, opts: SafeOpenOptions = {}): Buffer | null {
  const r = readSmallRegular(path, maxBytes, opts);
  return r.ok ? r.bytes : null;
}

/**
 * `readRegular` with the stat of the very file read (fstat of its descriptor): what a cache of a verdict about these
 * bytes can compare with later. Null for any refusal.
 */
export function readRegularWithStat(path: string, maxBytes: number, opts: SafeOpenOptions = {}): { bytes: Buffer; stat: Stats } | null {
  const o = openRegular(path, maxBytes, opts);
  if (!o.ok) return null;
  const r = readOpened(o, path, maxBytes);
  return r.ok ? { bytes: r.bytes, stat: o.stat } : null;
}

/** A JSON object read with `readRegular`, or null (not such a file, not JSON, not an object). */
export function readJsonObject(path: string, maxBytes: number, opts: SafeOpenOptions = {}): Record<string, unknown> | null {
  const buf = readRegular(path, maxBytes, opts);
  if (buf === null) return null;
  try {
    const v: unknown = JSON.parse(buf.toString("utf8"));
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
