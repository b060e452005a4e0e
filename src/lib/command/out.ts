// The helper's output, written without process.stdout (cli.ts).
import { writeSync } from "node:fs";

/**
 * Write `text` to `fd` with write(2), the way Node's own stdout does for a file or (on Linux) a pipe, without
 * building process.stdout: that stream loads ~28 built-in modules (net and the streams stack for a pipe), ~5 ms of
 * every call. Returns what is left when the fd would block (a non-blocking pipe or socket: the caller hands it to
 * the stream, which waits for it to drain); a reader that is gone (EPIPE) or a closed fd ends the write.
 */
export function writeOut(fd: number, text: string): Buffer | undefined {
  const buf = Buffer.from(text, "utf8");
  let off = 0;
  try {
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EAGAIN") return buf.subarray(off);
  }
  return undefined;
}
