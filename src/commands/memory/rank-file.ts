// The best memories of a memory file for one or more queries, in one pass over the file: memory-search ranks for
// one query, `next` for each role it starts (its goal and scope). Lines in memory-add's own layout are scored from
// their regex captures and the entry object is built only for the few that make a ranking; other lines go through
// JSON.parse. Corrupt lines are skipped and counted.
import { scanJsonlFile } from "../../store.js";
import { fromCaptures, matchMemoryLine } from "./fast-line.js";
import { QueryGroup, Ranking, searchScores, searchScoresOfCaptures, type Scored } from "./scoring.js";

export type MemoryRanking = { kind: "ok"; ranked: Scored[][]; skipped: number } | { kind: "missing" } | { kind: "error"; detail: string };

/** Stands for "the line matched; its captures are in `matched`". */
const MATCHED: Record<string, unknown> = Object.freeze({});

/** Per query, the at most `limit` entries with a positive score, best first (ties in file order). */
export function rankMemoryFile(path: string, queries: ReadonlyArray<ReadonlySet<string>>, limit: number, nowSec: number): MemoryRanking {
  const rankings = queries.map(() => new Ranking(limit));
  // All the queries are scored in one search of each line (QueryGroup), not one search per query.
  const group = new QueryGroup(queries);
  const scores = new Float64Array(queries.length);
  // The captures pass through `matched` rather than a wrapper object per line.
  let matched: RegExpExecArray | null = null;
  const scan = scanJsonlFile(
    path,
    (entry) => {
      if (entry !== MATCHED) {
        searchScores(entry, group, nowSec, scores);
        for (let q = 0; q < queries.length; q++) rankings[q].offer(entry, scores[q]);
        return;
      }
      const m = matched as RegExpExecArray;
      searchScoresOfCaptures(m, group, nowSec, scores);
      let built: Record<string, unknown> | undefined;
      for (let q = 0; q < queries.length; q++) {
        if (rankings[q].wants(scores[q])) rankings[q].offer((built ??= fromCaptures(m)), scores[q]);
      }
    },
    (line) => ((matched = matchMemoryLine(line)) ? MATCHED : undefined),
  );
  if (scan.kind !== "ok") return scan;
  return { kind: "ok", ranked: rankings.map((r) => r.result()), skipped: scan.skipped };
}
