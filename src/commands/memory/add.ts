// memory-add: append a memory behind quality gates, or boost / decay the importance of one (contract 4.17).
// Every write holds the file's lock (contract 1.7): an append adds one line with O_APPEND, keeping the old bytes
// and repairing a missing final newline (Fix D6); a boost or decay is a copy-and-rename that rewrites only the
// entry's own line, so every other line, corrupt ones included, survives byte for byte (Fix D5).
//
// Deliberate departure from the contract: 4.17 says "the helper does not deduplicate". This helper does: a new
// entry that is a near-duplicate of an existing one of the same category is refused (gate "duplicate") and the
// caller is told to boost the existing one instead. The check runs inside the lock, on the file as it is then,
// so two concurrent adds of the same text cannot both land. Large files are checked through an index kept beside
// them (dup-index.ts), which narrows the comparison to a few lines that are then read back and compared exactly.
//
// Why one file: the duplicate gate, the quality gates and the locked append are one transaction on the memory file.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, writeSync, type BigIntStats } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { defineCommand } from "../../lib/command.js";
import { HelperError, detail, usage } from "../../lib/errors.js";
import { isEmpty, isInt, isObject, isoSeconds, pyRound, pyStr, uuid4 } from "../../lib/values.js";
import {
  appendLine, argLabel, confine, ensureDir, MAX_JSONL_BYTES, openForRead, parseJsonl, parseJsonText, pathKind, readBytes, readFileBytes, readJson, readText,
  replaceLine, sweepOrphans, updateText, withLock, writeAtomic,
} from "../../store.js";
import { OWN } from "../../lib/owned.js";
import {
  appendRecord, bufferSource, categoryCode, describe, hashBytes, NO_CATEGORY, scanIndex, serialise, type IndexEntry, type IndexScan, type IndexSource, type Probe,
} from "./dup-index.js";
import { parseMemoryLine } from "./fast-line.js";
import { MEMORY_CATEGORIES, MEMORY_PATH, contentSimilarity, importanceOf } from "./scoring.js";

/**
 * Near-duplicate threshold: a new entry whose content has a Jaccard similarity of at least 0.8 on tokens()
 * with an existing entry of the same category (or the same text up to case and whitespace, similarity 1)
 * is refused. 0.8 means e.g. 4 shared words out of 5 distinct ones; 3 out of 4 (0.75) still passes.
 */
export const DUPLICATE_THRESHOLD = 0.8;

export type Gate = "category" | "importance" | "keywords" | "content" | "duplicate";

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

async function adjust(target: string, shown: string, id: string, boost: boolean) {
  if (pathKind(target) === "missing") throw new HelperError("E_NOT_FOUND", `Memory file not found: ${shown}`);
  try {
    return await updateText(
      target,
      (current) => {
        if (current === null) throw new HelperError("E_NOT_FOUND", `Memory file not found: ${shown}`);
        const found = parseJsonl(current).entries.find((e) => e.value.id === id);
        if (!found) throw new HelperError("E_NOT_FOUND", `Entry with id '${id}' not found`);
        const before = importanceOf(found.value);
        const importance = boost ? Math.min(10, before + 1) : Math.max(1, before - 1);
        const text = replaceLine(current, found.line, JSON.stringify({ ...found.value, importance }));
        return { text, result: { id, importance, action: boost ? "boosted" : "decayed" } };
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
  usage_count: number;
}

type Dup = { id: unknown; similarity: number; value: Record<string, unknown> } | undefined;

/** The most similar existing entry of the same category at or above the threshold (first one on ties). */
function nearDuplicate(current: string, entry: NewEntry): Dup {
  let best: Dup;
  for (const { value } of parseJsonl(current).entries) {
    if (value.category !== entry.category || typeof value.content !== "string") continue;
    const similarity = contentSimilarity(entry.content, value.content);
    if (similarity >= DUPLICATE_THRESHOLD && (!best || similarity > best.similarity)) best = { id: value.id, similarity, value };
  }
  return best;
}

/** Memory files from this size on keep a duplicate-gate index beside them (smaller ones are simply scanned). */
export const INDEX_MIN_BYTES = 256 * 1024;

/** `.design/memory.jsonl` → `.design/.memory.jsonl.index` */
export const indexPathOf = (target: string) => join(dirname(target), `.${basename(target)}.index`);

/** One line as an object (undefined for a blank, corrupt or non-object line); `fast`: try memory-add's layout first. */
const parseLine = (raw: string, fast = true): Record<string, unknown> | undefined => {
  const t = raw.trim();
  if (t === "") return undefined;
  const known = fast ? parseMemoryLine(t) : undefined;
  if (known) return known;
  try {
    const v: unknown = parseJsonText(t);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The exact verdict for the candidates the index lets through: each line is read back from the file and compared
 * with contentSimilarity. "stale" when a line is not the entry the index says it is.
 */
function verify(found: IndexScan["found"], entry: NewEntry, code: number, line: (offset: number, length: number) => string): Dup | "stale" {
  let best: Dup;
  for (const { offset, length } of found) {
    // JSON.parse only: for a handful of lines, compiling the layout pattern (~1-2 ms cold) costs more than it saves.
    const v = parseLine(line(offset, length), false);
    if (!v || categoryCode(v.category, v.content) !== code) return "stale";
    const similarity = contentSimilarity(entry.content, v.content as string);
    if (similarity >= DUPLICATE_THRESHOLD && (!best || similarity > best.similarity)) best = { id: v.id, similarity, value: v };
  }
  return best;
}

/** Every entry of the file for a new index (a full read: the index was missing, stale or not trusted). */
function scanForIndex(bytes: Buffer): IndexEntry[] {
  const out: IndexEntry[] = [];
  let start = 0;
  while (start <= bytes.length) {
    let end = start;
    while (end < bytes.length && bytes[end] !== 10 && bytes[end] !== 13) end++;
    const v = parseLine(bytes.toString("utf8", start, end));
    if (v) {
      const category = categoryCode(v.category, v.content);
      const d = category === NO_CATEGORY ? describe("") : describe(v.content as string);
      out.push({ offset: start, length: end - start, category, normHash: d.normHash, hashes: d.hashes });
    }
    start = end + (bytes[end] === 13 && bytes[end + 1] === 10 ? 2 : 1);
  }
  return out;
}

function readError(err: unknown): HelperError {
  return new HelperError("E_READ", `Error reading memory file: ${detail(err)}`);
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
 * Under the lock: the duplicate gate, then the append. A small file is parsed whole; a large one is checked
 * through its index: when the index is fresh, an add reads it, compares the few candidates, appends the line and
 * then one record to the index; when it is missing or stale, a full read rebuilds it (written even when the add
 * is refused, so the next add finds it fresh).
 */
function gateAndAppend(target: string, entry: NewEntry): void {
  let st: BigIntStats | undefined;
  try {
    st = statSync(target, { bigint: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw readError(err);
  }
  const code = categoryCode(entry.category, entry.content);
  const d = describe(entry.content);
  const probe: Probe = { category: code, hashes: d.hashes, normHash: d.normHash, size: d.size, threshold: DUPLICATE_THRESHOLD };
  const indexPath = indexPathOf(target);
  let dup: Dup;
  let base: IndexScan | undefined;
  let rebuilt: IndexEntry[] | undefined;
  let opened: { fd: number; source: IndexSource } | undefined;
  const indexed = st !== undefined && st.isFile() && st.size >= BigInt(INDEX_MIN_BYTES) && st.size < 2n ** 32n;
  try {
    if (st !== undefined && !indexed) {
      const cur = readText(target, MAX_JSONL_BYTES);
      if (cur.kind === "error") throw new HelperError("E_READ", `Error reading memory file: ${cur.detail}`);
      if (cur.kind === "ok") dup = nearDuplicate(cur.text, entry);
    } else if (st !== undefined) {
      const size = Number(st.size);
      let verdict: Dup | "stale" = "stale";
      opened = openIndex(indexPath);
      if (opened) {
        let fd: number;
        try {
          fd = openForRead(target, MAX_JSONL_BYTES);
        } catch (err) {
          throw readError(err);
        }
        try {
          const file = fd;
          base = scanIndex(opened.source, st, (from) => (from <= size ? pread(file, from, size - from) : undefined), probe);
          if (base) verdict = verify(base.found, entry, code, (offset, length) => pread(file, offset, length).toString("utf8"));
        } finally {
          closeSync(fd);
        }
      }
      if (verdict === "stale") {
        const read = readFileBytes(target, MAX_JSONL_BYTES);
        if (read.kind !== "ok") throw readError(new Error(read.kind === "error" ? read.detail : `${target} does not exist`));
        const bytes = read.bytes;
        const all = scanForIndex(bytes);
        const tailHash = hashBytes(bytes.subarray(all.length ? all[all.length - 1].offset : 0));
        const fresh = scanIndex(bufferSource(serialise(all, st, tailHash)), st, (from) => bytes.subarray(from), probe) as IndexScan;
        verdict = verify(fresh.found, entry, code, (offset, length) => bytes.toString("utf8", offset, offset + length));
        if (verdict === "stale") throw new HelperError("E_INTERNAL", "Internal error: memory index disagrees with a fresh scan");
        base = undefined;
        rebuilt = all;
        if (verdict) writeIndex(indexPath, serialise(all, st, tailHash));
      }
      dup = verdict;
    }
    if (dup) {
      const id = pyStr(dup.id);
      throw new HelperError("E_INVALID", `Near-duplicate of memory ${id}: boost it instead (memory-add --boost --id ${id})`, {
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
      const mine: IndexEntry = { offset: added.start, length: added.length, category: code, normHash: d.normHash, hashes: d.hashes };
      const tailHash = hashBytes(Buffer.from(`${line}\n`, "utf8"));
      if (base && opened) {
        // Fresh index: one record at its end, then the header that makes it count (a crash in between leaves a
        // header that no longer matches the memory file, so the next add rebuilds).
        const { record, at, header } = appendRecord(base, mine, added.stat, tailHash);
        try {
          writeAllAt(opened.fd, record, at);
          writeAllAt(opened.fd, header, 0);
        } catch {
          /* the header no longer matches the memory file: the next add rebuilds */
        }
      } else if (rebuilt) {
        writeIndex(indexPath, serialise([...rebuilt, mine], added.stat, tailHash));
      }
    }
  } finally {
    if (opened) closeSync(opened.fd);
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
    boost: { type: "boolean", help: "raise the importance of entry --id by 1 (at most 10)" },
    decay: { type: "boolean", help: "lower the importance of entry --id by 1 (at least 1)" },
    id: { type: "string", help: "entry to boost or decay" },
    from: {
      type: "string",
      path: "read",
      help: 'JSON file holding the entry instead of the flags above: {"category","keywords","content","importance","source","goal_context"}, or {"id"} with --boost/--decay',
    },
  },
  async run(ctx, args) {
    const target = confine(ctx.cwd, argLabel("memory_path", args.memory_path as string, false), args.memory_path as string, "write", OWN.memory);
    const input = args.from === undefined ? fromFlags(args) : fromFile(ctx.cwd, args);

    if (args.boost || args.decay) {
      if (args.boost && args.decay) throw usage("--boost and --decay are mutually exclusive");
      const id = input.id;
      if (isEmpty(id)) throw usage("--id required when using --boost or --decay");
      return adjust(target, args.memory_path as string, id as string, args.boost === true);
    }

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

    const entry: NewEntry = {
      id: uuid4(),
      timestamp: isoSeconds(ctx.now()),
      category,
      keywords,
      content,
      source: input.source || "unknown",
      goal_context: input.goalContext,
      importance,
      usage_count: 0,
    };
    await append(target, entry);
    return { id: entry.id, category, keywords, importance };
  },
});

interface Input {
  category: string;
  keywords: string[];
  content: string;
  importance: number;
  source: string;
  goalContext: string;
  id: string | undefined;
}

function fromFlags(args: Record<string, unknown>): Input {
  return {
    category: (args.category as string | undefined) ?? "",
    keywords: ((args.keywords as string | undefined) ?? "").split(","),
    content: (args.content as string | undefined) ?? "",
    importance: (args.importance as number | undefined) ?? 5,
    source: (args.source as string | undefined) ?? "",
    goalContext: (args["goal-context"] as string | undefined) ?? "",
    id: args.id as string | undefined,
  };
}

const ENTRY_FLAGS = ["category", "keywords", "content", "importance", "source", "goal-context", "id"];

/**
 * --from: the entry as JSON data in a file, so text written by a person or a model (quotes, $(...), backticks,
 * newlines) reaches the helper without passing through a shell. Keywords may be a list or a comma-separated string.
 */
function fromFile(cwd: string, args: Record<string, unknown>): Input {
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
    id: (id as string | undefined) ?? undefined,
  };
}
