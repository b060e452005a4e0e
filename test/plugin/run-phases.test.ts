// The run-state contract as the skills write it: one run-start naming exactly the skill's `## N.` phases, one
// run-checkpoint at the end of every phase but the last, run-complete in the last, and a resume offer in pre-flight.
// A skill on the coarse calls (issue 24) writes one run-begin instead (the helper knows its phases, checkpoints
// pre-flight and answers `ask-resume` for the lead to ask), and closes with run-end (reflection and run-complete).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SKILL_PHASES, SKILLS } from "../../src/lib/run-state.ts";
import { flagValue, invocations, phaseSections, skillFiles, type Invocation } from "./plugin-files.ts";

const ROOT = resolve(__dirname, "../..");

const inSection = (c: Invocation, s: { line: number; endLine: number }) => c.line >= s.line && c.line <= s.endLine;

describe("phase checkpoints in skills", () => {
  for (const f of skillFiles()) {
    const calls = invocations(f);
    const phases = phaseSections(f);
    const names = phases.map((p) => p.name);
    const first = phases[0];
    const last = phases[phases.length - 1];
    const of = (command: string) => calls.filter((c) => c.command === command);
    const coarse = of("run-begin").length > 0;

    describe(f.rel, () => {
      it("numbers its phases 1..N in order, with distinct names", () => {
        assert.deepEqual(phases.map((p) => p.n), phases.map((_, i) => i + 1));
        assert.equal(new Set(names).size, names.length);
        assert.equal(first.name, "pre-flight");
      });

      it("starts one run, in pre-flight, whose --phases are its phase headings in order", () => {
        if (coarse) {
          assert.equal(of("run-start").length, 0, "run-begin replaces run-start");
          const begins = of("run-begin");
          assert.equal(begins.length, 1, "exactly one written run-begin");
          assert.equal(begins[0].argv[0], f.name);
          assert.ok(inSection(begins[0], first), `run-begin at line ${begins[0].line} is outside pre-flight`);
          assert.equal(calls.filter((c) => inSection(c, first))[0], begins[0], "run-begin is pre-flight's first call");
          return;
        }
        const starts = of("run-start");
        assert.equal(starts.length, 1, "exactly one run-start");
        const [start] = starts;
        assert.equal(start.argv[0], f.name);
        assert.ok(inSection(start, first), `run-start at line ${start.line} is outside pre-flight`);
        assert.deepEqual(flagValue(start, "--phases")?.split(","), names);
        assert.notEqual(flagValue(start, "--goal"), undefined, "the goal is hashed to detect a changed goal");
      });

      it("offers to resume an interrupted run in pre-flight, and starts over with --fresh", () => {
        assert.match(first.text, /AskUserQuestion "Resume from \{nextPhase\}\?"/);
        if (coarse) {
          assert.equal(of("run-status").length, 0, "run-begin answers ask-resume instead");
          assert.match(first.text, /`ask-resume` → AskUserQuestion/);
          assert.match(first.text, /`--resume` or `--fresh`/);
          return;
        }
        const status = of("run-status");
        assert.equal(status.length, 1);
        assert.equal(status[0].argv[0], f.name);
        assert.ok(inSection(status[0], first));
        assert.ok(status[0].line < of("run-start")[0].line, "the interrupted run is looked at before a new one starts");
        assert.match(first.text, /`--fresh`/);
        assert.match(first.text, /`resumable` false → tell the user in one line why/);
      });

      for (const phase of phases.slice(0, -1)) {
        it(`ends phase ${phase.n} (${phase.name}) with its one checkpoint, the phase's last helper call`, () => {
          const here = calls.filter((c) => inSection(c, phase));
          if (coarse && phase === first) {
            // run-begin checkpoints pre-flight; what follows it are checkpoints of phases it lets the lead skip.
            assert.ok(here.slice(1).every((c) => c.command === "run-checkpoint" && /^\{.*\}$/.test(flagValue(c, "--phase") ?? "")), JSON.stringify(here.slice(1).map((c) => c.text)));
            return;
          }
          const own = here.filter((c) => c.command === "run-checkpoint" && flagValue(c, "--phase") === phase.name);
          assert.equal(own.length, 1, `${own.length} checkpoints of ${phase.name}`);
          assert.equal(own[0].argv[0], f.name);
          assert.equal(here[here.length - 1], own[0], "a helper call after the checkpoint belongs to the next phase");
          for (const c of here.filter((x) => x.command === "run-checkpoint")) {
            const p = flagValue(c, "--phase")!;
            assert.ok(p === phase.name || /^\{.*\}$/.test(p), `phase ${phase.name} checkpoints ${p} at line ${c.line}`);
          }
          assert.ok(!here.some((c) => c.command === "run-complete"), "run-complete belongs to the last phase");
        });
      }

      it(`closes the run in the last phase (${last.name}) after recording the reflection`, () => {
        const here = calls.filter((c) => inSection(c, last));
        assert.ok(!here.some((c) => c.command === "run-checkpoint"), "the last phase is closed by run-complete");
        if (coarse) {
          // run-end records the reflection and closes the run in one call.
          assert.deepEqual([of("run-complete").length, of("reflection-add").length], [0, 0]);
          const ends = of("run-end");
          assert.equal(ends.length, 1);
          assert.ok(inSection(ends[0], last));
          assert.equal(ends[0].argv[0], f.name);
          assert.ok(flagValue(ends[0], "--outcome"), "run-end names the outcome");
          assert.match(last.text, /Every run ends with steps \d (and|to) \d of this phase/, "aborted and failed runs are closed too");
          return;
        }
        const completes = of("run-complete");
        assert.equal(completes.length, 1);
        assert.ok(inSection(completes[0], last));
        assert.equal(completes[0].argv[0], f.name);
        const add = of("reflection-add")[0];
        assert.ok(add.line < completes[0].line, "reflection-add comes before run-complete");
        assert.match(last.text, /Every run ends with steps \d (and|to) \d of this phase/, "aborted and failed runs are closed too");
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

      it("tells the lead to checkpoint before acting on the next phase and to show the announcement", () => {
        assert.match(f.body, /Each phase but the last ends with its `run-checkpoint` call, made before you act on the next phase/);
      });
    });
  }

  it("gives the archive-before-write skills a start-over that archives the stopped run first, only when the helper says so", () => {
    for (const f of skillFiles().filter((x) => ["design", "improve", "reflect"].includes(x.name))) {
      const pre = phaseSections(f)[0];
      assert.match(f.body, /Start over → act on run-status's `startOver`\. `archive` true → first move/, f.rel);
      assert.match(f.body, /`archive` false → do not archive/, f.rel);
      const archives = invocations(f).filter((c) => c.command === "archive" && inSection(c, pre));
      const start = invocations(f).find((c) => c.command === "run-start")!;
      assert.ok(archives.some((a) => a.line < start.line), `${f.rel}: no archive before run-start on a start-over`);
    }
  });
});

// run-begin starts each skill's run with the phase list the helper knows (SKILL_PHASES in src/lib/run-state.ts): it
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
