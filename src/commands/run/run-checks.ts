// run-checks: run one role's acceptance checks and its verification spec, exactly as plan.json spells them, and
// record the evidence in the role's running attempt. It runs only while the execute grant holds and covers every
// one of those commands for that role (the commands are taken from the very plan the grant was verified against,
// never from the caller, who names only the role); each runs as `bash -c <text>` from the project root with a
// minimal environment and a timeout (lib/checks/check-runner.ts). The evidence (exit code, duration, the last lines of
// output, the command text's SHA-256, a spec file's SHA-256) is what `update-status … completed` requires: a role
// is never completed on a report's word or the lead's. A role without a running attempt (a completed role checked
// again after a fix) gets its answer and nothing recorded.
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { checkEnv, findBash, runCheck } from "../../lib/checks/check-runner.js";
import { runningAttempt, specFileHash, type Evidence, type RoleCommand } from "../../lib/checks/evidence.js";
import { checksGrant } from "../../lib/grant/grant.js";
import { PLAN_PATH_WRITE, rolesOf } from "../../lib/plan/plan.js";
import { updatePlan } from "../../lib/plan/plan-update.js";
import { isObject, isoSeconds, sha256 } from "../../lib/values.js";
import { projectRoots } from "../../store.js";
import { refreshLiveReport } from "./live-report.js";

/** Seconds each command may run (default) and at most. */
export const CHECK_TIMEOUT_S = 300;
export const MAX_TIMEOUT_S = 3600;

/**
 * Run a role's granted commands (as `checksGrant` answered them) one after the other and answer their evidence.
 * Throws E_INVALID when no bash is found.
 */
export async function runCommands(project: string, commands: readonly RoleCommand[], timeoutS: number, now: () => number): Promise<Evidence[]> {
  const bash = findBash();
  if (bash === null) throw new HelperError("E_INVALID", "run-checks: no bash found in /bin, /usr/bin, /usr/local/bin or PATH");
  const env = checkEnv();
  const evidence: Evidence[] = [];
  for (const c of commands) {
    const specSha256 = c.kind === "spec" && c.path !== undefined ? specFileHash(project, c.path, (b) => sha256(b)) : undefined;
    const ranAt = isoSeconds(now());
    const r = await runCheck(bash, c.command, project, env, timeoutS * 1000);
    evidence.push({
      kind: c.kind,
      check: c.command,
      sha256: sha256(c.command),
      exitCode: r.exitCode,
      signal: r.signal,
      timedOut: r.timedOut,
      passed: r.exitCode === 0 && !r.timedOut,
      durationMs: r.durationMs,
      output: r.output,
      ranAt,
      ...(c.kind === "spec" ? { spec: c.path ?? "", specSha256: specSha256 ?? null } : {}),
    });
  }
  return evidence;
}

/** The answer's view of the evidence: each command's outcome and output tail. */
export function evidenceView(evidence: readonly Evidence[]) {
  return evidence.map((e) => ({ kind: e.kind, check: e.check, exitCode: e.exitCode, timedOut: e.timedOut, passed: e.passed, durationMs: e.durationMs, output: e.output }));
}

export default defineCommand({
  positionals: [PLAN_PATH_WRITE],
  flags: {
    role: { type: "string", required: true, help: "the role: its index in plan.json or its exact name" },
    timeout: { type: "int", help: `seconds each command may run (default ${CHECK_TIMEOUT_S}, at most ${MAX_TIMEOUT_S})` },
  },
  async run(ctx, args) {
    const ref = args.role as string;
    const timeoutS = (args.timeout as number | undefined) ?? CHECK_TIMEOUT_S;
    if (!Number.isInteger(timeoutS) || timeoutS < 1 || timeoutS > MAX_TIMEOUT_S) {
      throw new HelperError("E_USAGE", `run-checks: --timeout must be 1 to ${MAX_TIMEOUT_S} seconds`);
    }
    const { project } = projectRoots(ctx.cwd);
    const granted = checksGrant(project, ref, ctx.now());
    if ("why" in granted) throw new HelperError("E_INVALID", `run-checks runs only what the execute grant covers: ${granted.why}`);
    const { role, commands, plan } = granted;
    const open = runningAttempt(rolesOf(plan)[role.index]);
    const evidence = await runCommands(project, commands, timeoutS, ctx.now);
    const passed = evidence.every((e) => e.passed);

    // Recorded in the attempt that was running when the checks started, if it still is.
    let recorded = false;
    let note = "";
    if (!open) note = `role ${role.index} (${role.name}) has no running attempt: the evidence is answered, not recorded`;
    else {
      note = await updatePlan(ctx.cwd, args.plan_path as string, ["progress"], (doc) => {
        const now = runningAttempt(rolesOf(doc)[role.index]);
        const same = now && rolesOf(doc)[role.index]?.name === role.name && now.attempt === open.attempt && now.agent === open.agent;
        if (!same || !isObject(now)) return { write: false, result: "the attempt ended while its checks ran: nothing recorded" };
        now.evidence = evidence;
        recorded = true;
        return { write: true, result: "" };
      });
      if (recorded) await refreshLiveReport(ctx.cwd, ctx.now());
    }
    return {
      role: role.name,
      roleIndex: role.index,
      attempt: open?.attempt ?? null,
      agent: open?.agent ?? null,
      passed,
      recorded,
      ...(note ? { note } : {}),
      summary: `${evidence.filter((e) => e.passed).length}/${evidence.length} passed`,
      results: evidenceView(evidence),
    };
  },
});
