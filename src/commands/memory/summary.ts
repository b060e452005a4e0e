// memory-summary: the five memories shown to the user as "being injected", by the contract's simpler formula
// (substring matches × linear recency × importance, contract 4.23). Read-only, no lock, no zod; an unreadable
// file reads as "No memories found" (as the contract says), corrupt lines are counted in `skippedLines`.
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { pyRound, sortDesc } from "../../lib/values.js";
import { readJsonl } from "../../store.js";
import { MEMORY_PATH, importanceOf, summaryQuery, summaryScore } from "./scoring.js";

const SHOWN = 5;

export default defineCommand({
  positionals: [MEMORY_PATH],
  flags: {
    goal: { type: "string", help: "goal text; each whitespace-separated word is matched as a substring" },
  },
  run(ctx, args) {
    const file = readJsonl(resolve(ctx.cwd, args.memory_path as string));
    if (file.kind === "missing") return { summary: "No memory file found", count: 0, entries: [], skippedLines: 0 };
    const skippedLines = file.kind === "ok" ? file.skipped : 0;
    if (file.kind === "error" || file.entries.length === 0) {
      return { summary: "No memories found", count: 0, entries: [], skippedLines };
    }
    const nowSec = ctx.now() / 1000;
    const query = summaryQuery(args.goal);
    const scored = file.entries.map(({ value }) => ({ entry: value, score: summaryScore(value, query, nowSec) }));
    const top = sortDesc(scored, (s) => s.score).slice(0, SHOWN);
    return {
      summary: `Found ${scored.length} memories, showing top ${top.length}`,
      count: top.length,
      entries: top.map(({ entry, score }) => ({
        category: entry.category ?? "unknown",
        content: entry.content ?? "",
        importance: importanceOf(entry),
        score: pyRound(score, 2),
      })),
      skippedLines,
    };
  },
});
