// Types of scripts/test-queue.mjs, for the tests that import it.
export interface TestQueue {
  take(): string | null;
  finished(file: string): void;
  left(): number;
}
export function testQueue(files: string[], opts: { weight: (file: string) => number; exclusive: (file: string) => boolean }): TestQueue;
