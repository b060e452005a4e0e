// Zod schema of one .design/memory.jsonl line (contract 2.2). Documentation for the `schema` command (printed
// with z.toJSONSchema) and usable by validators; the memory commands themselves check by hand and load no zod,
// because they start on every skill run.
import { z } from "zod";
import { MEMORY_CATEGORIES } from "../lib/vocabulary.js";

export const MemoryCategorySchema = z
  .enum(MEMORY_CATEGORIES)
  .describe(
    "Kind of learning: pattern (a reusable way of doing things), mistake (an error and how to avoid it), convention " +
      "(a project rule), approach (a strategy that worked), failure (what broke and why), procedure (steps to follow).",
  );
export type MemoryCategory = z.infer<typeof MemoryCategorySchema>;

export const MemoryEntrySchema = z
  .object({
    id: z.string().describe("Entry id: a lowercase UUID v4 for entries written by memory-add; older entries may use any string."),
    timestamp: z
      .union([z.string(), z.number()])
      .describe("When the entry was written: UTC 'YYYY-MM-DDTHH:MM:SSZ'; legacy entries may hold epoch seconds."),
    category: MemoryCategorySchema,
    keywords: z
      .union([z.array(z.string()).min(1), z.string()])
      .describe(
        "Keywords, trimmed, case preserved, at least one. memory-search matches them verbatim against lowercase query " +
          "words of 3+ letters, so lowercase single words work best. Legacy files may hold one string.",
      ),
    content: z.string().min(1).describe("The learning itself, written so it transfers to a future run."),
    source: z.string().optional().describe("Where the learning came from; memory-add writes 'unknown' when not given."),
    goal_context: z.string().optional().describe("The goal of the run that produced the learning (default '')."),
    importance: z
      .number()
      .int()
      .min(1)
      .max(10)
      .optional()
      .describe("1-10; readers use 5 when absent. memory-add --boost / --decay move it by one within 1..10."),
    usage_count: z.number().int().min(0).optional().describe("Written as 0; the helper never increments it."),
  })
  .loose()
  .describe("One line of .design/memory.jsonl: a learning carried from one run to the next. Unknown keys are kept.");
export type MemoryEntry = z.infer<typeof MemoryEntrySchema>;
