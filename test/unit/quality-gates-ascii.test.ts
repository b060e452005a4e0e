// memory-add's specificity gate compiles an ASCII form of its patterns for ASCII texts (quality-gates.ts): each
// Unicode property written as its ASCII members. These tests hold the two forms to the same answers on ASCII input,
// on generated texts built from the pieces the patterns look for and on every labelled text of the fixtures.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { ASCII, UNICODE, concretePattern, keywordProblem, specificityProblem } from "../../src/commands/memory/quality-gates.ts";

const runs = Number(process.env.DO_SOAK ? 20_000 : 2_000);

// The pieces the patterns look for, and what sits between them, so that most generated texts hit some alternative.
const piece = fc.oneof(
  fc.constantFrom("npm test", "DATABASE_URL", "API", "HTTP2", "src/app.ts", "a.b", "x:y", "snake_case", "camelCase", "--flag", "-v",
    "$HOME", "${PATH}", "`code`", "\"quoted term\"", "'it'", "'single quoted'", "v1.2.3", "42", "Postgres", "Docker", "when, Docker",
    "a; Kafka", "x\\y", "_", "__", "--", "-", "'", "\"", "`", "\n", "\t", "  ", ".", ",", ";", ":"),
  fc.stringMatching(/^[A-Za-z]{1,8}$/),
  fc.string({ unit: fc.constantFrom(..."aZ09_-./:\\'\"` \n,;$"), maxLength: 8 }),
);
const asciiText = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(" "));
const anyAscii = fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)), maxLength: 60 });

const unicode = concretePattern(UNICODE);
const ascii = concretePattern(ASCII);
const firstMatch = (re: RegExp, text: string) => {
  const m = re.exec(text);
  return m ? [m.index, m[0]] : null;
};

describe("the specificity gate's ASCII patterns", () => {
  it("find the same first concrete reference as the Unicode patterns in every ASCII text", () => {
    fc.assert(fc.property(fc.oneof(asciiText, anyAscii), (text) => {
      assert.deepEqual(firstMatch(ascii, text), firstMatch(unicode, text));
    }), { numRuns: runs });
  });

  it("count the same words", () => {
    const letters = (c: typeof ASCII) => new RegExp(`[${c.L}${c.N}]+`, `g${c.flags}`);
    fc.assert(fc.property(fc.oneof(asciiText, anyAscii), (text) => {
      assert.deepEqual(text.match(letters(ASCII)), text.match(letters(UNICODE)));
    }), { numRuns: runs });
  });

  it("judge every labelled fixture text as the Unicode form does", () => {
    const dir = join(import.meta.dirname, "../fixtures/memory");
    const texts: string[] = [];
    const collect = (v: unknown): void => {
      if (typeof v === "string") texts.push(v);
      else if (Array.isArray(v)) v.forEach(collect);
      else if (v && typeof v === "object") Object.values(v).forEach(collect);
    };
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".json"))) collect(JSON.parse(readFileSync(join(dir, f), "utf8")));
    const asciiOnes = texts.filter((t) => !/[^\x00-\x7f]/.test(t));
    assert.ok(asciiOnes.length > 100, `only ${asciiOnes.length} ASCII texts in the fixtures`);
    for (const t of asciiOnes) assert.deepEqual(firstMatch(ascii, t), firstMatch(unicode, t), t);
  });

  it("leave the gates' answers on texts in other scripts to the Unicode form", () => {
    // Not ASCII: the Unicode patterns decide (a Cyrillic name inside a sentence, a CJK phrase with a number).
    assert.equal(specificityProblem("при сбое, Postgres держит блокировку", ["postgres"]), null);
    assert.equal(specificityProblem("部署の前に 3 回リトライする", ["リトライ"]), null);
    assert.match(specificityProblem("это всё ещё плохо работает", ["сбой"]) ?? "", /names nothing concrete/);
    // A keyword of one Latin letter is too short, ASCII or accented; a one-character CJK keyword is not refused.
    assert.match(keywordProblem(["x", "retry"]) ?? "", /'x'.*too short/);
    assert.match(keywordProblem(["é", "retry"]) ?? "", /'é'.*too short/);
    assert.equal(keywordProblem(["锁", "retry"]), null);
  });
});
