// Scripting the lead (the model) of a session: a generator yields one turn at a time (text, tool calls) and gets
// back the next request's context, whose `results` are the tool_result blocks the CLI sent for those calls.
import { offeredTools, type ToolCall, type ToolResult, type Turn, type TurnContext } from "./stub.ts";

export type Flow = Generator<Turn, void, TurnContext>;

/**
 * Adapt a generator flow to the stub's script function. The first request starts the generator; `latest()` is the
 * newest request of the conversation (notifications may arrive inside any of them).
 */
export function flowScript(make: (first: TurnContext, latest: () => TurnContext) => Flow): (ctx: TurnContext) => Turn {
  let gen: Flow | null = null;
  let finished = false;
  let last: TurnContext;
  return (ctx) => {
    last = ctx;
    if (finished) return { text: "Done." };
    if (!gen) gen = make(ctx, () => last);
    const r = gen.next(ctx);
    if (r.done) {
      finished = true;
      return { text: "Done." };
    }
    return r.value;
  };
}

export function bash(command: string, description = "Run the do helper"): ToolCall {
  return { name: "Bash", input: { command, description } };
}

export function write(filePath: string, content: string): ToolCall {
  return { name: "Write", input: { file_path: filePath, content } };
}

export function read(filePath: string): ToolCall {
  return { name: "Read", input: { file_path: filePath } };
}

export function turn(text: string, ...tools: ToolCall[]): Turn {
  return { text, tools };
}

/** How the CLI answers a tool call that needed the user's approval (in -p mode: refused). */
export const DENIAL = /^(?:Claude requested permissions|This command requires approval|This Bash command contains multiple operations|Permission to use|\S+ in '[^']*' was blocked)/;

/** The helper's JSON document in a Bash tool_result (the CLI prefixes "Exit code N" on a non-zero exit). */
export function helperJson(r: ToolResult): any {
  const where = `${r.name} ${JSON.stringify(r.input?.command ?? r.input)}`;
  if (DENIAL.test(r.text)) throw new Error(`${where} needed approval: ${r.text}`);
  const start = r.text.indexOf("{");
  if (start < 0) throw new Error(`${where} printed no JSON: ${r.text}`);
  const text = r.text.slice(start).trim();
  try {
    return JSON.parse(text);
  } catch {
    // The CLI may append notes after the output; take the first line that parses.
    for (const line of r.text.split("\n")) {
      if (!line.startsWith("{")) continue;
      try {
        return JSON.parse(line);
      } catch {
        /* next */
      }
    }
    throw new Error(`${where} printed no parsable JSON: ${r.text}`);
  }
}

/** Assert a helper call ran (no approval), exited 0 and answered ok:true; returns its JSON. */
export function ok(r: ToolResult | undefined): any {
  if (!r) throw new Error("missing tool_result");
  const doc = helperJson(r);
  if (r.isError || doc.ok !== true) throw new Error(`${r.input?.command} failed: ${r.text}`);
  return doc;
}

/** Assert a non-helper tool call (Write, Read, TaskCreate...) succeeded; returns its text. */
export function done(r: ToolResult | undefined): string {
  if (!r) throw new Error("missing tool_result");
  if (r.isError || DENIAL.test(r.text)) throw new Error(`${r.name} ${JSON.stringify(r.input).slice(0, 200)} failed: ${r.text}`);
  return r.text;
}

export function check(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(message);
}

export interface Notification {
  /** The Agent or SendMessage call whose agent stopped. */
  toolUseId: string;
  status: string;
  result: string;
}

/**
 * Every <task-notification> the CLI delivered in the conversation so far: as a user message when it starts a turn,
 * as a mid-conversation system message when it arrives while the lead is still working.
 */
export function notifications(body: any): Notification[] {
  const out: Notification[] = [];
  for (const m of body?.messages ?? []) {
    if (m.role === "assistant") continue;
    const parts = typeof m.content === "string" ? [m.content] : (m.content ?? []).filter((b: any) => b.type === "text").map((b: any) => String(b.text));
    for (const text of parts) {
      for (const n of text.matchAll(/<task-notification>([\s\S]*?)<\/task-notification>/g)) {
        const tag = (name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(n[1])?.[1] ?? "";
        out.push({ toolUseId: tag("tool-use-id"), status: tag("status"), result: tag("result") });
      }
    }
  }
  return out;
}

/**
 * End the turn (as the skills say: "End your turn; you are notified…") until every agent started by one of these
 * tool calls has reported. Returns the context of the request that holds the last notification.
 */
export function* waitFor(ctx: TurnContext, ids: string[], text = "Waiting for the agents to report."): Generator<Turn, TurnContext, TurnContext> {
  for (let rounds = 0; ; rounds++) {
    const seen = notifications(ctx.body);
    const missing = ids.filter((id) => !seen.some((n) => n.toolUseId === id));
    if (missing.length === 0) return ctx;
    if (rounds > ids.length + 2) throw new Error(`no notification for ${missing.join(", ")}`);
    ctx = yield turn(text);
  }
}

/** The notification of one agent call (after waitFor). */
export function reported(ctx: TurnContext, id: string): Notification {
  const n = notifications(ctx.body).filter((x) => x.toolUseId === id).pop();
  if (!n) throw new Error(`no notification for ${id}`);
  return n;
}

export function agent(description: string, name: string, model: string, prompt: string): ToolCall {
  return { name: "Agent", input: { description, name, model, run_in_background: true, prompt } };
}

export function sendMessage(to: string, summary: string, message: string): ToolCall {
  return { name: "SendMessage", input: { to, summary, message } };
}

/** Whether the CLI offers a tool in this session at all: callable now, or deferred behind ToolSearch. */
export function hasTool(ctx: TurnContext, name: string): boolean {
  const o = offeredTools(ctx.body);
  return o.callable.has(name) || o.deferred.has(name);
}

/**
 * Make tools callable the way a model does: the ones the request lists as deferred are loaded with one ToolSearch
 * "select:" call (2.1.330 defers SendMessage and TaskStop); tools already in `tools` need nothing (2.1.197 sends all).
 * Returns the context to continue from (unchanged when no turn was needed).
 */
export function* loadTools(ctx: TurnContext, names: string[]): Generator<Turn, TurnContext, TurnContext> {
  const o = offeredTools(ctx.body);
  const missing = names.filter((n) => !o.callable.has(n));
  if (missing.length === 0) return ctx;
  const absent = missing.filter((n) => !o.deferred.has(n));
  if (absent.length) throw new Error(`this CLI offers no ${absent.join(", ")}`);
  const next: TurnContext = yield turn(`Loading ${missing.join(", ")}.`, { name: "ToolSearch", input: { query: `select:${missing.join(",")}` } });
  const now = offeredTools(next.body).callable;
  const still = missing.filter((n) => !now.has(n));
  if (still.length) throw new Error(`ToolSearch did not load ${still.join(", ")}: ${next.results[0]?.text}`);
  return next;
}
