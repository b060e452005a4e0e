// validate-checks: judge every acceptance check as the shell will run it before finalize (contract 4.24, 3.9; D7,
// D9, D12): bash -n for its syntax, the inline Python each `python -c` receives after quoting and expansion,
// exit-code maskers, CI expressions, placeholders and prose (lib/checks/checks.ts). One python3 child per invocation, and
// one bash unless a check fails to parse.
import { verifyChecks, type CheckVerdict } from "../../lib/checks/checks.js";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { arrayOf, loadPlan, PLAN_PATH, rolesOf } from "../../lib/plan/plan.js";
import { isEmpty, isObject } from "../../lib/values.js";

interface Row {
  roleIndex: number;
  roleName: unknown;
  criterionIndex: number;
  criterion: unknown;
  /** Set for checks decided without Python; otherwise `check` goes to the compiler. */
  verdict?: CheckVerdict;
  check?: string;
}

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {},
  async run(ctx, args) {
    const doc = loadPlan(ctx.cwd, args.plan_path as string);
    const rows: Row[] = [];
    rolesOf(doc).forEach((role, i) => {
      const roleName = "name" in role ? role.name : `role-${i}`;
      arrayOf(role.acceptanceCriteria).forEach((ac, j) => {
        const row: Row = { roleIndex: i, roleName, criterionIndex: j, criterion: "" };
        if (!isObject(ac)) row.verdict = { valid: false, error: "Criterion must be an object" };
        else {
          if ("criterion" in ac) row.criterion = ac.criterion;
          if (isEmpty(ac.check)) row.verdict = { valid: false, error: "Empty check command" };
          else if (typeof ac.check !== "string") row.verdict = { valid: false, error: "Check must be a string" };
          else row.check = ac.check;
        }
        rows.push(row);
      });
    });

    const toCompile = rows.filter((r) => r.verdict === undefined);
    const { verdicts, pythonAvailable, bashAvailable } = await verifyChecks(toCompile.map((r) => r.check as string));
    toCompile.forEach((r, k) => (r.verdict = verdicts[k]));

    const results = rows.map(({ roleIndex, roleName, criterionIndex, criterion, verdict }) => ({
      roleIndex,
      roleName,
      criterionIndex,
      criterion,
      ...(verdict as CheckVerdict),
    }));
    const extra = { ...(pythonAvailable ? {} : { pythonAvailable: false }), ...(bashAvailable ? {} : { bashAvailable: false }) };
    const invalid = results.filter((r) => !r.valid).length;
    if (invalid > 0) throw new HelperError("E_INVALID", `${invalid} invalid check command(s)`, { results, ...extra });
    return { results, ...extra };
  },
});
