// Bounded reads of files a hostile project may have planted: the grant, the plan, the run state, spec files and
// the grant key. A FIFO must not block the reader, a link to /dev/zero must not grow it without end, and where the
// rule refuses links the final component is not followed. Imports only Node built-ins (the permission hook uses it).
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

export interface SafeReadOptions {
  /** Refuse a final symlink (O_NOFOLLOW) instead of reading where it points. */
  noFollow?: boolean;
}

/**
 * The bytes of a regular file of at most `maxBytes`, or null: missing, a link (with `noFollow`), a FIFO, a socket,
 * a device, a directory, larger than the cap, or unreadable. Opened non-blocking, so a FIFO answers at once.
 */
export function readRegular(path: string, maxBytes: number, options: SafeReadOptions = {}): Buffer | null {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow ? constants.O_NOFOLLOW : 0);
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return null;
    // Read one byte past the size the stat gave: a file that grew meanwhile is over the cap or is read whole.
    const buf = Buffer.allocUnsafe(Math.min(maxBytes, st.size) + 1);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, null);
      if (n === 0) break;
      off += n;
    }
    return off > maxBytes ? null : buf.subarray(0, off);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** A JSON object read with `readRegular`, or null (not such a file, not JSON, not an object). */
export function readJsonObject(path: string, maxBytes: number, options: SafeReadOptions = {}): Record<string, unknown> | null {
  const buf = readRegular(path, maxBytes, options);
  if (buf === null) return null;
  try {
    const v: unknown = JSON.parse(buf.toString("utf8"));
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
