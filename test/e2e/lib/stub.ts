// A scripted stand-in for the Anthropic Messages API on 127.0.0.1, for driving the real Claude Code CLI offline.
//
// - POST /v1/messages, streaming (SSE) or not. A request that offers tools belongs to a conversation, told apart by
//   its first user message: the first one is the main conversation (the lead), later ones are subagents. Each gets
//   its script's next turn; which turn is decided by the number of assistant messages already in the conversation,
//   so a retried request gets the same turn again instead of skipping one. A request without tools is a side
//   request (title, summary, classifier): it gets a short text.
// - POST /v1/messages/count_tokens: a fixed count.
// - Anything else: 404 in the API's error shape. A proxy request (CONNECT, or an absolute URL) means the CLI tried
//   to reach another host through HTTPS_PROXY, which the runner points here: refused with 403, kept in `escapes`.
// Every request is recorded (method, url, headers, parsed body) for the tests to read.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
  /** Fixed id; by default `toolu_<conversation>_<turn>_<n>`. */
  id?: string;
}

export interface Turn {
  text?: string;
  tools?: ToolCall[];
  /** Hold the answer this long (a model still thinking: a worker that stalls); dropped if the CLI gives up first. */
  delayMs?: number;
  /** The usage the answer reports (default 10 input and 10 output tokens, nothing cached). */
  usage?: Usage;
}

/** A Messages API answer's `usage`: what a real model reports per request. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

export interface ToolResult {
  id: string;
  /** The tool's name, looked up from the tool_use block this result answers. */
  name: string | undefined;
  input: Record<string, unknown> | undefined;
  text: string;
  isError: boolean;
}

export interface TurnContext {
  /** 0 for the first request of the conversation, 1 after the first scripted turn came back, ... */
  index: number;
  body: any;
  /** tool_result blocks of the last user message, in the order of the calls. */
  results: ToolResult[];
  /** All text the model would read in the request: system prompt and every message, tool results included. */
  allText: string;
}

export type Step = Turn | ((ctx: TurnContext) => Turn);
/** A conversation: a list of steps, or one function asked for each new turn. */
export type Script = Step[] | ((ctx: TurnContext) => Turn);

export interface Recorded {
  n: number;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  kind: "main" | "agent" | "side" | "count" | "other";
  /** main, agent1, agent2...: which conversation a messages request belongs to. */
  conversation?: string;
  /** For conversation requests: the turn index it was answered with. */
  turn?: number;
  /** What the stub answered. */
  answer?: Turn;
  /** When the request arrived (ms since the epoch). */
  at: number;
  /** A held answer (`delayMs`) whose connection the CLI closed first: the conversation was stopped while it waited. */
  abortedAt?: number;
}

export interface Stub {
  port: number;
  url: string;
  requests: Recorded[];
  escapes: string[];
  /** Errors a script threw; each ended its conversation with a text turn. */
  scriptErrors: string[];
  main(): Recorded[];
  setScript(script: Script): void;
  close(): Promise<void>;
}

const FINAL_TEXT = "Done.";
/** The usage an answer reports when its turn sets none. */
export const DEFAULT_USAGE: Required<Usage> = { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const SIDE_TEXT = "ok";

function blocks(content: unknown): any[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content : [];
}

function blockText(b: any): string {
  if (b?.type === "text") return String(b.text ?? "");
  if (b?.type === "tool_result") return blocks(b.content).map(blockText).join("\n");
  if (b?.type === "tool_use") return JSON.stringify(b.input ?? {});
  return "";
}

/** Every piece of text the model would read in a request body. */
export function requestText(body: any): string {
  const sys = blocks(body?.system).map(blockText).join("\n");
  const msgs = (body?.messages ?? []).map((m: any) => blocks(m.content).map(blockText).join("\n")).join("\n");
  return `${sys}\n${msgs}`;
}

/** tool_result blocks of the last user message, each paired with the tool_use it answers, in the order of the calls. */
export function lastResults(body: any): ToolResult[] {
  const msgs: any[] = body?.messages ?? [];
  const uses = new Map<string, any>();
  const order = new Map<string, number>();
  for (const m of msgs) {
    if (m.role !== "assistant") continue;
    blocks(m.content)
      .filter((b) => b.type === "tool_use")
      .forEach((b, i) => {
        uses.set(b.id, b);
        order.set(b.id, i);
      });
  }
  const last = [...msgs].reverse().find((m) => m.role === "user");
  return blocks(last?.content)
    .filter((b) => b.type === "tool_result")
    .map((b) => ({
      id: b.tool_use_id,
      name: uses.get(b.tool_use_id)?.name,
      input: uses.get(b.tool_use_id)?.input,
      text: blockText(b),
      isError: b.is_error === true,
    }))
    .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}

/** Text blocks of every user message (tool results excluded): prompts, skill bodies, task notifications. */
export function userText(body: any): string {
  const out: string[] = [];
  for (const m of body?.messages ?? []) if (m.role === "user") for (const b of blocks(m.content)) if (b.type === "text") out.push(String(b.text));
  return out.join("\n");
}

function contentOf(turn: Turn, index: number | string): any[] {
  const out: any[] = [];
  if (turn.text) out.push({ type: "text", text: turn.text });
  (turn.tools ?? []).forEach((t, i) => out.push({ type: "tool_use", id: t.id ?? `toolu_${index}_${i}`, name: t.name, input: t.input }));
  if (out.length === 0) out.push({ type: "text", text: FINAL_TEXT });
  return out;
}

function sendMessage(res: http.ServerResponse, body: any, content: any[], id: string, reported?: Usage): void {
  const stop = content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  const usage = { ...DEFAULT_USAGE, ...reported };
  const model = body?.model ?? "claude-stub";
  if (!body?.stream) {
    res.writeHead(200, { "content-type": "application/json", "request-id": `req_${id}` });
    res.end(JSON.stringify({ id, type: "message", role: "assistant", model, content, stop_reason: stop, stop_sequence: null, usage }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": `req_${id}` });
  const ev = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  ev("message_start", { message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage } });
  content.forEach((b, index) => {
    if (b.type === "text") {
      ev("content_block_start", { index, content_block: { type: "text", text: "" } });
      ev("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
    } else {
      ev("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
      ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
    }
    ev("content_block_stop", { index });
  });
  ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  ev("message_stop", {});
  res.end();
}

export interface OfferedTools {
  /** Tools the model can call in this request: every entry of `tools` (a deferred one only once it is loaded). */
  callable: Set<string>;
  /** Tools the CLI names as deferred: the model loads them with ToolSearch ("select:<name>,…") before calling them. */
  deferred: Set<string>;
}

/**
 * The tools a request offers the model. 2.1.197 sends every tool in `tools`. 2.1.330 sends the core tools there and
 * lists the deferred ones (SendMessage, TaskStop, Monitor, WebFetch…) in a reminder; a ToolSearch "select:" call
 * answers with tool_reference blocks and adds the loaded tools to `tools` of the following requests.
 */
export function offeredTools(body: any): OfferedTools {
  const callable = new Set<string>();
  for (const t of body?.tools ?? []) if (t?.name && t.name !== "DeferredToolPlaceholder") callable.add(String(t.name));
  const deferred = new Set<string>();
  // The list arrives in a message of role "system" (2.1.330); read every non-assistant message to be safe.
  for (const m of body?.messages ?? []) {
    if (m.role === "assistant") continue;
    for (const b of blocks(m.content)) {
      if (b.type !== "text") continue;
      const list = /deferred tools are now available via ToolSearch[^\n]*\n([\s\S]*?)(?:\n\s*\n|$)/.exec(String(b.text));
      for (const name of list?.[1].split("\n") ?? []) if (/^\w+$/.test(name.trim())) deferred.add(name.trim());
    }
  }
  return { callable, deferred };
}

/** Text of the first user message without system reminders: what identifies a conversation (a subagent's brief). */
export function firstUserText(body: any): string {
  const first = (body?.messages ?? []).find((m: any) => m.role === "user");
  return blocks(first?.content)
    .filter((b) => b.type === "text" && !String(b.text).trimStart().startsWith("<system-reminder>"))
    .map((b) => String(b.text))
    .join("\n");
}

export interface StubOptions {
  /** The script of a subagent's conversation, chosen by its brief; undefined → it answers "Done." at once. */
  agents?: (brief: string) => Script | undefined;
}

interface Conversation {
  label: string;
  script: Script;
  /** Turns already answered, by index: a retried request gets the same turn, and a script is asked once per turn. */
  answered: Map<number, Turn>;
}

export async function startStub(initial: Script = [], options: StubOptions = {}): Promise<Stub> {
  let mainScript = initial;
  // Conversations by their first user message; the first one to arrive is the main conversation.
  let conversations = new Map<string, Conversation>();
  const requests: Recorded[] = [];
  const escapes: string[] = [];
  const scriptErrors: string[] = [];
  let n = 0;

  const conversationOf = (body: any): Conversation => {
    const key = firstUserText(body);
    let c = conversations.get(key);
    if (!c) {
      const isMain = conversations.size === 0;
      c = {
        label: isMain ? "main" : `agent${conversations.size}`,
        script: isMain ? mainScript : (options.agents?.(key) ?? []),
        answered: new Map(),
      };
      conversations.set(key, c);
    }
    return c;
  };

  const answer = (c: Conversation, body: any, index: number): Turn => {
    const known = c.answered.get(index);
    if (known) return known;
    const ctx: TurnContext = { index, body, results: lastResults(body), allText: requestText(body) };
    let turn: Turn;
    try {
      if (typeof c.script === "function") turn = c.script(ctx);
      else {
        const step = c.script[index];
        turn = step === undefined ? { text: FINAL_TEXT } : typeof step === "function" ? step(ctx) : step;
      }
      // A model calls only the tools the request shows it: a deferred tool needs its ToolSearch first.
      const offered = offeredTools(body);
      for (const t of turn.tools ?? []) {
        if (offered.callable.has(t.name)) continue;
        const why = offered.deferred.has(t.name) ? "is deferred: load it with ToolSearch first" : "is not offered by this CLI";
        throw new Error(`the script calls ${t.name}, which ${why} (tools: ${[...offered.callable].join(", ")})`);
      }
    } catch (err) {
      // End the conversation at once (an API error would make the CLI retry with back-off) and keep the reason.
      scriptErrors.push(`${c.label} turn ${index}: ${(err as Error).stack ?? err}`);
      turn = { text: `SCRIPT ERROR at turn ${index}: ${(err as Error).message}` };
    }
    c.answered.set(index, turn);
    return turn;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: any = raw;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        /* keep the raw text */
      }
      const url = req.url ?? "";
      const rec: Recorded = { n: ++n, method: req.method ?? "", url, headers: req.headers, body, kind: "other", at: Date.now() };
      requests.push(rec);
      if (/^[a-z]+:\/\//i.test(url)) {
        // A plain-HTTP request sent through the proxy: it was meant for another host.
        escapes.push(`${req.method} ${url}`);
        res.writeHead(403).end();
        return;
      }
      const path = url.split("?")[0];
      if (req.method === "POST" && path === "/v1/messages/count_tokens") {
        rec.kind = "count";
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ input_tokens: 10 }));
        return;
      }
      if (req.method === "POST" && path === "/v1/messages") {
        if (!(Array.isArray(body?.tools) && body.tools.length > 0)) {
          rec.kind = "side";
          rec.answer = { text: SIDE_TEXT };
          sendMessage(res, body, [{ type: "text", text: SIDE_TEXT }], `msg_side_${rec.n}`);
          return;
        }
        const c = conversationOf(body);
        rec.kind = c.label === "main" ? "main" : "agent";
        rec.conversation = c.label;
        const index = (body.messages ?? []).filter((m: any) => m.role === "assistant").length;
        rec.turn = index;
        const turn = answer(c, body, index);
        rec.answer = turn;
        const send = () => {
          if (!res.destroyed) sendMessage(res, body, contentOf(turn, `${c.label}_${index}`), `msg_${c.label}_${index}_${rec.n}`, turn.usage);
        };
        if (turn.delayMs) {
          let sent = false;
          setTimeout(() => {
            sent = true;
            send();
          }, turn.delayMs).unref();
          res.on("close", () => {
            if (!sent) rec.abortedAt = Date.now();
          });
        } else send();
        return;
      }
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `stub: no ${req.method} ${path}` } }));
    });
  });
  server.on("connect", (req, socket) => {
    escapes.push(`CONNECT ${req.url}`);
    requests.push({ n: ++n, method: "CONNECT", url: req.url ?? "", headers: req.headers, body: null, kind: "other", at: Date.now() });
    socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
  });
  server.keepAliveTimeout = 1000;

  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    escapes,
    scriptErrors,
    main: () => requests.filter((r) => r.kind === "main"),
    setScript: (s) => {
      mainScript = s;
      conversations = new Map();
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections?.();
        server.close(() => done());
      }),
  };
}
