// The helper calls the skills and commands write, as the lead would run them: shared by the hook's suites
// (test/unit/permit.test.ts asserts each is approved, test/unit/permit-variants.test.ts decorates each).
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "../..");

/** Every helper call in a SKILL.md (inline code spans and the Script Setup block), with the text around it. */
export function writtenCalls(skill: string): string[] {
  const raw = readFileSync(join(ROOT, "skills", skill, "SKILL.md"), "utf8");
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
    .replaceAll("{target path}", ".design/skill-snapshot.md")
    .replaceAll("{k1,k2}", "api,auth")
    .replace(/\{([^{}|]*)\|[^{}]*\}/g, "$1")
    .replace(/\{[^{}]*\}/g, "api");
}
