// memory-review: every memory for a person to read, most important and newest first, optionally filtered by
// category and keyword (contract 4.11). Read-only, no lock, no zod; corrupt lines are counted in `skippedLines`.
// With --top N (seed 002's capped view, /do:memories): the N best by memory-search's score with nothing searched
// (recency × importance), each with its score, and `rest`, how many more matched.
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { parseTimestamp, pyRound, sortDesc } from "../../lib/values.js";
import { readJsonl } from "../../store.js";
import { MEMORY_PATH, importanceOf, keywordList, standingScore, type Entry } from "./scoring.js";

/** The local-time calendar date YYYY-MM-DD of epoch seconds, or "unknown" for 0 (and for dates JS cannot hold). */
export function localDate(ts: number): string {
  if (ts === 0) return "unknown";
  const d = new Date(ts * 1000);
  if (Number.isNaN(d.getTime())) return "unknown";
  const pad = (n: number, w: number) => String(n).padStart(w, "0");
  return `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1, 2)}-${pad(d.getDate(), 2)}`;
}

export default defineCommand({
  positionals: [MEMORY_PATH],
  flags: {
    category: { type: "string", help: "only this category" },
    keyword: { type: "string", help: "only memories with a keyword containing this text (any case)" },
    top: { type: "int", help: "only the N best by score (recency × importance), with the count of the rest" },
  },
  run(ctx, args) {
    const file = readJsonl(resolve(ctx.cwd, args.memory_path as string));
    if (file.kind === "missing") return { summary: "No memory file found", count: 0, memories: [], skippedLines: 0 };
    if (file.kind === "error") throw new HelperError("E_READ", `Error reading memory file: ${file.detail}`);
    const all = file.entries.map((e) => e.value);
    if (all.length === 0) return { summary: "No memories found", count: 0, memories: [], skippedLines: file.skipped };

    const category = (args.category as string | undefined) ?? "";
    const keyword = ((args.keyword as string | undefined) ?? "").toLowerCase();
    let picked: Entry[] = all;
    if (category !== "") picked = picked.filter((m) => m.category === category);
    if (keyword !== "") picked = picked.filter((m) => keywordList(m.keywords).some((k) => k.toLowerCase().includes(keyword)));
    const top = args.top as number | undefined;
    if (top !== undefined && top < 1) throw new HelperError("E_USAGE", `memory-review: argument --top: must be 1 or more, got ${top}`);
    const nowSec = ctx.now() / 1000;
    const matched = picked.length;
    const scores = new Map<Entry, number>();
    if (top !== undefined) {
      for (const m of picked) scores.set(m, standingScore(m, nowSec));
      picked = sortDesc(picked, (m) => [scores.get(m) as number, importanceOf(m), parseTimestamp(m.timestamp)]).slice(0, top);
    } else picked = sortDesc(picked, (m) => [importanceOf(m), parseTimestamp(m.timestamp)]);

    const memories = picked.map((m) => ({
      ...(top !== undefined ? { score: pyRound(scores.get(m) as number, 3) } : {}),
      id: m.id ?? "",
      category: m.category ?? "unknown",
      importance: importanceOf(m),
      usage_count: m.usage_count ?? 0,
      date: localDate(parseTimestamp(m.timestamp)),
      keywords: m.keywords ?? [],
      content: m.content ?? "",
      source: m.source ?? "",
    }));
    let summary = `Showing ${memories.length} of ${all.length} memories`;
    if (top !== undefined) summary += `, the top ${top} by relevance (recency × importance)`;
    if (category !== "") summary += ` (category: ${category})`;
    if (args.keyword) summary += ` (keyword: ${args.keyword as string})`;
    const rest = matched - memories.length;
    if (top !== undefined) summary += rest > 0 ? `; ${rest} more not shown` : "";
    return { summary, count: memories.length, total: all.length, ...(top !== undefined ? { rest } : {}), memories, skippedLines: file.skipped };
  },
});
