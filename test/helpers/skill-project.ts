// The project and HOME that skill-find and Claude Code are compared on (test/e2e/skill-list.test.ts with the real
// CLI, test/commands/skill-list.test.ts with its recorded answer). Real collections come from
// test/fixtures/skill-list/ (README there: where each file came from); the project around them holds the cases the
// issue named: a parent folder's skills seen from a subfolder, a folder named unlike its frontmatter, a skill folder
// reached through a link, a SKILL.md linked from outside the project, commands, and a skill above the git root.
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export const FIXTURE = resolve(__dirname, "../fixtures/skill-list");
export const MARKETPLACES = join(FIXTURE, "marketplaces");
/** The plugins the fixture HOME has installed, as `claude plugin install` names them. */
export const INSTALLS = [
  "example-skills@agent-skills-sample",
  "claude-api@agent-skills-sample",
  "superpowers@superpowers-dev",
  "accessibility-compliance@claude-code-workflows",
  "debugging-toolkit@claude-code-workflows",
  "do@do",
  "skill-improver@trailofbits-sample",
];

const skill = (name: string, description: string, extra = "") => `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n# ${name}\n\nBody.\n`;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

export interface SkillProject {
  /** The git root. */
  root: string;
  /** Where the session starts: a subfolder of the root with skills of its own. */
  cwd: string;
  /** The file `.claude/skills/borrowed/SKILL.md` links to, outside the project. */
  outsideFile: string;
}

/**
 * The project under `parent` (which also gets a skill above the git root and the linked-to file), and the user's
 * skill and command in `home`. `git` makes the root a repository (the CLI needs one; skill-find only looks for
 * `.git`).
 */
export function skillProject(parent: string, home: string, git: (dir: string) => void): SkillProject {
  const root = join(parent, "proj");
  const cwd = join(root, "app");
  write(join(parent, ".claude/skills/above-root/SKILL.md"), skill("above-root", "Use when above the git root (never listed)"));
  const outsideFile = join(parent, "elsewhere/shared-skill/SKILL.md");
  write(outsideFile, skill("shared-skill", "Use when a skill lives outside the project"));

  write(join(root, ".claude/skills/greet/SKILL.md"), skill("greet", "Use when the user wants a greeting."));
  // superpowers' brainstorming SKILL.md, in a folder named otherwise: Claude Code lists it as `ideas`.
  write(join(root, ".claude/skills/ideas/SKILL.md"), readFileSync(join(MARKETPLACES, "superpowers-dev/skills/brainstorming/SKILL.md"), "utf8"));
  write(join(root, ".claude/skills/manual-only/SKILL.md"), skill("manual-only", "Use when the user types it", "disable-model-invocation: true\n"));
  write(join(root, "vendor/skills/linked-real/SKILL.md"), skill("linked-real", "Use when reached through a linked folder"));
  mkdirSync(join(root, ".claude/skills"), { recursive: true });
  symlinkSync("../../vendor/skills/linked-real", join(root, ".claude/skills/linked"));
  mkdirSync(join(root, ".claude/skills/borrowed"), { recursive: true });
  symlinkSync(outsideFile, join(root, ".claude/skills/borrowed/SKILL.md"));
  write(join(root, ".claude/commands/release-notes.md"), "---\ndescription: Draft release notes from the merged changes\n---\n\nDraft them.\n");
  write(join(root, ".claude/commands/ops/deploy.md"), "---\ndescription: Deploy the app\n---\n\nDeploy.\n");
  write(join(root, ".claude/commands/plain.md"), "Summarise the open issues.\n");
  write(join(cwd, ".claude/skills/app-local/SKILL.md"), skill("app-local", "Use when working on the app folder"));
  write(join(cwd, "index.js"), "module.exports = {};\n");
  git(root);

  write(join(home, ".claude/skills/user-notes/SKILL.md"), skill("user-notes", "Use when taking the user's notes"));
  write(join(home, ".claude/commands/standup.md"), "---\ndescription: Write today's standup\n---\n\nWrite it.\n");
  return { root, cwd, outsideFile };
}

/**
 * The snapshot of `<config>/plugins` that Claude Code wrote (test/fixtures/skill-list/home), copied into `config`
 * with its placeholders filled: `${CONFIG}` the config folder, `${MARKETPLACES}` the fixture marketplaces.
 */
export function installSnapshot(config: string, marketplaces = MARKETPLACES): void {
  const from = join(FIXTURE, "home");
  cpSync(from, config, { recursive: true });
  for (const name of ["installed_plugins.json", "known_marketplaces.json"]) {
    const p = join(config, "plugins", name);
    writeFileSync(p, readFileSync(p, "utf8").replaceAll("${CONFIG}", config).replaceAll("${MARKETPLACES}", marketplaces));
  }
}

/** Marketplace names of the fixture (its folders). */
export function marketplaceNames(): string[] {
  return readdirSync(MARKETPLACES).sort();
}
