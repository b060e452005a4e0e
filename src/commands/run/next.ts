// next: the execute scheduler's answer for the plan as it stands: the roles to start now (model tier, agent name,
// report path, the reports of their dependencies, the memories for each), what runs and for how long, what waits
// and on what, what failed for good, the circuit breaker, and `done` with the reason when nothing can move.
//
// It records what it hands out: each start that is not a retry is recorded as started (in_progress, its model and
// agent, an attempt opened with `startedAt`), under the plan's lock, by the same state machine and stamps as
// update-status (`recorded: true`), so the lead makes no update-status call to start a worker and a second `next`
// reports that role under `running`, never as a second start. A retry is handed out unrecorded (`recorded: false`):
// its start needs the reflexion only the lead can write (update-status, lib/attempts/reflexion.ts). Each running attempt
// says how long it has run by the clock and whether it passed the plan's stall limit (`stallMinutes`, default 30).
//
// Memory and the budget (lib/cost/budget.ts) come on top: a first attempt of a role kind that failed on its first tier in
// earlier runs starts one tier up (`escalation`), each start carries its forecast (`expectedTokens`), and a start that
// would pass the run's token budget is held back; when that leaves nothing to start or wait for, the run is done with
// `stoppedBy: "budget"`. The Workflow script decides with schedulerCore itself and records nothing here.
// Each start also gets its brief as one small file, `.design/briefs/<agent>.md` (`brief`; lib/attempts/briefs.ts): its role,
// scope, checks, its dependencies' reports and its memories, so the worker never searches plan.json for its role.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { liveness, refineByActivity, stallMinutesOf, stampOpen, takeSnapshots, underGit } from "../../lib/attempts/attempts.js";
import { openRunId, underBudget } from "../../lib/cost/budget.js";
import { loadPlan, PLAN_PATH_WRITE, rolesOf, type Json } from "../../lib/plan/plan.js";
import { updatePlan } from "../../lib/plan/plan-update.js";
import { schedulerCore, type StatusUpdate } from "../../lib/plan/scheduler.js";
import { refuseWhileChallenged } from "../../lib/plan/challenge.js";
import { projectRoots } from "../../store.js";
import { memoriesFor } from "../memory/for-roles.js";
import { writeBriefs } from "../../lib/attempts/briefs.js";
import { refreshLiveReport } from "./live-report.js";

/**
 * A retry's previous attempt, for the reflexion update-status requires before the retry starts: its number, how
 * it ended, the role's result (what the lead recorded), and the worker's report; `earlier` lists every attempt that
 * ended, each with its own result and the reflexion it started with, so a third attempt knows what the second tried.
 */
function failureOf(role: Json, cwd: string) {
  const core = schedulerCore();
  const ended = core.logOf(role).filter((e) => e.outcome !== "running");
  const last = ended.slice(-1)[0];
  const report = last && typeof last.agent === "string" ? core.reportPath(last.agent) : null;
  return {
    attempt: last ? last.attempt : core.attemptsOf(role),
    outcome: last ? last.outcome : "failed",
    result: typeof role.result === "string" ? role.result : role.result === undefined ? null : JSON.stringify(role.result),
    report,
    reportExists: report !== null && existsSync(resolve(cwd, report)),
    reflexion: "required: rootCause, wrongAssumptions, alternative on the in_progress update",
    earlier: ended.map((e) => ({
      attempt: e.attempt,
      model: e.model,
      agent: e.agent,
      outcome: e.outcome,
      ...(typeof e.result === "string" ? { result: e.result } : {}),
      ...(e.reflexion ? { reflexion: e.reflexion } : {}),
    })),
  };
}

/**
 * The first starts the plan as it reads now would record (read without the lock; the locked decision may differ, and
 * a start it adds then goes without a snapshot). A plan that cannot be read starts nothing here: the locked call
 * answers its error.
 */
function firstStarts(cwd: string, path: string, design: string): Array<{ role: Json; attempt: number; replaces: boolean }> {
  if (!underGit(projectRoots(cwd).project)) return [];
  try {
    const plan = loadPlan(cwd, path);
    const roles = rolesOf(plan);
    const { decision } = underBudget(schedulerCore().decide(roles, cwd), roles, plan, design, openRunId(design));
    return decision.start.filter((s) => !s.retry).map((s) => ({ role: roles[s.roleIndex], attempt: s.attempt, replaces: s.replaces != null }));
  } catch {
    return [];
  }
}

export default defineCommand({
  positionals: [PLAN_PATH_WRITE],
  flags: {},
  async run(ctx, args) {
    const now = ctx.now();
    const design = projectRoots(ctx.cwd).design;
    // The snapshot of each first start this call will record, taken before the plan's lock (lib/attempts/attempts.ts).
    const snapshots = await takeSnapshots(ctx.cwd, firstStarts(ctx.cwd, args.plan_path as string, design), now);
    let planAfter: Json | null = null;
    const answer = await updatePlan(ctx.cwd, args.plan_path as string, ["progress"], (plan) => {
      planAfter = plan;
      refuseWhileChallenged(ctx.cwd, plan, "starting workers");
      const stallMinutes = stallMinutesOf(plan);
      const roles = rolesOf(plan);
      const core = schedulerCore();
      const { decision, costs, budget, stoppedBy } = underBudget(core.decide(roles, ctx.cwd), roles, plan, design, openRunId(design));
      // Liveness of what ran before this call; the starts recorded now are in `start`, not in `running`.
      const running = refineByActivity(liveness(roles, decision.running, now, stallMinutes), projectRoots(ctx.cwd).project, now, stallMinutes);
      const retryFailures = new Map(decision.start.filter((s) => s.retry).map((s) => [s.roleIndex, failureOf(roles[s.roleIndex], ctx.cwd)]));

      // Record each first start as update-status would (the state machine refuses anything but pending → in_progress).
      const updates: StatusUpdate[] = decision.start
        .filter((s) => !s.retry)
        .map((s) => ({ roleIndex: s.roleIndex, status: "in_progress", hasResult: false, model: s.model, agent: s.agent }));
      const applied = core.apply(roles, updates, {
        fail: (code, message) => {
          throw new HelperError(code as "E_TRANSITION", message);
        },
        onOpen: stampOpen(ctx.cwd, plan, core, now, snapshots),
      });
      const warnings: string[] = [];
      const memories = memoriesFor(ctx.cwd, roles, decision.start.map((s) => s.roleIndex), now, warnings);
      // A dependency's report that is gone cannot hand its context on: say so, so the lead falls back to the result.
      const start = decision.start.map((s) => {
        const log = core.logOf(roles[s.roleIndex]);
        const opened = s.retry ? undefined : log[log.length - 1];
        return {
          ...s,
          ...costs.get(s.roleIndex),
          recorded: !s.retry,
          ...(opened ? { startedAt: opened.startedAt } : {}),
          dependencies: s.dependencies.map((d) => ({ ...d, reportExists: existsSync(resolve(ctx.cwd, d.reportPath)) })),
          memories: memories.get(s.roleIndex) ?? [],
          ...(s.retry ? { failure: retryFailures.get(s.roleIndex) } : {}),
        };
      });
      // The counts as the plan now stands, the starts just recorded included.
      const counts: Record<string, number> = Object.fromEntries(Object.keys(decision.counts).map((k) => [k, 0]));
      for (const role of roles) {
        const st = core.statusOf(role);
        counts[st] = (counts[st] ?? 0) + 1;
      }
      const result = {
        ...decision,
        counts,
        start,
        running,
        stalled: running.filter((r) => r.stalled).map((r) => r.roleIndex),
        stallMinutes,
        budget,
        stoppedBy,
        ...(warnings.length ? { warnings } : {}),
      };
      return { write: applied.updated.length > 0, result };
    });
    // Each start's brief as one small file the worker reads (lib/attempts/briefs.ts), written once the starts are recorded.
    if (planAfter !== null && answer.start.length) {
      const briefs = writeBriefs(ctx.cwd, planAfter, answer.start as never);
      for (const s of answer.start as Array<Record<string, unknown>>) {
        const path = briefs.get(String(s.agent));
        if (path) s.brief = path;
      }
    }
    await refreshLiveReport(ctx.cwd, now);
    return answer;
  },
});
