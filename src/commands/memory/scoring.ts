// Pure memory logic shared by the memory commands (no I/O, no zod, `now` always passed in as epoch seconds):
// the two relevance formulas (contract 4.9 and 4.23, deliberately different, see contract 6) and the
// near-duplicate similarity used by memory-add's quality gate.
import { parseTimestamp, sortDesc, tokens } from "../../lib/values.js";
import { STRING_LITERALS, text as literalText } from "./fast-line.js";
export { MEMORY_CATEGORIES, type MemoryCategory } from "../../lib/vocabulary.js";

/** The memory file positional shared by memory-search, memory-add, memory-summary and memory-review. */
export const MEMORY_PATH = { name: "memory_path", help: "memory file (JSONL)", default: ".design/memory.jsonl", path: "read" } as const;

export type Entry = Record<string, unknown>;

const DAY = 86_400;
const MONTH = 30 * DAY;

/** Stored importance: a number (not a boolean) as is, anything else 5 (contract 2.2, Fix D7). */
export function importanceOf(entry: Entry): number {
  const v = entry.importance;
  return typeof v === "number" && Number.isFinite(v) ? v : 5;
}

/** Keywords as exact strings: an array's string elements, or a lone string as one keyword (Fix D26). */
export function keywordList(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.filter((k): k is string => typeof k === "string");
  return [];
}

/** memory-search's query set: the non-empty goal, stack and keywords texts joined by a space, tokenised (3.7). */
export function searchQuery(parts: ReadonlyArray<unknown>): Set<string> {
  return tokens(parts.filter((p): p is string => typeof p === "string" && p !== "").join(" "));
}

/**
 * memory-search relevance (contract 4.9): keywordScore × 0.9^(age / 30 days) × importance / 10.
 * Keywords are compared verbatim (never lowercased or split), content through tokens(). An entry without a
 * `timestamp` key has age 0; an unparsable one counts from the epoch; future timestamps are not clamped.
 */
export function searchScore(entry: Entry, query: ReadonlySet<string>, nowSec: number): number {
  if (query.size === 0) return 0;
  const hits = queryHits(entry, compiled(query));
  if (hits === 0) return 0; // no hit, score 0: the timestamp is only parsed for entries that match
  const keywordScore = hits / query.size;
  const age = "timestamp" in entry ? nowSec - parseTimestamp(entry.timestamp) : 0;
  const recency = 0.9 ** (age / MONTH);
  return keywordScore * recency * (importanceOf(entry) / 10);
}

/**
 * memory-search's score of a memory when nothing is searched: its recency and importance factors,
 * 0.9^(age / 30 days) × importance / 10 (the keyword factor is 1). What /do:memories ranks its top entries by.
 */
export function standingScore(entry: Entry, nowSec: number): number {
  const age = "timestamp" in entry ? nowSec - parseTimestamp(entry.timestamp) : 0;
  return 0.9 ** (age / MONTH) * (importanceOf(entry) / 10);
}

interface CompiledQuery {
  /** Query token → its own bit (queries of up to 30 tokens) or its index. */
  index: Map<string, number>;
  /** Any query token standing as a whole [a-z0-9] run (tokens are [a-z0-9] only: nothing to escape). */
  pattern: RegExp;
  bits: boolean;
  /** Each query token in quotes ("tok"), with its bit or index. */
  quoted: string[];
  slots: number[];
}

const compiledQueries = new WeakMap<ReadonlySet<string>, CompiledQuery>();

function compiled(query: ReadonlySet<string>): CompiledQuery {
  let c = compiledQueries.get(query);
  if (!c) {
    const words = [...query];
    const bits = words.length <= 30;
    c = {
      quoted: words.map((w) => `"${w}"`),
      slots: words.map((_, i) => (bits ? 1 << i : i)),
      index: new Map(words.map((w, i) => [w, bits ? 1 << i : i])),
      pattern: new RegExp(`(?<![a-z0-9])(?:${[...words].sort((a, b) => b.length - a.length).join("|")})(?![a-z0-9])`, "g"),
      bits,
    };
    compiledQueries.set(query, c);
  }
  return c;
}

/**
 * |Q ∩ E| without building E: the distinct query tokens among the entry's keywords (verbatim) and its content's
 * tokens. A content hit is a query token that is a whole [a-z0-9] run of the lowercased text, exactly what
 * tokens() would have produced. This runs once per memory line, so it avoids allocating sets.
 */
function queryHits(entry: Entry, q: CompiledQuery): number {
  let mask = 0;
  const seen = q.bits ? null : new Set<number>();
  const kw = entry.keywords;
  const words = typeof kw === "string" ? [kw] : Array.isArray(kw) ? kw : [];
  for (const k of words) {
    const i = typeof k === "string" ? q.index.get(k) : undefined;
    if (i !== undefined) seen ? seen.add(i) : (mask |= i);
  }
  if (typeof entry.content === "string" && entry.content !== "") {
    const text = entry.content.toLowerCase();
    const re = q.pattern;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const i = q.index.get(m[0]) as number; // the pattern matches query tokens only
      seen ? seen.add(i) : (mask |= i);
    }
  }
  if (seen) return seen.size;
  let n = 0;
  for (; mask !== 0; mask &= mask - 1) n++;
  return n;
}

/**
 * searchScore of a line in memory-add's layout, from its regex captures (fast-line.ts) without building the entry:
 * memory-search scores every line of the file and keeps only a few.
 */
export function searchScoreOfCaptures(m: RegExpExecArray, query: ReadonlySet<string>, nowSec: number): number {
  if (query.size === 0) return 0;
  const q = compiled(query);
  let mask = 0;
  const seen = q.bits ? null : new Set<number>();
  const kw = m[4];
  if (kw !== "") {
    if (kw.includes("\\")) {
      for (const k of kw.match(STRING_LITERALS) as string[]) {
        const i = q.index.get(literalText(k));
        if (i !== undefined) seen ? seen.add(i) : (mask |= i);
      }
    } else {
      // Without escapes a quote only delimits, and a query token holds no quote or comma: "tok" in the list is
      // exactly a keyword equal to tok.
      for (let w = 0; w < q.quoted.length; w++) if (kw.includes(q.quoted[w])) seen ? seen.add(q.slots[w]) : (mask |= q.slots[w]);
    }
  }
  const content = literalText(m[5]);
  if (content !== "") {
    const re = q.pattern;
    const lower = content.toLowerCase();
    re.lastIndex = 0;
    for (let x = re.exec(lower); x !== null; x = re.exec(lower)) {
      const i = q.index.get(x[0]) as number;
      seen ? seen.add(i) : (mask |= i);
    }
  }
  let hits = 0;
  if (seen) hits = seen.size;
  else for (; mask !== 0; mask &= mask - 1) hits++;
  if (hits === 0) return 0;
  const age = nowSec - parseTimestamp(literalText(m[2]));
  const importance = Number(m[8]);
  return (hits / query.size) * 0.9 ** (age / MONTH) * ((Number.isFinite(importance) ? importance : 5) / 10);
}

export interface Scored {
  entry: Entry;
  score: number;
}

/**
 * The best entries by score, fed one at a time: positive (unrounded) scores only, best first, ties in the order
 * offered (what a stable descending sort gives), at most `limit`.
 */
export class Ranking {
  private readonly kept: Scored[] = [];
  constructor(private readonly limit: number) {}

  /** Whether offer() would keep an entry with this score (so a caller can skip building it). */
  wants(score: number): boolean {
    const { kept, limit } = this;
    return score > 0 && limit > 0 && (limit > 64 || kept.length < limit || score > kept[limit - 1].score);
  }

  offer(entry: Entry, score: number): void {
    const { kept, limit } = this;
    if (score <= 0 || limit === 0) return;
    if (limit > 64) {
      kept.push({ entry, score }); // a large limit: sorted once at the end
      return;
    }
    if (kept.length === limit && score <= kept[limit - 1].score) return;
    let at = kept.length;
    while (at > 0 && kept[at - 1].score < score) at--; // only a strictly lower score is overtaken
    kept.splice(at, 0, { entry, score });
    if (kept.length > limit) kept.pop();
  }

  result(): Scored[] {
    return this.limit > 64 ? sortDesc(this.kept, (s) => s.score).slice(0, this.limit) : this.kept;
  }
}

/** Entries with a positive (unrounded) score, best first, ties in file order, at most `limit`. */
export function rankForSearch(entries: readonly Entry[], query: ReadonlySet<string>, nowSec: number, limit: number): Scored[] {
  const ranking = new Ranking(limit);
  for (const entry of entries) ranking.offer(entry, searchScore(entry, query, nowSec));
  return ranking.result();
}

/** memory-summary's query: the goal lowercased and split on whitespace; duplicates are kept and counted. */
export function summaryQuery(goal: unknown): string[] {
  if (typeof goal !== "string") return [];
  return goal.toLowerCase().split(/\s+/).filter((w) => w !== "");
}

/**
 * memory-summary relevance (contract 4.23): matches × recency × importance / 10, where matches counts the query
 * words found as substrings of the lowercased content or keyword text, and recency decays linearly by 0.1 per
 * 30 days down to 0.1 (1.0 for an unknown timestamp, above 1 for a future one).
 */
export function summaryScore(entry: Entry, query: readonly string[], nowSec: number): number {
  const content = typeof entry.content === "string" ? entry.content.toLowerCase() : "";
  const kw = entry.keywords;
  const keywordText = (typeof kw === "string" ? kw : Array.isArray(kw) ? keywordList(kw).join(" ") : "").toLowerCase();
  let matches = 0;
  for (const w of query) if (content.includes(w) || keywordText.includes(w)) matches++;
  const ts = parseTimestamp(entry.timestamp);
  const recency = ts === 0 ? 1.0 : Math.max(0.1, 1 - ((nowSec - ts) / DAY / 30) * 0.1);
  return (matches * recency * importanceOf(entry)) / 10;
}

/** Content with case and whitespace runs normalised, for the identical-content test of the duplicate gate. */
export function normaliseContent(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

/**
 * Similarity of two memory contents in [0, 1]: 1 when they are identical after normalisation, otherwise the
 * Jaccard index |A ∩ B| / |A ∪ B| of their tokens() sets (0 when both sets are empty).
 */
export function contentSimilarity(a: string, b: string): number {
  if (normaliseContent(a) === normaliseContent(b)) return 1;
  const ta = tokens(a);
  const tb = tokens(b);
  let common = 0;
  for (const t of ta) if (tb.has(t)) common++;
  const union = ta.size + tb.size - common;
  return union === 0 ? 0 : common / union;
}
