// The order in which scripts/test.mjs hands test files to its workers: longest first (by the durations of the
// previous run), and never two exclusive files (the race tests) at the same time.

/**
 * @param {string[]} files
 * @param {{ weight: (file: string) => number, exclusive: (file: string) => boolean }} opts
 * @returns {{ take: () => string | null, finished: (file: string) => void, left: () => number }}
 */
export function testQueue(files, { weight, exclusive }) {
  const queue = [...files].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b));
  let exclusiveRunning = 0;
  return {
    /** The next file a free worker should run, or null when none may start now (the worker then stops). */
    take() {
      const i = queue.findIndex((f) => !(exclusiveRunning > 0 && exclusive(f)));
      if (i < 0) return null;
      const [file] = queue.splice(i, 1);
      if (exclusive(file)) exclusiveRunning++;
      return file;
    },
    finished(file) {
      if (exclusive(file)) exclusiveRunning--;
    },
    left: () => queue.length,
  };
}
