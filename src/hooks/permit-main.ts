// Entry of dist/permit.js, the PreToolUse hook: `node permit.js [skill]` reads the hook event on stdin and prints
// the allow decision, or nothing. The plugin root is where this file lives (dist/..), never taken from the event.
// With a skill argument (the hook as declared in that skill's frontmatter) only that skill's calls are approved.
// Never fails the tool call and never denies: any problem means "no opinion". On a Node.js older than the plugin
// supports it has no opinion either (hooks.json also keeps a missing or crashing node silent; node-check.sh tells
// the user once per session).
//
// It runs before every tool call, so its start is a hot path: the event is read from fd 0 and the answer written
// to fd 1 synchronously (process.stdin and process.stdout build stream stacks, net for a pipe: ~5 ms each).
import { readSync } from "node:fs";
import { resolve } from "node:path";
import { writeOut } from "../lib/command/out.js";
import { supportedNode } from "./node-version.js";
import { ALLOW, permits, SKILLS, type HookInput, type Skill } from "./permit.js";

const MAX_EVENT = 1 << 20;
const arg = process.argv[2];
const skill = arg === undefined ? undefined : (SKILLS as readonly string[]).includes(arg) ? (arg as Skill) : null;

/** The decision for the event's text: the allow answer, or "" (no opinion). */
function decide(raw: string | null): string {
  if (raw === null || skill === null || !supportedNode(process.versions.node)) return "";
  let input: HookInput;
  try {
    input = JSON.parse(raw) as HookInput;
  } catch {
    return "";
  }
  try {
    if (typeof input === "object" && input !== null && permits(input, resolve(__dirname, ".."), skill)) return JSON.stringify(ALLOW);
  } catch {
    /* no opinion */
  }
  return "";
}

function answer(text: string): void {
  const left = text === "" ? undefined : writeOut(1, text);
  if (left) process.stdout.write(left); // a non-blocking stdout: the stream waits for it to drain
}

/**
 * Read the event synchronously from fd 0: `done` with its text (null when larger than MAX_EVENT), or what was read
 * before fd 0 turned out non-blocking (the stream reads the rest).
 */
function readEvent(): { done: true; text: string | null } | { done: false; head: string } {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    const buf = Buffer.allocUnsafe(64 * 1024);
    for (let n; (n = readSync(0, buf, 0, buf.length, null)) > 0; ) {
      size += n;
      if (size > MAX_EVENT) return { done: true, text: null };
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EAGAIN") return { done: false, head: Buffer.concat(chunks).toString("utf8") };
    if (code !== "EOF") return { done: true, text: null };
  }
  return { done: true, text: Buffer.concat(chunks).toString("utf8") };
}

const event = readEvent();
if (event.done) answer(decide(event.text));
else {
  let raw = event.head;
  let tooBig = false;
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (c: string) => {
    if (raw.length + c.length > MAX_EVENT) tooBig = true;
    else if (!tooBig) raw += c;
  });
  process.stdin.on("end", () => answer(decide(tooBig ? null : raw)));
}
