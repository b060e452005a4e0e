import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { planWith, project, REQUIRED_AUXILIARIES, writeFiles, type RoleInit } from "../helpers/design-dir.ts";

const P = ".design/plan.json";
type T = Parameters<typeof project>[0];

/** Issues of the seed's planning rules (src/lib/plan/plan-rules.ts) start with the rule's name. */
const SEED_RULE = /^Rule '/;

/**
 * The issues finalize reports for a plan (asserting the failure shape, exit 1, and an untouched file). The
 * contract's messages are tested apart from the seed's rules: those issues are left out unless `rules` is set
 * (the suite "finalize: the seed's planning rules" tests them).
 */
async function issuesOf(t: T, plan: unknown, argv: string[] = [], rules = false): Promise<string[]> {
  const p = project(t, { [P]: plan });
  const before = p.read(P);
  const out = await p.run("finalize", argv);
  assert.equal(out.ok, false, JSON.stringify(out));
  assert.equal(out.error, "validation_failed");
  assert.equal(out.code, "E_INVALID");
  assert.equal(out.exitCode, 1);
  assert.equal(p.read(P), before, "a plan that fails validation is not written");
  assert.deepEqual(p.list(".design"), ["plan.json"]);
  const issues = out.issues as string[];
  return rules ? issues : issues.filter((i) => !SEED_RULE.test(i));
}

async function finalized(t: T, plan: unknown, files: Record<string, unknown> = {}) {
  const p = project(t, { [P]: plan, ...files });
  const out = await p.run("finalize");
  assert.equal(out.ok, true, JSON.stringify(out));
  return { p, out, plan: p.json(P) };
}

const role = (name: string, extra: Partial<RoleInit> = {}): RoleInit => ({ name, ...extra });
/** For the tests of large plans that are about something else than specs: why this plan has none. */
const NO_SPECS = { specsWaiver: { reason: "no-test-command", detail: "the test's project has no test command" } };

describe("finalize: validation messages", () => {
  it("requires schemaVersion 4 (D19) and at least one role", async (t) => {
    assert.deepEqual(await issuesOf(t, { roles: [] }), ["schemaVersion must be 4 (got None)", "No roles in plan"]);
    assert.deepEqual(await issuesOf(t, { ...planWith(["a"]), schemaVersion: "4" }), ["schemaVersion must be 4 (got 4)"]);
    assert.deepEqual(await issuesOf(t, { ...planWith(["a"]), schemaVersion: 3 }), ["schemaVersion must be 4 (got 3)"]);
  });

  it("allows at most 8 roles", async (t) => {
    const nine = planWith(Array.from({ length: 9 }, (_, i) => `r${i}`));
    assert.deepEqual(await issuesOf(t, nine), ["Too many roles: 9 (max 8)"]);
    const { out } = await finalized(t, planWith(Array.from({ length: 8 }, (_, i) => `r${i}`), NO_SPECS));
    assert.equal(out.roleCount, 8);
  });

  it("reports each repeated role name", async (t) => {
    assert.deepEqual(await issuesOf(t, planWith(["a", "a", "b", "a"])), ["Duplicate role name: a", "Duplicate role name: a"]);
  });

  it("reports the brief fields of an empty role, labelled without a name", async (t) => {
    assert.deepEqual(await issuesOf(t, { schemaVersion: 4, roles: [{}] }), [
      "Role 0: missing 'name'",
      "Role 0 (): missing 'goal'",
      "Role 0 (): missing 'model'",
      "Role 0 (): scope needs 'directories' or 'patterns'",
      "Role 0 (): missing 'acceptanceCriteria'",
    ]);
  });

  it("reports every problem of one role in the contract's order (D7 for non-objects)", async (t) => {
    const bad = {
      name: "r",
      goal: "g",
      model: "sonnet",
      scope: { directories: [], patterns: [], dependencies: null },
      acceptanceCriteria: [3, { check: "npm test" }, { criterion: "c" }, { criterion: "c", check: 5 }],
      constraints: "x",
      expertContext: [1, { relevance: "r" }],
      assumptions: ["t", { severity: "blocking" }],
      status: "done",
    };
    assert.deepEqual(await issuesOf(t, { schemaVersion: 4, roles: [bad] }), [
      "Role 0 (r): scope needs 'directories' or 'patterns'",
      "Role 0 (r): scope.dependencies must be an array",
      "Role 0 (r): acceptanceCriteria[0] must be an object",
      "Role 0 (r): acceptanceCriteria[1] missing 'criterion'",
      "Role 0 (r): acceptanceCriteria[2] missing 'check'",
      "Role 0 (r): acceptanceCriteria[3] 'check' must be a string",
      "Role 0 (r): 'constraints' must be an array",
      "Role 0 (r): expertContext[0] must be an object",
      "Role 0 (r): expertContext[1] missing 'expert'",
      "Role 0 (r): expertContext[1] missing 'artifact'",
      "Role 0 (r): assumptions[0] missing 'text'",
      "Role 0 (r): assumptions[1] missing 'text'",
      "Role 0 (r): has blocking assumptions but no rollbackTriggers",
      "Role 0 (r): invalid status 'done'",
    ]);
  });

  it("wants expertContext and constraints to be arrays when present, null included", async (t) => {
    assert.deepEqual(await issuesOf(t, planWith([role("a", { expertContext: {}, constraints: null })])), [
      "Role 0 (a): 'constraints' must be an array",
      "Role 0 (a): 'expertContext' must be an array",
    ]);
  });

  it("accepts blocking assumptions with rollbackTriggers and a scope with patterns only", async (t) => {
    const r = role("a", {
      assumptions: [{ text: "pg is up", severity: "blocking" }],
      rollbackTriggers: ["pg down"],
      scope: { patterns: ["src/**/*.sql"] },
    });
    await finalized(t, planWith([r]));
  });

  it("rejects a role whose checks are all surface-only", async (t) => {
    const criteria = [
      { criterion: "file exists", check: "test -f out.json" },
      { criterion: "mentions x", check: "! grep -q TODO src/a.ts" },
    ];
    assert.deepEqual(await issuesOf(t, planWith([role("a", { acceptanceCriteria: criteria })])), [
      "Role 0 (a): all acceptance criteria are surface-level — at least one must verify functional correctness " +
        "(e.g., build, test, curl, or run command)",
    ]);
    const mixed = [...criteria, { criterion: "works", check: "npm test" }];
    await finalized(t, planWith([role("a", { acceptanceCriteria: mixed })]));
  });

  it("looks at every part of a compound check: wc -l and grep && grep only read files", async (t) => {
    const surface = [
      { criterion: "counted", check: "wc -l src/a.ts" },
      { criterion: "both", check: "grep -q a src/a.ts && grep -q b src/a.ts" },
      { criterion: "small", check: "test $(wc -l < src/a.ts) -lt 500 || exit 1" },
    ];
    assert.deepEqual(await issuesOf(t, planWith([role("a", { acceptanceCriteria: surface })])), [
      "Role 0 (a): all acceptance criteria are surface-level — at least one must verify functional correctness " +
        "(e.g., build, test, curl, or run command)",
    ]);
    const runs = [...surface, { criterion: "runs", check: "grep -q a src/a.ts && node src/a.js --self-check" }];
    await finalized(t, planWith([role("a", { acceptanceCriteria: runs })]));
  });

  it("rejects unknown statuses but accepts the six and null", async (t) => {
    assert.deepEqual(await issuesOf(t, planWith([role("a", { status: 5 as unknown as string })])), ["Role 0 (a): invalid status '5'"]);
    const six = ["pending", "in_progress", "completed", "failed", "skipped", "blocked"].map((s, i) => role(`r${i}`, { status: s }));
    await finalized(t, planWith([...six, role("n", { status: null })], NO_SPECS));
  });

  it("reports unknown dependencies, cycles and a too-deep critical path [feature:design/refused-draft-explained]", async (t) => {
    assert.deepEqual(await issuesOf(t, planWith([role("a", { deps: ["ghost"] })])), [
      "Role 0 (a): dependency 'ghost' not found in roles",
    ]);
    assert.deepEqual(await issuesOf(t, planWith([role("a", { deps: ["b"] }), role("b", { deps: ["a"] })])), [
      "Cycle detected in role dependencies",
    ]);
    assert.deepEqual(await issuesOf(t, planWith([role("a", { deps: ["a"] })])), ["Cycle detected in role dependencies"]);
    const chain = (n: number) => planWith(Array.from({ length: n }, (_, i) => role(`r${i}`, { deps: i ? [`r${i - 1}`] : [] })), NO_SPECS);
    assert.deepEqual(await issuesOf(t, chain(6)), ["Critical path depth too high: 6 (max 5)"]);
    await finalized(t, chain(5));
  });

  it("checks auxiliary roles and names the allowed values in a fixed order (D10)", async (t) => {
    const plan = planWith(["a"], {
      auxiliaryRoles: [
        {},
        { name: "scout", type: "during", goal: "g", trigger: "later" },
        { name: "x", type: "per-role", goal: "", trigger: "after-design" },
      ],
    });
    assert.deepEqual(await issuesOf(t, plan), [
      "AuxiliaryRole 0: missing 'name'",
      "AuxiliaryRole 0 (): missing 'type'",
      "AuxiliaryRole 0 (): missing 'goal'",
      "AuxiliaryRole 0 (): missing 'trigger'",
      "AuxiliaryRole 1 (scout): type must be one of {'pre-execution', 'post-execution', 'per-role'}",
      "AuxiliaryRole 1 (scout): trigger must be one of {'after-design', 'before-execution', 'after-role-complete', 'after-all-roles-complete'}",
      "AuxiliaryRole 2 (x): missing 'goal'",
    ]);
  });

  it("refuses a model the Agent tool does not take, for roles and auxiliary roles (issue 18: gpt5)", async (t) => {
    const plan = planWith([role("a", { model: "gpt5" }), role("b", { model: "Sonnet" }), role("c", { model: 4 }), role("d", { model: "fable" })], {
      auxiliaryRoles: [
        { name: "challenger", type: "pre-execution", goal: "g", trigger: "before-execution", model: "gpt-4o" },
        { name: "scout", type: "pre-execution", goal: "g", trigger: "before-execution", model: "haiku" },
        { name: "curator", type: "post-execution", goal: "g", trigger: "after-all-roles-complete" },
      ],
    });
    assert.deepEqual(await issuesOf(t, plan), [
      "Role 0 (a): unknown model 'gpt5' (the Agent tool takes haiku, sonnet, opus, fable)",
      "Role 1 (b): unknown model 'Sonnet' (the Agent tool takes haiku, sonnet, opus, fable)",
      "Role 2 (c): unknown model '4' (the Agent tool takes haiku, sonnet, opus, fable)",
      "AuxiliaryRole 0 (challenger): unknown model 'gpt-4o' (the Agent tool takes haiku, sonnet, opus, fable)",
    ]);
    for (const model of ["haiku", "sonnet", "opus", "fable"]) await finalized(t, planWith([role("a", { model })]));
  });

  it("checks verification specs", async (t) => {
    const plan = planWith(["a"], {
      verificationSpecs: [
        {},
        { role: "ghost", path: "p", runCommand: "r", properties: "x" },
        { role: "a", path: "p", runCommand: "r", properties: null },
      ],
    });
    assert.deepEqual(await issuesOf(t, plan), [
      "verificationSpecs[0]: missing 'role' field",
      "verificationSpecs[0]: missing 'path' field",
      "verificationSpecs[0]: missing 'runCommand' field",
      "verificationSpecs[1]: role 'ghost' not found in roles",
      "verificationSpecs[1]: 'properties' must be an array",
    ]);
    assert.deepEqual(await issuesOf(t, planWith(["a"], { verificationSpecs: {} })), ["'verificationSpecs' must be an array"]);
    await finalized(t, planWith(["a"], { verificationSpecs: null }));
  });

  it("collects problems of every kind in the contract's order [feature:design/refused-draft-explained]", async (t) => {
    const plan = {
      roles: planWith([role("a", { deps: ["zz"] }), role("a", { model: "" })]).roles,
      auxiliaryRoles: [{ name: "c", type: "pre-execution", goal: "g" }],
      verificationSpecs: [{ role: "a", path: "p" }],
    };
    assert.deepEqual(await issuesOf(t, plan), [
      "schemaVersion must be 4 (got None)",
      "Duplicate role name: a",
      "Role 1 (a): missing 'model'",
      "Role 0 (a): dependency 'zz' not found in roles",
      "AuxiliaryRole 0 (c): missing 'trigger'",
      "verificationSpecs[0]: missing 'runCommand' field",
    ]);
  });

  it("refuses structurally wrong parts before validating", async (t) => {
    const p = project(t);
    const cases: Array<[unknown, string]> = [
      [planWith(["a"], { auxiliaryRoles: "x" }), "Invalid plan structure: 'auxiliaryRoles' must be an array"],
      [planWith(["a"], { verificationSpecs: [5] }), "Invalid plan structure: verificationSpecs[0] must be an object"],
      [planWith(["a"], { progress: [] }), "Invalid plan structure: 'progress' must be an object"],
      [[planWith(["a"])], "Invalid plan structure: top-level value must be an object"],
    ];
    for (const [plan, error] of cases) {
      for (const path of [".design/plan.json", ".design/draft/plan.json"]) {
        writeFiles(p.dir, { [path]: plan });
        assert.equal((await p.run("finalize", [path])).error, error, path);
      }
    }
  });

  it("reports plan file errors", async (t) => {
    const p = project(t, { ".design/draft/plan.json": "{" });
    assert.equal((await p.run("finalize")).error, "Plan file not found: .design/plan.json");
    assert.match((await p.run("finalize", [".design/draft/plan.json"])).error as string, /^Invalid JSON in plan file: /);
    assert.equal((await p.run("finalize", ["--validate-only"])).error, "Plan file not found: .design/plan.json");
  });
});

describe("finalize: the schema check after the contract's", () => {
  it("adds PlanSchema issues as path: message when the contract found nothing", async (t) => {
    const plan = planWith(["a", role("b", { constraints: ["ok", 3], attempts: -1 })]);
    assert.deepEqual(await issuesOf(t, plan), [
      "roles[1].constraints[1]: Invalid input: expected string, received number",
      "roles[1].attempts: Too small: expected number to be >=0",
    ]);
  });

  it("reports only the contract's issues when it found some", async (t) => {
    const plan = { ...planWith([role("a", { constraints: [3] })]), schemaVersion: 3 };
    assert.deepEqual(await issuesOf(t, plan), ["schemaVersion must be 4 (got 3)"]);
  });
});

describe("finalize: enrichment", () => {
  it("initialises statuses and progress and reports the counts", async (t) => {
    const { out, plan } = await finalized(t, planWith(["a", "b"]));
    assert.deepEqual(out, {
      ok: true,
      validated: true,
      computedOverlaps: 2,
      roleCount: 2,
      auxiliaryCount: 4,
      overlapPairs: 0,
      exitCode: 0,
    });
    const expected = planWith(["a", "b"]) as any;
    for (const r of expected.roles) Object.assign(r, { directoryOverlaps: [], status: "pending", attempts: 0, result: null });
    expected.progress = { completedRoles: [] };
    assert.deepEqual(plan, expected);
  });

  it("initialises status, attempts and result only where the key is absent", async (t) => {
    const plan = planWith(
      [
        role("a", { status: "in_progress", attempts: 2, result: "half" }),
        role("b", { status: "completed", result: null }),
        role("c", { status: null }),
      ],
      { progress: { completedRoles: ["b"] } },
    );
    const { plan: after } = await finalized(t, plan);
    assert.deepEqual(
      after.roles.map((r: any) => [r.status, r.attempts, r.result]),
      [["in_progress", 2, "half"], ["completed", 0, null], [null, 0, null]],
    );
    assert.deepEqual(after.progress, { completedRoles: ["b"] });
  });

  it("records overlaps on the earlier role only (j > i) [feature:execute/overlaps-serialised]", async (t) => {
    const plan = planWith([role("a", { dirs: ["src/"] }), role("b", { dirs: ["src/api/"] }), role("c", { dirs: ["docs/"] }), role("d", { dirs: ["src/ab"] })], NO_SPECS);
    const { out, plan: after } = await finalized(t, plan);
    assert.deepEqual(after.roles.map((r: any) => r.directoryOverlaps), [[1, 3], [], [], []]);
    assert.equal(out.overlapPairs, 2);
    assert.equal(out.computedOverlaps, 4);
  });

  it("exempts pairs already ordered by a dependency path, direct or transitive", async (t) => {
    const plan = planWith([
      role("a", { dirs: ["src/"] }),
      role("b", { dirs: ["lib/"], deps: ["a"] }),
      role("c", { dirs: ["src/x/"], deps: ["b"] }),
      role("d", { dirs: ["src/a/"], deps: ["a"] }),
      role("e", { dirs: ["src/a/b"] }),
    ], NO_SPECS);
    const { out, plan: after } = await finalized(t, plan);
    // a is an ancestor of c and d; d and e are not ordered; a and e are not ordered.
    assert.deepEqual(after.roles.map((r: any) => r.directoryOverlaps), [[4], [], [], [4], []]);
    assert.equal(out.overlapPairs, 2);
  });

  it("compares scopes by the files they can share and overwrites stale overlaps", async (t) => {
    const plan = planWith([
      role("a", { scope: { patterns: ["src/**/*.ts"] }, directoryOverlaps: [9] }),
      role("b", { dirs: ["src/api/**"] }), // every folder under src/api and everything in them
      role("c", { scope: { patterns: ["**/*.md"] } }), // apart from a (no file ends in both); src/api/x/y.md is b's
      role("d", { dirs: ["./docs/"] }), // docs/x.md is c's too
      role("e", { dirs: ["src/api-v2"] }), // apart from b (not under src/api); a's .ts and c's .md files may lie in it
    ], NO_SPECS);
    const { plan: after } = await finalized(t, plan);
    assert.deepEqual(after.roles.map((r: any) => r.directoryOverlaps), [[1, 4], [2], [3, 4], [], []]);
  });

  it("records the SHA-256 of each spec file, read as bytes, relative to the working directory [feature:design/verification-specs]", async (t) => {
    const p = project(t, {
      ".design/plan.json": planWith(["a", "b"], {
        verificationSpecs: [
          { role: "a", path: ".design/specs/spec-a.test.ts", runCommand: "npx tsx .design/specs/spec-a.test.ts" },
          { role: "b", path: "bin.dat", runCommand: "true", sha256: "stale" },
        ],
      }),
      ".design/specs/spec-a.test.ts": "hello\n",
    });
    writeFileSync(join(p.dir, "bin.dat"), Buffer.from([0xff, 0xfe, 0x00, 0x80]));
    const out = await p.run("finalize", [".design/plan.json"]);
    assert.equal(out.ok, true);
    assert.equal("specWarnings" in out, false);
    const specs = p.json(".design/plan.json").verificationSpecs;
    assert.equal(specs[0].sha256, "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
    assert.equal(specs[1].sha256, "5a741968f40e57485ed6e1a1af381adeb2714223c35acedf1ad0670e42df2eb5");
  });

  it("keeps a stale sha256 when the spec file is missing and says so (D20)", async (t) => {
    const plan = planWith(["a"], {
      verificationSpecs: [
        { role: "a", path: ".design/specs/missing.ts", runCommand: "r", sha256: "old" },
        { role: "a", path: ".design", runCommand: "r" },
      ],
    });
    const { out, plan: after } = await finalized(t, plan);
    assert.deepEqual(out.specWarnings, [
      "verificationSpecs[0]: file not found: .design/specs/missing.ts (sha256 not updated)",
      "verificationSpecs[1]: file not found: .design (sha256 not updated)",
    ]);
    assert.equal(after.verificationSpecs[0].sha256, "old");
    assert.equal("sha256" in after.verificationSpecs[1], false);
  });

  it("counts auxiliary roles", async (t) => {
    const aux = [
      { name: "challenger", type: "pre-execution", goal: "g", trigger: "before-execution" },
      { name: "integration-verifier", type: "post-execution", goal: "g", trigger: "after-all-roles-complete" },
      { name: "memory-curator", type: "post-execution", goal: "g", trigger: "after-all-roles-complete" },
    ];
    const { out } = await finalized(t, planWith(["a"], { auxiliaryRoles: aux, goalType: "meta" }));
    assert.equal(out.auxiliaryCount, 3);
  });

  it("keeps unknown fields and writes once, leaving no lock or temp file", async (t) => {
    const plan = planWith([role("a", { custom: { x: [1] } })], { extraTop: "keep", context: { stack: "node", other: 1 } });
    const { p, plan: after } = await finalized(t, plan);
    assert.deepEqual(after.extraTop, "keep");
    assert.deepEqual(after.context, { stack: "node", other: 1 });
    assert.deepEqual(after.roles[0].custom, { x: [1] });
    assert.equal(p.read(P), `${JSON.stringify(after, null, 2)}\n`);
    assert.deepEqual(p.list(".design"), ["plan.json"]);
  });

  it("is idempotent: a second run changes nothing", async (t) => {
    const { p } = await finalized(t, planWith([role("a", { dirs: ["src/"] }), role("b", { dirs: ["src/b"] })]));
    const first = p.read(P);
    assert.equal((await p.run("finalize")).ok, true);
    assert.equal(p.read(P), first);
  });
});

describe("finalize: warnings", () => {
  it("warns about inline Python that does not compile, without failing", async (t) => {
    const criteria = [
      { criterion: "parses", check: "python3 -c 'if x'" },
      { criterion: "ok", check: `python3 -c "print(\\"hi\\")"` },
    ];
    const { out } = await finalized(t, planWith([role("a", { acceptanceCriteria: criteria })]));
    assert.equal((out.checkWarnings as string[]).length, 1);
    assert.match((out.checkWarnings as string[])[0], /^a criterion 0: SyntaxError: .+ at line 1$/);
    assert.equal("antiPatternWarnings" in out, false);
  });

  it("refuses a check that cannot fail, naming the part that masks it: || true, || echo, || :, ; exit 0, | tail, an if", async (t) => {
    const criteria = [
      { criterion: "tests", check: "npm test || true" },
      { criterion: "x", check: "npm test ||echo failed" },
      { criterion: "y", check: "make check || :" },
      { criterion: "z", check: "npm test; exit 0" },
      { criterion: "w", check: "npm test 2>&1 | tail -5" },
      { criterion: "v", check: "if npm test; then echo ok; fi" },
    ];
    const at = (j: number) => `Role 0 (a): acceptanceCriteria[${j}]`;
    assert.deepEqual(await issuesOf(t, planWith([role("a", { acceptanceCriteria: criteria })])), [
      `${at(0)} '|| true' masks failures: the check exits 0 whatever happens`,
      `${at(1)} '|| echo' masks failures: the check exits 0 whatever happens`,
      `${at(2)} '|| :' masks failures: the check exits 0 whatever happens`,
      `${at(3)} '; exit 0' masks failures: the check exits 0 whatever happens`,
      `${at(4)} '| tail' masks failures: the check exits 0 whatever happens`,
      `${at(5)} 'if' with no failing branch masks failures: the check exits 0 whatever happens`,
    ]);
  });

  it("keeps what can still fail: || exit 1, a conditional exit 1, pipefail; a masked step stays a warning", async (t) => {
    const criteria = [
      { criterion: "a", check: "npm test || exit 1" },
      { criterion: "b", check: "if ! cargo fmt --check; then echo bad; exit 1; fi; echo done" },
      { criterion: "c", check: "set -o pipefail; npm test | tail -5" },
      { criterion: "d", check: "npm ci || true; npm test" },
    ];
    const { out } = await finalized(t, planWith([role("a", { acceptanceCriteria: criteria })]));
    assert.deepEqual(out.antiPatternWarnings, ["a criterion 3: '|| true' masks failures"]);
    assert.equal("checkWarnings" in out, false);
  });

  it("warns about CI expressions, placeholders and sentences, and judges inline Python after expansion", async (t) => {
    const criteria = [
      { criterion: "ci", check: "npm test -- ${{ matrix.shard }}" },
      { criterion: "template", check: "{context.testCommand}" },
      { criterion: "prose", check: "All unit tests pass for the new endpoint" },
      { criterion: "expanded", check: `python3 -c "import sys; sys.exit($STATUS)"` },
      { criterion: "runs", check: "npm test" },
    ];
    const { out } = await finalized(t, planWith([role("a", { acceptanceCriteria: criteria })]));
    assert.deepEqual(out.checkWarnings, [
      "a criterion 0: '${{ matrix.shard }}' is a CI expression: only a CI runner fills it in",
      "a criterion 1: '{context.testCommand}' is a template placeholder, not a command",
      "a criterion 2: 'All unit tests pass for the new endpoint' reads as a sentence, not a command",
    ]);
  });

  it("reports pythonAvailable false and no check warnings when python3 cannot run", async (t) => {
    const saved = process.env.PATH;
    process.env.PATH = "";
    t.after(() => {
      process.env.PATH = saved;
    });
    const { out } = await finalized(t, planWith([role("a", { acceptanceCriteria: [{ criterion: "c", check: "python3 -c 'if x'" }] })]));
    process.env.PATH = saved;
    assert.equal(out.pythonAvailable, false);
    assert.equal("checkWarnings" in out, false);
  });
});

describe("finalize --validate-only", () => {
  it("validates without writing anything", async (t) => {
    const p = project(t, { [P]: planWith(["a", "b"]) });
    const before = p.read(P);
    const out = await p.run("finalize", ["--validate-only"]);
    assert.deepEqual(out, { ok: true, validated: true, exitCode: 0 });
    assert.equal(p.read(P), before);
    assert.deepEqual(p.list(".design"), ["plan.json"]);
  });

  it("fails with the same issues and exit 1", async (t) => {
    assert.deepEqual(await issuesOf(t, planWith([role("a", { deps: ["ghost"] })]), ["--validate-only"]), [
      "Role 0 (a): dependency 'ghost' not found in roles",
    ]);
  });
});

/** Roles in one area of the project (src/api), as a quick plan holds them. */
const oneArea = (...names: string[]) => names.map((name) => ({ name, dirs: [`src/api/${name}/`] }));
/** The reasons a quick plan records for the auxiliaries it leaves out. */
const QUICK_SKIPS = [
  { name: "challenger", reason: "design-tier answered the quick path: one area, nothing high-stakes" },
  { name: "scout", reason: "design-tier answered the quick path: the roles' files are named by the user" },
];

describe("finalize: the seed's planning rules", () => {
  const SPECS_RULE = `Rule 'specs for complex plans'`;
  const four = (extra: Record<string, unknown> = {}) => planWith(["a", "b", "c", "d"], extra);
  const spec = { role: "a", path: ".design/specs/spec-a.sh", runCommand: "sh .design/specs/spec-a.sh", properties: ["a works"] };

  it("refuses a complex plan without specs (an issue, not a warning), naming the rule and what satisfies it [feature:design/complex-plans-need-specs]", async (t) => {
    const issues = await issuesOf(t, four(), [], true);
    assert.deepEqual(issues, [
      `${SPECS_RULE}: the plan is complex (4 roles) and has no verificationSpecs; write a spec for the roles (design's refs/verification-specs.md), ` +
        `or record why none applies as specsWaiver {"reason": no-test-command | docs-config-only, "detail": "…"}`,
    ]);
    // Design's tier makes a smaller plan complex too; the role count and the tier are both named.
    const tiered = await issuesOf(t, planWith(["a"], { tier: "high-stakes" }), [], true);
    assert.match(tiered[0], /^Rule 'specs for complex plans': the plan is complex \(tier high-stakes\)/);
    assert.match((await issuesOf(t, four({ tier: "complex" }), [], true))[0], /complex \(4 roles, tier complex\)/);
    // With a spec, or a simple tier and 3 roles, it installs.
    const { plan } = await finalized(t, four({ verificationSpecs: [spec] }), { ".design/specs/spec-a.sh": "exit 0\n" });
    assert.equal(plan.verificationSpecs[0].sha256.length, 64);
    await finalized(t, planWith(["a", "b", "c"], { tier: "simple" }));
  });

  it("accepts a complex plan without specs only with a waiver the plan can back [feature:design/complex-plans-need-specs]", async (t) => {
    const noTest = { reason: "no-test-command", detail: "a shell-script repository with no test runner" };
    await finalized(t, four({ specsWaiver: noTest, context: { stack: "sh", testCommand: null, buildCommand: null } }));
    const withTest = await issuesOf(t, four({ specsWaiver: noTest, context: { testCommand: "npm test" } }), [], true);
    assert.deepEqual(withTest, [`${SPECS_RULE}: specsWaiver says no-test-command, but context has testCommand 'npm test': specs can run, so write them`]);
    const build = await issuesOf(t, four({ specsWaiver: noTest, context: { buildCommand: "make" } }), [], true);
    assert.match(build[0], /but context has buildCommand 'make'/);
    const docs = { reason: "docs-config-only", detail: "only README and CI config change" };
    await finalized(t, four({ specsWaiver: docs, goalType: "meta", auxiliaryRoles: REQUIRED_AUXILIARIES.filter((a) => a.name !== "scout") }));
    const code = await issuesOf(t, four({ specsWaiver: docs, goalType: "implementation" }), [], true);
    assert.deepEqual(code, [`${SPECS_RULE}: specsWaiver says docs-config-only, but goalType is implementation (it changes code): write specs, or record goalType meta or research`]);
    const untyped = await issuesOf(t, four({ specsWaiver: docs }), [], true);
    assert.deepEqual(untyped, [`${SPECS_RULE}: specsWaiver says docs-config-only, but the plan records no goalType (taken to change code): write specs, or record goalType meta or research`]);
    for (const bad of [{ reason: "too-hard", detail: "x" }, { reason: "docs-config-only" }, { reason: "docs-config-only", detail: " " }, "docs"]) {
      const issues = await issuesOf(t, four({ specsWaiver: bad }), [], true);
      assert.deepEqual(issues, [`${SPECS_RULE}: specsWaiver must be {"reason": no-test-command | docs-config-only, "detail": why no spec applies}`], JSON.stringify(bad));
    }
  });

  it("requires challenger, integration-verifier and memory-curator in every plan, and a scout when the goal touches code [feature:design/required-auxiliaries]", async (t) => {
    const none = await issuesOf(t, planWith(["a"], { auxiliaryRoles: [] }), [], true);
    assert.deepEqual(none, [
      "Rule 'auxiliaries always run': auxiliaryRoles must list challenger (type pre-execution); every plan but a quick one (complexity low, at most 3 roles) runs it",
      "Rule 'auxiliaries always run': auxiliaryRoles must list integration-verifier (type post-execution); every plan runs it",
      "Rule 'auxiliaries always run': auxiliaryRoles must list memory-curator (type post-execution); every plan runs it",
      "Rule 'scout when the goal touches code': a plan with no goalType recorded is taken to touch code; list a scout (type pre-execution) in auxiliaryRoles, or record goalType meta or research (a quick plan, complexity low with at most 3 roles, may leave it out)",
    ]);
    const noScout = REQUIRED_AUXILIARIES.filter((a) => a.name !== "scout");
    const impl = await issuesOf(t, planWith(["a"], { auxiliaryRoles: noScout, goalType: "implementation" }), [], true);
    assert.deepEqual(impl, ["Rule 'scout when the goal touches code': goalType implementation touches code; list a scout (type pre-execution) in auxiliaryRoles, or record goalType meta or research (a quick plan, complexity low with at most 3 roles, may leave it out)"]);
    for (const goalType of ["meta", "research"]) await finalized(t, planWith(["a"], { auxiliaryRoles: noScout, goalType }));
    const wrongType = REQUIRED_AUXILIARIES.map((a) => (a.name === "challenger" ? { ...a, type: "post-execution" } : a));
    assert.deepEqual(await issuesOf(t, planWith(["a"], { auxiliaryRoles: wrongType }), [], true), [
      "Rule 'auxiliaries always run': challenger must have type pre-execution (got 'post-execution')",
    ]);
  });

  it("exempts design-tier's quick path (complexity low, at most 3 roles) from challenger and scout, never from integration-verifier [feature:design/quick-path]", async (t) => {
    // What design-tier's quick path lists: integration-verifier and memory-curator only.
    const quickAux = REQUIRED_AUXILIARIES.filter((a) => a.name !== "challenger" && a.name !== "scout");
    const { plan } = await finalized(t, planWith(oneArea("a", "b"), { complexity: "low", goalType: "implementation", auxiliaryRoles: quickAux, skippedAuxiliaries: QUICK_SKIPS }));
    assert.deepEqual(plan.auxiliaryRoles.map((a: { name: string }) => a.name), quickAux.map((a) => a.name));
    // Without integration-verifier even a quick plan is refused.
    const noVerifier = quickAux.filter((a) => a.name !== "integration-verifier");
    assert.deepEqual(await issuesOf(t, planWith(["a"], { complexity: "low", auxiliaryRoles: noVerifier, skippedAuxiliaries: QUICK_SKIPS }), [], true), [
      "Rule 'auxiliaries always run': auxiliaryRoles must list integration-verifier (type post-execution); every plan runs it",
    ]);
    // A listed challenger still needs its type; a low plan past the quick path's size, or a medium one, gets no exemption.
    const wrong = [...quickAux, { ...REQUIRED_AUXILIARIES.find((a) => a.name === "challenger")!, type: "post-execution" }];
    assert.deepEqual(await issuesOf(t, planWith(["a"], { complexity: "low", goalType: "meta", auxiliaryRoles: wrong, skippedAuxiliaries: QUICK_SKIPS.slice(1) }), [], true), [
      "Rule 'auxiliaries always run': challenger must have type pre-execution (got 'post-execution')",
    ]);
    const big = await issuesOf(t, four({ complexity: "low", goalType: "meta", auxiliaryRoles: quickAux }), [], true);
    assert.ok(big.some((i) => i.startsWith("Rule 'auxiliaries always run': auxiliaryRoles must list challenger")), big.join("\n"));
    const medium = await issuesOf(t, planWith(["a"], { complexity: "medium", goalType: "meta", auxiliaryRoles: quickAux }), [], true);
    assert.ok(medium.some((i) => i.startsWith("Rule 'auxiliaries always run': auxiliaryRoles must list challenger")), medium.join("\n"));
  });

  it("takes design-tier's complexity medium or high as complex: specs mandatory [feature:design/complex-plans-need-specs]", async (t) => {
    for (const complexity of ["medium", "high"]) {
      const issues = await issuesOf(t, planWith(["a"], { complexity }), [], true);
      assert.match(issues[0], new RegExp(`^Rule 'specs for complex plans': the plan is complex \\(complexity ${complexity}\\) and has no verificationSpecs`));
    }
    await finalized(t, planWith(oneArea("a", "b", "c"), { complexity: "low" }));
  });

  it("records why a quick plan drops the challenger and the scout, or refuses it [feature:design/quick-path]", async (t) => {
    const quickAux = REQUIRED_AUXILIARIES.filter((a) => a.name !== "challenger" && a.name !== "scout");
    const bare = await issuesOf(t, planWith(["a"], { complexity: "low", auxiliaryRoles: quickAux }), [], true);
    assert.deepEqual(bare, [
      `Rule 'a dropped auxiliary has a recorded reason': the quick plan leaves out challenger; record why as skippedAuxiliaries [{"name": "challenger", "reason": "…"}] (design-tier's signals for the quick path say it), or list it`,
      `Rule 'a dropped auxiliary has a recorded reason': the quick plan leaves out scout; record why as skippedAuxiliaries [{"name": "scout", "reason": "…"}] (design-tier's signals for the quick path say it), or list it`,
    ]);
    const thin = await issuesOf(t, planWith(["a"], { complexity: "low", auxiliaryRoles: quickAux, skippedAuxiliaries: [{ name: "challenger", reason: "small" }, QUICK_SKIPS[1]] }), [], true);
    assert.match(thin[0], /skippedAuxiliaries\[0\] must be \{"name": the auxiliary, "reason": why this plan does without it, 5\+ words\}/);
    const both = await issuesOf(t, planWith(["a"], { complexity: "low", skippedAuxiliaries: QUICK_SKIPS }), [], true);
    assert.deepEqual(both, ["Rule 'a dropped auxiliary has a recorded reason': challenger is both listed in auxiliaryRoles and recorded as skipped", "Rule 'a dropped auxiliary has a recorded reason': scout is both listed in auxiliaryRoles and recorded as skipped"]);
  });

  it("judges complexity itself: a draft marked low for a goal it rates higher is refused unless it records why [feature:design/quick-path]", async (t) => {
    const quickAux = REQUIRED_AUXILIARIES.filter((a) => a.name !== "challenger" && a.name !== "scout");
    const low = (extra: Record<string, unknown> = {}) =>
      planWith(oneArea("store", "page"), { goal: "Encrypt the stored passwords and migrate the user table", complexity: "low", goalType: "implementation", auxiliaryRoles: quickAux, skippedAuxiliaries: QUICK_SKIPS, ...extra });
    const p = project(t, { [P]: low() });
    const out: any = await p.run("finalize", ["--validate-only"]);
    assert.equal(out.code, "E_INVALID");
    assert.equal(out.judgedComplexity.complexity, "high");
    assert.match(out.issues[0], /^Rule 'complexity judged by the helper': the draft says complexity low, the helper judges high \(high stakes: the goal touches "Encrypt"\)/);
    // Held to high, the plan also needs what high asks: specs, the challenger and the scout.
    assert.ok(out.issues.some((i: string) => i.startsWith("Rule 'specs for complex plans': the plan is complex (complexity high)")), out.issues.join("\n"));
    assert.ok(out.issues.some((i: string) => i.startsWith("Rule 'auxiliaries always run': auxiliaryRoles must list challenger")), out.issues.join("\n"));
    // The shape alone: a low draft over two areas is at least medium.
    const wide = await issuesOf(t, planWith(["a", "b"], { complexity: "low", goalType: "meta", auxiliaryRoles: quickAux, skippedAuxiliaries: QUICK_SKIPS }), [], true);
    assert.match(wide[0], /the helper judges medium \(the draft holds 2 areas \(src\/a, src\/b\): more than a quick plan\)/);
    // A recorded reason naming the judged level lets a lower complexity stand; a wrong level or a word does not.
    const why = "the passwords are test fixtures only and no user data is touched";
    await finalized(t, low({ complexityOverride: { from: "high", reason: why } }));
    for (const bad of [{ from: "medium", reason: why }, { from: "high", reason: "trust me" }, "high"]) {
      const issues = await issuesOf(t, low({ complexityOverride: bad }), [], true);
      assert.match(issues[0], /^Rule 'complexity judged by the helper'/, JSON.stringify(bad));
    }
    // Claiming the judged level needs no reason.
    const high = await issuesOf(t, low({ complexity: "high" }), [], true);
    assert.equal(high.some((i) => i.startsWith("Rule 'complexity judged by the helper'")), false);
  });

  it("checks the classification design records: tier and goalType", async (t) => {
    const issues = await issuesOf(t, planWith(["a"], { tier: "medium", goalType: "code" }), [], true);
    assert.deepEqual(issues, [
      "Rule 'plan classification': tier must be one of simple, complex, high-stakes (got 'medium')",
      "Rule 'plan classification': goalType must be one of implementation, meta, research (got 'code')",
    ]);
    // --validate-only applies the same rules and writes nothing.
    const p = project(t, { [P]: four() });
    const out = await p.run("finalize", ["--validate-only"]);
    assert.equal(out.code, "E_INVALID");
    assert.ok((out.issues as string[]).some((i) => i.startsWith(SPECS_RULE)));
  });
});
