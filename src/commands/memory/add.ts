// memory-add: append a memory behind quality gates, or boost / decay the importance of one (contract 4.17).
// Every write is a locked copy-and-rename through the store (contract 1.7): an append keeps the old bytes and
// repairs a missing final newline (Fix D6); a boost or decay rewrites only the entry's own line, so every other
// line, corrupt ones included, survives byte for byte (Fix D5).
//
// Deliberate departure from the contract: 4.17 says "the helper does not deduplicate". This helper does: a new
// entry that is a near-duplicate of an existing one of the same category is refused (gate "duplicate") and the
// caller is told to boost the existing one instead. The check runs inside the lock, on the file as it is then,
// so two concurrent adds of the same text cannot both land.
import { realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { defineCommand } from "../../lib/command.js";
import { HelperError, detail, usage } from "../../lib/errors.js";
import { isEmpty, isInt, isObject, isoSeconds, pyRound, pyStr, uuid4 } from "../../lib/values.js";
import { ensureDir, parseJsonl, pathKind, readJson, replaceLine, updateText, withAppendedLine } from "../../store.js";
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

/** The most similar existing entry of the same category at or above the threshold (first one on ties). */
function nearDuplicate(current: string, entry: NewEntry): { id: unknown; similarity: number; value: Record<string, unknown> } | undefined {
  let best: { id: unknown; similarity: number; value: Record<string, unknown> } | undefined;
  for (const { value } of parseJsonl(current).entries) {
    if (value.category !== entry.category || typeof value.content !== "string") continue;
    const similarity = contentSimilarity(entry.content, value.content);
    if (similarity >= DUPLICATE_THRESHOLD && (!best || similarity > best.similarity)) best = { id: value.id, similarity, value };
  }
  return best;
}

async function append(target: string, entry: NewEntry) {
  try {
    ensureDir(dirname(target));
  } catch (err) {
    throw new HelperError("E_WRITE", `Error writing memory file: ${detail(err)}`);
  }
  try {
    await updateText(
      target,
      (current) => {
        const dup = current === null ? undefined : nearDuplicate(current, entry);
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
        return { text: withAppendedLine(current, entry), result: undefined };
      },
      "Error writing memory file",
    );
  } catch (err) {
    throw rewordReadError(err, target);
  }
}

export default defineCommand({
  positionals: [MEMORY_PATH],
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
      help: 'JSON file holding the entry instead of the flags above: {"category","keywords","content","importance","source","goal_context"}, or {"id"} with --boost/--decay',
    },
  },
  async run(ctx, args) {
    const target = resolve(ctx.cwd, args.memory_path as string);
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
  // Reads stay inside the project (symlinks resolved), like every read of the helper.
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const rel = relative(real(cwd), real(resolve(cwd, path)));
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) throw usage(`memory-add: --from ${path} resolves outside the project`);
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
