// watch: the lead's wake-up while agents are out. The lead starts it with the Bash tool's `run_in_background` after
// handing out work and ends its turn; Claude Code starts a lead turn when a background command exits (measured in
// test/e2e/wake.test.ts on 2.1.197 and 2.1.332). So it sleeps, looks at the run's files every few seconds, and exits
// (one JSON line) only when the lead is needed:
//   stalled   an agent out is unfinished and its transcript went unwritten past the stall limit (execute: a running
//             attempt past the plan's `stallMinutes` by the clock and quiet since, as `next` judges it);
//   finished  every agent out ended in its final answer a while ago and nobody acted on it (a lost notification);
//   budget    the execute run's recorded spend reached its token budget;
//   grant     the execute grant that held when the watch started no longer holds;
//   done      the run closed, or nothing has been out for a while;
//   rearm     its time bound passed with nothing to do: start it again. The bound stays under the print-mode idle
//             ceiling (`CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS`: 2.1.197 kills a background command at it) and under the
//             Bash tool's 10-minute timeout, so re-arming keeps the session and its agents alive.
// Every answer carries a one-line progress summary for the user. It never writes; it reads the run state, plan.json
// (execute) and the bounded transcript reads of lib/attempts/liveness.ts, and judges no agent by counting turns.
import { join } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { liveness, refineByActivity, stallMinutesOf, type RunningAttempt } from "../../lib/attempts/attempts.js";
import { budgetFor, openRunId } from "../../lib/cost/budget.js";
import { runSpend } from "../../lib/cost/cost.js";
import { agentLiveness, stallLimitMs, type AgentLiveness } from "../../lib/attempts/liveness.js";
import { grantState } from "../../lib/grant/grant.js";
import { rolesOf, type Json } from "../../lib/plan/plan.js";
import { checkSkill, readRun, runFile } from "../../lib/run/run-state.js";
import { schedulerCore } from "../../lib/plan/scheduler.js";
import { commaList, projectRoots, readJson } from "../../store.js";

const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** The default time bound: under the 10-minute print-mode ceiling and the Bash tool's 10-minute timeout. */
export const WATCH_SECONDS = 540;
/**
 * How long every agent out may sit finished with nobody acting on it, or nothing be out, before the lead is woken:
 * a minute, or a third of a shorter bound.
 */
export const GRACE_MS = 60_000;
/** How often a grant that held at the start is verified again. */
const GRANT_EVERY_MS = 30_000;
const ceilingMs = (env: NodeJS.ProcessEnv): number | null => {
  const v = env.CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS?.trim();
  return v && /^\d{1,12}$/.test(v) && Number(v) > 0 ? Number(v) : null;
};

/** The watch's time bound in ms: `--max-seconds` (else 540 s), kept under three quarters of the print-mode ceiling. */
export function watchBoundMs(maxSeconds: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  const asked = (maxSeconds ?? WATCH_SECONDS) * 1000;
  const ceiling = ceilingMs(env);
  return ceiling === null ? asked : Math.max(1000, Math.min(asked, Math.floor(ceiling * 0.75)));
}

type Wake = "stalled" | "finished" | "budget" | "grant" | "done" | "rearm";

const ACTION: Record<Wake, (execute: boolean) => string> = {
  stalled: (x) =>
    x
      ? "Stop each agent in `stalled` (TaskStop), then call next: it names them in `stalled`; record each as SKILL.md's loop says, then start the watch again."
      : "Stop each agent in `stalled` (TaskStop) and spawn its replacement `{name}-2` with the same brief (the Stalled row), then start the watch again with the names still out.",
  finished: (x) =>
    x
      ? "These agents finished but nothing was recorded: call finish for each `finished` agent, then next, then start the watch again while agents are out."
      : "These agents finished: check each one's artifact or reply as SKILL.md says; start the watch again if others are still out.",
  budget: () => "The run's recorded spend reached its token budget: call next (it holds further starts) and ask the user for a higher budget.",
  grant: () => "The execute grant no longer holds (`grantEnded`): tell the user; the workers' edits and checks will now ask.",
  done: () => "Nothing is out any more: no watch is needed.",
  rearm: () => "Nothing needs you yet: show `progress`, start the same watch again (run_in_background) and end your turn.",
};

interface Look {
  wake: Wake | null;
  progress: string;
  agents: Array<Pick<AgentLiveness, "name" | "finished" | "stalled" | "idleMs"> & { found: boolean }>;
  stalled: string[];
  finished: string[];
  roles?: Array<Pick<RunningAttempt, "roleIndex" | "name" | "agent" | "attempt" | "elapsedMs" | "idleMs">>;
  grantEnded?: string;
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** The id of the skill's open run (execute: as the budget and the attempts read it), or null. */
function openRunIdOf(cwd: string, design: string, skill: string): string | null {
  if (skill === "execute") return openRunId(design);
  const r = readRun(runFile(cwd, ".design", skill, "read"));
  return r.kind === "ok" && r.run.completedAt === null ? r.run.runId : null;
}

export default defineCommand({
  positionals: [{ name: "skill", help: "design | execute | recon | improve: the run whose agents are out" }],
  flags: {
    waiting: { type: "string", default: "", help: "comma list of the agents out besides execute's workers (experts, researchers, analysts, auxiliaries)" },
    replies: { type: "boolean", help: "the agents named were just sent a message (a cross-review round): only an answer written after the watch started counts, and their stall clock starts now" },
    "stall-minutes": { type: "int", help: "the stall limit in minutes (execute: the plan's stallMinutes; else 15, or the Bash ceiling + 5 when the environment raises it)" },
    "max-seconds": { type: "int", help: `exit with wake "rearm" after this long (default ${WATCH_SECONDS}; at most three quarters of CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS)` },
  },
  async run(ctx, args) {
    const skill = checkSkill("watch", args.skill as string);
    if (skill === "reflect") throw new HelperError("E_USAGE", "watch: reflect starts no agents to wait for");
    const names = [...new Set(commaList(args.waiting as string))];
    const bad = names.find((n) => !NAME.test(n));
    if (bad !== undefined) throw new HelperError("E_USAGE", `watch: --waiting takes agent names (lowercase letters, digits, dashes): '${bad}'`);
    if (names.length > 32) throw new HelperError("E_USAGE", "watch: --waiting names at most 32 agents");
    if (skill !== "execute" && names.length === 0) throw new HelperError("E_USAGE", "watch: name the agents still out with --waiting");
    const minutes = args["stall-minutes"] as number | undefined;
    if (minutes !== undefined && (minutes < 1 || minutes > 1440)) throw new HelperError("E_USAGE", "watch: --stall-minutes must be 1 to 1440");
    const maxSeconds = args["max-seconds"] as number | undefined;
    if (maxSeconds !== undefined && (maxSeconds < 1 || maxSeconds > 3600)) throw new HelperError("E_USAGE", "watch: --max-seconds must be 1 to 3600");
    const replies = args.replies === true;

    const { project, design } = projectRoots(ctx.cwd);
    const execute = skill === "execute";
    // The context's time when the watch starts, advanced by the real clock while it waits.
    const t0 = Date.now();
    const started = ctx.now();
    const clock = () => started + (Date.now() - t0);
    const bound = watchBoundMs(maxSeconds);
    const grace = Math.min(GRACE_MS, Math.floor(bound / 3));
    const pollMs = Math.min(3000, Math.max(250, Math.floor(bound / 10)));
    const runId = openRunIdOf(ctx.cwd, design, skill);
    const session = process.env.CLAUDE_CODE_SESSION_ID ?? "";
    // The grant and the budget wake the lead only when they change while it waits.
    const grantAtStart = execute ? grantWhy(project, started) : null;
    let grantCheckedAt = started;
    let budgetAtStart: boolean | null = null;
    let quietSince: number | null = null;
    let finishedSince: number | null = null;

    const look = (now: number): Look => {
      let roles: Json[] = [];
      let plan: Json | null = null;
      let limitMin = minutes;
      let running: RunningAttempt[] = [];
      if (execute) {
        const r = readJson(join(design, "plan.json"));
        plan = r.kind === "ok" && typeof r.value === "object" && r.value !== null ? (r.value as Json) : null;
        if (plan) {
          roles = rolesOf(plan);
          limitMin ??= stallMinutesOf(plan);
          const decision = schedulerCore().decide(roles, ctx.cwd);
          running = refineByActivity(liveness(roles, decision.running, now, limitMin), project, now, limitMin);
        }
      }
      const limit = stallLimitMs(limitMin);
      const agentNames = [...new Set([...names, ...running.map((r) => r.agent).filter(Boolean)])];
      const seen = agentLiveness(project, session, agentNames, now, limit).agents.map((a) => (replies && names.includes(a.name) ? sinceStart(a, started, now, limit) : a));
      const byName = new Map(seen.map((a) => [a.name, a]));
      // A worker is judged as next judges it (the clock, then its transcript); the others by their transcript alone.
      const stalledRoles = running.filter((r) => r.stalled);
      const stalled = [...new Set([...stalledRoles.map((r) => r.agent), ...names.filter((n) => byName.get(n)?.stalled)])];
      const out = [...running.map((r) => byName.get(r.agent)), ...names.map((n) => byName.get(n))].filter((a): a is AgentLiveness => a !== undefined);
      const finished = out.filter((a) => a.finished).map((a) => a.name);
      const progress = execute ? planProgress(roles, plan, runId, names.length ? out.filter((a) => names.includes(a.name)) : null) : agentProgress(seen);
      const result: Look = {
        wake: null,
        progress,
        agents: seen.map((a) => ({ name: a.name, found: a.found, finished: a.finished, stalled: a.stalled || stalled.includes(a.name), idleMs: a.idleMs })),
        stalled,
        finished: [...new Set(finished)],
      };
      if (stalledRoles.length) result.roles = stalledRoles.map((r) => ({ roleIndex: r.roleIndex, name: r.name, agent: r.agent, attempt: r.attempt, elapsedMs: r.elapsedMs, idleMs: r.idleMs ?? null }));
      // The run the watch started on closed (or another took its place); execute without an open run has nothing out.
      if (runId !== null ? openRunIdOf(ctx.cwd, design, skill) !== runId : execute) return { ...result, wake: "done" };
      if (stalled.length) return { ...result, wake: "stalled" };
      if (execute && plan) {
        const budget = budgetFor(plan, runId);
        const reached = budget !== null && runSpend(plan, runId) >= budget.tokens;
        budgetAtStart ??= reached;
        if (reached && !budgetAtStart) return { ...result, wake: "budget" };
        // A full verification (key, signature, the plan's fingerprint) every 30 s (or the grace of a shorter bound).
        if (grantAtStart === null && now - grantCheckedAt >= Math.min(GRANT_EVERY_MS, grace)) {
          grantCheckedAt = now;
          const why = grantWhy(project, now);
          if (why !== null) return { ...result, wake: "grant", grantEnded: why };
        }
      }
      // Everything out ended in its final answer: the CLI's notification normally wakes the lead; a grace later,
      // with nothing recorded, it was lost.
      const unfinished = out.filter((a) => !a.finished);
      if (out.length > 0 && unfinished.length === 0) {
        finishedSince ??= now;
        if (now - finishedSince >= grace) return { ...result, wake: "finished" };
      } else finishedSince = null;
      if (out.length === 0) {
        quietSince ??= now;
        if (now - quietSince >= grace) return { ...result, wake: "done" };
      } else quietSince = null;
      return result;
    };

    let last = look(clock());
    while (last.wake === null) {
      const now = clock();
      if (now - started >= bound) {
        last = { ...last, wake: "rearm" };
        break;
      }
      await sleep(Math.min(pollMs, Math.max(0, bound - (now - started))));
      last = look(clock());
    }
    const wake = last.wake as Wake;
    return {
      skill,
      wake,
      waitedSeconds: Math.round((clock() - started) / 1000),
      progress: last.progress,
      stalled: last.stalled,
      finished: last.finished,
      ...(last.roles ? { roles: last.roles } : {}),
      ...(last.grantEnded ? { grantEnded: last.grantEnded } : {}),
      agents: last.agents,
      action: ACTION[wake](execute),
    };
  },
});

/** In a reply round, an answer counts only when written after the watch started, and the clock starts no earlier. */
function sinceStart(a: AgentLiveness, started: number, now: number, limit: number): AgentLiveness {
  if (!a.found || a.lastActivityAt === null) return a;
  const last = Date.parse(a.lastActivityAt);
  if (last >= Math.floor(started / 1000) * 1000) return a;
  const idleMs = Math.max(0, now - started);
  return { ...a, finished: false, idleMs, stalled: idleMs > limit };
}

/** Why the execute grant does not hold, or null when it does. */
function grantWhy(project: string, now: number): string | null {
  const s = grantState(project, now);
  return "why" in s ? s.why : null;
}

const fmt = (n: number) => n.toLocaleString("en-US");

/** execute: "done 2 · running 1 · waiting 1 · failed 0 · 12,345 tokens so far". */
export function planProgress(roles: Json[], plan: Json | null, runId: string | null, others: AgentLiveness[] | null): string {
  if (plan === null) return "no readable .design/plan.json";
  const core = schedulerCore();
  const c: Record<string, number> = {};
  for (const r of roles) c[core.statusOf(r)] = (c[core.statusOf(r)] ?? 0) + 1;
  const parts = [`done ${c.completed ?? 0}`, `running ${c.in_progress ?? 0}`, `waiting ${(c.pending ?? 0) + (c.blocked ?? 0)}`, `failed ${c.failed ?? 0}`];
  if (c.skipped) parts.push(`skipped ${c.skipped}`);
  parts.push(`${fmt(runSpend(plan, runId))} tokens so far`);
  if (others?.length) parts.push(agentProgress(others));
  return parts.join(" · ");
}

/** The other skills: "3 agents: 1 finished · 1 working · 1 stalled". */
export function agentProgress(agents: AgentLiveness[]): string {
  const n = (f: (a: AgentLiveness) => boolean) => agents.filter(f).length;
  const parts = [`${n((a) => a.finished)} finished`, `${n((a) => !a.finished && !a.stalled)} working`];
  const s = n((a) => a.stalled);
  if (s) parts.push(`${s} stalled`);
  return `${agents.length} agent${agents.length === 1 ? "" : "s"}: ${parts.join(" · ")}`;
}
