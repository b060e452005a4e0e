// Pure dependency-graph algorithms over role indices (contract 3.1-3.5).

/** deps[i] lists, in order, the indices that role i depends on. */
export type Deps = number[][];

/** Depth per role, memoised depth-first walk; 999 marks a cycle on the current walk (contract 3.2). */
export function depths(deps: Deps): number[] {
  const memo = new Map<number, number>();
  const depthOf = (i: number, onPath: Set<number>): number => {
    const known = memo.get(i);
    if (known !== undefined) return known;
    if (onPath.has(i)) return 999;
    if (deps[i].length === 0) {
      memo.set(i, 1);
      return 1;
    }
    const next = new Set(onPath).add(i);
    let best = -Infinity;
    for (const d of deps[i]) best = Math.max(best, depthOf(d, next));
    memo.set(i, best + 1);
    return best + 1;
  };
  for (let i = 0; i < deps.length; i++) if (!memo.has(i)) depthOf(i, new Set());
  return deps.map((_, i) => memo.get(i) as number);
}

/** Every index reachable from i by following deps (breadth-first); i itself only when it lies on a cycle. */
export function ancestors(deps: Deps, i: number): Set<number> {
  const seen = new Set<number>();
  const queue = [...deps[i]];
  for (let head = 0; head < queue.length; head++) {
    const d = queue[head];
    if (seen.has(d)) continue;
    seen.add(d);
    const next = deps[d];
    for (let k = 0; k < next.length; k++) if (!seen.has(next[k])) queue.push(next[k]);
  }
  return seen;
}

/** Reverse edges: who depends on each role. */
export function reverse(deps: Deps): number[][] {
  const rev: number[][] = deps.map(() => []);
  deps.forEach((ds, i) => {
    for (const d of ds) rev[d].push(i);
  });
  return rev;
}

/** Every index that transitively depends on a member of `set`, excluding the members themselves. */
export function dependents(deps: Deps, set: Iterable<number>): Set<number> {
  const rev = reverse(deps);
  const start = new Set(set);
  const seen = new Set<number>();
  const queue = [...start];
  while (queue.length) {
    const i = queue.shift() as number;
    for (const j of rev[i]) {
      if (!seen.has(j)) {
        seen.add(j);
        queue.push(j);
      }
    }
  }
  for (const s of start) seen.delete(s);
  return seen;
}

/** True when following deps can come back to where it started (a self-dependency counts). */
export function hasCycle(deps: Deps): boolean {
  const state = new Uint8Array(deps.length); // 0 new, 1 visiting, 2 finished
  const visit = (i: number): boolean => {
    state[i] = 1;
    for (const d of deps[i]) {
      if (state[d] === 1) return true;
      if (state[d] === 0 && visit(d)) return true;
    }
    state[i] = 2;
    return false;
  };
  for (let i = 0; i < deps.length; i++) if (state[i] === 0 && visit(i)) return true;
  return false;
}

// ---------------------------------------------------------------- territory overlap (contract 3.4)

/** `s` without its trailing slashes, plus one: the form in which a path is a prefix of the paths under it. */
function withSlash(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 47) end--;
  if (end === s.length - 1) return s; // exactly one trailing slash: already in form (no new string)
  return `${s.slice(0, end)}/`;
}

function prefixOverlap(a: string, b: string): boolean {
  const a2 = withSlash(a);
  const b2 = withSlash(b);
  return a2.startsWith(b2) || b2.startsWith(a2);
}

function globBase(s: string): string {
  const star = s.indexOf("*");
  return (star >= 0 ? s.slice(0, star) : s).replace(/\/+$/, "");
}

/** withSlash(globBase(s)), or null when the glob base is empty. */
function globKey(s: string): string | null {
  const star = s.indexOf("*");
  const base = star >= 0 ? s.slice(0, star) : s;
  let end = base.length;
  while (end > 0 && base.charCodeAt(end - 1) === 47) end--;
  return end === 0 ? null : withSlash(base);
}

export function pathsOverlap(a: string, b: string): boolean {
  if (a === b) return true;
  if (prefixOverlap(a, b)) return true;
  if (a.includes("**") || b.includes("**")) {
    const ba = globBase(a);
    const bb = globBase(b);
    if (ba === "" || bb === "") return false;
    return prefixOverlap(ba, bb);
  }
  return false;
}

export function territoriesOverlap(a: readonly string[], b: readonly string[]): boolean {
  for (const x of a) for (const y of b) if (pathsOverlap(x, y)) return true;
  return false;
}

/**
 * The j > i overlap rule: role j waits for role i when their territories overlap and no dependency path
 * already orders them. Returns, per i, the ascending list of such j.
 *
 * Same answer as comparing every pair of paths with pathsOverlap, in time linear in the paths plus the overlapping
 * pairs (and a sort of the distinct keys): two paths overlap literally when one's slash-terminated form is a prefix
 * of the other's, and the keys that start with a given key follow it in sorted order, so one forward scan per key
 * finds them; the `**` rule does the same on glob bases. Written to allocate little: the helper runs this once per
 * process, and every young-generation collection it triggers copies the whole parsed plan.
 */
export function overlapWaits(territories: readonly string[][], deps: Deps): number[][] {
  const n = territories.length;
  const pairs = overlappingPairs(territories);
  const ordered = orderedBy(deps);
  const out: number[][] = new Array(n);
  for (let i = 0; i < n; i++) {
    const js = pairs[i];
    if (!js) {
      out[i] = [];
      continue;
    }
    js.sort(byNumber);
    let w = 0;
    let prev = -1;
    for (let k = 0; k < js.length; k++) {
      const j = js[k];
      if (j === prev) continue;
      prev = j;
      if (!ordered(i, j)) js[w++] = j;
    }
    js.length = w;
    out[i] = js;
  }
  return out;
}

const byNumber = (a: number, b: number) => a - b;

/** pairs[i]: the j > i whose territories overlap i's (repeats possible: one per pair of overlapping paths). */
function overlappingPairs(territories: readonly string[][]): Array<number[] | undefined> {
  const n = territories.length;
  let paths = 0;
  for (let i = 0; i < n; i++) paths += territories[i].length;
  // Per key, the roles that name it: a list threaded through owner/next (newest first, -1 ends it), so a key costs
  // one map entry and no array. Typed arrays of this size live outside the JavaScript heap.
  const owner = new Int32Array(3 * paths);
  const next = new Int32Array(3 * paths);
  let used = 0;
  const literal = new Map<string, number>();
  const globAll = new Map<string, number>(); // every path's glob base (non-empty), slash-terminated
  const globStar = new Map<string, number>(); // the same, for paths with "**" only
  const add = (m: Map<string, number>, k: string, i: number) => {
    const head = m.get(k);
    if (head !== undefined && owner[head] === i) return;
    owner[used] = i;
    next[used] = head ?? -1;
    m.set(k, used++);
  };
  // Indexed loops throughout: a for-of loop allocates a result object per step until V8 optimises the function,
  // and this code runs once per process, cold.
  for (let i = 0; i < n; i++) {
    const ps = territories[i];
    for (let k = 0; k < ps.length; k++) {
      const p = ps[k];
      add(literal, withSlash(p), i);
      const glob = globKey(p);
      if (glob === null) continue;
      add(globAll, glob, i);
      if (p.includes("**")) add(globStar, glob, i);
    }
  }

  const pairs: Array<number[] | undefined> = new Array(n);
  const meet = (x: number, y: number) => {
    for (let p = x; p >= 0; p = next[p]) {
      const a = owner[p];
      for (let q = y; q >= 0; q = next[q]) {
        const b = owner[q];
        if (a === b) continue;
        (pairs[a < b ? a : b] ??= []).push(a < b ? b : a);
      }
    }
  };
  prefixPairs(literal, literal, meet);
  prefixPairs(globStar, globAll, meet); // bases at or below a "**" path's base
  prefixPairs(globAll, globStar, meet); // "**" paths whose base is at or below another base
  return pairs;
}

/**
 * For every key of `outer`, each key of `inner` that starts with it (itself included): `meet` their lists. Keys
 * that start with `k` are contiguous from k's place in sorted order, so one pointer walks `inner` once.
 */
function prefixPairs(outer: Map<string, number>, inner: Map<string, number>, meet: (a: number, b: number) => void): void {
  const os = [...outer.keys()].sort();
  const is = outer === inner ? os : [...inner.keys()].sort();
  let from = 0;
  for (let x = 0; x < os.length; x++) {
    const k = os[x];
    while (from < is.length && is[from] < k) from++;
    const mine = outer.get(k) as number;
    for (let q = from; q < is.length && is[q].startsWith(k); q++) meet(mine, inner.get(is[q]) as number);
  }
}

/**
 * `ordered(i, j)`: whether a dependency path joins i and j (either way). Each role's ancestors (as `ancestors()`
 * finds them) are computed once, on first need, breadth-first into one shared pool where they then stay, sorted:
 * no Set or array per role.
 */
function orderedBy(deps: Deps): (i: number, j: number) => boolean {
  const n = deps.length;
  // Role i's ancestors, sorted, are pool[from[i], from[i] + size[i]); size -1: not computed yet.
  const from = new Int32Array(n);
  const size = new Int32Array(n).fill(-1);
  let pool = new Int32Array(Math.max(64, 4 * n));
  let top = 0;
  const mark = new Int32Array(n);
  let epoch = 0;
  const visit = (ds: number[]) => {
    for (let k = 0; k < ds.length; k++) {
      const d = ds[k];
      if (mark[d] === epoch) continue;
      mark[d] = epoch;
      if (top === pool.length) {
        const bigger = new Int32Array(2 * pool.length);
        bigger.set(pool);
        pool = bigger;
      }
      pool[top++] = d;
    }
  };
  const ancestorsOf = (i: number) => {
    if (size[i] >= 0) return;
    epoch++;
    const start = top;
    visit(deps[i]); // breadth-first: the pool past `start` is the queue
    for (let head = start; head < top; head++) visit(deps[pool[head]]);
    from[i] = start;
    size[i] = top - start;
    pool.subarray(start, top).sort();
  };
  const has = (i: number, v: number) => {
    ancestorsOf(i);
    let lo = from[i];
    let hi = lo + size[i];
    const end = hi;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (pool[mid] < v) lo = mid + 1;
      else hi = mid;
    }
    return lo < end && pool[lo] === v;
  };
  return (i, j) => has(i, j) || has(j, i);
}
