// memory-add's content gates measured on labelled sets (test/fixtures/memory/README.md says how they were written):
// the duplicate gate on pairs of learnings, the session-specific gate on single texts. The bars are what the gates
// achieve now minus a small margin; `npm run bench quality` prints the same figures through the built helper.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DUPLICATE_THRESHOLD } from "../../src/commands/memory/add.ts";
import { contentSimilarity } from "../../src/commands/memory/scoring.ts";
import { sessionSpecific } from "../../src/commands/memory/session-gate.ts";
import { HIGH_IMPORTANCE, keywordProblem, specificityProblem, surpriseProblem, uniformImportance } from "../../src/commands/memory/quality-gates.ts";

const FIXTURES = join(import.meta.dirname, "../fixtures/memory");

interface Pair {
  id: string;
  lang: string;
  kind: string;
  duplicate: boolean;
  split: "tune" | "holdout" | "blind";
  a: string;
  b: string;
}

interface Text {
  id: string;
  lang: string;
  sessionSpecific: boolean;
  split: "tune" | "blind";
  text: string;
}

const pairs: Pair[] = JSON.parse(readFileSync(join(FIXTURES, "pairs.json"), "utf8"));
const texts: Text[] = JSON.parse(readFileSync(join(FIXTURES, "session-specific.json"), "utf8"));

function score(list: Pair[]) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const p of list) {
    const refused = contentSimilarity(p.a, p.b) >= DUPLICATE_THRESHOLD;
    if (refused && p.duplicate) tp++;
    else if (refused) fp++;
    else if (p.duplicate) fn++;
  }
  return { precision: tp / (tp + fp), recall: tp / (tp + fn) };
}

describe("the duplicate gate on labelled pairs", () => {
  it("is a set worth measuring: 150 pairs, seven languages, both labels in each", () => {
    assert.ok(pairs.length >= 150);
    for (const lang of ["en", "ja", "zh", "ru", "de", "fr", "es"]) {
      const mine = pairs.filter((p) => p.lang === lang);
      assert.ok(mine.some((p) => p.duplicate) && mine.some((p) => !p.duplicate), lang);
    }
    assert.ok(pairs.filter((p) => p.kind === "same-tool-different-fact").length >= 40);
    assert.equal(new Set(pairs.map((p) => p.id)).size, pairs.length);
  });

  it("refuses duplicates with precision >= 0.92 and recall >= 0.93 over all pairs (measured 0.949 / 0.961)", () => {
    const { precision, recall } = score(pairs);
    assert.ok(precision >= 0.92, `precision ${precision}`);
    assert.ok(recall >= 0.93, `recall ${recall}`);
  });

  it("holds on the pairs not used to choose the threshold: holdout and blind (measured 0.947 / 1.0 and 0.933 / 0.933)", () => {
    for (const split of ["holdout", "blind"] as const) {
      const { precision, recall } = score(pairs.filter((p) => p.split === split));
      assert.ok(precision >= 0.9 && recall >= 0.9, `${split}: precision ${precision}, recall ${recall}`);
    }
  });

  it("keeps the same tool's different facts apart in every language (identifier, port, number)", () => {
    for (const id of ["en-stdf01", "en-stdf02", "en-stdf03", "ja-stdf01", "zh-stdf01", "ru-stdf01", "de-stdf01", "fr-stdf01", "es-stdf01"]) {
      const p = pairs.find((x) => x.id === id) as Pair;
      assert.equal(p.duplicate, false);
      assert.ok(contentSimilarity(p.a, p.b) < DUPLICATE_THRESHOLD, `${id}: ${p.a} / ${p.b}`);
    }
  });

  it("catches rephrasings and accent-free spellings in every language it tokenises", () => {
    for (const lang of ["en", "ja", "ru", "de", "fr", "es"]) {
      const caught = pairs.filter((p) => p.lang === lang && p.duplicate && contentSimilarity(p.a, p.b) >= DUPLICATE_THRESHOLD);
      assert.ok(caught.length >= 4, `${lang}: ${caught.length}`);
    }
    for (const p of pairs.filter((x) => x.kind === "accents")) assert.equal(contentSimilarity(p.a, p.b), 1, p.id);
  });
});

describe("the session-specific gate on labelled texts", () => {
  it("never refuses a durable fact, numbers included (all 115)", () => {
    const wrong = texts.filter((t) => !t.sessionSpecific && sessionSpecific(t.text));
    assert.deepEqual(wrong.map((t) => `${t.id}: ${t.text} (${sessionSpecific(t.text)?.matched})`), []);
    assert.ok(texts.filter((t) => !t.sessionSpecific).length >= 110);
  });

  it("refuses run reports: >= 0.95 of the tuning texts (measured 79/82) and >= 0.4 of the blind ones (measured 9/20)", () => {
    const rate = (split: string) => {
      const mine = texts.filter((t) => t.split === split && t.sessionSpecific);
      return mine.filter((t) => sessionSpecific(t.text)).length / mine.length;
    };
    assert.ok(rate("tune") >= 0.95, `tune ${rate("tune")}`);
    assert.ok(rate("blind") >= 0.4, `blind ${rate("blind")}`);
  });

  it("names what gave it away, quoted as written", () => {
    assert.deepEqual(sessionSpecific("Ran 14 tests today, 3 failed."), { reason: "date", matched: "today" });
    assert.deepEqual(sessionSpecific("The build took 3m12s."), { reason: "run-metrics", matched: "3m12s" });
    assert.deepEqual(sessionSpecific("5 files changed in the refactor."), { reason: "run-metrics", matched: "5 files changed" });
    assert.deepEqual(sessionSpecific("Changed src/a.ts and src/b.ts to fix the lock."), { reason: "file-list", matched: "Changed src/a.ts and src/b.ts" });
    assert.deepEqual(sessionSpecific("Edited README.md, CHANGELOG.md and package.json"), { reason: "file-list", matched: "README.md, CHANGELOG.md, package.json" });
    assert.equal(sessionSpecific("On 2026-02-18 the staging database was reset.")?.reason, "date");
    assert.equal(sessionSpecific("Сегодня упали 3 теста.")?.reason, "date");
    assert.equal(sessionSpecific("今日はテストが3件失敗した。")?.reason, "date");
  });

  it("accepts the durable facts the issue names", () => {
    for (const text of ["Node 18+ is required.", "Postgres listens on port 5432.", "Retry at most 3 times.", "Use UTF-8 everywhere.", "When a check failed 3 times in a row, mark the role failed for good."]) {
      assert.equal(sessionSpecific(text), undefined, text);
    }
  });
});

describe("the session-specific gate and a recurring cost", () => {
  // A release checklist as a team keeps it (written for this test, after the issue-32 report of a refused one): the
  // aside says why step 3 matters, and that it happened more than once.
  const PROCEDURE =
    "Release the plugin in this order: 1. bump the version in package.json and plugin.json together; 2. run npm run " +
    "check:dist; 3. wait for CI on main before tagging (we lost a day twice to step 3 when a tag went out first); 4. push the tag.";

  it("keeps a durable procedure whose aside names a cost that recurred", () => {
    assert.equal(sessionSpecific(PROCEDURE), undefined);
    for (const aside of ["It cost us an hour every time the cache key missed the lockfile.", "Skipping the migration step lost a day more than once.", "We spent a day again and again on stale snapshots: run npm run snap:clean first."]) {
      assert.equal(sessionSpecific(aside), undefined, aside);
    }
  });

  it("still refuses one run's time spent", () => {
    for (const report of ["We lost about an hour to a stale lock file.", "The release took 8 minutes.", "Spent half a day on the flaky test in CI."]) {
      assert.equal(sessionSpecific(report)?.reason, "run-metrics", report);
    }
  });
});

describe("the specificity and surprise gates", () => {
  it("refuses content that names nothing concrete, and keywords a search cannot use", () => {
    assert.match(specificityProblem("stuff", ["x"]) ?? "", /too short/);
    assert.match(keywordProblem(["x"]) ?? "", /'x' too short/);
    assert.match(keywordProblem(["stuff", "misc"]) ?? "", /name nothing in particular/);
    assert.match(specificityProblem("Be careful with tests", ["tests"]) ?? "", /names nothing concrete/);
    assert.match(specificityProblem("Always double check your work before you finish", ["diligence"]) ?? "", /names nothing concrete/);
  });

  it("takes what names a file, command, variable, version, name or its own keyword, in any language", () => {
    for (const [content, keywords] of [
      ["npm test needs DATABASE_URL set; use npm run test:unit in acceptance checks.", ["npm-test"]],
      ["The dev server proxies /api to port 8080 through vite.config.ts", ["vite"]],
      ["Run migrations before the seed script, or it fails on missing tables", ["migrations"]],
      ["Keep the lockfile hash in the cache key of the setup-node step", ["cache"]],
      ["Builds on the runner fail unless Docker is started first", ["runner"]],
      ["Pass --frozen-lockfile in CI installs", ["pnpm"]],
      ["CIのキャッシュキーにはロックファイルのハッシュを含める。", ["キャッシュ"]],
      ["Миграции нужно запускать до сид-скрипта", ["миграции"]],
      ["Use `retry()` around registry calls", ["registry"]],
    ] as Array<[string, string[]]>) {
      assert.equal(specificityProblem(content, keywords), null, content);
      assert.equal(keywordProblem(keywords), null, keywords.join(","));
    }
    assert.equal(keywordProblem(["锁"]), null, "one Han character is a word");
  });

  it("asks an importance of 7 or more for what surprised, and nothing below", () => {
    assert.equal(surpriseProblem(6, ""), null);
    assert.match(surpriseProblem(HIGH_IMPORTANCE, "") ?? "", /record what was unexpected as "surprise"/);
    assert.match(surpriseProblem(9, "odd") ?? "", /surprise/);
    assert.equal(surpriseProblem(9, "the docs say the opposite"), null);
    assert.equal(uniformImportance([5, 5, 5]), 5);
    assert.equal(uniformImportance([5, 5]), null);
    assert.equal(uniformImportance([5, 6, 5]), null);
  });
});
