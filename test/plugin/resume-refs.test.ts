// run-begin's `resume.refs` (src/lib/run/resume-refs.ts) against the SKILL.md texts: a resumed session reads what an earlier
// phase loaded and the resumed phase still works from, and nothing the skill never reads before that phase.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { QUICK_REFS, RESUME_REFS } from "../../src/lib/run/resume-refs.ts";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { invocations, phaseSections, skillFiles } from "./plugin-files.ts";

const ROOT = resolve(__dirname, "../..");

const READ_NOW = /read `(refs\/[\w.-]+\.md)` now/gi;

describe("the refs run-status names for a resumed run", () => {
  for (const f of skillFiles().filter((x) => x.name in RESUME_REFS)) {
    const phases = phaseSections(f);
    const readIn = phases.map((p) => new Set([...p.text.matchAll(READ_NOW)].map((m) => m[1])));
    const readBefore = (k: number) => new Set(readIn.slice(0, k).flatMap((s) => [...s]));
    const table = { ...RESUME_REFS[f.name] };
    const extra = f.name === "design" ? QUICK_REFS : {};

    it(`${f.name}: each listed ref is one an earlier phase reads, for a phase the skill has`, () => {
      for (const [phase, refs] of [...Object.entries(table), ...Object.entries(extra)]) {
        const k = phases.findIndex((p) => p.name === phase);
        assert.ok(k > 0, `${phase} is not a phase after pre-flight`);
        for (const r of refs) assert.ok(readBefore(k).has(r), `${phase}: ${r} is not read before it`);
      }
    });

    it(`${f.name}: each earlier ref a phase works from is listed for it`, () => {
      phases.forEach((p, k) => {
        for (const m of p.text.matchAll(/`(refs\/[\w.-]+\.md)`/g)) {
          if (readIn[k].has(m[1]) || !readBefore(k).has(m[1])) continue;
          const listed = [...(table[p.name] ?? []), ...(extra[p.name] ?? [])];
          assert.ok(listed.includes(m[1]), `${p.name} names ${m[1]}, read in an earlier phase, but a resumed session is not told to read it`);
        }
      });
    });
  }

  it("design's quick path records its skipped phases through design-tier --draft, with the decisions resume-refs recognises", () => {
    const design = skillFiles().find((x) => x.name === "design")!;
    const plan = phaseSections(design).find((p) => p.name === "plan")!;
    assert.ok(invocations(design).some((c) => c.command === "design-tier" && c.argv.includes("--draft") && c.line >= plan.line && c.line <= plan.endLine));
    assert.match(readFileSync(join(ROOT, "src/commands/plan/design-tier.ts"), "utf8"), /experts: QUICK_PATH_DECISIONS, "cross-review": QUICK_PATH_DECISIONS/);
  });

  it("design's and improve's finalize fallback rebuilds from the template the table carries over", () => {
    for (const name of ["design", "improve"]) {
      const f = skillFiles().find((x) => x.name === name)!;
      assert.match(phaseSections(f).find((p) => p.name === "finalize")!.text, /rebuild the draft from the template/);
      assert.equal(RESUME_REFS[name].finalize.length, 1);
    }
  });

  it("every skill that resumes reads `refs` on resume, except execute, which has its own text", () => {
    for (const f of skillFiles()) {
      if (f.name === "execute") continue;
      assert.match(phaseSections(f)[0].text, /`resumed` → Read the files in `resume\.refs` and `resume\.outputs`/, f.rel);
    }
  });
});
