// The plugin's PreToolUse hook logic: an exact allow-list. A skill's `allowed-tools` cover only the turn in which
// the skill was invoked; once the lead ends its turn to wait for agents, this hook keeps the skill's own calls
// approved. It approves nothing else and never denies (anything it does not approve goes through the normal
// permission rules, i.e. the user is asked):
//   Bash        `node "<plugin root>/skills/<skill>/scripts/plan.js" <subcommand> <args>`, the subcommand one the
//               skill calls, the arguments passing that subcommand's own argument spec (src/hooks/specs.ts, built
//               from the helper's defineCommand specs), every path argument resolving (symlinks followed) inside
//               the project's `.design/`; the commands' `<plugin root>/dist/plan.js` with their subcommands. Only
//               the harmless decoration src/hooks/helper-line.ts parses: `cd <root> &&`, stdin from
//               `echo '<literal>' |`, `cat .design/<file> |`, `< .design/<file>` or a quoted-delimiter here-doc,
//               a trailing `2>&1`, the helper path quoted or not. Never with the sandbox turned off.
//   Write/Edit  a file whose real path is inside `<cwd>/.design/`, never `.design/plan.json` or `.design/specs/`
//               (the plan's acceptance checks and specs are commands the project later runs); `.design/draft/`
//               only for the plan-writing skills.
//   Read        a file whose real path is inside the plugin.
//   The grant   during an execute run the user approved with `grant --approve` (.design/grant.json, bound to the
//               plan and the run: src/lib/grant/grant.ts), a Bash command equal to a granted command, or a Write/Edit
//               whose real path lies in a granted scope of the project (never .design/, .git/, .claude/), for an
//               event whose cwd is the project root (CLAUDE_PROJECT_DIR). Never with the sandbox turned off. A
//               worker's call (an agent named after a role's `agent`) only within its own role's items. A grant
//               verified in full is recorded beside the user's key (src/lib/grant/grant-cache.ts, the hook's one write):
//               later calls compare the files it binds with that record, byte for byte, instead of verifying anew.
//
// Why one file: the hook's allow-list is one decision (`permits`), read top to bottom by whoever checks what it
// approves; the helper-line grammar and the sandbox check already live beside it.
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, normalize, relative, resolve, sep } from "node:path";
import { checksGrant, findRole, grantAllows, grantState, isGrantAuxiliary, readGrant, type Grant, type GrantRequest } from "../lib/grant/grant.js";
import { ownerOf, type Owner } from "../base/owned.js";
import { parseHelperLine } from "./helper-line.js";
import { SPECS } from "./specs.js";

// The sandbox check (settings files, PATH) matters only for a plan that asks for the sandbox: required on first use,
// and in the hook's build a file of its own (dist/permit-sandbox.js), so no other call compiles it or loads node:os.
type Sandbox = typeof import("./sandbox.js");
let sandboxModule: Sandbox | undefined;
const sandboxState: Sandbox["sandboxState"] = (opts) => (sandboxModule ??= require("./sandbox.js") as Sandbox).sandboxState(opts);

export const SKILLS = ["design", "execute", "recon", "improve", "reflect"] as const;
export type Skill = (typeof SKILLS)[number];

/** The helper subcommands each skill's SKILL.md calls (test/unit/permit-rules.test.ts keeps this true). */
export const SKILL_COMMANDS: Record<Skill, readonly string[]> = {
  design: ["archive", "design-tier", "expert-validate", "finalize", "preflight", "run-begin", "run-end", "schema", "watch"],
  execute: ["add-constraints", "budget", "challenge-resolve", "clean-attempt", "commit", "curator-apply", "finish", "grant", "next", "preflight", "record-usage", "run-begin", "run-checkpoint", "run-checks", "run-end", "task-sync", "update-status", "validate-auxiliary-report", "watch", "workflow"],
  recon: ["expert-validate", "preflight", "recon-findings", "recon-rank", "run-begin", "run-end", "schema", "watch"],
  improve: ["archive", "expert-validate", "finalize", "improve-guards", "plan-diff", "preflight", "reflection-search", "run-begin", "run-end", "schema", "skill-find", "watch"],
  reflect: ["archive", "finalize", "memory-search", "preflight", "reflect-metrics", "run-begin", "run-end", "skill-find"],
};

/**
 * Flags that record the user's own consent: a call carrying one is never approved by the hook, so the user is
 * asked (execute's `grant --approve` lets the workers edit and run commands).
 */
export const CONSENT_FLAGS: Record<string, readonly string[]> = { grant: ["approve"] };

const ALL_COMMANDS: readonly string[] = Object.values(SKILL_COMMANDS).flat();

/** The subcommands whose first positional names the skill whose run they open, record or close. */
const RUN_STATE_COMMANDS: readonly string[] = ["run-begin", "run-end", "run-checkpoint", "run-start", "run-complete", "run-status"];

/** Skills that write a plan draft under `.design/draft/` and install it with `finalize`. */
export const PLAN_WRITERS: readonly Skill[] = ["design", "improve", "reflect"];

/**
 * What each argument of the allowed subcommands holds, by name (positional or flag; `COMMAND_ARG_KINDS` overrides
 * one command's). `path` and `paths` (a comma list) must resolve inside `.design/`, `dir` inside or to `.design/`
 * itself; `skill` is one of the five; `name`/`names` are kebab-case words (they end up in file names), `agents` such
 * a list or nothing (`--waiting ''`: no agent is still out); a list's entries may have spaces around them (the helper
 * trims them); `projectpaths` a comma list of files the helper only hashes, each inside the project (run-begin's
 * --inputs: improve's target skill); `skillref` is a skill to look up; `text` is free data. An argument missing here is never approved (test/unit/permit-rules.test.ts fails first).
 */
export type ArgKind = "dir" | "path" | "paths" | "projectpaths" | "skill" | "name" | "names" | "agents" | "skillref" | "text";
export const ARG_KINDS: Record<string, ArgKind> = {
  plan_path: "path",
  plan_a: "path",
  plan_b: "path",
  design_dir: "dir",
  "design-dir": "dir",
  memory_path: "path",
  reflection_path: "path",
  recon_path: "path",
  artifact_path: "path",
  outputs: "paths",
  artifacts: "paths",
  analysts: "paths",
  snapshot: "path",
  inputs: "paths",
  skill: "skill",
  phase: "name",
  phases: "names",
  name: "name",
  type: "name",
  outcome: "name",
  category: "name",
  goal: "text",
  stack: "text",
  keywords: "text",
  keyword: "text",
  content: "text",
  source: "text",
  "goal-context": "text",
  surprise: "text",
  id: "text",
  decisions: "text",
  "goal-achieved": "text",
  eval: "path",
  draft_path: "path",
  out: "path",
  memory: "path",
  handoff: "path",
  memories: "path",
  from: "path",
  features: "path",
  draft: "path",
  min: "name",
  "min-runs": "text",
  search: "text",
  top: "text",
  only: "name",
  report_path: "path",
  role: "text",
  agent: "name",
  message: "text",
  report: "path",
  result: "text",
  waiting: "agents",
  "stall-minutes": "text",
  "max-seconds": "text",
};

/**
 * Where one command's argument holds something else than the same name elsewhere: skill-find's `name` is a skill
 * as the skills accept one (`greet`, `plugin:name`, part of a name, a path to a SKILL.md), a query the helper only
 * compares with the skills it lists (it never opens that path).
 */
export const COMMAND_ARG_KINDS: Record<string, Record<string, ArgKind>> = {
  "skill-find": { name: "skillref" },
  "run-begin": { inputs: "projectpaths" },
};

/**
 * The helper subcommands the commands (`commands/*.md`) call through `${CLAUDE_PLUGIN_ROOT}/dist/plan.js`
 * (test/unit/permit-rules.test.ts keeps this equal to what they call): approved on that path like the skills' own
 * calls on theirs, e.g. /do:remember's boost after the user said yes in a later turn.
 */
export const COMMAND_COMMANDS: readonly string[] = ["memory-add", "memory-review", "reflection-search", "report"];

/**
 * A command's call on its own helper path is approved only in the shape the command writes: /do:remember's
 * memory-add takes the learning from `--from .design/tmp/remember.json` (the file the user's words were written
 * to), never as free text on the command line, so an instruction injected into a view's turn cannot plant a
 * memory through the commands' path (test/e2e/command-scope.test.ts).
 */
function commandShapeOk(words: readonly string[]): boolean {
  if (words[0] !== "memory-add") return true;
  const from = words.findIndex((w) => w === "--from" || w.startsWith("--from="));
  if (from < 0) return false;
  const value = words[from] === "--from" ? words[from + 1] : words[from].slice("--from=".length);
  return value === ".design/tmp/remember.json" && !words.some((w) => /^--(content|keywords|category|id|source|goal-context)(=|$)/.test(w));
}

const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** What improve and reflect accept as a skill to find: letters, digits and `-_.:/` (SKILL.md says "else ask"). */
const SKILL_REF = /^[A-Za-z0-9_.:/-]{1,256}$/;
/** One entry of a comma list as the helper reads it (`commaList` trims): spaces around it are dropped. */
const entry = (v: string) => v.replace(/^ +| +$/g, "");
const MAX_COMMAND = 16_384;

/** The hook's view of a project: the real cwd and its `.design/`. */
interface Project {
  design: string;
}

/**
 * The real path of `p` (absolute, lexically normal): the nearest existing ancestor through realpath, the missing
 * rest appended. Null when a component is a dangling symlink, not a directory, or unreadable.
 */
export function realPath(p: string): string | null {
  const rest: string[] = [];
  let cur = p;
  for (;;) {
    try {
      const r = realpathSync(cur);
      return rest.length ? join(r, ...rest.reverse()) : r;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") return null;
      try {
        lstatSync(cur);
        return null; // it exists as a link to nothing: a write would follow it
      } catch {
        /* truly missing: look at the parent */
      }
      const parent = dirname(cur);
      if (parent === cur) return null;
      rest.push(basename(cur));
      cur = parent;
    }
  }
}

/**
 * Whether `file` lies inside `dir` (or is it, with `orSame`): what `path.relative(dir, file)` answers when it is
 * neither "", "..", nor a path up, found by comparing the resolved strings (path.relative is a large function to
 * compile at every hook start).
 */
function within(dir: string, file: string, orSame = false): boolean {
  if (orSame && file === dir) return true;
  const d = resolve(dir);
  const f = resolve(file);
  const prefix = d.endsWith(sep) ? d : d + sep;
  return f.length > prefix.length && f.startsWith(prefix);
}

/** A path that is absolute, free of NUL, and already in normal form (no `.`/`..` segments, no `//`). */
function normalAbsolute(p: string): boolean {
  return isAbsolute(p) && !p.includes("\0") && normalize(p) === p && !p.endsWith(sep) && !/^\/proc(\/|$)/.test(p);
}

/** A real folder (not a link) at `path`. */
function isDirAt(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The project root of an event: the real path of CLAUDE_PROJECT_DIR, which the CLI gives its hooks; where that is
 * unset, the event's cwd, but only when it is the folder holding `.design/` (a real folder, not a link) and no folder
 * above it holds one (a `.design/` planted in a subfolder makes no second root). Never `/`.
 */
export function rootOf(cwd: unknown, env: NodeJS.ProcessEnv = process.env): string | null {
  const given = env.CLAUDE_PROJECT_DIR;
  try {
    if (given) {
      if (!isAbsolute(given) || given.includes("\0")) return null;
      const root = realpathSync(given);
      return root === sep ? null : root;
    }
    if (typeof cwd !== "string" || cwd.length > 4096 || !isAbsolute(cwd) || cwd.includes("\0")) return null;
    const root = realpathSync(cwd);
    if (root === sep || !lstatSync(join(root, ".design")).isDirectory()) return null;
    // A `.design/` planted in a subfolder of a project must not make that subfolder a root: the outermost wins.
    for (let up = dirname(root); up !== dirname(up); up = dirname(up)) if (isDirAt(join(up, ".design"))) return null;
    return root;
  } catch {
    return null;
  }
}

/**
 * The project of a helper call or a `.design/` write: its cwd must be absolute, exist, and be the project root
 * (`rootOf`): the helper resolves `.design/` from its cwd, so a call from a subfolder would act on another one.
 */
export function projectOf(cwd: unknown): Project | null {
  if (typeof cwd !== "string" || cwd.length > 4096 || !isAbsolute(cwd) || cwd.includes("\0")) return null;
  let real: string;
  try {
    real = realpathSync(cwd);
  } catch {
    return null;
  }
  if (real === sep || resolve(cwd) === sep || real !== rootOf(cwd)) return null;
  return { design: join(real, ".design") };
}

/**
 * A helper path argument: relative or absolute, no `..` segment, real path inside `.design/` (or `.design/` itself
 * when `orSame`), and not a file with other hard links (one may be a file outside under another name). A write
 * argument's real path must also be one its command owns (`owner`, from base/owned.ts: the helper's own table).
 */
function pathInDesign(value: string, project: Project, cwd: string, orSame = false, owner?: Owner): boolean {
  if (value === "" || value.includes("\0") || value.split("/").includes("..") || value.startsWith("~")) return false;
  const real = realPath(resolve(cwd, value));
  if (real === null || !within(project.design, real, orSame) || hardLinked(real)) return false;
  return !owner || owner.allows(real === project.design ? [] : relative(project.design, real).split(sep));
}

/** A path the helper only reads: as pathInDesign, but anywhere inside the project root. */
function pathInProject(value: string, project: Project, cwd: string): boolean {
  if (value === "" || value.includes("\0") || value.split("/").includes("..") || value.startsWith("~")) return false;
  const real = realPath(resolve(cwd, value));
  return real !== null && within(dirname(project.design), real, false) && !hardLinked(real);
}

function hardLinked(real: string): boolean {
  try {
    const st = lstatSync(real);
    return st.isFile() && st.nlink > 1;
  } catch {
    return false; // not there yet
  }
}

function argOk(command: string, name: string, value: string, project: Project, cwd: string): boolean {
  // A write argument names only the files its command owns; with no row, the kind's rule alone.
  const owner = ownerOf(command, name);
  switch (COMMAND_ARG_KINDS[command]?.[name] ?? ARG_KINDS[name]) {
    case "dir":
      return pathInDesign(value, project, cwd, true, owner);
    case "path":
      return pathInDesign(value, project, cwd, false, owner);
    case "paths":
      // The helper trims each entry (any whitespace): approved only when that leaves what the hook judged.
      return owner === undefined && value.split(",").every((v) => entry(v).trim() === entry(v) && pathInDesign(entry(v), project, cwd));
    case "projectpaths":
      return owner === undefined && value.split(",").every((v) => entry(v).trim() === entry(v) && pathInProject(entry(v), project, cwd));
    case "skill":
      return (SKILLS as readonly string[]).includes(value);
    case "name":
      return NAME.test(value);
    case "agents":
      if (value === "") return true;
    // falls through
    case "names":
      return value.split(",").every((v) => NAME.test(entry(v)));
    case "skillref":
      return SKILL_REF.test(value);
    case "text":
      return !value.includes("\0");
    default:
      return false;
  }
}

/** Whether the words (subcommand first) pass that subcommand's argument spec and every path stays in `.design/`. */
export function argsOk(words: readonly string[], project: Project, cwd: string, stdin: boolean, commands: readonly string[]): boolean {
  const [command, ...argv] = words;
  if (command === undefined || !Object.prototype.hasOwnProperty.call(SPECS, command)) return false;
  // `<subcommand> --help` only prints the spec: any skill may ask about any of the skills' subcommands.
  if (argv.length === 1 && argv[0] === "--help") return !stdin && ALL_COMMANDS.includes(command);
  if (!commands.includes(command)) return false;
  const spec = SPECS[command];
  const positionals: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("-")) {
      positionals.push(a);
      continue;
    }
    if (!a.startsWith("--") || a === "--") return false;
    const eq = a.indexOf("=");
    const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
    if (!Object.prototype.hasOwnProperty.call(spec.f, name) || seen.has(name)) return false;
    seen.add(name);
    if (CONSENT_FLAGS[command]?.includes(name)) return false;
    const [type, , ...choices] = spec.f[name];
    if (type === "b") {
      if (eq >= 0) return false;
      continue;
    }
    let value: string;
    if (eq >= 0) value = a.slice(eq + 1);
    else {
      if (i + 1 >= argv.length) return false;
      value = argv[++i];
    }
    if (type === "i") {
      if (!/^\d{1,9}$/.test(value)) return false;
    } else if ((choices.length > 0 && !choices.includes(value)) || !argOk(command, name, value, project, cwd)) return false;
  }
  for (const [name, [, required]] of Object.entries(spec.f)) if (required && !seen.has(name)) return false;
  if (positionals.length > spec.p.length) return false;
  // A command that reads stdin takes it unless a file stands in for it (`sf`, e.g. worker-completion-validate's
  // report_path): never both, never neither.
  const fileInstead = spec.sf !== undefined && spec.p.findIndex(([name]) => name === spec.sf) < positionals.length;
  if (stdin !== (spec.s === 1 && !fileInstead)) return false;
  for (let i = 0; i < spec.p.length; i++) {
    const [name, required] = spec.p[i];
    if (i >= positionals.length) {
      if (required) return false;
    } else if (!argOk(command, name, positionals[i], project, cwd)) return false;
  }
  return true;
}

/**
 * The plugin roots a helper path may start with: where this hook runs from, its real path, and the CLI's
 * CLAUDE_PLUGIN_ROOT when that is the same folder under another name (the path the CLI substitutes in SKILL.md).
 */
export function pluginRoots(pluginRoot: string): string[] {
  const roots = [pluginRoot];
  try {
    const real = realpathSync(pluginRoot);
    if (!roots.includes(real)) roots.push(real);
    const alias = process.env.CLAUDE_PLUGIN_ROOT;
    if (alias && normalAbsolute(alias) && !roots.includes(alias) && realpathSync(alias) === real) roots.push(alias);
  } catch {
    /* keep what resolved */
  }
  return roots;
}

/**
 * A `cd` target that is the project root: absolute, in normal form (one trailing `/` allowed), no `/proc`, real
 * path equal to the root. bash's `cd` with an absolute path consults no CDPATH and prints nothing.
 */
function cdToRoot(dir: string, root: string): boolean {
  const d = dir.length > 1 && dir.endsWith(sep) ? dir.slice(0, -1) : dir;
  if (!normalAbsolute(d)) return false;
  try {
    return realpathSync(d) === root;
  } catch {
    return false;
  }
}

/** An event cwd that is the root or a folder below it (the shell a `cd <root> &&` call starts from). */
function inProject(cwd: unknown, root: string): boolean {
  if (typeof cwd !== "string" || cwd.length > 4096 || !isAbsolute(cwd) || cwd.includes("\0")) return false;
  try {
    return within(root, realpathSync(cwd), true);
  } catch {
    return false;
  }
}

/**
 * A file fed to the helper's stdin (`< file`, `cat file |`): a path argument's rules (inside `.design/`, symlinks
 * followed, no other hard link) and an existing regular file: a FIFO would block bash before the helper starts,
 * a device or a folder is no input.
 */
function stdinFileOk(value: string, project: Project, cwd: string): boolean {
  if (!pathInDesign(value, project, cwd)) return false;
  try {
    return statSync(resolve(cwd, value)).isFile();
  } catch {
    return false;
  }
}

/**
 * Whether a Bash command is an approvable helper call (the grammar: src/hooks/helper-line.ts): the helper path of a
 * skill (`<plugin root>/skills/<skill>/scripts/plan.js`, its subcommands) or of the commands
 * (`<plugin root>/dist/plan.js`, `COMMAND_COMMANDS`), the words passing the subcommand's spec with every path in
 * `.design/`, stdin exactly when the subcommand reads it. The call runs from the project root: the event's cwd is
 * the root, or a `cd <root> &&` prefix makes it so (the event's cwd then the root or a folder below it).
 * `skill` limits it to that skill's own helper and subcommands.
 */
export function isHelperCall(command: string, cwd: unknown, pluginRoot: string, skill?: Skill): boolean {
  return helperWords(command, cwd, pluginRoot, skill) !== null;
}

/** The words (subcommand first) of a helper call `isHelperCall` accepts, or null. */
export function helperWords(command: string, cwd: unknown, pluginRoot: string, skill?: Skill): string[] | null {
  const call = parseHelperLine(command, MAX_COMMAND);
  if (!call) return null;
  let base: string;
  let project: Project | null;
  if (call.cd !== undefined) {
    const root = rootOf(cwd);
    if (root === null || !inProject(cwd, root) || !cdToRoot(call.cd, root)) return null;
    base = root;
    project = { design: join(root, ".design") };
  } else {
    project = projectOf(cwd);
    base = cwd as string;
  }
  if (!project || !normalAbsolute(call.script)) return null;
  const roots = pluginRoots(pluginRoot);
  const skills: readonly Skill[] = skill ? [skill] : SKILLS;
  let commands: readonly string[];
  const pathSkill = skills.find((s) => roots.some((r) => call.script === join(r, "skills", s, "scripts", "plan.js")));
  if (pathSkill !== undefined) {
    commands = skill ? SKILL_COMMANDS[skill] : ALL_COMMANDS;
    // A skill's helper opens, records and closes only that skill's run (its skill written right after the command).
    if (RUN_STATE_COMMANDS.includes(call.words[0]) && call.words[1] !== pathSkill && call.words[1] !== "--help") return null;
  } else if (!skill && roots.some((r) => call.script === join(r, "dist", "plan.js"))) {
    if (!commandShapeOk(call.words)) return null;
    commands = COMMAND_COMMANDS;
  } else return null;
  const stdin = call.stdin;
  if (stdin && (stdin.kind === "redirect" || stdin.kind === "cat") && !stdinFileOk(stdin.path, project, base)) return null;
  return argsOk(call.words, project, base, stdin !== undefined, commands) ? call.words : null;
}

/**
 * Helper subcommands that start programs (the plan's checks, git on the project): approved only while the execute
 * grant holds and covers what they would do (`grantedCall`).
 */
export const GRANTED_HELPER_COMMANDS: readonly string[] = ["run-checks", "finish", "commit", "clean-attempt"];

/**
 * The flags of a helper call's words (subcommand first) that passed `argsOk`, read as the helper reads them: a
 * string or integer flag takes the next word unless written `--flag=value`; a boolean flag's value is "".
 */
function flagsOf(words: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const spec = SPECS[words[0]];
  for (let i = 1; i < words.length; i++) {
    const a = words[i];
    if (!a.startsWith("--")) continue;
    const eq = a.indexOf("=");
    const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
    const type = spec && Object.prototype.hasOwnProperty.call(spec.f, name) ? spec.f[name][0] : "b";
    if (type === "b") out.set(name, "");
    else if (eq >= 0) out.set(name, a.slice(eq + 1));
    else if (i + 1 < words.length) out.set(name, words[++i]);
  }
  return out;
}

/**
 * Whether the execute grant in force covers a call of a `GRANTED_HELPER_COMMANDS` subcommand, and, for a plan that
 * asks for it, Claude Code's sandbox is on (the programs run inside the helper's own Bash call):
 * - `run-checks --role R`: every check and spec command of role R (taken from the plan the grant verifies);
 * - `finish --agent A`: the same for the role whose worker A is (finish runs its checks); `--give-up` runs nothing
 *   and is approved as update-status is, and so is finish while no grant is in force (it then runs nothing);
 * - `commit --role R`, `clean-attempt --role R`: the grant verifies and R names one role of its plan (git touches
 *   only files inside that role's granted scope: lib/grant/role-files.ts).
 */
function grantedCall(words: readonly string[], root: string): boolean {
  if (words.length === 2 && words[1] === "--help") return true;
  const command = words[0];
  const flags = flagsOf(words);
  if (command === "finish" && flags.has("give-up")) return true;
  let state: { grant: Grant } | { why: string };
  if (command === "run-checks" || command === "finish") {
    let ref = flags.get("role");
    if (command === "finish") {
      const agent = flags.get("agent");
      if (agent === undefined) return false;
      const grant = readGrant(root, Date.now(), process.env, undefined, {});
      // No grant in force (declined, ended, spoilt): finish runs no program then (it records the cost, checks the
      // report, records a reported failure, and refuses to judge a claimed success), so a run without a grant
      // finishes its workers without a prompt each.
      if (grant === null) return true;
      const role = grant.workers.get(agent);
      if (typeof role !== "string") return false;
      ref = role;
    }
    if (ref === undefined) return false;
    state = checksGrant(root, ref, Date.now(), process.env, {});
  } else {
    const ref = flags.get("role");
    if (ref === undefined) return false;
    const s = grantState(root, Date.now(), process.env, undefined, {});
    state = "why" in s ? s : "why" in findRole(s.plan, ref) ? { why: "no such role" } : s;
  }
  if ("why" in state) return false;
  return !state.grant.requiresSandbox || sandboxState({ cwd: root }) === "on";
}

/**
 * What the skills and their agents write under `.design/` with Write/Edit, by name (relative to `.design/`, `/`
 * separated, exactly as written: lower case, no dotfile, no name a tool loads as code or configuration, no
 * `plan.json`, `specs/`, `grant.json`, run state, `workflow.js`, memory, reflection or `history/`, which only the
 * helper writes). Anything else under `.design/` is the user's to approve.
 */
export const DESIGN_WRITES: readonly RegExp[] = [
  /^tmp\/[a-z0-9][a-z0-9_-]{0,63}(?:\.[a-z0-9_-]{1,32})?\.(?:json|md|txt)$/,
  /^expert-[a-z0-9][a-z0-9-]{0,63}\.json$/,
  /^worker-[a-z0-9][a-z0-9-]{0,63}\.json$/,
  /^fix-[0-9]{1,3}\.json$/,
  /^(?:challenger|scout|integration-verifier|regression-checker|memory-curator)-report\.json$/,
  /^(?:cross-review|interfaces|skill-features)\.json$/,
  /^(?:handoff|skill-snapshot)\.md$/,
];
/** Plan drafts, for the plan-writing skills only: `finalize` installs them (specs by the plan's own list). */
export const DRAFT_WRITES: readonly RegExp[] = [/^draft\/plan\.json$/, /^draft\/specs\/spec-[a-z0-9][a-z0-9-]{0,63}(?:\.test)?\.[a-z0-9]{1,8}$/];

/**
 * Expert artifacts are their agents' own (seed 001: each expert writes its artifact; recon's "never write or repair
 * one"): `expert-<name>.json` is approved for an agent, the one named `<name>` when its name is known, never for the
 * lead (it asks the user then) nor for a caller the hook cannot tell; a replacement `<name>-<n>` writes its artifact too.
 */
const EXPERT_ARTIFACT = /^expert-([a-z0-9][a-z0-9-]{0,63})\.json$/;

export function writeOk(file: string, cwd: unknown, skill?: Skill, caller: () => Caller = () => ({ kind: "lead" })): boolean {
  const root = rootOf(cwd);
  if (root === null || !normalAbsolute(file)) return false;
  const design = join(root, ".design");
  const real = realPath(file);
  if (real === null || !within(design, real) || hardLinked(real)) return false;
  const rel = relative(design, real).split(sep).join("/");
  const expert = EXPERT_ARTIFACT.exec(rel);
  if (expert) {
    const who = caller();
    // A stalled expert's replacement is `<name>-2` (SKILL.md's liveness table) and writes the same artifact.
    return who.kind === "agent" && (who.name === null || who.name === expert[1] || (who.name.startsWith(`${expert[1]}-`) && /^\d+$/.test(who.name.slice(expert[1].length + 1))));
  }
  if (DESIGN_WRITES.some((re) => re.test(rel))) return true;
  return (!skill || PLAN_WRITERS.includes(skill)) && DRAFT_WRITES.some((re) => re.test(rel));
}

export interface HookInput {
  tool_name?: unknown;
  tool_input?: { command?: unknown; file_path?: unknown; notebook_path?: unknown; dangerouslyDisableSandbox?: unknown; run_in_background?: unknown };
  cwd?: unknown;
  /** Set by the CLI on a subagent's call only: an opaque id (test/e2e/hook-scope.test.ts). */
  agent_id?: unknown;
  /** The session's transcript (the lead's, also on a subagent's call). */
  transcript_path?: unknown;
  /** "default", "acceptEdits", "plan", "bypassPermissions": in plan mode the hook approves nothing. */
  permission_mode?: unknown;
}

/** Who makes a call: the lead, an agent (with the name the lead gave it, or null), or an agent we cannot name. */
export type Caller = { kind: "lead" } | { kind: "agent"; name: string | null } | { kind: "unknown" };

const MAX_META = 64 * 1024;
/** Workflow runs of one session searched for an agent's sidecar. */
const MAX_RUNS = 256;

/**
 * The caller of an event. The hook input names no agent (measured on 2.1.197 and 2.1.330): a subagent's call
 * carries an opaque `agent_id`; the name the lead gave it is in the CLI's sidecar file
 * `<transcript_path without .jsonl>/subagents/agent-<agent_id>.meta.json` (`{"name": …}`). An agent of a Workflow
 * run has its sidecar one level down, `subagents/workflows/<run id>/agent-<agent_id>.meta.json`, with
 * `"agentType": "workflow-subagent"` and, on 2.1.330, its `agent()` label as `description` (the label the helper's
 * generated script gives it: the role's agent name); that label is its name (2.1.197 records none: unnamed). These are the only files the hook reads outside
 * the project and the plugin; anything odd about them makes the caller unknown.
 */
export function callerOf(input: HookInput): Caller {
  if (input.agent_id === undefined) return { kind: "lead" };
  const id = input.agent_id;
  const tp = input.transcript_path;
  if (typeof id !== "string" || !/^[A-Za-z0-9_-]{1,128}$/.test(id)) return { kind: "unknown" };
  if (typeof tp !== "string" || !normalAbsolute(tp) || !tp.endsWith(".jsonl") || tp.length > 4096) return { kind: "unknown" };
  const subagents = join(dirname(tp), basename(tp, ".jsonl"), "subagents");
  const direct = readMeta(join(subagents, `agent-${id}.meta.json`));
  if (direct !== undefined) return direct === null ? { kind: "unknown" } : nameOf(direct, false);
  let runs: string[] = [];
  try {
    runs = readdirSync(join(subagents, "workflows")).filter((n) => /^[A-Za-z0-9_-]{1,128}$/.test(n)).slice(0, MAX_RUNS);
  } catch {
    return { kind: "unknown" };
  }
  for (const run of runs) {
    const doc = readMeta(join(subagents, "workflows", run, `agent-${id}.meta.json`));
    if (doc === null) return { kind: "unknown" };
    if (doc !== undefined) return nameOf(doc, true);
  }
  return { kind: "unknown" };
}

/** The caller a sidecar names: a Workflow agent by its label (`description`), any other agent by `name`. */
function nameOf(doc: Record<string, unknown>, inWorkflow: boolean): Caller {
  if (inWorkflow) {
    const label = doc.description;
    // 2.1.197 writes no label (`{"agentType": "workflow-subagent", "spawnDepth": 1}`): an agent without a name.
    if (doc.agentType !== "workflow-subagent") return { kind: "unknown" };
    if (label === undefined) return { kind: "agent", name: null };
    return typeof label === "string" && label !== "" ? { kind: "agent", name: label } : { kind: "unknown" };
  }
  const name = doc.name;
  if (name === undefined) return { kind: "agent", name: null };
  return typeof name === "string" && name !== "" ? { kind: "agent", name } : { kind: "unknown" };
}

/** A sidecar's JSON object; undefined when the file does not exist, null when it is not a small JSON object. */
function readMeta(meta: string): Record<string, unknown> | null | undefined {
  let fd: number | undefined;
  try {
    // Non-blocking: a FIFO in its place must not hold the hook (it is then no regular file, and refused).
    fd = openSync(meta, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_META) return null;
    const doc: unknown = JSON.parse(readFileSync(fd, "utf8"));
    if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return null;
    return doc as Record<string, unknown>;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? undefined : null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Folders a grant never covers, at any depth (compared without case: a case-insensitive disk has .GIT = .git). */
const NEVER_GRANTED = [".design", ".git", ".claude"];

/**
 * What the grant gives a caller: the lead (no agent id) and a known auxiliary of execute every item (undefined),
 * a worker its own role's items (the role's name, or null when two roles claim its name: the plan's commands
 * only); "none" for any other agent, one without a name, or one the hook cannot name.
 */
function grantShare(caller: Caller, grant: Grant): string | null | undefined | "none" {
  if (caller.kind === "lead") return undefined;
  if (caller.kind !== "agent" || caller.name === null) return "none";
  if (grant.workers.has(caller.name)) return grant.workers.get(caller.name);
  return isGrantAuxiliary(caller.name) ? undefined : "none";
}

/** Whether the execute grant in force covers this call (see the header). */
function granted(tool: unknown, t: NonNullable<HookInput["tool_input"]>, input: HookInput, root: string): boolean {
  const isBash = tool === "Bash";
  const file = tool === "NotebookEdit" ? t.notebook_path : t.file_path;
  const isEdit = tool === "Write" || tool === "Edit" || tool === "MultiEdit" || tool === "NotebookEdit";
  if (isBash) {
    // Exactly the granted line: no second line, no padding a prefix check could hide text in.
    if (typeof t.command !== "string" || t.command.length > MAX_COMMAND || /[\n\r\0]/.test(t.command) || t.command !== t.command.trim()) return false;
    // An agent's granted command runs in the foreground, as its brief says (a background one outlives the agent's
    // turn, and nothing wakes it for the result); the lead's own background calls are not judged here.
    if (input.agent_id !== undefined && t.run_in_background !== undefined && t.run_in_background !== false) return false;
  } else if (!isEdit || typeof file !== "string" || !normalAbsolute(file)) return false;
  // The grant's commands run from the project root: a cwd elsewhere (a planted `.design/` below it) earns nothing.
  try {
    if (typeof input.cwd !== "string" || !isAbsolute(input.cwd) || realpathSync(input.cwd) !== root) return false;
    if (!lstatSync(join(root, ".design")).isDirectory()) return false;
  } catch {
    return false;
  }
  let request: GrantRequest;
  if (isBash) request = { tool: "Bash", command: t.command as string };
  else {
    // The real path decides: a link inside the scope that points elsewhere is judged where it points.
    const real = realPath(file as string);
    if (real === null || !within(root, real) || hardLinked(real)) return false;
    // `within` held: the part of the real path below the root.
    const rel = real.slice(root.length + 1).normalize("NFC").toLowerCase().split(sep);
    if (rel.some((part) => NEVER_GRANTED.includes(part))) return false;
    request = { tool: "Edit", filePath: real };
  }
  // A call no recorded item covers (for anyone) is refused before the key, the HMAC and the plan's fingerprint:
  // most Bash calls of a session are no granted command. One it covers is answered by the record of an earlier full
  // verification when every file the grant binds reads as it did then (src/lib/grant/grant-cache.ts): no node:crypto.
  const grant = readGrant(root, Date.now(), process.env, (unverified) => grantAllows({ ...unverified, workers: new Map() }, request, root), {});
  if (!grant) return false;
  const role = grantShare(input.agent_id === undefined ? { kind: "lead" } : callerOf(input), grant);
  if (role === "none") return false;
  // A plan that asks for the sandbox gets its commands approved only while Claude Code's sandbox is on.
  if (isBash && grant.requiresSandbox && sandboxState({ cwd: root }) !== "on") return false;
  return grantAllows(grant, { ...request, role }, root);
}

/**
 * Whether the hook approves this tool call without asking. Never in plan mode, never with the sandbox turned off,
 * never outside the project root (`rootOf`). The helper's calls only for the lead (no agent runs the helper).
 */
export function permits(input: HookInput, pluginRoot: string, skill?: Skill): boolean {
  const tool = input.tool_name;
  const t = input.tool_input;
  if (typeof t !== "object" || t === null) return false;
  if (input.permission_mode === "plan") return false;
  if (t.dangerouslyDisableSandbox !== undefined && t.dangerouslyDisableSandbox !== false) return false;
  if (tool === "Read") {
    if (typeof t.file_path !== "string" || !normalAbsolute(t.file_path)) return false;
    const real = realPath(t.file_path);
    return real !== null && pluginRoots(pluginRoot).some((r) => within(r, real));
  }
  const root = rootOf(input.cwd);
  if (root === null) return false;
  if (tool === "Bash") {
    const words = typeof t.command === "string" && input.agent_id === undefined ? helperWords(t.command, input.cwd, pluginRoot, skill) : null;
    if (words !== null) return !GRANTED_HELPER_COMMANDS.includes(words[0]) || grantedCall(words, root);
    return granted(tool, t, input, root);
  }
  if (tool === "MultiEdit" || tool === "NotebookEdit") return granted(tool, t, input, root);
  if (tool !== "Write" && tool !== "Edit" || typeof t.file_path !== "string") return false;
  return writeOk(t.file_path, input.cwd, skill, () => callerOf(input)) || granted(tool, t, input, root);
}

export const ALLOW = {
  hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: "allow",
    permissionDecisionReason: "do: the skill's own helper call, a .design file, or a call the user's execute grant covers",
  },
};
