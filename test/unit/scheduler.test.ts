// The scheduler (src/lib/plan/scheduler.ts) on graph families: each test drives a plan to its end the way execute
// does (ask, start, record the outcome, ask again) and checks what ran, on which tier, and why the run ended.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { schedulerCore } from "../../src/lib/plan/scheduler.ts";

const core = schedulerCore();

interface R {
  name: string;
  deps?: string[];
  dirs?: string[];
  model?: string;
  status?: string;
  attempts?: number;
  attemptLog?: unknown[];
}

function plan(specs: R[]): any[] {
  return specs.map((s) => {
    const role: any = {
      name: s.name,
      goal: `Do ${s.name}`,
      model: s.model ?? "haiku",
      scope: { directories: s.dirs ?? [`src/${s.name}/`], patterns: [], dependencies: s.deps ?? [] },
      status: s.status ?? "pending",
      attempts: s.attempts ?? 0,
    };
    if (s.attemptLog) role.attemptLog = s.attemptLog;
    return role;
  });
}

const fail = (code: string, message: string): never => {
  throw new Error(`${code}: ${message}`);
};

type Outcome = "completed" | "failed" | "stalled";

interface Trace {
  rounds: string[][];
  starts: Array<{ name: string; agent: string; model: string; attempt: number; deps: string[]; replaces: string | null }>;
  reason: string;
  roles: any[];
  tripped: boolean;
}

/** Drive the plan: every role started in a round finishes in that round, in role order. */
function drive(roles: any[], outcome: (name: string, attempt: number, model: string) => Outcome, maxRounds = 50): Trace {
  const rounds: string[][] = [];
  const starts: Trace["starts"] = [];
  for (let k = 0; k < maxRounds; k++) {
    const d = core.decide(roles);
    if (d.done) return { rounds, starts, reason: d.reason, roles, tripped: d.breaker.tripped };
    assert.ok(d.start.length > 0 || d.running.length > 0, "not done, yet nothing starts and nothing runs");
    const conflicts = core.conflictsOf(roles, core.depsOf(roles));
    const active = [...d.start, ...d.running].map((x) => x.roleIndex);
    for (const i of active) for (const j of active) assert.ok(!conflicts[i].includes(j), `overlapping roles ${i} and ${j} run together`);
    core.apply(roles, d.start.map((s) => ({ roleIndex: s.roleIndex, status: "in_progress", hasResult: false, model: s.model, agent: s.agent })), { fail });
    for (const s of d.start) {
      starts.push({ name: s.name, agent: s.agent, model: s.model, attempt: s.attempt, deps: s.dependencies.map((x) => x.reportPath), replaces: s.replaces?.agent ?? null });
    }
    rounds.push(d.start.map((s) => s.name));
    for (const s of [...d.start].sort((a, b) => a.roleIndex - b.roleIndex)) {
      const o = outcome(s.name, s.attempt, s.model);
      core.apply(roles, [{ roleIndex: s.roleIndex, status: o === "completed" ? "completed" : "failed", hasResult: false, stalled: o === "stalled" }], { fail });
    }
  }
  throw new Error("the run did not end");
}

const allSucceed = () => "completed" as const;

describe("scheduler: chains and diamonds", () => {
  it("runs a chain one role at a time and ends when all completed", () => {
    const t = drive(plan([{ name: "a" }, { name: "b", deps: ["a"] }, { name: "c", deps: ["b"] }]), allSucceed);
    assert.deepEqual(t.rounds, [["a"], ["b"], ["c"]]);
    assert.equal(t.reason, "all 3 roles completed");
    assert.deepEqual(t.starts.map((s) => s.deps), [[], [".design/worker-a.json"], [".design/worker-b.json"]]);
  });

  it("runs a diamond's middle in parallel and hands both reports to the join", () => {
    const t = drive(plan([{ name: "a" }, { name: "b", deps: ["a"] }, { name: "c", deps: ["a"] }, { name: "d", deps: ["b", "c"] }]), allSucceed);
    assert.deepEqual(t.rounds, [["a"], ["b", "c"], ["d"]]);
    assert.deepEqual(t.starts[3].deps, [".design/worker-b.json", ".design/worker-c.json"]);
  });

  it("says which roles wait and on what", () => {
    const roles = plan([{ name: "a" }, { name: "b", deps: ["a"] }, { name: "c", dirs: ["src/a/"] }]);
    const d = core.decide(roles);
    assert.deepEqual(d.start.map((s) => s.name), ["a"]);
    assert.deepEqual(d.waiting, [
      { roleIndex: 1, name: "b", on: [{ roleIndex: 0, name: "a", kind: "dependency" }] },
      { roleIndex: 2, name: "c", on: [{ roleIndex: 0, name: "a", kind: "overlap" }] },
    ]);
  });
});

describe("scheduler: retries, tiers and stalls", () => {
  it("escalates one tier per failed attempt, records each tier, and stops after three attempts", () => {
    const t = drive(plan([{ name: "a" }, { name: "b", deps: ["a"] }]), (name) => (name === "a" ? "failed" : "completed"));
    assert.deepEqual(t.starts.map((s) => [s.agent, s.model, s.attempt]), [["a", "haiku", 1], ["a--2", "sonnet", 2], ["a--3", "opus", 3]]);
    assert.deepEqual(t.roles[0].attemptLog.map((e: any) => [e.model, e.outcome]), [["haiku", "failed"], ["sonnet", "failed"], ["opus", "failed"]]);
    assert.equal(t.roles[0].attempts, 3);
    assert.equal(t.roles[1].status, "skipped");
    assert.match(t.reason, /^nothing can move: 0\/2 completed; a failed for good \(3 attempts used\); 1 cannot run \(b\)$/);
  });

  it("caps the tier at opus and keeps an unknown model as it is", () => {
    const t = drive(plan([{ name: "a", model: "opus" }, { name: "b", model: "custom-model" }]), () => "failed");
    assert.deepEqual(t.starts.filter((s) => s.name === "a").map((s) => s.model), ["opus", "opus", "opus"]);
    assert.deepEqual(t.starts.filter((s) => s.name === "b").map((s) => s.model), ["custom-model", "custom-model", "custom-model"]);
  });

  it("retries a stalled role once, naming the stalled agent to stop first, and never a third time", () => {
    const t = drive(plan([{ name: "a" }]), () => "stalled");
    assert.deepEqual(t.starts.map((s) => [s.agent, s.replaces]), [["a", null], ["a--2", "a"]]);
    assert.equal(t.reason, "nothing can move: 0/1 completed; a failed for good (stalled twice)");
    assert.equal(core.retryable(t.roles[0]), false);
  });

  it("succeeds on a retry and then lets the restored dependents run with the retry's report", () => {
    const t = drive(plan([{ name: "a" }, { name: "b", deps: ["a"] }]), (name, attempt) => (name === "a" && attempt === 1 ? "failed" : "completed"));
    assert.deepEqual(t.rounds, [["a"], ["a"], ["b"]]);
    assert.deepEqual(t.starts[2].deps, [".design/worker-a--2.json"]);
    assert.equal(t.reason, "all 2 roles completed");
  });
});

describe("scheduler: overlaps", () => {
  it("serialises overlapping roles, lower index first", () => {
    const t = drive(plan([{ name: "a", dirs: ["src/"] }, { name: "b", dirs: ["src/lib/"] }, { name: "c", dirs: ["lib/"] }]), allSucceed);
    assert.deepEqual(t.rounds, [["a", "c"], ["b"]]);
  });

  it("releases an overlap when its holder fails for good: the later role runs, no deadlock", () => {
    const t = drive(plan([{ name: "a", dirs: ["src/"] }, { name: "b", dirs: ["src/"] }]), (name) => (name === "a" ? "failed" : "completed"));
    assert.deepEqual(t.rounds, [["a"], ["a"], ["a"], ["b"]]);
    assert.equal(t.roles[1].status, "completed");
    assert.match(t.reason, /a failed for good/);
  });

  it("releases an overlap held by a role that can never start (skipped, blocked)", () => {
    const roles = plan([
      { name: "root", status: "blocked" },
      { name: "x", deps: ["root"], dirs: ["src/"], status: "skipped" },
      { name: "y", dirs: ["src/"] },
    ]);
    assert.deepEqual(core.decide(roles).start.map((s) => s.name), ["y"]);
  });

  it("never deadlocks on overlap orders that cross a dependency", () => {
    // i depends on m; i overlaps j; j overlaps m: an order by index alone would wait in a circle.
    const roles = plan([
      { name: "i", deps: ["m"], dirs: ["src/x/"] },
      { name: "j", dirs: ["src/x/", "src/y/"] },
      { name: "m", dirs: ["src/y/"] },
    ]);
    const t = drive(roles, allSucceed);
    assert.equal(t.reason, "all 3 roles completed");
    assert.deepEqual(t.rounds, [["j"], ["m"], ["i"]]);
  });
});

describe("scheduler: everything failing and the breaker", () => {
  it("ends with every role failed for good or unable to run", () => {
    const t = drive(plan([{ name: "a" }, { name: "b" }, { name: "c", deps: ["a"] }]), () => "failed");
    assert.deepEqual(t.roles.map((r) => r.status), ["failed", "failed", "skipped"]);
    assert.equal(t.starts.length, 6);
    assert.match(t.reason, /^nothing can move: 0\/3 completed; a failed for good \(3 attempts used\), b failed for good/);
  });

  it("trips when permanent failures doom most of the remaining work, and starts nothing new", () => {
    const roles = plan([
      { name: "a", status: "failed", attempts: 3 },
      { name: "b", deps: ["a"], status: "skipped" },
      { name: "c", deps: ["a"], status: "skipped" },
      { name: "d", deps: ["a"], status: "skipped" },
      { name: "e" },
    ]);
    const d = core.decide(roles);
    assert.equal(d.breaker.tripped, true);
    assert.deepEqual(d.start, []);
    assert.equal(d.done, true);
    assert.equal(d.reason, "Circuit breaker: 3/4 remaining roles cannot run: no new role starts");
    assert.deepEqual(d.waiting, [{ roleIndex: 4, name: "e", on: [{ roleIndex: 4, name: "e", kind: "breaker" }] }]);
  });

  it("does not trip on a failure that will still be retried", () => {
    const roles = plan([
      { name: "a", status: "failed", attempts: 1 },
      { name: "b", deps: ["a"], status: "skipped" },
      { name: "c", deps: ["a"], status: "skipped" },
      { name: "d", deps: ["a"], status: "skipped" },
      { name: "e" },
    ]);
    const d = core.decide(roles);
    assert.equal(d.breaker.tripped, false);
    assert.deepEqual(d.start.map((s) => [s.name, s.model, s.from]), [["a", "sonnet", "failed"], ["e", "haiku", "pending"]]);
    assert.equal(d.done, false);
  });

  it("is not done while a role still runs, even with the breaker tripped", () => {
    const roles = plan([
      { name: "a", status: "failed", attempts: 3 },
      { name: "b", deps: ["a"], status: "skipped" },
      { name: "c", deps: ["a"], status: "skipped" },
      { name: "d", deps: ["a"], status: "skipped" },
      { name: "e", status: "in_progress" },
    ]);
    const d = core.decide(roles);
    assert.equal(d.done, false);
    assert.deepEqual(d.running.map((r) => r.agent), ["e"]);
  });
});

describe("scheduler: re-runs and resumes", () => {
  it("a re-run with only failed roles retries them on a stronger model and restores their dependents", () => {
    const roles = plan([
      { name: "a", status: "completed", attemptLog: [{ attempt: 1, model: "haiku", agent: "a", outcome: "completed" }] },
      { name: "b", deps: ["a"], status: "failed", attempts: 1, attemptLog: [{ attempt: 1, model: "haiku", agent: "b", outcome: "failed" }] },
      { name: "c", deps: ["b"], status: "skipped" },
    ]);
    const d = core.decide(roles);
    assert.equal(d.done, false);
    assert.deepEqual(d.start.map((s) => [s.name, s.agent, s.model, s.from, s.previousModel, s.replaces?.agent]), [["b", "b--2", "sonnet", "failed", "haiku", "b"]]);
    assert.deepEqual(d.waiting, [{ roleIndex: 2, name: "c", on: [{ roleIndex: 1, name: "b", kind: "dependency" }] }]);
    // Starting the failed role directly (failed -> in_progress) is the retry; it restores the skipped dependent.
    const r = core.apply(roles, [{ roleIndex: 1, status: "in_progress", hasResult: false }], { fail });
    assert.deepEqual(r.restored, [{ roleIndex: 2, name: "c", status: "pending" }]);
    assert.deepEqual(roles[1].attemptLog.at(-1), { attempt: 2, model: "sonnet", agent: "b--2", outcome: "running" });
    core.apply(roles, [{ roleIndex: 1, status: "completed", hasResult: false }], { fail });
    const t = drive(roles, allSucceed);
    assert.equal(t.reason, "all 3 roles completed");
    assert.deepEqual(t.starts.map((s) => [s.name, s.deps]), [["c", [".design/worker-b--2.json"]]]);
  });

  it("refuses a direct retry of a role with no retry left", () => {
    const roles = plan([{ name: "a", status: "failed", attempts: 3 }]);
    assert.throws(
      () => core.apply(roles, [{ roleIndex: 0, status: "in_progress", hasResult: false }], { fail }),
      /E_TRANSITION: Role 0 \(a\): Invalid transition: failed -> in_progress \(no retry left: 3 attempts used\)\. Allowed: pending$/,
    );
  });

  it("a resume in the middle keeps finished roles' reports for their dependents and reruns the lost attempt on the same tier", () => {
    const roles = plan([
      { name: "a", status: "completed", attemptLog: [{ attempt: 1, model: "haiku", agent: "a", outcome: "completed" }] },
      { name: "b", status: "in_progress", attemptLog: [{ attempt: 1, model: "haiku", agent: "b", outcome: "running" }] },
      { name: "c", deps: ["a", "b"] },
    ]);
    assert.deepEqual(core.decide(roles).running.map((r) => r.agent), ["b"]);
    core.interrupt(roles, 1); // resume-reset
    const d = core.decide(roles);
    assert.deepEqual(d.start.map((s) => [s.agent, s.model, s.attempt, s.replaces]), [["b--2", "haiku", 2, { agent: "b", outcome: "interrupted" }]]);
    const t = drive(roles, allSucceed);
    assert.deepEqual(t.starts.map((s) => [s.name, s.deps]), [["b", []], ["c", [".design/worker-a.json", ".design/worker-b--2.json"]]]);
  });

  it("finds the report of a role completed before attempt logs existed", () => {
    const roles = plan([{ name: "API Dev", status: "completed", attempts: 1 }, { name: "ui", deps: ["API Dev"] }]);
    assert.deepEqual(core.decide(roles).start[0].dependencies, [{ roleIndex: 0, name: "API Dev", agent: "api-dev--2", reportPath: ".design/worker-api-dev--2.json" }]);
  });

  it("gives roles with the same slug distinct agents", () => {
    const d = core.decide(plan([{ name: "api dev" }, { name: "api_dev" }]));
    assert.deepEqual(d.start.map((s) => s.agent), ["api-dev", "api-dev-2"]);
  });
});

describe("scheduler: random plans always end", () => {
  it("reaches done with every role completed, failed for good or unable to run", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let n = 0; n < 300; n++) {
      const size = 1 + Math.floor(rand() * 8);
      const specs: R[] = [];
      for (let i = 0; i < size; i++) {
        const deps = specs.filter(() => rand() < 0.3).map((s) => s.name);
        specs.push({ name: `r${i}`, deps, dirs: [`src/${Math.floor(rand() * 3)}/`] });
      }
      // Shuffle so dependencies point both ways by index.
      const shuffled = specs.map((s) => [rand(), s] as const).sort((a, b) => a[0] - b[0]).map((x) => x[1]);
      const t = drive(plan(shuffled), () => {
        const x = rand();
        return x < 0.6 ? "completed" : x < 0.85 ? "failed" : "stalled";
      });
      for (const r of t.roles) {
        const s = core.statusOf(r);
        // A retryable failure is left only when the breaker stopped the run.
        assert.ok(s === "completed" || s === "skipped" || s === "pending" || (s === "failed" && (!core.retryable(r) || t.tripped)), `${r.name} ended ${s}`);
        if (s === "pending") assert.ok(t.tripped || r.scope.dependencies.length > 0, `${r.name} left pending without a cause`);
      }
    }
  });
});

describe("scheduler: graphs of any shape and size", () => {
  /** The recursive definition the scheduler's walk replaces: done or running, or can run once its dependencies do. */
  function liveByRecursion(roles: any[]): boolean[] {
    const deps = core.depsOf(roles);
    const status = roles.map(core.statusOf);
    const ancestorsOf = (i: number) => {
      const seen = new Set<number>();
      const queue = [...deps[i]];
      for (let h = 0; h < queue.length; h++) if (!seen.has(queue[h])) (seen.add(queue[h]), queue.push(...deps[queue[h]]));
      return seen;
    };
    const memo = new Map<number, boolean>();
    const alive = (i: number, path: Set<number>): boolean => {
      if (memo.has(i)) return memo.get(i) as boolean;
      if (path.has(i)) return false;
      const next = new Set(path).add(i);
      const s = status[i];
      let v = false;
      if (s === "completed" || s === "in_progress") v = true;
      else if (s === "pending") v = deps[i].every((d) => alive(d, next));
      else if (s === "failed") v = core.retryable(roles[i]) && deps[i].every((d) => alive(d, next));
      else if (s === "skipped") v = deps[i].every((d) => alive(d, next)) && [...ancestorsOf(i)].some((a) => status[a] === "failed");
      memo.set(i, v);
      return v;
    };
    return roles.map((_, i) => alive(i, new Set()));
  }

  it("finds the same roles unable to run as the recursive definition, cycles included, on 2,000 random plans", () => {
    let seed = 11;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const STATUSES = ["pending", "pending", "completed", "in_progress", "failed", "skipped", "blocked"];
    let unable = 0;
    for (let n = 0; n < 2000; n++) {
      const size = 1 + Math.floor(rand() * 9);
      const roles = plan(Array.from({ length: size }, (_, i) => ({ name: `r${i}`, status: STATUSES[Math.floor(rand() * STATUSES.length)], attempts: Math.floor(rand() * 4) })));
      // Dependencies point either way, self-dependencies and cycles included.
      roles.forEach((r) => (r.scope.dependencies = roles.filter(() => rand() < 0.25).map((x) => x.name)));
      const live = liveByRecursion(roles);
      const d = core.decide(roles);
      const permanent = new Set(d.failedForGood.map((f) => f.roleIndex));
      const want = roles.flatMap((r, i) => (!live[i] && !permanent.has(i) && ["pending", "skipped", "failed"].includes(core.statusOf(r)) ? [i] : []));
      assert.deepEqual(d.unreachable.map((u) => u.roleIndex), want, JSON.stringify(roles.map((r) => [r.status, r.attempts, r.scope.dependencies])));
      unable += want.length;
    }
    assert.ok(unable > 1000, `only ${unable} roles unable to run`);
  });

  it("decides and applies on a 100,000-role chain without recursion", () => {
    const roles = plan(Array.from({ length: 100_000 }, (_, i) => ({ name: `r${i}`, deps: i ? [`r${i - 1}`] : [], status: i === 0 ? "failed" : "pending", attempts: 1 })));
    const d = core.decide(roles);
    assert.deepEqual(d.start.map((s) => s.name), ["r0"]);
    assert.equal(d.unreachable.length, 0);
    const r = core.apply(roles, [{ roleIndex: 0, status: "in_progress", hasResult: false }, { roleIndex: 0, status: "failed", hasResult: false }], { fail });
    assert.equal(r.cascaded.length, 99_999);
    const back = core.apply(roles, [{ roleIndex: 0, status: "pending", hasResult: false }], { fail });
    assert.equal(back.restored.length, 99_999);
  });
});
