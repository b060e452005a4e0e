// sync-check: the protocol text that the five SKILL.md files share must stay identical (contract 4.15). Each
// shared block is found by its first match, normalised (skill names, wording that may differ), then compared.
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { readSmallText } from "../../base/safe-read.js";
import { join, resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";

export const SKILLS = ["design", "execute", "improve", "recon", "reflect"] as const;

const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

/** Script Setup: skill names become {SKILL}; the team-name assignment line is dropped. */
export function normalizeScriptSetup(text: string): string {
  const t = text
    .replace(/skills\/(design|execute|improve|recon|reflect)/g, "skills/{SKILL}")
    .replace(/team-name (design|execute|improve|recon|reflect)/g, "team-name {SKILL}")
    .replace(/TEAM_NAME=\$\((?:python3|node) \$PLAN_CLI team-name \{SKILL\}\)\.teamName\s*/g, "");
  return collapse(t);
}

/**
 * Liveness table: only the stalled and proceed rows count, their wording abstracted; a row that judges an agent by
 * counting the lead's turns drifts (liveness is the helper's clock: `--waiting` on the report checks).
 */
export function normalizeLiveness(text: string): string {
  let stalled = false;
  let proceed = false;
  let turns = false;
  for (const line of text.trim().split("\n")) {
    const l = line.trim();
    if (l.startsWith("| Stalled")) stalled = true;
    else if (l.startsWith("| Proceed with available")) proceed = true;
    if (/\b(\d+|two|three) (of your )?turns\b|of your turns|turn timeout/i.test(l)) turns = true;
  }
  const parts: string[] = [];
  if (stalled) parts.push("| Stalled | ACTION |");
  if (proceed) parts.push("| Proceed with available | After N attempts → proceed with artifacts |");
  if (turns) parts.push("| COUNTS TURNS |");
  return collapse(parts.join(" "));
}

/** Finalize fallback: the first two steps reduced to their intent; punctuation runs become one comma. */
export function normalizeFallback(text: string): string {
  const lines = text.trim().split("\n");
  if (lines.length < 2) return text;
  let [first, second] = lines;
  const a = first.toLowerCase();
  if (a.includes("error") && (a.includes("fix") || a.includes("read"))) first = "N. Fix validation errors and re-run finalize.";
  const b = second.toLowerCase();
  if (b.includes("broken") || b.includes("error")) second = "N. If structure broken: rebuild.";
  return collapse(`${first} ${second}`).replace(/[,;:]+/g, ",");
}

interface Block {
  name: string;
  /** The skills that must share it (default: all five). */
  skills?: readonly (typeof SKILLS)[number][];
  pattern: RegExp;
  normalize: (s: string) => string;
}

export const BLOCKS: readonly Block[] = [
  // The paragraph under the heading (it names no call: each run opens with run-begin, which checks health).
  { name: "Script Setup", pattern: /### Script Setup\n\n([\s\S]*?)\n\n/, normalize: normalizeScriptSetup },
  {
    name: "Liveness Pipeline Table",
    // execute judges its workers by `next`'s clock and its auxiliaries by the same `--waiting`: its table is its own.
    skills: ["design", "improve", "recon"],
    pattern: /\| Rule \| Action \|\n\|---\|---\|\n((?:\|[\s\S]*?\|\n)+)/,
    normalize: normalizeLiveness,
  },
  {
    name: "Finalize Fallback",
    pattern: /\*\*Fallback\*\* \(if finalize fails\):?\n((?:\d+\. [\s\S]*?\n)+)/,
    normalize: normalizeFallback,
  },
];

const hash8 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex").slice(0, 8);

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export default defineCommand({
  positionals: [{ name: "skills_dir", help: "skills directory", default: "skills/", path: "read" }],
  flags: {},
  run(ctx, args) {
    const given = args.skills_dir as string;
    const root = resolve(ctx.cwd, given);
    if (!isDirectory(root)) throw new HelperError("E_NOT_FOUND", `Skills directory not found: ${given}`);
    const texts = new Map<string, string>();
    for (const skill of SKILLS) {
      // A regular file of at most 4 MiB (a SKILL.md stays under 500 lines): a FIFO or a device is an error at once.
      const r = readSmallText(join(root, skill, "SKILL.md"), 4 * 1024 * 1024);
      if (!r.ok && r.reason === "missing") throw new HelperError("E_NOT_FOUND", `Missing SKILL.md for skill: ${skill}`);
      if (!r.ok) throw new HelperError("E_READ", `Error reading SKILL.md for skill ${skill}: ${r.error}`);
      const text = r.text;
      texts.set(skill, text.replace(/\r\n|\r/g, "\n"));
    }
    const synced: Record<string, unknown>[] = [];
    const drifted: Record<string, unknown>[] = [];
    for (const block of BLOCKS) {
      const found: Array<{ skill: string; text: string }> = [];
      for (const skill of block.skills ?? SKILLS) {
        const m = block.pattern.exec(texts.get(skill) as string);
        if (m) found.push({ skill, text: block.normalize(m[1]) });
      }
      const skills = found.map((f) => f.skill);
      if (found.length === 0) {
        drifted.push({ block: block.name, skills: [...(block.skills ?? SKILLS)], issue: "block not found in any skill file" });
      } else if (found.every((f) => f.text === found[0].text)) {
        synced.push({ block: block.name, skills, present_in: found.length });
      } else {
        drifted.push({ block: block.name, skills, drift: found.map((f) => ({ skill: f.skill, content_hash: hash8(f.text) })) });
      }
    }
    const result = { synced, drifted, skills_checked: [...SKILLS] };
    if (drifted.length) {
      throw new HelperError("E_INVALID", `drift detected in ${drifted.length} shared block(s)`, result);
    }
    return result;
  },
});
