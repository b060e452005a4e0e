// The scripted lead of /do:execute, phase by phase, exactly as skills/execute/SKILL.md spells each call: run-begin,
// the challenge, the grant, the workers loop (`next` records the starts and hands memories; `finish` per finished
// worker; `clean-attempt` for a replaced attempt; only a retry's start goes through update-status with its
// reflexion), verify, learn (curator-apply) and close (run-end, whose report link the lead shows). Every e2e file
// that drives execute takes its phases from here, so a change of the skill's calls is made once.
import { agent, bash, check, done, helperJson, loadTools, notifications, ok, sendMessage, turn, waitFor } from "./lead.ts";
import { calls, helper, type SkillLead } from "./skill-lead.ts";
import type { ToolCall, TurnContext } from "./stub.ts";

type Gen<T> = Generator<any, T, TurnContext>;

/** The brief's first line picks the scripted agent; the rest is what the lead tells it. */
export function brief(key: string, body: string): string {
  return `Agent: ${key}\n${body}`;
}

/** The reflexion a scripted lead writes before a retry. */
export const REFLEXION = {
  rootCause: "The check ran before the file it reads existed",
  wrongAssumptions: "The brief assumed the section was already there",
  alternative: "Write the file first, then run the check",
};

/** The run-begin call as written, with the flags SKILL.md tells the lead to add (`--budget N` from the arguments). */
export function runBeginCall(lead: SkillLead, flags: string[] = []): string {
  const budget = /--budget\s+(\d+)/.exec(lead.args)?.[1];
  return [lead.call("run-begin"), ...flags, ...(budget ? ["--budget", budget] : [])].join(" ");
}

export interface Preflight {
  /** The answer acted on (after an `ask-resume`, the second call's). */
  begin: any;
  /** The first answer (`ask-resume` when an earlier run was resumable). */
  first: any;
}

/**
 * Phase 1: one run-begin. `ask-resume` → the user's choice (-p cannot ask: "with no way to ask, resume"; a test may
 * choose start over), then the same call with --resume or --fresh.
 */
export function* preflight(lead: SkillLead, choice: "resume" | "fresh" = "resume"): Gen<Preflight> {
  const first = ok((yield* calls("Phase 1/7 Pre-flight.", bash(runBeginCall(lead), "do helper: run-begin"))).results[0]);
  if (first.action !== "ask-resume") return { begin: first, first };
  let again = helperJson((yield* calls(`An earlier run can resume from ${first.run?.nextPhase ?? first.resume?.nextPhase}: ${choice}.`, bash(runBeginCall(lead, [`--${choice}`]), "do helper: run-begin"))).results[0]);
  // Starting over while the earlier run's grant holds: the user chose it, so the grant ends with that run.
  if (choice === "fresh" && again.ok === false && again.grant) {
    again = helperJson((yield* calls("Starting over ends the earlier run's grant.", bash(runBeginCall(lead, ["--fresh", "--end-grant"]), "do helper: run-begin"))).results[0]);
  }
  check(again.ok === true, `run-begin: ${JSON.stringify(again)}`);
  // A resume: Read the reports the checkpointed phases wrote, then go on at nextPhase.
  const outputs: string[] = again.action === "resumed" ? (again.resume?.outputs ?? []) : [];
  if (outputs.length) for (const r of (yield* calls("Reading the earlier phases' reports.", ...outputs.map((o) => lead.readFile(o)))).results) done(r);
  return { begin: again, first };
}

/** Phase 2 with no challenger or scout listed: nothing to do but the checkpoint (no --outputs). */
export function* noChallenge(lead: SkillLead): Gen<any> {
  return yield* helper(lead, "Phase 2/7 Challenge: no challenger or scout in this plan.", "run-checkpoint", ["--phase challenge"], {
    replace: [[` --outputs .design/challenger-report.json,.design/scout-report.json`, ""]],
    fill: { b: "0", c: "0" },
  });
}

export interface ChallengeOptions {
  /** Which auxiliaries to spawn, with their models. */
  challenger?: string;
  scout?: string;
  /** Constraints to add (`.design/tmp/constraints.json`), if any. */
  constraints?: Array<{ role: string; constraints: string[] }>;
}

/** Phase 2: spawn the listed auxiliaries in one message, validate each report (which records its cost), checkpoint. */
export function* challenge(lead: SkillLead, latest: () => TurnContext, o: ChallengeOptions): Gen<{ verdicts: any[]; added: any }> {
  done((yield* calls("Phase 2/7 Challenge.", lead.ref("pre-execution-briefs.md"))).results[0]);
  const spawns: ToolCall[] = [];
  const types: string[] = [];
  if (o.challenger) {
    spawns.push(agent("challenge the plan", "challenger", o.challenger, brief("challenger", "You are the challenger. Review .design/plan.json and write .design/challenger-report.json.")));
    types.push("challenger");
  }
  if (o.scout) {
    spawns.push(agent("scout the code", "scout", o.scout, brief("scout", "You are the scout. Check the plan against the code and write .design/scout-report.json.")));
    types.push("scout");
  }
  const ctx = yield* calls(`Spawning ${types.join(" and ")}.`, ...spawns);
  yield* waitFor(latest(), ctx.results.map((r) => (done(r), r.id)), "Waiting for the auxiliaries.");
  const v = yield* calls("Validating their reports.", ...types.map((t) => lead.run("validate-auxiliary-report", [`--type ${t}`])));
  const verdicts = v.results.map((r) => ok(r));
  let added: any = null;
  if (o.constraints?.length) {
    done((yield* calls("Discrepancies become constraints.", lead.write(".design/tmp/constraints.json", o.constraints))).results[0]);
    added = yield* helper(lead, "Adding the constraints.", "add-constraints");
  }
  const outputs = types.map((t) => `.design/${t}-report.json`).join(",");
  yield* helper(lead, "Challenge done.", "run-checkpoint", ["--phase challenge"], {
    replace: [[".design/challenger-report.json,.design/scout-report.json", outputs]],
    fill: { b: "0", c: String(o.constraints?.reduce((n, x) => n + x.constraints.length, 0) ?? 0) },
  });
  return { verdicts, added };
}

/**
 * Phase 3: the grant proposal, the user's approval recorded with the grant-approve.js call (which the session must
 * allow: `userApproves`), checkpoint. No memory-search: `next` hands each start its memories.
 */
export function* grantPhase(lead: SkillLead, approve = true): Gen<{ proposal: any; granted: any }> {
  const proposal = yield* helper(lead, "Phase 3/7 Grant.", "grant");
  check(proposal.recorded === false, JSON.stringify(proposal));
  let granted: any = null;
  if (approve) {
    granted = yield* helper(lead, "The user approved: recording the grant.", "grant-approve");
    check(granted.recorded === true, JSON.stringify(granted));
  }
  yield* helper(lead, "Grant done.", "run-checkpoint", ["--phase grant"], { fill: { "approved|declined": approve ? "approved" : "declined" } });
  return { proposal, granted };
}

/**
 * The user's approval of the grant: Claude Code asks about the grant-approve.js call (no skill allows it, the hook
 * never approves it), and in -p nobody can answer, so the "yes" is a permission rule for exactly that command.
 */
export function userApproves(lead: SkillLead): string[] {
  return ["--allowedTools", lead.approval("grant-approve")];
}

export interface Loop {
  answers: any[];
  starts: any[];
  /** Agent tool inputs by agent name. */
  spawned: Record<string, any>;
  /** finish answers by agent name. */
  finished: Record<string, any>;
  /** clean-attempt answers, in order. */
  cleaned: any[];
  /** The update-status answers of the retries' starts (their `restored` entries), in order. */
  retried: any[];
  /** The last `next` answer (done). */
  last: any;
}

export interface LoopHooks {
  /** Called after `next` recorded a start and before its agent is spawned; may interrupt the run. */
  beforeSpawn?: (s: any) => void;
  /** The brief's agent key for a start (default `worker-<agent>`). */
  key?: (s: any) => string;
  /** Text the lead adds to a worker's prompt (after the memories and the dependencies' context). */
  extra?: (s: any) => string;
  /** Act on the `stalled` attempts of a `next` answer (stop them, record them); default: fail the flow. */
  stalled?: (d: any, agentIds: Record<string, string>) => Gen<void>;
  /** Called with every `next` answer; may end the turn to wait for something (a stalled attempt's clock). */
  afterNext?: (d: any) => Gen<void>;
  /** Rounds of waiting allowed before the flow gives up. */
  maxRounds?: number;
}

/**
 * The start's brief file, as `next` wrote it (issue 30): the worker reads it, so the lead reads no dependency report
 * and pastes no memory. Checks it holds what the entry hands on: the memories and each dependency's context.
 */
export function briefOf(lead: SkillLead, s: any): string {
  check(typeof s.brief === "string" && lead.project.exists(s.brief), `next wrote no brief for ${s.agent}: ${JSON.stringify(s)}`);
  const text = lead.project.read(s.brief);
  check(text.includes(`Report path: ${s.reportPath}`), `${s.brief} names another report path`);
  for (const m of s.memories ?? []) check(text.includes(String(m.content)), `${s.brief} lacks the memory ${m.content}`);
  for (const dep of s.dependencies ?? []) check(text.includes(`- ${dep.name} (${dep.reportPath})`), `${s.brief} lacks ${dep.name}'s context`);
  return s.brief;
}

/** A retry's start: read refs/retry-reflexion.md, write the start with its reflexion, record it (next did not). */
export function* recordRetry(lead: SkillLead, s: any, reflexion = REFLEXION): Gen<any> {
  check(typeof s.failure?.outcome === "string", `a retry without its failure: ${JSON.stringify(s)}`);
  done((yield* calls("Retry reflexion.", lead.ref("retry-reflexion.md"))).results[0]);
  if (lead.project.exists(".design/tmp/update.json")) done((yield* calls("Reading the earlier update.", lead.readFile(".design/tmp/update.json"))).results[0]);
  done((yield* calls("The start with its reflexion.", lead.write(".design/tmp/update.json", [{ roleIndex: s.roleIndex, status: "in_progress", model: s.model, agent: s.agent, reflexion }]))).results[0]);
  const up = yield* helper(lead, `Starting ${s.name} (attempt ${s.attempt} on ${s.model}).`, "update-status", ["< .design/tmp/update.json"]);
  check(up.updated.includes(s.roleIndex), JSON.stringify(up));
  return up;
}

/** One `finish` for a finished worker, as written; with --give-up when asked. */
export function finishCall(lead: SkillLead, agentName: string, giveUp = false): ToolCall {
  return lead.run("finish", giveUp ? ["--give-up"] : [], { fill: { agent: agentName } });
}

/**
 * Phase 4's loop as SKILL.md spells it: ask `next` (it records the starts); for each start clean what it replaces,
 * record a retry's reflexion, spawn with a prompt naming the entry's brief file; end the turn until
 * workers finish; `finish` each one (cost, report, checks, status, commit); ask again until done.
 */
export function* workerLoop(lead: SkillLead, latest: () => TurnContext, hooks: LoopHooks = {}): Gen<Loop> {
  const out: Loop = { answers: [], starts: [], spawned: {}, finished: {}, cleaned: [], retried: [], last: null };
  const running: Record<string, any> = {};
  const taskIds: Record<string, string> = {};
  const startAll = function* (d: any): Gen<void> {
    for (const s of d.start) {
      out.starts.push(s);
      check(s.recorded === !s.retry, `next recorded ${s.name}: ${JSON.stringify(s)}`);
      if (s.replaces) {
        out.cleaned.push(yield* helper(lead, `Undoing ${s.replaces.agent}'s partial work.`, "clean-attempt", [], { fill: { roleIndex: String(s.roleIndex) } }));
      }
      if (s.retry) out.retried.push(yield* recordRetry(lead, s));
      hooks.beforeSpawn?.(s);
      const file = briefOf(lead, s);
      const prompt = brief(
        hooks.key?.(s) ?? `worker-${s.agent}`,
        `You are ${s.agent}, the worker for role ${s.roleIndex} ("${s.name}"), attempt ${s.attempt}.\nRead your brief first: ${file}.\n${hooks.extra?.(s) ?? ""}Write your completion report to ${s.reportPath}.`,
      );
      const input = agent(`work on ${s.name}`, s.agent, s.model, prompt);
      const spawn = yield* calls(`Spawning ${s.agent}.`, input);
      done(spawn.results[0]);
      out.spawned[s.agent] = input.input;
      running[spawn.results[0].id] = s;
      taskIds[s.agent] = /agentId:\s*([\w-]+)/.exec(spawn.results[0].text)?.[1] ?? s.agent;
    }
  };
  // `next` records the starts it hands out, so every answer's `start` entries are spawned, also one that names
  // stalled attempts: those are stopped and recorded first, and `next` is asked again once the starts are out.
  const ask = function* (): Gen<any> {
    const d = yield* helper(lead, "Asking the helper what to start.", "next");
    out.answers.push(d);
    if (hooks.afterNext) yield* hooks.afterNext(d);
    if (d.stalled?.length) {
      check(!!hooks.stalled, `unexpected stalled attempts: ${JSON.stringify(d.running)}`);
      yield* hooks.stalled!(d, taskIds);
      for (const [id, s] of Object.entries(running)) if (d.stalled.includes(s.roleIndex)) delete running[id];
    }
    return d;
  };
  let d = yield* ask();
  yield* startAll(d);
  for (let rounds = 0; ; rounds++) {
    check(rounds < (hooks.maxRounds ?? 12), "too many worker rounds");
    if (d.stalled?.length) {
      d = yield* ask();
      yield* startAll(d);
      continue;
    }
    if (Object.keys(running).length === 0) break;
    // End the turn until any running worker has finished (the CLI delivers notifications as they come).
    for (let k = 0; !notifications(latest().body).some((n) => n.toolUseId in running); k++) {
      check(k < 6, `no worker finished: ${Object.values(running).map((s: any) => s.agent).join(", ")}`);
      yield turn("Waiting for the workers.");
    }
    const seen = new Set(notifications(latest().body).map((n) => n.toolUseId));
    const finished = Object.entries(running).filter(([id]) => seen.has(id));
    for (const [id, s] of finished) {
      delete running[id];
      const f = ok((yield* calls(`${s.agent} finished.`, finishCall(lead, s.agent))).results[0]);
      check(f.report?.valid !== false, `${s.agent}'s report: ${JSON.stringify(f.report)}`);
      out.finished[s.agent] = f;
    }
    d = yield* ask();
    yield* startAll(d);
  }
  check(d.done === true, `next: ${JSON.stringify(d)}`);
  out.last = d;
  return out;
}

/** The workers checkpoint with every worker report written. */
export function workersCheckpoint(lead: SkillLead, agents: string[], c: number, f: number, s: number, reason: string): Gen<any> {
  const outputs = agents.map((a) => `.design/worker-${a}.json`).join(",");
  return helper(lead, "Workers done.", "run-checkpoint", ["--phase workers"], {
    replace: [[".design/worker-{agent}.json,.design/worker-{agent}.json", outputs]],
    fill: { c: String(c), f: String(f), s: String(s), reason },
  });
}

export interface VerifyOptions {
  verifier?: string;
  regression?: string;
  goal: "achieved" | "partial" | "not achieved";
}

/** Phase 5: spawn the listed checkers in one message, validate each report, checkpoint. */
export function* verify(lead: SkillLead, latest: () => TurnContext, o: VerifyOptions): Gen<any[]> {
  done((yield* calls("Phase 5/7 Verify.", lead.ref("post-execution-briefs.md"))).results[0]);
  const spawns: ToolCall[] = [];
  const types: string[] = [];
  if (o.verifier) {
    spawns.push(agent("verify integration", "integration-verifier", o.verifier, brief("integration-verifier", "Verify the completed roles together with the commands .design/grant.json lists; write .design/integration-verifier-report.json.")));
    types.push("integration-verifier");
  }
  if (o.regression) {
    spawns.push(agent("check regressions", "regression-checker", o.regression, brief("regression-checker", "Compare the changed files with the snapshot; write .design/regression-checker-report.json.")));
    types.push("regression-checker");
  }
  let verdicts: any[] = [];
  if (spawns.length) {
    const ctx = yield* calls("Spawning the checkers.", ...spawns);
    yield* waitFor(latest(), ctx.results.map((r) => (done(r), r.id)), "Waiting for the checkers.");
    verdicts = (yield* calls("Validating their reports.", ...types.map((t) => lead.run("validate-auxiliary-report", [`--type ${t}`])))).results.map((r) => ok(r));
  }
  const all = ".design/integration-verifier-report.json,.design/regression-checker-report.json";
  const outputs = types.map((t) => `.design/${t}-report.json`).join(",");
  yield* helper(lead, "Verify done.", "run-checkpoint", ["--phase verify"], {
    replace: [[outputs ? all : ` --outputs ${all}`, outputs]],
    fill: { "achieved|partial|not achieved": o.goal, r: "0" },
  });
  return verdicts;
}

export interface LearnOptions {
  handoff: string;
  evaluation: object;
  /** The curator's model, when the plan lists it. */
  curator?: string;
}

/** Phase 6: handoff and evaluation, the curator (validated, then applied by curator-apply), checkpoint. */
export function* learn(lead: SkillLead, latest: () => TurnContext, o: LearnOptions): Gen<{ applied: any }> {
  done((yield* calls("Phase 6/7 Learn.", lead.ref("closing.md"))).results[0]);
  const writes: ToolCall[] = [];
  if (lead.project.exists(".design/handoff.md")) done((yield* calls("Reading the earlier handoff.", lead.readFile(".design/handoff.md"))).results[0]);
  if (lead.project.exists(".design/tmp/eval.json")) done((yield* calls("Reading the earlier evaluation.", lead.readFile(".design/tmp/eval.json"))).results[0]);
  writes.push(lead.write(".design/handoff.md", o.handoff), lead.write(".design/tmp/eval.json", o.evaluation));
  for (const r of (yield* calls("Writing the handoff and the evaluation draft.", ...writes)).results) done(r);
  let applied: any = null;
  if (o.curator) {
    done((yield* calls("The curator.", lead.ref("memory-curator.md"))).results[0]);
    const ctx = yield* calls("Spawning the memory curator.", agent("curate memories", "memory-curator", o.curator, brief("memory-curator", "Curate this run's learnings; write .design/memory-curator-report.json.")));
    done(ctx.results[0]);
    yield* waitFor(latest(), [ctx.results[0].id], "Waiting for the curator.");
    // One call: the report validated, the curator's cost recorded, the memories stored, boosted and decayed.
    applied = yield* helper(lead, "Applying the curator's report.", "curator-apply");
  }
  const outputs = o.curator ? undefined : ".design/handoff.md,.design/tmp/eval.json";
  yield* helper(lead, "Learn done.", "run-checkpoint", ["--phase learn"], {
    replace: outputs ? [[".design/handoff.md,.design/tmp/eval.json,.design/memory-curator-report.json", outputs]] : [],
    fill: { s: String(applied?.stored?.length ?? 0), b: String(applied?.boosted?.length ?? 0), d: String(applied?.decayed?.length ?? 0) },
  });
  return { applied };
}

/**
 * Phase 7: run-end with the run's outcome (and the evaluation when phase 6 wrote it), then the lead tells the user
 * the summary and shows the report's file:// link. `got` receives run-end's answer before that last turn (the
 * session ends with it, so nothing after it runs).
 */
export function* close(lead: SkillLead, outcome: "completed" | "partial" | "failed" | "aborted", goalAchieved: boolean, got: (end: any) => void, withEval = true): Gen<any> {
  const replace: [string, string][] = [];
  if (outcome !== "completed") replace.push(["--outcome completed", `--outcome ${outcome}`]);
  if (!goalAchieved) replace.push(["--goal-achieved true", "--goal-achieved false"]);
  if (!withEval) replace.push([" --eval .design/tmp/eval.json", ""]);
  const end = yield* helper(lead, "Phase 7/7 Close.", "run-end", [], { replace });
  check(end.run?.closed === true, JSON.stringify(end));
  check(typeof end.report?.link === "string" && end.report.link.startsWith("file://"), `run-end's report: ${JSON.stringify(end.report)}`);
  got(end);
  yield turn(`${(end.report.summary ?? []).join("\n")}\nThe run's picture: ${end.report.link}`);
  return end;
}

/** The helper calls the lead made in a session (Bash calls of plan.js or grant-approve.js), in order. */
export function helperCalls(main: Array<{ answer?: { tools?: ToolCall[] } }>): string[] {
  return main.flatMap((r) => (r.answer?.tools ?? []).filter((t) => t.name === "Bash" && /\/scripts\/(?:plan|grant-approve)\.js"/.test(String(t.input?.command ?? ""))).map((t) => String(t.input.command)));
}

export { helperJson, loadTools, sendMessage };
