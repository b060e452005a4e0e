// Skill discovery and name resolution for skill-find: the skills and commands Claude Code offers in this project,
// named as it names them. Measured on 2.1.197 and 2.1.332 with real collections installed into a scratch HOME
// (test/e2e/skill-list.test.ts compares this list with the one the CLI sends the model; the fixtures and what was
// measured are in test/fixtures/skill-list/README.md):
// - the project: `.claude/skills/<folder>/SKILL.md` and `.claude/commands/**/*.md` of the working folder and each
//   folder above it up to the git root (without one, up to the home folder or `/`), never the home folder itself;
// - the user: `<config>/skills/<folder>/SKILL.md` and `<config>/commands/**/*.md` (`<config>` is
//   `$CLAUDE_CONFIG_DIR` or `~/.claude`);
// - this plugin (the folder above dist/) and the plugins in `<config>/plugins/installed_plugins.json` (user installs,
//   and project or local installs made in this project). A plugin's skills: its `skills/` folder plus the paths its
//   plugin.json and its marketplace entry list; an entry whose source is the marketplace root (`"./"`) and that lists
//   `skills` gives exactly those (anthropics/skills). Its commands: `commands/`, or the paths plugin.json (else the
//   entry) lists instead. A plugin without plugin.json takes its components from the entry (`strict: false`); one
//   with both and components in a `strict: false` entry is not loaded. A plugin of a local-directory marketplace is
//   read from that directory, any other from its install path (the CLI's plugin cache).
// Names: a project or user skill is its folder's name; a plugin's is `<plugin>:<folder>` (the folder with anything
// but letters, digits, `_` and `-` made `-`), or for a listed path that is itself a skill `<plugin>:<frontmatter
// name>` (a leading `<plugin>:` not repeated); a command is its path below the commands folder joined with `:`. The
// frontmatter `name`, when it differs, is kept as displayName (2.1.332 shows it in parentheses).
// Claude Code offers the model every project and user skill and command, and a plugin's only when its frontmatter
// has a description or when_to_use; none with `disable-model-invocation: true`. Those it does not offer are kept,
// with `hidden` saying why (the user can still type them).
//
// Reads outside the working folder (the one documented exception to "the helper reads only inside the project"):
// the `.claude/skills` and `.claude/commands` folders of the folders above it up to the git root (without a git
// root, those up to the home folder are listed by name only, never read: the project is then the working folder);
// the user's skills and commands folders; frontmatter of the files named SKILL.md or *.md found there and in the
// plugins' skill and command paths (the first FRONTMATTER_BYTES bytes, or FRONTMATTER_MAX_BYTES when the block is
// longer); `<config>/plugins/installed_plugins.json` and `known_marketplaces.json`, each recorded marketplace's
// `.claude-plugin/marketplace.json`, and each plugin's `.claude-plugin/plugin.json` (at most MANIFEST_BYTES each). A
// project skill or command whose real path leaves the project (the git root, else the working folder) is listed by
// its name and never read. A plugin's folder must lie under `<config>/plugins/` or `<config>/skills/`, or inside a
// local-directory marketplace recorded in known_marketplaces.json, and every file read for it inside that folder
// (or its marketplace's). Settings files are never read (they may hold secrets), so whether a plugin is switched
// off is not known here. Nothing is written.
//
// Why one file: the list Claude Code offers is one algorithm (roots, plugins, marketplaces, names, resolution),
// measured against the CLI as a whole.
import { closeSync, existsSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { openRegular } from "../../base/safe-read.js";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { firstLine, readFrontmatter, textValue } from "./frontmatter.js";
import { isObject } from "../values.js";

/** Why a plugin's skill is not offered beside the plugin's command of the same name. */
export const SHADOWED = "the plugin's command of the same name is offered in its place";

/** Enough for any real frontmatter; the rest of a file is never read. */
export const FRONTMATTER_BYTES = 8192;
/** How far a frontmatter block that is still open after FRONTMATTER_BYTES is read. */
export const FRONTMATTER_MAX_BYTES = 65536;
/** Descriptions are cut to this many characters in answers (they land in the lead's context). */
export const DESCRIPTION_CHARS = 200;
/** installed_plugins.json, known_marketplaces.json, marketplace.json, plugin.json: larger files are not read. */
export const MANIFEST_BYTES = 4 * 1024 * 1024;
/** How deep command folders are walked (a command's name has at most this many `:` parts before its own). */
export const COMMAND_DEPTH = 4;

export type SkillSource = "project" | "user" | "plugin" | "installed";
export type SkillKind = "skill" | "command";

export interface SkillInfo {
  /** What Claude Code lists and invokes: `<plugin>:<name>` for a plugin's, else the name. */
  qualifiedName: string;
  /** The name within its plugin: the skill's folder, or the command's path joined with `:`. */
  name: string;
  /** The frontmatter `name` (qualified once for a plugin) when it differs from qualifiedName. */
  displayName?: string;
  kind: SkillKind;
  source: SkillSource;
  plugin: string | null;
  /** The file as Claude Code finds it: relative to the working folder inside it, absolute outside. */
  path: string;
  /** Where `path` resolves when a link is on the way (same form as path). */
  realPath?: string;
  /** The real path lies inside the working folder. */
  inProject: boolean;
  description: string;
  /** Why Claude Code does not offer it to the model (the user can still type it). */
  hidden?: string;
  /** Why the file was not read (its name comes from its folder or file name). */
  unread?: string;
  /** A resolved skill only (skill-find): its feature file (FEATURE_FILE), or null when it has none. */
  features?: string | null;
}

export interface SkillRoot {
  source: SkillSource;
  kind: SkillKind;
  plugin: string | null;
  path: string;
  exists: boolean;
}

export interface SkillIndex {
  skills: SkillInfo[];
  roots: SkillRoot[];
  problems: string[];
}

export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function real(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The first `bytes` bytes of a regular file, or null (opened non-blocking and checked: a FIFO never stalls it). */
function readHead(path: string, bytes: number): string | null {
  const o = openRegular(path, Number.MAX_SAFE_INTEGER);
  if (!o.ok) return null;
  try {
    const buf = Buffer.alloc(bytes);
    let n = 0;
    for (let r; n < bytes && (r = readSync(o.fd, buf, n, bytes - n, null)) > 0; ) n += r;
    return buf.subarray(0, n).toString("utf8");
  } catch {
    return null;
  } finally {
    closeSync(o.fd);
  }
}

/** A JSON file of at most MANIFEST_BYTES: the document, `undefined` when missing, null when unreadable. */
function readJson(path: string): unknown {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size > MANIFEST_BYTES) return null;
    size = st.size;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR" ? undefined : null;
  }
  const text = readHead(path, size);
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

interface FileFacts {
  name?: string;
  description?: string;
  /** description or when_to_use was written (a plugin's skill is offered only then). */
  described: boolean;
  disabled: boolean;
}

/** Name, description and model-invocation of a SKILL.md or command file, as Claude Code reads them. */
function fileFacts(path: string): FileFacts | null {
  let head = readHead(path, FRONTMATTER_BYTES);
  if (head === null) return null;
  let fm = readFrontmatter(head);
  if (fm.open && Buffer.byteLength(head) >= FRONTMATTER_BYTES - 3) {
    head = readHead(path, FRONTMATTER_MAX_BYTES) ?? head;
    fm = readFrontmatter(head);
  }
  const data = fm.data ?? {};
  const described = textValue(data.description);
  const whenToUse = textValue(data.when_to_use ?? data["when-to-use"]);
  const base = described ?? firstLine(fm.body) ?? "";
  const description = whenToUse ? (base ? `${base} - ${whenToUse}` : whenToUse) : base;
  const off = data["disable-model-invocation"] ?? data.disable_model_invocation;
  return {
    name: textValue(data.name),
    description,
    described: described !== undefined || whenToUse !== undefined,
    disabled: off === true || (typeof off === "string" && off.trim().toLowerCase() === "true"),
  };
}

function cut(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > DESCRIPTION_CHARS ? `${t.slice(0, DESCRIPTION_CHARS - 1)}…` : t;
}

/** `<plugin>:<name>`, unless the name already starts with it (a frontmatter name written qualified). */
function qualifyOnce(plugin: string, name: string): string {
  return name.startsWith(`${plugin}:`) ? name : `${plugin}:${name}`;
}

/** How Claude Code turns a plugin's skill folder into a name. */
function pluginSkillName(folder: string): string {
  return folder.replace(/[^a-zA-Z0-9_-]/g, "-");
}

/** The `do` plugin root: the nearest folder above this module holding .claude-plugin/plugin.json. */
export function ownPluginRoot(start: string = __dirname): string | null {
  let dir = start;
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, ".claude-plugin", "plugin.json"))) return dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return null;
}

/** `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const c = env.CLAUDE_CONFIG_DIR;
  return c && isAbsolute(c) ? c : join(homedir(), ".claude");
}

/**
 * The folders whose `.claude/skills` and `.claude/commands` Claude Code reads: the working folder and each one above
 * it, up to and including the git root (without one, up to `/`), stopping before the home folder. `top` is the
 * project: the git root, or the working folder when there is none.
 */
export function projectFolders(cwdReal: string, home: string = homedir()): { folders: string[]; top: string } {
  const homeReal = real(home) ?? resolve(home);
  const folders: string[] = [];
  let gitRoot: string | null = null;
  for (let dir = cwdReal; ; ) {
    if (existsSync(join(dir, ".git"))) {
      gitRoot = dir;
      break;
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  for (let dir = cwdReal; ; ) {
    if (dir === homeReal) break;
    folders.push(dir);
    if (dir === gitRoot) break;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return { folders, top: gitRoot !== null && gitRoot !== homeReal && isInside(gitRoot, cwdReal) ? gitRoot : cwdReal };
}

interface Marketplace {
  /** `directory` for a local folder (its plugins are read from there), else `github`, `git`, `url`... */
  kind: string;
  location: string | null;
  entries: Map<string, Record<string, unknown>>;
}

interface PluginPlan {
  name: string;
  root: string;
  /** Real folders every file read must lie in. */
  anchors: string[];
  skillPaths: Array<{ path: string; single: boolean }>;
  commandPaths: string[];
}

const COMPONENT_KEYS = ["commands", "agents", "skills", "hooks", "outputStyles", "themes"];

function stringList(v: unknown): string[] | undefined {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.filter((s): s is string => typeof s === "string");
  return undefined;
}

/** Which skill and command paths a plugin has (see the top of this file); null when Claude Code does not load it. */
function planPlugin(root: string, fallbackName: string, entry: Record<string, unknown> | null, anchors: string[], problems: string[]): PluginPlan | null {
  const manifestFile = join(root, ".claude-plugin", "plugin.json");
  const manifestDoc = readJson(manifestFile);
  if (manifestDoc === null) problems.push(`${manifestFile}: cannot be read as JSON`);
  const manifest = isObject(manifestDoc) ? manifestDoc : null;
  if (entry && entry.strict === false && manifest && COMPONENT_KEYS.some((k) => entry[k] !== undefined)) {
    problems.push(`${fallbackName}: plugin.json and a strict: false marketplace entry both name components; Claude Code does not load it`);
    return null;
  }
  const name = (typeof manifest?.name === "string" && manifest.name) || (typeof entry?.name === "string" && entry.name) || fallbackName;
  const inRoot = (p: string) => {
    const abs = resolve(root, p);
    if (!isInside(root, abs)) {
      problems.push(`${name}: ${p} leaves the plugin, skipped`);
      return null;
    }
    return abs;
  };
  const skillsDir = join(root, "skills");
  const skillPaths: Array<{ path: string; single: boolean }> = [];
  const add = (abs: string | null) => {
    if (abs && !skillPaths.some((s) => s.path === abs)) skillPaths.push({ path: abs, single: isFile(join(abs, "SKILL.md")) });
  };
  const entrySkills = entry ? stringList(entry.skills) : undefined;
  const atMarketplaceRoot = typeof entry?.source === "string" && entry.source.split(/[\\/]/).every((s) => s === "" || s === ".");
  if (atMarketplaceRoot && entrySkills !== undefined && entrySkills.length > 0) {
    // The entry's list is the plugin's skills; the skills/ folder only when the list names it (or the root).
    for (const p of entrySkills) add(inRoot(p));
    const keep = skillPaths.some((s) => s.path === skillsDir || s.path === root);
    const listed = skillPaths.filter((s) => s.path !== skillsDir && s.path !== root);
    skillPaths.length = 0;
    if (keep && isDir(skillsDir)) add(skillsDir);
    skillPaths.push(...listed);
  } else {
    if (isDir(skillsDir)) add(skillsDir);
    for (const p of stringList(manifest?.skills) ?? []) add(inRoot(p));
    for (const p of entrySkills ?? []) add(inRoot(p));
  }
  const listedCommands = stringList(manifest?.commands) ?? (entry ? stringList(entry.commands) : undefined);
  const commandPaths = listedCommands !== undefined
    ? listedCommands.map(inRoot).filter((p): p is string => p !== null)
    : isDir(join(root, "commands")) ? [join(root, "commands")] : [];
  return { name, root, anchors, skillPaths, commandPaths };
}

/** Every `.md` file below a commands folder (or the file itself), with its name: the path joined with `:`. */
function commandFiles(path: string): Array<{ file: string; name: string }> {
  if (isFile(path)) return path.endsWith(".md") ? [{ file: path, name: basename(path).replace(/\.md$/, "") }] : [];
  const out: Array<{ file: string; name: string }> = [];
  const walk = (dir: string, ns: string[]) => {
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch {
      return;
    }
    // A folder holding a SKILL.md is one skill-shaped command named after the folder.
    if (ns.length > 0 && entries.includes("SKILL.md") && isFile(join(dir, "SKILL.md"))) {
      out.push({ file: join(dir, "SKILL.md"), name: ns.join(":") });
      return;
    }
    for (const e of entries) {
      if (e.startsWith(".")) continue;
      const p = join(dir, e);
      if (e.endsWith(".md") && isFile(p)) out.push({ file: p, name: [...ns, e.slice(0, -3)].join(":") });
      else if (ns.length < COMMAND_DEPTH && isDir(p)) walk(p, [...ns, e]);
    }
  };
  walk(path, []);
  return out;
}

/** Skill folders of a project or user skills folder: each `<root>/<entry>/SKILL.md` (folders and links to them). */
function skillFolders(root: string): Array<{ file: string; name: string }> {
  let names: string[];
  try {
    names = readdirSync(root).sort();
  } catch {
    return [];
  }
  const out: Array<{ file: string; name: string }> = [];
  for (const name of names) {
    const file = join(root, name, "SKILL.md");
    if (isFile(file)) out.push({ file, name });
  }
  return out;
}

/** Marketplaces recorded in known_marketplaces.json, with their entries by plugin name (read once each). */
function marketplaces(config: string, problems: string[]): (name: string) => Marketplace | null {
  const file = join(config, "plugins", "known_marketplaces.json");
  const doc = readJson(file);
  if (doc === null) problems.push(`${file}: cannot be read as JSON`);
  const known = isObject(doc) ? doc : {};
  const cache = new Map<string, Marketplace | null>();
  return (name) => {
    if (cache.has(name)) return cache.get(name)!;
    let m: Marketplace | null = null;
    const rec = known[name];
    if (isObject(rec)) {
      const kind = isObject(rec.source) && typeof rec.source.source === "string" ? rec.source.source : "unknown";
      const location = typeof rec.installLocation === "string" && isAbsolute(rec.installLocation) ? rec.installLocation : null;
      const entries = new Map<string, Record<string, unknown>>();
      if (location) {
        const manifestFile = location.endsWith(".json") ? location : join(location, ".claude-plugin", "marketplace.json");
        if (basename(manifestFile) === "marketplace.json") {
          const manifest = readJson(manifestFile);
          if (manifest === null) problems.push(`${manifestFile}: cannot be read as JSON`);
          const plugins = isObject(manifest) && Array.isArray(manifest.plugins) ? manifest.plugins : [];
          for (const p of plugins) if (isObject(p) && typeof p.name === "string" && !entries.has(p.name)) entries.set(p.name, p);
        }
      }
      m = { kind, location, entries };
    }
    cache.set(name, m);
    return m;
  };
}

interface Install {
  id: string;
  plugin: string;
  marketplace: string;
  installPath: string;
}

const SCOPE_ORDER: Record<string, number> = { local: 0, project: 1, user: 2 };

/** One install per plugin that counts here: local, then project (made in this project), then user scope. */
function installs(config: string, projectPaths: string[], problems: string[]): Install[] {
  const file = join(config, "plugins", "installed_plugins.json");
  const doc = readJson(file);
  if (doc === null) problems.push(`${file}: cannot be read as JSON`);
  const plugins = isObject(doc) && isObject(doc.plugins) ? doc.plugins : {};
  const out: Install[] = [];
  for (const id of Object.keys(plugins)) {
    const list = plugins[id];
    if (!Array.isArray(list)) continue;
    const usable = list
      .filter((i): i is Record<string, unknown> => isObject(i) && typeof i.installPath === "string" && typeof i.scope === "string" && i.scope in SCOPE_ORDER)
      .filter((i) => i.scope === "user" || (typeof i.projectPath === "string" && projectPaths.includes(real(i.projectPath) ?? "")))
      .sort((a, b) => SCOPE_ORDER[a.scope as string] - SCOPE_ORDER[b.scope as string]);
    if (usable.length === 0) continue;
    const at = id.lastIndexOf("@");
    out.push({
      id,
      plugin: at > 0 ? id.slice(0, at) : id,
      marketplace: at > 0 ? id.slice(at + 1) : "",
      installPath: usable[0].installPath as string,
    });
  }
  return out;
}

/**
 * Whether the helper was started the way a Claude Code session runs this plugin: through a skill's scripts link,
 * `<pluginRoot>/skills/<name>/scripts/plan.js` (`entry` as given, links not followed). Started otherwise (a checkout's
 * dist/plan.js from a shell, a test), this plugin is not known to be loaded, so it replaces no installed plugin.
 */
export function startedBySession(entry: string | undefined, pluginRoot: string | null): boolean {
  if (!entry || !pluginRoot) return false;
  const abs = resolve(entry);
  if (basename(abs) !== "plan.js" || basename(dirname(abs)) !== "scripts") return false;
  const skillsDir = dirname(dirname(dirname(abs)));
  if (basename(skillsDir) !== "skills") return false;
  const root = dirname(skillsDir);
  return root === pluginRoot || real(root) === real(pluginRoot);
}

/** What `entry` needs to describe one skill or command found. */
interface Found {
  file: string;
  realFile: string;
  name: string;
  qualified: string;
  kind: SkillKind;
  source: SkillSource;
  plugin: string | null;
  facts: FileFacts | null;
  unread?: string;
  displayName?: string;
}

/**
 * One walk of indexSkills: the roots, skills and problems found so far, and the files already listed. Duplicates
 * (the same file by its real path) are listed once, the first found: Claude Code dedupes the user's and the
 * project's skills together, the plugins' among themselves and against the user's skills, and commands.
 */
class SkillWalk {
  readonly roots: SkillRoot[] = [];
  readonly skills: SkillInfo[] = [];
  readonly problems: string[] = [];
  private readonly seenSkill = new Set<string>();
  private readonly seenPluginSkill = new Set<string>();
  private readonly userSkillFiles = new Set<string>();
  private readonly seenCommand = new Set<string>();

  constructor(
    private readonly cwdReal: string,
    private readonly top: string,
  ) {}

  private display(p: string): string {
    return isInside(this.cwdReal, p) ? relative(this.cwdReal, p) || "." : p;
  }

  private entry(o: Found): SkillInfo {
    const path = this.display(o.file);
    const realPath = this.display(o.realFile);
    const hidden = o.facts?.disabled
      ? "disable-model-invocation: true"
      : o.plugin && o.facts && !o.facts.described && (o.source === "plugin" || o.source === "installed")
        ? "a plugin's skill or command without a description or when_to_use"
        : undefined;
    return {
      qualifiedName: o.qualified,
      name: o.name,
      ...(o.displayName && o.displayName !== o.qualified ? { displayName: o.displayName } : {}),
      kind: o.kind,
      source: o.source,
      plugin: o.plugin,
      path,
      ...(realPath !== path ? { realPath } : {}),
      inProject: isInside(this.cwdReal, o.realFile),
      description: cut(o.facts?.description ?? ""),
      ...(hidden ? { hidden } : {}),
      ...(o.unread ? { unread: o.unread } : {}),
    };
  }

  /** Project and user skill or command folders: named by file or folder; a project file whose real path leaves the project is not read. */
  scan(source: "project" | "user", kind: SkillKind, root: string): void {
    const exists = isDir(root);
    this.roots.push({ source, kind, plugin: null, path: this.display(root), exists });
    if (!exists) return;
    const seen = kind === "skill" ? this.seenSkill : this.seenCommand;
    for (const { file, name } of kind === "skill" ? skillFolders(root) : commandFiles(root)) {
      const realFile = real(file);
      if (!realFile || seen.has(realFile)) continue;
      seen.add(realFile);
      if (kind === "skill" && source === "user") this.userSkillFiles.add(realFile);
      const outside = source === "project" && !isInside(this.top, realFile);
      const facts = outside ? null : fileFacts(realFile);
      if (!outside && facts === null) continue;
      const unread = outside ? { unread: "its real path leaves the project" } : {};
      this.skills.push(this.entry(kind === "skill"
        ? { file, realFile, name, qualified: name, kind, source, plugin: null, facts, displayName: facts?.name, ...unread }
        : { file, realFile, name, qualified: name, kind, source, plugin: null, facts, ...unread }));
    }
  }

  /** A plugin's commands and skills, in that order. */
  scanPlugin(source: "plugin" | "installed", plan: PluginPlan): void {
    this.pluginCommands(source, plan);
    this.pluginSkills(source, plan);
  }

  /** Whether a plugin's file is inside it; a file outside is a problem, skipped. */
  private within(plan: PluginPlan, file: string, realFile: string): boolean {
    if (plan.anchors.some((a) => isInside(a, realFile))) return true;
    this.problems.push(`${file}: outside its plugin, skipped`);
    return false;
  }

  // A plugin's paths are listed among the roots only when they exist (a plugin names many that need not).
  private pluginCommands(source: "plugin" | "installed", plan: PluginPlan): void {
    for (const c of plan.commandPaths) {
      if (!existsSync(c)) continue;
      this.roots.push({ source, kind: "command", plugin: plan.name, path: this.display(c), exists: true });
      for (const { file, name } of commandFiles(c)) {
        const realFile = real(file);
        if (!realFile || this.seenCommand.has(realFile)) continue;
        if (!this.within(plan, file, realFile)) continue;
        this.seenCommand.add(realFile);
        const facts = fileFacts(realFile);
        if (facts === null) continue;
        this.skills.push(this.entry({ file, realFile, name, qualified: `${plan.name}:${name}`, kind: "command", source, plugin: plan.name, facts }));
      }
    }
  }

  private pluginSkills(source: "plugin" | "installed", plan: PluginPlan): void {
    for (const s of plan.skillPaths) {
      if (!isDir(s.path)) continue;
      this.roots.push({ source, kind: "skill", plugin: plan.name, path: this.display(s.path), exists: true });
      const found = s.single
        ? [{ file: join(s.path, "SKILL.md"), folder: null as string | null }]
        : skillFolders(s.path).map((f) => ({ file: f.file, folder: f.name as string | null }));
      for (const { file, folder } of found) {
        const realFile = real(file);
        if (!realFile || this.seenPluginSkill.has(realFile) || this.userSkillFiles.has(realFile)) continue;
        if (!this.within(plan, file, realFile)) continue;
        this.seenPluginSkill.add(realFile);
        const facts = fileFacts(realFile);
        if (facts === null) continue;
        const fmName = facts.name ? (facts.name.startsWith(`${plan.name}:`) ? facts.name.slice(plan.name.length + 1) : facts.name) : undefined;
        const name = pluginSkillName(folder ?? (fmName || basename(s.path)));
        const qualified = `${plan.name}:${name}`;
        const info = this.entry({
          file, realFile, name, qualified, kind: "skill", source, plugin: plan.name, facts,
          displayName: facts.name ? qualifyOnce(plan.name, facts.name) : undefined,
        });
        // A plugin's command and skill of one name (trailofbits/skills' skill-improver): 2.1.332 offers the name once,
        // with the command's description; 2.1.197 offers both (test/fixtures/skill-list/README.md).
        if (!info.hidden && this.skills.some((x) => x.kind === "command" && x.plugin === plan.name && x.qualifiedName === qualified && !x.hidden)) {
          info.hidden = SHADOWED;
        }
        this.skills.push(info);
      }
    }
  }
}

/**
 * Where an installed plugin is read from, and the folders its files must stay in: a local-directory marketplace's
 * plugin from that directory (Claude Code reads it there, not from its cache copy), any other from its install path
 * under `allowed`. Null (with a problem where it is one) when it is not read.
 */
function installedRoot(inst: Install, m: Marketplace | null, e: Record<string, unknown> | null, allowed: string[], config: string, problems: string[]): { root: string; anchors: string[] } | null {
  if (m?.kind === "directory" && m.location && typeof e?.source === "string") {
    const location = real(m.location);
    const root = location ? real(resolve(location, e.source)) : null;
    if (!location || !root || !isInside(location, root)) {
      problems.push(`${inst.id}: its folder in marketplace ${inst.marketplace} is missing or outside it, skipped`);
      return null;
    }
    return { root, anchors: [root, location] };
  }
  const root = real(inst.installPath);
  if (!root) return null;
  if (!allowed.some((a) => isInside(a, root))) {
    problems.push(`${inst.id}: install path outside ${config}/plugins, skipped`);
    return null;
  }
  return { root, anchors: [root] };
}

/**
 * Every skill and command Claude Code offers in the project at `cwd` (see the top of this file). `ownInSession`: this
 * plugin (`pluginRoot`) is loaded in the session (as `--plugin-dir` or installed), so it is listed and replaces an
 * installed plugin of its name; when false it is listed only where it is installed, like any other plugin.
 */
export function indexSkills(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  pluginRoot: string | null = ownPluginRoot(),
  home: string = homedir(),
  ownInSession = true,
): SkillIndex {
  const cwdReal = real(cwd) ?? resolve(cwd);
  const config = configDir(env);
  const { folders, top } = projectFolders(cwdReal, home);
  const walk = new SkillWalk(cwdReal, top);
  const problems = walk.problems;
  walk.scan("user", "skill", join(config, "skills"));
  for (const dir of folders) walk.scan("project", "skill", join(dir, ".claude", "skills"));
  for (const dir of folders) walk.scan("project", "command", join(dir, ".claude", "commands"));
  walk.scan("user", "command", join(config, "commands"));

  // This plugin, when it is also installed, is listed once (from where this helper runs). Not loaded in the session
  // (a checkout's helper started from a shell), it is neither listed nor replaces an installed plugin of its name.
  const ownRoot = pluginRoot && ownInSession ? real(pluginRoot) : null;
  let ownName: string | null = null;
  if (ownRoot) {
    const plan = planPlugin(ownRoot, "do", null, [ownRoot], problems);
    if (plan) {
      ownName = plan.name;
      walk.scanPlugin("plugin", plan);
    }
  }

  const allowed = [join(config, "plugins"), join(config, "skills")].map((p) => real(p) ?? p);
  const market = marketplaces(config, problems);
  for (const inst of installs(config, [cwdReal, top], problems)) {
    const m = market(inst.marketplace);
    const e = m?.entries.get(inst.plugin) ?? null;
    const at = installedRoot(inst, m, e, allowed, config, problems);
    if (!at || at.root === ownRoot) continue;
    const plan = planPlugin(at.root, inst.plugin, e, at.anchors, problems);
    // A plugin named like this one is replaced by it in the session (measured with --plugin-dir on both releases).
    if (plan && plan.name !== ownName) walk.scanPlugin("installed", plan);
  }

  return { skills: walk.skills, roots: walk.roots, problems };
}

export type Resolution =
  | { match: "exact" | "partial"; skill: SkillInfo }
  | { match: "ambiguous"; candidates: SkillInfo[] }
  | { match: "none" };

export interface ResolveContext {
  /** The working folder (real path), for relative paths. */
  cwd: string;
  /** The home folder, for `~`. */
  home: string;
}

/** A path-like query (`/`, `~` or `.md` in it) as an absolute path and its real path (when it exists). */
export function queryPath(query: string, ctx: ResolveContext): { abs: string; real: string | null } {
  const q = query.trim();
  const expanded = q === "~" ? ctx.home : q.startsWith("~/") ? join(ctx.home, q.slice(2)) : q;
  let abs = resolve(ctx.cwd, expanded);
  if (isDir(abs)) abs = join(abs, "SKILL.md");
  return { abs, real: real(abs) };
}

export function isPathQuery(query: string): boolean {
  const q = query.trim();
  return q.includes("/") || q.startsWith("~") || q.toLowerCase().endsWith(".md");
}

/**
 * Resolve a query: a path to a SKILL.md or command file (or its folder; relative, absolute or `~/…`, through links
 * or not) matches that file. A name matches, ignoring case, first the name Claude Code lists and invokes
 * (qualifiedName), then a name within its plugin or the frontmatter name (name, displayName, displayName without its
 * plugin), then a part of qualifiedName or displayName. At each step one match resolves and several are ambiguous (the lead asks the user with the
 * candidates); nothing at any step is none.
 */
export function resolveSkill(query: string, skills: readonly SkillInfo[], ctx: ResolveContext = { cwd: process.cwd(), home: homedir() }): Resolution {
  const q = query.trim().toLowerCase();
  if (q === "") return { match: "none" };
  if (isPathQuery(query)) {
    const { abs, real: r } = queryPath(query, ctx);
    const hits = skills.filter((s) => {
      const p = resolve(ctx.cwd, s.path);
      const rp = resolve(ctx.cwd, s.realPath ?? s.path);
      return p === abs || rp === abs || (r !== null && (p === r || rp === r));
    });
    if (hits.length === 1) return { match: "exact", skill: hits[0] };
    if (hits.length > 1) return { match: "ambiguous", candidates: hits };
  }
  // A name as the user types it in Claude Code, `/do:work`: the slash is not part of the name (no file by that path).
  const name = /^\/[^/\s]+$/.test(query.trim()) ? q.slice(1) : q;
  // A skill shadowed by its plugin's command of the same name is not a second candidate for that name.
  const unshadowed = (hits: SkillInfo[]) => (hits.length > 1 && hits.some((h) => h.hidden !== SHADOWED) ? hits.filter((h) => h.hidden !== SHADOWED) : hits);
  const tiers: Array<(s: SkillInfo) => string[]> = [
    (s) => [s.qualifiedName],
    (s) => [s.name, s.displayName ?? "", bareDisplay(s)],
  ];
  for (const names of tiers) {
    const hits = unshadowed(skills.filter((s) => names(s).some((n) => n !== "" && n.toLowerCase() === name)));
    if (hits.length === 1) return { match: "exact", skill: hits[0] };
    if (hits.length > 1) return { match: "ambiguous", candidates: hits };
  }
  const partial = unshadowed(skills.filter((s) => [s.qualifiedName, s.displayName ?? ""].some((n) => n !== "" && n.toLowerCase().includes(name))));
  if (partial.length === 1) return { match: "partial", skill: partial[0] };
  if (partial.length > 1) return { match: "ambiguous", candidates: partial };
  return { match: "none" };
}

export interface SkillHit {
  name: string;
  qualifiedName: string;
  description: string;
  score: number;
  source: SkillSource;
  path: string;
}

/** Lowercase words of two or more letters or digits (skill names are short: "qa", "db"). */
function words(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length >= 2);
}

/**
 * Seed 002's skill search over names and descriptions, with a score and a limit: each query word scores 1 when
 * the skill's name (or plugin-qualified name) holds it, else 0.5 when its description does; the score is the mean
 * over the query's distinct words (1 for a name equal to the whole query). Skills scoring 0 are left out; the
 * rest come best first, ties by qualified name. `count` is how many scored above 0.
 */
export function searchSkills(query: string, skills: readonly SkillInfo[], limit: number): { skills: SkillHit[]; count: number } {
  const q = [...new Set(words(query))];
  if (q.length === 0) return { skills: [], count: 0 };
  const whole = query.trim().toLowerCase();
  const hits: SkillHit[] = [];
  for (const s of skills) {
    if (s.hidden === SHADOWED) continue;
    const name = s.qualifiedName.toLowerCase();
    const desc = new Set(words(s.description));
    let sum = 0;
    for (const w of q) sum += name.includes(w) ? 1 : desc.has(w) ? 0.5 : 0;
    const score = s.name.toLowerCase() === whole || name === whole ? 1 : Math.round((sum / q.length) * 1000) / 1000;
    if (score > 0) hits.push({ name: s.name, qualifiedName: s.qualifiedName, description: s.description, score, source: s.source, path: s.path });
  }
  hits.sort((a, b) => b.score - a.score || (a.qualifiedName < b.qualifiedName ? -1 : a.qualifiedName > b.qualifiedName ? 1 : 0));
  return { skills: hits.slice(0, limit), count: hits.length };
}

/** The frontmatter name without its plugin prefix ("" when there is none). */
function bareDisplay(s: SkillInfo): string {
  if (!s.displayName) return "";
  return s.plugin && s.displayName.startsWith(`${s.plugin}:`) ? s.displayName.slice(s.plugin.length + 1) : s.displayName;
}

/** A SKILL.md inside the working folder that Claude Code does not load, named by a path query (improve's target). */
export function unlistedProjectSkill(query: string, ctx: ResolveContext): SkillInfo | null {
  if (!isPathQuery(query)) return null;
  const { abs, real: r } = queryPath(query, ctx);
  if (!r || basename(r) !== "SKILL.md" || !isInside(ctx.cwd, r) || !isFile(r)) return null;
  const facts = fileFacts(r);
  if (!facts) return null;
  const name = basename(dirname(abs));
  const path = isInside(ctx.cwd, abs) ? relative(ctx.cwd, abs) : abs;
  const realPath = relative(ctx.cwd, r);
  return {
    qualifiedName: name,
    name,
    ...(facts.name && facts.name !== name ? { displayName: facts.name } : {}),
    kind: "skill",
    source: "project",
    plugin: null,
    path,
    ...(realPath !== path ? { realPath } : {}),
    inProject: true,
    description: cut(facts.description ?? ""),
    hidden: "not a folder Claude Code loads skills from",
  };
}

/** The feature file of a skill (seed 004's skill.json beside its SKILL.md). */
export const FEATURE_FILE = "skill.json";

/**
 * A skill's feature file, in the same form as its `path` (relative inside the working folder, else absolute), or
 * null when there is none. A stat only: /do:improve's lead reads the file with its own Read tool.
 */
export function featureFile(skill: SkillInfo, cwdReal: string): string | null {
  if (skill.kind !== "skill") return null;
  const abs = isAbsolute(skill.path) ? skill.path : resolve(cwdReal, skill.path);
  const file = join(dirname(abs), FEATURE_FILE);
  if (!isFile(file)) return null;
  return isAbsolute(skill.path) ? file : relative(cwdReal, file);
}
