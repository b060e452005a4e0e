// Process-level: the phase lists the skills write, walked through the real dist/plan.js the way a lead would,
// with the session "dying" between phases. Each step is a fresh process, so nothing survives but .design/.
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cliSync } from "../helpers/cli.ts";
import { planWith, project } from "../helpers/design-dir.ts";
import { flagValue, invocations, phaseSections, skillFiles, type SkillName } from "./plugin-files.ts";

/** The --phases of a skill's run-start call, as written in its SKILL.md (a run-begin skill: its phase headings). */
function phasesOf(skill: SkillName): string[] {
  const f = skillFiles().find((x) => x.name === skill)!;
  const start = invocations(f).find((c) => c.command === "run-start");
  return start ? flagValue(start, "--phases")!.split(",") : phaseSections(f).map((p) => p.name);
}

function workspace(t: TestContext) {
  const dir = mkdtempSync(join(tmpdir(), "do-resume-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const plan = (...args: string[]) => {
    const r = cliSync(args, { cwd: dir });
    assert.ok(r.json, `no JSON from ${args.join(" ")}: ${r.stdout}${r.stderr}`);
    return r.json as Record<string, any>;
  };
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  const json = (rel: string) => JSON.parse(readFileSync(join(dir, rel), "utf8"));
  const exists = (rel: string) => existsSync(join(dir, rel));
  return { dir, plan, write, json, exists };
}

describe("a design run interrupted after its second phase", () => {
  it("offers to resume at the third, keeps what was done, and archives the state once finished [feature:design/resume-at-next-phase] [ac:design/3]", (t) => {
    const w = workspace(t);
    const phases = phasesOf("design");
    assert.equal(phases.length, 6);
    w.write(".design/recon.json", JSON.stringify({ schemaVersion: 1, interventions: [] }));

    // Session 1: pre-flight and experts, then the session dies.
    const start = w.plan("run-start", "design", "--phases", phases.join(","), "--goal", "Add auth", "--inputs", ".design/recon.json");
    assert.equal(start.ok, true, JSON.stringify(start));
    assert.equal(start.announce, `design: run started (6 phases) · next: ${phases[0]}`);
    const pre = w.plan("run-checkpoint", "design", "--phase", phases[0], "--decisions", "implementation, complex, 2 memories");
    assert.equal(pre.announce, `design · phase 1/6 ${phases[0]}: done · decisions: implementation, complex, 2 memories · next: ${phases[1]}`);

    // Advancing verifies the phase's outputs exist and refuses to skip a phase.
    const early = w.plan("run-checkpoint", "design", "--phase", phases[1], "--outputs", ".design/expert-architect.json");
    assert.equal(early.ok, false);
    assert.match(early.error, /outputs missing: \.design\/expert-architect\.json/);
    const skip = w.plan("run-checkpoint", "design", "--phase", phases[2]);
    assert.equal(skip.ok, false);
    assert.match(skip.error, new RegExp(`phase '${phases[1]}' comes first`));
    w.write(".design/expert-architect.json", "{}");
    w.write(".design/expert-security.json", "{}");
    const experts = w.plan("run-checkpoint", "design", "--phase", phases[1], "--outputs", ".design/expert-architect.json,.design/expert-security.json", "--decisions", "experts: architect, security");
    assert.equal(experts.ok, true, JSON.stringify(experts));
    assert.equal(experts.next, phases[2]);

    // Session 2: the digest the SKILL.md injects says where to resume.
    const digest = w.plan("preflight", "design");
    assert.equal(digest.run.lastPhase, phases[1]);
    assert.equal(digest.run.nextPhase, phases[2]);
    assert.equal(digest.run.resumable, true);
    assert.match(digest.nextStep, new RegExp(`^An interrupted design run stopped after ${phases[1]} .* ago: ask the user "Resume from ${phases[2]}\\?"$`));
    const status = w.plan("run-status", "design", "--goal", "Add auth");
    assert.equal(status.resumable, true);
    assert.deepEqual(status.outputs, [".design/expert-architect.json", ".design/expert-security.json"]);
    assert.deepEqual(status.decisions, [`${phases[0]}: implementation, complex, 2 memories`, `${phases[1]}: experts: architect, security`]);
    // A new run cannot silently replace the interrupted one.
    const again = w.plan("run-start", "design", "--phases", phases.join(","), "--goal", "Add auth");
    assert.equal(again.code, "E_INVALID");
    assert.equal(again.run.nextPhase, phases[2]);
    // A different goal makes it stale.
    assert.deepEqual(w.plan("run-status", "design", "--goal", "Add billing").changed, ["goal"]);

    // "Resume": the completed phases are not redone; the rest follow in order.
    w.write(".design/cross-review.json", JSON.stringify({ rounds: 1, participants: ["architect", "security"], agreements: ["tokens expire"], conflicts: [] }));
    assert.equal(w.plan("run-checkpoint", "design", "--phase", phases[2], "--outputs", ".design/cross-review.json", "--decisions", "REST over RPC").ok, true);
    w.write(".design/plan.json", JSON.stringify({ schemaVersion: 4, goal: "Add auth", roles: [{ name: "api", status: "pending" }] }));
    assert.equal(w.plan("run-checkpoint", "design", "--phase", phases[3], "--outputs", ".design/plan.json", "--decisions", "4 roles").ok, true);
    const fin = w.plan("run-checkpoint", "design", "--phase", phases[4], "--outputs", ".design/plan.json", "--decisions", "finalized");
    assert.equal(fin.next, phases[5]);
    const done = w.plan("run-complete", "design", "--outcome", "completed");
    assert.equal(done.ok, true);
    assert.equal(done.outcome, "completed");
    assert.equal(w.plan("preflight", "design").run, null);

    // The finished state goes to history with the run's files; persistent files stay. The new plan is not
    // executed yet, so archive refuses to move it unless asked (--include-plan) and --keep-plan leaves it.
    const refused = w.plan("archive", ".design");
    assert.equal(refused.code, "E_INVALID", JSON.stringify(refused));
    assert.equal(refused.planState, "ready");
    const archived = w.plan("archive", ".design", "--keep-plan");
    assert.ok(archived.archived.includes("run-design.json"), JSON.stringify(archived));
    assert.equal(w.exists(".design/plan.json"), true);
    assert.ok(archived.archived.includes("expert-architect.json"));
    assert.equal(w.exists(".design/run-design.json"), false);
    assert.equal(w.exists(".design/recon.json"), true);
    assert.equal(w.json(`${archived.archivedTo}/run-design.json`).outcome, "completed");
  });
});

describe("a stale or declined run", () => {
  it("is not resumable once an input changed; starting over archives first and overwrites nothing", (t) => {
    const w = workspace(t);
    const phases = phasesOf("design");
    w.write(".design/recon.json", "v1");
    w.plan("run-start", "design", "--phases", phases.join(","), "--goal", "Add auth", "--inputs", ".design/recon.json");
    w.plan("run-checkpoint", "design", "--phase", phases[0], "--decisions", "simple");
    w.write(".design/expert-architect.json", '{"run": 1}');
    w.plan("run-checkpoint", "design", "--phase", phases[1], "--outputs", ".design/expert-architect.json", "--decisions", "one expert");
    w.write(".design/recon.json", "v2");

    const digest = w.plan("preflight", "design");
    assert.equal(digest.run.resumable, false);
    assert.deepEqual(digest.run.changed, [".design/recon.json"]);
    assert.match(digest.nextStep, /cannot be resumed \(\.design\/recon\.json changed\)/);

    // The SKILL.md's start-over: archive (the incomplete state stays), then run-start --fresh.
    const archived = w.plan("archive", ".design");
    assert.deepEqual(archived.archived, ["expert-architect.json"]);
    assert.equal(w.exists(".design/run-design.json"), true, "archive keeps an incomplete run's state");
    const fresh = w.plan("run-start", "design", "--phases", phases.join(","), "--goal", "Add auth", "--inputs", ".design/recon.json", "--fresh");
    assert.equal(fresh.ok, true, JSON.stringify(fresh));
    assert.notEqual(fresh.archivedTo, archived.archivedTo, "a second history folder, never the same one");
    assert.equal(w.json(`${fresh.archivedTo}/run-design.json`).completed.length, 2);
    assert.deepEqual(w.json(`${archived.archivedTo}/expert-architect.json`), { run: 1 });
    assert.equal(w.json(".design/run-design.json").completed.length, 0);
    assert.equal(w.plan("preflight", "design").run.nextPhase, phases[0]);
  });

  it("is not resumable when a checkpointed output is gone", (t) => {
    const w = workspace(t);
    const phases = phasesOf("recon");
    w.plan("run-start", "recon", "--phases", phases.join(","), "--goal", "where to act");
    w.plan("run-checkpoint", "recon", "--phase", phases[0], "--decisions", "0 memories");
    w.write(".design/expert-codebase-analyst.json", "{}");
    w.plan("run-checkpoint", "recon", "--phase", phases[1], "--outputs", ".design/expert-codebase-analyst.json", "--decisions", "9 findings");
    rmSync(join(w.dir, ".design/expert-codebase-analyst.json"));
    const status = w.plan("run-status", "recon", "--goal", "where to act");
    assert.equal(status.resumable, false);
    assert.deepEqual(status.missingOutputs, [".design/expert-codebase-analyst.json"]);
  });
});

/** An analyst's scores, the target's snapshot and a draft whose one role changes nothing: improve's guards pass. */
function guardInputs(dir: string): void {
  const dims = ["protocolClarity", "constraintEnforcement", "errorHandling", "agentCoordination", "informationFlow", "promptEconomy", "verifiability"];
  const write = (rel: string, doc: unknown) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), typeof doc === "string" ? doc : JSON.stringify(doc));
  };
  write(".design/expert-protocol-analyst.json", { summary: "s", verificationProperties: [{ property: "p" }], qualityScores: Object.fromEntries(dims.map((d) => [d, { score: 3, evidence: "e" }])) });
  write(".design/skill-snapshot.md", "# Skill\n\nOne line.\n");
  write(".design/draft/plan.json", planWith([{ name: "r0", qualityEffects: Object.fromEntries(dims.map((d) => [d, 0])), lineDelta: 0 } as any]));
}

// The same walk for all five skills, in-process (the same commands, without a process per call).
function inProcess(t: TestContext) {
  const p = project(t);
  const plan = async (...args: string[]) => (await p.run(args[0], args.slice(1))) as Record<string, any>;
  return { dir: p.dir, plan };
}

describe("every skill, interrupted at every phase boundary", () => {
  for (const skill of ["design", "execute", "recon", "improve", "reflect"] as const) {
    it(`${skill} offers to resume at the next phase, then completes`, async (t) => {
      const w = inProcess(t);
      const phases = phasesOf(skill);
      // improve's guards checkpoint judges the draft by the analysts' scores: a draft that passes both guards.
      if (skill === "improve") guardInputs(w.dir);
      assert.equal((await w.plan("run-start", skill, "--phases", phases.join(","), "--goal", `a ${skill} goal`)).ok, true);
      for (let k = 0; k < phases.length - 1; k++) {
        // The verify checkpoint records the goal review's verdict (lib/run/phase-checks.ts).
        const decisions = `step ${k + 1}${phases[k] === "verify" ? ", goal achieved" : ""}`;
        const cp = await w.plan("run-checkpoint", skill, "--phase", phases[k], "--decisions", decisions);
        assert.equal(cp.ok, true, JSON.stringify(cp));
        assert.equal(cp.announce, `${skill} · phase ${k + 1}/${phases.length} ${phases[k]}: done · decisions: ${decisions} · next: ${phases[k + 1]}`);
        const digest = await w.plan("preflight", skill);
        assert.equal(digest.run.nextPhase, phases[k + 1]);
        assert.match(digest.nextStep, new RegExp(`"Resume from ${phases[k + 1]}\\?"$`));
        const status = await w.plan("run-status", skill, "--goal", `a ${skill} goal`);
        assert.equal(status.resumable, true);
        assert.equal(status.lastPhase, phases[k]);
      }
      const done = await w.plan("run-complete", skill, "--outcome", "completed");
      assert.equal(done.ok, true);
      assert.equal((await w.plan("preflight", skill)).run, null);
      assert.equal((await w.plan("archive", ".design")).archived.includes(`run-${skill}.json`), true);
      assert.deepEqual(readdirSync(join(w.dir, ".design")).filter((n) => n.startsWith("run-")), []);
    });
  }

  it("lets execute skip the phases a finished plan no longer needs, in order", async (t) => {
    const w = inProcess(t);
    const phases = phasesOf("execute");
    await w.plan("run-start", "execute", "--phases", phases.join(","), "--goal", "g");
    await w.plan("run-checkpoint", "execute", "--phase", "pre-flight", "--decisions", "0 roles reset, 0 to run");
    for (const p of ["challenge", "grant", "workers"]) {
      assert.equal((await w.plan("run-checkpoint", "execute", "--phase", p, "--decisions", "skipped: no work remaining")).ok, true, p);
    }
    assert.equal((await w.plan("preflight", "execute")).run.nextPhase, "verify");
  });

  it("closes a run stopped early (a kept plan, an abort) from pre-flight [feature:design/every-run-reflects]", async (t) => {
    const w = inProcess(t);
    const phases = phasesOf("design");
    await w.plan("run-start", "design", "--phases", phases.join(","), "--goal", "g");
    const out = await w.plan("run-complete", "design", "--outcome", "aborted");
    assert.equal(out.ok, true);
    for (const p of phases.slice(1, -1)) assert.ok(out.skippedPhases.includes(p), `${p} was not reached`);
    assert.equal((await w.plan("preflight", "design")).run, null, "an aborted run is not offered for resume");
  });
});
