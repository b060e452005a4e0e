// skill-find: list the skills visible from this project, or resolve one name the way seed 004's use-skill does
// (exact → unique partial → ambiguous → not found). A query; never writes. The lead reads the SKILL.md it names
// with its Read tool; the helper reads only frontmatter (see src/lib/skill-index.ts for the roots and the limits).
// A resolved skill also names its feature file (`features`, skill.json beside SKILL.md) or null: /do:improve's
// analysts score the prose against the features it declares.
import { defineCommand } from "../../lib/command.js";
import { featureFile, indexSkills, resolveSkill, searchSkills, type SkillInfo } from "../../lib/skill-index.js";
import { HelperError } from "../../lib/errors.js";

/** How many skills a listing shows (the answer lands in the lead's context); `count` is always the full number. */
export const LIST_LIMIT = 60;

export default defineCommand({
  positionals: [{ name: "name", help: "skill name, plugin:name, part of a name, or a path to a SKILL.md; omit to list all", optional: true }],
  flags: {
    source: { type: "string", help: "list or resolve only skills from one source", choices: ["project", "user", "plugin", "installed"] },
    search: { type: "string", help: "rank the skills by how well their names and descriptions match these words" },
    limit: { type: "int", help: "most skills a search returns", default: 5 },
  },
  run(ctx, args) {
    const index = indexSkills(ctx.cwd);
    const source = args.source as string | undefined;
    const skills = source ? index.skills.filter((s) => s.source === source) : index.skills;
    const listing = (list: readonly SkillInfo[]) => ({
      count: list.length,
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
    const r = resolveSkill(query, skills);
    switch (r.match) {
      case "exact":
      case "partial":
        return { query, match: r.match, resolved: true, skill: { ...r.skill, features: featureFile(r.skill, ctx.cwd) }, ...extra };
      case "ambiguous":
        return {
          query, match: "ambiguous", resolved: false, candidates: r.candidates,
          advice: "Ask the user which one they mean (qualifiedName or path), then call skill-find again with it", ...extra,
        };
      default:
        return {
          query, match: "none", resolved: false, ...listing(skills), suggestions: searchSkills(query, skills, limit).skills,
          advice: "No skill matches by name: show the user the suggestions (ranked by name and description), or else the skills listed, and ask for one", ...extra,
        };
    }
  },
});
