// `--waiting`: the agents whose reports the lead still waits for, answered beside the report check the lead makes
// whenever one arrives (expert-validate, validate-auxiliary-report), so liveness costs no call of its own. Each named
// agent comes back alive, finished or stalled by the clock (lib/attempts/liveness.ts), on a passing check and on a failing one.
import { HelperError } from "../../base/errors.js";
import { agentLiveness, stallLimitMs, type LivenessAnswer } from "../../lib/attempts/liveness.js";
import type { Context } from "../../lib/command/command.js";
import { commaList, projectRoots } from "../../store.js";

const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const MAX_NAMES = 32;

export const WAITING_FLAGS = {
  waiting: {
    type: "string",
    default: "",
    help: "comma list of the agents whose reports are still missing: the answer says of each whether it works, finished or stalled (no transcript write within the stall limit)",
  },
  "stall-minutes": { type: "int", help: "the stall limit in minutes (default 15, or the Bash tool's ceiling + 5 when the environment raises it)" },
} as const;

/** The liveness of the `--waiting` agents, or null when none is named. Bad names: E_USAGE. */
export function waitingOf(ctx: Context, args: Record<string, unknown>, command: string): LivenessAnswer | null {
  const names = [...new Set(commaList((args.waiting as string | undefined) ?? ""))];
  const minutes = args["stall-minutes"] as number | undefined;
  if (minutes !== undefined && (minutes < 1 || minutes > 1440)) throw new HelperError("E_USAGE", `${command}: --stall-minutes must be 1 to 1440`);
  if (names.length === 0) return null;
  const bad = names.find((n) => !NAME.test(n));
  if (bad !== undefined) throw new HelperError("E_USAGE", `${command}: --waiting takes agent names (lowercase letters, digits, dashes): '${bad}'`);
  if (names.length > MAX_NAMES) throw new HelperError("E_USAGE", `${command}: --waiting names at most ${MAX_NAMES} agents`);
  return agentLiveness(projectRoots(ctx.cwd).project, process.env.CLAUDE_CODE_SESSION_ID ?? "", names, ctx.now(), stallLimitMs(minutes));
}

/** Run a report check with the waiting agents' liveness added to its answer, passing or failing. */
export function withWaiting(ctx: Context, args: Record<string, unknown>, command: string, check: () => Record<string, unknown>): Record<string, unknown> {
  const waiting = waitingOf(ctx, args, command);
  if (waiting === null) return check();
  try {
    return { ...check(), waiting };
  } catch (err) {
    if (err instanceof Error && err.name === "HelperError") {
      const e = err as HelperError;
      throw new HelperError(e.code, e.message, { ...e.extra, waiting });
    }
    throw err;
  }
}
