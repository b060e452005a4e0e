import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { project } from "../helpers/design-dir.ts";
import { normalizeFallback, normalizeLiveness, normalizeScriptSetup } from "../../src/commands/workspace/sync-check.ts";

const SKILLS = ["design", "execute", "improve", "recon", "reflect"];

// The block is the paragraph under the heading (SKILL.md holds no fenced block).
const setup = (skill: string, runner = "node") =>
  `### Script Setup\n\nPLAN_CLI=skills/${skill}/scripts/plan.js\n` +
  `TEAM_NAME=$(${runner} $PLAN_CLI team-name ${skill}).teamName\nnode $PLAN_CLI team-name ${skill}\n\n`;
const liveness = (minutes: number, attempts: number) =>
  `| Rule | Action |\n|---|---|\n| Stalled | each of \`waiting.stalled\` (${minutes} minutes) → stop, replace |\n` +
  `| Proceed with available | After ${attempts} attempts → proceed with artifacts |\n| Other row | ignored ${minutes} |\n\n`;
/** The skills the liveness table is shared by: execute's is its own. */
const LIVE = ["design", "improve", "recon"];
const fallback = (first = "Read the errors, fix them; re-run finalize.", second = "If the structure is broken: rebuild it.") =>
  `**Fallback** (if finalize fails):\n1. ${first}\n2. ${second}\n\nMore text.\n`;

function skillFile(skill: string, parts: { setup?: string; liveness?: string; fallback?: string } = {}): string {
  return `---\nname: ${skill}\n---\n# ${skill}\n\n${parts.setup ?? setup(skill)}\n## Liveness\n\n${parts.liveness ?? liveness(3, 2)}` +
    `## Finalize\n\n${parts.fallback ?? fallback()}`;
}

function skills(over: Record<string, string | null> = {}): Record<string, string> {
  const files: Record<string, string> = {};
  for (const s of SKILLS) {
    const text = s in over ? over[s] : skillFile(s);
    if (text !== null) files[`skills/${s}/SKILL.md`] = text;
  }
  return files;
}

const hash8 = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 8);

describe("sync-check", () => {
  it("reports every block synced across identical skills", async (t) => {
    const out = await project(t, skills()).run("sync-check");
    assert.deepEqual(out, {
      ok: true,
      synced: [
        { block: "Script Setup", skills: SKILLS, present_in: 5 },
        { block: "Liveness Pipeline Table", skills: LIVE, present_in: 3 },
        { block: "Finalize Fallback", skills: SKILLS, present_in: 5 },
      ],
      drifted: [],
      skills_checked: SKILLS,
      exitCode: 0,
    });
  });

  it("tolerates the differences the normalisers abstract away, and CRLF files", async (t) => {
    const out = await project(t, skills({
      execute: skillFile("execute", { setup: setup("execute", "python3"), liveness: liveness(5, 4) }).replace(/\n/g, "\r\n"),
      recon: skillFile("recon", { fallback: fallback("Fix the errors the helper printed, then re-run finalize.", "If JSON has an error; rebuild.") }),
    })).run("sync-check");
    assert.equal(out.ok, true);
    assert.equal((out.synced as unknown[]).length, 3);
  });

  it("reports a drifted block with one content hash per skill and exits 1 [Fix D9]", async (t) => {
    const drifting = skillFile("improve", { setup: setup("improve").replace("PLAN_CLI=", "export PLAN_CLI=") });
    const out = await project(t, skills({ improve: drifting })).run("sync-check");
    assert.equal(out.ok, false);
    assert.equal(out.exitCode, 1);
    assert.equal(out.error, "drift detected in 1 shared block(s)");
    const normal = "PLAN_CLI=skills/{SKILL}/scripts/plan.js node $PLAN_CLI team-name {SKILL}";
    const changed = `export ${normal}`;
    assert.deepEqual(out.drifted, [
      {
        block: "Script Setup",
        skills: SKILLS,
        drift: SKILLS.map((s) => ({ skill: s, content_hash: hash8(s === "improve" ? changed : normal) })),
      },
    ]);
    assert.equal((out.synced as unknown[]).length, 2);
    assert.deepEqual(out.skills_checked, SKILLS);
  });

  it("compares a block only where it is found, and reports a block found nowhere", async (t) => {
    const noLiveness = (s: string) => skillFile(s, { liveness: "No table here.\n\n" });
    const out = await project(t, skills({
      design: noLiveness("design"),
      execute: skillFile("execute", { liveness: "", fallback: "" }),
      improve: noLiveness("improve"),
      recon: noLiveness("recon"),
      reflect: noLiveness("reflect"),
    })).run("sync-check");
    assert.equal(out.error, "drift detected in 1 shared block(s)");
    assert.deepEqual(out.drifted, [{ block: "Liveness Pipeline Table", skills: LIVE, issue: "block not found in any skill file" }]);
    assert.deepEqual((out.synced as any[]).map((b) => [b.block, b.skills, b.present_in]), [
      ["Script Setup", SKILLS, 5],
      ["Finalize Fallback", ["design", "improve", "recon", "reflect"], 4],
    ]);
  });

  it("requires every SKILL.md, naming the first missing skill", async (t) => {
    const out = await project(t, skills({ improve: null, reflect: null })).run("sync-check");
    assert.equal(out.error, "Missing SKILL.md for skill: improve");
    assert.equal(out.exitCode, 1);
  });

  it("requires the skills directory", async (t) => {
    const p = project(t, { "file": "x" });
    assert.equal((await p.run("sync-check")).error, "Skills directory not found: skills/");
    assert.equal((await p.run("sync-check", ["file"])).error, "Skills directory not found: file");
  });

  it("takes another skills directory as an argument", async (t) => {
    const files: Record<string, string> = {};
    for (const [k, v] of Object.entries(skills())) files[k.replace(/^skills\//, "plugin/skills/")] = v;
    assert.equal((await project(t, files).run("sync-check", ["plugin/skills"])).ok, true);
  });
});

describe("sync-check normalisers (contract 4.15 step 3)", () => {
  it("Script Setup: skill names become {SKILL} and the team-name assignment goes, for python3 and node", () => {
    const py = "PLAN_CLI=skills/recon/scripts/plan.py\nTEAM_NAME=$(python3 $PLAN_CLI team-name recon).teamName\n  python3 $PLAN_CLI   team-name recon\n";
    assert.equal(normalizeScriptSetup(py), "PLAN_CLI=skills/{SKILL}/scripts/plan.py python3 $PLAN_CLI team-name {SKILL}");
    const node = "PLAN_CLI=skills/reflect/scripts/plan.js\nTEAM_NAME=$(node $PLAN_CLI team-name reflect).teamName   \n";
    assert.equal(normalizeScriptSetup(node), "PLAN_CLI=skills/{SKILL}/scripts/plan.js");
    assert.equal(normalizeScriptSetup("TEAM_NAME=$(bun $PLAN_CLI team-name design).teamName"), "TEAM_NAME=$(bun $PLAN_CLI team-name {SKILL}).teamName");
    assert.equal(normalizeScriptSetup("skills/other/x"), "skills/other/x");
  });

  it("Liveness table: only the stalled and proceed rows count, in that order; counting turns is marked", () => {
    const rows = "| Proceed with available | after 9 tries |\n  | Stalled | stop it |\n| Spawn | x |\n";
    assert.equal(normalizeLiveness(rows), "| Stalled | ACTION | | Proceed with available | After N attempts → proceed with artifacts |");
    assert.equal(normalizeLiveness("| Stalled | x |\n"), "| Stalled | ACTION |");
    assert.equal(normalizeLiveness("| Spawn | x |\n"), "");
    for (const row of ["| Silence | No report after 2 of your turns → ping |", "| Turn timeout (3 turns) | stop |", "| Stalled | silent for three turns |"]) {
      assert.equal(normalizeLiveness(`| Stalled | x |\n${row}\n`), "| Stalled | ACTION | | COUNTS TURNS |", row);
    }
  });

  it("a liveness table that counts the lead's turns drifts from the clock's; execute's own table is not compared", async (t) => {
    const counting = "| Rule | Action |\n|---|---|\n| Stalled | after 3 of your turns → stop |\n| Proceed with available | After 2 attempts → proceed with artifacts |\n\n";
    const out = await project(t, skills({ recon: skillFile("recon", { liveness: counting }) })).run("sync-check");
    assert.equal(out.ok, false);
    assert.deepEqual((out.drifted as any[]).map((d) => [d.block, d.skills]), [["Liveness Pipeline Table", LIVE]]);
    const own = "| Rule | Action |\n|---|---|\n| Turn timeout (3 turns) | stop |\n\n";
    assert.equal((await project(t, skills({ execute: skillFile("execute", { liveness: own }) })).run("sync-check")).ok, true);
  });

  it("Finalize fallback: the first two lines reduced to their intent, punctuation runs become one comma", () => {
    assert.equal(
      normalizeFallback("1. Read the error output; fix it.\n2. If the JSON is broken, rebuild.\n3. Ignored.\n"),
      "N. Fix validation errors and re-run finalize. N. If structure broken, rebuild.",
    );
    assert.equal(normalizeFallback("1. Ask the user:  why?\n2. Stop;; now, please\n"), "1. Ask the user, why? 2. Stop, now, please");
    assert.equal(normalizeFallback("1. Only one line\n"), "1. Only one line\n");
  });
});
