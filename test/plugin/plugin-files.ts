// Shared readers for the plugin tests: skills, commands, refs, frontmatter, and the helper invocations written in
// the prompts. Pure file reading; nothing here runs a model or the helper.
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import matter from "gray-matter";

export const ROOT = resolve(__dirname, "../..");
export const SKILLS = ["design", "execute", "recon", "improve", "reflect"] as const;
export type SkillName = (typeof SKILLS)[number];

export interface PromptFile {
  /** Path relative to the repository root. */
  rel: string;
  kind: "skill" | "command";
  /** Skill name, or the command's file name without .md. */
  name: string;
  raw: string;
  data: Record<string, unknown>;
  body: string;
}

function load(rel: string, kind: PromptFile["kind"], name: string): PromptFile {
  const raw = readFileSync(join(ROOT, rel), "utf8");
  const parsed = matter(raw);
  return { rel, kind, name, raw, data: parsed.data as Record<string, unknown>, body: parsed.content };
}

export function skillFiles(): PromptFile[] {
  return SKILLS.map((s) => load(`skills/${s}/SKILL.md`, "skill", s));
}

export function commandFiles(): PromptFile[] {
  const dir = join(ROOT, "commands");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => load(`commands/${f}`, "command", f.slice(0, -3)));
}

/** Skill folders actually present under skills/ (to catch a sixth, unlisted skill). */
export function skillDirs(): string[] {
  return readdirSync(join(ROOT, "skills"), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

export function refFiles(skill: string): string[] {
  const dir = join(ROOT, "skills", skill, "refs");
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith(".md")).sort();
}

export function readRef(skill: string, file: string): string {
  return readFileSync(join(ROOT, "skills", skill, "refs", file), "utf8");
}

export function isSymlink(rel: string): boolean {
  return lstatSync(join(ROOT, rel)).isSymbolicLink();
}

/** allowed-tools as a list, whether written as a comma-separated string or a YAML list. */
export function allowedTools(data: Record<string, unknown>): string[] {
  const v = data["allowed-tools"];
  if (Array.isArray(v)) return v.map(String).map((s) => s.trim());
  if (typeof v === "string") return v.split(",").map((s) => s.trim()).filter(Boolean);
  return [];
}

/**
 * Whether Edit(...) rules in allowed-tools let the Write and Edit tools touch a project-relative path without asking
 * (Claude Code applies Edit rules to every file-editing tool). `**` matches across folders, `*` within one.
 */
export function editAllowed(rules: readonly string[], path: string): boolean {
  return rules.some((rule) => {
    if (rule === "Edit" || rule === "Write") return true;
    const m = /^Edit\((?:\.\/)?(.+)\)$/.exec(rule);
    if (!m) return false;
    const re = m[1]
      .split(/(\*\*|\*)/)
      .map((part) => (part === "**" ? ".*" : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
      .join("");
    return new RegExp(`^${re}$`).test(path);
  });
}

/** The !`…` lines Claude Code runs before the model reads the file (its own pattern, inline code blanked first). */
export function injectedCommands(text: string): string[] {
  const blanked = text.replace(/`[^`\n]+`/g, (m, offset: number) => {
    const before = text[offset - 1];
    return before === "!" || before === "`" ? m : "`" + " ".repeat(m.length - 2) + "`";
  });
  const out: string[] = [];
  for (const m of blanked.matchAll(/(?<=^|\s)!`([^`]+)`/gm)) out.push(m[1]);
  for (const m of text.matchAll(/```!\s*\n?([\s\S]*?)\n?```/g)) out.push(m[1]);
  return out;
}

export interface Invocation {
  file: string;
  line: number;
  /** The text from `node` to the end of the shell segment, as written. */
  text: string;
  command: string | undefined;
  argv: string[];
  /** Input arrives through a pipe before `node` or a `<` redirect after it. */
  hasStdin: boolean;
  /** Which path form the call uses. */
  via: "CLAUDE_SKILL_DIR" | "CLAUDE_PLUGIN_ROOT";
}

const CALL = /node "\$\{(CLAUDE_SKILL_DIR|CLAUDE_PLUGIN_ROOT)\}\/(?:scripts|dist)\/plan\.js"/g;

/**
 * Split one shell segment into words: single and double quotes, backslash escapes; stops at an unquoted
 * `|`, `;`, `&`, `<`, `>`, a `#` that starts a word, or a backtick (end of an inline code span).
 * Returns the words and the character that stopped it.
 */
export function shellWords(s: string): { words: string[]; stop: string } {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  let i = 0;
  const flush = () => {
    if (inWord) words.push(cur);
    cur = "";
    inWord = false;
  };
  while (i < s.length) {
    const c = s[i];
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated single quote in: ${s}`);
      cur += s.slice(i + 1, end);
      inWord = true;
      i = end + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') {
        if (s[j] === "\\" && j + 1 < s.length) {
          cur += s[j + 1];
          j += 2;
          continue;
        }
        cur += s[j];
        j++;
      }
      if (j >= s.length) throw new Error(`unterminated double quote in: ${s}`);
      inWord = true;
      i = j + 1;
      continue;
    }
    if (c === "\\" && i + 1 < s.length) {
      cur += s[i + 1];
      inWord = true;
      i += 2;
      continue;
    }
    if (c === " " || c === "\t") {
      flush();
      i++;
      continue;
    }
    if ("|;&<>`".includes(c) || (c === "#" && !inWord)) {
      flush();
      return { words, stop: c };
    }
    cur += c;
    inWord = true;
    i++;
  }
  flush();
  return { words, stop: "" };
}

/** Every helper call written in a prompt file: fenced blocks, inline code and !-lines alike. */
export function invocations(file: PromptFile): Invocation[] {
  const out: Invocation[] = [];
  const lines = file.raw.split("\n");
  lines.forEach((lineText, idx) => {
    // A permission rule naming the helper (execute's allowed-tools) is not a call.
    if (lineText.startsWith("allowed-tools:")) return;
    for (const m of lineText.matchAll(CALL)) {
      const start = m.index ?? 0;
      const rest = lineText.slice(start + m[0].length);
      const { words, stop } = shellWords(rest);
      // Input redirected after the call, e.g. `… reflection-add … < .design/tmp/eval.json`.
      const redirected = stop === "<";
      // Input piped in before the call, within the same code span or line: `echo '…' | node …`.
      const before = lineText.slice(0, start);
      const spanStart = before.lastIndexOf("`") + 1;
      const piped = /\|\s*$/.test(before.slice(spanStart));
      out.push({
        file: file.rel,
        line: idx + 1,
        text: lineText.slice(start).split("`")[0],
        command: words[0],
        argv: words.slice(1),
        hasStdin: redirected || piped,
        via: m[1] as Invocation["via"],
      });
    }
  });
  return out;
}

/** Rough token estimate used as a guard in the suite (about four characters per token). */
export function approxTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export interface PhaseSection {
  /** The number in `## N. Name`. */
  n: number;
  title: string;
  /** The phase's name in the run state: the title in kebab-case (`Reflect and report` → `reflect-and-report`). */
  name: string;
  /** 1-based line of the heading in the raw file. */
  line: number;
  /** 1-based line of the last line of the section (before the next `## ` heading). */
  endLine: number;
  text: string;
}

export function phaseName(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

/** The `## N. Name` phases of a skill, in file order; each ends where the next `## ` heading starts. */
export function phaseSections(file: PromptFile): PhaseSection[] {
  const lines = file.raw.split("\n");
  const heads = lines.flatMap((l, i) => (/^## /.test(l) ? [i] : []));
  const out: PhaseSection[] = [];
  heads.forEach((start, k) => {
    const m = /^## (\d+)\. (.+)$/.exec(lines[start]);
    if (!m) return;
    const end = k + 1 < heads.length ? heads[k + 1] : lines.length;
    out.push({
      n: Number(m[1]),
      title: m[2].trim(),
      name: phaseName(m[2]),
      line: start + 1,
      endLine: end,
      text: lines.slice(start, end).join("\n"),
    });
  });
  return out;
}

/** The value of `--flag` in an invocation's argv, or undefined. */
export function flagValue(inv: Invocation, flag: string): string | undefined {
  const i = inv.argv.indexOf(flag);
  return i >= 0 ? inv.argv[i + 1] : undefined;
}
