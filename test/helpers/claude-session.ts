// A scratch Claude Code config folder and session for in-process helper calls that read the session's agent
// transcripts (record-usage, --waiting, next's second look at a stall): sets CLAUDE_CONFIG_DIR and
// CLAUDE_CODE_SESSION_ID, clears the Bash timeout variables the stall limit reads, and restores all four after the test.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";

const KEYS = ["CLAUDE_CONFIG_DIR", "CLAUDE_CODE_SESSION_ID", "BASH_MAX_TIMEOUT_MS", "BASH_DEFAULT_TIMEOUT_MS"] as const;

/** Make the scratch config folder, point the environment at it and session `id`; answers the folder. */
export function claudeSession(t: TestContext, id: string): string {
  const config = mkdtempSync(join(tmpdir(), "do-config-"));
  const saved = KEYS.map((k) => [k, process.env[k]] as const);
  process.env.CLAUDE_CONFIG_DIR = config;
  process.env.CLAUDE_CODE_SESSION_ID = id;
  delete process.env.BASH_MAX_TIMEOUT_MS;
  delete process.env.BASH_DEFAULT_TIMEOUT_MS;
  t.after(() => {
    for (const [k, v] of saved) v === undefined ? delete process.env[k] : (process.env[k] = v);
    rmSync(config, { recursive: true, force: true });
  });
  return config;
}
