// run-begin starts each skill's run with the phase list the helper knows (SKILL_PHASES in src/lib/run-state.ts): it
// must be the skill's `## N. Name` sections in kebab-case, in order, or a checkpoint the SKILL.md writes would be
// refused as an unknown phase.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SKILL_PHASES, SKILLS } from "../../src/lib/run-state.ts";

const ROOT = resolve(__dirname, "../..");

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
