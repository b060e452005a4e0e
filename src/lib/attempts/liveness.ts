// Whether an agent of this session is still at work, told by the clock rather than by counting the lead's turns.
// Claude Code appends to an agent's transcript (`subagents/agent-<id>.jsonl`, found by the name the lead gave it:
// lib/cost/usage.ts) whenever the agent's model answers and whenever one of its tool calls returns, so the file's last
// write is its last sign of life, save the `api-request` lines 2.1.332 adds for each model request (a retried
// request too), which say only that the agent waits on its model. A tool call is the longest silence a working
// agent has: the Bash tool stops a command at its timeout, at most 10 minutes (2.1.332: default 120,000 ms, ceiling
// 600,000 ms, raised by BASH_MAX_TIMEOUT_MS or a larger BASH_DEFAULT_TIMEOUT_MS), and a backgrounded command
// returns at once. So an agent whose transcript has not been written for longer than the stall limit (15 minutes,
// or that ceiling plus 5 minutes when the environment raises it) is stalled. It has finished when its last message
// is the model's final answer (an assistant message with no tool call); 2.1.332 also marks the sidecar `finished`,
// 2.1.197 does not, and an agent resumed by SendMessage writes on, so the transcript decides.
//
// The reads are record-usage's (this session's sidecars) plus, per transcript, one fstat and at most WINDOW bytes
// from its start and WINDOW from its end through a non-blocking, no-follow open of a regular file: a huge file
// costs no more, a link, FIFO or device is skipped at once. Never a write.
import { closeSync, fstatSync, readSync } from "node:fs";
import { openRegular } from "../../base/safe-read.js";
import { namedTranscripts, subagentsDir } from "../cost/usage.js";
import { isoSeconds } from "../values.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The default stall limit, in minutes. */
export const STALL_MINUTES = 15;
/** Slack over the Bash tool's ceiling when the environment raises it past the default limit. */
const SLACK_MS = 5 * 60_000;
/** Bytes read from each end of a transcript. */
const WINDOW = 256 * 1024;
/** A transcript of any size may be looked at: only its two windows are read. */
const ANY_SIZE = Number.MAX_SAFE_INTEGER;

/** What the lead learns about one agent it waits for. */
export interface AgentLiveness {
  name: string;
  /** A transcript of an agent of this name was found and read. */
  found: boolean;
  /** Its first entry's time (ISO, seconds), when the first line fits the window. */
  startedAt: string | null;
  /** The transcript's last write (ISO, seconds). */
  lastActivityAt: string | null;
  /** Milliseconds since that write. */
  idleMs: number | null;
  /** Its last message is the model's final answer. */
  finished: boolean;
  /** Unfinished and idle longer than the stall limit: stop it and start a replacement. */
  stalled: boolean;
  /** Why nothing was found (no session, no transcript, a transcript refused). */
  note?: string;
}

export interface LivenessAnswer {
  agents: AgentLiveness[];
  /** The names of the stalled agents. */
  stalled: string[];
  stallMinutes: number;
}

/** The stall limit in ms: `minutes` when given, else 15 minutes or the Bash ceiling the environment sets + 5. */
export function stallLimitMs(minutes: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  if (minutes !== undefined) return minutes * 60_000;
  const ms = (v: string | undefined) => {
    const n = v && /^\d{1,12}$/.test(v.trim()) ? Number(v.trim()) : 0;
    return n > 0 ? n : 0;
  };
  const ceiling = Math.max(ms(env.BASH_MAX_TIMEOUT_MS), ms(env.BASH_DEFAULT_TIMEOUT_MS));
  return Math.max(STALL_MINUTES * 60_000, ceiling + SLACK_MS);
}

interface TranscriptFacts {
  startedMs: number | null;
  lastWriteMs: number;
  finished: boolean;
}

function readAt(fd: number, pos: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let n = 0;
  for (let r; n < length && (r = readSync(fd, buf, n, length - n, pos + n)) > 0; ) n += r;
  return buf.subarray(0, n);
}

const timeOf = (e: Obj): number | null => {
  const t = typeof e.timestamp === "string" ? Date.parse(e.timestamp) : NaN;
  return Number.isFinite(t) ? t : null;
};

/** Whether an entry is the model's final answer: an assistant message without a tool call. */
function isFinalAnswer(e: Obj): boolean {
  if (e.type !== "assistant" || !isObj(e.message)) return false;
  const m = e.message;
  if (m.stop_reason === "tool_use") return false;
  const blocks = Array.isArray(m.content) ? m.content : [];
  return !blocks.some((b) => isObj(b) && b.type === "tool_use");
}

/** The facts of one transcript, or the reason it was refused. */
function transcriptFacts(path: string): TranscriptFacts | string {
  const o = openRegular(path, ANY_SIZE, { noFollow: true });
  if (!o.ok) return o.error;
  try {
    const st = fstatSync(o.fd);
    const size = st.size;
    const head = readAt(o.fd, 0, Math.min(size, WINDOW)).toString("utf8");
    let startedMs: number | null = null;
    const nl = head.indexOf("\n");
    const first = nl >= 0 ? head.slice(0, nl) : size <= WINDOW ? head : "";
    try {
      const e: unknown = JSON.parse(first);
      if (isObj(e)) startedMs = timeOf(e);
    } catch {
      /* the first line is longer than the window, or torn */
    }
    const from = Math.max(0, size - WINDOW);
    const lines = readAt(o.fd, from, size - from).toString("utf8").split("\n");
    if (from > 0) lines.shift(); // the window starts inside a line
    let finished = false;
    // 2.1.332 writes an `api-request` line for each model request, a retry of a request that never answered too
    // (measured through the relay: the same request again 5.5 minutes later), so lines of that kind at the end are
    // no sign of life: the agent's last activity is the line before them.
    let trailingRequests = true;
    let activityMs: number | null = null;
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i].trim();
      if (line === "") continue;
      let e: unknown;
      try {
        e = JSON.parse(line);
      } catch {
        break; // a line being written: not finished
      }
      if (!isObj(e)) continue;
      const request = typeof e.type === "string" && e.type.startsWith("api-request");
      if (trailingRequests && !request) {
        if (i < lines.length - 1 && lines.slice(i + 1).some((l) => l.trim() !== "")) activityMs = timeOf(e);
        trailingRequests = false;
      }
      if (e.type !== "user" && e.type !== "assistant") continue;
      finished = isFinalAnswer(e);
      break;
    }
    const lastWriteMs = activityMs !== null && activityMs < st.mtimeMs ? activityMs : st.mtimeMs;
    return { startedMs, lastWriteMs, finished };
  } catch (err) {
    return (err as Error).message;
  } finally {
    closeSync(o.fd);
  }
}

/**
 * The liveness of each named agent of this Claude Code session (`sessionId`, the CLI's CLAUDE_CODE_SESSION_ID) at
 * `now`. An agent with several transcripts (spawned twice under one name) is judged by the one written last.
 */
export function agentLiveness(
  project: string,
  sessionId: string,
  names: readonly string[],
  now: number,
  limitMs: number,
  env: NodeJS.ProcessEnv = process.env,
): LivenessAnswer {
  const dir = sessionId ? subagentsDir(project, sessionId, env) : null;
  const found = dir === null ? new Map<string, string[]>() : namedTranscripts(dir, names);
  const agents = names.map((name): AgentLiveness => {
    const none = (note: string): AgentLiveness => ({ name, found: false, startedAt: null, lastActivityAt: null, idleMs: null, finished: false, stalled: false, note });
    if (!sessionId) return none("no Claude Code session (CLAUDE_CODE_SESSION_ID) to look in");
    if (dir === null) return none(`no agent transcripts of session ${sessionId} under the Claude config folder`);
    let best: TranscriptFacts | null = null;
    const refused: string[] = [];
    for (const path of found.get(name) ?? []) {
      const f = transcriptFacts(path);
      if (typeof f === "string") refused.push(f);
      else if (best === null || f.lastWriteMs > best.lastWriteMs) best = f;
    }
    if (best === null) return none(refused.length ? `transcript refused: ${refused[0]}` : `no transcript of an agent named ${name} yet`);
    const idleMs = Math.max(0, Math.round(now - best.lastWriteMs));
    return {
      name,
      found: true,
      startedAt: best.startedMs === null ? null : isoSeconds(best.startedMs),
      lastActivityAt: isoSeconds(best.lastWriteMs),
      idleMs,
      finished: best.finished,
      stalled: !best.finished && idleMs > limitMs,
    };
  });
  return { agents, stalled: agents.filter((a) => a.stalled).map((a) => a.name), stallMinutes: Math.round(limitMs / 6_000) / 10 };
}
