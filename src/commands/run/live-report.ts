// The live report (issue 29): while an execute run is open and `.design/report.html` exists (run-begin writes it when
// the run starts), each command that changes the run's state (a start, a finish, a stall or failure recorded, a check
// result, a phase checkpoint) rewrites it, and the page reloads itself while the run is open. The report's code stays
// in the report command's own bundle: this module loads it at run time (scripts/build.mjs keeps `../plan/report.js`
// an external path, the same from every dist/commands/<area>/ folder), so a call that writes no report compiles none
// of it. A report that cannot be rewritten fails nothing: it is a view.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openRunId } from "../../lib/cost/budget.js";
import { projectRoots } from "../../store.js";

/** Rewrite the report when the execute run is live and a report is there to keep current; answers whether it did. */
export async function refreshLiveReport(cwd: string, now: number): Promise<boolean> {
  try {
    const { design } = projectRoots(cwd);
    if (!existsSync(join(design, "report.html")) || openRunId(design) === null) return false;
    const { writeReport } = (await import("../plan/report.js")) as typeof import("../plan/report.js");
    const r = await writeReport(cwd, ".design/plan.json", now);
    return r.path !== null;
  } catch {
    return false;
  }
}
