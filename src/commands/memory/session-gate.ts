// memory-add's "session-specific" gate: the seed's transferability rule ("session-specific observations (metrics,
// counts, file lists) are rejected"; the curator's gate 1) as a check the helper applies, not only prose in a prompt.
// A memory must stay true in a later session; what only describes this run is refused, naming what gave it away:
//
//   date        a day relative to now (today, yesterday, this session, last run; heute, сегодня, 今日, ...) or a
//               calendar date (2026-02-18, March 3, 2026)
//   run-metrics counts and measurements of a run: "ran 14 tests", "3 failed", "5 files changed", "took 3m12s",
//               "coverage went from 71% to 83%", "3 of 8 roles", "worker 3 failed"
//   file-list   three or more file names, or a changed-files report ("changed src/a.ts and src/b.ts")
//
// Durable facts that hold numbers pass: "Node 18+ is required", "port 5432", "retry at most 3 times", "use UTF-8",
// "keep SKILL.md under 500 lines", "tokens expire after 15 minutes". The rules look for the shape of a report
// (a past-tense verb of a run next to a count, a count next to an outcome), never for a number alone. Measured on
// test/fixtures/memory/session-specific.json (accept / refuse labels; the test states the bar).
//
// Compiled on first use (memory-add is the only caller), so the helper's other commands never pay for the patterns.

export type SessionReason = "date" | "run-metrics" | "file-list";

export interface SessionHit {
  reason: SessionReason;
  /** The words that gave it away, as they appear in the text. */
  matched: string;
}

/** The word lists the rules look for (each is one bit of a word's flags). */
const LISTS = {
  months: "jan january feb february mar march apr april jun june jul july aug august sep sept september oct october nov november dec december",
  weekdays: "monday tuesday wednesday thursday friday saturday sunday",
  numberWords: "one two three four five six seven eight nine ten twelve twenty",
  // Things a run counts, and what happened to them.
  runNouns:
    "test tests spec specs suite suites file files role roles task tasks agent agents worker workers commit commits error errors warning warnings " +
    "failure failures check checks line lines bug bugs issue issues retries attempt attempts entries memories tier tiers step steps job jobs " +
    "build builds run runs case cases assertion assertions conflict conflicts pr prs times",
  outcomes:
    "passed failed failing broke broken changed modified touched added removed deleted created fixed skipped succeeded errored crashed ran " +
    "landed merged done blocked stalled remained left",
  bareOutcomes: "failure failures passing failing passed failed skipped done blocked",
  barePrefix: "and but only just all then",
  be: "is are was were",
  // Past tenses that do not end in -ed, and words that end in -ed without being one.
  irregularPast: "hit ran had held made spent saw got found broke wrote took came went grew fell rose sank began led lost won kept left sent threw",
  notPast: "need seed speed feed exceed proceed succeed indeed embed red bed shed wed",
  passive: "is are be been being get gets stay stays remain remains",
  fillers: "in at to by with after over about around nearly almost only just all another the",
  conditional: "when whenever if once unless",
  // A role, worker or build that finished, failed, ... ("role api-client finished", "build 2417 on CI failed").
  subjects: "role worker agent attempt build pipeline job pr deploy deployment",
  notNames: "that which who whose will must should can may is are need needs",
  subjectOutcomes: "finished failed completed succeeded passed crashed stalled retried restarted merged reverted",
  tookVerbs: "took spent lasted wasted lost needed required",
  tookFillers: "about around over nearly almost only just roughly",
  spans: "hour hours minute minutes day days afternoon afternoons morning mornings",
  changeVerbs: "went rose dropped fell increased decreased grew jumped improved climbed sank doubled halved",
  units: "ms s sec seconds min minutes h hours kb mb gb kib mib gib x",
  colorVerbs: "went turned was were stayed",
  // Verbs of a changed-files report ("changed src/a.ts and src/b.ts").
  // Words that can start a rule although they are in no list above (spanAt looks no further at any other word).
  starters: "on last this since until passed failed failures errors skipped from pull",
  changeFiles:
    "ran executed fixed changed touched modified edited updated deleted removed added created wrote rewrote spawned started merged closed opened " +
    "resolved skipped retried completed finished committed pushed reverted renamed moved processed migrated generated",
};
type List = keyof typeof LISTS;

let FLAGS: Map<string, number> | undefined;
let BITS: Record<string, number> | undefined;

/** The lists whose words can start a rule. */
const STARTS: List[] = ["months", "numberWords", "be", "irregularPast", "subjects", "tookVerbs", "colorVerbs", "changeVerbs", "starters"];

/** Whether a rule can start at word `w` (a number, a past tense, or a word of STARTS): most words are none. */
function mayStart(w: string): boolean {
  const c = w.charCodeAt(0);
  if (c >= 48 && c <= 57) return true;
  if (w.length > 3 && w.endsWith("ed")) return true;
  for (let k = 0; k < STARTS.length; k++) if (is(w, STARTS[k])) return true;
  return false;
}

/** Whether `w` is in the list (the lists are one map of word → bits, built on first use). */
function is(w: string | undefined, list: List): boolean {
  if (!FLAGS) {
    FLAGS = new Map();
    BITS = {};
    let bit = 1;
    for (const name of Object.keys(LISTS) as List[]) {
      BITS[name] = bit;
      for (const word of LISTS[name].split(" ")) FLAGS.set(word, (FLAGS.get(word) ?? 0) | bit);
      bit <<= 1;
    }
  }
  return w !== undefined && ((FLAGS.get(w) ?? 0) & (BITS as Record<string, number>)[list]) !== 0;
}

const FILE_EXT = "ts|tsx|js|jsx|mjs|cjs|json|jsonl|md|py|go|rs|java|kt|rb|php|cs|c|h|cc|cpp|hpp|swift|yml|yaml|toml|ini|cfg|lock|sh|bash|sql|css|scss|html|vue|svelte|txt|xml|gradle";

// Days relative to now: whole phrases, checked on the lowercased text.
const RELATIVE_DAYS =
  /(?<![a-z0-9_])(?:today|yesterday|tonight|just now|right now|this (?:morning|afternoon|evening|session|run|sprint|week|pr|pull request|branch|ticket)|(?:last|previous) (?:night|run|session|week|month|quarter)|(?:in|during) (?:this|the current|the last) (?:run|session)|(?:end|most|rest|start) of (?:the|this) (?:session|run|day|morning|afternoon|evening)|heute|gestern|aujourd['’]hui|hoy|ayer)(?![a-z0-9_])|(?<![а-яё])(?:сегодня|вчера)(?![а-яё])|今日|昨日|本日|今天|昨天/;
// Calendar dates written with digits only: 2026-02-18, 3/14/2026, 14.03.2026.
const NUMERIC_DATE = /(?<![\w.-])(?:\d{4}-\d{2}-\d{2}|\d{1,2}\/\d{1,2}\/\d{2,4}|\d{1,2}\.\d{1,2}\.\d{4})(?![\w-])/;
/** "May 3": only capitalised ("may 3" is more often the verb). */
const MAY_DATE = /(?<![A-Za-z0-9_])May \d{1,2}(?:st|nd|rd|th)?(?![A-Za-z0-9_])/;
// Durations as a report writes them (3m12s, 1h05m) and a few other languages' "took N".
const DURATION = /(?<![\w.])(?:\d+h ?\d+m(?: ?\d+s)?|\d+m ?\d+(?:\.\d+)?s)(?![\w])|(?<![a-z])(?:a pris|a dur[ée]|tard[óo]|dauerte|занял[аио]?) \d|かかった|花了/;

/** Words, numbers (with an attached % or ordinal ending), ratios like 12/40, and punctuation, with their offsets. */
const WORD = /\d+\/\d+|\d[\d.,]*(?:%|st|nd|rd|th)?|[a-z][a-z0-9]*(?:['’-][a-z0-9]+)*|[.,;:!?()#=\n]/g;

interface Word {
  w: string;
  at: number;
  end: number;
}

const isNum = (x: Word | undefined) => x !== undefined && x.w.charCodeAt(0) >= 48 && x.w.charCodeAt(0) <= 57 && !x.w.includes("/");
const BOUNDARY = new Set([".", ";", "!", "?", "\n"]);

/** A match: the words [from, to] of the text. */
type Span = [number, number];

/** The first rule that matches the words at or after `i`, as a span, or undefined. Each rule is a short word sequence. */
function spanAt(words: Word[], i: number): { reason: SessionReason; span: Span } | undefined {
  const w = words[i].w;
  if (!mayStart(w)) return undefined;
  const at = (k: number) => words[k]?.w;
  // A conditional earlier in the sentence makes a count part of a rule ("when a check failed 3 times, ...").
  const conditional = () => {
    for (let k = i - 1; k >= 0 && !BOUNDARY.has(words[k].w); k--) {
      if (is(words[k].w, "conditional") || ((words[k].w === "each" || words[k].w === "every") && at(k + 1) === "time")) return true;
    }
    return false;
  };
  // Named days and month dates: "on Monday" (not "on Mondays"), "March 3", "March 3, 2026", "3 March 2026".
  if ((w === "on" || w === "last" || w === "this" || w === "since" || w === "until") && is(at(i + 1), "weekdays")) return { reason: "date", span: [i, i + 1] };
  if (is(w, "months") && w !== "may" && isNum(words[i + 1]) && /^\d{1,2}(?:st|nd|rd|th)?$/.test(at(i + 1) as string)) return { reason: "date", span: [i, i + 1] };
  if (/^\d{1,2}(?:st|nd|rd|th)?$/.test(w) && is(at(i + 1), "months") && /^\d{4}$/.test(at(i + 2) ?? "")) return { reason: "date", span: [i, i + 2] };

  // Work done, counted: a past-tense verb then a count ("ran 14 tests", "landed in 3 commits", "peaked at 1.2 GB").
  const past = is(w, "irregularPast") || (w.length > 3 && w.endsWith("ed") && /^[a-z]+$/.test(w) && !is(w, "notPast"));
  if (past && !is(at(i - 1), "passive")) {
    let k = i + 1;
    if (at(k) === "a" && at(k + 1) === "total" && at(k + 2) === "of") k += 3;
    else if (is(at(k), "fillers")) k++;
    if (isNum(words[k]) && !conditional()) return { reason: "run-metrics", span: [i, k] };
  }
  if (isNum(words[i]) || is(w, "numberWords")) {
    // A count of things and what happened to them: "5 files changed", "2 workers timed out", "1 test is still failing".
    for (let j = i + 1; j <= i + 3 && j < words.length; j++) {
      if (is(words[j].w, "runNouns")) {
        let k = j + 1;
        if (is(at(k), "be")) k++;
        if (at(k) === "still") k++;
        const out = is(at(k), "outcomes") ? k : at(k) === "timed" && at(k + 1) === "out" ? k + 1 : -1;
        if (out >= 0 && !conditional()) return { reason: "run-metrics", span: [i, out] };
        break;
      }
      if (!/^[a-z]/.test(words[j].w)) break;
    }
    // "3 of 8 roles", "two of the five workers stalled".
    let k = i + 1;
    if (at(k) === "out") k++;
    if (at(k) === "of") {
      k++;
      if (isNum(words[i]) && isNum(words[k])) return { reason: "run-metrics", span: [i, k] };
      if (at(k) === "the") k++;
      if (isNum(words[k]) || is(at(k), "numberWords")) {
        if (is(at(k + 1), "runNouns")) return { reason: "run-metrics", span: [i, k + 1] };
        if (is(at(k + 2), "runNouns")) return { reason: "run-metrics", span: [i, k + 2] };
      }
    }
  }
  if (isNum(words[i])) {
    // A bare count and an outcome at the start or after a separator: "Tests: 230 passed, 4 skipped".
    const before = at(i - 1);
    if (is(at(i + 1), "bareOutcomes") && (before === undefined || before === "," || before === ";" || before === ":" || before === "(" || is(before, "barePrefix"))) {
      return { reason: "run-metrics", span: [i, i + 1] };
    }
  }
  // "12/40 checks", "passed: 12".
  if (w.includes("/") && /^\d/.test(w) && (is(at(i + 1), "runNouns") || at(i + 1) === "passed" || at(i + 1) === "failed")) return { reason: "run-metrics", span: [i, i + 1] };
  if ((w === "passed" || w === "failed" || w === "failures" || w === "errors" || w === "skipped") && (at(i + 1) === ":" || at(i + 1) === "=") && isNum(words[i + 2])) {
    return { reason: "run-metrics", span: [i, i + 2] };
  }
  // One role's, worker's or build's outcome: "role api-client finished", "worker 3 failed twice", "Role 4 (docs) was
  // retried", "build 2417 on CI failed", "PR #412 was merged".
  if (is(w, "subjects") || (w === "pull" && at(i + 1) === "request")) {
    let k = w === "pull" ? i + 2 : i + 1;
    if (at(k) === "#") k++;
    if (k < words.length && !is(at(k), "notNames") && /^[a-z0-9]/.test(at(k) as string)) {
      k++;
      if (at(k) === "(") {
        while (k < words.length && at(k) !== ")") k++;
        k++;
      }
      for (let extra = 0; extra <= 2 && k < words.length; extra++, k++) {
        let o = k;
        if (at(o) === "was" || at(o) === "were" || at(o) === "got") o++;
        if (is(at(o), "subjectOutcomes") || (at(o) === "timed" && at(o + 1) === "out")) return { reason: "run-metrics", span: [i, o] };
        if (!/^[a-z]/.test(at(k) as string)) break;
      }
    }
  }
  // A measurement as it stands now: "is now 412 KB".
  if (is(w, "be") && at(i + 1) === "now") {
    const k = at(i + 2) === "at" ? i + 3 : i + 2;
    if (isNum(words[k])) return { reason: "run-metrics", span: [i, k] };
  }
  // Time spent: "took 8 minutes", "spent 45 minutes", "lost about an hour", "needed 2 retries". Not when the
  // sentence says it happened more than once ("we lost a day twice to step 3", "it cost an hour every time"): a
  // cost that recurs is the lasting reason for a step, not one run's measurement.
  if (is(w, "tookVerbs") && !recurs(words, i)) {
    let k = i + 1;
    if (is(at(k), "tookFillers")) k++;
    if (isNum(words[k])) return { reason: "run-metrics", span: [i, k] };
    if (at(k) === "half" && (at(k + 1) === "a" || at(k + 1) === "an")) k++;
    if ((at(k) === "a" || at(k) === "an" || at(k) === "one" || at(k) === "two" || at(k) === "three") && is(at(k + 1), "spans")) return { reason: "run-metrics", span: [i, k + 1] };
  }
  // The state a build was in: "CI went green", "the suite was red".
  if (is(w, "colorVerbs") && (at(i + 1) === "green" || at(i + 1) === "red") && !conditional()) return { reason: "run-metrics", span: [i, i + 1] };
  // A change in a measurement: "went from 71% to 83%", "dropped from 420 ms to 160 ms", "doubled to 40 s".
  const unitAt = (k: number): number => (words[k]?.w.endsWith("%") ? k : is(at(k + 1), "units") ? k + 1 : -1);
  if (w === "from" && isNum(words[i + 1])) {
    const u = unitAt(i + 1);
    if (u >= 0 && at(u + 1) === "to" && isNum(words[u + 2]) && unitAt(u + 2) >= 0) return { reason: "run-metrics", span: [i, unitAt(u + 2)] };
  }
  if (is(w, "changeVerbs")) {
    let k = i + 1;
    if (at(k) === "from" && isNum(words[k + 1])) {
      const u = unitAt(k + 1);
      k = u >= 0 ? u + 1 : k + 2;
    }
    if (at(k) === "to" && isNum(words[k + 1]) && unitAt(k + 1) >= 0) return { reason: "run-metrics", span: [i, unitAt(k + 1)] };
  }
  return undefined;
}

/** Whether the sentence around word `i` says that something happened more than once. */
function recurs(words: Word[], i: number): boolean {
  let from = i;
  while (from > 0 && !BOUNDARY.has(words[from - 1].w)) from--;
  let to = i;
  while (to + 1 < words.length && !BOUNDARY.has(words[to + 1].w)) to++;
  for (let k = from; k <= to; k++) {
    const w = words[k].w;
    const next = words[k + 1]?.w;
    if (w === "twice" || w === "thrice" || w === "again" || w === "repeatedly" || w === "recurring") return true;
    if ((w === "every" || w === "each") && next === "time") return true;
    if (w === "more" && next === "than" && words[k + 2]?.w === "once") return true;
    if ((is(w, "numberWords") || w === "several" || w === "many" || w === "multiple" || isNum(words[k])) && next === "times") return true;
  }
  return false;
}

let FILE_NAME: RegExp | undefined;
/** A word, a dot and a letter: what any file name holds (a sentence's full stop is followed by a space). */
const MAYBE_FILE = /\w\.[a-z]/i;

/** The first sign that `content` reports on one run rather than stating a durable fact, or undefined. */
export function sessionSpecific(content: string): SessionHit | undefined {
  const lower = content.toLowerCase();
  // Quoted as written where lowercasing kept every character in place (it nearly always does).
  const quote = (from: number, to: number) => (lower.length === content.length ? content.slice(from, to) : lower.slice(from, to));
  const regex = (re: RegExp, text: string): RegExpExecArray | null => re.exec(text);
  let m = regex(RELATIVE_DAYS, lower) ?? regex(NUMERIC_DATE, lower);
  if (m) return { reason: "date", matched: quote(m.index, m.index + m[0].length) };
  m = MAY_DATE.exec(content);
  if (m) return { reason: "date", matched: m[0] };
  m = DURATION.exec(lower);
  if (m) return { reason: "run-metrics", matched: quote(m.index, m.index + m[0].length) };

  const words: Word[] = [];
  WORD.lastIndex = 0;
  for (let x = WORD.exec(lower); x !== null; x = WORD.exec(lower)) words.push({ w: x[0], at: x.index, end: x.index + x[0].length });
  for (let i = 0; i < words.length; i++) {
    const hit = spanAt(words, i);
    if (hit) return { reason: hit.reason, matched: quote(words[hit.span[0]].at, words[hit.span[1]].end) };
  }

  // File lists: three or more file names, or a verb of change followed, in its sentence, by two of them.
  if (!MAYBE_FILE.test(content)) return undefined;
  FILE_NAME ??= new RegExp(`(?<![\\w/.-])(?:[\\w.-]+/)*[\\w-]+(?:\\.[\\w-]+)*\\.(?:${FILE_EXT})(?![\\w/-]|\\.\\w)`, "gi");
  const files: Array<{ name: string; at: number }> = [];
  for (const f of content.matchAll(FILE_NAME)) files.push({ name: f[0], at: f.index as number });
  const names = new Set(files.map((f) => f.name));
  if (names.size >= 3) return { reason: "file-list", matched: [...names].join(", ") };
  if (files.length >= 2) {
    for (let i = 0; i < words.length; i++) {
      if (!is(words[i].w, "changeFiles")) continue;
      let stop = words.length;
      for (let k = i + 1; k < words.length; k++) if (BOUNDARY.has(words[k].w) && words[k].w !== "." ) { stop = k; break; }
      const end = stop < words.length ? words[stop].at : content.length;
      const after = files.filter((f) => f.at > words[i].at);
      if (after.length >= 2 && after[0].at < end) return { reason: "file-list", matched: quote(words[i].at, after[1].at + after[1].name.length) };
    }
  }
  return undefined;
}

/** The words of the refusal for each reason. */
export const SESSION_REASONS: Record<SessionReason, string> = {
  date: "a date or a day relative to this session",
  "run-metrics": "counts or measurements of one run",
  "file-list": "a list of files",
};
