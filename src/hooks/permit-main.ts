// Entry of dist/permit.js, the PreToolUse hook: `node permit.js [skill]` reads the hook event on stdin and prints
// the allow decision, or nothing. The plugin root is where this file lives (dist/..), never taken from the event.
// With a skill argument (the hook as declared in that skill's frontmatter) only that skill's calls are approved.
// Never fails the tool call and never denies: any problem means "no opinion". On a Node.js older than the plugin
// supports it has no opinion either (hooks.json also keeps a missing or crashing node silent; node-check.sh tells
// the user once per session).
import { readSync } from "node:fs";
import { resolve } from "node:path";
import { writeOut } from "../lib/out.js";
import { supportedNode } from "./node-version.js";
import { ALLOW, permits, SKILLS, type HookInput, type Skill } from "./permit.js";

const MAX_EVENT = 1 << 20;
const arg = process.argv[2];
const skill = arg === undefined ? undefined : (SKILLS as readonly string[]).includes(arg) ? (arg as Skill) : null;

/**
 * The event, read synchronously from fd 0 (the stream behind process.stdin loads net/tty on first touch, a
 * measurable part of the hook's start); null when it is larger than MAX_EVENT. An fd 0 that is non-blocking or
 * otherwise unreadable falls back to the stream.
 */
function readEvent(done: (raw: string | null) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    const buf = Buffer.allocUnsafe(64 * 1024);
    // Read to the end (the CLI's write is not cut short), keeping at most MAX_EVENT bytes.
    for (let n; (n = readSync(0, buf, 0, buf.length, null)) > 0; ) {
      size += n;
      if (size <= MAX_EVENT) chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return done(size > MAX_EVENT ? null : Buffer.concat(chunks).toString("utf8"));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EOF") return done(size > MAX_EVENT ? null : Buffer.concat(chunks).toString("utf8"));
    if (size > 0 || code !== "EAGAIN") return done(null);
  }
  let raw = "";
  let tooBig = false;
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (c: string) => {
    if (raw.length + c.length > MAX_EVENT) tooBig = true;
    else if (!tooBig) raw += c;
  });
  process.stdin.on("end", () => done(tooBig ? null : raw));
}

readEvent((raw) => {
  if (raw === null || skill === null || !supportedNode(process.versions.node)) return;
  let input: HookInput;
  try {
    input = JSON.parse(raw) as HookInput;
  } catch {
    return;
  }
  try {
    if (typeof input === "object" && input !== null && permits(input, resolve(__dirname, ".."), skill)) {
      // write(2), not process.stdout (which builds the streams stack): a would-block pipe gets the rest by the stream.
      const rest = writeOut(1, JSON.stringify(ALLOW));
      if (rest) process.stdout.write(rest);
    }
  } catch {
    /* no opinion */
  }
});
