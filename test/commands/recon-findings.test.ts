import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { project } from "../helpers/design-dir.ts";

/** A researcher artifact with `n` findings per domain given. */
function artifact(prefix: string, domains: Record<string, number>): object {
  const findings: object[] = [];
  for (const [domain, n] of Object.entries(domains)) for (let i = 0; i < n; i++) findings.push({ id: `${prefix}-${findings.length + 1}`, domain, summary: "…" });
  return { summary: `${prefix} findings`, verificationProperties: [], findings };
}
const PATHS = [".design/expert-codebase-analyst.json", ".design/expert-external-researcher.json", ".design/expert-domain-specialist.json"];
const args = (paths = PATHS) => ["--artifacts", paths.join(",")];

describe("recon-findings", () => {
  it("counts findings and domains across the artifacts and delegates synthesis above 15 findings in 4 domains [feature:recon/synthesis-rule-by-helper]", async (t) => {
    const p = project(t, {
      [PATHS[0]]: artifact("CA", { codebase: 6 }),
      [PATHS[1]]: artifact("ER", { literature: 4, comparative: 3 }),
      [PATHS[2]]: artifact("DS", { theoretical: 3 }),
    });
    const out = await p.run("recon-findings", args());
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal(out.findings, 16);
    assert.equal(out.domainCount, 4);
    assert.deepEqual(out.domains, { codebase: 6, literature: 4, comparative: 3, theoretical: 3 });
    assert.equal(out.delegate, true);
    assert.equal(out.synthesis, "agent");
    assert.match(out.rule as string, /more than 15 findings across more than 3 domains/);
    assert.deepEqual((out.byArtifact as any[]).map((a) => [a.path, a.findings]), [[PATHS[0], 6], [PATHS[1], 7], [PATHS[2], 3]]);
    assert.deepEqual(out.problems, []);
  });

  it("keeps synthesis with the lead at exactly 15 findings, or with many findings in only 3 domains [feature:recon/synthesis-rule-by-helper]", async (t) => {
    const fifteen = project(t, {
      [PATHS[0]]: artifact("CA", { codebase: 5 }),
      [PATHS[1]]: artifact("ER", { literature: 4, comparative: 3 }),
      [PATHS[2]]: artifact("DS", { theoretical: 3 }),
    });
    const a = await fifteen.run("recon-findings", args());
    assert.deepEqual([a.findings, a.domainCount, a.delegate, a.synthesis], [15, 4, false, "lead"]);
    const three = project(t, { [PATHS[0]]: artifact("CA", { codebase: 20 }), [PATHS[1]]: artifact("ER", { literature: 9, comparative: 9 }) });
    const b = await three.run("recon-findings", args(PATHS.slice(0, 2)));
    assert.deepEqual([b.findings, b.domainCount, b.delegate], [38, 3, false]);
  });

  it("names findings without a valid domain and counts no domain for them", async (t) => {
    const p = project(t, {
      [PATHS[0]]: { summary: "x", verificationProperties: [], findings: [{ id: "CA-1", domain: "codebase-analyst" }, { id: "CA-2" }, "text", { id: "CA-3", domain: "codebase" }] },
      [PATHS[1]]: { summary: "no findings", verificationProperties: [] },
    });
    const out = await p.run("recon-findings", args(PATHS.slice(0, 2)));
    assert.equal(out.ok, true);
    assert.equal(out.findings, 3);
    assert.deepEqual(out.domains, { codebase: 1 });
    assert.deepEqual(out.problems, [
      `${PATHS[0]}: findings[0] has domain 'codebase-analyst' (one of codebase, literature, comparative, theoretical)`,
      `${PATHS[0]}: findings[1] has domain 'None' (one of codebase, literature, comparative, theoretical)`,
      `${PATHS[0]}: findings[2] is not an object`,
      `${PATHS[1]}: no findings array`,
    ]);
  });

  it("refuses a missing artifact, a path outside the project, and no --artifacts", async (t) => {
    const p = project(t, { [PATHS[0]]: artifact("CA", { codebase: 1 }) });
    const missing = await p.run("recon-findings", args());
    assert.deepEqual([missing.code, missing.error], ["E_NOT_FOUND", `Artifact file not found: ${PATHS[1]}`]);
    const outside = await p.run("recon-findings", ["--artifacts", "../x.json"]);
    assert.equal(outside.code, "E_PATH");
    assert.equal((await p.run("recon-findings", [])).code, "E_USAGE");
    assert.equal((await p.run("recon-findings", ["--artifacts", " , "])).code, "E_USAGE");
  });
});
