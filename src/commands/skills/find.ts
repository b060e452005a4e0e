// skill-find: list the skills and commands Claude Code offers in this project, named as it names them, or resolve
// one query (a path, a name, part of a name). A query; never writes. The lead reads the file it names with its Read
// tool; the helper reads only frontmatter (see src/lib/skills/skill-index.ts for where it looks and the limits).
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { defineCommand } from "../../lib/command/command.js";
import {
  featureFile, indexSkills, ownPluginRoot, resolveSkill, searchSkills, startedBySession, unlistedProjectSkill, type SkillInfo,
} from "../../lib/skills/skill-index.js";
import { HelperError } from "../../base/errors.js";

/** How many skills a listing shows (the answer lands in the lead's context); `count` is always the full number. */
export const LIST_LIMIT = 60;

export default defineCommand({
  positionals: [{ name: "name", help: "skill name (as Claude Code lists it, plugin:name, or its folder or frontmatter name), part of one, or a path to a SKILL.md or command file (~ allowed); omit to list all", optional: true }],
  flags: {
    source: { type: "string", help: "list or resolve only skills from one source", choices: ["project", "user", "plugin", "installed"] },
    search: { type: "string", help: "rank the skills by how well their names and descriptions match these words" },
    limit: { type: "int", help: "most skills a search returns", default: 5 },
  },
  run(ctx, args) {
    // This plugin counts as loaded unless the helper was started otherwise than a session runs it (a checkout's
    // dist/plan.js from a shell): then an installed plugin of its name is what the session offers.
    const own = ownPluginRoot();
    const index = indexSkills(ctx.cwd, process.env, own, homedir(), ctx.entry === undefined || startedBySession(ctx.entry, own));
    const source = args.source as string | undefined;
    const skills = source ? index.skills.filter((s) => s.source === source) : index.skills;
    const listing = (list: readonly SkillInfo[]) => ({
      count: list.length,
      offered: list.filter((s) => !s.hidden).length,
      skills: list.slice(0, LIST_LIMIT),
      ...(list.length > LIST_LIMIT ? { truncated: list.length - LIST_LIMIT } : {}),
    });
    const query = args.name as string | undefined;
    const extra = { roots: index.roots, problems: index.problems };
    const limit = args.limit as number;
    if (limit < 1) throw new HelperError("E_USAGE", `skill-find: argument --limit: must be 1 or more, got ${limit}`);
    const search = args.search as string | undefined;
    if (search !== undefined) {
      if (query !== undefined) throw new HelperError("E_USAGE", "skill-find: give a name to resolve or --search words, not both");
      return { query: search, ...searchSkills(search, skills, limit), ...extra };
    }
    if (query === undefined || query.trim() === "") return { ...listing(skills), ...extra };
    let cwd = ctx.cwd;
    try {
      cwd = realpathSync(ctx.cwd);
    } catch {
      /* a missing working folder resolves nothing by path */
    }
    const where = { cwd, home: homedir() };
    const r = resolveSkill(query, skills, where);
    switch (r.match) {
      case "exact":
      case "partial":
        return { query, match: r.match, resolved: true, skill: { ...r.skill, features: featureFile(r.skill, cwd) }, ...extra };
      case "ambiguous":
        return {
          query, match: "ambiguous", resolved: false, candidates: r.candidates,
          advice: "Ask the user which one they mean (qualifiedName or path), then call skill-find again with it", ...extra,
        };
      default: {
        const unlisted = !source || source === "project" ? unlistedProjectSkill(query, where) : null;
        if (unlisted) return { query, match: "exact", resolved: true, skill: { ...unlisted, features: featureFile(unlisted, cwd) }, ...extra };
        return {
          query, match: "none", resolved: false, ...listing(skills), suggestions: searchSkills(query, skills, limit).skills,
          advice: "No skill matches by name: show the user the suggestions (ranked by name and description), or else the skills listed, and ask for one", ...extra,
        };
      }
    }
  },
});
