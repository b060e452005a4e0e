// The stub's own contract, without the CLI: both response modes, side requests, retries, conversations, escapes.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { flowScript, notifications, turn } from "./lib/lead.ts";
import { lastResults, offeredTools, startStub, type Stub } from "./lib/stub.ts";

const TOOLS = [{ name: "Bash", description: "run", input_schema: { type: "object" } }];

async function post(stub: Stub, body: object, path = "/v1/messages"): Promise<{ status: number; type: string; text: string }> {
  const r = await fetch(`${stub.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: r.status, type: r.headers.get("content-type") ?? "", text: await r.text() };
}

/** Rebuild the message from an SSE stream, the way the SDK does. */
function fromSse(text: string): any {
  let msg: any;
  const partial: Record<number, string> = {};
  for (const chunk of text.split("\n\n").filter(Boolean)) {
    const data = JSON.parse(chunk.split("\n").find((l) => l.startsWith("data: "))!.slice(6));
    if (data.type === "message_start") msg = data.message;
    if (data.type === "content_block_start") msg.content[data.index] = data.content_block;
    if (data.type === "content_block_delta" && data.delta.type === "text_delta") msg.content[data.index].text += data.delta.text;
    if (data.type === "content_block_delta" && data.delta.type === "input_json_delta") partial[data.index] = (partial[data.index] ?? "") + data.delta.partial_json;
    if (data.type === "content_block_stop" && partial[data.index] !== undefined) msg.content[data.index].input = JSON.parse(partial[data.index]);
    if (data.type === "message_delta") msg.stop_reason = data.delta.stop_reason;
  }
  return msg;
}

describe("the Messages API stub", () => {
  let stub: Stub;
  before(async () => {
    stub = await startStub(
      flowScript(function* () {
        const ctx = yield turn("calling", { name: "Bash", input: { command: "echo hi" } });
        assert.equal(ctx.results[0].text, "hi");
        yield turn("finished");
      }),
      { agents: (brief) => (brief.includes("Agent: helper") ? [{ text: "agent reply" }] : undefined) },
    );
  });
  after(() => stub.close());

  const first = { role: "user", content: [{ type: "text", text: "<system-reminder>x</system-reminder>" }, { type: "text", text: "/do:design goal" }] };

  it("streams the main conversation's scripted turn, tool_use included", async () => {
    const r = await post(stub, { model: "m", stream: true, tools: TOOLS, messages: [first] });
    assert.equal(r.status, 200);
    assert.match(r.type, /text\/event-stream/);
    const msg = fromSse(r.text);
    assert.equal(msg.stop_reason, "tool_use");
    assert.deepEqual(msg.content[1], { type: "tool_use", id: "toolu_main_0_0", name: "Bash", input: { command: "echo hi" } });
  });

  it("answers a retried request with the same turn, and the next one after the tool_result", async () => {
    const again = fromSse((await post(stub, { model: "m", stream: true, tools: TOOLS, messages: [first] })).text);
    assert.equal(again.content[1].id, "toolu_main_0_0");
    const history = [first, { role: "assistant", content: again.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_main_0_0", content: "hi" }] }];
    assert.deepEqual(lastResults({ messages: history }).map((x) => [x.name, x.text]), [["Bash", "hi"]]);
    const r = await post(stub, { model: "m", stream: false, tools: TOOLS, messages: history });
    const msg = JSON.parse(r.text);
    assert.equal(msg.type, "message");
    assert.equal(msg.stop_reason, "end_turn");
    assert.deepEqual(msg.content, [{ type: "text", text: "finished" }]);
    assert.deepEqual(stub.scriptErrors, []);
  });

  it("gives side requests (no tools) a short text and a subagent its own script", async () => {
    const side = JSON.parse((await post(stub, { model: "haiku", messages: [{ role: "user", content: "title?" }] })).text);
    assert.deepEqual(side.content, [{ type: "text", text: "ok" }]);
    const agent = JSON.parse((await post(stub, { model: "m", tools: TOOLS, messages: [{ role: "user", content: "Agent: helper\nwork" }] })).text);
    assert.deepEqual(agent.content, [{ type: "text", text: "agent reply" }]);
    assert.equal(stub.requests.at(-1)?.conversation, "agent1");
    const count = JSON.parse((await post(stub, { model: "m", messages: [] }, "/v1/messages/count_tokens")).text);
    assert.equal(typeof count.input_tokens, "number");
  });

  it("refuses and records proxy requests meant for other hosts", async () => {
    const status = await new Promise<number>((done, fail) => {
      const req = http.request({ host: "127.0.0.1", port: stub.port, method: "CONNECT", path: "api.anthropic.com:443" });
      req.on("connect", (res, socket) => {
        socket.destroy();
        done(res.statusCode ?? 0);
      });
      req.on("error", fail);
      req.end();
    });
    assert.equal(status, 403);
    assert.deepEqual(stub.escapes, ["CONNECT api.anthropic.com:443"]);
  });

  it("finds task notifications in user and mid-conversation system messages", () => {
    const n = (id: string) => `<task-notification>\n<tool-use-id>${id}</tool-use-id>\n<status>completed</status>\n<result>r ${id}</result>\n</task-notification>`;
    const found = notifications({
      messages: [
        { role: "system", content: `[SYSTEM NOTIFICATION]\n${n("a")}` },
        { role: "user", content: [{ type: "text", text: n("b") }] },
      ],
    });
    assert.deepEqual(
      found.map((x) => [x.toolUseId, x.result]),
      [
        ["a", "r a"],
        ["b", "r b"],
      ],
    );
  });

  it("reads the offered tools: `tools` entries are callable, the reminder's list is deferred (2.1.330's shape)", () => {
    const body = {
      tools: [...TOOLS, { name: "ToolSearch" }, { name: "DeferredToolPlaceholder", defer_loading: true }],
      messages: [
        { role: "system", content: "The following deferred tools are now available via ToolSearch. Load them first:\nSendMessage\nTaskStop\n\nMore text" },
        { role: "user", content: "/do:design goal" },
      ],
    };
    const o = offeredTools(body);
    assert.deepEqual([...o.callable], ["Bash", "ToolSearch"]);
    assert.deepEqual([...o.deferred], ["SendMessage", "TaskStop"]);
  });

  it("ends a conversation whose script calls a tool the request does not offer, and says when it is deferred", async () => {
    const strict = await startStub([{ text: "messaging", tools: [{ name: "SendMessage", input: { to: "a", summary: "s", message: "m" } }] }]);
    try {
      const messages = [
        { role: "system", content: "The following deferred tools are now available via ToolSearch:\nSendMessage\n" },
        { role: "user", content: "go" },
      ];
      const msg = JSON.parse((await post(strict, { model: "m", tools: TOOLS, messages })).text);
      assert.equal(msg.content.some((b: any) => b.type === "tool_use"), false, "the unoffered call was sent");
      assert.match(strict.scriptErrors[0], /calls SendMessage, which is deferred: load it with ToolSearch first/);
    } finally {
      await strict.close();
    }
  });

  it("holds a turn with delayMs (a worker that stalls), and answers a client that gave up with nothing", async () => {
    const slow = await startStub([{ text: "late", delayMs: 400 }]);
    try {
      const body = { model: "m", tools: TOOLS, messages: [{ role: "user", content: "go" }] };
      const started = Date.now();
      const msg = JSON.parse((await post(slow, body)).text);
      assert.equal(msg.content[0].text, "late");
      assert.ok(Date.now() - started >= 350, `answered after ${Date.now() - started} ms`);
      // An aborted request (TaskStop on a stalled agent) leaves the stub serving.
      await assert.rejects(fetch(`${slow.url}/v1/messages`, { method: "POST", body: JSON.stringify(body), signal: AbortSignal.timeout(50) }));
      await new Promise((r) => setTimeout(r, 450));
      assert.equal(JSON.parse((await post(slow, body)).text).content[0].text, "late");
    } finally {
      await slow.close();
    }
  });
});
