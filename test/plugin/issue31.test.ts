// Issue 31 ("What a real model hit"): the wrong turns of the first real run that are settled in the text, each read
// as the model reads it. (What the helper decides has its test beside the command: role-runs, reflect-flow,
// design-tier, recon-rank, recon-summary, report, preflight, archive.)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./plugin-files.ts";
import { project } from "../helpers/design-dir.ts";

const read = (rel: string) => readFileSync(join(ROOT, rel), "utf8");
const flat = (rel: string) => read(rel).replace(/\s+/g, " ");

describe("issue 31: the text a real model followed", () => {
  it("the plan template and design ask for runs; workers and the verifier are told what the grant runs", () => {
    const template = flat("skills/design/refs/plan-template.md");
    assert.match(template, /## What the work runs \(`runs`\)/);
    assert.match(template, /`\{"command": "python3 -m textkit", "args": "plain"\}`: this prefix followed by plain words/);
    assert.match(template, /never `python3` alone, `node -e` or `bash -c`/);
    assert.match(template, /finalize refuses a quoted command/);
    assert.match(template, /Give `integration-verifier` the `runs` entry of its end-to-end run/);
    assert.match(flat("skills/design/SKILL.md"), /one line per role: name, model, goal, dependencies, runs/);
    assert.match(flat("skills/design/SKILL.md"), /the `runs` the template asks for/);
    assert.match(flat("skills/execute/refs/worker-brief.md"), /Besides your checks you may run your role's `runs`/);
    assert.match(flat("skills/execute/refs/post-execution-briefs.md"), /with the `runs` commands of your entry in plan\.json's auxiliaryRoles/);
  });

  it("the plan template speaks of complexity in design-tier's words, tier only as the older field", () => {
    const template = flat("skills/design/refs/plan-template.md");
    assert.match(template, /`complexity` is `design-tier`'s answer, in its words: `low` \(the quick path\), `medium` or `high`/);
    assert.doesNotMatch(template, /`goalType` and `tier` are your pre-flight classification/);
  });

  it("the grant question says what the summary says: commands that run code of the workers' choosing", () => {
    const execute = flat("skills/execute/SKILL.md");
    assert.match(execute, /run these commands \(so code of their choosing\) during this run\?/);
    assert.doesNotMatch(execute, /run exactly these commands/);
  });

  it("execute says what a challenger's non-blocking high-risk issue does; the curator's model is the plan's", () => {
    assert.match(flat("skills/execute/SKILL.md"), /Non-blocking issues hold nothing: a `high-risk` one affecting a role becomes its rule \(step 5\)/);
    assert.match(flat("skills/execute/refs/memory-curator.md"), /`model` as the plan's `memory-curator` entry names it \(`sonnet` when it names none\)/);
  });

  it("design asks in plain words without AskUserQuestion (no 'narrowest reading'); the resume question costs no print-mode session", () => {
    assert.doesNotMatch(read("skills/design/SKILL.md"), /narrowest/);
    for (const skill of ["design", "recon", "improve", "reflect"]) {
      assert.match(flat(`skills/${skill}/SKILL.md`), /"Resume from …\?" excepted: resume, and say so \(asking costs a print-mode session\)/, skill);
    }
    assert.match(flat("skills/execute/SKILL.md"), /with no way to ask, resume/);
  });

  it("recon explains the synthesis file in the ref read at synthesis, and says the helper's tie-break", () => {
    const framework = flat("skills/recon/refs/leverage-framework.md");
    assert.match(framework, /## The synthesis file Phase 3 ends with the draft `\.design\/tmp\/recon-draft\.json`/);
    assert.match(framework, /Equal scores are ordered by the interventions themselves \(the lower level first, then the title\), never by the order you wrote them in/);
    const skill = read("skills/recon/SKILL.md");
    const synthesis = skill.slice(skill.indexOf("## 3. Synthesis"), skill.indexOf("## 4."));
    assert.match(synthesis, /Read `refs\/leverage-framework\.md`(?: and `refs\/recon-template\.md`)? now/);
  });

  it("improve's template shows the shape of assumptions and design decisions; the rubric has 'not applicable', which the helper accepts", async (t) => {
    const plan = flat("skills/improve/refs/improvement-plan.md");
    assert.match(plan, /"assumptions": \[\{"text": "[^"]+", "severity": "blocking"\}\]/);
    assert.match(plan, /"designDecisions": \[\{"conflict": .*"experts": .*"decision": .*"reasoning":/);
    assert.match(plan, /finalize refuses plain strings in either/);
    assert.match(flat("skills/improve/refs/scoring-rubric.md"), /Not applicable: a dimension the target has nothing to do with .* is scored 5 with evidence that starts `not applicable:`/);
    const dims = ["protocolClarity", "constraintEnforcement", "errorHandling", "agentCoordination", "informationFlow", "promptEconomy", "verifiability"];
    const artifact = {
      summary: "s",
      verificationProperties: [{ property: "Every phase names the helper call that records it", category: "integration", testableVia: "read the SKILL.md" }],
      qualityScores: Object.fromEntries(dims.map((d) => [d, d === "agentCoordination" ? { score: 5, evidence: "not applicable: the skill starts no agent" } : { score: 3, evidence: "line 12" }])),
    };
    const p = project(t, { ".design/expert-protocol-analyst.json": artifact });
    assert.deepEqual(await p.run("expert-validate", [".design/expert-protocol-analyst.json", "--scores"]), { ok: true, valid: true, exitCode: 0 });
  });

  it("improve of a skill outside the project says plainly that execute cannot carry the plan out", () => {
    assert.match(flat("skills/improve/SKILL.md"), /`inProject` false → tell the user plainly that \/do:execute cannot carry out edits outside this project \(its grant never covers them and its background workers cannot ask\)/);
  });

  it("recon's run-begin sets aside the researcher artifacts recon.json names (--include-recon); design's keeps them", async (t) => {
    assert.match(flat("skills/recon/SKILL.md"), /Open the run \(it sets earlier researcher artifacts aside and records this phase\)/);
    const files = {
      ".design/recon.json": { schemaVersion: 1, goal: "g", sources: [{ name: "codebase-analyst", artifact: ".design/expert-codebase-analyst.json", summary: "s" }], interventions: [] },
      ".design/expert-codebase-analyst.json": { summary: "earlier research" },
    };
    const recon = project(t, files);
    const r: any = await recon.run("run-begin", ["recon", "--goal", "where to act"]);
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.ok((r.setAside ?? []).includes("expert-codebase-analyst.json"), JSON.stringify(r));
    const design = project(t, files);
    const d: any = await design.run("run-begin", ["design", "--goal", "add an orders endpoint"]);
    assert.equal(d.ok, true, JSON.stringify(d));
    assert.ok(!(d.setAside ?? []).includes("expert-codebase-analyst.json"), JSON.stringify(d));
    assert.ok(design.read(".design/expert-codebase-analyst.json").includes("earlier research"));
  });

  it("the specs ref names each spec as its runner takes it; the scout checks it", () => {
    const specs = flat("skills/design/refs/verification-specs.md");
    assert.match(specs, /\| pytest, unittest \| `test_spec_\{role\}\.py`/);
    assert.doesNotMatch(specs, /Write `\.design\/draft\/specs\/spec-\{role\}\.test\.\{ext\}`/);
    assert.match(flat("skills/execute/refs/pre-execution-briefs.md"), /the tool runs a file of that name \(pytest cannot import `spec-x\.test\.py`/);
  });

  it("plan-status shows the report's link outside the code block, where it can be clicked", () => {
    assert.match(flat("commands/plan-status.md"), /all but its last line, `Report: file:\/\/…`: put that line below the block as plain text, where the link can be clicked/);
  });

  it("README says how to run the skills in print mode, the grant's approval included, with the call SKILL.md writes", () => {
    const readme = read("README.md");
    const section = readme.slice(readme.indexOf("## Print mode (`claude -p`)"), readme.indexOf("## The run report"));
    const written = /`node "\$\{CLAUDE_SKILL_DIR\}\/scripts\/grant-approve\.js" ([^`]+)`/.exec(read("skills/execute/SKILL.md"));
    assert.ok(written, "SKILL.md writes the grant-approve.js call");
    assert.ok(section.includes(`--allowedTools 'Bash(node "<plugin root>/skills/execute/scripts/grant-approve.js" ${written[1]})'`), section);
    assert.match(section, /resumed session/);
    assert.match(section, /The resume question alone is answered for you/);
  });

  it("the Agent tool's undeclared name is written down where contributors look", () => {
    assert.match(flat("CLAUDE.md"), /`name` is in no release's Agent schema but is accepted and recorded where the hook reads it/);
    assert.match(flat("test/e2e/README.md"), /\| the Agent tool's `name` \| not in its input schema/);
  });
});
