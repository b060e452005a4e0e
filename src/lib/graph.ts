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
    for (const x of deps[d]) if (!seen.has(x)) queue.push(x);
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

function withSlash(s: string): string {
  return `${s.replace(/\/+$/, "")}/`;
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
 * Same answer as comparing every pair of paths with pathsOverlap, in time linear in the paths' slashes plus the
 * overlapping pairs: two paths overlap literally when one's slash-terminated form is a slash-terminated prefix of
 * the other's, so each path looks up its own prefixes in a map; the `**` rule does the same on glob bases.
 */
export function overlapWaits(territories: readonly string[][], deps: Deps): number[][] {
  const n = territories.length;
  const literal = new Map<string, number[]>();
  const globAll = new Map<string, number[]>(); // every path's glob base (non-empty), slash-terminated
  const globStar = new Map<string, number[]>(); // the same, for paths with "**" only
  const add = (m: Map<string, number[]>, k: string, i: number) => {
    const list = m.get(k);
    if (!list) m.set(k, [i]);
    else if (list[list.length - 1] !== i) list.push(i);
  };
  const keys: Array<Array<{ key: string; glob: string | null; star: boolean }>> = territories.map((paths, i) =>
    paths.map((p) => {
      const key = withSlash(p);
      const base = globBase(p);
      const glob = base === "" ? null : withSlash(base);
      const star = p.includes("**");
      add(literal, key, i);
      if (glob !== null) {
        add(globAll, glob, i);
        if (star) add(globStar, glob, i);
      }
      return { key, glob, star };
    }),
  );

  const pairs: Array<Set<number>> = territories.map(() => new Set());
  const meet = (i: number, others: number[] | undefined) => {
    if (!others) return;
    for (const j of others) if (j !== i) pairs[Math.min(i, j)].add(Math.max(i, j));
  };
  /** The path's slash-terminated prefixes, itself included, each looked up in `m`. */
  const prefixes = (k: string, m: Map<string, number[]>, i: number) => {
    for (let at = k.indexOf("/"); at >= 0; at = k.indexOf("/", at + 1)) meet(i, m.get(k.slice(0, at + 1)));
  };
  keys.forEach((ks, i) => {
    for (const { key, glob, star } of ks) {
      prefixes(key, literal, i);
      if (glob === null) continue;
      if (star) prefixes(glob, globAll, i); // bases at or above a "**" path's base
      prefixes(glob, globStar, i); // "**" paths whose base is at or above this one's
    }
  });

  const anc: Array<Set<number> | undefined> = new Array(n);
  const ancestorsOf = (i: number) => (anc[i] ??= ancestors(deps, i));
  const out: number[][] = territories.map(() => []);
  pairs.forEach((js, i) => {
    for (const j of [...js].sort((a, b) => a - b)) {
      if (ancestorsOf(i).has(j) || ancestorsOf(j).has(i)) continue;
      out[i].push(j);
    }
  });
  return out;
}
