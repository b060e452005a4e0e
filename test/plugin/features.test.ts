// Each skill declares its goal, acceptance criteria and features in skills/<name>/skill.json (seed 004), which
// Claude Code does not read (test/e2e/skills.test.ts). Every feature must be exercised by a test that names it in
// its title, [feature:<skill>/<feature>]; every name a test gives must be a declared feature.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SkillFeaturesSchema, type SkillFeatures } from "../../src/schemas/skill-features.ts";
import { FEATURE_FILE } from "../../src/lib/skills/skill-index.ts";
import { allLinks, featureLinks, linkProblems } from "../helpers/features.ts";
import { ROOT, SKILLS } from "./plugin-files.ts";

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

function headings(markdown: string): string[] {
  return [...markdown.matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*$/gm)].map((m) => anchor(m[1]));
}

function load(skill: string): SkillFeatures {
  const file = join(ROOT, "skills", skill, FEATURE_FILE);
  assert.ok(existsSync(file), `skills/${skill}/${FEATURE_FILE} is missing`);
  const parsed = SkillFeaturesSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  assert.ok(parsed.success, `skills/${skill}/${FEATURE_FILE}: ${parsed.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return parsed.data;
}

/** A tag built at run time, so that this file's own source holds none outside a title. */
const tag = (skill: string, feature: string) => `[${"feature"}:${skill}/${feature}]`;

describe("feature files", () => {
  for (const skill of SKILLS) {
    describe(`skills/${skill}/${FEATURE_FILE}`, () => {
      it("validates against the skill-features schema", () => {
        const f = load(skill);
        assert.ok(f.features.length >= 5, `${skill} declares only ${f.features.length} features`);
      });

      it("points each feature at a SKILL.md section and a script that exist", () => {
        const body = readFileSync(join(ROOT, "skills", skill, "SKILL.md"), "utf8");
        const anchors = headings(body);
        for (const feature of load(skill).features) {
          for (const part of feature.ext?.skill_md_ref?.slice(1).split("/") ?? []) {
            assert.ok(anchors.includes(part), `${feature.name}: no SKILL.md heading #${part} (headings: ${anchors.join(", ")})`);
          }
          if (feature.ext?.script) assert.ok(existsSync(join(ROOT, "skills", skill, feature.ext.script)), `${feature.name}: ${feature.ext.script}`);
          assert.equal(feature.ext?.subskill, undefined, `${feature.name}: the plugin's skills have no sub-skills`);
        }
      });
    });
  }

  it("are each exercised by a test that names it, and every feature a test names is declared", (t) => {
    const declared = Object.fromEntries(SKILLS.map((s) => [s, load(s).features.map((f) => f.name)]));
    const { links, strays } = allLinks(ROOT);
    assert.deepEqual(linkProblems(declared, links, strays), []);
    t.diagnostic(`${links.length} links from ${new Set(links.map((l) => l.file)).size} test files to ${Object.values(declared).flat().length} features`);
  });
});

describe("the feature link check", () => {
  const declared = { execute: ["retry-one-tier-up", "no-plan"], design: ["draft-then-finalize"] };

  it("reads tags from test and suite titles only: quoted, templated, several per title, in the golden suite's step()", () => {
    const source = [
      `describe("execute ${tag("execute", "no-plan")}", () => {`,
      `  it(\`retries \${x} one tier up ${tag("execute", "retry-one-tier-up")} ${tag("design", "draft-then-finalize")}\`, () => {});`,
      `  step('a golden step ${tag("design", "draft-then-finalize")}', async () => {});`,
      `  it.skip("skipped but linked ${tag("execute", "no-plan")}", () => {});`,
      "});",
    ].join("\n");
    const r = featureLinks("test/x.test.ts", source);
    assert.equal(r.stray, 0);
    assert.deepEqual(
      r.links.map((l) => `${l.skill}/${l.feature}`),
      ["execute/no-plan", "execute/retry-one-tier-up", "design/draft-then-finalize", "design/draft-then-finalize", "execute/no-plan"],
    );
    assert.deepEqual(linkProblems(declared, r.links), []);
  });

  it("fails a declared feature that no test names", () => {
    const r = featureLinks("test/x.test.ts", `it("only one ${tag("execute", "no-plan")}", () => {});`);
    assert.deepEqual(linkProblems(declared, r.links), [
      `execute/retry-one-tier-up: no test exercises it (name it in a test's title as ${tag("execute", "retry-one-tier-up")})`,
      `design/draft-then-finalize: no test exercises it (name it in a test's title as ${tag("design", "draft-then-finalize")})`,
    ]);
  });

  it("fails a test that names a feature or a skill that is not declared", () => {
    const source = [
      `it("a ${tag("execute", "no-plan")} ${tag("execute", "retry-one-tier-up")} ${tag("design", "draft-then-finalize")}", () => {});`,
      `it("b ${tag("execute", "retry-up-two-tiers")}", () => {});`,
      `it("c ${tag("deploy", "ship-it")}", () => {});`,
    ].join("\n");
    const problems = linkProblems(declared, featureLinks("test/x.test.ts", source).links);
    assert.deepEqual(problems, [
      `test/x.test.ts: "b ${tag("execute", "retry-up-two-tiers")}" names execute/retry-up-two-tiers, which skills/execute/skill.json does not declare`,
      `test/x.test.ts: "c ${tag("deploy", "ship-it")}" names deploy/ship-it, which skills/deploy/skill.json does not declare`,
    ]);
  });

  it("fails a tag outside a test title: in a comment, an assertion message or a helper's name", () => {
    const source = [
      `// covers ${tag("execute", "no-plan")}`,
      `it("a ${tag("execute", "no-plan")} ${tag("execute", "retry-one-tier-up")} ${tag("design", "draft-then-finalize")}", () => {`,
      `  assert.ok(true, "${tag("execute", "no-plan")}");`,
      "});",
      `helper("${tag("execute", "no-plan")}");`,
    ].join("\n");
    const r = featureLinks("test/x.test.ts", source);
    assert.equal(r.stray, 3);
    assert.deepEqual(linkProblems(declared, r.links, [{ file: "test/x.test.ts", count: r.stray }]), ["test/x.test.ts: 3 feature tag(s) outside a test title"]);
  });

  it("derives SKILL.md anchors the way GitHub does", () => {
    assert.equal(anchor("1. Pre-flight"), "1-pre-flight");
    assert.equal(anchor("8. Reflect and report"), "8-reflect-and-report");
    assert.equal(anchor("Script Setup"), "script-setup");
    assert.deepEqual(headings("# Execute\n\n## 4. Workers\ntext\n### Script Setup\n"), ["execute", "4-workers", "script-setup"]);
  });
});
