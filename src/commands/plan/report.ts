// report: a picture of the run for a person. Writes `.design/report.html` (one self-contained file: the plan graph,
// each role's attempts, checks and evidence, cost, the verdicts, the memories stored, the run history) and answers
// its file:// link with a terminal summary that draws the graph in Unicode. Like plan-view it always exits 0 (the
// /do:plan-status command injects it with a !-line, which must not fail): a missing or broken plan, or a report
// that cannot be written, is said in `problems`.
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { defineCommand } from "../../lib/command/command.js";
import { overlapWaits, territoriesOf } from "../../lib/plan/graph.js";
import { newestFirst } from "../../lib/plan/lifecycle.js";
import { OWN } from "../../base/owned.js";
import { depsOf, guardPlan, PLAN_PATH, rolesOf, statusOf, str, stringsOf, type Json } from "../../lib/plan/plan.js";
import { reportHtml } from "../../lib/report/html.js";
import type { AttemptView, EvidenceView, HistoryView, ReportModel, RoleView } from "../../lib/report/model.js";
import { terminalSummary } from "../../lib/report/terminal.js";
import { isObject, isoSeconds, parseTimestamp } from "../../lib/values.js";
import { schedulerCore } from "../../lib/plan/scheduler.js";

/** The skills whose run state (`run-<skill>.json`) may hold an interrupted run. */
const RUN_SKILLS = ["design", "execute", "recon", "improve", "reflect"] as const;
import { costSummary } from "../../lib/cost/cost.js";
import { confine, ensureDir, projectRoots, readConfined, readJson, readJsonl, updateText } from "../../store.js";

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null);
const text = (v: unknown): string => (typeof v === "string" ? v : "");
const time = (v: unknown): string | null => (typeof v === "string" && Number.isFinite(Date.parse(v)) ? v : null);
/** At most this many characters of an evidence tail or a memory in the report. */
const MAX_TEXT = 2000;
const clip = (s: string) => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s);

function attemptsOf(role: Json): AttemptView[] {
  const log = Array.isArray(role.attemptLog) ? role.attemptLog : [];
  return log.filter(isObject).map((a, k) => {
    const usage = isObject(a.usage) ? a.usage : {};
    const startedAt = time(a.startedAt);
    const endedAt = time(a.endedAt);
    const measured = num(a.durationMs) ?? num(usage.durationMs) ?? num(usage.duration_ms);
    const durationMs = measured ?? (startedAt && endedAt ? Math.max(0, Date.parse(endedAt) - Date.parse(startedAt)) : null);
    const evidence = (Array.isArray(a.evidence) ? a.evidence : []).filter(isObject).map((e): EvidenceView => {
      const exitCode = typeof e.exitCode === "number" ? e.exitCode : null;
      return {
        kind: e.kind === "spec" ? "spec" : "check",
        check: text(e.check),
        exitCode,
        passed: typeof e.passed === "boolean" ? e.passed : exitCode === 0,
        timedOut: e.timedOut === true,
        durationMs: num(e.durationMs),
        output: clip(text(e.output ?? e.tail)),
      };
    });
    const rx = isObject(a.reflexion) ? a.reflexion : null;
    const esc = isObject(a.escalated) ? a.escalated : null;
    return {
      attempt: typeof a.attempt === "number" ? a.attempt : k + 1,
      model: text(a.model) || "?",
      agent: text(a.agent),
      outcome: text(a.outcome) || "running",
      stalled: a.stalled === true || a.outcome === "stalled",
      startedAt,
      endedAt,
      durationMs,
      tokens: num(usage.tokens) ?? num(usage.totalTokens) ?? num(usage.subagent_tokens),
      toolUses: num(usage.toolUses) ?? num(usage.tool_uses),
      evidence,
      reflexion: rx ? { rootCause: clip(text(rx.rootCause)), wrongAssumptions: clip(text(rx.wrongAssumptions)), alternative: clip(text(rx.alternative)) } : null,
      escalated: esc ? [text(esc.from) && `from ${text(esc.from)}`, text(esc.reason)].filter(Boolean).join(": ") || "yes" : null,
    };
  });
}

function roleView(role: Json, index: number): RoleView {
  const attempts = attemptsOf(role);
  const scope = isObject(role.scope) ? role.scope : {};
  const criteria = (Array.isArray(role.acceptanceCriteria) ? role.acceptanceCriteria : []).filter(isObject).map((c) => ({ criterion: text(c.criterion), check: text(c.check) }));
  const spent = attempts.map((a) => a.tokens).filter((t): t is number => t !== null);
  return {
    index,
    name: str(role.name) || `role ${index}`,
    goal: text(role.goal),
    status: statusOf(role),
    model: text(role.model) || "sonnet",
    tier: attempts.length ? attempts[attempts.length - 1].model : text(role.model) || "sonnet",
    waitsOnRetry: [],
    agent: text(role.agent) || (attempts.length ? attempts[attempts.length - 1].agent : ""),
    scope: [...stringsOf(scope.directories), ...stringsOf(scope.patterns)],
    dependencies: stringsOf(scope.dependencies),
    criteria,
    attempts,
    result: typeof role.result === "string" ? clip(role.result) : "",
    tokens: spent.length ? spent.reduce((s, t) => s + t, 0) : null,
  };
}

function readObject(cwd: string, path: string): Json | null {
  const r = readConfined(cwd, path, readJson);
  return r.kind === "ok" && isObject(r.value) ? r.value : null;
}

function readEntries(cwd: string, path: string): Json[] {
  const r = readConfined(cwd, path, readJsonl);
  return r.kind === "ok" ? r.entries.map((e) => e.value).filter(isObject) : [];
}

/** The report model of the project's plan and run (`problems` says what could not be read). */
export function gatherReport(cwd: string, planPath: string, now: number): ReportModel {
  const { design } = projectRoots(cwd);
  const problems: string[] = [];
  const r = readConfined(cwd, resolve(cwd, planPath), readJson);
  let doc: Json = { roles: [] };
  if (r.kind === "missing") problems.push(`No plan at ${planPath}: run /do:design <goal> to make one.`);
  else if (r.kind !== "ok") problems.push(`${planPath} cannot be read: ${r.kind === "invalid" ? "invalid JSON" : r.detail}`);
  else {
    try {
      doc = guardPlan(r.value);
    } catch (err) {
      problems.push(`${planPath} is not a plan: ${(err as Error).message}`);
    }
  }
  const roles = rolesOf(doc);
  const views = roles.map(roleView);
  const deps = depsOf(roles);
  const waits = overlapWaits(territoriesOf(roles, projectRoots(cwd).project), deps);
  const overlaps: Array<[number, number]> = [];
  waits.forEach((js, i) => js.forEach((j) => overlaps.push([i, j])));
  // A dependent update-status skipped when its dependency failed is not skipped for good while that dependency has a
  // retry left (the retry restores it): shown as pending, waiting for that retry (issue 31).
  const core = schedulerCore();
  const retryable = (i: number) => core.statusOf(roles[i]) === "failed" && core.permanentReason(roles[i]) === "";
  const recorded = views.map((v) => v.status);
  views.forEach((v, i) => {
    if (v.status !== "skipped") return;
    const seen = new Set<number>();
    const stack = [...deps[i]];
    const waits: string[] = [];
    while (stack.length) {
      const j = stack.pop() as number;
      if (seen.has(j)) continue;
      seen.add(j);
      if (retryable(j)) waits.push(views[j].name);
      else if (recorded[j] === "skipped") stack.push(...deps[j]);
    }
    if (waits.length) {
      v.status = "pending";
      v.waitsOnRetry = waits.sort();
    }
  });
  const counts: Record<string, number> = {};
  for (const v of views) counts[v.status] = (counts[v.status] ?? 0) + 1;

  const runDoc = readObject(cwd, join(design, "run-execute.json"));
  const run =
    runDoc && typeof runDoc.runId === "string"
      ? {
          runId: runDoc.runId,
          startedAt: text(runDoc.startedAt),
          completedAt: time(runDoc.completedAt),
          outcome: text(runDoc.outcome) || "open",
          phases: (Array.isArray(runDoc.completed) ? runDoc.completed : []).filter(isObject).map((c) => ({ phase: text(c.phase), at: text(c.at), decisions: clip(text(c.decisions)) })),
          skippedPhases: stringsOf(runDoc.skippedPhases),
        }
      : null;
  const verifierDoc = readObject(cwd, join(design, "integration-verifier-report.json"));
  const verifier = verifierDoc
    ? {
        verdict: text(verifierDoc.status ?? verifierDoc.verdict) || "reported",
        summary: clip(text(verifierDoc.summary)),
        blocking: (Array.isArray(verifierDoc.crossRoleIssues) ? verifierDoc.crossRoleIssues : []).filter((i) => isObject(i) && i.severity === "blocking").map((i) => clip(text((i as Json).issue))),
      }
    : null;
  const regressionDoc = readObject(cwd, join(design, "regression-checker-report.json"));
  const regression = regressionDoc && typeof regressionDoc.passed === "boolean" ? { passed: regressionDoc.passed, summary: clip(text(regressionDoc.summary)) } : null;

  const reflections = newestFirst(readEntries(cwd, join(design, "reflection.jsonl")));
  // The goal review of this run: the verdict the lead wrote at the verify checkpoint ("goal achieved|partial|not
  // achieved, …") and the run's execute reflection (one written before this run started belongs to an earlier run).
  const runStart = run ? parseTimestamp(run.startedAt) : 0;
  const lastExecute = reflections.find((e) => e.skill === "execute" && (!run || parseTimestamp(e.timestamp) >= runStart));
  const verify = run?.phases.find((ph) => ph.phase === "verify");
  const verdict = verify ? (/\bgoal (not achieved|achieved|partial)\b/i.exec(verify.decisions)?.[1]?.toLowerCase() ?? "") : "";
  const lines = (v: unknown) => (Array.isArray(v) ? v : []).map((x) => (typeof x === "string" ? x : isObject(x) ? JSON.stringify(x) : "")).filter(Boolean).slice(0, 20).map(clip);
  const evaluation = lastExecute && isObject(lastExecute.evaluation) ? lastExecute.evaluation : {};
  const goalReview =
    lastExecute || verdict
      ? {
          goalAchieved: lastExecute ? lastExecute.goalAchieved === true : verdict === "achieved",
          verdict,
          summary: clip(text(evaluation.summary ?? evaluation.goalReview ?? "")),
          whatWorked: lines(evaluation.whatWorked),
          whatFailed: lines(evaluation.whatFailed),
          doNextTime: lines(evaluation.doNextTime),
        }
      : null;
  const history: HistoryView[] = reflections.slice(0, 10).map((e) => {
    const ev = isObject(e.evaluation) ? e.evaluation : {};
    const cost = isObject(e.cost) ? e.cost : isObject(ev.cost) ? ev.cost : {};
    return { timestamp: text(e.timestamp), skill: text(e.skill), outcome: text(e.outcome), goalAchieved: e.goalAchieved === true, goal: text(e.goal), tokens: num(cost.tokens) };
  });

  const since = runStart;
  const memories = readEntries(cwd, join(design, "memory.jsonl"))
    .filter((m) => since > 0 && parseTimestamp(m.timestamp) >= since)
    .slice(-50)
    .map((m) => ({ category: text(m.category), content: clip(text(m.content)), keywords: Array.isArray(m.keywords) ? stringsOf(m.keywords) : typeof m.keywords === "string" ? [m.keywords] : [] }));

  // What next would do (the scheduler's own answer), the memory count and the runs left unfinished.
  let next: ReportModel["next"] = null;
  if (roles.length > 0 && problems.length === 0) {
    try {
      const d = schedulerCore().decide(roles, projectRoots(cwd).project);
      next = {
        done: d.done,
        reason: d.reason,
        start: d.start.map((x) => x.name),
        running: d.running.map((x) => x.name),
        waiting: d.waiting.map((w) => ({ name: w.name, on: w.on.map((o) => `${o.name} (${o.kind})`) })),
      };
    } catch (err) {
      problems.push(`The scheduler could not answer: ${(err as Error).message}`);
    }
  }
  const memoryCount = readEntries(cwd, join(design, "memory.jsonl")).length;
  const interrupted: ReportModel["interrupted"] = [];
  for (const skill of RUN_SKILLS) {
    const r = readObject(cwd, join(design, `run-${skill}.json`));
    if (!r || typeof r.runId !== "string" || (r.completedAt !== null && r.completedAt !== undefined)) continue;
    const phases = stringsOf(r.phases);
    const done = (Array.isArray(r.completed) ? r.completed : []).filter(isObject).map((c) => text(c.phase));
    const last = done.length ? done[done.length - 1] : null;
    interrupted.push({ skill, lastPhase: last, nextPhase: phases.find((ph) => !done.includes(ph)) ?? null, startedAt: text(r.startedAt) });
  }

  const open = views.some((v) => v.status === "pending" || v.status === "in_progress");
  const state = roles.length === 0 ? (problems.length ? "none" : "empty") : open ? (views.some((v) => v.status !== "pending") ? "in_progress" : "ready") : "done";
  const c = costSummary(doc);
  const cost = { tokens: c.tokens, byTier: c.byTier, byRun: c.byRun, auxiliaries: c.auxiliaries, unrecorded: c.unrecorded };
  return { goal: text(doc.goal), generatedAt: isoSeconds(now), state, roles: views, deps, overlaps, counts, run, verifier, regression, goalReview, memories, history, cost, next, memoryCount, interrupted, problems };
}

export default defineCommand({
  // Not confined by confineArgs: like plan-view it always exits 0, and a plan path outside the project reads as
  // an unreadable plan (readConfined). The report itself is always `.design/report.html`.
  positionals: [{ ...PLAN_PATH, path: undefined }],
  flags: {},
  run(ctx, args) {
    return writeReport(ctx.cwd, args.plan_path as string, ctx.now());
  },
});

/** Gather the report of the plan at `planPath`, write `.design/report.html`, answer its link and terminal summary. */
export async function writeReport(cwd: string, planPath: string, now: number) {
  const model = gatherReport(cwd, planPath, now);
  const { design } = projectRoots(cwd);
  let url: string | null = null;
  // A report needs something to show: a plan, or a recorded run (execute's no-plan or invalid-plan still gets its
  // page: the run, its outcome, the history). A project that never used do gets no .design/ from a look at its status.
  if (model.problems.length === 0 || model.roles.length > 0 || model.run !== null) {
    try {
      const target = confine(cwd, "report", ".design/report.html", "write", OWN.report);
      ensureDir(design);
      await updateText(target, () => ({ text: reportHtml(model), result: null }), "Error writing the report");
      url = pathToFileURL(target).href;
    } catch (err) {
      model.problems.push(`The report could not be written: ${(err as Error).message}`);
    }
  }
  return {
    state: model.state,
    path: url ? ".design/report.html" : null,
    url,
    counts: model.counts,
    summary: terminalSummary(model, url),
    problems: model.problems,
  };
}
