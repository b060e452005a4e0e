// design-tier: the quick path for a small goal, the full path for anything cross-cutting, high-stakes or contested
// (by the goal's words, the project's areas, recon.json, earlier runs and remembered mistakes), and the draft check
// that holds a quick plan to its limits.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { areaOf, draftShape, goalTier, namedAreas } from "../../src/lib/plan/tier.ts";
import { planWith, project, type Files } from "../helpers/design-dir.ts";

/** The sample project of the e2e suite, in short: a todo API with db, api and ui areas and an npm test script. */
const TODO: Files = {
  "package.json": { name: "todo-api", scripts: { test: "node --test" } },
  "src/db/store.js": "module.exports = {};\n",
  "src/api/server.js": "module.exports = {};\n",
  "src/ui/index.html": "<!doctype html>\n",
  "test/store.test.js": "\n",
  "node_modules/x/index.js": "\n",
  "docs/README.md": "\n",
};

const tier = async (t: any, goal: string, files: Files = TODO, extra: string[] = []) => project(t, files).run("design-tier", ["--goal", goal, ...extra]);

describe("design-tier --goal", () => {
  it("a one-area goal takes the quick path: no experts, no reviews, the project's areas and commands [feature:design/quick-path]", async (t) => {
    const out: any = await tier(t, "add due dates to the todo API");
    assert.equal(out.ok, true);
    assert.equal(out.complexity, "low");
    assert.equal(out.path, "quick");
    assert.equal(out.experts, 0);
    assert.equal(out.crossReview, false);
    assert.equal(out.draftReview, false);
    assert.equal(out.specs, "optional");
    assert.deepEqual(out.auxiliaries, ["integration-verifier", "memory-curator"]);
    assert.deepEqual(out.goalAreas, ["src/api"]);
    assert.deepEqual(out.signals, ["one area: src/api"]);
    assert.deepEqual(out.areas, ["docs", "src/api", "src/db", "src/ui", "test"], "node_modules is no area; src is a container");
    assert.deepEqual(out.commands, { test: "npm test", build: null });
    assert.deepEqual(out.limits, { roles: 3, areas: 1, depth: 2 });
  });

  it("a goal that names two areas, or says it is broad, takes the full path (medium: 3 experts, specs mandatory)", async (t) => {
    for (const [goal, signal] of [
      ["show due dates in the ui and store them in the db", /several areas: the goal names src\/db, src\/ui/],
      ["refactor the api handlers", /cross-cutting: the goal says "refactor"/],
      ["log every request", /cross-cutting: the goal says "every"/],
      [`add due dates ${"and more ".repeat(20)}`, /a long goal/],
    ] as const) {
      const out: any = await tier(t, goal);
      assert.equal(out.complexity, "medium", goal);
      assert.equal(out.path, "full");
      assert.equal(out.experts, 3);
      assert.equal(out.crossReview, true);
      assert.equal(out.draftReview, true);
      assert.equal(out.specs, "mandatory");
      assert.deepEqual(out.auxiliaries, ["challenger", "scout", "integration-verifier", "memory-curator"]);
      assert.ok(out.signals.some((s: string) => signal.test(s)), `${goal}: ${out.signals}`);
      assert.equal(out.limits, undefined);
    }
  });

  it("a high-stakes goal is high (4 experts) whatever its size", async (t) => {
    for (const goal of ["migrate the todo store to sqlite", "add password reset to the api", "encrypt todos at rest", "add authentication to the api", "change the public API of the store"]) {
      const out: any = await tier(t, goal);
      assert.equal(out.complexity, "high", goal);
      assert.equal(out.experts, 4);
      assert.match(out.signals[0], /^high stakes: the goal touches/);
    }
  });

  it("recon, earlier failed runs and remembered mistakes on a similar goal raise a small goal to the full path", async (t) => {
    const recon = (iv: Record<string, unknown>, contradictions: unknown[] = []) => ({
      ".design/recon.json": { schemaVersion: 1, goal: "todo api", interventions: [{ title: "Due dates", designGoal: "add due dates to the todo api", ...iv }], contradictions },
    });
    const cases: Array<[Files, RegExp, string]> = [
      [recon({ authorityRequired: "team" }), /recon: "Due dates" needs the team's approval/, "medium"],
      [recon({ authorityRequired: "org" }), /needs the organisation's approval/, "high"],
      [recon({}, [{ area: "storage", positions: [], userDecisionNeeded: "sqlite or json?" }]), /researchers disagree on this goal \(1 open question\)/, "medium"],
      [{ ".design/reflection.jsonl": [{ skill: "execute", goal: "add due dates to the todo API", outcome: "failed" }] }, /an earlier execute run on a similar goal ended failed/, "medium"],
      [{ ".design/memory.jsonl": [{ category: "mistake", keywords: ["due", "dates", "timezone"], content: "Due dates broke on timezones" }] }, /1 remembered mistake on this kind of goal/, "medium"],
    ];
    for (const [files, signal, complexity] of cases) {
      const out: any = await tier(t, "add due dates to the todo API", { ...TODO, ...files });
      assert.equal(out.complexity, complexity, String(signal));
      assert.ok(out.signals.some((s: string) => signal.test(s)), `${signal}: ${out.signals}`);
    }
    // Not similar, not a failure, not a mistake: still quick.
    const calm: any = await tier(t, "add due dates to the todo API", {
      ...TODO,
      ".design/reflection.jsonl": [{ skill: "execute", goal: "add due dates to the todo API", outcome: "completed" }, { skill: "design", goal: "rewrite the billing engine", outcome: "failed" }],
      ".design/memory.jsonl": [{ category: "pattern", keywords: ["due", "dates"], content: "x" }, { category: "mistake", keywords: ["due", "css"], content: "y" }],
      ".design/recon.json": { schemaVersion: 1, goal: "x", interventions: [{ title: "Caching", designGoal: "cache the ui bundle", authorityRequired: "org" }], contradictions: [] },
    });
    assert.equal(calm.path, "quick", String(calm.signals));
  });

  it("--min raises the tier on the lead's word, never lowers it", async (t) => {
    const up: any = await tier(t, "add due dates to the todo API", TODO, ["--min", "medium"]);
    assert.equal(up.complexity, "medium");
    assert.ok(up.signals.includes("the lead raised it to medium"));
    const same: any = await tier(t, "migrate the store", TODO, ["--min", "low"]);
    assert.equal(same.complexity, "high");
  });

  it("finds the test command other stacks name", async (t) => {
    const cmds = async (files: Files) => ((await tier(t, "fix the parser", files)) as any).commands;
    assert.deepEqual(await cmds({ "Cargo.toml": "[package]\n" }), { test: "cargo test", build: "cargo build" });
    assert.deepEqual(await cmds({ "go.mod": "module x\n" }), { test: "go test ./...", build: "go build ./..." });
    assert.deepEqual(await cmds({ "pyproject.toml": "[project]\n" }), { test: "python3 -m pytest", build: null });
    assert.deepEqual(await cmds({ Makefile: "build:\n\tcc x.c\ntest: build\n\t./t\n" }), { test: "make test", build: "make build" });
    assert.deepEqual(await cmds({ "README.md": "x\n" }), { test: null, build: null });
  });

  it("refuses a call without exactly one of --goal and --draft, an empty goal and an unknown --min, changing nothing", async (t) => {
    const p = project(t, TODO);
    for (const argv of [[], ["--goal", "x", "--draft", ".design/draft/plan.json"], ["--goal", "  "], ["--goal", "x", "--min", "huge"]]) {
      const out: any = await p.run("design-tier", argv);
      assert.equal(out.ok, false, argv.join(" "));
      assert.equal(out.code, "E_USAGE", argv.join(" "));
    }
    assert.equal(p.exists(".design"), false, "design-tier writes nothing");
  });

  it("reads no .design/ file that lies outside the project", async (t) => {
    const outside = mkdtempSync(join(tmpdir(), "do-tier-outside-"));
    t.after(() => rmSync(outside, { recursive: true, force: true }));
    writeFileSync(join(outside, "reflection.jsonl"), JSON.stringify({ skill: "execute", goal: "add due dates to the todo API", outcome: "failed" }) + "\n");
    const p = project(t, TODO);
    mkdirSync(join(p.dir, ".design"));
    symlinkSync(join(outside, "reflection.jsonl"), join(p.dir, ".design", "reflection.jsonl"));
    const out: any = await p.run("design-tier", ["--goal", "add due dates to the todo API"]);
    assert.equal(out.path, "quick", "the outside reflection was read");
  });
});

describe("design-tier --draft", () => {
  const role = (name: string, dirs: string[], deps: string[] = []) => ({ name, dirs, deps });
  const draft = (roles: ReturnType<typeof role>[], complexity?: string) => planWith(roles, complexity ? { complexity } : {});
  const check = async (t: any, doc: unknown) => project(t, { ".design/draft/plan.json": doc }).run("design-tier", ["--draft", ".design/draft/plan.json"]);

  it("a quick draft within the limits fits: up to 3 roles in one area (tests beside it), a chain of 2", async (t) => {
    const out: any = await check(t, draft([role("store", ["src/db/"]), role("store-tests", ["test/"], ["store"])], "low"));
    const { exitCode: _code, ...doc } = out;
    assert.deepEqual(doc, { ok: true, complexity: "low", roles: 2, areas: ["src/db"], depth: 2, fits: true, reasons: [], limits: { roles: 3, areas: 1, depth: 2 } });
  });

  it("a quick draft that outgrew the path says why", async (t) => {
    const out: any = await check(t, draft([role("a", ["src/db/"]), role("b", ["src/api/x.js"], ["a"]), role("c", ["src/db/"], ["b"]), role("d", ["src/db/"])], "low"));
    assert.equal(out.fits, false);
    assert.deepEqual(out.reasons, [
      "4 roles: a quick plan has at most 3",
      "2 areas (src/api, src/db): a quick plan stays in one",
      "a dependency chain of 3 roles: a quick plan has at most 2",
    ]);
  });

  it("medium and high drafts have no quick limits; a draft without complexity does not fit", async (t) => {
    const big = [role("a", ["src/db/"]), role("b", ["src/api/"], ["a"]), role("c", ["src/ui/"], ["b"]), role("d", ["docs/"], ["c"])];
    for (const c of ["medium", "high"]) assert.equal(((await check(t, draft(big, c))) as any).fits, true, c);
    const none: any = await check(t, draft([role("a", ["src/db/"])]));
    assert.equal(none.fits, false);
    assert.match(none.reasons[0], /records no complexity/);
  });

  it("a missing or broken draft is an error", async (t) => {
    assert.equal(((await project(t).run("design-tier", ["--draft", ".design/draft/plan.json"])) as any).code, "E_NOT_FOUND");
    assert.equal(((await project(t, { ".design/draft/plan.json": "{not json" }).run("design-tier", ["--draft", ".design/draft/plan.json"])) as any).code, "E_JSON");
    assert.equal(((await project(t).run("design-tier", ["--draft", "../outside.json"])) as any).code, "E_PATH");
  });
});

describe("tier rules", () => {
  it("areaOf: containers split one level deeper, test folders and globs do not make an area", () => {
    assert.equal(areaOf("src/api/x.ts"), "src/api");
    assert.equal(areaOf("./src/api/"), "src/api");
    assert.equal(areaOf("src/*.ts"), "src");
    assert.equal(areaOf("src/index.ts"), "src");
    assert.equal(areaOf("docs/guide/a.md"), "docs");
    assert.equal(areaOf("test/api.test.js"), null);
    assert.equal(areaOf("src/api/__tests__/a.ts"), null);
    assert.equal(areaOf("README.md"), null, "a root file is no area of its own (issue 31)");
    assert.equal(areaOf("pyproject.toml"), null);
    assert.equal(areaOf("Makefile"), null);
    assert.equal(areaOf("docs"), "docs");
    assert.equal(areaOf("**/*.ts"), null);
  });

  it("namedAreas: the goal names an area by its last part, singular or plural", () => {
    const areas = ["src/api", "src/models", "docs", "test"];
    assert.deepEqual(namedAreas("add a model for tags", areas), ["src/models"]);
    assert.deepEqual(namedAreas("document the API in docs", areas), ["src/api", "docs"]);
    assert.deepEqual(namedAreas("add a test", areas), [], "a test folder is no area");
  });

  it("goal and draft agree (issue 31): root files are no area, \"whole\" alone is not cross-cutting, a CLI with README docs stays quick", () => {
    const areas = ["src/textkit", "tests"];
    for (const goal of [
      "Add a word-count command to textkit, documented in the README",
      "Add a command-line interface with subcommands to textkit, plus README docs",
      "Make the whole test suite pass on textkit's count command",
    ]) {
      const t = goalTier({ goal, areas, failedRuns: [], mistakes: [] });
      assert.equal(t.path, "quick", `${goal}: ${t.signals}`);
      // The obvious two-role draft: the code, and the docs and packaging at the root.
      const shape = draftShape({
        complexity: t.complexity,
        roles: [
          { name: "cli", scope: { directories: ["src/textkit", "tests"], dependencies: [] } },
          { name: "docs", scope: { patterns: ["README.md", "pyproject.toml"], dependencies: ["cli"] } },
        ],
      });
      assert.deepEqual([shape.fits, shape.areas, shape.reasons], [true, ["src/textkit"], []], goal);
    }
    assert.equal(goalTier({ goal: "rename the logger across the whole codebase", areas, failedRuns: [], mistakes: [] }).path, "full", "the whole codebase is cross-cutting");
  });

  it("goalTier and draftShape agree on a quick goal's plan", () => {
    const t = goalTier({ goal: "add due dates to the api", areas: ["src/api", "src/db"], failedRuns: [], mistakes: [] });
    assert.equal(t.path, "quick");
    const shape = draftShape({ complexity: t.complexity, roles: [{ name: "api", scope: { directories: t.goalAreas, dependencies: [] } }] });
    assert.equal(shape.fits, true);
  });
});
