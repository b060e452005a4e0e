// The helper calls the skills and commands write, as a lead types them: used by the hook's attacker table, its
// property tests (which must approve exactly these and the sequences built from them) and its variant corpus.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "../..");

/** Every helper call in a SKILL.md (inline code spans and the Script Setup block). */
export function writtenCalls(skill: string, root = ROOT): string[] {
  const raw = readFileSync(join(root, "skills", skill, "SKILL.md"), "utf8");
  const out: string[] = [];
  for (const line of raw.split("\n")) {
    if (line.startsWith('node "${CLAUDE_SKILL_DIR}/scripts/plan.js"')) out.push(line);
    for (const m of line.matchAll(/`([^`]*\$\{CLAUDE_SKILL_DIR\}\/scripts\/plan\.js"[^`]*)`/g)) out.push(m[1]);
  }
  return out;
}

/** Every helper call in commands/*.md (the views' !-lines and /do:remember's calls), as written. */
export function commandCalls(): string[] {
  const out: string[] = [];
  for (const f of readdirSync(join(ROOT, "commands")).filter((n) => n.endsWith(".md")).sort()) {
    const raw = readFileSync(join(ROOT, "commands", f), "utf8");
    for (const m of raw.matchAll(/`(node "\$\{CLAUDE_PLUGIN_ROOT\}\/dist\/plan\.js"[^`]*)`/g)) out.push(m[1]);
  }
  return [...new Set(out)];
}

/** A written call as the lead would run it: ${CLAUDE_SKILL_DIR} substituted, {placeholders} filled with plausible values. */
export function filled(call: string, skill: string, root = ROOT): string {
  return call
    .replaceAll("${CLAUDE_SKILL_DIR}", join(root, "skills", skill))
    .replaceAll("${CLAUDE_PLUGIN_ROOT}", root)
    .replaceAll("{skill}", "execute")
    .replaceAll("{archived-plan}", ".design/history/20260101T000000Z/plan.json")
    .replaceAll("{target path}", ".claude/skills/greet/SKILL.md")
    .replaceAll("{k1,k2}", "api,auth")
    .replace(/\{([^{}|]*)\|[^{}]*\}/g, "$1")
    .replace(/\{[^{}]*\}/g, "api");
}

/** execute's one call the user is asked about, exactly as SKILL.md writes it (substituted). */
export function approveCall(root = ROOT): string {
  const raw = readFileSync(join(root, "skills", "execute", "SKILL.md"), "utf8");
  const calls = [...raw.matchAll(/`(node "\$\{CLAUDE_SKILL_DIR\}\/scripts\/grant-approve\.js"[^`]*)`/g)].map((m) => m[1]);
  if (calls.length !== 1) throw new Error(`execute's SKILL.md writes ${calls.length} grant-approve.js calls, expected 1`);
  return calls[0].replaceAll("${CLAUDE_SKILL_DIR}", join(root, "skills", "execute"));
}
