// memory-search: the memories most relevant to a goal, by keywords × recency × importance (contract 4.9).
// Read-only and started often, so it takes no lock and loads no zod. Corrupt lines are skipped and counted
// in the added `skippedLines` key.
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError, usage } from "../../base/errors.js";
import { parseTimestamp, pyRound } from "../../lib/values.js";
import { rankMemoryFile } from "./rank-file.js";
import { MEMORY_PATH, importanceOf, searchQuery } from "./scoring.js";

export default defineCommand({
  positionals: [MEMORY_PATH],
  flags: {
    goal: { type: "string", help: "goal text to match" },
    stack: { type: "string", help: "technology stack text to match" },
    keywords: { type: "string", help: "extra keywords text to match" },
    limit: { type: "int", help: "most memories returned (>= 0)", default: 5 },
  },
  run(ctx, args) {
    const limit = args.limit as number;
    if (limit < 0) throw usage(`memory-search: argument --limit: must be 0 or more, got ${limit}`);
    const nowSec = ctx.now() / 1000;
    const query = searchQuery([args.goal, args.stack, args.keywords]);
    if (query.size === 0) return { memories: [], skippedLines: 0 };
    const scan = rankMemoryFile(resolve(ctx.cwd, args.memory_path as string), [query], limit, nowSec);
    if (scan.kind === "missing") return { memories: [], skippedLines: 0 };
    if (scan.kind === "error") throw new HelperError("E_READ", `Error reading memory file: ${scan.detail}`);
    const ranked = scan.ranked[0];
    const memories = ranked.map(({ entry, score }) => ({
      id: entry.id ?? "",
      category: entry.category ?? "",
      keywords: entry.keywords ?? [],
      content: entry.content ?? "",
      source: entry.source ?? "",
      timestamp: parseTimestamp(entry.timestamp),
      goal_context: entry.goal_context ?? "",
      importance: importanceOf(entry),
      usage_count: entry.usage_count ?? 0,
      score: pyRound(score, 3),
    }));
    return { memories, skippedLines: scan.skipped };
  },
});
