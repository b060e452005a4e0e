// `next` on plans whose scopes come from real plans (test/fixtures/plans/README.md names each source): finalize
// installs the plan as a design run would, then `next` is asked as execute asks it, round after round, each
// started role completing before the next question. Asserted: who starts together, who waits on whom, and that
// no two roles that can touch one file ever run together (each such pair is named with a file both cover).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { project, REQUIRED_AUXILIARIES, withEvidence } from "../helpers/design-dir.ts";

const FIXTURES = join(import.meta.dirname, "../fixtures/plans");
const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");

/** finalize, then `next` until done: the names started in each round, and each round's waits. */
async function rounds(t: any, planText: (dir: string) => string, sharing: Array<[string, string]>) {
  const p = project(t);
  mkdirSync(join(p.dir, ".design"));
  // The seed's rules (finalize): the auxiliaries every plan lists, added where the fixture has none of its own.
  const doc = JSON.parse(planText(p.dir));
  const listed = new Set((doc.auxiliaryRoles ?? []).map((a: any) => a.name));
  doc.auxiliaryRoles = [...(doc.auxiliaryRoles ?? []), ...REQUIRED_AUXILIARIES.filter((a) => !listed.has(a.name)).map((a) => ({ ...a }))];
  // Scheduling is under test, not specs: a plan without any records why (the waiver holds for a meta goal).
  if (!doc.verificationSpecs?.length && doc.specsWaiver === undefined) {
    doc.goalType ??= "meta";
    doc.specsWaiver = { reason: "docs-config-only", detail: "the scheduling fixture has no spec to run" };
  }
  writeFileSync(join(p.dir, ".design/plan.json"), JSON.stringify(doc, null, 2));
  const fin = await p.run("finalize");
  assert.equal(fin.ok, true, JSON.stringify(fin));
  const overlaps = p.json(".design/plan.json").roles.map((r: any) => r.directoryOverlaps);
  const out: Array<{ start: string[]; waiting: Record<string, string[]> }> = [];
  for (let k = 0; k < 10; k++) {
    const d: any = await p.run("next");
    assert.equal(d.ok, true);
    if (d.done) break;
    const active = [...d.start, ...d.running].map((s: any) => s.name);
    for (const [a, b] of sharing) assert.ok(!(active.includes(a) && active.includes(b)), `${a} and ${b} can touch one file, yet run together`);
    out.push({ start: d.start.map((s: any) => s.name), waiting: Object.fromEntries(d.waiting.map((w: any) => [w.name, w.on.map((o: any) => `${o.kind}:${o.name}`)])) });
    // Start, record the passing evidence run-checks would (completion takes it), then complete.
    const started = await p.run("update-status", [], { stdin: JSON.stringify(d.start.map((s: any) => ({ roleIndex: s.roleIndex, status: "in_progress" }))) });
    assert.equal(started.ok, true, JSON.stringify(started));
    let doc = p.json(".design/plan.json");
    for (const s of d.start) doc = withEvidence(doc, s.roleIndex, { projectDir: p.dir });
    writeFileSync(join(p.dir, ".design/plan.json"), JSON.stringify(doc));
    const up = await p.run("update-status", [], { stdin: JSON.stringify(d.start.map((s: any) => ({ roleIndex: s.roleIndex, status: "completed" }))) });
    assert.equal(up.ok, true, JSON.stringify(up));
  }
  return { overlaps, out };
}

describe("next on real plans", () => {
  it("keeps a pattern with nothing before its first '*' away from the directories it reaches (claude-do)", async (t) => {
    // src/api/auth.middleware.ts is both backend-developer's and api-developer's; tests/auth.middleware.test.ts
    // both test-writer's and api-developer's.
    const { out } = await rounds(t, () => fixture("claude-do-self-test.json"), [["backend-developer", "api-developer"], ["test-writer", "api-developer"]]);
    assert.deepEqual(out, [
      { start: ["backend-developer"], waiting: { "test-writer": ["dependency:backend-developer"], "api-developer": ["overlap:backend-developer"] } },
      { start: ["test-writer"], waiting: { "api-developer": ["overlap:test-writer"] } },
      { start: ["api-developer"], waiting: {} },
    ]);
  });

  it("places absolute scopes inside the project and holds back those outside it (claude-do)", async (t) => {
    const text = (dir: string) => fixture("claude-do-absolute.json").replaceAll('"/project/', `"${dir}/`);
    // r0 and r1 are apart; /shared/... lies outside the project: unsure, so each waits for everything.
    const { out, overlaps } = await rounds(t, text, [["r2", "r3"], ["r0", "r2"], ["r1", "r2"], ["r0", "r3"], ["r1", "r3"]]);
    assert.deepEqual(out, [
      { start: ["r0", "r1"], waiting: { r2: ["overlap:r0", "overlap:r1"], r3: ["overlap:r0", "overlap:r1"] } },
      { start: ["r2"], waiting: { r3: ["overlap:r2"] } },
      { start: ["r3"], waiting: {} },
    ]);
    // finalize recorded the same rule: r0 and r1 apart, both before r2 and r3, r2 before r3.
    assert.deepEqual(overlaps, [[2, 3], [2, 3], [3], []]);
  });

  it("reads ./, ./docs/, **/*.test.ts and src/api-v2 by meaning (plan template, issue 18)", async (t) => {
    const { out, overlaps } = await rounds(t, () => fixture("do-template-issue-18.json"), [
      ["api-developer", "test-author"], // src/api/orders.test.ts
      ["api-v2", "test-author"], // src/api-v2/x.test.ts
      ["docs", "test-author"], // docs/x.test.ts
      ["lint-fixer", "api-developer"], // ./ is the whole project
      ["lint-fixer", "api-v2"],
      ["lint-fixer", "docs"],
      ["lint-fixer", "test-author"],
    ]);
    assert.deepEqual(out, [
      {
        start: ["api-developer", "api-v2", "docs"],
        // test-author is passed over before docs is taken, so docs starts; both then hold test-author back.
        waiting: { "test-author": ["overlap:api-developer", "overlap:api-v2"], "lint-fixer": ["overlap:api-developer", "overlap:api-v2", "overlap:docs"] },
      },
      { start: ["test-author"], waiting: { "lint-fixer": ["overlap:test-author"] } },
      { start: ["lint-fixer"], waiting: {} },
    ]);
    assert.deepEqual(overlaps, [[2, 4], [2, 4], [3, 4], [4], []]);
  });
});
