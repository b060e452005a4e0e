// The run-state contract as the skills write it (issue 30): one run-begin in pre-flight (the helper knows the
// phases, answers `ask-resume` for the lead to ask) and one run-end in the last phase (the reflection and the close
// in one call). execute ends each phase but the last with its run-checkpoint; the other four make no checkpoint
// call: the calls that produce a phase's output record it (lib/run/run-record.ts; RECORDED_BY below, proved against the
// helper in test/commands/run-record.test.ts).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SKILL_PHASES, SKILLS } from "../../src/lib/run/run-state.ts";
import { flagValue, invocations, phaseSections, skillFiles, type Invocation } from "./plugin-files.ts";

const ROOT = resolve(__dirname, "../..");

const inSection = (c: Invocation, s: { line: number; endLine: number }) => c.line >= s.line && c.line <= s.endLine;

/** Per skill and phase: the written calls that record the phase (it or a later phase's call records it with theirs). */
const RECORDED_BY: Record<string, Record<string, readonly string[]>> = {
  design: { "pre-flight": ["design-tier"], experts: ["expert-validate", "design-tier"], "cross-review": ["finalize", "design-tier"], plan: ["finalize"], finalize: ["finalize"] },
  recon: { "pre-flight": ["run-begin"], research: ["expert-validate"], synthesis: ["recon-rank"], "write-and-validate": ["recon-rank"] },
  improve: { "pre-flight": ["expert-validate"], mode: ["expert-validate"], analysis: ["expert-validate"], "cross-review": ["improve-guards", "finalize"], synthesis: ["improve-guards", "finalize"], guards: ["improve-guards", "finalize"], finalize: ["finalize"] },
  reflect: { "pre-flight": ["reflect-metrics"], gather: ["reflect-metrics"], analyse: ["finalize"], hypotheses: ["finalize"], plan: ["finalize"] },
};

describe("phase checkpoints in skills", () => {
  for (const f of skillFiles()) {
    const calls = invocations(f);
    const phases = phaseSections(f);
    const names = phases.map((p) => p.name);
    const first = phases[0];
    const last = phases[phases.length - 1];
    const of = (command: string) => calls.filter((c) => c.command === command);

    describe(f.rel, () => {
      it("numbers its phases 1..N in order, with distinct names", () => {
        assert.deepEqual(phases.map((p) => p.n), phases.map((_, i) => i + 1));
        assert.equal(new Set(names).size, names.length);
        assert.equal(first.name, "pre-flight");
      });

      it("opens one run with run-begin in pre-flight, and none of the older calls", () => {
        for (const old of ["run-start", "run-status", "run-complete", "reflection-add", "health-check", "validate-checks"]) {
          assert.equal(of(old).length, 0, `${old} is gone`);
        }
        const begins = of("run-begin");
        assert.equal(begins.length, 1, "exactly one written run-begin");
        assert.equal(begins[0].argv[0], f.name);
        assert.ok(inSection(begins[0], first), `run-begin at line ${begins[0].line} is outside pre-flight`);
      });

      it("offers to resume an interrupted run in pre-flight, and starts over with --fresh", () => {
        assert.match(first.text, /AskUserQuestion "Resume from \{nextPhase\}\?"/);
        assert.match(first.text, /`ask-resume`( →)? AskUserQuestion/);
        assert.match(first.text, /`--resume` or `--fresh`/);
      });

      if (f.name === "execute") {
        for (const phase of phases.slice(1, -1)) {
          it(`ends phase ${phase.n} (${phase.name}) with its one checkpoint, the phase's last helper call`, () => {
            const here = calls.filter((c) => inSection(c, phase));
            const own = here.filter((c) => c.command === "run-checkpoint" && flagValue(c, "--phase") === phase.name);
            assert.equal(own.length, 1, `${own.length} checkpoints of ${phase.name}`);
            assert.equal(here[here.length - 1], own[0], "a helper call after the checkpoint belongs to the next phase");
          });
        }
        it("tells the lead to checkpoint before acting on the next phase and to show the announcement", () => {
          assert.match(f.body, /Each phase but the last ends with its `run-checkpoint` call, made before you act on the next phase/);
        });
      } else {
        it("makes no checkpoint call: each phase but the last is recorded by a call that produces its output", () => {
          assert.equal(of("run-checkpoint").length, 0);
          const table = RECORDED_BY[f.name];
          assert.deepEqual(Object.keys(table), names.slice(0, -1));
          phases.slice(0, -1).forEach((phase) => {
            const later = calls.filter((c) => c.line >= phase.line && table[phase.name].includes(c.command ?? ""));
            assert.ok(later.length > 0, `${phase.name}: none of ${table[phase.name].join(", ")} is called in it or after it`);
          });
          assert.match(f.body, /The calls that produce a phase's output record its checkpoint/);
        });
      }

      it(`closes the run in the last phase (${last.name}) with one run-end`, () => {
        const ends = of("run-end");
        assert.equal(ends.length, 1);
        assert.ok(inSection(ends[0], last));
        assert.equal(ends[0].argv[0], f.name);
        assert.ok(flagValue(ends[0], "--outcome"), "run-end names the outcome");
        assert.match(last.text, /Every run ends with steps? \d( (and|to) \d)? of this phase/, "aborted and failed runs are closed too");
      });

      it("checkpoints only phases it has, and never a path it cannot know", () => {
        for (const c of of("run-checkpoint")) {
          const p = flagValue(c, "--phase")!;
          assert.ok(names.includes(p) || /^\{.*\}$/.test(p), `line ${c.line}: unknown phase ${p}`);
          for (const out of (flagValue(c, "--outputs") ?? "").split(",").filter(Boolean)) {
            assert.match(out, /^\.design\//, `line ${c.line}: outputs live under .design/ (${out})`);
            assert.doesNotMatch(out, /\*/, `line ${c.line}: the helper checks real paths, not globs (${out})`);
          }
          const d = flagValue(c, "--decisions");
          assert.ok(d && d.length > 0, `line ${c.line}: a checkpoint says what was decided`);
        }
      });
    });
  }
});

// run-begin starts each skill's run with the phase list the helper knows (SKILL_PHASES in src/lib/run/run-state.ts): it
// must be the skill's `## N. Name` sections in kebab-case, in order, or a checkpoint the SKILL.md writes would be
// refused as an unknown phase.
describe("the helper's phase lists", () => {
  for (const skill of SKILLS) {
    it(`${skill}: SKILL_PHASES is its SKILL.md's numbered sections in kebab-case`, () => {
      const md = readFileSync(join(ROOT, "skills", skill, "SKILL.md"), "utf8");
      const phases = [...md.matchAll(/^## (\d+)\. (.+)$/gm)].map((m) => m[2].trim().toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, ""));
      assert.ok(phases.length >= 3, `${skill}: no numbered phases found`);
      assert.deepEqual([...SKILL_PHASES[skill]], phases);
    });
  }
});
