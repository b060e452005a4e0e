// The plugin's PreToolUse hook logic. A skill's `allowed-tools` cover only the turn in which the skill was
// invoked: once the lead ends its turn to wait for agents, every helper call would ask the user again. The hook
// allows, and only allows, what the skills' allowed-tools already grant; it never denies (anything else goes
// through the normal permission rules):
//   Bash        one call of this plugin's helper, `node "<plugin>/skills/<skill>/scripts/plan.js" <args>`,
//               optionally fed by `echo '<text>' |` or `< .design/<file>`, with no other shell syntax outside
//               quotes, and no argument that points outside the project;
//   Write/Edit  a file under <project>/.design/;
//   Read        a file of this plugin.
import { isAbsolute, posix, relative, resolve, sep } from "node:path";

function inside(dir: string, file: string): boolean {
  const rel = relative(dir, file);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** A shell word the helper may take as a path without leaving the project: relative, no `..` escape, no `~`. */
function staysInProject(word: string): boolean {
  if (word.startsWith("/") || word.startsWith("~")) return false;
  const n = posix.normalize(word);
  return n !== ".." && !n.startsWith("../");
}

/**
 * Whether the arguments are plain shell words: unquoted letters, digits and . , : / = @ % + - _, 'single-quoted'
 * text (with the '\'' escape), and "double-quoted" text without $, ` or \ (nothing the shell would expand or run).
 * Every whole word, quoted parts included, must stay in the project.
 */
export function plainWords(args: string): boolean {
  let word = "";
  let i = 0;
  while (i < args.length) {
    const c = args[i];
    if (c === " ") {
      if (!staysInProject(word)) return false;
      word = "";
      i++;
    } else if (c === "'") {
      const end = args.indexOf("'", i + 1);
      if (end < 0) return false;
      word += args.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      const end = args.indexOf('"', i + 1);
      if (end < 0 || /[$`\\]/.test(args.slice(i + 1, end))) return false;
      word += args.slice(i + 1, end);
      i = end + 1;
    } else if (c === "\\" && args[i + 1] === "'") {
      word += "'";
      i += 2;
    } else if (/[\w.,:/=@%+-]/.test(c)) {
      word += c;
      i++;
    } else return false;
  }
  return staysInProject(word);
}

/** `[echo '<text>' | ]node "<plugin>/skills/<name>/scripts/plan.js" <plain words>[ < .design/<file>]`. */
export function isHelperCall(command: string, pluginRoot: string): boolean {
  let rest = command.trim();
  if (rest.includes("\n")) return false;
  const echo = /^echo '[^']*' \| /.exec(rest);
  if (echo) rest = rest.slice(echo[0].length);
  const stdin = / < (\.design\/[\w./-]+)$/.exec(rest);
  if (stdin) {
    if (!staysInProject(stdin[1])) return false;
    rest = rest.slice(0, stdin.index);
  }
  const head = /^node "([^"$`\\]+)"(?: |$)/.exec(rest);
  if (!head) return false;
  const script = resolve(head[1]);
  const rel = relative(pluginRoot, script).split(sep).join("/");
  if (!inside(pluginRoot, script) || !/^skills\/[a-z-]+\/scripts\/plan\.js$/.test(rel)) return false;
  return plainWords(rest.slice(head[0].length));
}

export interface HookInput {
  tool_name?: unknown;
  tool_input?: { command?: unknown; file_path?: unknown };
  cwd?: unknown;
}

/** Whether the hook allows this tool call without asking. */
export function permits(input: HookInput, pluginRoot: string): boolean {
  const tool = input.tool_name;
  const t = input.tool_input ?? {};
  if (tool === "Bash") return typeof t.command === "string" && isHelperCall(t.command, pluginRoot);
  if (typeof t.file_path !== "string" || !isAbsolute(t.file_path)) return false;
  const file = resolve(t.file_path);
  if (tool === "Read") return inside(pluginRoot, file);
  if (tool === "Write" || tool === "Edit") {
    return typeof input.cwd === "string" && inside(resolve(input.cwd, ".design"), file);
  }
  return false;
}

export const ALLOW = {
  hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: "allow",
    permissionDecisionReason: "do: the skill's own helper call or .design file",
  },
};
