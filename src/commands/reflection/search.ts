// reflection-search: the latest reflections, optionally for one skill (contract 4.10). Read-only, no lock,
// no zod; entries come back verbatim, corrupt lines are skipped and counted in the added `skippedLines` key.
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError, usage } from "../../base/errors.js";
import { parseTimestamp, sortDesc } from "../../lib/values.js";
import { readJsonl } from "../../store.js";
import { REFLECTION_PATH } from "./evaluation.js";

export default defineCommand({
  positionals: [REFLECTION_PATH],
  flags: {
    skill: { type: "string", help: "only reflections of this skill (exact match)" },
    limit: { type: "int", help: "most reflections returned (>= 0)", default: 5 },
  },
  run(ctx, args) {
    const limit = args.limit as number;
    if (limit < 0) throw usage(`reflection-search: argument --limit: must be 0 or more, got ${limit}`);
    const file = readJsonl(resolve(ctx.cwd, args.reflection_path as string));
    if (file.kind === "missing") return { reflections: [], skippedLines: 0 };
    if (file.kind === "error") throw new HelperError("E_READ", `Error reading reflection file: ${file.detail}`);
    const skill = (args.skill as string | undefined) ?? "";
    let entries = file.entries.map((e) => e.value);
    if (skill !== "") entries = entries.filter((e) => e.skill === skill);
    const reflections = sortDesc(entries, (e) => parseTimestamp(e.timestamp)).slice(0, limit);
    return { reflections, skippedLines: file.skipped };
  },
});
