// The memories each role of a plan starts with: per role, the best few of the project's memory file by
// memory-search's scoring (rank-file.ts) over the words of its goal and of its scope, less the scope words every
// role shares (`src`, `test`: they tell the roles apart no better than no word at all). `next` hands them with each
// start and the workflow compiles them into its script, so the lead searches memory for no role itself. A large
// memory file is read through its ranking index (rank-index.ts). A memory file that is missing, outside the project
// or unreadable gives none and a warning: memories help a worker, they never stop the run.
import { scopeOf, stringsOf, type Json } from "../../lib/plan/plan.js";
import { OWN } from "../../base/owned.js";
import { confine, confined } from "../../store.js";
import { rankMemoryIndexed, TERMS_FILE } from "./rank-index.js";
import { searchQuery } from "./scoring.js";

/** The memory file read, and how many memories a role gets at most. */
export const MEMORY_FILE = ".design/memory.jsonl";
export const MEMORIES_PER_ROLE = 3;

export interface Memory {
  id: string;
  category: string;
  content: string;
}

/** Per role index of `indices`, its best memories; each problem with the file is one line of `warnings`. */
export function memoriesFor(cwd: string, roles: Json[], indices: number[], nowMs: number, warnings: string[]): Map<number, Memory[]> {
  const out = new Map<number, Memory[]>(indices.map((i) => [i, []]));
  if (indices.length === 0) return out;
  let path: string;
  try {
    path = confine(cwd, "memory file", MEMORY_FILE, "read");
  } catch (err) {
    warnings.push(`memories: ${(err as Error).message}; the starts carry none`);
    return out;
  }
  // A scope word every role's scope holds (`src`, `test`) tells the roles apart no better than no word at all.
  const scopeWords = roles.map((role) => {
    const scope = scopeOf(role);
    return searchQuery([...stringsOf(scope.directories), ...stringsOf(scope.patterns)]);
  });
  const common = roles.length > 1 ? [...scopeWords[0]].filter((w) => scopeWords.every((ws) => ws.has(w))) : [];
  const queries = indices.map((i) => {
    const query = searchQuery([roles[i].goal]);
    for (const w of scopeWords[i]) if (!common.includes(w)) query.add(w);
    return query;
  });
  // Through the ranking index beside it when that is fresh (rank-index.ts), else the whole file (and the index rebuilt).
  const scan = rankMemoryIndexed(path, confined(cwd, TERMS_FILE, "write", OWN.memoryTerms), queries, MEMORIES_PER_ROLE, nowMs / 1000);
  if (scan.kind === "missing") {
    warnings.push(`memories: no memory file (${MEMORY_FILE}) yet; the starts carry none`);
    return out;
  }
  if (scan.kind === "error") {
    warnings.push(`memories: error reading ${MEMORY_FILE}: ${scan.detail}; the starts carry none`);
    return out;
  }
  if (scan.skipped > 0) warnings.push(`memories: ${scan.skipped} unreadable line(s) of ${MEMORY_FILE} skipped`);
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  indices.forEach((i, q) => {
    out.set(i, scan.ranked[q].map(({ entry }) => ({ id: text(entry.id), category: text(entry.category), content: text(entry.content) })));
  });
  return out;
}
