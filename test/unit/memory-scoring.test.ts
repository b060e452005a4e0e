import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";
import {
  contentSimilarity, rankForSearch, searchQuery, searchScore, summaryQuery, summaryScore,
} from "../../src/commands/memory/scoring.ts";

const NOW_MS = Date.UTC(2026, 1, 18, 9, 0, 0);
const NOW = NOW_MS / 1000;
const DAY = 86_400;
const iso = (sec: number) => new Date(sec * 1000).toISOString().slice(0, 19) + "Z";
const MEM = ".design/memory.jsonl";

describe("memory-search scoring (contract 4.9)", () => {
  it("scores an entry exactly 30 days old with importance 10 and a full keyword match 0.9", () => {
    const entry = { keywords: ["rest", "api"], content: "", timestamp: iso(NOW - 30 * DAY), importance: 10 };
    assert.equal(searchScore(entry, searchQuery(["rest api"]), NOW), 0.9);
  });

  it("compounds the decay: 60 days is 0.81 of the fresh score", () => {
    const entry = { keywords: ["rest"], timestamp: iso(NOW - 60 * DAY), importance: 10 };
    assert.ok(Math.abs(searchScore(entry, searchQuery(["rest"]), NOW) - 0.81) < 1e-12);
  });

  it("weights by importance / 10 and by the share of query words found", () => {
    const q = searchQuery(["rest api auth design"]);
    const base = { timestamp: iso(NOW) };
    assert.equal(searchScore({ ...base, keywords: ["rest", "api"], importance: 10 }, q, NOW), 0.5);
    assert.equal(searchScore({ ...base, keywords: ["rest", "api"], importance: 4 }, q, NOW), 0.2);
    assert.equal(searchScore({ ...base, keywords: ["rest", "api", "auth", "design"], importance: 4 }, q, NOW), 0.4);
  });

  it("reads a missing, non-numeric or boolean importance as 5", () => {
    const q = searchQuery(["rest"]);
    for (const importance of [undefined, "high", true, null]) {
      assert.equal(searchScore({ keywords: ["rest"], importance }, q, NOW), 0.5, String(importance));
    }
  });

  it("counts repeated query words once", () => {
    const q = searchQuery(["rest rest", "REST api"]);
    assert.deepEqual([...q], ["rest", "api"]);
    assert.equal(searchScore({ keywords: ["rest"], importance: 10 }, q, NOW), 0.5);
  });

  it("tokenises keywords like content: case, several words and spaces do not hide a keyword", () => {
    const q = searchQuery(["rest api"]);
    assert.equal(searchScore({ keywords: ["REST", "Api"], importance: 10 }, q, NOW), 1);
    assert.equal(searchScore({ keywords: ["rest api"], importance: 10 }, q, NOW), 1);
    assert.equal(searchScore({ keywords: [" rest"], importance: 10 }, q, NOW), 0.5);
    assert.equal(searchScore({ keywords: ["restful"], content: "The REST layer", importance: 10 }, q, NOW), 0.5);
  });

  it("ignores keywords that are not strings and reads a string keywords value as one keyword text (Fix D26)", () => {
    const q = searchQuery(["rest api"]);
    assert.equal(searchScore({ keywords: "rest", importance: 10 }, q, NOW), 0.5);
    assert.equal(searchScore({ keywords: "ra", importance: 10 }, searchQuery(["rest api ra"]), NOW), 1 / 3);
    assert.equal(searchScore({ keywords: [3, null, { k: "rest" }], importance: 10 }, q, NOW), 0);
  });

  it("gives age 0 to an entry without a timestamp and counts an unparsable one from the epoch", () => {
    const q = searchQuery(["rest"]);
    assert.equal(searchScore({ keywords: ["rest"], importance: 10 }, q, NOW), 1);
    const old = searchScore({ keywords: ["rest"], importance: 10, timestamp: "yesterday" }, q, NOW);
    assert.ok(old > 0 && old < 1e-20);
  });

  it("does not clamp future timestamps: 30 days ahead scores 1/0.9 of the fresh score", () => {
    const entry = { keywords: ["rest"], importance: 9, timestamp: iso(NOW + 30 * DAY) };
    assert.ok(Math.abs(searchScore(entry, searchQuery(["rest"]), NOW) - 1) < 1e-12);
  });

  it("parses fractional seconds and numeric offsets (Fix D24)", () => {
    const q = searchQuery(["rest"]);
    const at = (timestamp: unknown) => searchScore({ keywords: ["rest"], importance: 10, timestamp }, q, NOW);
    const monthAgo = NOW - 30 * DAY;
    assert.equal(at(iso(monthAgo).replace("Z", ".000Z")), 0.9);
    const shifted = new Date((monthAgo + 2 * 3600) * 1000).toISOString().slice(0, 19) + "+02:00";
    assert.equal(at(shifted), 0.9);
    assert.equal(at(monthAgo), 0.9);
  });

  it("ranks best first, keeps ties in file order, drops zero scores and honours the limit", () => {
    const entries = [
      { id: "a", keywords: ["rest"], importance: 5 },
      { id: "zero", keywords: ["other"], importance: 10 },
      { id: "b", keywords: ["rest"], importance: 8 },
      { id: "c", keywords: ["rest"], importance: 5 },
      { id: "d", keywords: ["rest"], importance: 5 },
    ];
    const q = searchQuery(["rest"]);
    assert.deepEqual(rankForSearch(entries, q, NOW, 10).map((s) => s.entry.id), ["b", "a", "c", "d"]);
    assert.deepEqual(rankForSearch(entries, q, NOW, 2).map((s) => s.entry.id), ["b", "a"]);
    assert.deepEqual(rankForSearch(entries, q, NOW, 0), []);
  });

  it("rounds scores to 3 decimals the Python way, an exact half going to the even digit", async (t) => {
    // 1 of 8 query words × recency 1 (no timestamp) × 5/10 = 0.0625 exactly: Python gives 0.062, Math.round 0.063.
    const p = project(t, {
      [MEM]: [
        { id: "tie", keywords: ["alpha"], importance: 5 },
        { id: "third", keywords: ["alpha", "bravo", "charlie"], importance: 1, timestamp: iso(NOW - 15 * DAY) },
      ],
    });
    const out = await p.run("memory-search", ["--goal", "alpha bravo charlie delta echo foxtrot golf hotel"], { now: NOW_MS });
    const scores = Object.fromEntries((out.memories as any[]).map((m) => [m.id, m.score]));
    // 3/8 × 0.9^0.5 × 0.1 = 0.035575...
    assert.deepEqual(scores, { tie: 0.062, third: 0.036 });
  });

  it("keeps an entry whose score rounds to 0 because the unrounded score is positive", async (t) => {
    const p = project(t, { [MEM]: [{ id: "ancient", keywords: ["rest"], timestamp: "not a date" }] });
    const out = await p.run("memory-search", ["--goal", "rest"], { now: NOW_MS });
    assert.deepEqual((out.memories as any[]).map((m) => [m.id, m.score, m.timestamp]), [["ancient", 0, 0]]);
  });
});

describe("memory-summary scoring (contract 4.23)", () => {
  it("splits the goal on whitespace, lowercased, keeping duplicates and short words", () => {
    assert.deepEqual(summaryQuery("  Fix the  API api\tx "), ["fix", "the", "api", "api", "x"]);
    assert.deepEqual(summaryQuery(undefined), []);
  });

  it("counts query words found as substrings of the content or of the keyword text, duplicates included", () => {
    const entry = { content: "Use Pagination in the REST layer", keywords: ["HTTP-Client"], importance: 10 };
    assert.equal(summaryScore(entry, summaryQuery("pagin rest rest client zzz"), NOW), 4);
    assert.equal(summaryScore({ content: "x", keywords: "Retry Budget", importance: 10 }, ["retry", "budgets"], NOW), 1);
  });

  it("joins keywords with single spaces, so a query word spanning two keywords matches", () => {
    assert.equal(summaryScore({ keywords: ["rest", "api"], importance: 10 }, ["t a"], NOW), 1);
  });

  it("decays linearly by 0.1 per 30 days with a floor of 0.1", () => {
    const at = (days: number) => summaryScore({ content: "rest", importance: 10, timestamp: iso(NOW - days * DAY) }, ["rest"], NOW);
    assert.equal(at(0), 1);
    assert.equal(at(30), 0.9);
    assert.equal(at(150), 0.5);
    assert.equal(at(10_000), 0.1);
  });

  it("treats an unknown timestamp as brand new and does not clamp future ones", () => {
    assert.equal(summaryScore({ content: "rest", importance: 10 }, ["rest"], NOW), 1);
    assert.equal(summaryScore({ content: "rest", importance: 10, timestamp: "soon" }, ["rest"], NOW), 1);
    const future = summaryScore({ content: "rest", importance: 10, timestamp: iso(NOW + 30 * DAY) }, ["rest"], NOW);
    assert.ok(Math.abs(future - 1.1) < 1e-12);
  });

  it("keeps zero scores, sorts stably and rounds to 2 decimals the Python way", async (t) => {
    const p = project(t, {
      [MEM]: [
        { category: "pattern", content: "nothing relevant", importance: 9 },
        // 1 match × (1 - 225/30 × 0.1 = 0.25) × 5/10 = 0.125 exactly → 0.12 (ties to even)
        { category: "mistake", content: "rest calls", importance: 5, timestamp: iso(NOW - 225 * DAY) },
        { category: "convention", content: "another miss", importance: 1 },
      ],
    });
    const out = await p.run("memory-summary", ["--goal", "rest"], { now: NOW_MS });
    assert.deepEqual(out.entries, [
      { category: "mistake", content: "rest calls", importance: 5, score: 0.12 },
      { category: "pattern", content: "nothing relevant", importance: 9, score: 0 },
      { category: "convention", content: "another miss", importance: 1, score: 0 },
    ]);
  });
});

describe("near-duplicate similarity (memory-add gate)", () => {
  it("is the Jaccard index of the tokens() sets", () => {
    assert.equal(contentSimilarity("alpha bravo charlie delta", "alpha bravo charlie delta echo"), 0.8);
    assert.equal(contentSimilarity("alpha bravo charlie", "alpha bravo charlie delta"), 0.75);
    assert.equal(contentSimilarity("alpha bravo", "charlie delta"), 0);
  });

  it("is 1 for the same text up to case and whitespace, even without tokens", () => {
    assert.equal(contentSimilarity("Use  X\n", "use x"), 1);
    assert.equal(contentSimilarity("a b", "a c"), 0);
  });
});

describe("memory-search ranking shortcuts", () => {
  const NOW_S = Date.parse("2026-06-01T00:00:00Z") / 1000;
  const entry = (id: string, content: string, extra: Record<string, unknown> = {}) => ({
    id, content, keywords: [], timestamp: "2026-06-01T00:00:00Z", importance: 5, ...extra,
  });

  it("counts a query token once however often the entry repeats it", async () => {
    const { searchScore, searchQuery } = await import("../../src/commands/memory/scoring.ts");
    const q = searchQuery(["retry queue"]);
    const once = searchScore(entry("a", "retry"), q, NOW_S);
    const twice = searchScore(entry("b", "retry RETRY retry", { keywords: ["retry"] }), q, NOW_S);
    assert.equal(once, twice);
    assert.equal(once, 0.25);
  });

  it("matches a content token only as a whole word (or its stem), like tokens()", async () => {
    const { searchScore, searchQuery } = await import("../../src/commands/memory/scoring.ts");
    const q = searchQuery(["api"]);
    assert.equal(searchScore(entry("a", "rapid capital"), q, NOW_S), 0, "a substring of a word is no match");
    assert.equal(searchScore(entry("b", "the API, done"), q, NOW_S), 0.5);
    assert.equal(searchScore(entry("c", "x_api_y"), q, NOW_S), 0.5, "an identifier's words are tokens too");
    assert.equal(searchScore(entry("d", "paginate the apis"), q, NOW_S), 0.5, "a plural has the singular's stem");
  });

  it("handles queries longer than the bitmask with the same result", async () => {
    const { searchScore, searchQuery } = await import("../../src/commands/memory/scoring.ts");
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`);
    const q = searchQuery([words.join(" ")]);
    assert.equal(q.size, 40);
    const score = searchScore(entry("a", "word3 word39 word3 other"), q, NOW_S);
    assert.equal(score, (2 / 40) * 0.5);
  });

  it("keeps the best entries in file order on ties, whatever the limit", async () => {
    const { rankForSearch, searchQuery } = await import("../../src/commands/memory/scoring.ts");
    const q = searchQuery(["api"]);
    const entries = Array.from({ length: 100 }, (_, i) => entry(`e${i}`, "api", { importance: 1 + (i % 3) }));
    for (const limit of [0, 1, 5, 64, 65, 100, 200]) {
      const got = rankForSearch(entries, q, NOW_S, limit).map((s) => s.entry.id);
      const expected = entries
        .map((e, i) => ({ id: e.id, i, imp: e.importance as number }))
        .sort((a, b) => b.imp - a.imp || a.i - b.i)
        .slice(0, limit)
        .map((e) => e.id);
      assert.deepEqual(got, expected, `limit ${limit}`);
    }
  });
});

describe("canonical timestamp fast path", () => {
  it("agrees with the general grammar on valid and invalid dates", async () => {
    const { parseTimestamp } = await import("../../src/lib/values.ts");
    assert.equal(parseTimestamp("2026-02-18T09:04:05Z"), Date.UTC(2026, 1, 18, 9, 4, 5) / 1000);
    assert.equal(parseTimestamp("2024-02-29T00:00:00Z"), Date.UTC(2024, 1, 29) / 1000, "leap day");
    assert.equal(parseTimestamp("2023-02-29T00:00:00Z"), 0, "no leap day in 2023");
    assert.equal(parseTimestamp("1900-02-29T00:00:00Z"), 0, "1900 is not a leap year");
    assert.equal(parseTimestamp("2000-02-29T00:00:00Z"), Date.UTC(2000, 1, 29) / 1000, "2000 is");
    assert.equal(parseTimestamp("2026-04-31T00:00:00Z"), 0);
    assert.equal(parseTimestamp("2026-13-01T00:00:00Z"), 0);
    assert.equal(parseTimestamp("2026-01-01T24:00:00Z"), 0);
    assert.equal(parseTimestamp("2026-01-01t10:00:00z"), Date.UTC(2026, 0, 1, 10) / 1000, "lower-case T and Z still parse");
  });
});
