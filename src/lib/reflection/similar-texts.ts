// Which texts of reflect-metrics describe the same thing, and which memory says a pattern was resolved, without
// comparing every pair: the similarity rule (SIMILARITY, MIN_SHARED_WORDS), the single-link grouping of failure and
// advice texts (`group`) and the search for the memory that resolved each group (`resolvers`), through indexes of
// word pairs and words. reflect-metrics.ts computes the metrics around them. Imports nothing of src/.
/**
 * Two texts describe the same thing when they share at least MIN_SHARED_WORDS content words and those make up at
 * least SIMILARITY of the shorter text's content words (overlap coefficient). One shared word is never enough; a
 * short sentence fully contained in a long one is. Example: "check needs a database" and "acceptance check needed
 * a database the worker could not start" share check, need, database: 3 of the shorter's 3 words → same pattern.
 */
export const SIMILARITY = 0.5;
export const MIN_SHARED_WORDS = 2;

export function similar(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size === 0 || b.size === 0) return false;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared >= MIN_SHARED_WORDS && shared / Math.min(a.size, b.size) >= SIMILARITY;
}

export interface MemoryRef {
  id: unknown;
  content: string;
  epoch: number;
  words: Set<string>;
}

export interface RunRef {
  index: number;
  timestamp: string;
  epoch: number;
  goal: string;
  outcome: string;
  goalAchieved: boolean;
}

export interface Mention {
  run: RunRef;
  text: string;
  words: Set<string>;
}

export interface Group {
  mentions: Mention[];
  /** Set by `group`: each mention's word set in `sets`, which `resolvers` reuses. */
  setIds?: number[];
  sets?: WordSets;
}

/**
 * Group texts (oldest run first) by single link: a text joins the first group holding a similar text, else starts
 * its own. Deterministic: the order of runs and of texts within a run decides.
 *
 * Without comparing every text with every earlier one (that was quadratic: 6.5 s for 50,000 runs). Similarity
 * depends on the word sets only, so each distinct set is compared once per text, and the first group holding a
 * similar text is the smallest `minGroup` (the earliest group holding a text with that set) among the sets similar
 * to it. Those sets are found through an index of word pairs (`WordSets`, `pairsOf`): every similar pair of sets
 * shares two words of the smaller set's prefix, so a set is compared only with sets it shares such a pair with, and
 * the postings of a pair are kept by group, earliest first, so the walk stops at the first group that already
 * holds a similar set. `test/unit/reflect-metrics-oracle.test.ts` checks the answer equal to the pairwise rule.
 */
export function group(mentions: readonly Mention[]): Group[] {
  const groups: Group[] = [];
  const sets = new WordSets(mentions.map((m) => m.words));
  const n = sets.size;
  const minGroup = new Int32Array(n).fill(-1); // -1: not indexed yet
  const stamp = new Int32Array(n).fill(-1);
  const prefixPairs = new Map<number, number[]>(); // pairs of a set's extended prefix (sets no larger than the text)
  const allPairs = new Map<number, number[]>(); // every pair of a set's words (sets larger than the text)
  let text = 0; // the mention being placed
  let size = 0; // its set's size
  let at = 0; // its set
  let best = 0; // the earliest group found so far; groups.length while none
  // Walk one pair's postings (group, set, group, set, … by group ascending) while a group could still be earlier
  // than the best so far.
  const walk = (list: number[] | undefined, smaller: boolean) => {
    if (list === undefined) return;
    for (let k = 0; k < list.length; k += 2) {
      const g = list[k];
      if (g >= best) return;
      const c = list[k + 1];
      if (stamp[c] === text || minGroup[c] !== g) continue; // seen, or a stale entry (its set moved earlier)
      if ((sets.words[c].length <= size) !== smaller) continue; // the other index covers it
      stamp[c] = text;
      if (sets.similar(c, at)) {
        best = g;
        return;
      }
    }
  };
  // The answer for a set depends only on the postings, minGroup and the number of groups: while none of them has
  // changed since the set's last answer (`state` counts their changes), a set that recurs gets that answer again.
  let state = 0;
  const answeredAt = new Int32Array(n).fill(-1);
  const answer = new Int32Array(n);
  for (let i = 0; i < mentions.length; i++) {
    const m = mentions[i];
    if (m.words.size === 0) continue;
    text = i;
    at = sets.setOf[i];
    size = sets.words[at].length;
    const all = sets.allPairs(at);
    const prefix = sets.prefixPairs(at);
    if (answeredAt[at] === state) best = answer[at];
    else {
      best = groups.length;
      // The same set seen before: its own group is a candidate (pairs with a word of this set alone are not indexed).
      if (minGroup[at] !== -1 && sets.similar(at, at)) best = minGroup[at];
      for (let k = 0; k < all.length; k++) walk(prefixPairs.get(all[k]), true);
      for (let k = 0; k < prefix.length; k++) walk(allPairs.get(prefix[k]), false);
      answeredAt[at] = state;
      answer[at] = best;
    }
    const g = best;
    if (g === groups.length) groups.push({ mentions: [m], setIds: [at], sets }), state++;
    else groups[g].mentions.push(m), groups[g].setIds?.push(at);
    if (minGroup[at] === -1 || g < minGroup[at]) {
      state++;
      minGroup[at] = g;
      for (let k = 0; k < prefix.length; k++) post(prefixPairs, prefix[k], g, at);
      for (let k = 0; k < all.length; k++) post(allPairs, all[k], g, at);
    }
  }
  return groups;
}

/** Add set `s` of group `g` to a pair's postings, kept by group ascending (sets of one group in the order added). */
function post(map: Map<number, number[]>, key: number, g: number, s: number): void {
  const list = map.get(key);
  if (list === undefined) {
    map.set(key, [g, s]);
    return;
  }
  if (list[list.length - 2] <= g) {
    list.push(g, s);
    return;
  }
  let lo = 0;
  let hi = list.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[2 * mid] <= g) lo = mid + 1;
    else hi = mid;
  }
  list.splice(2 * lo, 0, g, s);
}

/** The fewest shared words that make a set of `size` words similar to a set at least as large; Infinity if none. */
function needed(size: number): number {
  for (let t = MIN_SHARED_WORDS; t <= size; t++) if (t / size >= SIMILARITY) return t;
  return Infinity;
}

/**
 * Distinct word sets, each as ranks ascending (rarer words first), with the prefixes the candidate filter uses:
 * when a set x is no larger than y and similar to it, x shares at least needed(|x|) words with y, so at most
 * |x| - needed(|x|) of its words are not shared, and any |x| - needed(|x|) + k of them hold k shared ones (k = 1:
 * `prefix`, k = 2: the pairs of `prefixPairs`). Rare words first keep those postings short.
 */
class WordSets {
  /** Per input (by position), its set's number; -1 for an empty set. */
  readonly setOf: Int32Array;
  /** Per set, its word ranks ascending. */
  readonly words: Int32Array[] = [];
  readonly size: number;
  private readonly width: number;
  /** Ranks below this are words of one set only: a pair holding one is never shared, so never indexed. */
  private readonly singles: number;

  constructor(inputs: ReadonlyArray<ReadonlySet<string>>) {
    const ids = new Map<string, number>();
    // The same Set object given again (texts that recur share one: computeMetrics) is looked up, not sorted again.
    const byObject = new Map<ReadonlySet<string>, number>();
    const raw: string[][] = [];
    this.setOf = new Int32Array(inputs.length).fill(-1);
    for (let i = 0; i < inputs.length; i++) {
      if (inputs[i].size === 0) continue;
      let id = byObject.get(inputs[i]);
      if (id === undefined) {
        const ws = [...inputs[i]].sort();
        const key = ws.join(" ");
        id = ids.get(key);
        if (id === undefined) {
          ids.set(key, (id = raw.length));
          raw.push(ws);
        }
        byObject.set(inputs[i], id);
      }
      this.setOf[i] = id;
    }
    this.size = raw.length;
    // Rank: rarer words first (fewer sets have them), then by the word.
    const count = new Map<string, number>();
    for (const ws of raw) for (const w of ws) count.set(w, (count.get(w) ?? 0) + 1);
    const order = [...count.keys()].sort((x, y) => (count.get(x) as number) - (count.get(y) as number) || (x < y ? -1 : x > y ? 1 : 0));
    this.rank = new Map(order.map((w, r) => [w, r]));
    this.width = order.length + 1;
    let singles = 0;
    while (singles < order.length && count.get(order[singles]) === 1) singles++;
    this.singles = singles;
    for (const ws of raw) this.words.push(this.ranked(ws));
  }

  readonly rank: Map<string, number>;

  /** A word set as ranks ascending. */
  ranked(ws: Iterable<string>): Int32Array {
    const out: number[] = [];
    for (const w of ws) out.push(this.rank.get(w) as number);
    return Int32Array.from(out).sort();
  }

  /** How many of a set's first words hold k shared ones with any similar set at least as large. */
  static prefixLength(size: number, k: number): number {
    const t = needed(size);
    return t === Infinity ? 0 : Math.min(size, size - t + k);
  }

  /** Pair keys of the words x[0..end): every pair once, less those holding a word of this set alone. */
  pairs(x: Int32Array, end: number): number[] {
    const out: number[] = [];
    let p = 0;
    while (p < end && x[p] < this.singles) p++;
    for (; p < end; p++) for (let q = p + 1; q < end; q++) out.push(x[p] * this.width + x[q]);
    return out;
  }

  /** Per set, its pairs once computed (a set recurs in many mentions). */
  private readonly prefixMemo: Array<number[] | undefined> = [];
  private readonly allMemo: Array<number[] | undefined> = [];

  prefixPairs(s: number): number[] {
    const x = this.words[s];
    return (this.prefixMemo[s] ??= this.pairs(x, WordSets.prefixLength(x.length, 2)));
  }

  allPairs(s: number): number[] {
    const x = this.words[s];
    return (this.allMemo[s] ??= this.pairs(x, x.length));
  }

  similar(s: number, t: number): boolean {
    const a = this.words[s];
    const b = this.words[t];
    return similarCounts(a, a.length, b, b.length);
  }
}

/**
 * `similar` on two sets given by the ranks they may share (ascending) and their sizes: a set's words that the
 * other cannot have may be left out of its ranks, not of its size.
 */
function similarCounts(a: Int32Array, sizeA: number, b: Int32Array, sizeB: number): boolean {
  comparisons.count++;
  if (sizeA === 0 || sizeB === 0) return false;
  let shared = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) shared++, i++, j++;
    else if (a[i] < b[j]) i++;
    else j++;
  }
  return shared >= MIN_SHARED_WORDS && shared / Math.min(sizeA, sizeB) >= SIMILARITY;
}

/**
 * Per group, the first memory (in file order) recorded at or after `lastEpochs[g]` that is similar to one of the
 * group's texts: what a search of every memory for every group gave, through two indexes of the memories by word,
 * each list in time order so a group reads only the memories recorded since its last run. A memory's words that no
 * text has rank before all others (they can never be shared); a memory no larger than a text is similar only if its
 * prefix holds one of the text's words, a larger one only if it holds a word of the text's prefix (WordSets).
 */
export function resolvers(groups: readonly Group[], lastEpochs: readonly number[], memories: readonly MemoryRef[]): Array<MemoryRef | undefined> {
  const out: Array<MemoryRef | undefined> = new Array(groups.length).fill(undefined);
  if (memories.length === 0 || groups.length === 0) return out;
  const time = (i: number) => (Number.isNaN(memories[i].epoch) ? -Infinity : memories[i].epoch);
  // Only memories recorded at or after some group's last run can resolve anything: the others are never read.
  let earliest = Infinity;
  for (const e of lastEpochs) if (e < earliest) earliest = e;
  const order: number[] = [];
  for (let i = 0; i < memories.length; i++) if (time(i) >= earliest) order.push(i);
  if (order.length === 0) return out;
  order.sort((x, y) => time(x) - time(y) || x - y);
  // The texts' word sets: those `group` built, or (groups made elsewhere) built here.
  let sets = groups[0].sets;
  let setIds = groups.map((g) => g.setIds);
  if (sets === undefined || setIds.some((x) => x === undefined)) {
    sets = new WordSets(groups.flatMap((g) => g.mentions.map((m) => m.words)));
    let at = 0;
    setIds = groups.map((g) => g.mentions.map(() => (sets as WordSets).setOf[at++]));
  }
  const rank = sets.rank;
  const shared: Int32Array[] = []; // per memory, the ranks of its words that some text has, ascending
  const size: number[] = [];
  const full: number[][] = [];
  const prefix: number[][] = [];
  for (const i of order) {
    const words = memories[i].words;
    const rs: number[] = [];
    for (const w of words) {
      const r = rank.get(w);
      if (r !== undefined) rs.push(r);
    }
    const x = (shared[i] = Int32Array.from(rs).sort());
    size[i] = words.size;
    for (let k = 0; k < x.length; k++) (full[x[k]] ??= []).push(i);
    const end = WordSets.prefixLength(words.size, 1) - (words.size - x.length);
    for (let k = 0; k < end; k++) (prefix[x[k]] ??= []).push(i);
  }
  const stamp = new Int32Array(memories.length).fill(-1); // the last text set each memory was compared with
  let visits = 0;
  groups.forEach((g, gi) => {
    const since = lastEpochs[gi];
    let best = memories.length;
    const visit = (list: number[] | undefined, d: Int32Array, larger: boolean) => {
      if (list === undefined) return;
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (time(list[mid]) >= since) hi = mid;
        else lo = mid + 1;
      }
      for (let k = lo; k < list.length; k++) {
        const c = list[k];
        if (c >= best || stamp[c] === visits || (size[c] > d.length) !== larger) continue;
        stamp[c] = visits;
        if (memories[c].epoch >= since && similarCounts(shared[c], size[c], d, d.length)) best = c;
      }
    };
    const done = new Set<number>();
    for (const s of (setIds[gi] as number[])) {
      if (s < 0 || done.has(s)) continue;
      done.add(s);
      visits++;
      const d = (sets as WordSets).words[s];
      for (let r = 0; r < d.length; r++) visit(prefix[d[r]], d, false);
      const end = WordSets.prefixLength(d.length, 1);
      for (let r = 0; r < end; r++) visit(full[d[r]], d, true);
    }
    if (best < memories.length) out[gi] = memories[best];
  });
  return out;
}

/** Pairwise similarity tests made (a count for the tests: the grouping compares candidates, not every pair). */
export const comparisons = { count: 0 };

