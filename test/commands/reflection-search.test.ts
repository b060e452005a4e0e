import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";

const REF = ".design/reflection.jsonl";
const r = (id: string, skill: string, timestamp?: unknown, extra: Record<string, unknown> = {}) =>
  ({ id, skill, ...(timestamp === undefined ? {} : { timestamp }), goal: `goal ${id}`, outcome: "completed", ...extra });

describe("reflection-search", () => {
  it("returns the latest reflections first, verbatim, five by default", async (t) => {
    const entries = [
      r("r1", "design", "2026-01-01T00:00:00Z", { evaluation: { whatWorked: ["x"] }, custom: [1] }),
      r("r2", "execute", "2026-01-03T00:00:00Z"),
      r("r3", "design"),
      r("r4", "design", "2026-01-02T00:00:00.500Z"),
      r("r5", "recon", 1767398400),
      r("r6", "design", "2026-01-05T01:00:00+02:00"),
      r("r7", "design", "2026-01-01T00:00:00Z"),
    ];
    const out = await project(t, { [REF]: entries }).run("reflection-search");
    // r5 is 2026-01-03T00:00:00Z as epoch seconds; ties keep file order (r2 before r5, r1 before r7).
    assert.deepEqual(out, {
      ok: true,
      reflections: [entries[5], entries[1], entries[4], entries[3], entries[0]],
      skippedLines: 0,
      exitCode: 0,
    });
  });

  it("keeps only the given skill, compared exactly [feature:improve/past-runs-inform]", async (t) => {
    const p = project(t, { [REF]: [r("a", "design", "2026-01-01T00:00:00Z"), r("b", "execute", "2026-01-02T00:00:00Z"), r("c", "Design", "2026-01-03T00:00:00Z")] });
    const ids = async (argv: string[]) => ((await p.run("reflection-search", argv)).reflections as any[]).map((e) => e.id);
    assert.deepEqual(await ids(["--skill", "design"]), ["a"]);
    assert.deepEqual(await ids(["--skill", "nonsense"]), []);
    assert.deepEqual(await ids(["--skill", ""]), ["c", "b", "a"]);
  });

  it("puts entries without a timestamp last and honours --limit", async (t) => {
    const p = project(t, { [REF]: [r("none", "design"), r("old", "design", "2020-01-01T00:00:00Z"), r("bad", "design", "last week")] });
    const ids = async (argv: string[]) => ((await p.run("reflection-search", argv)).reflections as any[]).map((e) => e.id);
    assert.deepEqual(await ids([]), ["old", "none", "bad"]);
    assert.deepEqual(await ids(["--limit", "1"]), ["old"]);
    assert.deepEqual(await ids(["--limit", "0"]), []);
  });

  it("rejects a negative --limit (Fix D11)", async (t) => {
    const out = await project(t, { [REF]: [r("a", "design")] }).run("reflection-search", ["--limit", "-2"]);
    assert.deepEqual([out.ok, out.code, out.exitCode], [false, "E_USAGE", 1]);
    assert.match(out.error as string, /^reflection-search: .*--limit/);
  });

  it("returns nothing when the file is missing", async (t) => {
    const out = await project(t).run("reflection-search");
    assert.deepEqual(out, { ok: true, reflections: [], skippedLines: 0, exitCode: 0 });
  });

  it("skips corrupt and non-object lines, counts them, and leaves the file alone", async (t) => {
    const text = `${JSON.stringify(r("a", "design"))}\n{torn\n"str"\n\n${JSON.stringify(r("b", "design"))}`;
    const p = project(t, { [REF]: text });
    const out = await p.run("reflection-search");
    assert.deepEqual((out.reflections as any[]).map((e) => e.id), ["a", "b"]);
    assert.equal(out.skippedLines, 2);
    assert.equal(p.read(REF), text);
  });

  it("reports an unreadable reflection file", async (t) => {
    const out = await project(t, { ".design/reflection.jsonl/x": "" }).run("reflection-search");
    assert.deepEqual([out.ok, out.code, out.exitCode], [false, "E_READ", 1]);
    assert.match(out.error as string, /^Error reading reflection file: /);
  });
});
