// design-tier: right-sized ceremony for /do:design. With --goal, the tier of the goal (low → the quick path, planned
// without an expert team; medium or high → the full path) from the goal's words, the project's areas, recon.json,
// earlier runs (reflection.jsonl) and remembered mistakes (memory.jsonl), plus the project's test and build commands
// the quick plan needs. With --draft, whether a draft marked low kept the quick path's limits (roles, areas, depth).
// Reads only inside the project. Its one write: the open design run's checkpoints (lib/run/run-record.ts): --goal
// records pre-flight (the clarified goal and the tier), --draft on a draft that fits records experts and
// cross-review as skipped on the quick path.
import { join, resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { COMPLEXITIES, type Complexity } from "../../lib/plan/plan.js";
import { draftShape, goalTier, QUICK_LIMITS } from "../../lib/plan/tier.js";
import { goalFacts } from "../../lib/plan/goal-facts.js";
import { isObject } from "../../lib/values.js";
import { QUICK_PATH_DECISIONS } from "../../lib/run/resume-refs.js";
import { recordPhases } from "../../lib/run/run-record.js";
import { pathKind, readJson, readText } from "../../store.js";

/** The project's own test and build commands where a manifest names them (what a quick plan's checks run). */
function projectCommands(root: string): { test: string | null; build: string | null } {
  const pkg = readJson(join(root, "package.json"), 1 << 20);
  if (pkg.kind === "ok" && isObject(pkg.value) && isObject(pkg.value.scripts)) {
    const s = pkg.value.scripts;
    return { test: typeof s.test === "string" ? "npm test" : null, build: typeof s.build === "string" ? "npm run build" : null };
  }
  if (pathKind(join(root, "Cargo.toml")) === "file") return { test: "cargo test", build: "cargo build" };
  if (pathKind(join(root, "go.mod")) === "file") return { test: "go test ./...", build: "go build ./..." };
  if (["pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini"].some((f) => pathKind(join(root, f)) === "file")) return { test: "python3 -m pytest", build: null };
  const make = readText(join(root, "Makefile"), 1 << 20);
  if (make.kind === "ok") return { test: /^test:/m.test(make.text) ? "make test" : null, build: /^build:/m.test(make.text) ? "make build" : null };
  return { test: null, build: null };
}

export default defineCommand({
  positionals: [],
  flags: {
    goal: { type: "string", help: "the clarified goal: answers its tier, what the path runs, the project's areas and commands" },
    draft: { type: "string", help: "a draft plan: whether one marked low kept the quick path's limits", path: "read" },
    min: { type: "string", help: "low | medium | high: the lowest tier to answer (a signal the lead saw that the rules do not)" },
  },
  async run(ctx, args) {
    const goal = typeof args.goal === "string" ? args.goal.trim() : undefined;
    const draft = args.draft as string | undefined;
    if ((goal === undefined) === (draft === undefined)) throw new HelperError("E_USAGE", "design-tier: give exactly one of --goal or --draft");
    if (draft !== undefined) {
      const r = readJson(resolve(ctx.cwd, draft));
      if (r.kind === "missing") throw new HelperError("E_NOT_FOUND", `${draft} not found: write the draft first`);
      if (r.kind !== "ok") throw new HelperError(r.kind === "invalid" ? "E_JSON" : "E_READ", `${draft}: ${r.detail}`);
      const shape = draftShape(r.value);
      const rec = shape.fits
        ? await recordPhases(ctx.cwd, "design", "cross-review", ctx.now(), { experts: QUICK_PATH_DECISIONS, "cross-review": QUICK_PATH_DECISIONS })
        : null;
      return { ...shape, limits: QUICK_LIMITS, ...(rec ? { checkpoint: rec.announce } : {}) };
    }
    if (!goal) throw new HelperError("E_USAGE", "design-tier: --goal is empty; ask the user for the goal first");
    const min = args.min as string | undefined;
    if (min !== undefined && !(COMPLEXITIES as readonly string[]).includes(min)) throw new HelperError("E_USAGE", `design-tier: --min must be low, medium or high, not '${min}'`);
    const root = ctx.cwd;
    const facts = goalFacts(root, goal, min as Complexity | undefined);
    const areas = facts.areas;
    const tier = goalTier(facts);
    const rec = await recordPhases(ctx.cwd, "design", "pre-flight", ctx.now(), `goal: ${goal}; ${tier.complexity}, ${tier.path} path`);
    return {
      ...tier,
      ...(rec ? { checkpoint: rec.announce } : {}),
      areas,
      commands: projectCommands(root),
      ...(tier.path === "quick" ? { limits: QUICK_LIMITS } : {}),
    };
  },
});
