// Reflect's metrics, computed instead of counted by the lead (seed 001: deterministic metrics remove the
// hallucination risk): recurring failure patterns across reflections, their temporal status, confidence from
// counts, the outcome trend, advice repeated across runs (feedback not acted on) and the handoff's open items.
// Pure functions over parsed entries; `reflect-metrics` does the reading. Every threshold is a named constant.
import { parseTimestamp, isEmpty } from "../values.js";
import { group, resolvers, type Group, type MemoryRef, type Mention, type RunRef } from "./similar-texts.js";
export {
  MIN_SHARED_WORDS, SIMILARITY, comparisons, group, resolvers, similar, type Group, type MemoryRef, type Mention, type RunRef,
} from "./similar-texts.js";

/** Patterns with a run among this many most recent analysed runs are active (pattern-analysis.md's rule). */
export const RECENT_RUNS = 3;
/** Confidence from the number of runs a pattern appears in: high from 3 runs, medium with 2 (pattern-analysis.md). */
export const HIGH_CONFIDENCE_RUNS = 3;
export const MEDIUM_CONFIDENCE_RUNS = 2;
/** Outcomes that make a single run a strong signal (confidence low rather than anecdotal). */
export const STRONG_OUTCOMES: readonly string[] = ["failed", "aborted"];
/** Advice is unaddressed when it comes back in at least this many runs. */
export const REPEATED_ADVICE_RUNS = 2;
/** The trend needs this many runs; fewer gives "insufficient_data". */
export const TREND_MIN_RUNS = 4;
/** The newer half's success rate must differ from the older half's by at least this much to be a trend. */
export const TREND_DELTA = 0.25;
/** How many patterns, advice groups and example texts an answer carries (it lands in the lead's context). */
export const MAX_GROUPS = 10;
export const MAX_EXAMPLES = 3;

/** Words that carry no cause: articles, pronouns, auxiliaries, and generic run vocabulary. */
const STOPWORDS = new Set(
  ("the and for but not with without from into onto that this these those then than when while which who whom " +
    "what where why how its it's was were are is been being has have had does did doing can could would should " +
    "will shall may might must our your their there here also only just very more most less some any all each " +
    "every both either neither too again once after before because about over under same other another such one " +
    "two three first last next run runs ran").split(" "),
);

/** Crude stem so "needs", "needed" and "needing" meet: strip -ing, -ed, -es, -s from words of 5+ letters. */
function stem(word: string): string {
  if (word.length >= 6 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length >= 5 && word.endsWith("ed")) return word.slice(0, -2);
  if (word.length >= 5 && word.endsWith("es") && !word.endsWith("ses")) return word.slice(0, -2);
  if (word.length >= 4 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/** Content words of a text: lowercase [a-z0-9] runs of 3+ characters, stopwords dropped, stemmed. */
export function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  // The runs of [a-z0-9] of the lowercased text (what splitting it on /[^a-z0-9]+/ gives), without the split's array.
  const s = text.toLowerCase();
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) {
      i++;
      continue;
    }
    let j = i + 1;
    for (let d = s.charCodeAt(j); (d >= 97 && d <= 122) || (d >= 48 && d <= 57); d = s.charCodeAt(++j));
    if (j - i >= 3) {
      const w = s.slice(i, j);
      if (!STOPWORDS.has(w)) out.add(stem(w));
    }
    i = j;
  }
  return out;
}

function distinctRuns(g: Group): RunRef[] {
  const seen = new Map<number, RunRef>();
  for (const m of g.mentions) seen.set(m.run.index, m.run);
  return [...seen.values()].sort((a, b) => a.epoch - b.epoch || a.index - b.index);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x.trim() !== "") : [];
}

export function memoryRefs(entries: readonly Record<string, unknown>[]): MemoryRef[] {
  return entries.map((e) => {
    const content = typeof e.content === "string" ? e.content : "";
    const keywords = Array.isArray(e.keywords) ? e.keywords.filter((k) => typeof k === "string").join(" ") : typeof e.keywords === "string" ? e.keywords : "";
    // Words only for the memories a pattern's last run makes eligible (recorded after it): most are older.
    let words: Set<string> | undefined;
    return { id: e.id, content, epoch: parseTimestamp(e.timestamp), get words() { return (words ??= contentWords(`${content} ${keywords}`)); } };
  });
}

export type Status = "active" | "likely_resolved" | "confirmed_resolved";
export type Confidence = "high" | "medium" | "low" | "anecdotal";

export function confidenceFor(runs: readonly RunRef[]): Confidence {
  if (runs.length >= HIGH_CONFIDENCE_RUNS) return "high";
  if (runs.length >= MEDIUM_CONFIDENCE_RUNS) return "medium";
  return runs.some((r) => STRONG_OUTCOMES.includes(r.outcome)) ? "low" : "anecdotal";
}

const ref = (r: RunRef) => ({ timestamp: r.timestamp, goal: r.goal, outcome: r.outcome });
/** The first `limit` distinct values, in order (what `[...new Set(all)].slice(0, limit)` gives, without building all). */
function firstDistinct(g: Group, of: (m: Mention) => Iterable<string>, limit: number): string[] {
  const out = new Set<string>();
  for (const m of g.mentions) {
    for (const x of of(m)) {
      out.add(x);
      if (out.size === limit) return [...out];
    }
  }
  return [...out];
}
const examples = (g: Group) => firstDistinct(g, (m) => [m.text], MAX_EXAMPLES);

export interface Metrics {
  runs: Record<string, unknown>;
  patterns: Array<Record<string, unknown>>;
  patternCounts: Record<Status, number> & { total: number; recurring: number };
  unaddressedFeedback: Array<Record<string, unknown>>;
  /** What gets a hypothesis: each active pattern above `anecdotal`, each piece of unaddressed advice. */
  hypothesize: Hypothesize[];
  trend: Record<string, unknown>;
}

/** One thing /do:reflect writes a hypothesis for, pointing into `patterns` or `unaddressedFeedback` by index. */
export interface Hypothesize {
  from: "patterns" | "unaddressedFeedback";
  index: number;
  text: string;
  runs: number;
  confidence: Confidence;
}

/** Metrics over one skill's reflections (any order in; sorted by timestamp, file order on ties). */
export function computeMetrics(entries: readonly Record<string, unknown>[], memories: readonly MemoryRef[]): Metrics {
  const runs: RunRef[] = entries
    .map((e, index) => ({
      index,
      timestamp: typeof e.timestamp === "string" ? e.timestamp : String(e.timestamp ?? ""),
      epoch: parseTimestamp(e.timestamp),
      goal: typeof e.goal === "string" ? e.goal : "",
      outcome: typeof e.outcome === "string" ? e.outcome : "unknown",
      goalAchieved: !isEmpty(e.goalAchieved),
    }))
    .sort((a, b) => a.epoch - b.epoch || a.index - b.index);
  const evalOf = (r: RunRef) => {
    const ev = entries[r.index].evaluation;
    return typeof ev === "object" && ev !== null && !Array.isArray(ev) ? (ev as Record<string, unknown>) : {};
  };
  const recent = new Set(runs.slice(-RECENT_RUNS).map((r) => r.index));

  const byOutcome: Record<string, number> = { completed: 0, partial: 0, failed: 0, aborted: 0 };
  for (const r of runs) byOutcome[r.outcome] = (byOutcome[r.outcome] ?? 0) + 1;

  const failures: Mention[] = [];
  const advice: Mention[] = [];
  // A project's texts recur (the same failure, the same advice, run after run): each distinct text is tokenised
  // once and its mentions share the one word set (nothing changes a mention's set).
  const seen = new Map<string, Set<string>>();
  const wordsOf = (text: string) => {
    let words = seen.get(text);
    if (words === undefined) seen.set(text, (words = contentWords(text)));
    return words;
  };
  for (const r of runs) {
    const ev = evalOf(r);
    for (const text of strings(ev.whatFailed)) failures.push({ run: r, text, words: wordsOf(text) });
    for (const text of strings(ev.doNextTime)) advice.push({ run: r, text, words: wordsOf(text) });
  }

  const counts = { total: 0, recurring: 0, active: 0, likely_resolved: 0, confirmed_resolved: 0 };
  const failureGroups = group(failures);
  const runsOf = failureGroups.map(distinctRuns);
  const resolvedBy = resolvers(failureGroups, runsOf.map((rs) => rs[rs.length - 1].epoch), memories);
  const patterns = failureGroups.map((g, gi) => {
    const rs = runsOf[gi];
    const last = rs[rs.length - 1];
    const memory = resolvedBy[gi];
    const status: Status = memory ? "confirmed_resolved" : rs.some((r) => recent.has(r.index)) ? "active" : "likely_resolved";
    counts.total++;
    counts[status]++;
    if (rs.length >= 2) counts.recurring++;
    return {
      text: g.mentions[0].text,
      examples: examples(g),
      runs: rs.length,
      mentions: g.mentions.length,
      firstSeen: rs[0].timestamp,
      lastSeen: last.timestamp,
      status,
      ...(memory ? { resolvedBy: { id: memory.id, content: memory.content } } : {}),
      confidence: confidenceFor(rs),
      reflections: rs.map(ref),
      keyWords: firstDistinct(g, (m) => m.words, 8),
      _order: [rs.length, last.epoch],
    };
  });
  patterns.sort((a, b) => b._order[0] - a._order[0] || b._order[1] - a._order[1]);

  const unaddressed = group(advice)
    .map((g) => ({ g, rs: distinctRuns(g) }))
    .filter(({ rs }) => rs.length >= REPEATED_ADVICE_RUNS)
    .sort((a, b) => b.rs.length - a.rs.length || b.rs[b.rs.length - 1].epoch - a.rs[a.rs.length - 1].epoch)
    .map(({ g, rs }) => ({ text: g.mentions[0].text, examples: examples(g), runs: rs.length, firstSeen: rs[0].timestamp, lastSeen: rs[rs.length - 1].timestamp, reflections: rs.map(ref) }));

  const shownPatterns = patterns.slice(0, MAX_GROUPS).map(({ _order, ...p }) => p);
  const shownAdvice = unaddressed.slice(0, MAX_GROUPS);
  const hypothesize: Hypothesize[] = [
    ...shownPatterns.flatMap((p, index) =>
      p.status === "active" && p.confidence !== "anecdotal" ? [{ from: "patterns" as const, index, text: p.text, runs: p.runs, confidence: p.confidence }] : []),
    // Advice repeated in REPEATED_ADVICE_RUNS runs or more was not taken: its confidence counts those runs.
    ...shownAdvice.map((a, index) => ({ from: "unaddressedFeedback" as const, index, text: a.text, runs: a.runs, confidence: (a.runs >= HIGH_CONFIDENCE_RUNS ? "high" : "medium") as Confidence })),
  ];
  return {
    runs: {
      total: runs.length,
      byOutcome,
      goalAchieved: runs.filter((r) => r.goalAchieved).length,
      oldest: runs[0]?.timestamp ?? null,
      newest: runs[runs.length - 1]?.timestamp ?? null,
      recent: runs.slice(-RECENT_RUNS).reverse().map(ref),
    },
    patterns: shownPatterns,
    patternCounts: counts,
    unaddressedFeedback: shownAdvice,
    hypothesize,
    trend: trend(runs, (r) => strings(evalOf(r).whatFailed).length),
  };
}

const rate = (xs: readonly number[]) => (xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100 : 0);

/**
 * Success trend: the runs (oldest first) split into an older half and a newer half (the newer one takes the middle
 * run when the count is odd); success rate = share of runs whose goal was achieved; the newer half better by at least
 * TREND_DELTA → improving, worse by as much → declining, else stable; fewer than TREND_MIN_RUNS runs → insufficient.
 */
export function trend(runs: readonly RunRef[], failuresOf: (r: RunRef) => number): Record<string, unknown> {
  if (runs.length < TREND_MIN_RUNS) return { direction: "insufficient_data", runs: runs.length, needed: TREND_MIN_RUNS };
  const split = Math.floor(runs.length / 2);
  const older = runs.slice(0, split);
  const newer = runs.slice(split);
  const olderRate = rate(older.map((r) => (r.goalAchieved ? 1 : 0)));
  const newerRate = rate(newer.map((r) => (r.goalAchieved ? 1 : 0)));
  const delta = Math.round((newerRate - olderRate) * 100) / 100;
  return {
    direction: delta >= TREND_DELTA ? "improving" : delta <= -TREND_DELTA ? "declining" : "stable",
    olderRuns: older.length,
    newerRuns: newer.length,
    olderSuccessRate: olderRate,
    newerSuccessRate: newerRate,
    olderFailuresPerRun: rate(older.map(failuresOf)),
    newerFailuresPerRun: rate(newer.map(failuresOf)),
  };
}

/** The handoff's open items: its `Next:` line, its `Open issues:` clauses, and unchecked `- [ ]` items. */
export function handoffItems(text: string | null): Record<string, unknown> {
  if (text === null) return { exists: false, next: null, openIssues: [], unchecked: [] };
  let next: string | null = null;
  let openIssues: string[] = [];
  let status: string | null = null;
  const unchecked: string[] = [];
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = raw.trim();
    const n = /^next:\s*(.*)$/i.exec(line);
    if (n && next === null) next = n[1].trim() || null;
    const o = /^open issues:\s*(.*)$/i.exec(line);
    if (o && openIssues.length === 0) {
      const v = o[1].trim();
      if (!/^(none|-|n\/a)?\.?$/i.test(v)) openIssues = v.split(/;\s*/).map((s) => s.trim()).filter(Boolean);
    }
    if (/^run\s.*outcome/i.test(line) && status === null) status = line;
    const u = /^[-*]\s+\[ \]\s+(.*)$/.exec(line);
    if (u) unchecked.push(u[1].trim());
  }
  if (next !== null && /^none\b/i.test(next)) next = null;
  return { exists: true, status, next, openIssues, unchecked: unchecked.slice(0, MAX_GROUPS) };
}
