// team-name: a project-unique Agent Teams name for a skill (contract 4.1). The name joins the skill text, a
// slug of the working directory's last component and the first 6 hex digits of the MD5 of its full path.
import { defineCommand } from "../../lib/command/command.js";
import { teamNameFor } from "../../lib/workspace/team-name.js";

export default defineCommand({
  positionals: [{ name: "skill", help: "skill name, used verbatim (design, execute, ...)" }],
  flags: {},
  run(ctx, args) {
    return { teamName: teamNameFor(args.skill as string, ctx.cwd) };
  },
});
