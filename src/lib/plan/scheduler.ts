// The execute scheduler: what to start now, on which model, what waits and on what, when a run is done, and how
// a status change moves the plan (state machine, attempt log, cascade, restoration).
//
// The scheduler is a row of self-contained part functions (SCHEDULER_PARTS), each referring to nothing outside its
// own body but its one parameter (what the parts before it made), and `assembleScheduler`, which makes them in
// order. `schedulerCore()` is that assembly: `next` and `update-status` call it, and the `workflow` compiler embeds
// the same source texts (`schedulerSource()`: the assembly and every part, by `toString()`) into the generated
// Workflow script, so the script decides exactly as the helper does. Keep it that way: no imports, no module-level
// helper a part calls, no TypeScript-only runtime constructs inside; a new part goes into SCHEDULER_PARTS and
// assembleScheduler in its order.
//
// Why one file: the parts are embedded as source text in the generated Workflow script, so they stay together,
// with no imports.

/** One attempt of a role, recorded in plan.json (`roles[i].attemptLog`) so a resume knows each attempt's tier. */
export interface AttemptEntry {
  attempt: number;
  model: string;
  agent: string;
  /** running, completed, failed, stalled or interrupted. */
  outcome: string;
  /** When the attempt was recorded as started and as ended (update-status, next; ISO seconds, UTC). */
  startedAt?: string;
  endedAt?: string;
  /** A retry's reflexion, given with its start; kept when the attempt ends. */
  reflexion?: Record<string, string>;
  /** The result the lead recorded when the attempt ended (each attempt keeps its own; the role's is the last). */
  result?: string;
}

export interface DependencyContext {
  roleIndex: number;
  name: string;
  agent: string;
  reportPath: string;
}

export interface StartOrder {
  roleIndex: number;
  name: string;
  /** The agent name for this attempt (sets the report path). */
  agent: string;
  model: string;
  /** 1-based number of this attempt. */
  attempt: number;
  /** True when the role failed before and this is its retry. */
  retry: boolean;
  /** The status the role has now: "pending", or "failed" for a retry. */
  from: string;
  /** The tier of the previous attempt, when there was one. */
  previousModel: string | null;
  /** The previous attempt's agent: stop it first when it stalled, and clean its partial work. */
  replaces: { agent: string; outcome: string } | null;
  reportPath: string;
  /** Completed dependencies whose reports hold the contextForDependents this start needs. */
  dependencies: DependencyContext[];
}

export interface Decision {
  done: boolean;
  reason: string;
  start: StartOrder[];
  running: Array<{ roleIndex: number; name: string; agent: string; model: string; attempt: number; reportPath: string }>;
  waiting: Array<{ roleIndex: number; name: string; on: Array<{ roleIndex: number; name: string; kind: string }> }>;
  failedForGood: Array<{ roleIndex: number; name: string; reason: string }>;
  unreachable: Array<{ roleIndex: number; name: string; reason: string }>;
  breaker: { tripped: boolean; reason: string; wouldBeSkipped: number; remainingCount: number };
  counts: Record<string, number>;
}

export interface StatusUpdate {
  roleIndex: number;
  status: string | null;
  hasResult: boolean;
  result?: unknown;
  model?: string;
  agent?: string;
  stalled?: boolean;
  /** A retry's reflexion (update-status requires it: lib/attempts/reflexion.ts), kept on the attempt it starts. */
  reflexion?: Record<string, string>;
}

export interface ApplyResult {
  updated: number[];
  cascaded: Array<{ roleIndex: number; name: string; status: string; reason: string }>;
  trimmed: number[];
  restored: Array<{ roleIndex: number; name: string; status: string }>;
}

/** What `apply` calls back (update-status passes all; the Workflow script only `fail`). */
export interface ApplyHooks {
  fail: (code: string, message: string) => never;
  /** A role just completed (after its attempt closed). */
  onComplete?: (role: any, i: number) => void;
  /** Before a role moves from in_progress to completed, its attempt still open: throw (via fail) to refuse it. */
  beforeComplete?: (role: any, i: number) => void;
  /** An attempt entry was opened (in_progress) or closed (completed, failed, stalled). */
  onOpen?: (entry: any, role: any, i: number) => void;
  onClose?: (entry: any, role: any, i: number) => void;
  /** An update to the status the role has already (nothing changes): throw (via fail) to refuse it. */
  onSame?: (role: any, i: number, update: StatusUpdate) => void;
}

export interface SchedulerCore {
  TIERS: readonly string[];
  MAX_ATTEMPTS: number;
  MAX_STALLS: number;
  statusOf(role: any): string;
  attemptsOf(role: any): number;
  logOf(role: any): AttemptEntry[];
  /** Worker name from a role name: lowercase, `_`/whitespace runs → "-", only [a-z0-9-], no "-" runs or ends. */
  slug(name: string): string;
  baseNames(roles: any[]): string[];
  depsOf(roles: any[]): number[][];
  /** A scope entry in canonical form: see the overlap section of schedulerCore. */
  scopeEntry(raw: string, pattern: boolean, root?: string): string;
  /** A role's scope entries (directories, then patterns) in canonical form. */
  territoryOf(role: any, root?: string): string[];
  /** Whether two canonical entries cover a common file path. */
  entriesOverlap(x: string, y: string): boolean;
  /** A file path two canonical entries both cover; null when there is none, "" when the rule did not look. */
  entriesWitness(x: string, y: string): string | null;
  /** Per role i, the ascending j > i that overlap it with no dependency path between them. */
  overlapWaits(territories: string[][], deps: number[][]): number[][];
  conflictsOf(roles: any[], deps: number[][], root?: string): number[][];
  tierFor(role: any): string;
  stallsOf(role: any): number;
  retryable(role: any): boolean;
  permanentReason(role: any): string;
  agentName(base: string, attempt: number): string;
  nextAttempt(role: any): number;
  reportPath(agent: string): string;
  completedAgent(roles: any[], i: number, bases?: string[]): string;
  decide(roles: any[], root?: string): Decision;
  apply(
    roles: any[],
    updates: StatusUpdate[],
    hooks: ApplyHooks,
  ): ApplyResult;
  interrupt(roles: any[], i: number): void;
}


interface Nfa {
  /** Per state: its labelled edges as [label, target, label, target, …], and its ε-edges. */
  edges: number[][];
  eps: number[][];
  accept: Uint8Array;
}

/** A decision's inputs, read once from the roles (schedulerLive, schedulerDecide). */
interface DecideContext {
  roles: any[];
  deps: number[][];
  bases: string[];
  conflicts: number[][];
  status: string[];
  name: (i: number) => string;
  n: number;
}

/** The constants, the reading of a role (status, attempts, log), worker names, dependencies. */
function schedulerBasics() {
  const TIERS = ["haiku", "sonnet", "opus"];
  const MAX_ATTEMPTS = 3;
  const MAX_STALLS = 2;
  const ALLOWED: Record<string, string[]> = { pending: ["in_progress"], in_progress: ["completed", "failed"], failed: ["pending"] };
  const FAILURE_LIKE = ["failed", "blocked"];
  const CAUSES = ["failed", "blocked", "skipped"];

  const isObj = (v: any) => typeof v === "object" && v !== null && !Array.isArray(v);
  const isInt = (v: any) => typeof v === "number" && Number.isInteger(v);
  const strOf = (v: any) => (typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));
  function statusOf(role: any): string {
    const s = role.status;
    if (s === undefined || s === null) return "pending";
    return typeof s === "string" ? s : String(s);
  }
  function attemptsOf(role: any): number {
    return isInt(role.attempts) && role.attempts >= 0 ? role.attempts : 0;
  }
  function logOf(role: any): AttemptEntry[] {
    return Array.isArray(role.attemptLog) ? role.attemptLog.filter(isObj) : [];
  }
  function slug(name: string): string {
    const s = name
      .toLowerCase()
      .replace(/[\s_]+/g, "-")
      .replace(/[^a-z0-9-]/g, "")
      .replace(/-+/g, "-")
      .replace(/^-+|-+$/g, "");
    return s || "worker";
  }
  /** One unique slug per role, in role order (worker-pool's rule: a repeated slug gets -2, -3, ...). */
  function baseNames(roles: any[]): string[] {
    const issued = new Set<string>();
    const tried = new Map<string, number>(); // per slug, the suffix to try next (the ones below are taken)
    return roles.map((r) => {
      const base = slug(strOf(r.name));
      let name = base;
      let n = tried.get(base) ?? 2;
      for (; issued.has(name); n++) name = base + "-" + n;
      tried.set(base, n);
      issued.add(name);
      return name;
    });
  }
  /** Attempt 1 is the bare slug; later attempts add "--<n>" (a slug never holds "--", so names never collide). */
  function agentName(base: string, attempt: number): string {
    return attempt <= 1 ? base : base + "--" + attempt;
  }
  function reportPath(agent: string): string {
    return ".design/worker-" + agent + ".json";
  }
  function depsOf(roles: any[]): number[][] {
    const idx = new Map<string, number>();
    roles.forEach((r, i) => {
      if (r.name === undefined) idx.set("", i);
      else if (typeof r.name === "string") idx.set(r.name, i);
    });
    return roles.map((r) => {
      const scope = isObj(r.scope) ? r.scope : {};
      const names = Array.isArray(scope.dependencies) ? scope.dependencies : [];
      const out: number[] = [];
      for (const n of names) if (typeof n === "string" && idx.has(n)) out.push(idx.get(n) as number);
      return out;
    });
  }
  function reverse(deps: number[][]): number[][] {
    const rev: number[][] = deps.map(() => []);
    for (let i = 0; i < deps.length; i++) {
      const ds = deps[i];
      for (let k = 0; k < ds.length; k++) rev[ds[k]].push(i);
    }
    return rev;
  }
  /** Every role that transitively depends on a member of `set`, the members themselves left out (breadth-first). */
  function dependents(deps: number[][], set: Iterable<number>): Set<number> {
    const rev = reverse(deps);
    const start = new Set(set);
    const seen = new Set<number>();
    const queue = [...start];
    for (let head = 0; head < queue.length; head++) {
      const next = rev[queue[head]];
      for (let k = 0; k < next.length; k++) {
        const j = next[k];
        if (!seen.has(j)) {
          seen.add(j);
          queue.push(j);
        }
      }
    }
    for (const s of start) seen.delete(s);
    return seen;
  }
  return { TIERS, MAX_ATTEMPTS, MAX_STALLS, ALLOWED, FAILURE_LIKE, CAUSES, isObj, isInt, strOf, statusOf, attemptsOf, logOf, slug, baseNames, agentName, reportPath, depsOf, reverse, dependents };
}

/** Scope entries in canonical form, and the automaton of an entry. */
function schedulerEntries(k: Made1) {
  // ------------------------------------------------------------ territory overlap, by meaning
  //
  // Two roles may not run together when some file path lies in both territories. An entry of a role's scope is
  // first put in one canonical form (`scopeEntry`): project-relative, `.`/empty segments and trailing slashes
  // dropped, `..` resolved, ASCII letters lowered (macOS and Windows file systems ignore case), an absolute path
  // inside `root` made relative. A directory covers itself and every path under it: its form ends in "/". A
  // pattern covers what it matches, as the grant's globMatch reads it (`**` spans directories, `*` and `?` stay
  // within one); a pattern without a wildcard is read as a directory too. Whatever the rule cannot place counts as
  // covering everything (UNIVERSAL): the project itself, an empty entry, an absolute path outside `root` (or any,
  // without one), `~`, `..` above the project or after `**`. `{…}` and `[…]` groups, which other glob dialects
  // read, become `**`, which covers all they could match. Two entries overlap when some path made of non-empty
  // segments is covered by both: a walk of the product of the two entries' automata (`entriesMeet`).
  const UNIVERSAL = "**/";
  /** Transition labels besides a character code: any character, any character but "/". */
  const ANY_CHAR = -1;
  const NOT_SLASH = -2;
  /** Product automata larger than this are not walked: the pair counts as overlapping. */
  const MAX_PRODUCT = 1 << 20;

  function lowerAscii(s: string): string {
    return /[A-Z]/.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s;
  }
  /** Index of the first `*` or `?`, or -1. */
  function firstWild(s: string): number {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 42 || c === 63) return i;
    }
    return -1;
  }
  /**
   * The canonical form of one scope entry: a directory (`pattern` false) ends in "/", as does a pattern without a
   * wildcard; UNIVERSAL when the entry may cover anything. `root`: the project's absolute path, when known.
   */
  function scopeEntry(raw: string, pattern: boolean, root?: string): string {
    let s = raw.trim();
    let end = s.length;
    while (end > 0 && s.charCodeAt(end - 1) === 47) end--;
    if (end === 0) return UNIVERSAL; // "", "/" and "//" all name the project or more
    if (s.charCodeAt(0) === 47) {
      if (typeof root !== "string" || root === "") return UNIVERSAL;
      let r = root.length;
      while (r > 0 && root.charCodeAt(r - 1) === 47) r--;
      const base = lowerAscii(root.slice(0, r)) + "/";
      const abs = lowerAscii(s.slice(0, end)) + "/";
      if (!abs.startsWith(base) || abs.length === base.length) return UNIVERSAL;
      s = s.slice(base.length, end);
    } else s = s.slice(0, end);
    if (s.charCodeAt(0) === 126) return UNIVERSAL; // "~": the user's home
    s = lowerAscii(s);
    if (/[[{]/.test(s)) {
      for (let prev = ""; prev !== s; ) {
        prev = s;
        s = s.replace(/\{[^{}]*\}|\[[^\]]*\]/g, "**");
      }
    }
    if (/\/\/|(?:^|\/)\.\.?(?:\/|$)/.test(s)) {
      const parts = s.split("/");
      const out: string[] = [];
      for (let k = 0; k < parts.length; k++) {
        const p = parts[k];
        if (p === "" || p === ".") continue;
        if (p === "..") {
          if (out.length === 0 || out[out.length - 1].includes("**")) return UNIVERSAL;
          out.pop();
        } else out.push(p);
      }
      if (out.length === 0) return UNIVERSAL;
      s = out.join("/");
    }
    if (s === "**" || (!pattern && /^(?:\*\*\/)*\*\*$/.test(s))) return UNIVERSAL;
    return pattern && firstWild(s) >= 0 ? s : s + "/";
  }
  /** The literal text every path an entry covers starts with, once "/" is added to the path's end. */
  function entryKey(e: string): string {
    const w = firstWild(e);
    return w < 0 ? e : e.slice(0, w);
  }
  /** The automaton of a canonical entry: globMatch's reading of the glob, then ("/" and anything) for a directory. */
  function entryNfa(e: string): Nfa {
    const dir = e.charCodeAt(e.length - 1) === 47;
    const g = dir ? e.slice(0, -1) : e;
    const edges: number[][] = [];
    const eps: number[][] = [];
    const add = () => {
      edges.push([]);
      eps.push([]);
      return edges.length - 1;
    };
    let s = add();
    for (let i = 0; i < g.length; ) {
      const c = g.charCodeAt(i);
      const t = add();
      if (c === 42 && g.charCodeAt(i + 1) === 42) {
        if (g.charCodeAt(i + 2) === 47) {
          // "**/": nothing, or anything that ends in "/"
          const m = add();
          eps[s].push(t, m);
          edges[m].push(ANY_CHAR, m, 47, t);
          i += 3;
        } else {
          edges[s].push(ANY_CHAR, s);
          eps[s].push(t);
          i += 2;
        }
      } else if (c === 42) {
        edges[s].push(NOT_SLASH, s);
        eps[s].push(t);
        i += 1;
      } else {
        edges[s].push(c === 63 ? NOT_SLASH : c, t);
        i += 1;
      }
      s = t;
    }
    const accept = new Uint8Array(edges.length + (dir ? 1 : 0));
    accept[s] = 1;
    if (dir) {
      const u = add();
      edges[s].push(47, u);
      edges[u].push(ANY_CHAR, u);
      accept[u] = 1;
    }
    return { edges, eps, accept };
  }
  return { UNIVERSAL, ANY_CHAR, NOT_SLASH, MAX_PRODUCT, lowerAscii, firstWild, scopeEntry, entryKey, entryNfa };
}

/** Whether two entries meet, and a role's territory. */
function schedulerMeet(k: Made2) {
  const { isObj, UNIVERSAL, ANY_CHAR, MAX_PRODUCT, scopeEntry, entryKey, entryNfa } = k;
  /**
   * A path of non-empty segments both automata accept, or null when there is none (the witness's wildcard
   * characters are "x"); `true` instead of a path when the product is too large to walk. Depth-first over
   * (state of a, state of b, whether the text so far ends a segment), with an explicit stack.
   */
  function entriesMeet(a: Nfa, b: Nfa): string | null | true {
    const na = a.edges.length;
    const nb = b.edges.length;
    const size = na * nb * 2;
    if (size > MAX_PRODUCT) return true;
    const parent = new Int32Array(size).fill(-2); // -2: not reached; -1: the start
    const via = new Int32Array(size); // the character read to get here, 0 for an ε-edge
    const stack = [1]; // state (0, 0), at a segment start
    parent[1] = -1;
    const reach = (from: number, p: number, q: number, atStart: number, ch: number) => {
      const code = (p * nb + q) * 2 + atStart;
      if (parent[code] !== -2) return;
      parent[code] = from;
      via[code] = ch;
      stack.push(code);
    };
    while (stack.length) {
      const code = stack.pop() as number;
      const atStart = code & 1;
      const p = Math.floor((code >> 1) / nb);
      const q = (code >> 1) - p * nb;
      if (!atStart && a.accept[p] && b.accept[q]) {
        let text = "";
        for (let c = code; parent[c] !== -1; c = parent[c]) if (via[c]) text = String.fromCharCode(via[c]) + text;
        return text;
      }
      const ea = a.eps[p];
      for (let k = 0; k < ea.length; k++) reach(code, ea[k], q, atStart, 0);
      const eb = b.eps[q];
      for (let k = 0; k < eb.length; k++) reach(code, p, eb[k], atStart, 0);
      const xa = a.edges[p];
      const xb = b.edges[q];
      for (let i = 0; i < xa.length; i += 2) {
        const la = xa[i];
        for (let j = 0; j < xb.length; j += 2) {
          const lb = xb[j];
          // What one character can satisfy both labels: "/" (if allowed here), another character, or both.
          let slash = false;
          let other = 0; // the character to read, 0: none
          if (la >= 0 && lb >= 0) {
            if (la === lb) {
              if (la === 47) slash = true;
              else other = la;
            }
          } else if (la >= 0 || lb >= 0) {
            const c = la >= 0 ? la : lb;
            const wild = la >= 0 ? lb : la;
            if (c !== 47) other = c;
            else if (wild === ANY_CHAR) slash = true;
          } else {
            other = 120; // "x"
            slash = la === ANY_CHAR && lb === ANY_CHAR;
          }
          if (slash && !atStart) reach(code, xa[i + 1], xb[j + 1], 1, 47);
          if (other) reach(code, xa[i + 1], xb[j + 1], 0, other);
        }
      }
    }
    return null;
  }
  /** Whether two canonical entries cover a common path (see scopeEntry). */
  function entriesOverlap(x: string, y: string, nfaOf?: (e: string) => Nfa): boolean {
    if (x === y || x === UNIVERSAL || y === UNIVERSAL) return true;
    const kx = entryKey(x);
    const ky = entryKey(y);
    if (!(kx.startsWith(ky) || ky.startsWith(kx))) return false;
    // Two directories: one holds the other exactly when its key is a prefix of the other's.
    if (kx.length === x.length && ky.length === y.length) return true;
    const of = nfaOf ?? entryNfa;
    return entriesMeet(of(x), of(y)) !== null;
  }
  /** A path both canonical entries cover, for tests and messages; null when none; "" when unsure (too large). */
  function entriesWitness(x: string, y: string): string | null {
    const m = entriesMeet(entryNfa(x), entryNfa(y));
    return m === true ? "" : m;
  }
  /** A role's scope (directories, then patterns) in canonical form, strings only, each form once. */
  function territoryOf(role: any, root?: string): string[] {
    const scope = isObj(role) && isObj(role.scope) ? role.scope : null;
    const out: string[] = [];
    if (!scope) return out;
    const dirs = Array.isArray(scope.directories) ? scope.directories : [];
    const pats = Array.isArray(scope.patterns) ? scope.patterns : [];
    // A role names a few entries: a linear search of `out` allocates nothing; a Set only for a long list.
    const seen = dirs.length + pats.length > 32 ? new Set<string>() : null;
    for (let k = 0; k < dirs.length + pats.length; k++) {
      const x = k < dirs.length ? dirs[k] : pats[k - dirs.length];
      if (typeof x !== "string") continue;
      const e = scopeEntry(x, k >= dirs.length, root);
      if (seen ? seen.has(e) : out.includes(e)) continue;
      if (seen) seen.add(e);
      out.push(e);
    }
    return out;
  }
  return { entriesMeet, entriesOverlap, entriesWitness, territoryOf };
}

/** The overlapping pairs of a plan's territories, without comparing every pair. */
function schedulerPairs(k: Made3) {
  const { UNIVERSAL, entryKey, entryNfa, entriesOverlap } = k;
  /**
   * pairs[i]: the j > i whose canonical territories overlap i's (repeats possible), without comparing every pair.
   * Every path an entry covers, with "/" added to its end, starts with the entry's key (entryKey), so two entries
   * can overlap only when one key is a prefix of the other; the keys that start with a given key follow it in
   * sorted order, so one forward scan per key finds those pairs. Two directories whose keys are so related
   * overlap; a pair with a pattern is decided by its automata (entriesOverlap), once per pair of distinct entries.
   */
  function overlappingPairs(territories: string[][]): Array<number[] | undefined> {
    const n = territories.length;
    let count = 0;
    for (let i = 0; i < n; i++) count += territories[i].length;
    // Per key, the (role, entry) nodes that have it: lists threaded through role/entry/next (-1 ends one), so a
    // key costs one map entry and no array.
    const owner = new Int32Array(2 * count + 1);
    const entry = new Int32Array(2 * count + 1);
    const next = new Int32Array(2 * count + 1);
    let used = 0;
    const ids = new Map<string, number>();
    const forms: string[] = [];
    const dirKeys = new Map<string, number>(); // directories
    const allKeys = new Map<string, number>(); // every entry
    const wildKeys = new Map<string, number>(); // patterns with a wildcard
    const universal: number[] = [];
    const add = (m: Map<string, number>, k: string, i: number, id: number) => {
      owner[used] = i;
      entry[used] = id;
      next[used] = m.get(k) ?? -1;
      m.set(k, used++);
    };
    for (let i = 0; i < n; i++) {
      const es = territories[i];
      for (let k = 0; k < es.length; k++) {
        const e = es[k];
        if (e === UNIVERSAL) {
          if (universal[universal.length - 1] !== i) universal.push(i);
          continue;
        }
        let id = ids.get(e);
        if (id === undefined) {
          id = forms.length;
          ids.set(e, id);
          forms.push(e);
        }
        const key = entryKey(e);
        if (key.length === e.length) add(dirKeys, key, i, id);
        else add(wildKeys, key, i, id);
        add(allKeys, key, i, id);
      }
    }

    const pairs: Array<number[] | undefined> = new Array(n);
    const pair = (a: number, b: number) => {
      if (a !== b) (pairs[a < b ? a : b] ??= []).push(a < b ? b : a);
    };
    const nfas: Nfa[] = [];
    const nfaOf = (e: string) => {
      const id = ids.get(e) as number;
      return (nfas[id] ??= entryNfa(e));
    };
    const decided = new Map<number, boolean>();
    const exact = (x: number, y: number) => {
      if (x === y) return true;
      const code = x < y ? x * forms.length + y : y * forms.length + x;
      let v = decided.get(code);
      if (v === undefined) decided.set(code, (v = entriesOverlap(forms[x], forms[y], nfaOf)));
      return v;
    };
    const meetAll = (x: number, y: number) => {
      for (let p = x; p >= 0; p = next[p]) for (let q = y; q >= 0; q = next[q]) pair(owner[p], owner[q]);
    };
    const meetChecked = (x: number, y: number) => {
      for (let p = x; p >= 0; p = next[p]) {
        for (let q = y; q >= 0; q = next[q]) if (owner[p] !== owner[q] && exact(entry[p], entry[q])) pair(owner[p], owner[q]);
      }
    };
    prefixPairs(dirKeys, dirKeys, meetAll);
    prefixPairs(wildKeys, allKeys, meetChecked); // a pattern's key at or above any other key
    prefixPairs(dirKeys, wildKeys, meetChecked); // a directory's key above a pattern's
    // An entry that may cover anything overlaps every role that has an entry.
    for (let u = 0; u < universal.length; u++) for (let j = 0; j < n; j++) if (territories[j].length) pair(universal[u], j);
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
  return { overlappingPairs, prefixPairs };
}

/** Dependency order, and the overlap waits and conflicts it leaves. */
function schedulerOrder(k: Made4) {
  const { territoryOf, overlappingPairs } = k;
  /**
   * `ordered(i, j)`: whether a dependency path joins i and j (either way). Each role's ancestors are computed once,
   * on first need, breadth-first into one shared pool where they then stay, sorted: no Set or array per role.
   */
  function orderedBy(deps: number[][]): (i: number, j: number) => boolean {
    const n = deps.length;
    const from = new Int32Array(n);
    const size = new Int32Array(n).fill(-1); // -1: not computed yet
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
  /**
   * The j > i rule (finalize's directoryOverlaps, overlap-matrix): per role i, the ascending j > i whose canonical
   * territories (territoryOf) overlap i's and that no dependency path orders with i.
   */
  function overlapWaits(territories: string[][], deps: number[][]): number[][] {
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
      js.sort((a, b) => a - b);
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
  /** Per role, the roles it must not run beside (ascending): overlapping territory and no dependency path between them. */
  function conflictsOf(roles: any[], deps: number[][], root?: string): number[][] {
    const waits = overlapWaits(roles.map((r) => territoryOf(r, root)), deps);
    const out: number[][] = roles.map(() => []);
    for (let i = 0; i < waits.length; i++) for (let k = 0; k < waits[i].length; k++) out[waits[i][k]].push(i);
    for (let i = 0; i < waits.length; i++) for (let k = 0; k < waits[i].length; k++) out[i].push(waits[i][k]);
    return out;
  }
  return { orderedBy, overlapWaits, conflictsOf };
}

/** A role's attempts: stalls, failures, its tier, whether it may retry, its completed agent. */
function schedulerAttempts(k: Made5) {
  const { TIERS, MAX_ATTEMPTS, MAX_STALLS, statusOf, attemptsOf, logOf, baseNames, agentName } = k;
  function stallsOf(role: any): number {
    return logOf(role).filter((e) => e.outcome === "stalled").length;
  }
  /** Failed attempts (stalls included); a plan without an attempt log counts its unsuccessful attempts. */
  function failuresOf(role: any): number {
    const log = logOf(role);
    if (log.length === 0) return attemptsOf(role);
    return log.filter((e) => e.outcome === "failed" || e.outcome === "stalled").length;
  }
  /** The plan's model, one tier up per failed attempt: haiku → sonnet → opus, capped; unknown models stay. */
  function tierFor(role: any): string {
    const base = typeof role.model === "string" && role.model !== "" ? role.model : "sonnet";
    const k = TIERS.indexOf(base);
    if (k < 0) return base;
    return TIERS[Math.min(TIERS.length - 1, k + failuresOf(role))];
  }
  function nextAttempt(role: any): number {
    return Math.max(logOf(role).length, attemptsOf(role)) + 1;
  }
  function retryable(role: any): boolean {
    return statusOf(role) === "failed" && attemptsOf(role) < MAX_ATTEMPTS && stallsOf(role) < MAX_STALLS;
  }
  function permanentReason(role: any): string {
    const s = statusOf(role);
    if (s === "blocked") return "blocked";
    if (s !== "failed") return "";
    if (stallsOf(role) >= MAX_STALLS) return "stalled twice";
    if (attemptsOf(role) >= MAX_ATTEMPTS) return attemptsOf(role) + " attempts used";
    return "";
  }
  function lastEntry(role: any): AttemptEntry | null {
    const log = logOf(role);
    return log.length ? log[log.length - 1] : null;
  }
  /** The agent whose report holds a completed role's outcome. */
  function completedAgent(roles: any[], i: number, bases?: string[]): string {
    const b = bases ?? baseNames(roles);
    const log = logOf(roles[i]);
    for (let k = log.length - 1; k >= 0; k--) if (log[k].outcome === "completed" && typeof log[k].agent === "string") return log[k].agent;
    return agentName(b[i], attemptsOf(roles[i]) + 1);
  }
  return { stallsOf, failuresOf, tierFor, nextAttempt, retryable, permanentReason, lastEntry, completedAgent };
}

/** Which roles can still get done, which failed for good, the circuit breaker. */
function schedulerLive(k: Made6) {
  const { dependents, retryable, permanentReason } = k;
  /** live[i]: whether role i is done or can still get done (see below). */
  function liveOf(c: DecideContext): boolean[] {
    const { roles, deps, bases, conflicts, status, name, n } = c;
    // live[i]: the role is done or can still get done: completed or running, or pending (a failed role with
    // retries left; a skipped one below a failed role, which a retry brings back) whose dependencies are all live.
    // A cycle of such roles never gets done. Walked depth-first with an explicit stack (any depth of dependency
    // chain), each role once.
    const failedAbove = dependents(deps, status.flatMap((s, i) => (s === "failed" ? [i] : [])));
    const live: boolean[] = new Array(n).fill(false);
    const mark = new Uint8Array(n); // 0 not seen, 1 on the walk, 2 decided
    const pos = new Int32Array(n);
    const walk: number[] = [];
    const enter = (v: number) => {
      const s = status[v];
      if (s === "completed" || s === "in_progress") live[v] = true;
      else if (s === "pending" || (s === "failed" && retryable(roles[v])) || (s === "skipped" && failedAbove.has(v))) {
        mark[v] = 1;
        walk.push(v);
        return;
      }
      mark[v] = 2;
    };
    for (let r = 0; r < n; r++) {
      if (mark[r] !== 0) continue;
      enter(r);
      while (walk.length) {
        const v = walk[walk.length - 1];
        const ds = deps[v];
        let verdict = 1; // 1: every dependency live, 0: one is not (or closes a cycle), 2: went down to one
        for (; pos[v] < ds.length; pos[v]++) {
          const d = ds[pos[v]];
          const seen: number = mark[d];
          if (seen === 0) {
            enter(d);
            if (walk[walk.length - 1] === d) {
              verdict = 2;
              break;
            }
          } else if (seen === 1) {
            verdict = 0;
            break;
          }
          if (!live[d]) {
            verdict = 0;
            break;
          }
        }
        if (verdict === 2) continue;
        live[v] = verdict === 1;
        mark[v] = 2;
        walk.pop();
      }
    }
    return live;
  }
  /** The roles failed for good, and those that cannot run (their dependencies cannot finish, or a cycle). */
  function verdictsOf(c: DecideContext, live: boolean[]) {
    const { roles, deps, bases, conflicts, status, name, n } = c;
    const failedForGood: Decision["failedForGood"] = [];
    const unreachable: Decision["unreachable"] = [];
    const permanent = new Set<number>();
    for (let i = 0; i < n; i++) {
      const why = permanentReason(roles[i]);
      if (why) {
        failedForGood.push({ roleIndex: i, name: name(i), reason: why });
        permanent.add(i);
      }
    }
    for (let i = 0; i < n; i++) {
      if (live[i] || permanent.has(i)) continue;
      if (status[i] === "pending" || status[i] === "skipped" || status[i] === "failed") {
        const d = deps[i].find((x) => !live[x]);
        const reason =
          d === undefined
            ? status[i] === "skipped"
              ? "skipped"
              : "dependency cycle"
            : "dependency on role " + d + " (" + name(d) + ") that cannot finish";
        unreachable.push({ roleIndex: i, name: name(i), reason });
      }
    }
    return { failedForGood, unreachable, permanent };
  }
  /** Circuit breaker: failures that can no longer be retried doom most of the work not yet done. */
  function breakerOf(c: DecideContext, live: boolean[], permanent: Set<number>) {
    const { roles, deps, bases, conflicts, status, name, n } = c;
    // Circuit breaker: failures that can no longer be retried doom most of the work not yet done.
    const remaining = roles
      .map((_, i) => i)
      .filter((i) => status[i] === "pending" || status[i] === "skipped" || (status[i] === "failed" && !permanent.has(i)));
    const doomedSet = dependents(deps, permanent);
    const wouldBeSkipped = remaining.filter((i) => doomedSet.has(i) || !live[i]).length;
    const tripped = n > 3 && remaining.length > 0 && wouldBeSkipped > 0.5 * remaining.length;
    const breaker = {
      tripped,
      reason: tripped ? "Circuit breaker: " + wouldBeSkipped + "/" + remaining.length + " remaining roles cannot run" : "",
      wouldBeSkipped,
      remainingCount: remaining.length,
    };
    return { remaining, tripped, breaker };
  }
  return { liveOf, verdictsOf, breakerOf };
}

/** The decision: what runs, what starts, what waits, whether the run is done. */
function schedulerDecide(k: Made7) {
  const { strOf, statusOf, baseNames, agentName, reportPath, depsOf, scopeEntry, conflictsOf, failuresOf, tierFor, nextAttempt, retryable, lastEntry, completedAgent, liveOf, verdictsOf, breakerOf } = k;
  /** The roles running now, each with its open attempt (or the one it would have). */
  function runningOf(c: DecideContext): Decision["running"] {
    const { roles, deps, bases, conflicts, status, name, n } = c;
    const running: Decision["running"] = [];
    for (let i = 0; i < n; i++) {
      if (status[i] !== "in_progress") continue;
      const last = lastEntry(roles[i]);
      const open = last && last.outcome === "running";
      const attempt = open ? (last as AttemptEntry).attempt : nextAttempt(roles[i]);
      const agent = open ? (last as AttemptEntry).agent : agentName(bases[i], attempt);
      const model = open ? (last as AttemptEntry).model : tierFor(roles[i]);
      running.push({ roleIndex: i, name: name(i), agent, model, attempt, reportPath: reportPath(agent) });
    }
    return running;
  }
  /** What starts now and what waits, and on what. */
  function startsOf(c: DecideContext, live: boolean[], running: Decision["running"], tripped: boolean) {
    const { roles, deps, bases, conflicts, status, name, n } = c;
    const start: StartOrder[] = [];
    const waiting: Decision["waiting"] = [];
    const taken = new Set<number>(running.map((r) => r.roleIndex));
    for (let i = 0; i < n; i++) {
      const s = status[i];
      const candidate = (s === "pending" || (s === "failed" && retryable(roles[i]))) && live[i];
      if (!candidate && !(s === "skipped" && live[i])) continue;
      const on: Array<{ roleIndex: number; name: string; kind: string }> = [];
      for (const d of deps[i]) if (status[d] !== "completed") on.push({ roleIndex: d, name: name(d), kind: "dependency" });
      if (s === "skipped") {
        waiting.push({ roleIndex: i, name: name(i), on });
        continue;
      }
      if (on.length === 0) for (const c of conflicts[i]) if (taken.has(c)) on.push({ roleIndex: c, name: name(c), kind: "overlap" });
      if (on.length === 0 && tripped) on.push({ roleIndex: i, name: name(i), kind: "breaker" });
      if (on.length) {
        waiting.push({ roleIndex: i, name: name(i), on });
        continue;
      }
      const role = roles[i];
      const attempt = nextAttempt(role);
      const agent = agentName(bases[i], attempt);
      const last = lastEntry(role);
      const retry = s === "failed" || failuresOf(role) > 0;
      start.push({
        roleIndex: i,
        name: name(i),
        agent,
        model: tierFor(role),
        attempt,
        retry,
        from: s,
        previousModel: last ? strOf(last.model) || null : null,
        replaces: last && last.outcome !== "completed" ? { agent: strOf(last.agent), outcome: strOf(last.outcome) } : null,
        reportPath: reportPath(agent),
        dependencies: [...new Set(deps[i])].map((d) => {
          const a = completedAgent(roles, d, bases);
          return { roleIndex: d, name: name(d), agent: a, reportPath: reportPath(a) };
        }),
      });
      taken.add(i);
    }
    return { start, waiting };
  }
  /** What to do now; `root` (the project's absolute path) places absolute scope paths (see scopeEntry). */
  function decide(roles: any[], root?: string): Decision {
    const deps = depsOf(roles);
    const bases = baseNames(roles);
    const conflicts = conflictsOf(roles, deps, root);
    const status = roles.map(statusOf);
    const name = (i: number) => strOf(roles[i].name);
    const n = roles.length;
    const c: DecideContext = { roles, deps, bases, conflicts, status, name, n };
    const live = liveOf(c);
    const { failedForGood, unreachable, permanent } = verdictsOf(c, live);
    const { remaining, tripped, breaker } = breakerOf(c, live, permanent);
    const running = runningOf(c);
    const { start, waiting } = startsOf(c, live, running, tripped);
    const counts: Record<string, number> = { pending: 0, in_progress: 0, completed: 0, failed: 0, skipped: 0, blocked: 0 };
    for (const s of status) counts[s] = (counts[s] ?? 0) + 1;

    let done = false;
    let reason = "";
    if (start.length === 0 && running.length === 0) {
      done = true;
      if (counts.completed === n) reason = n === 0 ? "the plan has no roles" : "all " + n + " roles completed";
      else if (tripped && remaining.some((i) => live[i])) reason = breaker.reason + ": no new role starts";
      else {
        const parts = [counts.completed + "/" + n + " completed"];
        if (failedForGood.length) parts.push(failedForGood.map((f) => f.name + " failed for good (" + f.reason + ")").join(", "));
        if (unreachable.length) parts.push(unreachable.length + " cannot run (" + unreachable.map((u) => u.name).join(", ") + ")");
        reason = "nothing can move: " + parts.join("; ");
      }
    }
    return { done, reason, start, running, waiting, failedForGood, unreachable, breaker, counts };
  }
  return { runningOf, startsOf, decide };
}

/** A status change applied: state machine, attempt log, cascade, restoration; an interrupted attempt. */
function schedulerApply(k: Made8) {
  const { ALLOWED, FAILURE_LIKE, CAUSES, isObj, strOf, statusOf, attemptsOf, logOf, baseNames, agentName, depsOf, dependents, tierFor, nextAttempt, retryable, permanentReason } = k;
  /** The first entry still running, closed with an outcome; an attempt started without a log entry gets one. */
  function closeAttempt(role: any, outcome: string, bases: string[], i: number, model: string): any {
    if (!Array.isArray(role.attemptLog)) role.attemptLog = [];
    const log = role.attemptLog;
    const last = log.length ? log[log.length - 1] : null;
    if (isObj(last) && last.outcome === "running") {
      last.outcome = outcome;
      return last;
    }
    const attempt = nextAttempt(role);
    const entry = { attempt, model, agent: agentName(bases[i], attempt), outcome };
    log.push(entry);
    return entry;
  }

  function apply(roles: any[], updates: StatusUpdate[], hooks: ApplyHooks): ApplyResult {
    const deps = depsOf(roles);
    const bases = baseNames(roles);
    const updated: number[] = [];
    const trimmed: number[] = [];
    const newlyFailed = new Set<number>();
    const resetForRetry = new Set<number>();
    const label = (i: number) => "Role " + i + " (" + strOf(roles[i].name) + ")";
    for (const u of updates) {
      const i = u.roleIndex;
      const role = roles[i];
      let changedTo: string | null = null;
      if (u.status !== null) {
        const current = statusOf(role);
        if (u.status === current && hooks.onSame) hooks.onSame(role, i, u);
        if (u.status !== current) {
          const direct = current === "failed" && u.status === "in_progress";
          const allowed = (ALLOWED[current] ?? []).concat(current === "failed" && retryable(role) ? ["in_progress"] : []);
          if (!allowed.includes(u.status)) {
            const list = allowed.length ? allowed.join(", ") : "none (terminal state)";
            const why = direct ? " (no retry left: " + permanentReason(role) + ")" : "";
            hooks.fail("E_TRANSITION", label(i) + ": Invalid transition: " + current + " -> " + u.status + why + ". Allowed: " + list);
          }
          const model = typeof u.model === "string" && u.model !== "" ? u.model : tierFor(role);
          if (current === "in_progress" && u.status === "completed" && hooks.beforeComplete) hooks.beforeComplete(role, i);
          if (current === "failed") resetForRetry.add(i);
          role.status = u.status;
          changedTo = u.status;
          updated.push(i);
          if (FAILURE_LIKE.includes(u.status)) newlyFailed.add(i);
          if (u.status === "in_progress") {
            if (!Array.isArray(role.attemptLog)) role.attemptLog = [];
            const attempt = nextAttempt(role);
            const agent = typeof u.agent === "string" && u.agent !== "" ? u.agent : agentName(bases[i], attempt);
            const entry: any = { attempt, model, agent, outcome: "running" };
            if (u.reflexion) entry.reflexion = u.reflexion;
            role.attemptLog.push(entry);
            if (hooks.onOpen) hooks.onOpen(entry, role, i);
          }
          // The attempt keeps its own result beside its reflexion: a later attempt's result replaces only the role's.
          if (current === "in_progress" && u.status === "failed") {
            const entry = closeAttempt(role, u.stalled === true ? "stalled" : "failed", bases, i, model);
            if (u.hasResult && typeof u.result === "string") entry.result = u.result;
            role.attempts = attemptsOf(role) + 1;
            if (hooks.onClose) hooks.onClose(entry, role, i);
          }
          if (current === "in_progress" && u.status === "completed") {
            const entry = closeAttempt(role, "completed", bases, i, model);
            if (u.hasResult && typeof u.result === "string") entry.result = u.result;
            if (hooks.onClose) hooks.onClose(entry, role, i);
          }
        }
      }
      if (u.hasResult) role.result = u.result;
      if (changedTo === "completed") {
        if (hooks.onComplete) hooks.onComplete(role, i);
        trimmed.push(i);
      }
    }

    const cascaded: ApplyResult["cascaded"] = [];
    const toSkip = [...dependents(deps, newlyFailed)].sort((a, b) => a - b);
    for (const i of toSkip) {
      if (statusOf(roles[i]) !== "pending") continue;
      const ds = deps[i];
      let reason = "unknown dependency failure";
      if (ds.length) {
        const d = ds.find((x) => newlyFailed.has(x) || CAUSES.includes(statusOf(roles[x]))) ?? ds[0];
        reason = "dependency on failed/blocked role " + d + " (" + strOf(roles[d].name) + ")";
      }
      roles[i].status = "skipped";
      cascaded.push({ roleIndex: i, name: strOf(roles[i].name), status: "skipped", reason });
    }

    const restored: ApplyResult["restored"] = [];
    if (resetForRetry.size > 0) {
      const retried = dependents(deps, resetForRetry);
      const held = dependents(deps, roles.flatMap((r, i) => (FAILURE_LIKE.includes(statusOf(r)) ? [i] : [])));
      roles.forEach((role, i) => {
        if (statusOf(role) !== "skipped" || !retried.has(i) || held.has(i)) return;
        role.status = "pending";
        restored.push({ roleIndex: i, name: strOf(role.name), status: "pending" });
      });
    }
    return { updated, cascaded, trimmed, restored };
  }

  /** An attempt lost with its session (resume-reset): back to pending, counted, its log entry closed. */
  function interrupt(roles: any[], i: number): void {
    const role = roles[i];
    const log = logOf(role);
    const last = log.length ? log[log.length - 1] : null;
    if (last && last.outcome === "running") last.outcome = "interrupted";
    role.status = "pending";
    role.attempts = attemptsOf(role) + 1;
  }
  return { closeAttempt, apply, interrupt };
}

/** Makes the parts in order, each from what the parts before it made, and returns the scheduler. */
function assembleScheduler(
  p0: typeof schedulerBasics,
  p1: typeof schedulerEntries,
  p2: typeof schedulerMeet,
  p3: typeof schedulerPairs,
  p4: typeof schedulerOrder,
  p5: typeof schedulerAttempts,
  p6: typeof schedulerLive,
  p7: typeof schedulerDecide,
  p8: typeof schedulerApply,
): SchedulerCore {
  let k: any = p0();
  k = { ...k, ...p1(k) };
  k = { ...k, ...p2(k) };
  k = { ...k, ...p3(k) };
  k = { ...k, ...p4(k) };
  k = { ...k, ...p5(k) };
  k = { ...k, ...p6(k) };
  k = { ...k, ...p7(k) };
  k = { ...k, ...p8(k) };
  return {
    TIERS: k.TIERS, MAX_ATTEMPTS: k.MAX_ATTEMPTS, MAX_STALLS: k.MAX_STALLS, statusOf: k.statusOf, attemptsOf: k.attemptsOf,
    logOf: k.logOf, slug: k.slug, baseNames: k.baseNames, depsOf: k.depsOf, scopeEntry: k.scopeEntry, territoryOf: k.territoryOf,
    entriesOverlap: k.entriesOverlap, entriesWitness: k.entriesWitness, overlapWaits: k.overlapWaits, conflictsOf: k.conflictsOf,
    tierFor: k.tierFor, stallsOf: k.stallsOf, retryable: k.retryable, permanentReason: k.permanentReason, agentName: k.agentName,
    nextAttempt: k.nextAttempt, reportPath: k.reportPath, completedAgent: k.completedAgent, decide: k.decide, apply: k.apply,
    interrupt: k.interrupt,
  };
}

/** What the first n parts made, the parameter of part n + 1. */
type Made1 = ReturnType<typeof schedulerBasics>;
type Made2 = Made1 & ReturnType<typeof schedulerEntries>;
type Made3 = Made2 & ReturnType<typeof schedulerMeet>;
type Made4 = Made3 & ReturnType<typeof schedulerPairs>;
type Made5 = Made4 & ReturnType<typeof schedulerOrder>;
type Made6 = Made5 & ReturnType<typeof schedulerAttempts>;
type Made7 = Made6 & ReturnType<typeof schedulerLive>;
type Made8 = Made7 & ReturnType<typeof schedulerDecide>;

/** The parts, in the order assembleScheduler makes them. */
const SCHEDULER_PARTS = [schedulerBasics, schedulerEntries, schedulerMeet, schedulerPairs, schedulerOrder, schedulerAttempts, schedulerLive, schedulerDecide, schedulerApply] as const;

export function schedulerCore(): SchedulerCore {
  return assembleScheduler(...SCHEDULER_PARTS);
}

/**
 * The scheduler as one self-contained JavaScript expression, for the Workflow script: a function that returns what
 * schedulerCore() returns, built from the same source texts (the assembly and every part, passed to it in order).
 */
export function schedulerSource(): string {
  return "() => (" + assembleScheduler.toString() + ")(" + SCHEDULER_PARTS.map((p) => "(" + p.toString() + ")").join(", ") + ")";
}
