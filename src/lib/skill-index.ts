// Skill discovery and name resolution for skill-find (seed 004's use-skill list/find, seed 002's skill search).
//
// Where skills live (Claude Code 2.1.330, checked by installing a throwaway plugin into a scratch HOME):
// - the project: `<cwd>/.claude/skills/<name>/SKILL.md`, and `<cwd>/skills/<name>/SKILL.md` when the project is
//   itself a plugin or a skill collection;
// - the user: `<config>/skills/<name>/SKILL.md` (`<config>` is `$CLAUDE_CONFIG_DIR` or `~/.claude`); a folder there
//   may also be a whole plugin (`claude plugin init` → `<name>@skills-dir`), whose root SKILL.md is found the same way;
// - this plugin: `<plugin root>/skills/<name>/SKILL.md`, the root being the folder above dist/ (found by walking up
//   from this file to `.claude-plugin/plugin.json`);
// - installed plugins: `<config>/plugins/installed_plugins.json` (version 2): `plugins["<plugin>@<marketplace>"]` is
//   a list of installs `{scope: user|project|local, installPath, version, projectPath?}`; the files are copied to
//   `<config>/plugins/cache/<marketplace>/<plugin>/<version>/`. A plugin's skills are in `skills/` and in the
//   folders its `.claude-plugin/plugin.json` names under `skills` (a string or a list, e.g. `["./"]`). A project or
//   local install counts only for the project it was made in (`projectPath`).
//
// Reads outside the project (the one documented exception to "the helper reads only inside the project"): only
// files named SKILL.md under those roots (the first FRONTMATTER_BYTES bytes, for `name` and `description`),
// installed_plugins.json, and each installed plugin's own plugin.json (its `skills` key); for a resolved skill, a
// stat of the feature file beside its SKILL.md (FEATURE_FILE, never read here). An install path must lie
// under `<config>/plugins/` or `<config>/skills/`, and a plugin's skill folders inside its install path, so an edited
// installed_plugins.json cannot point the helper anywhere else. Settings files are never read (they may hold
// secrets), so whether an installed plugin is enabled is not known here. Nothing is written.
import { closeSync, existsSync, readSync, readdirSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { isObject } from "./values.js";
import { openRegular, readSmallText } from "./safe-read.js";

/**
 * A skill's feature file beside its SKILL.md (seed 004): goal, acceptance criteria and features with Given-When-Then
 * scenarios. Claude Code does not read it; /do:improve's analysts score the skill's prose against it.
 */
export const FEATURE_FILE = "skill.json";

/** Enough for any real frontmatter; the rest of a SKILL.md is never read. */
export const FRONTMATTER_BYTES = 8192;
/** plugin.json and installed_plugins.json: read only when regular files of at most this size. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Descriptions are cut to this many characters in answers (they land in the lead's context). */
export const DESCRIPTION_CHARS = 200;

export type SkillSource = "project" | "user" | "plugin" | "installed";

export interface SkillInfo {
  name: string;
  /** `<plugin>:<name>` for plugin skills (how Claude Code names them), else the name. */
  qualifiedName: string;
  source: SkillSource;
  plugin: string | null;
  /** Project-relative for files inside the project, absolute otherwise. */
  path: string;
  inProject: boolean;
  description: string;
  /** A resolved skill only (skill-find): its feature file (FEATURE_FILE), or null when it has none. */
  features?: string | null;
}

export interface SkillRoot {
  source: SkillSource;
  plugin: string | null;
  path: string;
  exists: boolean;
}

function isInside(parent: string, child: string): boolean {
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

/** The first bytes of a regular file named SKILL.md, or null. */
function readHead(path: string): string | null {
  let fd: number | undefined;
  try {
    // Any size (only the head is read), but a regular file: a FIFO named SKILL.md must not block the call.
    const o = openRegular(path, Number.MAX_SAFE_INTEGER);
    if (!o.ok) return null;
    fd = o.fd;
    const buf = Buffer.alloc(FRONTMATTER_BYTES);
    const n = readSync(fd, buf, 0, FRONTMATTER_BYTES, 0);
    return buf.subarray(0, n).toString("utf8");
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function unquote(v: string): string {
  const t = v.trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) {
    if (t.startsWith('"')) {
      try {
        return JSON.parse(t) as string;
      } catch {
        return t.slice(1, -1);
      }
    }
    return t.slice(1, -1).replace(/''/g, "'");
  }
  return t;
}

/**
 * `name` and `description` of a YAML frontmatter block (top-level scalar keys only): plain, quoted, folded
 * continuation lines and `>` / `|` blocks. Anything fancier reads as absent and the folder name is used.
 */
export function parseFrontmatter(text: string): { name?: string; description?: string } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  if (lines[0]?.trim() !== "---") return {};
  const out: Record<string, string> = {};
  let key: string | null = null;
  let parts: string[] = [];
  let block = false;
  const flush = () => {
    if (key) out[key] = block ? parts.join(" ").trim() : unquote(parts.join(" "));
    key = null;
    parts = [];
    block = false;
  };
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === "---" || line.trim() === "...") {
      flush();
      return { name: out.name || undefined, description: out.description || undefined };
    }
    const m = /^([A-Za-z0-9_-]+):(.*)$/.exec(line);
    if (m) {
      flush();
      if (m[1] === "name" || m[1] === "description") {
        key = m[1];
        const v = m[2].trim();
        if (/^[>|][-+]?$/.test(v)) block = true;
        else parts.push(v);
      }
      continue;
    }
    if (key && (/^\s/.test(line) || line.trim() === "")) parts.push(line.trim());
  }
  return {}; // no closing ---: not frontmatter
}

/** Skill folders of one root: each `<root>/<dir>/SKILL.md`, plus `<root>/SKILL.md` itself when `selfToo`. */
function scanRoot(root: string, selfToo: boolean): Array<{ dir: string; file: string }> {
  const found: Array<{ dir: string; file: string }> = [];
  if (selfToo && existsSync(join(root, "SKILL.md"))) found.push({ dir: root, file: join(root, "SKILL.md") });
  let names: string[];
  try {
    names = readdirSync(root).sort();
  } catch {
    return found;
  }
  for (const name of names) {
    if (name.startsWith(".")) continue;
    const file = join(root, name, "SKILL.md");
    if (existsSync(file)) found.push({ dir: join(root, name), file });
  }
  return found;
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

function pluginManifest(root: string): { name: string | null; skillDirs: string[] } {
  let doc: unknown;
  try {
    const r = readSmallText(join(root, ".claude-plugin", "plugin.json"), MAX_MANIFEST_BYTES);
    if (!r.ok) throw new Error(r.error);
    doc = JSON.parse(r.text);
  } catch {
    return { name: null, skillDirs: ["skills"] };
  }
  const name = isObject(doc) && typeof doc.name === "string" ? doc.name : null;
  const raw = isObject(doc) ? doc.skills : undefined;
  const extra = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw.filter((s): s is string => typeof s === "string") : [];
  return { name, skillDirs: ["skills", ...extra] };
}

interface PluginInstall {
  plugin: string;
  installPath: string;
}

/** Installs of other plugins that count for this project (user scope, or project/local scope made here). */
function installedPlugins(config: string, projectReal: string): { installs: PluginInstall[]; problems: string[] } {
  const problems: string[] = [];
  const file = join(config, "plugins", "installed_plugins.json");
  let doc: unknown;
  try {
    const r = readSmallText(file, MAX_MANIFEST_BYTES);
    if (!r.ok) throw Object.assign(new Error(r.error), r.reason === "missing" ? { code: "ENOENT" } : {});
    doc = JSON.parse(r.text);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") problems.push(`${file}: cannot be read as JSON`);
    return { installs: [], problems };
  }
  const plugins = isObject(doc) && isObject(doc.plugins) ? doc.plugins : {};
  const allowed = [join(config, "plugins"), join(config, "skills")].map((p) => real(p) ?? p);
  const installs: PluginInstall[] = [];
  for (const id of Object.keys(plugins).sort()) {
    const list = plugins[id];
    if (!Array.isArray(list)) continue;
    for (const inst of list) {
      if (!isObject(inst) || typeof inst.installPath !== "string") continue;
      const scope = inst.scope;
      if (scope !== "user" && !(typeof inst.projectPath === "string" && real(inst.projectPath) === projectReal)) continue;
      const path = real(inst.installPath);
      if (!path) continue;
      if (!allowed.some((a) => isInside(a, path))) {
        problems.push(`${id}: install path outside ${config}/plugins, skipped`);
        continue;
      }
      installs.push({ plugin: id.split("@")[0], installPath: path });
    }
  }
  return { installs, problems };
}

export interface SkillIndex {
  skills: SkillInfo[];
  roots: SkillRoot[];
  problems: string[];
}

/** Every skill visible from the project at `cwd`, deduplicated by real path (first source wins). */
export function indexSkills(cwd: string, env: NodeJS.ProcessEnv = process.env, pluginRoot: string | null = ownPluginRoot()): SkillIndex {
  const projectReal = real(cwd) ?? resolve(cwd);
  const config = configDir(env);
  const roots: SkillRoot[] = [];
  const skills: SkillInfo[] = [];
  const seen = new Set<string>();
  const problems: string[] = [];

  const addRoot = (source: SkillSource, plugin: string | null, path: string, opts: { selfToo?: boolean; within?: string } = {}) => {
    const exists = existsSync(path);
    roots.push({ source, plugin, path: displayPath(path, projectReal), exists });
    if (!exists) return;
    const rootReal = real(path);
    if (!rootReal || (opts.within && !isInside(opts.within, rootReal))) {
      problems.push(`${path}: outside its plugin, skipped`);
      return;
    }
    for (const { dir, file } of scanRoot(path, opts.selfToo === true)) {
      const fileReal = real(file);
      if (!fileReal || seen.has(fileReal)) continue;
      const head = readHead(fileReal);
      if (head === null) continue;
      seen.add(fileReal);
      const fm = parseFrontmatter(head);
      const name = fm.name ?? dir.split(sep).pop() ?? "";
      const description = (fm.description ?? "").replace(/\s+/g, " ").trim();
      skills.push({
        name,
        qualifiedName: plugin ? `${plugin}:${name}` : name,
        source,
        plugin,
        path: displayPath(fileReal, projectReal),
        inProject: isInside(projectReal, fileReal),
        description: description.length > DESCRIPTION_CHARS ? `${description.slice(0, DESCRIPTION_CHARS - 1)}…` : description,
      });
    }
  };

  addRoot("project", null, join(cwd, ".claude", "skills"));
  addRoot("project", null, join(cwd, "skills"));
  addRoot("user", null, join(config, "skills"));
  if (pluginRoot) {
    const own = pluginManifest(pluginRoot);
    const rootReal = real(pluginRoot) ?? pluginRoot;
    for (const d of own.skillDirs) addRoot("plugin", own.name ?? "do", resolve(pluginRoot, d), { selfToo: d !== "skills", within: rootReal });
  }
  const { installs, problems: p } = installedPlugins(config, projectReal);
  problems.push(...p);
  for (const inst of installs) {
    const m = pluginManifest(inst.installPath);
    for (const d of m.skillDirs) addRoot("installed", m.name ?? inst.plugin, resolve(inst.installPath, d), { selfToo: d !== "skills", within: inst.installPath });
  }
  return { skills, roots, problems };
}

function displayPath(p: string, projectReal: string): string {
  const r = real(p) ?? p;
  return isInside(projectReal, r) ? relative(projectReal, r) || "." : r;
}

export type Resolution =
  | { match: "exact" | "partial"; skill: SkillInfo }
  | { match: "ambiguous"; candidates: SkillInfo[] }
  | { match: "none" };

/**
 * Resolve a name (seed 004): exact → unique partial → ambiguous → not found. Exact: the name or the qualified
 * name (`plugin:name`), ignoring case. Partial: the query is a substring of the name or the qualified name. More
 * than one exact, or no exact and more than one partial → ambiguous (the lead asks the user with the candidates).
 * A query naming a SKILL.md path (or its folder) matches that file.
 */
export function resolveSkill(query: string, skills: readonly SkillInfo[]): Resolution {
  const q = query.trim().toLowerCase();
  if (q === "") return { match: "none" };
  const pathLike = q.includes("/") || q.endsWith(".md");
  if (pathLike) {
    const norm = q.replace(/^\.\//, "").replace(/\/skill\.md$/, "").replace(/\/$/, "");
    const hits = skills.filter((s) => s.path.toLowerCase().replace(/\/skill\.md$/, "") === norm);
    if (hits.length === 1) return { match: "exact", skill: hits[0] };
    if (hits.length > 1) return { match: "ambiguous", candidates: hits };
  }
  const exact = skills.filter((s) => s.name.toLowerCase() === q || s.qualifiedName.toLowerCase() === q);
  if (exact.length === 1) return { match: "exact", skill: exact[0] };
  if (exact.length > 1) return { match: "ambiguous", candidates: exact };
  const partial = skills.filter((s) => s.name.toLowerCase().includes(q) || s.qualifiedName.toLowerCase().includes(q));
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

/** The feature file beside a skill's SKILL.md (display path, like `path`), or null when it has none. */
export function featureFile(skill: SkillInfo, cwd: string): string | null {
  const projectReal = real(cwd) ?? resolve(cwd);
  const file = join(dirname(resolve(projectReal, skill.path)), FEATURE_FILE);
  try {
    if (!statSync(file).isFile()) return null;
  } catch {
    return null;
  }
  return displayPath(file, projectReal);
}
