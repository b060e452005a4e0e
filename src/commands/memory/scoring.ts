// Pure memory logic shared by the memory commands (no I/O, no zod, `now` always passed in as epoch seconds):
// the two relevance formulas (contract 4.9 and 4.23, deliberately different, see contract 6) and the
// near-duplicate similarity used by memory-add's quality gate. memory-search and the gate read text through the
// tokenizer of tokens.ts (the contract's 3.7 rule, ASCII words of 3+ letters, is gone: see there).
import { parseTimestamp, sortDesc } from "../../lib/values.js";
import { eachToken, fold, isSpecific, TokenIds, tokens } from "./tokens.js";
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

/** memory-search's query set: the non-empty goal, stack and keywords texts joined by a space, tokenised (tokens.ts). */
export function searchQuery(parts: ReadonlyArray<unknown>): Set<string> {
  return tokens(parts.filter((p): p is string => typeof p === "string" && p !== "").join(" "));
}

/**
 * memory-search relevance (contract 4.9): keywordScore × 0.9^(age / 30 days) × importance / 10, where keywordScore
 * is the share of query tokens found among the tokens of the entry's keywords and content (tokens.ts: the contract
 * compared keywords verbatim and content by its ASCII words of 3+ letters; here both go through the same
 * tokenizer, so a keyword `github-actions` or `CI` is found by its own words). An entry without a `timestamp` key
 * has age 0; an unparsable one counts from the epoch; future timestamps are not clamped.
 */
export function searchScore(entry: Entry, query: ReadonlySet<string>, nowSec: number): number {
  if (query.size === 0) return 0;
  const kw = entry.keywords;
  const words = typeof kw === "string" ? [kw] : Array.isArray(kw) ? kw : [];
  let keywordText = "";
  for (const k of words) if (typeof k === "string") keywordText += `${k} , `;
  const hits = queryHits(keywordText, typeof entry.content === "string" ? entry.content : "", compiled(query));
  if (hits === 0) return 0; // no hit, score 0: the timestamp is only parsed for entries that match
  const age = "timestamp" in entry ? nowSec - parseTimestamp(entry.timestamp) : 0;
  return (hits / query.size) * 0.9 ** (age / MONTH) * (importanceOf(entry) / 10);
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
  /** The same by token id (TokenIds). */
  byId: Map<number, number>;
  /**
   * Any query token as a substring: a text in which none occurs (folded) has none of them among its tokens (every
   * token is a substring of the folded text: stems are prefixes of their words).
   */
  pattern: RegExp;
  /** For ASCII text (which folding only lowercases): where a query token starts a word or a flag, ignoring case. */
  starts: RegExp;
  bits: boolean;
}

const compiledQueries = new WeakMap<ReadonlySet<string>, CompiledQuery>();
let SEARCH_IDS: TokenIds | undefined;

function compiled(query: ReadonlySet<string>): CompiledQuery {
  let c = compiledQueries.get(query);
  if (!c) {
    const words = [...query];
    const bits = words.length <= 30;
    const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).sort((a, b) => b.length - a.length);
    const ids = (SEARCH_IDS ??= new TokenIds());
    c = {
      index: new Map(words.map((w, i) => [w, bits ? 1 << i : i])),
      byId: new Map(words.map((w, i) => [ids.id(w), bits ? 1 << i : i])),
      pattern: new RegExp(escaped.join("|")),
      // A flag (--from) may follow a compound directly ("node.js--from" is two); any other token starts a word.
      starts: new RegExp([`(?<![a-z0-9])(?:${escaped.filter((w) => !w.startsWith("--")).join("|") || "(?!)"})`, ...escaped.filter((w) => w.startsWith("--"))].join("|"), "gi"),
      bits,
    };
    compiledQueries.set(query, c);
  }
  return c;
}

const NON_ASCII = /[^\x00-\x7f]/;

const alnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const joiner = (c: number) => c === 45 || c === 46 || c === 95; // - . _

/**
 * The compound of an ASCII text (what eachToken's word pattern matches there: words of [a-z0-9] joined by - . _,
 * with a leading -- kept) that holds the word starting at `at` (or the flag's -- there), as [start, end).
 */
function compoundAt(text: string, at: number): [number, number] {
  if (text.charCodeAt(at) === 45) at += 2; // --flag: its word starts after the dashes
  let s = at;
  for (;;) {
    if (s > 0 && alnum(text.charCodeAt(s - 1))) s--;
    else if (s > 1 && joiner(text.charCodeAt(s - 1)) && alnum(text.charCodeAt(s - 2))) s--;
    else break;
  }
  if (s > 1 && text.charCodeAt(s - 1) === 45 && text.charCodeAt(s - 2) === 45) s -= 2;
  let e = at;
  for (;;) {
    if (e < text.length && alnum(text.charCodeAt(e))) e++;
    else if (e + 1 < text.length && joiner(text.charCodeAt(e)) && alnum(text.charCodeAt(e + 1)) && alnum(text.charCodeAt(e - 1))) e++;
    else break;
  }
  return [s, e];
}

/**
 * |Q ∩ E| for the tokens E of an entry's keyword text and content, without tokenising what cannot match. A token of
 * a text is a substring of its folded form that starts a word (a stem is a prefix of its word; a compound or a
 * flag starts where its first word does), so in ASCII text only the compounds holding such a start are expanded
 * (TokenIds: each distinct one once); other text is folded, tested for any query token and tokenised whole.
 * memory-search runs this once per memory line.
 */
function queryHits(keywordText: string, content: string, q: CompiledQuery): number {
  let mask = 0;
  const seen = q.bits ? null : new Set<number>();
  eachQueryHit(keywordText, content, q, (i) => {
    if (seen) seen.add(i);
    else mask |= i;
  });
  if (seen) return seen.size;
  let n = 0;
  for (; mask !== 0; mask &= mask - 1) n++;
  return n;
}

/** Each query token found among the tokens of the two texts, as its value in `q.index` (repeats possible). */
function eachQueryHit(keywordText: string, content: string, q: CompiledQuery, emit: (i: number) => void): void {
  const ids = SEARCH_IDS as TokenIds;
  for (let part = 0; part < 2; part++) {
    const text = part === 0 ? keywordText : content;
    if (text === "") continue;
    if (!NON_ASCII.test(text)) {
      const re = q.starts;
      re.lastIndex = 0;
      let done = 0;
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        if (m.index < done) continue;
        const [s, e] = compoundAt(text, m.index);
        done = e;
        re.lastIndex = Math.max(e, m.index + 1);
        for (const id of ids.compound(text.slice(s, e))) {
          const i = q.byId.get(id);
          if (i !== undefined) emit(i);
        }
      }
    } else if (q.pattern.test(fold(text))) {
      eachToken(text, (t) => {
        const i = q.index.get(t);
        if (i !== undefined) emit(i);
      });
    }
  }
}

/**
 * Several queries scored on each memory in one pass (`next` ranks for every role it starts): the texts are searched
 * once for the tokens of all the queries together, and each query counts its own. The counts equal queryHits' for
 * each query alone: a compound the union expands that no token of a query starts holds none of its tokens (every
 * token of a text starts a word of its folded form), so it adds nothing to that query's count.
 */
export class QueryGroup {
  readonly sizes: number[];
  /** Per query, its hit count for the last memory scored. */
  readonly hits: Int32Array;
  private readonly union: CompiledQuery;
  /** Per union token (by its index), the queries that hold it. */
  private readonly owners: number[][];
  private readonly stamps: Int32Array;
  private stamp = 0;

  constructor(readonly queries: ReadonlyArray<ReadonlySet<string>>) {
    const all = new Set<string>();
    for (const q of queries) for (const w of q) all.add(w);
    this.union = compiled(all);
    const words = [...all];
    this.owners = words.map((w) => queries.flatMap((q, qi) => (q.has(w) ? [qi] : [])));
    this.sizes = queries.map((q) => q.size);
    this.hits = new Int32Array(queries.length);
    this.stamps = new Int32Array(words.length);
  }

  /** Count each query's hits in the two texts into `hits`; whether any query has one. */
  count(keywordText: string, content: string): boolean {
    this.hits.fill(0);
    if (this.owners.length === 0) return false;
    const stamp = ++this.stamp;
    const { stamps, owners, hits } = this;
    const bits = this.union.bits;
    let any = false;
    eachQueryHit(keywordText, content, this.union, (v) => {
      const u = bits ? 31 - Math.clz32(v) : v;
      if (stamps[u] === stamp) return;
      stamps[u] = stamp;
      for (const q of owners[u]) hits[q]++;
      any = true;
    });
    return any;
  }

  /** searchScore's formula for each query into `out`, from the counts of the last `count` and the two factors. */
  scores(age: number, importance: number, out: Float64Array): void {
    for (let q = 0; q < this.hits.length; q++) {
      const hits = this.hits[q];
      out[q] = hits === 0 || this.sizes[q] === 0 ? 0 : (hits / this.sizes[q]) * 0.9 ** (age / MONTH) * (importance / 10);
    }
  }
}

/** searchScore of an entry for every query of `group`, into `out`. */
export function searchScores(entry: Entry, group: QueryGroup, nowSec: number, out: Float64Array): void {
  const kw = entry.keywords;
  const words = typeof kw === "string" ? [kw] : Array.isArray(kw) ? kw : [];
  let keywordText = "";
  for (const k of words) if (typeof k === "string") keywordText += `${k} , `;
  if (!group.count(keywordText, typeof entry.content === "string" ? entry.content : "")) return void out.fill(0);
  const age = "timestamp" in entry ? nowSec - parseTimestamp(entry.timestamp) : 0;
  group.scores(age, importanceOf(entry), out);
}

/** searchScoreOfCaptures for every query of `group`, into `out`. */
export function searchScoresOfCaptures(m: RegExpExecArray, group: QueryGroup, nowSec: number, out: Float64Array): void {
  const kw = m[4];
  let keywordText = "";
  if (kw !== "") {
    if (kw.includes("\\")) for (const k of kw.match(STRING_LITERALS) as string[]) keywordText += `${literalText(k)} , `;
    else keywordText = kw;
  }
  if (!group.count(keywordText, literalText(m[5]))) return void out.fill(0);
  const age = nowSec - parseTimestamp(literalText(m[2]));
  const importance = Number(m[8]);
  group.scores(age, Number.isFinite(importance) ? importance : 5, out);
}

/**
 * searchScore of a line in memory-add's layout, from its regex captures (fast-line.ts) without building the entry:
 * memory-search scores every line of the file and keeps only a few.
 */
export function searchScoreOfCaptures(m: RegExpExecArray, query: ReadonlySet<string>, nowSec: number): number {
  if (query.size === 0) return 0;
  const kw = m[4];
  let keywordText = "";
  if (kw !== "") {
    if (kw.includes("\\")) for (const k of kw.match(STRING_LITERALS) as string[]) keywordText += `${literalText(k)} , `;
    else keywordText = kw; // without escapes the literals are the keywords in quotes, separated by commas
  }
  const hits = queryHits(keywordText, literalText(m[5]), compiled(query));
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
 * Similarity of two memory contents in [0, 1], the duplicate gate's measure, on their token sets (tokens.ts): 0 when
 * each names a specific thing the other does not (a number, an identifier, a file name or a flag: `REDIS_URL` /
 * `DATABASE_URL`, port 5432 / 6379, see isSpecific), since those are different facts however alike the rest reads;
 * otherwise the Jaccard index |A ∩ B| / |A ∪ B|. Two contents without any token (punctuation, stopwords only) are
 * 1 when they are the same text up to case and whitespace, else 0. (The same text up to case and whitespace always
 * has the same tokens, so it is 1 either way.)
 */
export function contentSimilarity(a: string, b: string): number {
  const ta = tokens(a);
  const tb = tokens(b);
  if (ta.size === 0 && tb.size === 0) return normaliseContent(a) === normaliseContent(b) ? 1 : 0;
  return tokenSimilarity(ta, tb);
}

/** contentSimilarity of two token sets (texts known to differ). */
export function tokenSimilarity(ta: ReadonlySet<string>, tb: ReadonlySet<string>): number {
  let common = 0;
  let specificA = false;
  for (const t of ta) {
    if (tb.has(t)) common++;
    else if (!specificA && isSpecific(t)) specificA = true;
  }
  if (specificA) for (const t of tb) if (!ta.has(t) && isSpecific(t)) return 0;
  const union = ta.size + tb.size - common;
  return union === 0 ? 0 : common / union;
}
