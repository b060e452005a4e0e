// The links between the skills' acceptance criteria (skills/<name>/skill.json `acceptance_criteria`, seed 004) and
// the tests that assert them: a test names each criterion it asserts in its title, `[ac:<skill>/<n>]`, n counting
// the skill's criteria from 1 (several tags allowed; a tag on a describe covers its tests), as `[feature:…]` tags name
// features (features.ts). test/plugin/acceptance.test.ts fails on a criterion no test names, a tag naming no
// criterion, and a tag anywhere but in a test's title.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { testFiles } from "./features.ts";
import { testTitles } from "./ts-source.ts";

export const AC_TAG = /\[ac:([a-z0-9-]+)\/(\d+)\]/g;

export interface AcLink {
  file: string;
  title: string;
  skill: string;
  n: number;
}

/** The criterion tags in the titles of every test file under `root`/test, and the files holding tags elsewhere. */
export function acLinks(root: string): { links: AcLink[]; strays: Array<{ file: string; count: number }> } {
  const links: AcLink[] = [];
  const strays: Array<{ file: string; count: number }> = [];
  for (const file of testFiles(root)) {
    const source = readFileSync(join(root, file), "utf8");
    let inTitles = 0;
    for (const title of testTitles(source)) {
      for (const m of title.matchAll(AC_TAG)) {
        links.push({ file, title, skill: m[1], n: Number(m[2]) });
        inTitles++;
      }
    }
    const all = [...source.matchAll(AC_TAG)].length;
    if (all > inTitles) strays.push({ file, count: all - inTitles });
  }
  return { links, strays };
}

/** What is wrong with the links, one sentence each (`criteria`: each skill's acceptance criteria, in order). */
export function acProblems(criteria: Readonly<Record<string, readonly string[]>>, links: readonly AcLink[], strays: ReadonlyArray<{ file: string; count: number }> = []): string[] {
  const problems: string[] = [];
  for (const [skill, list] of Object.entries(criteria)) {
    list.forEach((text, i) => {
      if (!links.some((l) => l.skill === skill && l.n === i + 1)) problems.push(`${skill}/${i + 1} ("${text}"): no test asserts it (name it in a test's title as [ac:${skill}/${i + 1}])`);
    });
  }
  for (const l of links) {
    const list = criteria[l.skill];
    if (!list || l.n < 1 || l.n > list.length) problems.push(`${l.file}: ${l.title} names ${l.skill}/${l.n}, which skills/${l.skill}/skill.json does not hold`);
  }
  for (const s of strays) problems.push(`${s.file}: ${s.count} criterion tag(s) outside a test title`);
  return problems;
}
