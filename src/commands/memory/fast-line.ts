// A fast reader for memory.jsonl lines in the exact layout memory-add writes (JSON.stringify of the entry, keys in
// its order, no whitespace). The full-line pattern admits only valid JSON (strict string escapes, JSON numbers),
// so a line it accepts parses to the same object JSON.parse would give; anything else (legacy layouts, other key
// orders, whitespace, corrupt lines) returns undefined and goes through JSON.parse. memory-search reads every line
// of the file on every call, and this skips most of the parser's work.

// A JSON string literal, written "unrolled" (runs of plain characters between escapes): the same language as
// "(?:plain|escape)*", but the engine loops over a character class instead of trying an alternation per character,
// which matters when every line of a 6 MB file goes through it.
/** A JSON string literal's characters (between its quotes). */
const STRING_BODY = String.raw`[^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\u0000-\u001f]*)*`;
const STRING = `"${STRING_BODY}"`;
const NUMBER = String.raw`-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?`;
/**
 * The full-line pattern; groups capture only the fields listed in `capture` (1 id, 2 timestamp, 3 category,
 * 4 keywords, 5 content, 6 source, 7 goal_context, 8 importance, 9 usage_count; a test allocates no substrings).
 * Sticky, it matches at `lastIndex` a line that ends at a line end or at the end of the text (countJsonlFile).
 */
const linePattern = (capture: readonly number[], sticky = false) => {
  const g = (k: number) => (capture.includes(k) ? "(" : "(?:");
  return new RegExp(
    `${sticky ? "" : "^"}\\{"id":${g(1)}${STRING}),"timestamp":${g(2)}${STRING}),"category":${g(3)}${STRING}),"keywords":\\[${g(4)}(?:${STRING}(?:,${STRING})*)?)\\],` +
      `"content":${g(5)}${STRING}),"source":${g(6)}${STRING}),"goal_context":${g(7)}${STRING}),"importance":${g(8)}${NUMBER}),"usage_count":${g(9)}${NUMBER})\\}` +
      (sticky ? "(?=[\\r\\n]|$)" : "$"),
    sticky ? "y" : "",
  );
};
const LINE = linePattern([1, 2, 3, 4, 5, 6, 7, 8, 9]);
/** matchMemoryLine's pattern for a line inside a larger text, tried at `lastIndex` (sticky; captures nothing). */
export const MEMORY_LINE_AT = linePattern([], true);
/**
 * MEMORY_LINE_AT in three sticky parts, for a reader that checks a plain category and content literal itself (a
 * category's name; ASCII without quotes, backslashes or control characters): HEAD up to the category's characters,
 * MIDDLE from the category's closing quote to the content's characters, TAIL from the content's closing quote to the
 * line's end. With such literals between them the three read exactly the lines MEMORY_LINE_AT reads, and the
 * pattern never runs over the content, which the reader reads anyway.
 */
export const LAYOUT_HEAD = new RegExp(String.raw`\{"id":${STRING},"timestamp":${STRING},"category":"`, "y");
export const LAYOUT_MIDDLE = new RegExp(String.raw`","keywords":\[(?:${STRING}(?:,${STRING})*)?\],"content":"`, "y");
const TAIL = String.raw`","source":${STRING},"goal_context":${STRING},"importance":${NUMBER},"usage_count":${NUMBER}\}(?=[\r\n]|$)`;
export const LAYOUT_TAIL = new RegExp(TAIL, "y");
/** MIDDLE's sequel for a content that is not plain: the content's characters, then TAIL. */
export const LAYOUT_CONTENT_TAIL = new RegExp(STRING_BODY + TAIL, "y");
export const STRING_LITERALS = new RegExp(STRING, "g");
const STRINGS = STRING_LITERALS;

/** The captures of a line in memory-add's layout (1 id, 2 timestamp, 3 category, 4 keywords' literals, 5 content,
 * 6 source, 7 goal_context, 8 importance, 9 usage_count), or null. */
export function matchMemoryLine(line: string): RegExpExecArray | null {
  return LINE.exec(line);
}

/** A JSON string literal's value: the text itself when it has no escape, else what JSON.parse makes of it. */
export function text(literal: string): string {
  return literal.includes("\\") ? (JSON.parse(literal) as string) : literal.slice(1, -1);
}

/** Whether the line of `text` that starts at `at` is in memory-add's layout (no substring is made). */
export function isMemoryLineAt(text: string, at: number): boolean {
  MEMORY_LINE_AT.lastIndex = at;
  return MEMORY_LINE_AT.test(text);
}

/** Where the line of `text` that starts at `at` ends when it is in memory-add's layout (its CR, LF or the text's end), else -1. */
export function memoryLineEndAt(text: string, at: number): number {
  MEMORY_LINE_AT.lastIndex = at;
  return MEMORY_LINE_AT.test(text) ? MEMORY_LINE_AT.lastIndex : -1;
}

export function parseMemoryLine(line: string): Record<string, unknown> | undefined {
  const m = LINE.exec(line);
  return m ? fromCaptures(m) : undefined;
}

/** The entry of a matched line, the same object JSON.parse would give. */
export function fromCaptures(m: RegExpExecArray): Record<string, unknown> {
  return {
    id: text(m[1]),
    timestamp: text(m[2]),
    category: text(m[3]),
    keywords: m[4] === "" ? [] : (m[4].match(STRINGS) as string[]).map(text),
    content: text(m[5]),
    source: text(m[6]),
    goal_context: text(m[7]),
    importance: Number(m[8]),
    usage_count: Number(m[9]),
  };
}
