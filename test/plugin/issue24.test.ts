// Issue 24's defects outside execute's worker flow, as the skills' text and the helper must hold them:
// design clarifies a goal only once it has read recon and the memories, records the goal as given (so the same
// /do:design again stays resumable) and the clarified one at its checkpoint; a design split into phases leaves the
// later ones in the handoff, which execute keeps; every flag a skill advertises is read; every skill that asks
// with AskUserQuestion says what to do without it; execute shows restored roles; recon leaves counting to the helper;
// improve starts a run on a target outside the project; reflect's evidence and hypotheses come from the helper.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliSync } from "../helpers/cli.ts";
import { flagValue, invocations, phaseSections, readRef, skillFiles, type PromptFile } from "./plugin-files.ts";

const skill = (name: string): PromptFile => skillFiles().find((f) => f.name === name)!;
const lineOf = (f: PromptFile, re: RegExp) => f.raw.split("\n").findIndex((l) => re.test(l)) + 1;

describe("design's pre-flight: read first, clarify after, record the goal as given", () => {
  const f = skill("design");
  const calls = invocations(f);
  const first = (cmd: string) => calls.find((c) => c.command === cmd)!;

  it("clarifies the goal only after run-begin brought recon and the memories, and before design-tier", () => {
    const clarify = lineOf(f, /^\d+\. Clarify the goal, with recon, memories and the digest's `lifecycle` in hand/);
    const contradicts = lineOf(f, /contradicts a recon constraint, a\s*$|memory or the handoff's open issues/);
    assert.ok(clarify > 0 && contradicts >= clarify, "the clarify step and its contradiction row");
    assert.ok(first("run-begin").line < clarify, "recon and the memories come with run-begin, before the goal is judged");
    assert.match(f.body, /`memories`[\s\S]*`recon`: an\s+intervention matching the goal/);
    const tier = calls.find((c) => c.command === "design-tier" && c.argv.includes("--goal"))!;
    assert.ok(tier.line > clarify, "design-tier gets the clarified goal");
    assert.equal(flagValue(tier, "--goal"), "{clarified goal}");
  });

  it("starts and compares the run with the goal as given; the clarified goal goes to design-tier, which records it", () => {
    assert.equal(flagValue(first("run-begin"), "--goal"), "{goal}");
    assert.match(f.body, /`\{goal\}` is the goal as given \(the line above\); the clarified goal goes only to `design-tier`/);
    assert.match(f.body, /take `resume\.decisions` \(clarified goal,\s+tier\)/);
  });

  it("so the same /do:design again is resumable, where recording the clarified goal made it 'changed'", (t) => {
    const dir = mkdtempSync(join(tmpdir(), "do-issue24-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const plan = (...args: string[]) => cliSync(args, { cwd: dir }).json as any;
    const given = "add due dates";
    const clarified = "add an optional ISO due date to each todo in src/api, validated on create and update";
    assert.equal(plan("run-begin", "design", "--goal", given).action, "start");
    const tier = plan("design-tier", "--goal", clarified);
    assert.match(tier.checkpoint, /design · phase 1\/6 pre-flight: done/);
    const again = plan("run-begin", "design", "--goal", given);
    assert.equal(again.action, "ask-resume", JSON.stringify(again));
    assert.match(again.resume.decisions[0], new RegExp(`goal: ${clarified}`));
    // What a changed goal does: the run cannot be resumed and starts over.
    const other = plan("run-begin", "design", "--goal", clarified);
    assert.match(other.restartedBecause, /goal changed/);
  });
});

describe("a design split into phases leaves the later ones where the next sessions read them", () => {
  it("plan-template writes them to the handoff; design may write it; execute's handoff keeps them", () => {
    const template = readRef("design", "plan-template.md");
    assert.match(template, /The next design archives plan\.json, so also write the later\s+phases where the next sessions read them, `\.design\/handoff\.md`/);
    assert.match(template, /## Later phases/);
    assert.match(String(skill("design").data["allowed-tools"]), /Edit\(\.design\/handoff\.md\)/);
    assert.match(readRef("execute", "closing.md"), /keep its `## Later phases` section/);
  });
});

describe("what the skills advertise and ask", () => {
  it("every flag in a skill's argument-hint is read by its body", () => {
    for (const f of skillFiles()) {
      for (const flag of String(f.data["argument-hint"] ?? "").match(/--[a-z][a-z-]*/g) ?? []) {
        assert.ok(f.body.includes(flag), `${f.rel}: argument-hint offers ${flag}, which the body never reads`);
      }
    }
  });

  it("every skill that asks with AskUserQuestion says what to do in a session without it", () => {
    for (const f of skillFiles()) {
      if (!f.body.includes("AskUserQuestion")) continue;
      assert.match(f.body, /(No AskUserQuestion in this session → ask each of its questions in plain words|without AskUserQuestion: ask in plain words|AskUserQuestion \(without it, in plain words|AskUserQuestion [^\n]*else ask in plain\s+words)/, f.rel);
    }
  });

  it("execute shows the roles update-status restored to pending, next to the cascaded ones", () => {
    assert.match(skill("execute").body, /Show each `cascaded` and `restored` entry to the user/);
  });

  it("recon's run-begin sets earlier researcher artifacts aside (the helper keeps those an unfinished plan names)", () => {
    const f = skill("recon");
    const pre = phaseSections(f)[0];
    assert.ok(invocations(f).some((c) => c.command === "run-begin" && c.line >= pre.line && c.line <= pre.endLine));
    assert.match(f.body, /it sets earlier researcher artifacts aside/);
  });

  it("execute starts no auxiliary the plan does not list (a quick plan lists no challenger or scout)", () => {
    const body = skill("execute").body;
    assert.match(body, /Skip this phase's work when `summary\.auxiliaryRoles` (?:has|lists) neither `challenger` nor `scout`/);
    assert.match(body, /At least one role completed and `integration-verifier` is listed → spawn it/);
    assert.match(body, /`regression-checker` listed → spawn it/);
    assert.match(body, /`memory-curator` listed → read `refs\/memory-curator\.md` now, spawn it/);
  });
});

describe("recon, improve and reflect: what issue 24 found in their text", () => {
  it("recon never tells the lead to count: the helper counts the findings, and the counts it records come from answers", () => {
    const f = skill("recon");
    assert.doesNotMatch(f.body, /\bCount the findings\b/);
    assert.doesNotMatch(f.body, /you do not count/i);
    const synthesis = phaseSections(f).find((p) => p.name === "synthesis")!;
    assert.match(synthesis.text, /The helper counts the findings and domains/);
    const findings = invocations(f).find((c) => c.command === "recon-findings")!;
    assert.ok(findings.line >= synthesis.line && findings.line <= synthesis.endLine);
    assert.match(f.body, /`findingsCount`\s+\(recon-findings' `findings`\)/);
  });

  it("recon, improve and reflect each say what to do without AskUserQuestion, in their boundaries", () => {
    for (const name of ["design", "recon", "improve", "reflect"]) {
      const f = skill(name);
      const boundaries = f.body.slice(f.body.indexOf("## Boundaries"), f.body.indexOf("## 1. "));
      assert.match(boundaries, /No AskUserQuestion in this session → ask each of its questions in plain words, options listed, and end your\s+turn\./, name);
    }
  });

  it("improve starts a run on a target outside the project without --inputs, which the helper would refuse", (t) => {
    const f = skill("improve");
    const start = invocations(f).find((c) => c.command === "run-begin")!;
    assert.equal(flagValue(start, "--inputs"), "{target path}");
    assert.match(f.body, /a target outside the project: leave out `--inputs`/);
    const dir = mkdtempSync(join(tmpdir(), "do-issue24-improve-"));
    const outside = mkdtempSync(join(tmpdir(), "do-issue24-plugin-"));
    t.after(() => [dir, outside].forEach((d) => rmSync(d, { recursive: true, force: true })));
    const target = join(outside, "SKILL.md");
    const refused = cliSync(["run-begin", "improve", "--goal", "execute", "--inputs", target], { cwd: dir }).json as any;
    assert.equal(refused.code, "E_PATH", "what the written call does for a plugin's skill");
    const started = cliSync(["run-begin", "improve", "--goal", "execute"], { cwd: dir }).json as any;
    assert.equal(started.ok, true, JSON.stringify(started));
  });

  it("reflect stops early on the helper's evidence count and writes the hypotheses the helper names", () => {
    const f = skill("reflect");
    assert.match(phaseSections(f)[0].text, /The digest's `reflections\.evidence` \(runs to learn from\) below the minimum/);
    assert.doesNotMatch(f.body, /`reflections\.count`/);
    const hyp = phaseSections(f).find((p) => p.name === "hypotheses")!;
    assert.match(hyp.text, /One hypothesis per entry of reflect-metrics' `hypothesize`/);
    assert.doesNotMatch(hyp.text, /anecdotal/, "which patterns get a hypothesis is the helper's answer");
  });

  it("improve chooses its mode from the analyst ref, read in the mode phase", () => {
    const f = skill("improve");
    const mode = phaseSections(f).find((p) => p.name === "mode")!;
    assert.match(mode.text, /Read `refs\/analyst-briefs\.md` now\. Choose the mode and its analysts as its Mode section says/);
    assert.match(readRef("improve", "analyst-briefs.md"), /## Mode\n[\s\S]*\*cross-skill\*[\s\S]*\*targeted\*[\s\S]*under 80 lines[\s\S]*\*general\*/);
  });
});
