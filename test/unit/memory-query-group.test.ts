// QueryGroup (scoring.ts): `next` scores every role's query on a memory in one search of its texts. Each query's score
// must equal memory-search's searchScore / searchScoreOfCaptures for that query alone, on memories and queries made to
// hit the tokenizer's corners: compounds (node.js, github-actions), flags (--from), numbers, stems, case, non-ASCII
// text, escapes in the line, empty and missing fields, queries of more than 30 tokens and empty ones.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  QueryGroup, searchQuery, searchScore, searchScoreOfCaptures, searchScores, searchScoresOfCaptures,
} from "../../src/commands/memory/scoring.ts";
import { matchMemoryLine } from "../../src/commands/memory/fast-line.ts";
import { rng } from "../helpers/rng.ts";

const NOW = Date.UTC(2026, 1, 18, 9, 0, 0) / 1000;

const WORDS = [
  "retry", "retries", "retrying", "queue", "Queue", "worker", "workers", "node.js", "github-actions", "CI", "--from",
  "--dry-run", "5432", "v2", "part4", "part", "m4", "cache", "caching", "lexer", "router", "système", "データベース", "naïve",
  "REDIS_URL", "src/m4/part4", "test", "implement", "the", "a", "of", "deploy", "schema", "x", "api.v2.call", "e2e",
];

describe("QueryGroup: several queries scored in one search", () => {
  it("gives each query the score searchScore gives it alone, for entries and for lines in memory-add's layout", () => {
    const rnd = rng(33);
    const pick = () => WORDS[Math.floor(rnd() * WORDS.length)];
    const text = (n: number) => Array.from({ length: n }, pick).join(rnd() < 0.3 ? " " : rnd() < 0.5 ? ", " : "-");
    let compared = 0;
    let positive = 0;
    let lines = 0;
    for (let round = 0; round < 60; round++) {
      const queries = Array.from({ length: 1 + Math.floor(rnd() * 9) }, (_, i) =>
        i === 0 && round % 7 === 0 ? new Set<string>() : searchQuery([text(Math.floor(rnd() * (round % 5 === 0 ? 40 : 6)))]));
      const group = new QueryGroup(queries);
      const out = new Float64Array(queries.length);
      for (let e = 0; e < 40; e++) {
        const keywords = Array.from({ length: Math.floor(rnd() * 4) }, () => (rnd() < 0.1 ? `${pick()}"\\q` : pick()));
        const entry: Record<string, unknown> = {
          id: `m-${e}`,
          timestamp: new Date((NOW - Math.floor(rnd() * 400) * 86_400) * 1000).toISOString().slice(0, 19) + "Z",
          category: "pattern",
          keywords: rnd() < 0.1 ? keywords.join(",") : keywords,
          content: rnd() < 0.05 ? 42 : `${text(Math.floor(rnd() * 12))}${rnd() < 0.1 ? ' with "quotes" and \\ slashes' : ""}`,
          source: "test",
          goal_context: "",
          importance: Math.floor(rnd() * 10) + 1,
          usage_count: 0,
        };
        if (rnd() < 0.1) delete entry.timestamp;
        searchScores(entry, group, NOW, out);
        queries.forEach((q, qi) => assert.equal(out[qi], searchScore(entry, q, NOW), `entry ${JSON.stringify(entry)} query ${[...q]}`));
        const m = matchMemoryLine(JSON.stringify(entry));
        if (m) {
          lines++;
          searchScoresOfCaptures(m, group, NOW, out);
          queries.forEach((q, qi) => assert.equal(out[qi], searchScoreOfCaptures(m, q, NOW), `line ${JSON.stringify(entry)} query ${[...q]}`));
        }
        compared += queries.length;
        positive += out.filter((x) => x > 0).length;
      }
    }
    // The cases hit: many comparisons, a fair share of them with a positive score.
    assert.ok(compared > 5000 && positive > 500 && lines > 1000, `${compared} compared, ${positive} positive, ${lines} lines in the layout`);
  });

  it("scores nothing for no query, or only empty ones", () => {
    const entry = { keywords: ["retry"], content: "retry the queue", importance: 5 };
    const none = new Float64Array(0);
    searchScores(entry, new QueryGroup([]), NOW, none);
    const out = new Float64Array([7, 7]);
    searchScores(entry, new QueryGroup([new Set(), new Set()]), NOW, out);
    assert.deepEqual([...out], [0, 0]);
  });
});
