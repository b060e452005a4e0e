// Entry of dist/permit.js, the PreToolUse hook: `node permit.js [skill]` reads the hook event on stdin and prints
// the allow decision, or nothing. The plugin root is where this file lives (dist/..), never taken from the event.
// With a skill argument (the hook as declared in that skill's frontmatter) only that skill's calls are approved.
// Never fails the tool call and never denies: any problem means "no opinion". On a Node.js older than the plugin
// supports it has no opinion either (hooks.json also keeps a missing or crashing node silent; node-check.sh tells
// the user once per session).
import { resolve } from "node:path";
import { supportedNode } from "./node-version.js";
import { ALLOW, permits, SKILLS, type HookInput, type Skill } from "./permit.js";

const MAX_EVENT = 1 << 20;
const arg = process.argv[2];
const skill = arg === undefined ? undefined : (SKILLS as readonly string[]).includes(arg) ? (arg as Skill) : null;

let raw = "";
let tooBig = false;
process.stdin.setEncoding("utf8");
process.stdin.on("data", (c: string) => {
  if (raw.length + c.length > MAX_EVENT) tooBig = true;
  else if (!tooBig) raw += c;
});
process.stdin.on("end", () => {
  if (tooBig || skill === null || !supportedNode(process.versions.node)) return;
  let input: HookInput;
  try {
    input = JSON.parse(raw) as HookInput;
  } catch {
    return;
  }
  try {
    if (typeof input === "object" && input !== null && permits(input, resolve(__dirname, ".."), skill)) {
      process.stdout.write(JSON.stringify(ALLOW));
    }
  } catch {
    /* no opinion */
  }
});
