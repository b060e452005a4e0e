// The plugin's prompt files as the CLI delivers them: substitution of ${CLAUDE_SKILL_DIR}, ${CLAUDE_PLUGIN_ROOT} and
// $ARGUMENTS, !-lines replaced by their output, and the helper calls the prompts spell out, filled in for a run.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import matter from "gray-matter";

export const SKILLS = ["design", "execute", "recon", "improve", "reflect"] as const;
export type SkillName = (typeof SKILLS)[number];

export interface Prompt {
  kind: "skill" | "command";
  name: string;
  /** Absolute path of the file. */
  file: string;
  /** What ${CLAUDE_SKILL_DIR} becomes: the skill's folder (commands: the commands folder). */
  dir: string;
  raw: string;
  data: Record<string, unknown>;
  body: string;
}

export function skillPrompt(pluginDir: string, name: string): Prompt {
  const file = join(pluginDir, "skills", name, "SKILL.md");
  const raw = readFileSync(file, "utf8");
  const m = matter(raw);
  return { kind: "skill", name, file, dir: join(pluginDir, "skills", name), raw, data: m.data, body: m.content };
}

export function commandNames(pluginDir: string): string[] {
  return readdirSync(join(pluginDir, "commands"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => f.slice(0, -3))
    .sort();
}

export function commandPrompt(pluginDir: string, name: string): Prompt {
  const file = join(pluginDir, "commands", `${name}.md`);
  const raw = readFileSync(file, "utf8");
  const m = matter(raw);
  return { kind: "command", name, file, dir: join(pluginDir, "commands"), raw, data: m.data, body: m.content };
}

/** The text with the CLI's substitutions applied (the !-lines stay as they are). */
export function substitute(text: string, p: Prompt, pluginDir: string, args: string): string {
  return text
    .replaceAll("${CLAUDE_SKILL_DIR}", p.dir)
    .replaceAll("${CLAUDE_PLUGIN_ROOT}", pluginDir)
    .replaceAll("$ARGUMENTS", args);
}

const BANG = /^!`(.*)`\s*$/;

export interface Delivery {
  /** Substituted body segments between !-lines that were not found, in order, in the delivered text. */
  missing: string[];
  /** The output that replaced each !-line, in order. */
  injected: string[];
  /** The delivered body: from the first segment's start to the last segment's end. */
  text: string;
}

/**
 * Find the prompt's body in the text the model received. Every line but the !-lines must arrive verbatim after
 * substitution; what stands between two segments is the output that replaced a !-line.
 */
export function delivery(p: Prompt, pluginDir: string, args: string, received: string): Delivery {
  const lines = substitute(p.body, p, pluginDir, args).replace(/^\n+/, "").replace(/\s+$/, "").split("\n");
  const segments: string[] = [];
  let cur: string[] = [];
  for (const line of lines) {
    if (BANG.test(line)) {
      segments.push(cur.join("\n"));
      cur = [];
    } else cur.push(line);
  }
  segments.push(cur.join("\n"));
  const missing: string[] = [];
  const injected: string[] = [];
  let at = -1;
  let start = -1;
  let end = -1;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i].trim();
    if (!seg) {
      // A prompt that starts or ends with a !-line: its output is the paragraph next to the body text.
      if (i === segments.length - 1 && i > 0 && at >= 0) injected.push(received.slice(at).split(/\n\s*\n/).find((x) => x.trim())?.trim() ?? "");
      continue;
    }
    const found = received.indexOf(seg, at < 0 ? 0 : at);
    if (found < 0) {
      missing.push(seg);
      continue;
    }
    if (i > 0 && !segments[i - 1].trim() && i - 1 === 0) {
      const paragraphs = received.slice(0, found).split(/\n\s*\n/).filter((x) => x.trim());
      const out = paragraphs[paragraphs.length - 1]?.trim() ?? "";
      injected.push(out);
      start = out ? received.lastIndexOf(out, found) : found;
    }
    if (start < 0) start = found;
    if (i > 0 && at >= 0) injected.push(received.slice(at, found).trim());
    at = found + seg.length;
    end = at;
  }
  return { missing, injected, text: start >= 0 ? received.slice(start, end) : "" };
}

/**
 * Helper calls written in a prompt: inline code spans and fenced lines that run scripts/plan.js (or dist/plan.js), and
 * execute's `scripts/grant-approve.js` (the one call the user is asked about: its command is `grant-approve`).
 */
export function writtenCalls(p: Prompt): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of p.body.split("\n")) {
    if (line.startsWith("```")) {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      if (/plan\.js"? /.test(line)) out.push(line.trim());
      continue;
    }
    if (BANG.test(line)) continue;
    for (const m of line.matchAll(/`([^`]+)`/g)) if (/\/(?:plan|grant-approve)\.js" /.test(m[1])) out.push(m[1]);
  }
  return out;
}

/** The helper command a written call runs: the word after plan.js, or `grant-approve` for that entry. */
export function callCommand(call: string): string {
  if (/\/grant-approve\.js"\s/.test(call)) return "grant-approve";
  return /plan\.js"\s+([a-z-]+)/.exec(call)?.[1] ?? "";
}

const PLACEHOLDER = /\{([a-zA-Z][^{}"]*)\}/g;

export interface CallFill {
  /** Values for {placeholders}; every placeholder of the chosen call must have one. A list fills repeats in order. */
  fill?: Record<string, string | string[]>;
  /** Replaces every `"roleIndex": 0` of an example payload. */
  roleIndex?: number;
  /** Replaces the example `--importance 6`, `--category pattern`... literally: [from, to] pairs. */
  replace?: [string, string][];
}

/**
 * The one call in the prompt that runs `command` (and contains every `contains` string), exactly as written, with
 * ${CLAUDE_SKILL_DIR} substituted and its placeholders filled. When several calls match and one of them is the bare
 * form every other one extends with flags (`archive .design` beside `archive .design --keep-plan`), that bare call is
 * the one; name a flag in `contains` to get another. Throws when there is not exactly one such call, or when a
 * placeholder is left: the scripted lead then no longer follows the skill.
 */
export function skillCall(p: Prompt, pluginDir: string, command: string, contains: string[] = [], fill: CallFill = {}): string {
  const all = writtenCalls(p).filter((c) => callCommand(c) === command && contains.every((s) => c.includes(s)));
  let unique = [...new Set(all)];
  const bare = unique.filter((c) => unique.every((o) => o === c || o.startsWith(`${c} `)));
  if (unique.length > 1 && bare.length === 1) unique = bare;
  if (unique.length !== 1) {
    throw new Error(`${p.name}: expected one written call of ${command} ${JSON.stringify(contains)}, found ${unique.length}: ${JSON.stringify(unique)}`);
  }
  let call = substitute(unique[0], p, pluginDir, "");
  for (const [from, to] of fill.replace ?? []) {
    if (!call.includes(from)) throw new Error(`${p.name}: ${command}: '${from}' not in ${call}`);
    call = call.replaceAll(from, to);
  }
  if (fill.roleIndex !== undefined) call = call.replaceAll(`"roleIndex": 0`, `"roleIndex": ${fill.roleIndex}`);
  const used = new Map<string, number>();
  call = call.replace(PLACEHOLDER, (whole, name: string) => {
    const v = fill.fill?.[name];
    const k = used.get(name) ?? 0;
    used.set(name, k + 1);
    const value = Array.isArray(v) ? v[k] : v;
    if (value === undefined) throw new Error(`${p.name}: ${command}: no value for placeholder ${whole} (#${k + 1}) in ${call}`);
    // Free text sits in single quotes in every written call; the skills write a `'` in it as `'\''`.
    return value.replaceAll("'", "'\\''");
  });
  return call;
}
