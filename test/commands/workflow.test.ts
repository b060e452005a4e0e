// workflow: the generated Workflow script, run offline in node:vm with a fake agent(), must decide exactly what
// the `next` / `update-status` loop decides for the same outcomes, and its returned update batch must replay on
// plan.json to the same end.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import vm from "node:vm";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { planWith, project, withEvidence, type Project } from "../helpers/design-dir.ts";
import { cli } from "../helpers/cli.ts";

const P = ".design/plan.json";
type Behaviour = "ok" | "fail" | "stall" | "throw";
/** Per role name, the outcome of each attempt (the last one repeats). */
type Script = Record<string, Behaviour[]>;

const behaviourOf = (script: Script, name: string, attempt: number): Behaviour => {
  const list = script[name] ?? ["ok"];
  return list[Math.min(attempt, list.length) - 1];
};

function report(name: string, b: Behaviour): unknown {
  if (b === "stall") return null;
  return {
    role: name,
    achieved: b === "ok",
    filesChanged: [`src/${name}/x.ts`],
    acceptanceCriteria: [{ criterion: `${name} works`, passed: b === "ok", evidence: "exit 0" }],
    keyDecisions: [`${name} decision`],
    contextForDependents: `context of ${name}`,
  };
}

interface Run {
  result: any;
  /** The workers' agent() calls. */
  calls: Array<{ label: string; model: string | undefined; prompt: string; isolation: unknown }>;
  /** The reflexion agents' calls, one before each retry. */
  reflexions: Array<{ label: string; model: string | undefined; prompt: string }>;
  meta: any;
}

/** What a reflexion agent answers for the role; `REFLEXION_OFF` roles answer nothing usable. */
const reflexionOf = (name: string) => ({
  rootCause: `${name}: the check ran before the build`,
  wrongAssumptions: `${name}: the brief assumed a built tree`,
  alternative: `${name}: build first, then run the check`,
});
const REFLEXION_OFF = new Set<string>();

/** Run the script the way the Workflow runtime would: async body, the documented globals, no clock, no random. */
async function runScript(text: string, script: Script, names: string[]): Promise<Run> {
  const head = /^export const meta = (\{[\s\S]*?\n\});/m.exec(text);
  assert.ok(head, "the script starts with export const meta = {...}");
  assert.ok(text.startsWith("// Generated") && text.indexOf("export const meta") < text.indexOf("\n", text.indexOf("\n") + 1), "meta comes first");
  const meta = JSON.parse(head[1]); // a pure literal
  const calls: Run["calls"] = [];
  const reflexions: Run["reflexions"] = [];
  const attempts = new Map<string, number>();
  const ctx = vm.createContext({
    agent: async (prompt: string, opts: any) => {
      assert.equal(opts.schema.type, "object");
      // The Workflow tool refuses a schema naming the 2020-12 meta-schema (measured on 2.1.330).
      assert.equal("$schema" in opts.schema, false, "agent() schema carries $schema");
      if (/-reflexion$/.test(opts.label)) {
        reflexions.push({ label: opts.label, model: opts.model, prompt });
        assert.equal(JSON.stringify(opts.schema.required), JSON.stringify(["rootCause", "wrongAssumptions", "alternative"]));
        const name = names.find((n) => prompt.includes(`("${n}")`)) as string;
        await null;
        return REFLEXION_OFF.has(name) ? { rootCause: "x", wrongAssumptions: "x", alternative: "x" } : reflexionOf(name);
      }
      calls.push({ label: opts.label, model: opts.model, prompt, isolation: opts.isolation });
      const name = names.find((n) => prompt.includes(`("${n}")`)) as string;
      const k = (attempts.get(name) ?? 0) + 1;
      attempts.set(name, k);
      await null;
      const b = behaviourOf(script, name, k);
      if (b === "throw") throw new Error("agent died");
      return report(name, b);
    },
    parallel: async (thunks: Array<() => Promise<unknown>>) => Promise.all(thunks.map((t) => t().catch(() => null))),
    pipeline: () => {
      throw new Error("not used");
    },
    phase: () => {},
    log: () => {},
    args: undefined,
  });
  vm.runInContext(
    "Date.now = () => { throw new Error('Date.now is unavailable'); }; Math.random = () => { throw new Error('Math.random is unavailable'); };",
    ctx,
  );
  const body = text.replace(/^export const meta/m, "const meta");
  const value = await vm.runInContext(`(async () => {\n${body}\n})()`, ctx);
  // The runtime hands the lead JSON; the round trip also leaves the vm's realm.
  return { result: JSON.parse(JSON.stringify(value)), calls, reflexions, meta };
}

/** What run-checks records when a role's checks pass (the helper's own runs are tested in run-checks.test.ts). */
function passChecks(p: Project, i: number): void {
  writeFileSync(join(p.dir, P), JSON.stringify(withEvidence(p.json(P), i), null, 2));
}

/** The reference: the Agent-tool loop on the helper itself (next, update-status), finishing the oldest start first. */
async function reference(p: Project, script: Script) {
  const queue: any[] = [];
  const starts: Array<[string, string]> = [];
  const upd = async (u: unknown) => {
    const out = await p.run("update-status", [], { stdin: JSON.stringify([u]) });
    assert.equal(out.ok, true, JSON.stringify(out));
  };
  for (let n = 0; n < 100; n++) {
    const d: any = await p.run("next");
    for (const s of d.start) {
      await upd({ roleIndex: s.roleIndex, status: "in_progress", model: s.model, agent: s.agent, ...(s.retry ? { reflexion: reflexionOf(s.name) } : {}) });
      starts.push([s.agent, s.model]);
      queue.push(s);
    }
    if (queue.length === 0) return { starts, reason: d.reason as string, done: d.done as boolean };
    const s = queue.shift();
    const b = behaviourOf(script, s.name, s.attempt);
    if (b === "ok") {
      passChecks(p, s.roleIndex);
      await upd({ roleIndex: s.roleIndex, status: "completed" });
    }
    else await upd({ roleIndex: s.roleIndex, status: "failed", ...(b === "stall" || b === "throw" ? { stalled: true } : {}) });
  }
  throw new Error("reference loop did not end");
}

async function compareWithHelper(t: any, plan: unknown, script: Script, files: Record<string, unknown> = {}) {
  const names = ((plan as any).roles as any[]).map((r) => r.name);
  const compiled = project(t, { [P]: plan, ...files });
  const out: any = await compiled.run("workflow");
  assert.equal(out.ok, true, JSON.stringify(out));
  assert.equal(out.path, ".design/workflow.js");
  const run = await runScript(compiled.read(".design/workflow.js"), script, names);

  const ref = await reference(project(t, { [P]: plan, ...files }), script);
  assert.deepEqual(run.calls.map((c) => [c.label, c.model]), ref.starts, "the script starts what next starts, on the same tiers");
  assert.equal(run.result.reason, ref.reason);
  assert.equal(run.result.done, ref.done);

  // The returned batch replays on plan.json through update-status; the roles it reports done stay in progress until
  // their checks pass (run-checks), then complete: the same end.
  assert.ok(run.result.updates.every((u: any) => u.status !== "completed"), "no completion is replayed on an agent's word");
  const replay = await compiled.run("update-status", [], { stdin: JSON.stringify(run.result.updates) });
  assert.equal(replay.ok, true, JSON.stringify(replay));
  for (const c of run.result.completions) {
    assert.equal(compiled.json(P).roles[c.roleIndex].status, "in_progress");
    const refused: any = await compiled.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: c.roleIndex, status: "completed", result: c.result }]) });
    assert.equal(refused.code, "E_INVALID", "no completion without evidence");
    passChecks(compiled, c.roleIndex);
    const done: any = await compiled.run("update-status", [], { stdin: JSON.stringify([{ roleIndex: c.roleIndex, status: "completed", result: c.result }]) });
    assert.equal(done.ok, true, JSON.stringify(done));
  }
  const after = compiled.json(P);
  assert.deepEqual(after.roles.map((r: any) => r.status ?? "pending"), run.result.statuses);
  const final: any = await compiled.run("next");
  assert.equal(final.done, true);
  assert.equal(final.reason, run.result.reason);
  return { run, after };
}

describe("workflow: the compiled script decides like the helper", () => {
  it("runs a diamond in dependency order and hands each dependent its dependencies' context [feature:execute/workflow-path]", async (t) => {
    const plan = planWith([{ name: "a" }, { name: "b", deps: ["a"] }, { name: "c", deps: ["a"] }, { name: "d", deps: ["b", "c"] }], { goal: "Ship it" });
    const { run } = await compareWithHelper(t, plan, {});
    assert.equal(run.meta.name, "do-execute");
    assert.deepEqual(run.meta.phases.map((p: any) => p.title), ["Workers"]);
    assert.equal(run.result.reason, "all 4 roles completed");
    const d = run.calls.find((c) => c.label === "d")!;
    assert.match(d.prompt, /- b: context of b\nKey decisions: b decision/);
    assert.match(d.prompt, /- c: context of c/);
    assert.match(d.prompt, /Overall goal: Ship it/);
    assert.deepEqual(Object.keys(run.result.reports).sort(), ["a", "b", "c", "d"]);
  });

  it("retries on a stronger tier, stops a role that stalled twice, and cascades", async (t) => {
    const plan = planWith([
      { name: "flaky", model: "haiku" },
      { name: "stuck", model: "haiku" },
      { name: "after", deps: ["stuck"] },
    ]);
    const { run, after } = await compareWithHelper(t, plan, { flaky: ["fail", "ok"], stuck: ["stall", "throw"] });
    assert.deepEqual(run.calls.map((c) => [c.label, c.model]), [["flaky", "haiku"], ["stuck", "haiku"], ["flaky--2", "sonnet"], ["stuck--2", "sonnet"]]);
    assert.deepEqual(run.result.statuses, ["completed", "failed", "skipped"]);
    assert.match(run.result.reason, /stuck failed for good \(stalled twice\)/);
    assert.match(run.calls[2].prompt, /Earlier attempt: failed: flaky works/);
    assert.deepEqual(after.roles[1].attemptLog.map((e: any) => e.outcome), ["stalled", "stalled"]);
  });

  it("serialises overlapping roles and lets the later one run when the holder fails for good [feature:execute/overlaps-serialised]", async (t) => {
    const plan = planWith([{ name: "a", dirs: ["src/"] }, { name: "b", dirs: ["src/lib/"] }]);
    const { run } = await compareWithHelper(t, plan, { a: ["fail"] });
    assert.deepEqual(run.calls.map((c) => c.label), ["a", "a--2", "a--3", "b"]);
    assert.deepEqual(run.result.statuses, ["failed", "completed"]);
  });

  it("stops starting roles when the breaker trips and everything fails", async (t) => {
    const plan = planWith([{ name: "a" }, { name: "b", deps: ["a"] }, { name: "c", deps: ["a"] }, { name: "d", deps: ["a"] }, { name: "e", dirs: ["src/a/"] }]);
    const { run } = await compareWithHelper(t, plan, { a: ["fail"], e: ["fail"] });
    assert.match(run.result.reason, /^nothing can move|^Circuit breaker/);
    assert.ok(run.calls.every((c) => c.isolation === undefined));
  });

  it("reflects before each retry: the reflexion reaches plan.json and the retry's brief; without a usable one the lead retries [feature:execute/reflexion-before-retry]", async (t) => {
    const plan = planWith([{ name: "flaky", model: "haiku" }, { name: "other" }]);
    const { run, after } = await compareWithHelper(t, plan, { flaky: ["fail", "ok"] });
    assert.deepEqual(run.reflexions.map((r) => [r.label, r.model]), [["flaky--2-reflexion", "sonnet"]]);
    assert.match(run.reflexions[0].prompt, /reflecting on attempt 1 of role 0 \("flaky"\)/);
    assert.match(run.reflexions[0].prompt, /How it ended: failed: flaky works/);
    assert.match(run.reflexions[0].prompt, /Its worker's report: \{"role":"flaky","achieved":false/);
    const retry = run.calls.find((c) => c.label === "flaky--2")!;
    assert.match(retry.prompt, /--- Retry 2 Reflexion ---\nRoot cause: flaky: the check ran before the build/);
    assert.deepEqual(after.roles[0].attemptLog.map((e: any) => [e.attempt, e.outcome, e.reflexion ?? null]), [
      [1, "failed", null],
      [2, "completed", reflexionOf("flaky")],
    ]);

    REFLEXION_OFF.add("flaky");
    t.after(() => REFLEXION_OFF.delete("flaky"));
    const p = project(t, { [P]: planWith([{ name: "flaky", model: "haiku" }, { name: "other" }]) });
    assert.equal((await p.run("workflow")).ok, true);
    const held = await runScript(p.read(".design/workflow.js"), { flaky: ["fail", "ok"] }, ["flaky", "other"]);
    assert.deepEqual(held.calls.map((c) => c.label), ["flaky", "other"], "no retry without a usable reflexion");
    assert.equal(held.result.done, false);
    assert.equal(held.result.reason, "retries left to the lead (no usable reflexion): flaky");
    const replay = await p.run("update-status", [], { stdin: JSON.stringify(held.result.updates) });
    assert.equal(replay.ok, true, JSON.stringify(replay));
    const next: any = await p.run("next");
    assert.deepEqual(next.start.map((s: any) => [s.agent, s.retry, s.failure.result]), [["flaky--2", true, "failed: flaky works"]]);
  });

  it("resumes a plan whose finished roles hand on their report's context", async (t) => {
    const plan = planWith([
      { name: "a", status: "completed", attemptLog: [{ attempt: 1, model: "sonnet", agent: "a", outcome: "completed" }] },
      { name: "b", status: "failed", attempts: 1, result: "tests red", deps: ["a"] },
    ]);
    const files = { ".design/worker-a.json": { contextForDependents: "a exports createOrder()", keyDecisions: ["kept REST"] } };
    const { run } = await compareWithHelper(t, plan, {}, files);
    assert.deepEqual(run.calls.map((c) => [c.label, c.model]), [["b--2", "opus"]]);
    assert.match(run.calls[0].prompt, /- a: a exports createOrder\(\)\nKey decisions: kept REST/);
  });
});

describe("workflow: the command", () => {
  it("refuses a plan with roles in progress and a plan with nothing to do, writing nothing", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "a", status: "in_progress" }]), "done.json": planWith([{ name: "a", status: "completed" }]) });
    const busy = await p.run("workflow");
    assert.deepEqual([busy.code, busy.error, busy.running], ["E_INVALID", "Roles are in progress: run resume-reset first, then compile the workflow", ["a"]]);
    const idle = await p.run("workflow", ["done.json"]);
    assert.deepEqual([idle.code, idle.error], ["E_INVALID", "Nothing to run: all 1 roles completed"]);
    assert.equal(p.exists(".design/workflow.js"), false);
  });

  it("answers where the script is and what starts first", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "a", model: "haiku" }, { name: "b", deps: ["a"] }]) });
    const out = await p.run("workflow");
    assert.deepEqual(out.startsNow, [{ name: "a", agent: "a", model: "haiku" }]);
    assert.deepEqual(out.call, { scriptPath: ".design/workflow.js" });
    assert.equal(out.bytes, Buffer.byteLength(p.read(".design/workflow.js")));
  });

  it("writes a pure-ASCII script that still hands agents the plan's own text", async (t) => {
    const goal = "Due dates → reminders\u200b, déjà vu \u{1F600}";
    const p = project(t, { [P]: planWith(["a"], { goal }) });
    assert.equal((await p.run("workflow")).ok, true);
    const text = p.read(".design/workflow.js");
    assert.match(text, /^[\x20-\x7e\n]*$/);
    const run = await runScript(text, {}, ["a"]);
    assert.ok(run.calls[0].prompt.includes(`Overall goal: ${goal}`));
  });

  it("hands each role the memories the lead chose for it, and refuses a bad memories file", async (t) => {
    const p = project(t, {
      [P]: planWith(["a", "b"]),
      ".design/tmp/memories.json": { a: ["npm test needs DATABASE_URL", "Keep handlers thin"], nobody: ["x"] },
      ".design/tmp/bad.json": { a: "not a list" },
    });
    assert.equal((await p.run("workflow", ["--memories", ".design/tmp/memories.json"])).ok, true);
    const run = await runScript(p.read(".design/workflow.js"), {}, ["a", "b"]);
    const prompt = (label: string) => run.calls.find((c) => c.label === label)!.prompt;
    assert.match(prompt("a"), /Past learnings:\n- npm test needs DATABASE_URL\n- Keep handlers thin/);
    assert.match(prompt("b"), /Past learnings:\nnone/);
    assert.deepEqual(
      [
        (await p.run("workflow", ["--memories", ".design/tmp/bad.json"])).code,
        (await p.run("workflow", ["--memories", ".design/tmp/none.json"])).code,
        (await p.run("workflow", ["--memories", "/etc/hostname"])).code,
      ],
      ["E_SCHEMA", "E_NOT_FOUND", "E_PATH"],
    );
  });

  it("without --memories hands each role still to run the memories next would hand it (issue 24: no memory search by the lead)", async (t) => {
    const p = project(t, { [P]: planWith([{ name: "billing", goal: "Charge invoices through the billing gateway", dirs: ["src/billing/"] }, { name: "docs", goal: "Write the user guide" }]) });
    const add = (keywords: string, content: string) => p.run("memory-add", [".design/memory.jsonl", "--category", "convention", "--keywords", keywords, "--content", content, "--importance", "7", "--surprise", "retried charges were billed twice without it", "--source", "execute"]);
    assert.equal((await add("billing,gateway,invoices", "The billing gateway needs an idempotency key on every charge call")).ok, true);
    const out = await p.run("workflow");
    assert.equal(out.ok, true, JSON.stringify(out));
    const run = await runScript(p.read(".design/workflow.js"), {}, ["billing", "docs"]);
    const prompt = (label: string) => run.calls.find((c) => c.label === label)!.prompt;
    assert.match(prompt("billing"), /Past learnings:\n- The billing gateway needs an idempotency key on every charge call/);
    assert.match(prompt("docs"), /Past learnings:\nnone/);
    // The same memory next hands the same role.
    const next = await p.run("next");
    assert.deepEqual((next.start as any[]).find((x: any) => x.name === "billing").memories.map((m: any) => m.content), ["The billing gateway needs an idempotency key on every charge call"]);
  });

  it("embeds a scheduler that also runs from the built bundle's script", async (t) => {
    const plan = planWith([{ name: "a", model: "haiku" }, { name: "b", deps: ["a"] }]);
    const p = project(t, { [P]: plan });
    const r = await cli(["workflow"], { cwd: p.dir });
    assert.equal(r.json.ok, true, r.stdout);
    const run = await runScript(p.read(".design/workflow.js"), { a: ["fail", "ok"] }, ["a", "b"]);
    assert.deepEqual(run.calls.map((c) => [c.label, c.model]), [["a", "haiku"], ["a--2", "sonnet"], ["b", "sonnet"]]);
    assert.equal(run.result.reason, "all 2 roles completed");
  });
});
