// finish: everything the lead does when a worker finishes, in one call: record what the agent cost (record-usage),
// check its completion report (.design/worker-<agent>.json, as worker-completion-validate), run its role's checks
// and spec under the execute grant (run-checks), record the role completed on that passing evidence or failed
// naming what failed (update-status, with its cascade and restoration), and commit the role's reported files
// (commit). The role is the one whose running attempt the agent is.
//
// An invalid or missing report records nothing: the answer carries the error and the report's JSON Schema for the
// worker, and the lead calls finish again once the worker rewrote it; `--give-up` then records the role failed. A
// report that says the goal was not reached (`achieved: false`, or a criterion that did not pass) is taken at its
// word: failed, no check run. Otherwise the checks run (only while the grant covers every one of them, as
// run-checks) and decide. Usage, evidence and status go into plan.json in one locked write, and only if the
// attempt is still the running one; the commit follows a completion (a commit refused by git leaves the role
// completed and says why in `commit.error`), judged against the attempt's snapshot (commit.ts). Called again for an
// attempt it already recorded completed (a finish killed between its plan write and its commit), it records nothing
// and completes the commit; the commit being idempotent, a repeat never commits twice (`alreadyRecorded`).
import { defineCommand, type Context } from "../../lib/command/command.js";
import { crashPoint } from "../../base/crash-point.js";
import { isSnapshot } from "../../lib/git/snapshot.js";
import { HelperError } from "../../base/errors.js";
import { evidenceGaps, specFileHash, type Evidence } from "../../lib/checks/evidence.js";
import { checksGrant, grantState } from "../../lib/grant/grant.js";
import { loadPlan, PLAN_PATH_WRITE, rolesOf, type Json } from "../../lib/plan/plan.js";
import { updatePlan } from "../../lib/plan/plan-update.js";
import { isObject, sha256 } from "../../lib/values.js";
import { JSON_SCHEMAS } from "../../schemas/json-schemas.js";
import { confine, parseJson, projectRoots, readText } from "../../store.js";
import { schemaFailure } from "../reports/checks.js";
import { workerCompletionErrors } from "../reports/worker-completion.js";
import { commitMessage, commitRoleFiles, granteePlan, type CommitAnswer } from "./commit.js";
import { measureUsage } from "./record-usage.js";
import { refreshLiveReport } from "./live-report.js";
import { CHECK_TIMEOUT_S, evidenceView, MAX_TIMEOUT_S, runCommands } from "./run-checks.js";
import { applyUpdates } from "../plan/update-status.js";

const AGENT = /^[a-z0-9][a-z0-9-]{0,63}$/;
const MAX_RESULT = 500;

/** The role whose running attempt is `agent`'s, with that attempt. */
function attemptOf(doc: Json, agent: string): { index: number; role: Json; entry: Json } | null {
  const roles = rolesOf(doc);
  for (let i = 0; i < roles.length; i++) {
    const attempts = roles[i].attemptLog;
    const log: unknown[] = Array.isArray(attempts) ? attempts : [];
    const last = log.length ? log[log.length - 1] : null;
    if (isObject(last) && last.agent === agent && last.outcome === "running") return { index: i, role: roles[i], entry: last };
  }
  return null;
}

/** Why there is no running attempt of `agent` to finish. */
function noAttempt(doc: Json, agent: string): HelperError {
  for (const [i, role] of rolesOf(doc).entries()) {
    const log = Array.isArray(role.attemptLog) ? role.attemptLog.filter(isObject) : [];
    const mine = log.filter((e) => e.agent === agent);
    if (mine.length) {
      const last = mine[mine.length - 1];
      return new HelperError("E_TRANSITION", `finish: ${agent}'s attempt ${String(last.attempt)} of role ${i} (${String(role.name)}) is no longer running (${String(last.outcome)}): nothing to finish`);
    }
  }
  return new HelperError("E_NOT_FOUND", `finish: no running attempt of an agent named ${agent} in the plan (record-usage takes auxiliaries and fix workers)`);
}

/** The worker's report: valid (with the object), or why not. */
function readReport(cwd: string, path: string): { valid: true; report: Json } | { valid: false; error: string } {
  const r = readText(confine(cwd, "report", path, "read"));
  if (r.kind === "missing") return { valid: false, error: `Report file not found: ${path}` };
  if (r.kind === "error") return { valid: false, error: `Error reading report: ${r.detail}` };
  const parsed = parseJson(r.text);
  if (!parsed.ok) return { valid: false, error: `Invalid JSON in worker completion: ${parsed.detail}` };
  const errors = workerCompletionErrors(parsed.value);
  if (errors.length) return { valid: false, error: schemaFailure(errors) };
  return { valid: true, report: parsed.value as Json };
}

/** What the report itself says failed, or "" when it claims the goal reached. */
function reportedFailure(report: Json): string {
  if (report.achieved !== true) return "the worker reports the goal not achieved";
  const failed = (report.acceptanceCriteria as unknown[]).filter((c) => isObject(c) && c.passed !== true);
  if (failed.length) {
    const c = failed[0] as Json;
    return `the worker reports the criterion ${JSON.stringify(typeof c.criterion === "string" ? c.criterion.slice(0, 120) : "?")} not passed`;
  }
  return "";
}

const oneLine = (s: string) => {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > MAX_RESULT ? `${t.slice(0, MAX_RESULT - 1)}…` : t;
};

/**
 * The role whose newest attempt is `agent`'s and ended completed, the role completed: what a finish killed between
 * its plan write and its commit leaves. Its commit is then completed (or found made) by `finishCommit`.
 */
function completedAttemptOf(doc: Json, agent: string): { index: number; role: Json; entry: Json } | null {
  const roles = rolesOf(doc);
  for (let i = 0; i < roles.length; i++) {
    const log = Array.isArray(roles[i].attemptLog) ? (roles[i].attemptLog as unknown[]) : [];
    const last = log.length ? log[log.length - 1] : null;
    if (isObject(last) && last.agent === agent && last.outcome === "completed" && roles[i].status === "completed") return { index: i, role: roles[i], entry: last };
  }
  return null;
}

/**
 * finish called again for a completed attempt: nothing is recorded again; the role's reported files are committed
 * where HEAD does not have them yet (none are when the first call's commit was made: the answer says so).
 */
async function finishCommit(ctx: Context, project: string, done: { index: number; role: Json; entry: Json }, agent: string, message: unknown) {
  const roleName = typeof done.role.name === "string" ? done.role.name : "";
  const reportPath = `.design/worker-${agent}.json`;
  const head = { roleIndex: done.index, role: roleName, agent, attempt: done.entry.attempt ?? null, status: "completed", result: typeof done.role.result === "string" ? done.role.result : "", alreadyRecorded: true };
  const read = readReport(ctx.cwd, reportPath);
  if (!read.valid) return { ...head, commit: { skipped: `its report cannot be read again (${read.error}): nothing is committed` } };
  const now = grantState(project, ctx.now());
  if ("why" in now) return { ...head, commit: { skipped: `the execute grant no longer holds (${now.why}): nothing is committed` } };
  let commit: CommitAnswer | { error: string };
  try {
    const snap = isSnapshot(done.entry.snapshot) ? done.entry.snapshot : null;
    commit = await commitRoleFiles(project, now.grant, roleName, read.report.filesChanged as unknown[], commitMessage(message, done.role), snap);
  } catch (err) {
    commit = { error: err instanceof Error ? err.message : String(err) };
  }
  return { ...head, commit };
}

export default defineCommand({
  positionals: [PLAN_PATH_WRITE],
  flags: {
    agent: { type: "string", required: true, help: "the worker's name, as given to the Agent tool (its running attempt's agent)" },
    "give-up": { type: "boolean", help: "record the role failed because its report stayed invalid (after one correction)" },
    result: { type: "string", help: "the one-line result to record (default: from the checks, or what failed)" },
    message: { type: "string", help: "the commit message (default '<role name>: <result>')" },
    timeout: { type: "int", help: `seconds each check may run (default ${CHECK_TIMEOUT_S}, at most ${MAX_TIMEOUT_S})` },
    tokens: { type: "int", help: "the task notification's <subagent_tokens>: used only when no transcript of the agent is found" },
    "tool-uses": { type: "int", help: "the task notification's <tool_uses> (fallback, as --tokens)" },
    "duration-ms": { type: "int", help: "the task notification's <duration_ms> (fallback, as --tokens)" },
  },
  async run(ctx, args) {
    const agent = args.agent as string;
    if (!AGENT.test(agent)) throw new HelperError("E_USAGE", `finish: --agent must be an agent name (lowercase letters, digits, dashes): '${agent}'`);
    const timeoutS = (args.timeout as number | undefined) ?? CHECK_TIMEOUT_S;
    if (!Number.isInteger(timeoutS) || timeoutS < 1 || timeoutS > MAX_TIMEOUT_S) throw new HelperError("E_USAGE", `finish: --timeout must be 1 to ${MAX_TIMEOUT_S} seconds`);
    const given = { tokens: args.tokens as number | undefined, toolUses: args["tool-uses"] as number | undefined, durationMs: args["duration-ms"] as number | undefined };
    for (const [k, v] of Object.entries(given)) if (v !== undefined && v < 0) throw new HelperError("E_USAGE", `finish: ${k} must be 0 or more`);
    const givenResult = typeof args.result === "string" ? oneLine(args.result) : undefined;
    if (givenResult === "") throw new HelperError("E_USAGE", "finish: --result must not be empty");
    const planPath = args.plan_path as string;
    granteePlan(ctx, planPath, "finish");
    const { project } = projectRoots(ctx.cwd);

    const plan = loadPlan(ctx.cwd, planPath);
    const hit = attemptOf(plan, agent);
    if (!hit) {
      // A finish killed after its plan write and before its commit: the role reads completed; complete the commit.
      const done = completedAttemptOf(plan, agent);
      if (done === null || args["give-up"]) throw noAttempt(plan, agent);
      return finishCommit(ctx, project, done, agent, args.message);
    }
    const roleName = typeof hit.role.name === "string" ? hit.role.name : "";
    const head = { roleIndex: hit.index, role: roleName, agent, attempt: hit.entry.attempt ?? null };
    const reportPath = `.design/worker-${agent}.json`;
    commitMessage(args.message, hit.role); // a bad --message is refused before anything runs

    let report: Json | null = null;
    let status: "completed" | "failed";
    let result: string;
    let evidence: Evidence[] | null = null;
    let checks: ReturnType<typeof checksGrant> | null = null;
    if (args["give-up"]) {
      status = "failed";
      result = givenResult ?? "its completion report stayed invalid after one correction";
    } else {
      const read = readReport(ctx.cwd, reportPath);
      if (!read.valid) {
        throw new HelperError("E_INVALID", `finish: the report ${reportPath} is not valid: ${read.error}. Nothing was recorded: send the worker the error and the schema, then call finish again (or with --give-up)`, {
          ...head,
          status: null,
          recorded: false,
          report: { valid: false, path: reportPath, error: read.error, schema: JSON_SCHEMAS["worker-completion"] },
        });
      }
      report = read.report;
      const claimed = reportedFailure(report);
      if (claimed) {
        status = "failed";
        result = givenResult ?? claimed;
      } else {
        checks = checksGrant(project, String(hit.index), ctx.now());
        if ("why" in checks) throw new HelperError("E_INVALID", `finish runs the role's checks only under the execute grant: ${checks.why}. Nothing was recorded`, { ...head, recorded: false });
        evidence = await runCommands(project, checks.commands, timeoutS, ctx.now);
        status = "completed"; // decided under the lock, on the evidence as the checks read then
        result = "";
      }
    }

    const measured = measureUsage(ctx.cwd, agent, given, ctx.now());
    const usage = "record" in measured ? measured.record : null;
    const applied = await updatePlan(ctx.cwd, planPath, ["progress"], (doc) => {
      const now = attemptOf(doc, agent);
      if (!now || now.index !== hit.index || now.entry.attempt !== hit.entry.attempt) {
        throw new HelperError("E_TRANSITION", `finish: ${agent}'s attempt ended while it was being finished: nothing recorded`);
      }
      if (usage) now.entry.usage = usage;
      if (evidence) {
        now.entry.evidence = evidence;
        const gaps = evidenceGaps(doc, hit.index, sha256, (path) => specFileHash(project, path, sha256));
        if (gaps.length) {
          status = "failed";
          result = givenResult && !evidence.every((e) => e.passed) ? givenResult : oneLine(gaps.join("; "));
        } else {
          const passedCount = evidence.length;
          result = givenResult ?? `${passedCount}/${passedCount} checks passed`;
        }
      }
      const r = applyUpdates(doc, [{ roleIndex: hit.index, status, hasResult: true, result }], { cwd: ctx.cwd, project, now: ctx.now() });
      return { write: true, result: r };
    });

    await refreshLiveReport(ctx.cwd, ctx.now());
    let commit: CommitAnswer | { skipped: string } | { error: string };
    if (status !== "completed" || report === null || checks === null || "why" in checks) commit = { skipped: `the role ${status === "failed" ? "failed" : "did not complete"}: nothing is committed` };
    else {
      try {
        // The checks may have run for minutes: the grant must still hold for git to touch the role's files.
        const now = grantState(project, ctx.now());
        if ("why" in now) commit = { skipped: `the execute grant no longer holds (${now.why}): nothing is committed` };
        else {
          const role = { ...hit.role, result };
          crashPoint("finish:recorded");
          commit = await commitRoleFiles(project, now.grant, roleName, report.filesChanged as unknown[], commitMessage(args.message, role), isSnapshot(hit.entry.snapshot) ? hit.entry.snapshot : null);
        }
      } catch (err) {
        commit = { error: err instanceof Error ? err.message : String(err) };
      }
    }
    return {
      ...head,
      status,
      result,
      usage: usage ?? { recorded: false, why: "why" in measured ? measured.why : "" },
      evidence: evidence ? { passed: evidence.every((e) => e.passed), summary: `${evidence.filter((e) => e.passed).length}/${evidence.length} passed`, results: evidenceView(evidence) } : null,
      report: report ? { valid: true, path: reportPath } : { valid: false, gaveUp: true, path: reportPath },
      cascaded: applied.cascaded,
      restored: applied.restored,
      commit,
    };
  },
});
