// archive: move a finished run's artifacts from the project's .design/ (the only directory it accepts, its real
// path, symlinks followed) into .design/history/<UTC stamp>/, keeping the
// persistent files, locks, in-flight temporary files and the state of an unfinished skill run (contract 4.20;
// D18). Two archives in the same second
// get their own folders (-2, -3, ...). The plan lock is held while moving, so a concurrent update-status either
// finishes first or finds the plan gone.
// A plan someone may still want (ready, in progress or broken, as preflight's digest classifies it) is never moved
// unless the call says so (--include-plan): without it the command answers E_INVALID with `planState` and moves
// nothing. --keep-plan moves a stopped run's artifacts but leaves the plan and the files of its execution;
// --only experts moves just the expert artifacts (expert-*.json), so an earlier run's cannot pass as new, but keeps
// (`kept`) those a ready or in-progress plan names: its workers read them. Every mode keeps the researcher artifacts
// recon.json names as its sources, unless --include-recon (recon's own call). The move keeps a journal in its history
// folder: the next call finishes an archive a kill cut short into that same folder (`resumed`).
import { join } from "node:path";
import { END_GRANT_FLAG, refuseWhileGranted } from "../../lib/grant/grant-hold.js";
import { defineCommand, type Context } from "../../lib/command/command.js";
import { HelperError, detail, usage } from "../../base/errors.js";
import { compactStamp } from "../../lib/values.js";
import { isRunFileName, readRun } from "../../lib/run/run-state.js";
import {
  argLabel, confine, isLockName, isTempName, listDir, makeHistoryFolder, moveIntoHistory, pathKind, PERSISTENT, projectRoots, readConfined, readJson, resumeMoves, withLock,
} from "../../store.js";
import { OWN } from "../../base/owned.js";
import { digestPlan, type PlanState } from "./preflight.js";

const NOTHING = { message: "nothing to archive" };

/** Plan states that mean someone may still want the plan: moved only with --include-plan. */
const WANTED: ReadonlySet<PlanState> = new Set(["ready", "in_progress", "invalid"]);

/** The plan and the files of its execution, which --keep-plan leaves in place. */
const PLAN_FILES: ReadonlySet<string> = new Set(["plan.json", "specs", "grant.json", "workflow.js"]);
const EXECUTION_FILE = /^(worker-.+\.json|.+-report\.json|fix-.+\.json)$/;

/** An expert's (design, improve) or researcher's (recon) artifact. */
const EXPERT_FILE = /^expert-.+\.json$/;

function candidates(dir: string, shown: string): string[] {
  let names: string[];
  try {
    names = listDir(dir).map((e) => e.name);
  } catch (err) {
    throw new HelperError("E_READ", `Error reading ${shown}: ${detail(err)}`);
  }
  return names.filter((n) => !PERSISTENT.has(n) && !isLockName(n) && !isTempName(n) && !isIncompleteRun(dir, n));
}

/** The entries this call moves, from the candidates and the flags. */
function selected(names: string[], only: string | undefined, keepPlan: boolean): string[] {
  if (only === "experts") return names.filter((n) => EXPERT_FILE.test(n));
  if (keepPlan) return names.filter((n) => !PLAN_FILES.has(n) && !EXECUTION_FILE.test(n));
  return names;
}

/**
 * The expert artifacts (`expert-*.json` names) that a plan someone may still execute names: its expertArtifacts and
 * its roles' expertContext. Workers read them, so `--only experts` leaves them in place.
 */
function namedByPlan(doc: unknown): Set<string> {
  const names = new Set<string>();
  const add = (p: unknown) => {
    if (typeof p !== "string") return;
    const m = /^(?:\.\/)?\.design\/(expert-[^/]+\.json)$/.exec(p.trim());
    if (m && EXPERT_FILE.test(m[1])) names.add(m[1]);
  };
  if (doc === null || typeof doc !== "object") return names;
  const plan = doc as Record<string, unknown>;
  for (const a of Array.isArray(plan.expertArtifacts) ? plan.expertArtifacts : []) add((a as Record<string, unknown> | null)?.path);
  for (const r of Array.isArray(plan.roles) ? plan.roles : []) {
    const ctx = (r as Record<string, unknown> | null)?.expertContext;
    for (const c of Array.isArray(ctx) ? ctx : []) add((c as Record<string, unknown> | null)?.artifact);
  }
  return names;
}

/**
 * The researcher artifacts `.design/recon.json` (which outlives every run) names as its sources: a later design or
 * improve that archived them left recon.json pointing at moved files (issue 31), so archive keeps them unless
 * `--include-recon` (recon's own call, whose new researchers write the same names).
 */
function namedByRecon(doc: unknown): Set<string> {
  const names = new Set<string>();
  if (doc === null || typeof doc !== "object") return names;
  const sources = (doc as Record<string, unknown>).sources;
  for (const src of Array.isArray(sources) ? sources : []) {
    const p = (src as Record<string, unknown> | null)?.artifact;
    const m = typeof p === "string" ? /^(?:\.\/)?(?:\.design\/)?(expert-[^/]+\.json)$/.exec(p.trim()) : null;
    if (m && EXPERT_FILE.test(m[1])) names.add(m[1]);
  }
  return names;
}

/** Create history/<stamp>, or the first free history/<stamp>-<k>; returns the folder name. */
function makeDestination(historyDir: string, stamp: string): string {
  try {
    return makeHistoryFolder(historyDir, stamp);
  } catch (err) {
    throw new HelperError("E_WRITE", `Error creating archive directory: ${detail(err)}`);
  }
}

/** An unfinished run's state stays in place so the skill can resume; a finished one goes with its run. */
function isIncompleteRun(dir: string, name: string): boolean {
  if (!isRunFileName(name)) return false;
  const r = readRun(join(dir, name));
  return r.kind === "ok" && r.run.completedAt === null;
}

const STATE_WORDS: Record<PlanState, string> = {
  none: "absent",
  ready: "ready and not executed",
  in_progress: "in progress",
  done: "finished",
  invalid: "broken",
};

export default defineCommand({
  positionals: [{ name: "design_dir", help: "the project's design directory: .design", path: "write" }],
  flags: {
    "include-plan": { type: "boolean", help: "also move a plan.json that is ready, in progress or broken (only once the user chose to archive it)" },
    "keep-plan": { type: "boolean", help: "move the stopped run's artifacts but keep plan.json, specs/ and the files of the plan's execution" },
    only: { type: "string", choices: ["experts"], help: "move only one kind of artifact: experts = .design/expert-*.json" },
    "include-recon": { type: "boolean", help: "also move the researcher artifacts recon.json names as its sources (recon's own call)" },
    "end-grant": END_GRANT_FLAG,
  },
  async run(ctx, args) {
    return archiveDesign(ctx, {
      designDir: args.design_dir as string,
      includePlan: args["include-plan"] === true,
      keepPlan: args["keep-plan"] === true,
      only: args.only as string | undefined,
      endGrant: args["end-grant"],
      includeRecon: args["include-recon"] === true,
    });
  },
});

export interface ArchiveOptions {
  /** The design dir as given (default `.design`). */
  designDir?: string;
  includePlan?: boolean;
  keepPlan?: boolean;
  only?: string;
  /** Also move the researcher artifacts recon.json names (recon's own call, whose researchers write those names). */
  includeRecon?: boolean;
  endGrant?: unknown;
}

/** The archive itself (see the header); run-begin calls it to set a finished plan and earlier experts aside. */
export async function archiveDesign(ctx: Context, o: ArchiveOptions): Promise<Record<string, unknown>> {
  refuseWhileGranted(ctx, o.endGrant, "archiving");
  const given = o.designDir ?? ".design";
  const includePlan = o.includePlan === true;
  const keepPlan = o.keepPlan === true;
  const only = o.only;
  if (includePlan && keepPlan) throw usage("archive: --include-plan and --keep-plan exclude each other");
  if (only !== undefined && (includePlan || keepPlan)) throw usage(`archive: --only ${only} moves no plan; drop --include-plan/--keep-plan`);
  const shown = given.replace(/\/+$/, "") || given;
  // Only the project's own .design/ is ever archived (confineArgs already refused anything outside it).
  const dir = confine(ctx.cwd, argLabel("design_dir", given, false), given, "write", OWN.designDir);
  const { design } = projectRoots(ctx.cwd);
  if (dir !== design) {
    throw new HelperError("E_PATH", `design_dir '${given}' is not the project's .design/: ${dir}`, { path: dir });
  }
  const kind = pathKind(dir);
  if (kind === "missing") return NOTHING;
  if (kind !== "directory") throw new HelperError("E_USAGE", `${shown} is not a directory`);
  const historyDir = confine(ctx.cwd, `history folder '${shown}/history'`, join(dir, "history"), "write", OWN.history);
  // An archive a kill cut short is finished into its own folder first, so what it left is never archived apart.
  const resumed = resumeMoves(historyDir, dir).map((f) => `${shown}/history/${f}`);
  const nothing = resumed.length ? { ...NOTHING, resumed } : NOTHING;
  if (selected(candidates(dir, shown), only, keepPlan).length === 0) return nothing;

  return withLock(join(dir, "plan.json"), () => {
    // Listed again under the lock: the entries to move are the ones present now.
    let names = selected(candidates(dir, shown), only, keepPlan);
    let kept: string[] = [];
    if (only === "experts") {
      const read = readConfined(ctx.cwd, join(dir, "plan.json"), readJson);
      if (read.kind === "ok" && (digestPlan(read).state === "ready" || digestPlan(read).state === "in_progress")) {
        const named = namedByPlan(read.value);
        kept = names.filter((n) => named.has(n));
        names = names.filter((n) => !named.has(n));
      }
    }
    if (o.includeRecon !== true) {
      const recon = readConfined(ctx.cwd, join(dir, "recon.json"), readJson);
      const named = recon.kind === "ok" ? namedByRecon(recon.value) : new Set<string>();
      kept = [...kept, ...names.filter((n) => named.has(n))];
      names = names.filter((n) => !named.has(n));
    }
    if (names.length === 0) return kept.length ? { ...nothing, kept } : nothing;
    if (names.includes("plan.json") && !includePlan) {
      const plan = digestPlan(readConfined(ctx.cwd, join(dir, "plan.json"), readJson));
      if (WANTED.has(plan.state)) {
        const why = plan.state === "invalid" ? ` (${plan.error})` : "";
        throw new HelperError(
          "E_INVALID",
          `${shown}/plan.json is ${STATE_WORDS[plan.state]}${why}: archive it only after the user chose to (--include-plan), or keep it (--keep-plan)`,
          { planState: plan.state },
        );
      }
    }
    const folder = makeDestination(historyDir, compactStamp(ctx.now()));
    try {
      moveIntoHistory(join(historyDir, folder), [{ from: dir, names }]);
    } catch (err) {
      throw new HelperError("E_WRITE", `Error archiving files: ${detail(err)}`);
    }
    return { archivedTo: `${shown}/history/${folder}`, archived: names, ...(kept.length ? { kept } : {}), ...(resumed.length ? { resumed } : {}) };
  });
}
