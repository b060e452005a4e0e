// The commands that would end a live execute grant (finalize, archive, run-start --fresh) refuse while one holds,
// unless told to end it (`--end-grant`, after the user chose to): a grant must not end as a side effect nobody saw.
import { HelperError } from "../../base/errors.js";
import { readGrant } from "./grant.js";
import type { Context } from "../command/command.js";
import { projectRoots } from "../../store.js";

export const END_GRANT_FLAG = { type: "boolean", help: "go on even though a live execute grant holds: that ends the grant" } as const;

/** Throw E_INVALID naming the grant when one holds for this project and `endGrant` is not set. */
export function refuseWhileGranted(ctx: Context, endGrant: unknown, what: string): void {
  if (endGrant === true) return;
  const grant = readGrant(projectRoots(ctx.cwd).project, ctx.now());
  if (!grant) return;
  throw new HelperError(
    "E_INVALID",
    `A grant holds for execute run ${grant.runId} (approved ${grant.approvedAt}, until ${grant.expiresAt}): ${what} would end it. Ask the user; to end it, repeat the call with --end-grant.`,
    { grant: { runId: grant.runId, approvedAt: grant.approvedAt, expiresAt: grant.expiresAt } },
  );
}
