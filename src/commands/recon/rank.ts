// recon-rank: the recon lead's draft (every candidate intervention, unranked) in, `.design/recon.json` out: the
// helper scores with recon-validate's rules, ranks, keeps the best five, counts the rest and writes the result
// atomically under the target's lock. An existing recon.json is never overwritten silently: without --replace the
// new one goes to the first free recon-2.json, recon-3.json, ... (seed 000's collision rule); with --replace the old
// one is first moved to .design/history/<stamp>/ and the new one takes its place. The open recon run records its
// synthesis (the draft) and write-and-validate (the ranked file) phases (lib/run/run-record.ts).
import { basename, dirname, join, relative, resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError, detail } from "../../base/errors.js";
import { rankRecon } from "../../lib/recon/recon-score.js";
import { compactStamp, isoSeconds } from "../../lib/values.js";
import { argLabel, confine, ensureDir, makeHistoryFolder, moveIntoHistory, pathKind, readJson, realPath, resumeMoves, withLock, writeAtomic } from "../../store.js";
import { OWN } from "../../base/owned.js";
import { recordPhases } from "../../lib/run/run-record.js";
import { reconError } from "./validate.js";

/** recon-2 ... recon-<MAX_SUFFIX>: more collisions than this means something is wrong, not a busy project. */
const MAX_SUFFIX = 100;

function loadDraft(cwd: string, path: string): unknown {
  const r = readJson(resolve(cwd, path));
  if (r.kind === "missing") throw new HelperError("E_NOT_FOUND", `Recon draft not found: ${path}`);
  if (r.kind === "error") throw new HelperError("E_READ", `Error reading recon draft: ${r.detail}`);
  if (r.kind === "invalid") throw new HelperError("E_JSON", `Invalid JSON in recon draft: ${r.detail}`);
  return r.value;
}

/** `<dir>/<stem>-<k><ext>` for the first k ≥ 2 that does not exist. */
function collisionName(target: string): string {
  const dir = dirname(target);
  const name = basename(target);
  const dot = name.lastIndexOf(".");
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : "";
  for (let k = 2; k <= MAX_SUFFIX; k++) {
    const candidate = join(dir, `${stem}-${k}${ext}`);
    if (pathKind(candidate) === "missing") return candidate;
  }
  throw new HelperError("E_WRITE", `No free name next to ${name} (up to ${stem}-${MAX_SUFFIX}${ext})`);
}

export default defineCommand({
  positionals: [{ name: "draft_path", path: "read", help: "the lead's draft: recon.json with every candidate intervention, e.g. .design/tmp/recon-draft.json" }],
  flags: {
    out: { type: "string", path: "write", help: "where the ranked recon goes", default: ".design/recon.json" },
    replace: { type: "boolean", help: "replace an existing recon (moved to .design/history/<stamp>/ first); without it a new name is used" },
  },
  async run(ctx, args) {
    const draftShown = args.draft_path as string;
    const outShown = args.out as string;
    const draft = loadDraft(ctx.cwd, draftShown);
    let ranked;
    try {
      ranked = rankRecon(draft, isoSeconds(ctx.now()));
    } catch (err) {
      throw reconError(err);
    }
    const target = confine(ctx.cwd, argLabel("out", outShown, true), outShown, "write", OWN.recon);
    if (realPath(resolve(ctx.cwd, draftShown)) === target) throw new HelperError("E_USAGE", "recon-rank: the draft and --out must be different files");
    try {
      ensureDir(dirname(target));
    } catch (err) {
      throw new HelperError("E_WRITE", `Error writing recon file: ${detail(err)}`);
    }
    const text = `${JSON.stringify(ranked.doc, null, 2)}\n`;
    const show = (p: string) => relative(ctx.cwd, p) || p;
    // The history folder a replaced recon moves into: .design/history itself, not a link to another file's place.
    const historyPath = join(dirname(target), "history");
    const historyDir = args.replace ? confine(ctx.cwd, `history folder '${show(historyPath)}'`, historyPath, "write", OWN.history) : historyPath;
    const placed = await withLock(target, (lost) => {
      const exists = pathKind(target) !== "missing";
      let dest = target;
      let previous: string | null = null;
      if (exists && args.replace) {
        try {
          resumeMoves(historyDir, dirname(target));
          const folder = makeHistoryFolder(historyDir, compactStamp(ctx.now()));
          moveIntoHistory(join(historyDir, folder), [{ from: dirname(target), names: [basename(target)] }]);
          previous = join(historyDir, folder, basename(target));
        } catch (err) {
          throw new HelperError("E_WRITE", `Error moving the previous recon to history: ${detail(err)}`);
        }
      } else if (exists) {
        dest = collisionName(target);
      }
      if (lost()) throw new HelperError("E_LOCKED", `Lock on ${target} was lost; nothing written`);
      try {
        writeAtomic(dest, text);
      } catch (err) {
        throw new HelperError("E_WRITE", `Error writing recon file: ${detail(err)}`);
      }
      return { dest, previous, collision: exists && !args.replace };
    });
    const top = ranked.kept[0] as { title?: unknown } | undefined;
    const rec = await recordPhases(ctx.cwd, "recon", "write-and-validate", ctx.now(), {
      synthesis: `${ranked.kept.length + ranked.cut.length} candidate interventions`,
      "write-and-validate": `rank 1: ${typeof top?.title === "string" ? top.title : "none"}`,
    }, [show(placed.dest)]);
    return {
      ...(rec ? { checkpoint: rec.announce } : {}),
      writtenTo: show(placed.dest),
      file: basename(placed.dest),
      collision: placed.collision,
      ...(placed.collision ? { kept: outShown, advice: `A recon already existed: the new one was written to ${show(placed.dest)}, the old one kept` } : {}),
      ...(placed.previous ? { previousMovedTo: show(placed.previous) } : {}),
      interventions: ranked.kept,
      deferred: ranked.cut,
      additionalFindings: ranked.additionalFindings,
      warnings: ranked.warnings,
    };
  },
});
