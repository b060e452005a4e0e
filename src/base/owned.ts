// Which files under .design/ each helper command may write: one table, used by the helper (confine() in
// store/confine.ts refuses a write whose real path its owner does not allow) and by the permission hook (a helper
// call whose path argument names another command's file is not approved). `.design/` holds code: plan.json's
// checks, specs/, the grant, the run a grant is bound to, the Workflow script. A command that may write one file
// there must not be pointed at another (memory-add appending a JSON line to a spec script, recon-rank writing
// grant.json), so every write is judged by the real path it lands on, symlinks followed.
//
// Imports nothing: the hook bundles this file.

/** A rule of ownership: what a command may write, in words, and the test of a real path against it. */
export interface Owner {
  /** What the rule allows, worded for an E_PATH message: "<arg> is not <what>: <real path>". */
  readonly what: string;
  /**
   * Whether a real path is allowed, given as its segments relative to the real `<project>/.design` (the empty
   * list for `.design` itself). Names are compared exactly (a case-insensitive disk gets no second spelling).
   */
  allows(rel: readonly string[]): boolean;
}

const one = (what: string, test: (name: string) => boolean): Owner => ({
  what,
  allows: (rel) => rel.length === 1 && test(rel[0]),
});
const named = (file: string): Owner => one(`.design/${file}`, (n) => n === file);

/** Every rule of the table, by what it guards. */
export const OWN = {
  /** `.design` itself: archive's design_dir, run-start/-checkpoint/-complete's --design-dir. */
  designDir: { what: "the project's .design/", allows: (rel) => rel.length === 0 } as Owner,
  /** memory-add: a memory file directly in .design/ (its index, lock and temp files sit beside it). */
  memory: one("a memory file (.design/memory*.jsonl)", (n) => /^memory[A-Za-z0-9_-]*\.jsonl$/.test(n)),
  /** next and workflow: the ranking index of the memory file (commands/memory/rank-index.ts), a cache. */
  memoryTerms: named(".memory.jsonl.terms"),
  /** reflection-add: a reflection file directly in .design/. */
  reflection: one("a reflection file (.design/reflection*.jsonl)", (n) => /^reflection[A-Za-z0-9_-]*\.jsonl$/.test(n)),
  /** recon-rank --out (and the recon-<k>.json it picks when the name is taken). */
  recon: one("a recon file (.design/recon*.json)", (n) => /^recon[A-Za-z0-9_-]*\.json$/.test(n)),
  /** update-status, next (the starts it hands out), resume-reset, add-constraints, challenge-resolve, run-checks, finish, record-usage, budget; finalize's installed plan. */
  plan: named("plan.json"),
  /** finalize's plan_path: the installed plan (finalized in place) or the draft it installs. */
  planOrDraft: {
    what: ".design/plan.json or .design/draft/plan.json",
    allows: (rel) => (rel.length === 1 && rel[0] === "plan.json") || (rel.length === 2 && rel[0] === "draft" && rel[1] === "plan.json"),
  } as Owner,
  /** finalize: the spec files it installs from the draft. */
  spec: {
    what: "a spec file (.design/specs/<file>, no dotfile)",
    allows: (rel) => rel.length >= 2 && rel[0] === "specs" && rel.every((s) => s !== "" && !s.startsWith(".")),
  } as Owner,
  /** next: a worker's brief, `.design/briefs/<agent>.md` (lib/attempts/briefs.ts). */
  brief: {
    what: "a brief (.design/briefs/<agent>.md)",
    allows: (rel) => rel.length === 2 && rel[0] === "briefs" && /^[A-Za-z0-9][A-Za-z0-9_-]*\.md$/.test(rel[1]),
  } as Owner,
  /**
   * next, update-status (a start's snapshot), commit and clean-attempt (their private index): the attempts' snapshot
   * store, `.design/snapshots/…` (lib/git/snapshot.ts: an object folder, private index files, no link followed).
   */
  snapshots: {
    what: "the attempts' snapshots (.design/snapshots/…)",
    allows: (rel) => rel.length >= 1 && rel[0] === "snapshots" && rel.every((s) => s !== "" && s !== ".."),
  } as Owner,
  /** workflow: the Workflow script. */
  workflow: named("workflow.js"),
  /** grant: the user's grant. */
  grant: named("grant.json"),
  /** report: the picture of the run, for a person (data). */
  report: named("report.html"),
  /** archive, run-start --fresh, recon-rank --replace: the folder they move files into. */
  history: named("history"),
  /** run-start --fresh: an output the stopped run recorded, moved into history (never .design itself). */
  recordedOutput: { what: "a file inside the project's .design/", allows: (rel) => rel.length > 0 } as Owner,
} as const;

const RUN_STATE: Record<string, Owner> = {};
/**
 * run-start, run-checkpoint, run-complete: the run state of their own skill only; the calls that record a phase's
 * checkpoint (FIXED_WRITES) the state of the skill whose phase they produce.
 */
export function runStateOwner(skill: string): Owner {
  return (RUN_STATE[skill] ??= named(`run-${skill}.json`));
}

/**
 * The write-path arguments of the helper's commands, by command and argument name (positional or flag), and whom
 * each may name. A command spec's `path: "write"` argument without a row here is refused (E_PATH), and
 * test/unit/owned.test.ts fails; the hook applies the same rows to the calls it approves.
 */
export const OWNED_ARGS: Readonly<Record<string, Readonly<Record<string, Owner>>>> = {
  "memory-add": { memory_path: OWN.memory },
  "reflection-add": { reflection_path: OWN.reflection },
  "recon-rank": { out: OWN.recon },
  "update-status": { plan_path: OWN.plan },
  next: { plan_path: OWN.plan },
  "run-checks": { plan_path: OWN.plan },
  finish: { plan_path: OWN.plan },
  "record-usage": { plan_path: OWN.plan },
  budget: { plan_path: OWN.plan },
  "resume-reset": { plan_path: OWN.plan },
  "add-constraints": { plan_path: OWN.plan },
  "challenge-resolve": { plan_path: OWN.plan },
  "curator-apply": { memory: OWN.memory },
  finalize: { plan_path: OWN.planOrDraft },
  archive: { design_dir: OWN.designDir },
  "run-start": { "design-dir": OWN.designDir },
  "run-checkpoint": { "design-dir": OWN.designDir },
  "run-complete": { "design-dir": OWN.designDir },
};

/**
 * The files a command writes that no argument names (fixed paths under .design/), by command: each write still goes
 * through confine() with one of these rules, and the command tests check that a call changes nothing else.
 * `runState` stands for the run state of the command's own skill (runStateOwner).
 */
export const FIXED_WRITES: Readonly<Record<string, ReadonlyArray<Owner | "runState">>> = {
  // the run state, the plan (resume-reset, budget), a reflection and the report for a run without a plan, history
  // (a replaced run and its recorded outputs)
  "run-begin": ["runState", OWN.plan, OWN.reflection, OWN.report, OWN.history, OWN.recordedOutput],
  // the reflection, the run state, the report
  "run-end": [OWN.reflection, "runState", OWN.report, OWN.snapshots],
  // the memory file its --memory names (OWNED_ARGS), and the curator's usage in the plan
  "curator-apply": [OWN.plan],
  // the auxiliary's usage in the plan
  "validate-auxiliary-report": [OWN.plan],
  // each start's brief (lib/attempts/briefs.ts), the live report: rewritten while the execute run is open and the
  // report exists (commands/run/live-report.ts), and the memory file's ranking index (commands/memory/rank-index.ts)
  next: [OWN.brief, OWN.report, OWN.snapshots, OWN.memoryTerms],
  // the memory file's ranking index, as next (commands/memory/rank-index.ts)
  workflow: [OWN.memoryTerms],
  finish: [OWN.report, OWN.snapshots],
  "update-status": [OWN.report, OWN.snapshots],
  // a start's snapshot and the private index of a commit or a clean-up (lib/git/snapshot.ts, lib/git/git.ts)
  commit: [OWN.snapshots],
  "clean-attempt": [OWN.snapshots],
  "run-checks": [OWN.report],
  "run-checkpoint": [OWN.report],
  // the checkpoints of the open run whose phase output they produce (lib/run/run-record.ts)
  "design-tier": ["runState"],
  "expert-validate": ["runState"],
  finalize: ["runState"],
  "recon-rank": ["runState"],
  "reflect-metrics": ["runState"],
  "improve-guards": ["runState"],
};

/** The owner rule of a command's write argument, or undefined when the table has none. */
export function ownerOf(command: string, arg: string): Owner | undefined {
  const row = Object.prototype.hasOwnProperty.call(OWNED_ARGS, command) ? OWNED_ARGS[command] : undefined;
  return row && Object.prototype.hasOwnProperty.call(row, arg) ? row[arg] : undefined;
}
