// The stub's own contract, without the CLI: both response modes, side requests, retries, conversations, escapes.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { flowScript, notifications, turn } from "./lib/lead.ts";
import { ROOT } from "./lib/claude.ts";
import { skillPrompt, substitute } from "./lib/prompts.ts";
import { lastResults, offeredTools, startStub, type Stub } from "./lib/stub.ts";
import { tally, tallyLine } from "./lib/tally.ts";

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

describe("the tally of a run (issue 24: helper calls, lead turns and tokens per skill)", () => {
  const execute = skillPrompt(ROOT, "execute");
  const helper = (args: string) => `node "${execute.dir}/scripts/plan.js" ${args}`;
  const approve = `node "${execute.dir}/scripts/grant-approve.js" .design/plan.json`;
  // The skill body as the CLI delivers it: substituted, its !-line replaced by the helper's JSON.
  const body = substitute(execute.body, execute, ROOT, "")
    .split("\n")
    .map((l) => (/^!`.*`\s*$/.test(l) ? '{"ok":true,"plan":null}' : l))
    .join("\n");

  it("counts the lead's helper calls that ran, its turns and its reported tokens, apart from a subagent's", async () => {
    const stub = await startStub(
      [
        { text: "status", tools: [{ name: "Bash", input: { command: helper("status .design/plan.json") } }, { name: "Bash", input: { command: "cat .design/plan.json" } }] },
        { text: "approve", tools: [{ name: "Bash", input: { command: approve } }], usage: { input_tokens: 1000, output_tokens: 50, cache_read_input_tokens: 4000 } },
        { text: "next", tools: [{ name: "Bash", input: { command: `cd /p && ${helper("next .design/plan.json")} 2>&1` } }] },
        { text: "done" },
      ],
      { agents: () => [{ text: "checking", tools: [{ name: "Bash", input: { command: helper("worker-completion-validate .design/tmp/r.json") } }] }, { text: "reported" }] },
    );
    try {
      const user = { role: "user", content: [{ type: "text", text: "<system-reminder>r</system-reminder>" }, { type: "text", text: body }] };
      const history: any[] = [user];
      const step = async (results: [string, string, boolean?][]) => {
        if (results.length) history.push({ role: "user", content: results.map(([id, text, err]) => ({ type: "tool_result", tool_use_id: id, content: text, is_error: err === true })) });
        const msg = JSON.parse((await post(stub, { model: "m", tools: TOOLS, messages: history })).text);
        history.push({ role: "assistant", content: msg.content });
        return msg.content.filter((b: any) => b.type === "tool_use").map((b: any) => b.id as string);
      };
      let ids = await step([]);
      // The CLI retries the first request (an overloaded API): the same turn, billed twice, counted once as a turn.
      await post(stub, { model: "m", tools: TOOLS, messages: [user] });
      ids = await step([
        [ids[0], '{"ok":true}'],
        [ids[1], "{}"],
      ]);
      // The grant's approval was refused (nobody answered the prompt): it did not run.
      ids = await step([[ids[0], "This command requires approval", true]]);
      // A helper call that exits non-zero still ran.
      ids = await step([[ids[0], 'Exit code 1\n{"ok":false,"error":"x"}', true]]);
      const agentFirst = { role: "user", content: "Agent: worker\nwork" };
      const a = JSON.parse((await post(stub, { model: "m", tools: TOOLS, messages: [agentFirst] })).text);
      await post(stub, { model: "m", tools: TOOLS, messages: [agentFirst, { role: "assistant", content: a.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: a.content[1].id, content: '{"ok":true}' }] }] });

      const t = tally(stub.requests, "/do:execute", ROOT);
      assert.equal(t.skill, "execute");
      assert.equal(t.helperCalls, 2, "status and next ran; cat is no helper call, the refused grant-approve.js did not run");
      assert.equal(t.helperDenied, 1);
      assert.equal(t.leadTools, 3);
      assert.equal(t.leadTurns, 4, "four turns, the retried request counted once");
      assert.equal(t.tokensIn, 10 * 4 + 1000 + 4000, "every request the stub answered, cached input included");
      assert.equal(t.tokensOut, 10 * 4 + 50);
      assert.equal(t.skillDelivered, true);
      assert.equal(t.skillTokens, Math.ceil(body.trim().length / 4));
      assert.ok(t.estIn > 5 * t.skillTokens, `each of the five lead requests carries the body: ${t.estIn}`);
      assert.deepEqual([t.agents, t.agentTurns, t.agentHelperCalls], [1, 2, 1]);
      assert.match(tallyLine(t), /^# tally execute: helperCalls=2 helperDenied=1 leadTurns=4 leadTools=3 tokensIn=5040 tokensOut=90 estIn=\d+ estOut=\d+ skillTokens=\d+ agents=1 agentTurns=2 agentHelperCalls=1$/);
    } finally {
      await stub.close();
    }
  });

  it("names the command a prompt runs, and sizes a body that did not arrive from its file", () => {
    const t = tally([], "/do:plan-status", ROOT);
    assert.equal(t.skill, "plan-status");
    assert.equal(t.skillDelivered, false);
    assert.ok(t.skillTokens > 0);
    assert.match(tallyLine(t, "views"), /^# tally views: helperCalls=0 leadTurns=0 .* skillTokens=\d+\(file\)/);
    assert.equal(tally([], "hello", ROOT).skill, "");
    assert.equal(tally([], "/do:nothing-here", ROOT).skill, "");
  });
});
