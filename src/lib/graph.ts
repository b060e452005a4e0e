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
  while (queue.length) {
    const d = queue.shift() as number;
    if (seen.has(d)) continue;
    seen.add(d);
    queue.push(...deps[d]);
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
 */
export function overlapWaits(territories: readonly string[][], deps: Deps): number[][] {
  const anc = deps.map((_, i) => ancestors(deps, i));
  const out: number[][] = territories.map(() => []);
  for (let i = 0; i < territories.length; i++) {
    for (let j = i + 1; j < territories.length; j++) {
      if (anc[i].has(j) || anc[j].has(i)) continue;
      if (territoriesOverlap(territories[i], territories[j])) out[i].push(j);
    }
  }
  return out;
}
