// record-usage: what one agent of the execute run cost (tokens, tool uses, duration), recorded in plan.json: a
// worker's in its attempt entry (`usage`, found by the attempt's agent name), an auxiliary's or fix worker's in
// `progress.auxiliaries`. The numbers come from the agent's own transcript in this Claude Code session
// (lib/cost/usage.ts: exact on every supported release), or, where no transcript is found, from the task
// notification's `<usage>` as the lead passes it (--tokens, --tool-uses, --duration-ms). Recording again replaces
// the earlier record (an agent resumed by SendMessage is summed whole), so the call can be repeated.
import { join } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { runSpend } from "../../lib/cost/cost.js";
import { isGrantAuxiliary } from "../../lib/grant/grant.js";
import { PLAN_PATH_WRITE, rolesOf, type Json } from "../../lib/plan/plan.js";
import { updatePlan } from "../../lib/plan/plan-update.js";
import { agentTranscripts, subagentsDir, usageOfTranscripts, type Usage } from "../../lib/cost/usage.js";
import { isObject, isoSeconds } from "../../lib/values.js";
import { MAX_STATE_BYTES, projectRoots, readJson } from "../../store.js";

const AGENT = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** The id of the unfinished execute run (null: none open). */
function openRunId(cwd: string): string | null {
  const r = readJson(join(projectRoots(cwd).design, "run-execute.json"), MAX_STATE_BYTES);
  return r.kind === "ok" && isObject(r.value) && typeof r.value.runId === "string" && r.value.completedAt == null ? r.value.runId : null;
}

/** The last attempt entry of any role whose agent is `agent`, with its role. */
function attemptOf(doc: Json, agent: string): { roleIndex: number; role: Json; entry: Json } | null {
  let found: { roleIndex: number; role: Json; entry: Json } | null = null;
  rolesOf(doc).forEach((role, roleIndex) => {
    const log = Array.isArray(role.attemptLog) ? role.attemptLog : [];
    for (const entry of log) if (isObject(entry) && entry.agent === agent) found = { roleIndex, role, entry };
  });
  return found;
}

/** The numbers the lead may pass from the task notification, used only where no transcript is found. */
export interface NotifiedUsage {
  tokens?: number;
  toolUses?: number;
  durationMs?: number;
}

/**
 * What an agent cost, as recorded: from its transcript in this Claude Code session, else from the notification's
 * numbers (`given.tokens` set), else why neither is there.
 */
export function measureUsage(cwd: string, agent: string, given: NotifiedUsage, now: number): { record: Record<string, unknown> } | { why: string } {
  const { project } = projectRoots(cwd);
  const session = process.env.CLAUDE_CODE_SESSION_ID ?? "";
  const dir = session ? subagentsDir(project, session) : null;
  const transcripts = dir ? agentTranscripts(dir, agent) : [];
  let usage: Usage | null = transcripts.length ? usageOfTranscripts(transcripts) : null;
  if (usage === null) {
    if (given.tokens === undefined) {
      const why = !session ? "no Claude Code session (CLAUDE_CODE_SESSION_ID) to look in" : dir === null ? `no transcripts of session ${session} under the Claude config folder` : `no transcript of an agent named ${agent} in session ${session}`;
      return { why };
    }
    usage = { tokens: given.tokens, inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0, toolUses: given.toolUses ?? 0, durationMs: given.durationMs ?? 0, requests: 0, model: null, source: "notification" };
  }
  const notified = given.tokens !== undefined || given.toolUses !== undefined || given.durationMs !== undefined ? { notified: given } : {};
  return { record: { ...usage, ...(usage.source === "transcript" ? notified : {}), recordedAt: isoSeconds(now) } };
}

export default defineCommand({
  positionals: [PLAN_PATH_WRITE],
  flags: {
    agent: { type: "string", required: true, help: "the agent's name, as given to the Agent tool (a worker's attempt agent, an auxiliary, fix-<n>)" },
    tokens: { type: "int", help: "the task notification's <subagent_tokens>: used only when no transcript of the agent is found" },
    "tool-uses": { type: "int", help: "the task notification's <tool_uses> (fallback, as --tokens)" },
    "duration-ms": { type: "int", help: "the task notification's <duration_ms> (fallback, as --tokens)" },
  },
  async run(ctx, args) {
    const agent = args.agent as string;
    if (!AGENT.test(agent)) throw new HelperError("E_USAGE", `record-usage: --agent must be an agent name (lowercase letters, digits, dashes): '${agent}'`);
    const given = { tokens: args.tokens as number | undefined, toolUses: args["tool-uses"] as number | undefined, durationMs: args["duration-ms"] as number | undefined };
    for (const [k, v] of Object.entries(given)) if (v !== undefined && v < 0) throw new HelperError("E_USAGE", `record-usage: ${k} must be 0 or more`);

    return recordUsage(ctx.cwd, args.plan_path as string, agent, given, ctx.now());
  },
});

/**
 * Record what `agent` cost in the plan at `planPath`: from its transcripts in this session, else from `given`
 * (the notification's numbers). Throws E_NOT_FOUND when neither is there or the agent is no attempt's nor an
 * auxiliary.
 */
export async function recordUsage(
  cwd: string,
  planPath: string,
  agent: string,
  given: NotifiedUsage,
  now: number,
): Promise<Record<string, unknown>> {
  const measured = measureUsage(cwd, agent, given, now);
  if ("why" in measured) throw new HelperError("E_NOT_FOUND", `record-usage: ${measured.why}; pass the task notification's numbers (--tokens, --tool-uses, --duration-ms)`);
  const record = measured.record;
  const runId = openRunId(cwd);

  return updatePlan<Record<string, unknown>>(cwd, planPath, ["progress"], (doc) => {
    const hit = attemptOf(doc, agent);
    if (hit) {
      hit.entry.usage = record;
      return {
        write: true,
        result: { agent, recordedFor: "attempt", role: hit.role.name, roleIndex: hit.roleIndex, attempt: hit.entry.attempt, usage: record, runSpend: runSpend(doc, runId) },
      };
    }
    if (!isGrantAuxiliary(agent)) {
      throw new HelperError("E_NOT_FOUND", `record-usage: no attempt of an agent named ${agent} in the plan, and it is not one of execute's auxiliaries`);
    }
    if (!("progress" in doc)) doc.progress = {};
    const progress = doc.progress as Json;
    if (!Array.isArray(progress.auxiliaries)) progress.auxiliaries = [];
    const list = progress.auxiliaries as unknown[];
    const entry = { agent, runId, usage: record };
    const k = list.findIndex((a) => isObject(a) && a.agent === agent && a.runId === runId);
    if (k >= 0) list[k] = entry;
    else list.push(entry);
    return { write: true, result: { agent, recordedFor: "auxiliary", usage: record, runSpend: runSpend(doc, runId) } };
  });
}
