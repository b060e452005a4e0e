// The memory tokenizer, shared by memory-add's duplicate gate (and its index) and memory-search. It replaces the
// contract's ASCII rule (3.7: lowercase [a-z0-9] runs of 3+ characters), which saw nothing in Japanese or Russian
// text, split `REDIS_URL` into `redis` and `url`, never matched `ci` or `go`, and kept `the`.
//
// What a token is:
// - Text is NFKC-normalised and lowercased; Latin letters lose their accents (é → e, ß → ss, œ → oe), ё → е.
// - A word is a run of letters, digits and marks (`\p{L}\p{N}\p{M}`). Words joined by `-`, `_` or `.` with no space
//   (`proper-lockfile`, `REDIS_URL`, `node.js`, `2.1.330`) form a compound: the compound is a token as written, and
//   each of its words is one too. So `REDIS_URL` and `DATABASE_URL` stay distinct while `redis` still finds both.
// - Han, Hiragana, Katakana and Hangul have no spaces between words: a run of them gives its overlapping character
//   bigrams, and each Han character alone (a Chinese rephrasing keeps most characters but breaks many bigrams).
//   Hiragana (Japanese particles and inflections: を, に, する) and the commonest Chinese function characters
//   (的, 了, 和, ...) separate the runs instead of joining them.
// - A command-line flag (`--from`) is a token of its own, beside its words.
// - Words of one letter are dropped (digits stay: `retry 3 times`), and so are stopwords (English, and the most
//   common function words of German, French, Spanish and Russian). Short technical words (`ci`, `go`, `db`) stay.
// - Words of Latin or Cyrillic letters only are reduced by a light suffix-stripping stemmer (`retries`, `retrying`
//   → `retr`; `миграции`, `миграций` → `миграц`). Every stem is a prefix of its folded word, which memory-search
//   relies on: a token of a text is a substring of the folded text that starts a word.
// - isSpecific marks the tokens that name one thing (numbers, identifiers, file names, flags): the duplicate gate
//   keeps two texts apart when each names one the other lacks.
//
// Chosen and measured on test/fixtures/memory/ (README there). No module-level work beyond a few regular
// expressions (startup is a hot path); the stopword set is built on first use.

const STOPWORDS_EN =
  "a about above after again against all almost also although always am among an and another any anyone anything are aren around as at " +
  "be became because been before being below between both but by can cannot could couldn did didn do does doesn doing don done down during " +
  "each either else etc even ever every few for from further had hadn has hasn have haven having he her here hers herself him himself his how however " +
  "i if in into is isn it its itself just least less let like ll may me might mine more most much must mustn my myself " +
  "neither no nor not now of off often on once one only onto or other others otherwise our ours ourselves out over own " +
  "per quite rather re really same shall shan she should shouldn since so some something such than that the their theirs them themselves then there " +
  "therefore these they this those though through thus to too toward towards under until up upon us ve very via was wasn we were weren what whatever when whenever where " +
  "whether which while who whom whose why will with within without won would wouldn yet you your yours yourself yourselves e.g i.e vs";
const STOPWORDS_DE =
  "der die das den dem des ein eine einen einem einer eines und oder aber auch als am an auf aus bei bis da dann dass durch fur gegen hat " +
  "haben ich im ist kein keine man mit nach nicht noch nur ob ohne sein sich sie sind so um uber unter vom von vor war wenn werden wird wie wir zu zum zur";
const STOPWORDS_FR =
  "au aux avec ce ces cette dans de des du elle en est et etre il ils je la le les leur lui mais meme ne nous on ou par pas plus pour qu que qui sa " +
  "se ses son sont sur ta te tes ton tu un une vos votre vous";
const STOPWORDS_ES =
  "al como con de del el ella ellos en era es esta este esto hay la las le les lo los mas me mi muy no nos o para pero por que se si sin " +
  "su sus te tu un una uno y ya";
const STOPWORDS_RU =
  "а без бы был была были было в вам вас во вот все всё вы да для до его ее её если есть же за и из или им их к как ко когда кто ли " +
  "мне мы на над не него нет ни но ну о об однако он она они оно от по под при с со так также такой там то тоже только у уже чем что чтобы эта эти это я";

let STOPWORDS: Set<string> | undefined;
function stopwords(): Set<string> {
  if (!STOPWORDS) {
    STOPWORDS = new Set([STOPWORDS_EN, STOPWORDS_DE, STOPWORDS_FR, STOPWORDS_ES, STOPWORDS_RU].join(" ").replace(/ё/g, "е").split(" "));
  }
  return STOPWORDS;
}

/** Whether a folded word is a stopword (exported for tests). */
export function isStopword(word: string): boolean {
  return stopwords().has(word);
}

/** Whether w[0, end) holds a vowel (a e i o u y). */
function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) {
    const c = w.charCodeAt(i);
    if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117 || c === 121) return true;
  }
  return false;
}

const ends = (w: string, n: number, suffix: string) => n >= suffix.length && w.endsWith(suffix);

/**
 * Light English-style suffix stripping for a word of Latin letters [a-z] (already folded); returns a prefix of it.
 * Plurals and 3rd person (-s, -es, -ies), -ing, -ed, -ly, then a doubled final consonant left by -ing/-ed
 * (running → run), a final -e (cache, caching, cached → cach) and -y (retry, retries → retr). Words of 3 letters
 * lose only a plural s (ids → id); shorter ones stay.
 */
function stemLatin(w: string): string {
  const n = w.length;
  if (n < 3) return w;
  const plural = w.charCodeAt(n - 1) === 115 /* s */ && !ends(w, n, "ss") && !ends(w, n, "us") && !ends(w, n, "sis") && !ends(w, n, "xis");
  if (n === 3) return plural ? w.slice(0, 2) : w;
  let len = n;
  if (ends(w, n, "sses")) len = n - 2;
  else if (n > 4 && (ends(w, n, "ies") || ends(w, n, "ied"))) len = n - 3;
  else if (plural) len = n - 1;
  let cut = false;
  const at = (k: number) => w.charCodeAt(k);
  if (len - 3 >= 3 && at(len - 3) === 105 && at(len - 2) === 110 && at(len - 1) === 103 /* ing */ && hasVowel(w, len - 3)) {
    len -= 3;
    cut = true;
  } else if (len - 2 >= 3 && at(len - 2) === 101 && at(len - 1) === 100 /* ed */ && hasVowel(w, len - 2)) {
    len -= 2;
    cut = true;
  } else if (len - 2 >= 4 && at(len - 2) === 108 && at(len - 1) === 121 /* ly */) len -= 2;
  if (cut && len >= 3 && at(len - 1) === at(len - 2)) {
    const c = at(len - 1);
    // a e i o u l s z stay doubled (see, install, pass, buzz)
    if (c !== 97 && c !== 101 && c !== 105 && c !== 111 && c !== 117 && c !== 108 && c !== 115 && c !== 122) len--;
  }
  if (len >= 5 && at(len - 1) === 101 /* e */) len--;
  else if (len >= 4 && at(len - 1) === 121 /* y */) len--;
  return len === n ? w : w.slice(0, len);
}

// Russian endings (noun, adjective and verb), longest first; one is removed, keeping a stem of 3+ letters.
const RU_ENDINGS = (
  "иями ями ами иях иям ией ием ого его ому ему ыми ими ешь ишь ете ите ала ало али ила ило или ость " +
  "ых их ая яя ое ее ые ие ый ий ой ей ую юю ом ем ам ям ах ях ов ев ью ия ию ии ть ет ют ут ит ат ят ел ал ил ла ло ли " +
  "а я о е ы и у ю ь й"
).split(" ");

function stemCyrillic(w: string): string {
  let s = w;
  if (s.length >= 6 && (s.endsWith("ся") || s.endsWith("сь"))) s = s.slice(0, -2);
  if (s.length < 5) return s;
  for (let i = 0; i < RU_ENDINGS.length; i++) {
    const e = RU_ENDINGS[i];
    if (s.length - e.length >= 3 && s.endsWith(e)) return s.slice(0, -e.length);
  }
  return s;
}

const CYRILLIC_WORD = /^[\u0430-\u044f]+$/;
const HAS_DIGIT = /[0-9]/;

/** 0: [a-z] only, 1: [a-z0-9] with a digit, 2: anything else. */
function asciiKind(w: string): number {
  let digit = false;
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c >= 97 && c <= 122) continue;
    if (c >= 48 && c <= 57) digit = true;
    else return 2;
  }
  return digit ? 1 : 0;
}

/** A single word (no joiner) as a token: undefined for one letter and stopwords; letters-only words are stemmed. */
export function wordToken(w: string): string | undefined {
  if (w.length === 1) {
    const c = w.charCodeAt(0);
    return c >= 48 && c <= 57 ? w : undefined;
  }
  if (stopwords().has(w)) return undefined;
  const kind = asciiKind(w);
  if (kind === 0) return stemLatin(w);
  if (kind === 2 && CYRILLIC_WORD.test(w)) return stemCyrillic(w);
  return w;
}

// Han (with 々 〆 ヶ), Hiragana, Katakana (with ー), Hangul syllables and jamo; astral Han through its surrogates.
const CJK = "\\u1100-\\u11ff\\u3005\\u3006\\u3040-\\u309f\\u30a0-\\u30ff\\u3130-\\u318f\\u31f0-\\u31ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\ua960-\\ua97f\\uac00-\\ud7af\\ud7b0-\\ud7ff\\uf900-\\ufaff";
const CJK_RUN = new RegExp(`(?:[${CJK}]|[\\ud840-\\ud87f][\\udc00-\\udfff])+`, "g");
const HAS_CJK = new RegExp(`[${CJK}\\ud840-\\ud87f]`);
// Inside a CJK run these separate words instead of being part of one: Hiragana (Japanese particles and inflections:
// を, に, する, ない) and the commonest Chinese function characters. Runs between them give bigrams.
const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ud840-\ud87f]/;
const CJK_SEPARATORS = /[\u3040-\u309f的了和与或及着吗呢吧啊把被也都就]+/;

/**
 * A run of CJK characters: each stretch between separators gives its bigrams and, for Han characters, the characters
 * themselves (a Chinese rephrasing keeps most characters but breaks many bigrams); a lone character stands alone.
 */
function cjkTokens(run: string, emit: (t: string) => void): void {
  const pieces = run.split(CJK_SEPARATORS);
  for (let p = 0; p < pieces.length; p++) {
    const chars = Array.from(pieces[p]);
    if (chars.length === 1) emit(chars[0]);
    else if (chars.length > 1) {
      for (let k = 0; k < chars.length; k++) {
        if (k + 1 < chars.length) emit(chars[k] + chars[k + 1]);
        if (HAN.test(chars[k])) emit(chars[k]);
      }
    }
  }
}

/**
 * A compound (`a-b_c.d`) or a plain word of text already folded, as the word pattern finds it: its tokens, with
 * repeats. The same compound always gives the same tokens (the duplicate index caches them per compound).
 */
export function compoundTokens(m: string, emit: (t: string) => void): void {
  if (m.startsWith("--")) {
    // A command-line flag (`--from`, `--pool=forks` gives `--pool`): the flag itself, then its words.
    emit(m);
    m = m.slice(2);
  }
  if (!JOINER.test(m)) {
    const t = wordToken(m);
    if (t !== undefined) emit(t);
    return;
  }
  if (!stopwords().has(m)) emit(m);
  const parts = m.split(JOINERS);
  for (let i = 0; i < parts.length; i++) {
    const t = wordToken(parts[i]);
    if (t !== undefined) emit(t);
  }
}

const JOINER = /[-._]/;
const JOINERS = /[-._]/;

const NON_ASCII = /[^\x00-\x7f]/;
const LATIN_ACCENTED = /[\u00c0-\u024f\u1e00-\u1eff]/;
const LATIN_MARKS = /([a-z])[\u0300-\u036f]+/g;
const SPECIAL_FOLDS = /[ßœæøłđё]/g;
const SPECIAL: Record<string, string> = { ß: "ss", œ: "oe", æ: "ae", ø: "o", ł: "l", đ: "d", ё: "е" };
// byte-tokens.ts finds the same compounds in bytes (memory-add's scan of a file without its index): a change to the
// word pattern or to ASCII folding goes there too (test/unit/memory-cold-scan.test.ts compares the two).
const WORDS_ASCII = /(?:--)?[a-z0-9]+(?:[-._][a-z0-9]+)*/g;
// Built on first use: V8 parses a regular expression when it is created, and the Unicode property classes here
// cost ~3 ms of CPU to parse (9 M instructions, measured), which ASCII text never needs.
let WORDS_ANY: RegExp | undefined;

/**
 * Text as the tokenizer sees it: NFKC, lowercase, Latin accents removed, a few letters spelled out (ß → ss).
 * ASCII text is only lowercased. memory-search tests query tokens against this form.
 */
export function fold(text: string): string {
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  let s = text.normalize("NFKC").toLowerCase();
  if (LATIN_ACCENTED.test(s)) s = s.normalize("NFD").replace(LATIN_MARKS, "$1").normalize("NFC");
  return s.replace(SPECIAL_FOLDS, (c) => SPECIAL[c]);
}

const DIGITS = /^[0-9]+$/;

/** The compounds of an ASCII text as written (TokenIds lowercases each before expanding it). */
const WORDS_ASCII_ANY_CASE = /(?:--)?[a-z0-9]+(?:[-._][a-z0-9]+)*/gi;

/** Every token of `text` in order, repeats included. */
export function eachToken(text: string, emit: (t: string) => void): void {
  let s = fold(text);
  let re = WORDS_ASCII;
  if (NON_ASCII.test(s)) {
    re = WORDS_ANY ??= new RegExp("(?:--)?[\\p{L}\\p{N}\\p{M}]+(?:[-._][\\p{L}\\p{N}\\p{M}]+)*", "gu");
    if (HAS_CJK.test(s)) {
      // CJK runs become bigrams and are blanked out, so the words around them are read as if spaced.
      s = s.replace(CJK_RUN, (run) => {
        cjkTokens(run, emit);
        return " ";
      });
    }
  }
  re.lastIndex = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) compoundTokens(m[0], emit);
}

/** The set of tokens of a text (empty for anything but a non-empty string). */
export function tokens(text: unknown): Set<string> {
  const out = new Set<string>();
  if (typeof text !== "string" || text === "") return out;
  eachToken(text, (t) => out.add(t));
  return out;
}

/**
 * A token that names one particular thing: it holds a digit (a port, a version, a count), is a compound joined by
 * `_` or `.` (an identifier, a file name) or is a command-line flag (`--boost`). Two texts that each name such a thing the other does not are about
 * different facts, however many other words they share (REDIS_URL / DATABASE_URL, port 5432 / 6379).
 */
export function isSpecific(token: string): boolean {
  return HAS_DIGIT.test(token) || token.includes("_") || token.includes(".") || token.startsWith("--");
}

/**
 * Token sets of many texts as small integer ids. eachToken() of an ASCII text finds its compounds (words of
 * [a-z0-9] joined by - . _, with a leading -- kept) and expands each, lowercased, with compoundTokens(), which
 * depends on the compound alone. Here each distinct compound (as written) is expanded once, by compoundTokens
 * itself, and its tokens remembered as ids; a text then costs one native match, a map lookup per compound and a
 * stamp check per token, with no set and no string per token. Memory files repeat their vocabulary, and the callers
 * read thousands of entries in a process that runs once, mostly before V8 has optimised anything. Texts that are
 * not ASCII are left to eachToken (scan returns false).
 */
export class TokenIds {
  private readonly compounds = new Map<string, number[]>();
  private readonly ids = new Map<string, number>();
  /** Each id's token. */
  readonly texts: string[] = [];
  private readonly stamps: number[] = [];
  private stamp = 0;
  /** The last scanned text's distinct token ids, `n` of them. */
  out = new Int32Array(64);
  n = 0;

  /** The id of a token (a new one the first time it is seen). */
  id(token: string): number {
    let id = this.ids.get(token);
    if (id === undefined) {
      id = this.texts.length;
      this.ids.set(token, id);
      this.texts.push(token);
      this.stamps.push(0);
    }
    return id;
  }

  /** The id of a token if it was ever seen, else -1 (a token never seen is in no scanned text). */
  known(token: string): number {
    return this.ids.get(token) ?? -1;
  }

  /** The distinct tokens of an ASCII text, into `out`; false (nothing read) when the text is not ASCII. */
  scan(text: string): boolean {
    this.n = 0;
    if (NON_ASCII.test(text)) return false;
    const found = text.match(WORDS_ASCII_ANY_CASE);
    if (found === null) return true;
    const stamp = ++this.stamp;
    const stamps = this.stamps;
    let out = this.out;
    let n = 0;
    for (let i = 0; i < found.length; i++) {
      const word: string = found[i];
      // A number is its own only token (no stopword, no stem): it is not remembered as a compound.
      const c: number = word.charCodeAt(word.length - 1);
      const ids: readonly number[] = c >= 48 && c <= 57 && DIGITS.test(word) ? [this.id(word)] : (this.compounds.get(word) ?? this.learn(word));
      for (let k = 0; k < ids.length; k++) {
        const id = ids[k];
        if (stamps[id] === stamp) continue;
        stamps[id] = stamp;
        if (n === out.length) {
          const bigger = new Int32Array(n * 2);
          bigger.set(out);
          out = this.out = bigger;
        }
        out[n++] = id;
      }
    }
    this.n = n;
    return true;
  }

  /** The distinct tokens' ids of a compound as the word pattern finds it in ASCII text (any case). */
  compound(compound: string): readonly number[] {
    return this.compounds.get(compound) ?? this.learn(compound);
  }

  /** A compound seen for the first time (as written): its distinct tokens' ids. */
  private learn(compound: string): number[] {
    const list: number[] = [];
    compoundTokens(compound.toLowerCase(), (t) => {
      const id = this.id(t);
      if (!list.includes(id)) list.push(id);
    });
    this.compounds.set(compound, list);
    return list;
  }
}
