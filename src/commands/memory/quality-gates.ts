// memory-add's specificity and surprise gates (seed 001: the curator's gates 5 and 3), applied by the helper to every
// new memory, the curator's and /do:remember's alike:
//
//   specificity  the content names something concrete a later session can act on: an identifier, a path, a command
//                or flag, an environment variable, a version or number, a quoted term, a name (a capitalised word
//                inside a sentence), or one of the entry's own keywords when that keyword is not a generic word. Each
//                keyword is something a search can match: not a single Latin letter or digit, not only generic words
//                ("stuff", "misc", "tests"). "stuff" with keyword "x" fails; "Be careful with tests" fails; "npm test
//                needs DATABASE_URL" passes.
//   surprise     importance is scored by how unexpected the learning was. That is the curator's judgement, so the
//                helper asks for its record: an importance of HIGH_IMPORTANCE or more needs `surprise`, a sentence
//                saying what was unexpected; without it the entry is refused (lower the importance, or say why).
//                A curator report that scores three or more memories all alike is refused whole by curator-apply
//                (`uniformImportance`): the seed's "not uniform".
//
// Compiled on first use (memory-add and curator-apply are the only callers).

/** From this importance on, a memory records what surprised (`surprise`). */
export const HIGH_IMPORTANCE = 7;
/** The fewest words a surprise sentence has. */
const MIN_SURPRISE_WORDS = 4;

/** Words that name no particular thing: a keyword of only these, or content concrete only through them, fails. */
const GENERIC_WORDS =
  "stuff thing things misc miscellaneous general other others various etc note notes todo info information issue issues problem problems " +
  "bug bugs fix fixes tip tips test tests code coding careful important remember memory learning lesson lessons work working change changes " +
  "project projects file files task tasks general-purpose something anything everything";
let GENERIC_SET: Set<string> | undefined;
const generic = (w: string) => (GENERIC_SET ??= new Set(GENERIC_WORDS.split(" "))).has(w);

// Each pattern has two forms: the Unicode one, and for an all-ASCII text (nearly every memory) the same pattern with
// each Unicode property written as its ASCII members (on ASCII input \p{L} is A-Za-z, \p{N} 0-9, \p{Ll} a-z, \p{Lu}
// A-Z, and the Latin script's letters are A-Za-z). Compiling a property class costs ~1 ms of CPU each; the ASCII
// forms next to nothing. test/unit/quality-gates-ascii.test.ts checks both forms agree on ASCII texts.
export interface Classes {
  L: string;
  N: string;
  Ll: string;
  Lu: string;
  flags: string;
}
export const UNICODE: Classes = { L: "\\p{L}", N: "\\p{N}", Ll: "\\p{Ll}", Lu: "\\p{Lu}", flags: "u" };
export const ASCII: Classes = { L: "A-Za-z", N: "0-9", Ll: "a-z", Lu: "A-Z", flags: "" };
const NOT_ASCII = /[^\x00-\x7f]/;
const classesFor = (text: string): Classes => (NOT_ASCII.test(text) ? UNICODE : ASCII);

/** The concrete-reference pattern written with one set of classes (exported for the test of the two forms). */
export function concretePattern(c: Classes): RegExp {
  const { L, N, Ll, Lu } = c;
  return new RegExp(
    [
      "`[^`\\n]+`", // `code`
      `"[^"\\n]{2,}"|“[^”\\n]{2,}”|(?<![${L}])'[^'\\n\\s][^'\\n]*[^'\\n\\s]'(?![${L}])`, // a quoted term
      `(?<![${L}${N}])--?[a-z][\\w-]+`, // a flag
      "\\$\\{?[A-Za-z_]\\w*", // an environment variable
      `(?<![${L}${N}])[A-Z][A-Z0-9]*_[A-Z0-9_]+(?![${L}${N}])`, // DATABASE_URL
      `(?<![${L}${N}])[A-Z]{2,}[0-9]*(?![${L}${N}])`, // an acronym: API, CI, HTTP2
      `[${L}${N}_]+(?:[./:\\\\][${L}${N}_-]+)+`, // a path, a dotted name, a URL, a scoped call
      `[${L}${N}]+(?:_[${L}${N}]+)+`, // snake_case
      "[a-z]+[A-Z][A-Za-z0-9]*", // camelCase
      `[${N}]`, // a version, a port, a limit
      `(?<=[${Ll},;:]\\s+)[${Lu}][${Ll}]+`, // a name inside a sentence: Postgres, Docker
    ].join("|"),
    c.flags,
  );
}
const CONCRETE = new Map<Classes, RegExp>();
const LETTERS = new Map<Classes, RegExp>();
let LATIN_ONLY: RegExp | undefined;
const ASCII_KEYWORD = /^[A-Za-z0-9_-]+$/;

/** The first concrete reference in `content`, or null. */
export function concreteReference(content: string, keywords: readonly string[]): string | null {
  const c = classesFor(content);
  let re = CONCRETE.get(c);
  if (!re) CONCRETE.set(c, (re = concretePattern(c)));
  const m = re.exec(content);
  if (m) return m[0];
  const lower = content.toLowerCase();
  for (const k of keywords) {
    const key = k.toLowerCase();
    if (key.length >= 2 && !generic(key) && lower.includes(key)) return k;
  }
  return null;
}

/** Why the keywords give a search nothing to match, or null. */
export function keywordProblem(keywords: readonly string[]): string | null {
  const latinOnly = (k: string) => (NOT_ASCII.test(k) ? (LATIN_ONLY ??= /^[\p{Script=Latin}\p{N}_-]+$/u).test(k) : ASCII_KEYWORD.test(k));
  const tooShort = keywords.filter((k) => latinOnly(k) && k.replace(/[_-]/g, "").length < 2);
  if (tooShort.length) return `keyword${tooShort.length === 1 ? "" : "s"} ${tooShort.map((k) => `'${k}'`).join(", ")} too short for a search to match: use the words the learning is about`;
  if (keywords.every((k) => generic(k.toLowerCase()))) return `keywords ${keywords.map((k) => `'${k}'`).join(", ")} name nothing in particular: use the tool, file, command or subject the learning is about`;
  return null;
}

/** Why the content is not specific (gate 5), or null. */
export function specificityProblem(content: string, keywords: readonly string[]): string | null {
  const c = classesFor(content);
  let letters = LETTERS.get(c);
  if (!letters) LETTERS.set(c, (letters = new RegExp(`[${c.L}${c.N}]+`, `g${c.flags}`)));
  const words = content.match(letters) ?? [];
  // A script written without spaces (Chinese, Japanese) is one "word" per phrase: count its characters instead.
  const size = words.length >= 2 ? words.length : [...content.replace(/\s/g, "")].length >= 6 ? 2 : words.length;
  if (size < 2) return "the content is too short to say anything a later session can act on";
  if (concreteReference(content, keywords) === null) {
    return "the content names nothing concrete (a file, command, flag, API, tool, error message, setting or version): say which one";
  }
  return null;
}

/** Why an importance needs its recorded surprise (gate 3), or null. */
export function surpriseProblem(importance: number, surprise: string): string | null {
  if (importance < HIGH_IMPORTANCE) return null;
  const words = surprise.trim().split(/\s+/).filter(Boolean).length;
  if (words >= MIN_SURPRISE_WORDS || (words >= 1 && [...surprise.trim()].length >= 8 && !/\s/.test(surprise.trim()))) return null;
  return (
    `importance ${importance} is for a surprise: record what was unexpected as "surprise" (a sentence), ` +
    `or score it below ${HIGH_IMPORTANCE} (what any engineer would assume scores 1-3)`
  );
}

/** Whether a batch of new memories all carry one importance (three or more): the seed's "not uniform". */
export function uniformImportance(importances: readonly number[]): number | null {
  if (importances.length < 3) return null;
  return importances.every((i) => i === importances[0]) ? importances[0] : null;
}
