// What an agent cost, read from its own transcript: Claude Code writes each agent's conversation to
// `<config>/projects/<project>/<session>/subagents/agent-<id>.jsonl` (a Workflow agent's under
// `subagents/workflows/<run>/`), with a `.meta.json` sidecar naming it (`name`; a Workflow agent's `agent()` label
// as `description`). Every assistant message there carries the API's usage; the sum over distinct messages is what
// the agent spent. Measured on 2.1.197 and 2.1.332 (test/e2e/proof.test.ts): the transcript's sum is exact on both,
// where the task notification's `<subagent_tokens>` is the size of the agent's last request (its context at the
// end), not its spend, and its formula differs between the two releases. The notification's `<tool_uses>` and
// `<duration_ms>` agree with the transcript; they are the fallback when no transcript is found.
//
// The reads outside the project, each bounded: the folder list of `<config>/projects` (to find this session's
// folder when its name is not the expected one), the sidecars of this session's agents (64 KiB each, at most
// MAX_AGENTS), and the transcript of the agent asked about (at most MAX_TRANSCRIPT). Never a write there.
import { readdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { readSmallRegular } from "../../base/safe-read.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const MAX_META = 64 * 1024;
const MAX_TRANSCRIPT = 64 * 1024 * 1024;
const MAX_AGENTS = 2048;
const MAX_RUNS = 256;
const MAX_PROJECTS = 4096;
/** The first bytes of a Workflow agent's transcript, where its prompt names it (2.1.197 writes no label). */
const HEAD_BYTES = 8 * 1024;

/** What one agent spent, summed over its transcript's distinct API responses. */
export interface Usage {
  /** Every token the agent's requests processed: input, output, cache writes and cache reads. */
  tokens: number;
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  /** Tool calls it made. */
  toolUses: number;
  /** From its first to its last transcript entry. */
  durationMs: number;
  requests: number;
  /** The model its last response names. */
  model: string | null;
  /** Where the numbers come from: the agent's transcript(s), or the task notification as the lead read it. */
  source: "transcript" | "notification";
  /** Transcripts summed (an agent resumed by SendMessage keeps one; one spawned twice has two). */
  transcripts?: number;
}

/** Claude Code's config folder: CLAUDE_CONFIG_DIR (absolute) or ~/.claude. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const c = env.CLAUDE_CONFIG_DIR;
  if (c && isAbsolute(c) && !c.includes("\0")) return resolve(c);
  const h = env.HOME;
  if (h && isAbsolute(h) && !h.includes("\0")) return join(resolve(h), ".claude");
  return null;
}

/** The folder name Claude Code gives a project under `<config>/projects`: its path, every other character a dash. */
export function projectFolderName(projectDir: string): string {
  return projectDir.replace(/[^a-zA-Z0-9]/g, "-");
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

const inside = (root: string, p: string) => {
  const rel = relative(root, p);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
};

/** This session's folder of agent transcripts (`…/<session>/subagents`), or null. */
export function subagentsDir(projectDir: string, sessionId: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(sessionId)) return null;
  const config = configDir(env);
  if (config === null) return null;
  let projects: string;
  try {
    projects = realpathSync(join(config, "projects"));
  } catch {
    return null;
  }
  const check = (folder: string) => {
    const dir = join(projects, folder, sessionId, "subagents");
    try {
      const real = realpathSync(dir);
      return inside(projects, real) && isDir(real) ? real : null;
    } catch {
      return null;
    }
  };
  const expected = check(projectFolderName(projectDir));
  if (expected) return expected;
  let names: string[];
  try {
    names = readdirSync(projects).slice(0, MAX_PROJECTS);
  } catch {
    return null;
  }
  for (const n of names) {
    const found = check(n);
    if (found) return found;
  }
  return null;
}

function readMeta(path: string): Obj | null {
  const r = readSmallRegular(path, MAX_META, { noFollow: true });
  if (!r.ok) return null;
  try {
    const v: unknown = JSON.parse(r.bytes.toString("utf8"));
    return isObj(v) ? v : null;
  } catch {
    return null;
  }
}

function headText(path: string): string {
  const r = readSmallRegular(path, MAX_TRANSCRIPT, { noFollow: true });
  return r.ok ? r.bytes.subarray(0, HEAD_BYTES).toString("utf8") : "";
}

/**
 * The transcripts of the agent named `agent` in this session's folder: an Agent-tool agent whose sidecar `name` is
 * it, a Workflow agent whose sidecar `description` (its `agent()` label) is it or, without a label, whose prompt
 * begins "You are <agent>, the worker" (the prompt the helper's Workflow script gives it).
 */
export function agentTranscripts(subagents: string, agent: string): string[] {
  return namedTranscripts(subagents, [agent]).get(agent) ?? [];
}

/** agentTranscripts for several names, reading each sidecar once. */
export function namedTranscripts(subagents: string, agents: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>(agents.map((a) => [a, []]));
  const scan = (dir: string, workflow: boolean) => {
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => /^agent-[A-Za-z0-9_-]{1,128}\.meta\.json$/.test(n)).slice(0, MAX_AGENTS);
    } catch {
      return;
    }
    for (const n of names.sort()) {
      const meta = readMeta(join(dir, n));
      if (!meta) continue;
      const transcript = join(dir, n.replace(/\.meta\.json$/, ".jsonl"));
      if (!workflow) {
        if (typeof meta.name === "string") out.get(meta.name)?.push(transcript);
      } else if (typeof meta.description === "string") out.get(meta.description)?.push(transcript);
      else if (meta.description === undefined) {
        const head = headText(transcript);
        for (const a of agents) if (head.includes(`You are ${a}, the worker`)) out.get(a)?.push(transcript);
      }
    }
  };
  scan(subagents, false);
  let runs: string[] = [];
  try {
    runs = readdirSync(join(subagents, "workflows")).filter((n) => /^[A-Za-z0-9_-]{1,128}$/.test(n)).slice(0, MAX_RUNS);
  } catch {
    /* no workflow runs */
  }
  for (const r of runs) scan(join(subagents, "workflows", r), true);
  return out;
}

const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);

/**
 * The usage of transcripts (JSONL), summed over distinct API responses: the CLI writes one line per content block
 * of a response, each carrying the response's usage, so lines are counted once per `message.id`. Null when no
 * file could be read.
 */
export function usageOfTranscripts(paths: readonly string[]): Usage | null {
  const seen = new Set<string>();
  const tools = new Set<string>();
  const u = { tokens: 0, inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0, toolUses: 0, durationMs: 0, requests: 0 };
  let model: string | null = null;
  let read = 0;
  for (const path of paths) {
    const r = readSmallRegular(path, MAX_TRANSCRIPT, { noFollow: true });
    if (!r.ok) continue;
    read++;
    let first = Infinity;
    let last = -Infinity;
    for (const line of r.bytes.toString("utf8").split("\n")) {
      if (!line.startsWith("{")) continue;
      let e: unknown;
      try {
        e = JSON.parse(line);
      } catch {
        continue;
      }
      if (!isObj(e)) continue;
      const at = typeof e.timestamp === "string" ? Date.parse(e.timestamp) : NaN;
      if (Number.isFinite(at) && (e.type === "user" || e.type === "assistant")) {
        first = Math.min(first, at);
        last = Math.max(last, at);
      }
      if (e.type !== "assistant" || !isObj(e.message)) continue;
      const m = e.message;
      for (const b of Array.isArray(m.content) ? m.content : []) if (isObj(b) && b.type === "tool_use" && typeof b.id === "string") tools.add(b.id);
      if (!isObj(m.usage)) continue;
      const key = typeof m.id === "string" ? m.id : typeof e.requestId === "string" ? e.requestId : typeof e.uuid === "string" ? e.uuid : line;
      if (seen.has(key)) continue;
      seen.add(key);
      const input = count(m.usage.input_tokens);
      const output = count(m.usage.output_tokens);
      const cacheCreation = count(m.usage.cache_creation_input_tokens);
      const cacheRead = count(m.usage.cache_read_input_tokens);
      u.inputTokens += input;
      u.outputTokens += output;
      u.cacheCreationTokens += cacheCreation;
      u.cacheReadTokens += cacheRead;
      u.tokens += input + output + cacheCreation + cacheRead;
      u.requests++;
      if (typeof m.model === "string") model = m.model;
    }
    if (last >= first) u.durationMs += last - first;
  }
  if (read === 0) return null;
  u.toolUses = tools.size;
  return { ...u, model, source: "transcript", transcripts: read };
}
