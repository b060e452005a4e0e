// The memory tokenizer (src/commands/memory/tokens.ts): what memory-add's duplicate gate and memory-search compare.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ByteTokens } from "../../src/commands/memory/byte-tokens.ts";
import { fnvOf } from "../../src/commands/memory/dup-index.ts";
import { contentSimilarity } from "../../src/commands/memory/scoring.ts";
import { fold, isSpecific, isStopword, tokens } from "../../src/commands/memory/tokens.ts";

const FIXTURES = join(import.meta.dirname, "../fixtures/memory");
const sorted = (text: string) => [...tokens(text)].sort();

describe("memory tokens", () => {
  it("keeps short technical words and drops stopwords and single letters", () => {
    assert.deepEqual(sorted("Use go and CI for the db, a job"), ["ci", "db", "go", "job", "use"]);
    assert.deepEqual(sorted("the and of it is"), []);
    assert.ok(isStopword("the") && !isStopword("go") && !isStopword("ci"));
    assert.deepEqual(sorted("retry 3 times"), ["3", "retr", "time"], "a lone digit is a token, a lone letter is not");
  });

  it("keeps hyphenated, dotted and snake_case terms whole and as their words; identifiers stay apart", () => {
    assert.deepEqual(sorted("proper-lockfile"), ["lockfil", "proper", "proper-lockfile"]);
    assert.deepEqual(sorted("REDIS_URL"), ["redi", "redis_url", "url"], "redis is stemmed like a plural; the identifier stays whole");
    assert.ok(!tokens("set REDIS_URL").has("database_url") && tokens("set DATABASE_URL").has("database_url"));
    assert.deepEqual(sorted("node.js 2.1.330"), ["1", "2", "2.1.330", "330", "js", "node", "node.js"]);
    assert.deepEqual(sorted("pass --frozen-lockfile"), ["--frozen-lockfile", "frozen", "frozen-lockfile", "lockfil", "pass"]);
    assert.deepEqual(sorted("e.g. this"), [], "e.g is a stopword, whole or in parts");
  });

  it("stems English inflections to a common prefix of the words", () => {
    for (const [words, stem] of [
      ["retry retries retried retrying", "retr"],
      ["cache caches cached caching", "cach"],
      ["test tests tested testing", "test"],
      ["run running runs", "run"],
      ["api apis", "api"],
      ["status", "status"],
      ["analysis", "analysis"],
    ] as const) {
      assert.deepEqual(sorted(words), [stem], words);
      for (const w of words.split(" ")) assert.ok(w.startsWith(stem), `${stem} is a prefix of ${w}`);
    }
  });

  it("reads Cyrillic words and reduces Russian endings", () => {
    assert.deepEqual(sorted("миграции миграций миграцию"), ["миграц"]);
    assert.ok(tokens("Перед запуском тестов").has("запуск"));
    assert.deepEqual(sorted("и в на что"), [], "Russian stopwords");
  });

  it("folds case, accents and compatibility forms (NFKC)", () => {
    assert.deepEqual(tokens("Café ÉCHOUÉ"), tokens("cafe echoue"));
    assert.deepEqual(tokens("Größe"), tokens("grosse"));
    assert.deepEqual(tokens("ＡＰＩ ｆｉｌｅ"), tokens("API file"), "full-width letters");
    assert.equal(fold("Ünïcödé"), "unicode");
    assert.equal(fold("ёлка"), "елка");
  });

  it("splits CJK text into character bigrams (and Han characters), Japanese particles breaking the runs", () => {
    assert.deepEqual(sorted("設定する"), ["定", "設", "設定"], "する is inflection: dropped");
    assert.deepEqual(sorted("キャッシュ"), ["キャ", "ッシ", "シュ", "ャッ"].sort());
    assert.deepEqual(sorted("缓存键"), ["存", "存键", "缓", "缓存", "键"]);
    assert.deepEqual(sorted("CIでnpm testを実行"), ["ci", "npm", "test", "実", "実行", "行"]);
    assert.ok(tokens("테스트 문장").has("테스"), "Hangul too");
    assert.deepEqual(sorted("𠀋𠀌"), ["𠀋", "𠀋𠀌", "𠀌"], "Han beyond the BMP");
  });

  it("marks numbers, identifiers, file names and flags as specific", () => {
    for (const t of ["5432", "redis_url", "plan.js", "--boost", "2.1.330"]) assert.ok(isSpecific(t), t);
    for (const t of ["redis", "cach", "設定"]) assert.ok(!isSpecific(t), t);
  });
});

describe("memory similarity (the duplicate gate's measure)", () => {
  it("is 0 between texts that each name an identifier, number or flag the other lacks", () => {
    assert.equal(contentSimilarity("npm test needs DATABASE_URL set before it runs.", "npm test needs REDIS_URL set before it runs."), 0);
    assert.equal(contentSimilarity("Postgres listens on port 5432.", "Postgres listens on port 6379."), 0);
    assert.equal(contentSimilarity("Use memory-add --from for user text.", "Use memory-add --boost for user text."), 0);
    assert.ok(contentSimilarity("npm test needs DATABASE_URL set", "npm test fails without DATABASE_URL") > 0.35, "one side's extra identifier alone does not");
  });

  it("tells two different Japanese learnings apart, where ASCII words alone made them equal", () => {
    const a = "CIではnpm testの前にビルドが必要。";
    const b = "npm testはCIのキャッシュが壊れると遅くなる。";
    assert.ok(contentSimilarity(a, b) < 0.35, String(contentSimilarity(a, b)));
  });
});

describe("the duplicate index's byte tokenizer", () => {
  it("gives exactly the token hashes of tokens() for every content of the fixtures and for generated texts", () => {
    const texts: string[] = [];
    for (const p of JSON.parse(readFileSync(join(FIXTURES, "pairs.json"), "utf8"))) texts.push(p.a, p.b);
    for (const s of JSON.parse(readFileSync(join(FIXTURES, "session-specific.json"), "utf8"))) texts.push(s.text);
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pieces = ["a", "A", "--", "-", ".", "_", "e.g.", "I.E", "x", "9", "retries", "RUNNING", "node.js", "--pool=forks", "REDIS_URL", " ", ",", "the", "3.5", "-x-", "a--b", "---c", "ids", "IDs", "é", "テスト", "\\n"];
    for (let i = 0; i < 5000; i++) texts.push(Array.from({ length: 1 + Math.floor(rnd() * 10) }, () => pieces[Math.floor(rnd() * pieces.length)]).join(rnd() < 0.5 ? "" : " "));
    const table = new ByteTokens();
    let ascii = 0;
    for (const text of texts) {
      const bytes = Buffer.from(`"${text}"`, "utf8");
      if (!table.scan(bytes, 1, bytes.length - 1)) {
        assert.match(text, /[^\x00-\x7f]|\\/, "only a text that is not ASCII, or holds a backslash, is left to tokens()");
        continue;
      }
      ascii++;
      const want = [...tokens(text)].map((t) => fnvOf(t) & 0xff).sort((x, y) => x - y);
      assert.deepEqual([...table.out.subarray(0, table.n)].sort((x, y) => x - y), want, JSON.stringify(text));
    }
    assert.ok(ascii > 3000, `ASCII texts checked: ${ascii}`);
  });
});

describe("memory-search's shortcut", () => {
  it("counts exactly the query tokens among the tokens of keywords and content, on generated texts", async () => {
    const { searchQuery, searchScore } = await import("../../src/commands/memory/scoring.ts");
    let seed = 11;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pieces = ["retry", "Retries", "retrieve", "cache-key", "--from", "from", "node.js", "js", "a--b", "x.y.z", "REDIS_URL", "redis", "-", ".", "_", " ", ",", "the", "ci", "CI", "3", "é", "テスト", "test", "tests"];
    const text = () => Array.from({ length: Math.floor(rnd() * 9) }, () => pieces[Math.floor(rnd() * pieces.length)]).join(rnd() < 0.4 ? "" : " ");
    let positive = 0;
    for (let k = 0; k < 3000; k++) {
      const query = searchQuery([text()]);
      if (query.size === 0) continue;
      const keywords = [text(), text()];
      const content = text();
      const mine = new Set([...tokens(`${keywords[0]} , ${keywords[1]} , `), ...tokens(content)]);
      const want = [...query].filter((t) => mine.has(t)).length / query.size / 2;
      const got = searchScore({ keywords, content, importance: 5 }, query, 0);
      assert.equal(got, want, `${JSON.stringify({ query: [...query], keywords, content })}`);
      if (want > 0) positive++;
    }
    assert.ok(positive > 500, `matches checked: ${positive}`);
  });
});
