// Entry of dist/permit.js, the PreToolUse hook (hooks/hooks.json): reads the hook input on stdin and prints the
// allow decision, or nothing. Never fails the tool call: any problem means "no opinion".
import { resolve } from "node:path";
import { ALLOW, permits, type HookInput } from "./permit.js";

let raw = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (c: string) => (raw += c));
process.stdin.on("end", () => {
  let input: HookInput;
  try {
    input = JSON.parse(raw) as HookInput;
  } catch {
    return;
  }
  if (typeof input === "object" && input !== null && permits(input, resolve(__dirname, ".."))) {
    process.stdout.write(JSON.stringify(ALLOW));
  }
});
