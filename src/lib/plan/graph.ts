// Pure dependency-graph algorithms over role indices (contract 3.1-3.5).
import { schedulerCore, type SchedulerCore } from "./scheduler.js";


/** deps[i] lists, in order, the indices that role i depends on. */
export type Deps = number[][];

/**
 * Depth per role (1 + the deepest dependency; 1 without any); 999 stands for a dependency that closes a cycle on
 * the current walk (contract 3.2). Depth-first in role order with an explicit stack, so a dependency chain of any
 * length fits; the same numbers as the recursive definition, cycles included.
 */
export function depths(deps: Deps): number[] {
  const n = deps.length;
  const memo = new Int32Array(n); // 0: not known yet
  const onWalk = new Uint8Array(n);
  const pos = new Int32Array(n);
  const best = new Float64Array(n);
  const walk: number[] = [];
  for (let r = 0; r < n; r++) {
    if (memo[r] !== 0) continue;
    walk.push(r);
    onWalk[r] = 1;
    pos[r] = 0;
    best[r] = -Infinity;
    while (walk.length) {
      const v = walk[walk.length - 1];
      const ds = deps[v];
      let down = false;
      for (; pos[v] < ds.length; pos[v]++) {
        const d = ds[pos[v]];
        let got: number;
        if (memo[d] !== 0) got = memo[d];
        else if (onWalk[d]) got = 999;
        else {
          walk.push(d);
          onWalk[d] = 1;
          pos[d] = 0;
          best[d] = -Infinity;
          down = true;
          break;
        }
        if (got > best[v]) best[v] = got;
      }
      if (down) continue;
      memo[v] = ds.length === 0 ? 1 : best[v] + 1;
      onWalk[v] = 0;
      walk.pop();
      if (walk.length) {
        const u = walk[walk.length - 1];
        if (memo[v] > best[u]) best[u] = memo[v];
        pos[u]++;
      }
    }
  }
  return Array.from(memo);
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
  for (let head = 0; head < queue.length; head++) {
    for (const j of rev[queue[head]]) {
      if (!seen.has(j)) {
        seen.add(j);
        queue.push(j);
      }
    }
  }
  for (const s of start) seen.delete(s);
  return seen;
}

/** True when following deps can come back to where it started (a self-dependency counts). Iterative. */
export function hasCycle(deps: Deps): boolean {
  const n = deps.length;
  const state = new Uint8Array(n); // 0 new, 1 on the walk, 2 finished
  const pos = new Int32Array(n);
  const walk: number[] = [];
  for (let r = 0; r < n; r++) {
    if (state[r] !== 0) continue;
    walk.push(r);
    state[r] = 1;
    while (walk.length) {
      const v = walk[walk.length - 1];
      const ds = deps[v];
      if (pos[v] < ds.length) {
        const d = ds[pos[v]++];
        if (state[d] === 1) return true;
        if (state[d] === 0) {
          state[d] = 1;
          walk.push(d);
        }
      } else {
        state[v] = 2;
        walk.pop();
      }
    }
  }
  return false;
}

// ---------------------------------------------------------------- territory overlap (contract 3.4)
//
// The rule itself lives in the self-contained scheduler (schedulerCore, which the Workflow script embeds), so
// finalize, overlap-matrix, next and the generated script all decide overlap the same way: by the file paths two
// scope entries can both cover, not by their text.

let core: SchedulerCore | undefined;
const rule = (): SchedulerCore => (core ??= schedulerCore());

/** Each role's scope entries (directories, then patterns) in the rule's canonical form; `root`: the project. */
export function territoriesOf(roles: readonly unknown[], root?: string): string[][] {
  const r = rule();
  const out: string[][] = new Array(roles.length);
  for (let i = 0; i < roles.length; i++) out[i] = r.territoryOf(roles[i], root);
  return out;
}

/** One scope entry in canonical form: a directory (`pattern` false) or a pattern of a role's scope. */
export function scopeEntry(raw: string, pattern: boolean, root?: string): string {
  return rule().scopeEntry(raw, pattern, root);
}

/** Whether two scope directories cover a common file. */
export function pathsOverlap(a: string, b: string, root?: string): boolean {
  const r = rule();
  return r.entriesOverlap(r.scopeEntry(a, false, root), r.scopeEntry(b, false, root));
}

/** Whether two canonical territories (territoriesOf) share a file. */
export function territoriesOverlap(a: readonly string[], b: readonly string[]): boolean {
  const r = rule();
  for (const x of a) for (const y of b) if (r.entriesOverlap(x, y)) return true;
  return false;
}

/**
 * The j > i overlap rule: role j waits for role i when their canonical territories (territoriesOf) overlap and no
 * dependency path already orders them. Returns, per i, the ascending list of such j. Same answer as comparing
 * every pair of entries, without comparing every pair (schedulerCore's overlapWaits says how).
 */
export function overlapWaits(territories: readonly string[][], deps: Deps): number[][] {
  return rule().overlapWaits(territories as string[][], deps);
}
