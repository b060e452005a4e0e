// The links between the skills' declared features (skills/<name>/skill.json) and the tests that exercise them: a
// test names each feature it exercises in its title, `[feature:<skill>/<feature>]` (several tags allowed; a tag on
// a describe covers its tests). test/plugin/features.test.ts fails on a feature no test names, a tag naming no
// declared feature, and a tag anywhere but in a test's title.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { testTitles } from "./ts-source.ts";

export const FEATURE_TAG = /\[feature:([a-z0-9-]+)\/([a-z0-9-]+)\]/g;

export interface FeatureLink {
  /** Repository-relative test file. */
  file: string;
  /** The title as written (quotes or backticks included). */
  title: string;
  skill: string;
  feature: string;
}

/** The tags in one test file's titles, and how many tags stand anywhere else in it. */
export function featureLinks(file: string, source: string): { links: FeatureLink[]; stray: number } {
  const links: FeatureLink[] = [];
  for (const title of testTitles(source)) {
    for (const m of title.matchAll(FEATURE_TAG)) links.push({ file, title, skill: m[1], feature: m[2] });
  }
  return { links, stray: [...source.matchAll(FEATURE_TAG)].length - links.length };
}

/** Every `*.test.ts` under `dir`, the e2e suite's included, as paths relative to `root`. */
export function testFiles(root: string, dir = join(root, "test")): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...testFiles(root, p));
    else if (e.name.endsWith(".test.ts")) out.push(relative(root, p).split("\\").join("/"));
  }
  return out.sort();
}

/** The links of every test file under `root`/test, and the files holding tags outside a title. */
export function allLinks(root: string): { links: FeatureLink[]; strays: { file: string; count: number }[] } {
  const links: FeatureLink[] = [];
  const strays: { file: string; count: number }[] = [];
  for (const file of testFiles(root)) {
    const r = featureLinks(file, readFileSync(join(root, file), "utf8"));
    links.push(...r.links);
    if (r.stray > 0) strays.push({ file, count: r.stray });
  }
  return { links, strays };
}

/**
 * What is wrong with the links, one sentence each: a declared feature that no test names, a tag naming a skill or
 * feature that is not declared, a tag outside a test title. `declared` maps each skill to its feature names.
 */
export function linkProblems(declared: Readonly<Record<string, readonly string[]>>, links: readonly FeatureLink[], strays: readonly { file: string; count: number }[] = []): string[] {
  const problems: string[] = [];
  for (const [skill, names] of Object.entries(declared)) {
    for (const name of names) {
      if (!links.some((l) => l.skill === skill && l.feature === name)) {
        problems.push(`${skill}/${name}: no test exercises it (name it in a test's title as [feature:${skill}/${name}])`);
      }
    }
  }
  for (const l of links) {
    if (!(declared[l.skill] ?? []).includes(l.feature)) {
      problems.push(`${l.file}: ${l.title} names ${l.skill}/${l.feature}, which skills/${l.skill}/skill.json does not declare`);
    }
  }
  for (const s of strays) problems.push(`${s.file}: ${s.count} feature tag(s) outside a test title`);
  return problems;
}
