// memory-add: append a memory behind quality gates, or boost / decay the importance of one (contract 4.17).
// Every write holds the file's lock (contract 1.7): an append adds one line with O_APPEND, keeping the old bytes
// and repairing a missing final newline (Fix D6); a boost or decay is a copy-and-rename that rewrites only the
// entry's own line, so every other line, corrupt ones included, survives byte for byte (Fix D5).
//
// Deliberate departures from the contract, which says (4.17) that the quality gates are the curator prompt's and
// "the helper does not deduplicate": this helper applies four of the seed's five gates itself (category fit is the
// list of categories). A new entry whose content only reports on one run (dates, counts and measurements of a run,
// file lists: session-gate.ts) is refused with gate "session-specific" before anything is read; one that names
// nothing concrete with gate "specificity", and one scored 7+ without its recorded `surprise` with gate
// "importance" (quality-gates.ts). One that is a near-duplicate of an existing entry of any category
// (contentSimilarity, tokens.ts: any language; a learning reworded under another category is the same learning)
// is refused with gate "duplicate", and the caller is
// told to boost the existing one instead. That check runs inside the lock, on the file as it is then, so two
// concurrent adds of the same text cannot both land. Large files are checked through an index kept beside them
// (dup-index.ts), which narrows the comparison to a few lines that are then read back and compared exactly.
//
// Why one file: the duplicate gate, the quality gates and the locked append are one transaction on the memory file.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, writeSync, type BigIntStats } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError, detail, usage } from "../../base/errors.js";
import { isEmpty, isInt, isObject, isoSeconds, pyRound, pyStr, uuid4 } from "../../lib/values.js";
import {
  appendLine, argLabel, confine, ensureDir, MAX_JSONL_BYTES, openForRead, parseJsonl, parseJsonText, pathKind, readBytes, readFileBytes, readJson, readText,
  replaceLine, sweepOrphans, wholeLinesEnd, updateText, withLock, writeAtomic,
} from "../../store.js";
import { OWN } from "../../base/owned.js";
import {
  ALL_CATEGORIES, ANY_CATEGORY, appendRecords, categoryCode, describeTokens, hashBytes, IndexBuilder, NO_CATEGORY, scanIndex, textNormHash, type IndexEntry, type IndexScan, type IndexSource, type Probe,
} from "./dup-index.js";
import { ByteTokens } from "./byte-tokens.js";
import { LAYOUT_CONTENT_TAIL, LAYOUT_HEAD, LAYOUT_MIDDLE, LAYOUT_TAIL, memoryLineEndAt, text as literalText } from "./fast-line.js";
import { MEMORY_CATEGORIES, MEMORY_PATH, importanceOf, normaliseContent, tokenSimilarity } from "./scoring.js";
import { SESSION_REASONS, sessionSpecific } from "./session-gate.js";
import { HIGH_IMPORTANCE, keywordProblem, specificityProblem, surpriseProblem } from "./quality-gates.js";
import { eachToken, tokens } from "./tokens.js";

/**
 * Near-duplicate threshold: a new entry whose content has a similarity (contentSimilarity: Jaccard of the token
 * sets of tokens.ts, 0 when each names a number, identifier or flag the other lacks, 1 for the same text up to case
 * and whitespace) of at least 0.35 with an existing entry of the same category is refused. Chosen on the labelled
 * pairs of test/fixtures/memory/pairs.json (rephrasings, same tool but another fact, seven languages): the
 * highest F1 on the tuning pairs, and of two thresholds with the same F1 the one with fewer wrong refusals
 * (a refused learning is lost; a stored duplicate only costs a boost later).
 */
export const DUPLICATE_THRESHOLD = 0.35;

export type Gate = "category" | "importance" | "keywords" | "content" | "session-specific" | "specificity" | "duplicate";

function refuse(gate: Gate, message: string): HelperError {
  return usage(message, { gate });
}

/** updateText reports read failures as "Error reading <path>: ..."; the contract's prefix names the file kind. */
function rewordReadError(err: unknown, target: string): unknown {
  const prefix = `Error reading ${target}: `;
  if (err instanceof HelperError && err.code === "E_READ" && err.message.startsWith(prefix)) {
    return new HelperError("E_READ", `Error reading memory file: ${err.message.slice(prefix.length)}`);
  }
  return err;
}

/**
 * Boost or decay one entry. `mark` (curator-apply's, "<report key>:boost" or ":decay") makes it safe to repeat: the
 * entry records the marks of the last report that adjusted it in `curator`, and an entry that already holds this
 * mark is left as it is (`already: true`).
 */
async function adjust(target: string, shown: string, id: string, boost: boolean, mark?: string) {
  if (pathKind(target) === "missing") throw new HelperError("E_NOT_FOUND", `Memory file not found: ${shown}`);
  try {
    return await updateText<{ id: string; importance: number; action: string; already?: boolean }>(
      target,
      (current) => {
        if (current === null) throw new HelperError("E_NOT_FOUND", `Memory file not found: ${shown}`);
        const found = parseJsonl(current).entries.find((e) => e.value.id === id);
        if (!found) throw new HelperError("E_NOT_FOUND", `Entry with id '${id}' not found`);
        const before = importanceOf(found.value);
        const action = boost ? "boosted" : "decayed";
        const marks = Array.isArray(found.value.curator) ? (found.value.curator as unknown[]).filter((m): m is string => typeof m === "string") : [];
        if (mark !== undefined && marks.includes(mark)) return { text: null, result: { id, importance: before, action, already: true } };
        const importance = boost ? Math.min(10, before + 1) : Math.max(1, before - 1);
        const report = mark?.slice(0, mark.indexOf(":") + 1);
        const curator = mark === undefined ? {} : { curator: [...marks.filter((m) => report && m.startsWith(report)), mark] };
        const text = replaceLine(current, found.line, JSON.stringify({ ...found.value, importance, ...curator }));
        return { text, result: { id, importance, action } };
      },
      "Error writing memory file",
      undefined,
      MAX_JSONL_BYTES,
    );
  } catch (err) {
    throw rewordReadError(err, target);
  }
}

interface NewEntry {
  id: string;
  timestamp: string;
  category: string;
  keywords: string[];
  content: string;
  source: string;
  goal_context: string;
  importance: number;
  /** What was unexpected, for an importance of HIGH_IMPORTANCE or more (quality-gates.ts). */
  surprise?: string;
  usage_count: number;
  /** curator-apply's mark ("<report key>:store:<i>"): which report stored it, so a retry stores it once. */
  curator?: string[];
}

/** The entry a new one duplicates; `offset`: where its line starts, when it was found through an offset. */
type Dup = { id: unknown; similarity: number; value: Record<string, unknown>; offset?: number } | undefined;

/**
 * The most similar existing entry at or above the threshold, whatever its category (first one on ties): the same
 * learning filed under another category is still the same learning (issue 31: /do:remember stored one twice, reworded).
 */
function nearDuplicate(current: string, p: Probing): Dup {
  let best: Dup;
  for (const { value } of parseJsonl(current).entries) {
    if (categoryCode(value.category, value.content) === NO_CATEGORY) continue;
    const similarity = similarityTo(p, value.content as string);
    if (similarity >= DUPLICATE_THRESHOLD && (!best || similarity > best.similarity)) best = { id: value.id, similarity, value };
  }
  return best;
}

/** Memory files from this size on keep a duplicate-gate index beside them (smaller ones are simply scanned). */
export const INDEX_MIN_BYTES = 256 * 1024;

/** `.design/memory.jsonl` → `.design/.memory.jsonl.index` */
export const indexPathOf = (target: string) => join(dirname(target), `.${basename(target)}.index`);

/** One line as an object (undefined for a blank, corrupt or non-object line). */
const parseLine = (raw: string): Record<string, unknown> | undefined => {
  const t = raw.trim();
  if (t === "") return undefined;
  try {
    const v: unknown = parseJsonText(t);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/** The new entry as the gate compares it: category code, tokens, normalised text. */
export interface Probing {
  code: number;
  content: string;
  tokens: Set<string>;
  norm: string;
  normHash: number;
  hashes: Uint8Array;
}

/** The exact similarity of the new entry with an existing content (contentSimilarity, the probe's side precomputed). */
function similarityTo(p: Probing, content: string): number {
  const theirs = tokens(content);
  if (theirs.size === 0 && p.tokens.size === 0) return normaliseContent(content) === p.norm ? 1 : 0;
  return tokenSimilarity(p.tokens, theirs);
}

/**
 * The exact verdict for the candidates the index lets through: each line is read back from the file and compared
 * with contentSimilarity. "stale" when a line is not the entry the index says it is.
 */
function verify(found: IndexScan["found"], p: Probing, line: (offset: number, length: number) => string): Dup | "stale" {
  let best: Dup;
  for (const { offset, length } of found) {
    const v = parseLine(line(offset, length));
    if (!v || categoryCode(v.category, v.content) === NO_CATEGORY) return "stale";
    const similarity = similarityTo(p, v.content as string);
    if (similarity >= DUPLICATE_THRESHOLD && (!best || similarity > best.similarity)) best = { id: v.id, similarity, value: v, offset };
  }
  return best;
}

/**
 * Every entry of the whole file, when the index cannot answer (it is missing, stale, or lacks a category): their
 * index records go into `index` (in file order), and each is compared with the new entry. The file is read 64 KB at a
 * time into one buffer (a whole 6 MB file, and a string of it, cost ~35 ms of page faults alone here), each run of
 * whole lines also as latin1 text (one character per byte, so the layout pattern reads it as it reads UTF-8).
 *
 * A line in memory-add's layout with a category's name and plain ASCII content (nearly every line memory-add wrote)
 * is read without making anything of it (plainLine): its tokens come from its bytes (ByteTokens) and it is compared
 * through the upper bound the index gives (scanIndex) and, when that passes, exactly (verify). Any other entry is
 * decoded, tokenised and compared exactly on the spot. Returns where the file's last line starts (the tail hash
 * covers the file from there).
 */
export function scanEntries(fd: number, p: Probing, index: IndexBuilder): { dup: Dup; tailFrom: number } {
  const s: ScanState = {
    p, index, best: undefined, candidates: [], words: new ByteTokens(), scratch: new Set<string>(), has: new Uint8Array(256), tailFrom: 0,
  };
  for (let i = 0; i < p.hashes.length; i++) s.has[p.hashes[i]] = 1;
  forEachRun(fd, (text, buf, base) => scanRun(s, text, buf, base));
  const verdict = verify(s.candidates, p, (offset, length) => pread(fd, offset, length).toString("utf8"));
  if (verdict === "stale") throw new HelperError("E_INTERNAL", "Internal error: a line read twice disagreed");
  // The most similar entry, the first in the file on a tie (as a plain scan would find it).
  const b = s.best as Dup;
  if (verdict && (!b || verdict.similarity > b.similarity || (verdict.similarity === b.similarity && (verdict.offset as number) < (b.offset as number)))) {
    return { dup: verdict, tailFrom: s.tailFrom };
  }
  return { dup: b, tailFrom: s.tailFrom };
}

/** What scanEntries carries from run to run. */
interface ScanState {
  p: Probing;
  index: IndexBuilder;
  /** The best duplicate compared exactly so far. */
  best: Dup;
  /** Lines in the layout whose bound passed, compared exactly at the end (verify). */
  candidates: IndexScan["found"];
  words: ByteTokens;
  scratch: Set<string>;
  /** has[h]: whether the new content has a token of index byte h. */
  has: Uint8Array;
  tailFrom: number;
}

const CATEGORY_BYTES = MEMORY_CATEGORIES.map((c) => Buffer.from(c, "latin1"));

/** Where the JSON string literal that opens at `at` (a quote) ends: after its closing quote. */
function endOfLiteral(buf: Buffer, at: number): number {
  let i = at + 1;
  for (let b = buf[i]; b !== 34; b = buf[i]) i += b === 92 ? 2 : 1;
  return i + 1;
}

/** The category code of the bytes buf[from, to) (a category's name exactly), else -1. */
function categoryAt(buf: Buffer, from: number, to: number): number {
  for (let c = 0; c < CATEGORY_BYTES.length; c++) {
    const name = CATEGORY_BYTES[c];
    if (name.length !== to - from) continue;
    let k = 0;
    while (k < name.length && buf[from + k] === name[k]) k++;
    if (k === name.length) return c;
  }
  return -1;
}

/**
 * The lines of a run (whole lines of the file; `text` its bytes `buf` read as latin1, one character per byte, so its
 * offsets are the buffer's; `base`: where it starts in the file). Line ends are LF, CR or CRLF (the JSONL readers'
 * rule); every line that is not empty is read, in file order.
 */
function scanRun(s: ScanState, text: string, buf: Buffer, base: number): void {
  const size = text.length;
  const crs = text.indexOf("\r") >= 0;
  for (let at = 0; at < size; ) {
    // Most lines: memory-add's layout with a category's name and plain text as content (plainLine). Any other line
    // in the layout is read by layoutLine, and the rest through JSON.parse. A line in the layout ends where the
    // pattern does, any other at the first CR or LF.
    let end = plainLine(s, text, buf, at, base);
    if (end < 0) {
      end = memoryLineEndAt(text, at);
      if (end >= 0) layoutLine(s, text, buf, at, end, base);
      else {
        end = text.indexOf("\n", at);
        if (end < 0) end = size;
        if (crs) {
          for (let k = at; k < end; k++) {
            if (text.charCodeAt(k) === 13) {
              end = k;
              break;
            }
          }
        }
        if (end > at) parsedLine(s, buf, at, end, base);
      }
    }
    at = end + (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? 2 : 1);
  }
  // The last line of the run that is not empty (the file's last one, at the end).
  let tail = size;
  while (tail > 0 && (buf[tail - 1] === 10 || buf[tail - 1] === 13)) tail--;
  if (tail > 0) {
    let from = tail - 1;
    while (from > 0 && buf[from - 1] !== 10 && buf[from - 1] !== 13) from--;
    s.tailFrom = base + from;
  }
}

/**
 * The line at `from` when it is in memory-add's layout with one of the category names as its category: its record
 * and bound (or, for a content that is not plain ASCII text, its exact comparison), and where it ends; else -1 and
 * nothing done. The layout pattern in three parts (fast-line.ts) around the two literals, which are read here from
 * the bytes: the category compared with the names, the content by the byte tokenizer (its tokens, up to its closing
 * quote). Nothing is made of a line with a plain content.
 */
function plainLine(s: ScanState, text: string, buf: Buffer, from: number, base: number): number {
  LAYOUT_HEAD.lastIndex = from;
  if (!LAYOUT_HEAD.test(text)) return -1;
  const cat = LAYOUT_HEAD.lastIndex;
  const code = plainCategory(buf, cat);
  if (code < 0) return -1;
  LAYOUT_MIDDLE.lastIndex = cat + CATEGORY_BYTES[code].length;
  if (!LAYOUT_MIDDLE.test(text)) return -1;
  const cs = LAYOUT_MIDDLE.lastIndex;
  const words = s.words;
  if (!words.scan(buf, cs, text.length)) {
    // Escapes, UTF-8 (or a control character: not the layout) in the content: checked by the pattern, then decoded
    // and tokenised by eachToken.
    LAYOUT_CONTENT_TAIL.lastIndex = cs;
    if (!LAYOUT_CONTENT_TAIL.test(text)) return -1;
    const to = LAYOUT_CONTENT_TAIL.lastIndex;
    const ce = endOfLiteral(buf, cs - 1) - 1;
    generic(s, base + from, base + to, literalText(buf.toString("utf8", cs - 1, ce + 1)), () => parseLine(buf.toString("utf8", from, to)) as Record<string, unknown>, code);
    return to;
  }
  const ce = words.end;
  LAYOUT_TAIL.lastIndex = ce;
  if (!LAYOUT_TAIL.test(text)) return -1;
  const to = LAYOUT_TAIL.lastIndex;
  scanned(s, code, words, base + from, to - from, words.n === 0 ? text.slice(cs, ce) : "");
  return to;
}

/** The category code of the category name at buf[at] followed by its closing quote, else -1. */
function plainCategory(buf: Buffer, at: number): number {
  for (let c = 0; c < CATEGORY_BYTES.length; c++) {
    const name = CATEGORY_BYTES[c];
    if (buf[at + name.length] !== 34) continue;
    let k = 0;
    while (k < name.length && buf[at + k] === name[k]) k++;
    if (k === name.length) return c;
  }
  return -1;
}

/**
 * A line in memory-add's layout, [from, to) of the run, that plainLine did not read (an escaped or unknown category):
 * its literals found by walking the line (a literal ends at the first quote not escaped); its category compared as
 * bytes, its content decoded and tokenised by eachToken unless it is plain.
 */
function layoutLine(s: ScanState, text: string, buf: Buffer, from: number, to: number, base: number): void {
  // In the layout (which the pattern has just checked), the category literal is the third and the content the one
  // after the keywords' list.
  let i = endOfLiteral(buf, endOfLiteral(buf, from + 6) + 13); // past the id and the timestamp
  const cat = i + 13; // `,"category":"`
  const q = endOfLiteral(buf, cat - 1) - 1;
  for (let k = cat; k < q; k++) if (buf[k] === 92) return parsedLine(s, buf, from, to, base); // escaped: let JSON.parse read it
  const code = categoryAt(buf, cat, q);
  if (code < 0) return;
  i = q + 14; // `","keywords":[`
  while (buf[i] !== 93) i = buf[i] === 34 ? endOfLiteral(buf, i) : i + 1; // its literals and commas, to its `]`
  const cs = i + 13; // `],"content":"`
  const start = base + from;
  const words = s.words;
  // The content's tokens, read up to its closing quote.
  if (!words.scan(buf, cs, to)) {
    // Escapes or UTF-8 in the content: decoded and tokenised by eachToken.
    const ce = endOfLiteral(buf, cs - 1) - 1;
    generic(s, start, base + to, literalText(buf.toString("utf8", cs - 1, ce + 1)), () => parseLine(buf.toString("utf8", from, to)) as Record<string, unknown>, code);
    return;
  }
  scanned(s, code, words, start, to - from, words.n === 0 ? text.slice(cs, words.end) : "");
}

/**
 * An entry whose content's tokens `words` holds (`content`: the content itself when it has none): its record, and
 * the bound that decides whether it is compared exactly at the end (verify).
 */
function scanned(s: ScanState, code: number, words: ByteTokens, start: number, length: number, content: string): void {
  const nb = words.n;
  const na = s.p.tokens.size;
  const normHash = nb === 0 ? textNormHash(content) : 0;
  s.index.addScanned(start, length, code, words, normHash);
  if (na === 0 || nb === 0) {
    if (na === 0 && nb === 0 && normHash === s.p.normHash) s.candidates.push({ offset: start, length });
    return;
  }
  const has = s.has;
  const out = words.out;
  let common = 0;
  for (let k = 0; k < nb; k++) common += has[out[k]];
  const bound = DUPLICATE_THRESHOLD - 1e-9;
  if (Math.min(na, nb) / Math.max(na, nb) >= bound && common / (na + nb - common) >= bound) s.candidates.push({ offset: start, length });
}

/** A line that may be an entry, read as JSON from its bytes. */
function parsedLine(s: ScanState, buf: Buffer, from: number, to: number, base: number): void {
  const v = parseLine(buf.toString("utf8", from, to));
  const code = v ? categoryCode(v.category, v.content) : NO_CATEGORY;
  if (v && code !== NO_CATEGORY) generic(s, base + from, base + to, v.content as string, () => v, code);
}

/** An entry with its content as text: its record, and the exact comparison. */
function generic(s: ScanState, start: number, end: number, text: string, value: () => Record<string, unknown>, code: number): void {
  const { scratch, p } = s;
  scratch.clear();
  eachToken(text, (t) => {
    scratch.add(t);
  });
  s.index.addTokens(start, end - start, code, scratch, text);
  const similarity = scratch.size === 0 && p.tokens.size === 0 ? (normaliseContent(text) === p.norm ? 1 : 0) : tokenSimilarity(p.tokens, scratch);
  if (similarity >= DUPLICATE_THRESHOLD && (!s.best || similarity > s.best.similarity)) {
    const v = value();
    s.best = { id: v.id, similarity, value: v, offset: start };
  }
}

/**
 * The file behind `fd` as runs of whole lines, read 64 KB at a time into one buffer (grown for a longer line):
 * visit(text, buf, base) with `text` the run decoded as latin1 (one character per byte), `buf` holding its bytes from
 * 0 and `base` its offset in the file. A run never ends inside a line, nor between the CR and LF of a CRLF.
 */
function forEachRun(fd: number, visit: (text: string, buf: Buffer, base: number) => void): void {
  let buf = Buffer.allocUnsafe(64 * 1024);
  let have = 0;
  let base = 0;
  for (;;) {
    if (have === buf.length) {
      const bigger = Buffer.allocUnsafe(2 * buf.length);
      buf.copy(bigger, 0, 0, have);
      buf = bigger;
    }
    const n = readSync(fd, buf, have, buf.length - have, base + have);
    have += n;
    const last = n === 0;
    const cut = last ? have : wholeLinesEnd(buf, have);
    if (cut === 0 && !last) continue;
    if (cut > 0) visit(buf.toString("latin1", 0, cut), buf, base);
    if (last) return;
    buf.copy(buf, 0, cut, have);
    have -= cut;
    base += cut;
  }
}

function readError(err: unknown): HelperError {
  return new HelperError("E_READ", `Error reading memory file: ${detail(err)}`);
}

/** The memory file opened for reading (non-blocking, a regular file within the cap), or E_READ. */
function openMemory(target: string): number {
  try {
    return openForRead(target, MAX_JSONL_BYTES);
  } catch (err) {
    throw readError(err);
  }
}

/** `length` bytes of `fd` from `position` (fewer at the end of the file). */
function pread(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const k = readSync(fd, buf, got, length - got, position + got);
    if (k === 0) break;
    got += k;
  }
  return got === length ? buf : buf.subarray(0, got);
}

/**
 * The index file opened for reading and appending in place: a regular file with one link, never through a
 * symlink (an in-place write must not land anywhere but the index itself). Undefined when it is missing or
 * anything else; the caller then rebuilds it with an atomic rename, which replaces whatever was there.
 */
function openIndex(path: string): { fd: number; source: IndexSource } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDWR | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.nlink !== 1 || st.size > 2 ** 31) throw new Error("not an index");
    return { fd, source: { size: st.size, read: (into, at, length, position) => readSync(fd, into, at, length, position) } };
  } catch {
    closeSync(fd);
    return undefined;
  }
}

/**
 * Under the lock: the duplicate gate, then the append. A small file is parsed whole; a large one is checked through
 * its index. The gate compares the new entry with every category's entries (the same learning filed under another
 * category is still the same learning; issue 31). When the index is fresh and has every category's records, an add
 * reads it, compares the few candidates, appends the line and then one record to the index. When it is missing,
 * stale, or lacks a category (an index of an older add, which indexed its own category only), one pass over the
 * file compares every entry and builds a new index (and the new entry's record), written once after the append, or
 * without the new entry when the add is refused, so the next add finds it fresh.
 */
function gateAndAppend(target: string, entry: NewEntry): void {
  let st: BigIntStats | undefined;
  try {
    st = statSync(target, { bigint: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw readError(err);
  }
  const ts = tokens(entry.content);
  const d = describeTokens(ts, entry.content);
  const p: Probing = { code: categoryCode(entry.category, entry.content), content: entry.content, tokens: ts, norm: normaliseContent(entry.content), normHash: d.normHash, hashes: d.hashes };
  const probe: Probe = { category: ANY_CATEGORY, hashes: d.hashes, normHash: d.normHash, size: d.size, threshold: DUPLICATE_THRESHOLD };
  const indexPath = indexPathOf(target);
  // The gate compares with every category (nearDuplicate), so an index counts only with every category's records.
  const bit = ALL_CATEGORIES;
  let dup: Dup;
  let tailHash = 0;
  let tailFrom = 0;
  /** A fresh index with every category's records (kept open to append to). */
  let base: IndexScan | undefined;
  /** No usable index: a new one, with every entry's record. */
  let rebuilt: IndexBuilder | undefined;
  let opened: { fd: number; source: IndexSource } | undefined;
  const indexed = st !== undefined && st.isFile() && st.size >= BigInt(INDEX_MIN_BYTES) && st.size < 2n ** 32n;
  try {
    if (st !== undefined && !indexed) {
      const cur = readText(target, MAX_JSONL_BYTES);
      if (cur.kind === "error") throw new HelperError("E_READ", `Error reading memory file: ${cur.detail}`);
      if (cur.kind === "ok") dup = nearDuplicate(cur.text, p);
    } else if (st !== undefined) {
      const size = Number(st.size);
      let verdict: Dup | "stale" = "stale";
      opened = openIndex(indexPath);
      if (opened) {
        const fd = openMemory(target);
        try {
          base = scanIndex(opened.source, st, (from) => (from <= size ? pread(fd, from, size - from) : undefined), probe);
          // An index from before (some categories only) is rebuilt whole: appending would repeat the records it has.
          if (base && (base.categories & bit) !== bit) base = undefined;
          if (base) {
            verdict = verify(base.found, p, (offset, length) => pread(fd, offset, length).toString("utf8"));
            if (verdict === "stale") base = undefined; // a line is not what the index says: rebuild
          }
        } finally {
          closeSync(fd);
        }
      }
      if (verdict === "stale") {
        // Opened non-blocking and checked to be a regular file within the cap: a FIFO or a device never stalls it.
        const fd = openMemory(target);
        try {
          // 4-10 % of the file for ASCII text (the most with short contents); it grows when short.
          rebuilt = new IndexBuilder(Math.ceil(size / 8));
          const scanned = scanEntries(fd, p, rebuilt);
          tailFrom = scanned.tailFrom;
          tailHash = hashBytes(pread(fd, tailFrom, size - tailFrom));
          verdict = scanned.dup;
        } catch (err) {
          throw err instanceof HelperError ? err : readError(err);
        } finally {
          closeSync(fd);
        }
      }
      dup = verdict;
    }
    if (dup) {
      // Refused: keep what the scan learned, so the next add finds the index fresh.
      if (rebuilt) writeIndex(indexPath, rebuilt.finish({ st: st as BigIntStats, tailHash, tailFrom, categories: bit }));
      const id = pyStr(dup.id);
      throw new HelperError("E_INVALID", `Near-duplicate of memory ${id}: boost it instead (write {"id": "${id}"} to .design/tmp/remember.json, then memory-add .design/memory.jsonl --boost --from .design/tmp/remember.json)`, {
        gate: "duplicate",
        duplicateOf: dup.id,
        similarity: pyRound(dup.similarity, 2),
        // The entry it duplicates, so the caller can show it before offering a boost.
        existing: {
          id: dup.id, category: dup.value.category, content: dup.value.content,
          keywords: dup.value.keywords ?? [], importance: importanceOf(dup.value), timestamp: dup.value.timestamp ?? null,
        },
      });
    }
    const line = JSON.stringify(entry);
    let added;
    try {
      added = appendLine(target, line);
    } catch (err) {
      throw new HelperError("E_WRITE", `Error writing memory file: ${detail(err)}`);
    }
    // The index is a cache: written without fsync, and a failure to write it costs only a full read next time.
    if ((base || rebuilt) && added.stat.size < 2n ** 32n) {
      const mine: IndexEntry = { offset: added.start, length: added.length, category: p.code, normHash: d.normHash, hashes: d.hashes };
      const now = { st: added.stat, tailHash: hashBytes(Buffer.from(`${line}\n`, "utf8")), tailFrom: added.start };
      if (rebuilt) {
        rebuilt.add(mine);
        writeIndex(indexPath, rebuilt.finish({ ...now, categories: bit }));
      } else if (base && opened) {
        // Fresh index: the new entry's record, then the header that makes it count (a crash in between leaves a
        // header that no longer matches the memory file, so the next add rebuilds).
        const more = new IndexBuilder(64);
        more.add(mine);
        appendInPlace(opened.fd, base, more.records(), now, bit);
      }
    }
  } finally {
    if (opened) closeSync(opened.fd);
  }
}

/** Records written at the end of an open index, then its new header (see appendRecords). */
function appendInPlace(fd: number, base: IndexScan, records: { n: number; bytes: Buffer }, now: { st: BigIntStats; tailHash: number; tailFrom: number }, categories: number): void {
  const { at, header } = appendRecords(base, records, now, categories);
  try {
    writeAllAt(fd, records.bytes, at);
    writeAllAt(fd, header, 0);
  } catch {
    /* the header no longer matches the memory file: the next add rebuilds */
  }
}

function writeAllAt(fd: number, buf: Buffer, position: number): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off, position + off);
}

/** A whole new index, renamed into place (no fsync: it is a cache); a failure costs a full read next time. */
function writeIndex(path: string, bytes: Buffer): void {
  try {
    sweepOrphans(path);
    writeAtomic(path, bytes, false);
  } catch {
    /* next add rebuilds it */
  }
}

async function append(target: string, entry: NewEntry) {
  try {
    ensureDir(dirname(target));
  } catch (err) {
    throw new HelperError("E_WRITE", `Error writing memory file: ${detail(err)}`);
  }
  await withLock(target, () => gateAndAppend(target, entry));
}

export default defineCommand({
  positionals: [{ ...MEMORY_PATH, path: "write" }],
  flags: {
    category: { type: "string", help: `category of a new entry: ${MEMORY_CATEGORIES.join(", ")}` },
    keywords: { type: "string", help: 'comma-separated keywords of a new entry, e.g. "api,auth"' },
    content: { type: "string", help: "the learning itself (new entry)" },
    importance: { type: "int", help: "importance 1-10 of a new entry (default 5)" },
    source: { type: "string", help: 'where the learning came from (default "unknown")' },
    "goal-context": { type: "string", help: "the goal the learning came from" },
    surprise: { type: "string", help: `what was unexpected about it: needed for an importance of ${HIGH_IMPORTANCE} or more` },
    boost: { type: "boolean", help: "raise the importance of entry --id by 1 (at most 10)" },
    decay: { type: "boolean", help: "lower the importance of entry --id by 1 (at least 1)" },
    id: { type: "string", help: "entry to boost or decay" },
    from: {
      type: "string",
      path: "read",
      help: 'JSON file holding the entry instead of the flags above: {"category","keywords","content","importance","surprise","source","goal_context"}, or {"id"} with --boost/--decay',
    },
  },
  async run(ctx, args) {
    const target = confine(ctx.cwd, argLabel("memory_path", args.memory_path as string, false), args.memory_path as string, "write", OWN.memory);
    const input: MemoryInput = args.from === undefined ? fromFlags(args) : fromFile(ctx.cwd, args);

    if (args.boost || args.decay) {
      if (args.boost && args.decay) throw usage("--boost and --decay are mutually exclusive");
      const id = input.id;
      if (isEmpty(id)) throw usage("--id required when using --boost or --decay");
      return adjust(target, args.memory_path as string, id as string, args.boost === true);
    }

    return storeMemory(target, input, ctx.now());
  },
});

/** Boost (or decay) the importance of memory `id` in the memory file `target` (`shown`: as the caller named it). */
export const adjustMemory = adjust;

/**
 * Store a new memory in the memory file `target` (its real path, confined by the caller) behind the gates: the
 * field checks, the session-specific gate, then the duplicate gate under the lock. A refusal throws with its `gate`.
 */
export async function storeMemory(target: string, input: MemoryInput, now: number): Promise<{ id: string; category: string; keywords: string[]; importance: number }> {
  const { category, content, importance } = input;
  if (category === "") throw refuse("category", "--category is required for new entries");
  // Whitespace-only content carries no learning: refused like empty content (stricter than the reference).
  if (content.trim() === "") throw refuse("content", "--content is required for new entries");
  if (importance < 1 || importance > 10) throw refuse("importance", "Importance must be between 1 and 10 (inclusive)");
  if (!(MEMORY_CATEGORIES as readonly string[]).includes(category)) {
    throw refuse("category", `Invalid category '${category}'. Must be one of: {${MEMORY_CATEGORIES.map((c) => `'${c}'`).join(", ")}}`);
  }
  const keywords = input.keywords.map((k) => k.trim()).filter((k) => k !== "");
  if (keywords.length === 0) throw refuse("keywords", "At least one keyword is required");
  // The curator's transferability gate, as the seed says the helper applies it: what only describes this run
  // (its counts, dates, file lists) is refused before anything is read or locked.
  const session = sessionSpecific(content);
  if (session) {
    throw new HelperError(
      "E_INVALID",
      `Session-specific content (${SESSION_REASONS[session.reason]}: "${session.matched}"): a memory must stay true in later sessions; state the lasting fact without this run's counts, dates or file lists`,
      { gate: "session-specific", reason: session.reason, matched: session.matched },
    );
  }
  // The curator's specificity and surprise gates (quality-gates.ts).
  const vague = keywordProblem(keywords);
  if (vague) throw refuse("keywords", `Keywords: ${vague}`);
  const unspecific = specificityProblem(content, keywords);
  if (unspecific) throw new HelperError("E_INVALID", `Not specific: ${unspecific}`, { gate: "specificity" });
  const surprise = input.surprise.trim();
  const unsurprising = surpriseProblem(importance, surprise);
  if (unsurprising) throw refuse("importance", `Importance: ${unsurprising}`);

  const entry: NewEntry = {
    id: uuid4(),
    timestamp: isoSeconds(now),
    category,
    keywords,
    content,
    source: input.source || "unknown",
    goal_context: input.goalContext,
    importance,
    ...(surprise ? { surprise } : {}),
    usage_count: 0,
    ...(input.curator ? { curator: [input.curator] } : {}),
  };
  await append(target, entry);
  return { id: entry.id, category, keywords, importance };
}

export interface MemoryInput {
  category: string;
  keywords: string[];
  content: string;
  importance: number;
  source: string;
  goalContext: string;
  /** What was unexpected (needed from HIGH_IMPORTANCE on); "" when not given. */
  surprise: string;
  id: string | undefined;
  /** curator-apply's mark for the stored entry (see NewEntry). */
  curator?: string;
}

function fromFlags(args: Record<string, unknown>): MemoryInput {
  return {
    category: (args.category as string | undefined) ?? "",
    keywords: ((args.keywords as string | undefined) ?? "").split(","),
    content: (args.content as string | undefined) ?? "",
    importance: (args.importance as number | undefined) ?? 5,
    source: (args.source as string | undefined) ?? "",
    goalContext: (args["goal-context"] as string | undefined) ?? "",
    surprise: (args.surprise as string | undefined) ?? "",
    id: args.id as string | undefined,
  };
}

const ENTRY_FLAGS = ["category", "keywords", "content", "importance", "source", "goal-context", "surprise", "id"];

/**
 * --from: the entry as JSON data in a file, so text written by a person or a model (quotes, $(...), backticks,
 * newlines) reaches the helper without passing through a shell. Keywords may be a list or a comma-separated string.
 */
function fromFile(cwd: string, args: Record<string, unknown>): MemoryInput {
  const clash = ENTRY_FLAGS.filter((f) => args[f] !== undefined);
  if (clash.length) throw usage(`memory-add: --from cannot be combined with ${clash.map((f) => `--${f}`).join(", ")}`);
  const path = args.from as string;
  const r = readJson(resolve(cwd, path));
  if (r.kind === "missing") throw new HelperError("E_NOT_FOUND", `Input file not found: ${path}`);
  if (r.kind === "error") throw new HelperError("E_READ", `Error reading input file: ${r.detail}`);
  if (r.kind === "invalid") throw new HelperError("E_JSON", `Invalid JSON in input file: ${r.detail}`);
  const doc = r.value;
  if (!isObject(doc)) throw new HelperError("E_SCHEMA", "Input file must hold a JSON object");
  const text = (key: string, gate: Gate | null): string => {
    const v = doc[key];
    if (v === undefined || v === null) return "";
    if (typeof v !== "string") throw gate ? refuse(gate, `${key} must be a string`) : usage(`memory-add: ${key} must be a string`);
    return v;
  };
  const kw = doc.keywords;
  let keywords: string[];
  if (kw === undefined || kw === null) keywords = [];
  else if (typeof kw === "string") keywords = kw.split(",");
  else if (Array.isArray(kw) && kw.every((k) => typeof k === "string")) keywords = kw as string[];
  else throw refuse("keywords", "keywords must be a list of strings or a comma-separated string");
  const imp = doc.importance;
  if (imp !== undefined && imp !== null && !isInt(imp)) throw refuse("importance", "importance must be an integer from 1 to 10");
  const id = doc.id;
  if (id !== undefined && id !== null && typeof id !== "string") throw usage("memory-add: id must be a string");
  return {
    category: text("category", "category"),
    keywords,
    content: text("content", "content"),
    importance: (imp as number | undefined) ?? 5,
    source: text("source", null),
    goalContext: "goal_context" in doc ? text("goal_context", null) : text("goalContext", null),
    surprise: text("surprise", "importance"),
    id: (id as string | undefined) ?? undefined,
  };
}
