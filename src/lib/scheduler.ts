// The execute scheduler: what to start now, on which model, what waits and on what, when a run is done, and how
// a status change moves the plan (state machine, attempt log, cascade, restoration).
//
// Everything lives inside one self-contained function, `schedulerCore`, that refers to nothing outside its own
// body: the `next` and `update-status` commands call it, and the `workflow` compiler embeds its source text
// (`schedulerCore.toString()`) into the generated Workflow script, so the script decides exactly as the helper
// does. Keep it that way: no imports, no module-level helpers, no TypeScript-only runtime constructs inside.

/** One attempt of a role, recorded in plan.json (`roles[i].attemptLog`) so a resume knows each attempt's tier. */
export interface AttemptEntry {
  attempt: number;
  model: string;
  agent: string;
  /** running, completed, failed, stalled or interrupted. */
  outcome: string;
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
  /** A retry's reflexion (update-status requires it: lib/reflexion.ts), kept on the attempt it starts. */
  reflexion?: Record<string, string>;
}

export interface ApplyResult {
  updated: number[];
  cascaded: Array<{ roleIndex: number; name: string; status: string; reason: string }>;
  trimmed: number[];
  restored: Array<{ roleIndex: number; name: string; status: string }>;
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
  conflictsOf(roles: any[], deps: number[][]): number[][];
  tierFor(role: any): string;
  stallsOf(role: any): number;
  retryable(role: any): boolean;
  permanentReason(role: any): string;
  agentName(base: string, attempt: number): string;
  nextAttempt(role: any): number;
  reportPath(agent: string): string;
  completedAgent(roles: any[], i: number, bases?: string[]): string;
  decide(roles: any[]): Decision;
  apply(
    roles: any[],
    updates: StatusUpdate[],
    hooks: { fail: (code: string, message: string) => never; onComplete?: (role: any, i: number) => void },
  ): ApplyResult;
  interrupt(roles: any[], i: number): void;
}

export function schedulerCore(): SchedulerCore {
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
    return roles.map((r) => {
      const base = slug(strOf(r.name));
      let name = base;
      for (let n = 2; issued.has(name); n++) name = base + "-" + n;
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
    deps.forEach((ds, i) => {
      for (const d of ds) rev[d].push(i);
    });
    return rev;
  }
  function dependents(deps: number[][], set: Iterable<number>): Set<number> {
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
  function ancestors(deps: number[][], i: number): Set<number> {
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
  function territoryOf(role: any): string[] {
    const scope = isObj(role.scope) ? role.scope : {};
    const all = [...(Array.isArray(scope.directories) ? scope.directories : []), ...(Array.isArray(scope.patterns) ? scope.patterns : [])];
    return [...new Set(all.filter((x: any) => typeof x === "string"))] as string[];
  }
  function withSlash(s: string): string {
    return s.replace(/\/+$/, "") + "/";
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
  function pathsOverlap(a: string, b: string): boolean {
    if (a === b || prefixOverlap(a, b)) return true;
    if (a.includes("**") || b.includes("**")) {
      const ba = globBase(a);
      const bb = globBase(b);
      if (ba === "" || bb === "") return false;
      return prefixOverlap(ba, bb);
    }
    return false;
  }
  /** Per role, the roles it must not run beside: overlapping territory and no dependency path between them. */
  function conflictsOf(roles: any[], deps: number[][]): number[][] {
    const terr = roles.map(territoryOf);
    const anc = deps.map((_, i) => ancestors(deps, i));
    const out: number[][] = roles.map(() => []);
    for (let i = 0; i < roles.length; i++) {
      for (let j = i + 1; j < roles.length; j++) {
        if (anc[i].has(j) || anc[j].has(i)) continue;
        let hit = false;
        for (const x of terr[i]) for (const y of terr[j]) if (!hit && pathsOverlap(x, y)) hit = true;
        if (hit) {
          out[i].push(j);
          out[j].push(i);
        }
      }
    }
    return out;
  }
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

  function decide(roles: any[]): Decision {
    const deps = depsOf(roles);
    const bases = baseNames(roles);
    const conflicts = conflictsOf(roles, deps);
    const status = roles.map(statusOf);
    const name = (i: number) => strOf(roles[i].name);
    const n = roles.length;

    // alive: the role is done or can still get done.
    const memo = new Map<number, boolean>();
    const alive = (i: number, path: Set<number>): boolean => {
      if (memo.has(i)) return memo.get(i) as boolean;
      if (path.has(i)) return false;
      const next = new Set(path).add(i);
      const s = status[i];
      let v: boolean;
      if (s === "completed" || s === "in_progress") v = true;
      else if (s === "pending") v = deps[i].every((d) => alive(d, next));
      else if (s === "failed") v = retryable(roles[i]) && deps[i].every((d) => alive(d, next));
      else if (s === "skipped") {
        // A skipped role comes back only when a failed ancestor is retried.
        v = deps[i].every((d) => alive(d, next)) && [...ancestors(deps, i)].some((a) => status[a] === "failed");
      } else v = false;
      memo.set(i, v);
      return v;
    };
    const live = roles.map((_, i) => alive(i, new Set()));

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

  /** The first entry still running, closed with an outcome; an attempt started without a log entry gets one. */
  function closeAttempt(role: any, outcome: string, bases: string[], i: number, model: string): void {
    if (!Array.isArray(role.attemptLog)) role.attemptLog = [];
    const log = role.attemptLog;
    const last = log.length ? log[log.length - 1] : null;
    if (isObj(last) && last.outcome === "running") last.outcome = outcome;
    else {
      const attempt = nextAttempt(role);
      log.push({ attempt, model, agent: agentName(bases[i], attempt), outcome });
    }
  }

  function apply(
    roles: any[],
    updates: StatusUpdate[],
    hooks: { fail: (code: string, message: string) => never; onComplete?: (role: any, i: number) => void },
  ): ApplyResult {
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
        if (u.status !== current) {
          const direct = current === "failed" && u.status === "in_progress";
          const allowed = (ALLOWED[current] ?? []).concat(current === "failed" && retryable(role) ? ["in_progress"] : []);
          if (!allowed.includes(u.status)) {
            const list = allowed.length ? allowed.join(", ") : "none (terminal state)";
            const why = direct ? " (no retry left: " + permanentReason(role) + ")" : "";
            hooks.fail("E_TRANSITION", label(i) + ": Invalid transition: " + current + " -> " + u.status + why + ". Allowed: " + list);
          }
          const model = typeof u.model === "string" && u.model !== "" ? u.model : tierFor(role);
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
          }
          if (current === "in_progress" && u.status === "failed") {
            closeAttempt(role, u.stalled === true ? "stalled" : "failed", bases, i, model);
            role.attempts = attemptsOf(role) + 1;
          }
          if (current === "in_progress" && u.status === "completed") closeAttempt(role, "completed", bases, i, model);
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
      roles.forEach((role, i) => {
        if (statusOf(role) !== "skipped" || !retried.has(i)) return;
        for (const a of ancestors(deps, i)) if (FAILURE_LIKE.includes(statusOf(roles[a]))) return;
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

  return {
    TIERS,
    MAX_ATTEMPTS,
    MAX_STALLS,
    statusOf,
    attemptsOf,
    logOf,
    slug,
    baseNames,
    depsOf,
    conflictsOf,
    tierFor,
    stallsOf,
    retryable,
    permanentReason,
    agentName,
    nextAttempt,
    reportPath,
    completedAgent,
    decide,
    apply,
    interrupt,
  };
}
