// YAML frontmatter of a SKILL.md or command file, read with gray-matter (js-yaml's safe schema) the way Claude Code
// reads it, as measured on 2.1.197 and 2.1.332 (test/commands/skill-find.test.ts "frontmatter"):
// - only a first line of exactly `---` opens a block, a later `---` line closes it; anything else (`---js`, no closing
//   line) is no frontmatter, and a byte-order mark before it is dropped;
// - anchors, aliases, comments, block scalars with indentation indicators, flow mappings: YAML as written;
// - a repeated key keeps its last value; a block YAML refuses (`description: Use when shipping: build, tag`,
//   `description: [unclosed`) is read again with each top-level `key: value` taken as a quoted string, which is
//   what the CLI shows for such files.
// gray-matter evaluates a `---js` block with eval(): only a plain `---` block ever reaches it, as YAML, and its
// JavaScript engine is replaced by one that refuses.
import matter from "gray-matter";
import { isObject } from "../values.js";

export interface Frontmatter {
  /** The parsed block, or null when the file has none (or one that is not a mapping). */
  data: Record<string, unknown> | null;
  /** The text after the block (the whole text without one). */
  body: string;
  /** The block opened but never closed within the text given. */
  open: boolean;
}

const refuse = () => {
  throw new Error("only YAML frontmatter is read");
};
const OPTIONS = { language: "yaml", engines: { javascript: refuse, js: refuse, coffee: refuse, json: refuse }, json: true } as const;

function parseYaml(block: string): unknown {
  return matter(`---\n${block}\n---\n`, OPTIONS as unknown as matter.GrayMatterOption<string, any>).data;
}

/** Each top-level `key: value` line whose value is not quoted or a block indicator, as a double-quoted string. */
function quoteValues(block: string): string {
  return block
    .split("\n")
    .map((line) => {
      const m = /^([A-Za-z0-9_-]+):[ \t]+(\S.*?)[ \t]*$/.exec(line);
      if (!m || /^["']/.test(m[2]) || /^[|>][-+0-9]*$/.test(m[2])) return line;
      return `${m[1]}: ${JSON.stringify(m[2])}`;
    })
    .join("\n");
}

/** Split and parse a file's frontmatter. */
export function readFrontmatter(text: string): Frontmatter {
  const t = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!/^---[ \t]*\n/.test(t)) return { data: null, body: t, open: false };
  const lines = t.split("\n");
  let close = -1;
  for (let i = 1; i < lines.length; i++) {
    if (/^---[ \t]*$/.test(lines[i])) {
      close = i;
      break;
    }
  }
  if (close < 0) return { data: null, body: t, open: true };
  const block = lines.slice(1, close).join("\n");
  const body = lines.slice(close + 1).join("\n");
  let data: unknown;
  try {
    data = parseYaml(block);
  } catch {
    try {
      data = parseYaml(quoteValues(block));
    } catch {
      data = null;
    }
  }
  return { data: isObject(data) ? data : null, body, open: false };
}

/** A frontmatter value as one line of text: strings and numbers, whitespace collapsed; anything else undefined. */
export function textValue(v: unknown): string | undefined {
  if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") return undefined;
  const s = String(v).replace(/\s+/g, " ").trim();
  return s === "" ? undefined : s;
}

/** Claude Code's fallback description: the body's first non-empty line, a heading's `#`s dropped, cut at 100. */
export function firstLine(body: string): string | undefined {
  for (const raw of body.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    const text = /^#+\s+(\S.*)$/.exec(line)?.[1] ?? line;
    return text.length > 100 ? `${text.slice(0, 97)}...` : text;
  }
  return undefined;
}
