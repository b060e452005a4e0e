// Liveness by the clock: `--waiting` on the report checks the lead makes when a report arrives (expert-validate,
// validate-auxiliary-report) tells, for each named agent of this session, whether it still works, has finished or
// has stalled (no transcript write within the stall limit). Transcripts are the real CLI's (2.1.332 and 2.1.197,
// test/fixtures/transcripts/README.md), cut or aged here; hostile ones (huge, a link, a FIFO) are read at most by a
// window from each end, or not at all.
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { closeSync, mkdirSync, openSync, readFileSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeSession } from "../helpers/claude-session.ts";
import { project, type Project } from "../helpers/design-dir.ts";
import { projectFolderName } from "../../src/lib/cost/usage.ts";
import { agentLiveness, stallLimitMs } from "../../src/lib/attempts/liveness.ts";
import { permits, type HookInput } from "../../src/hooks/permit.ts";

const FIXTURES = resolve(__dirname, "../fixtures/transcripts");
const SESSION = "5d0c2f7e-1b7a-4f0e-9a51-0f3c2b9d7a11";
const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const MIN = 60_000;
const EXPERT = { summary: "s", verificationProperties: [{ property: "GET /users returns 200" }] };

/** A scratch Claude config folder and session for the helper (restored after the test). */
const session = (t: TestContext, id = SESSION): string => claudeSession(t, id);

const agentsDir = (config: string, p: Project) => join(config, "projects", projectFolderName(realpathSync(p.dir)), SESSION, "subagents");

/** The recorded transcript's lines, all or up to (not including) line `upTo`. */
function lines(version: string, upTo?: number): string {
  const all = readFileSync(join(FIXTURES, version, "agent-probe.jsonl"), "utf8").trim().split("\n");
  return (upTo === undefined ? all : all.slice(0, upTo)).join("\n") + "\n";
}

/** The index of the first tool result line: an agent cut there is between tool calls, at work. */
const firstToolResult = (version: string) =>
  readFileSync(join(FIXTURES, version, "agent-probe.jsonl"), "utf8").trim().split("\n").findIndex((l) => l.includes('"tool_result"')) + 1;

/** Plant agent `id` named `name` with `text` as its transcript, last written `idleMs` before NOW. */
function plant(config: string, p: Project, id: string, name: string, text: string, idleMs: number): string {
  const dir = agentsDir(config, p);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `agent-${id}.jsonl`);
  writeFileSync(file, text);
  writeFileSync(join(dir, `agent-${id}.meta.json`), JSON.stringify({ agentType: "general-purpose", name }));
  const at = (NOW - idleMs) / 1000;
  utimesSync(file, at, at);
  return file;
}

const byName = (out: any) => Object.fromEntries(out.waiting.agents.map((a: any) => [a.name, a]));

describe("liveness by the clock (--waiting)", () => {
  for (const version of ["2.1.332", "2.1.197"]) {
    it(`tells alive, idle past the limit, finished and never started apart (${version}) [feature:design/stall-by-the-clock] [feature:recon/stall-by-the-clock] [feature:improve/stall-by-the-clock]`, async (t) => {
      const config = session(t);
      const p = project(t, { ".design/expert-api.json": EXPERT });
      const cut = lines(version, firstToolResult(version));
      plant(config, p, "a1", "busy", cut, 9 * MIN);
      plant(config, p, "a2", "quiet", cut, 16 * MIN);
      plant(config, p, "a3", "done", lines(version), 40 * MIN);
      const out: any = await p.run("expert-validate", [".design/expert-api.json", "--waiting", "busy,quiet, done,ghost"], { now: NOW });
      assert.equal(out.ok, true, JSON.stringify(out));
      assert.equal(out.valid, true);
      const a = byName(out);
      assert.deepEqual([a.busy.found, a.busy.finished, a.busy.stalled, a.busy.idleMs], [true, false, false, 9 * MIN]);
      assert.deepEqual([a.quiet.finished, a.quiet.stalled, a.quiet.idleMs], [false, true, 16 * MIN]);
      assert.deepEqual([a.done.finished, a.done.stalled], [true, false], "a finished agent is never stalled, however long ago");
      assert.deepEqual([a.ghost.found, a.ghost.stalled], [false, false]);
      assert.match(a.ghost.note, /no transcript of an agent named ghost/);
      const first = JSON.parse(cut.split("\n")[0]);
      assert.equal(a.busy.startedAt, new Date(Math.floor(Date.parse(first.timestamp) / 1000) * 1000).toISOString().replace(".000Z", "Z"));
      assert.equal(a.quiet.lastActivityAt, new Date(NOW - 16 * MIN).toISOString().replace(".000Z", "Z"));
      assert.deepEqual(out.waiting.stalled, ["quiet"]);
      assert.equal(out.waiting.stallMinutes, 15);
    });
  }

  it("rides on a failing check too: a missing report's E_NOT_FOUND carries the agents' liveness", async (t) => {
    const config = session(t);
    const p = project(t);
    plant(config, p, "b1", "api", lines("2.1.332", firstToolResult("2.1.332")), 20 * MIN);
    const out: any = await p.run("expert-validate", [".design/expert-api.json", "--waiting", "api"], { now: NOW });
    assert.equal(out.code, "E_NOT_FOUND");
    assert.equal(out.error, "Artifact file not found: .design/expert-api.json");
    assert.deepEqual(out.waiting.stalled, ["api"]);
    // Without --waiting the answer is what it always was.
    assert.deepEqual(await p.run("expert-validate", [".design/expert-api.json"], { now: NOW }), {
      ok: false, error: "Artifact file not found: .design/expert-api.json", code: "E_NOT_FOUND", exitCode: 1,
    });
  });

  it("validate-auxiliary-report answers the same for execute's auxiliaries", async (t) => {
    const config = session(t);
    const p = project(t, { ".design/challenger-report.json": { issues: [], summary: "ok" } });
    plant(config, p, "c1", "scout", lines("2.1.197", firstToolResult("2.1.197")), 2 * MIN);
    const out: any = await p.run("validate-auxiliary-report", [".design/challenger-report.json", "--type", "challenger", "--waiting", "scout"], { now: NOW });
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal(out.artifactSummary.issueCount, 0);
    assert.deepEqual([byName(out).scout.stalled, byName(out).scout.idleMs], [false, 2 * MIN]);
    const bad: any = await p.run("validate-auxiliary-report", [".design/scout-report.json", "--type", "scout", "--waiting", "scout", "--stall-minutes", "1"], { now: NOW });
    assert.equal(bad.code, "E_NOT_FOUND");
    assert.deepEqual(bad.waiting.stalled, ["scout"], "--stall-minutes sets the limit");
    assert.equal(bad.waiting.stallMinutes, 1);
  });

  it("names an agent exactly: expert-api and expert-api-2 are two agents", async (t) => {
    const config = session(t);
    const p = project(t, { ".design/expert-api.json": EXPERT });
    plant(config, p, "d1", "expert-api", lines("2.1.332", firstToolResult("2.1.332")), 30 * MIN);
    plant(config, p, "d2", "expert-api-2", lines("2.1.332", firstToolResult("2.1.332")), 1 * MIN);
    const out: any = await p.run("expert-validate", [".design/expert-api.json", "--waiting", "expert-api-2,expert-api"], { now: NOW });
    const a = byName(out);
    assert.deepEqual([a["expert-api"].stalled, a["expert-api-2"].stalled], [true, false]);
    assert.deepEqual(out.waiting.stalled, ["expert-api"]);
  });

  it("judges an agent spawned twice under one name by its transcript written last", async (t) => {
    const config = session(t);
    const p = project(t, { ".design/expert-api.json": EXPERT });
    plant(config, p, "e1", "api", lines("2.1.332", firstToolResult("2.1.332")), 50 * MIN);
    plant(config, p, "e2", "api", lines("2.1.332", firstToolResult("2.1.332")), 3 * MIN);
    const out: any = await p.run("expert-validate", [".design/expert-api.json", "--waiting", "api"], { now: NOW });
    assert.deepEqual([byName(out).api.stalled, byName(out).api.idleMs], [false, 3 * MIN]);
  });

  it("a model answering mid-stream or a torn last line is not finished", async (t) => {
    const config = session(t);
    const p = project(t, { ".design/expert-api.json": EXPERT });
    plant(config, p, "f1", "torn", `${lines("2.1.332")}{"type":"user","message":{"role":"user","content":[{"type":"tool_res`, 20 * MIN);
    const resumed = `${lines("2.1.197")}${JSON.stringify({ type: "user", timestamp: "2026-11-26T08:41:00.000Z", message: { role: "user", content: "one more thing" } })}\n`;
    plant(config, p, "f2", "resumed", resumed, 1 * MIN);
    const out: any = await p.run("expert-validate", [".design/expert-api.json", "--waiting", "torn,resumed"], { now: NOW });
    const a = byName(out);
    assert.deepEqual([a.torn.finished, a.torn.stalled], [false, true]);
    assert.deepEqual([a.resumed.finished, a.resumed.stalled], [false, false], "an agent resumed by SendMessage works again");
  });

  it("reads at most a window of a huge transcript, and refuses a link or a FIFO at once", async (t) => {
    const config = session(t);
    const p = project(t, { ".design/expert-api.json": EXPERT });
    const dir = agentsDir(config, p);
    // Huge: 3 GiB (sparse) between the first line and a final answer; the helper reads two 256 KiB windows.
    const huge = plant(config, p, "g1", "huge", lines("2.1.332", 1), 0);
    const fd = openSync(huge, "r+");
    const last = lines("2.1.332").trim().split("\n").pop()!;
    writeSync(fd, `\n${last}\n`, 3 * 1024 ** 3);
    closeSync(fd);
    utimesSync(huge, (NOW - 20 * MIN) / 1000, (NOW - 20 * MIN) / 1000);
    // A link to a real transcript, and a FIFO (a plain read would block for ever).
    const target = plant(config, p, "g2", "elsewhere", lines("2.1.332", firstToolResult("2.1.332")), 30 * MIN);
    symlinkSync(target, join(dir, "agent-g3.jsonl"));
    writeFileSync(join(dir, "agent-g3.meta.json"), JSON.stringify({ name: "linked" }));
    execFileSync("mkfifo", [join(dir, "agent-g4.jsonl")]);
    writeFileSync(join(dir, "agent-g4.meta.json"), JSON.stringify({ name: "fifo" }));
    // A sidecar that is itself a link names nobody.
    writeFileSync(join(tmpdir(), `do-meta-${process.pid}.json`), JSON.stringify({ name: "sneaky" }));
    t.after(() => rmSync(join(tmpdir(), `do-meta-${process.pid}.json`), { force: true }));
    writeFileSync(join(dir, "agent-g5.jsonl"), lines("2.1.332", 3));
    symlinkSync(join(tmpdir(), `do-meta-${process.pid}.json`), join(dir, "agent-g5.meta.json"));

    const out: any = await p.run("expert-validate", [".design/expert-api.json", "--waiting", "huge,linked,fifo,sneaky"], { now: NOW });
    assert.equal(out.ok, true, JSON.stringify(out));
    const a = byName(out);
    assert.deepEqual([a.huge.found, a.huge.finished, a.huge.stalled, a.huge.idleMs], [true, true, false, 20 * MIN]);
    assert.ok(a.huge.startedAt, "the first line is read from the head window");
    assert.deepEqual([a.linked.found, a.linked.stalled], [false, false]);
    assert.match(a.linked.note, /transcript refused: .* is a symbolic link/);
    assert.deepEqual([a.fifo.found, a.fifo.stalled], [false, false]);
    assert.match(a.fifo.note, /transcript refused: .* is a FIFO, not a regular file/);
    assert.deepEqual([a.sneaky.found, a.sneaky.note], [false, "no transcript of an agent named sneaky yet"]);
  });

  it("without a session or its folder every agent is unknown, never stalled", async (t) => {
    const config = session(t);
    const p = project(t, { ".design/expert-api.json": EXPERT });
    const out: any = await p.run("expert-validate", [".design/expert-api.json", "--waiting", "api"], { now: NOW });
    assert.deepEqual([byName(out).api.found, byName(out).api.stalled], [false, false]);
    assert.match(byName(out).api.note, /no agent transcripts of session/);
    mkdirSync(agentsDir(config, p), { recursive: true });
    delete process.env.CLAUDE_CODE_SESSION_ID;
    const none: any = await p.run("expert-validate", [".design/expert-api.json", "--waiting", "api"], { now: NOW });
    assert.match(byName(none).api.note, /no Claude Code session/);
  });

  it("refuses names that are not agent names and limits out of range, before reading anything", async (t) => {
    session(t);
    const p = project(t, { ".design/expert-api.json": EXPERT });
    for (const [args, error] of [
      [["--waiting", "../x"], "expert-validate: --waiting takes agent names (lowercase letters, digits, dashes): '../x'"],
      [["--waiting", "Api"], "expert-validate: --waiting takes agent names (lowercase letters, digits, dashes): 'Api'"],
      [["--waiting", Array.from({ length: 33 }, (_, i) => `a${i}`).join(",")], "expert-validate: --waiting names at most 32 agents"],
      [["--waiting", "api", "--stall-minutes", "0"], "expert-validate: --stall-minutes must be 1 to 1440"],
      [["--stall-minutes", "1441"], "expert-validate: --stall-minutes must be 1 to 1440"],
    ] as const) {
      const out: any = await p.run("expert-validate", [".design/expert-api.json", ...args], { now: NOW });
      assert.deepEqual([out.code, out.error], ["E_USAGE", error]);
    }
    assert.deepEqual(await p.run("expert-validate", [".design/expert-api.json", "--waiting", ""], { now: NOW }), { ok: true, valid: true, exitCode: 0 });
  });
});

describe("the stall limit", () => {
  it("is 15 minutes, past the Bash tool's 10-minute ceiling, or that ceiling + 5 where the environment raises it", () => {
    assert.equal(stallLimitMs(undefined, {}), 15 * MIN);
    assert.equal(stallLimitMs(undefined, { BASH_MAX_TIMEOUT_MS: "600000" }), 15 * MIN);
    assert.equal(stallLimitMs(undefined, { BASH_MAX_TIMEOUT_MS: "1800000" }), 35 * MIN);
    assert.equal(stallLimitMs(undefined, { BASH_DEFAULT_TIMEOUT_MS: "3600000" }), 65 * MIN, "a larger default raises the ceiling");
    assert.equal(stallLimitMs(undefined, { BASH_MAX_TIMEOUT_MS: "soon" }), 15 * MIN);
    assert.equal(stallLimitMs(7, { BASH_MAX_TIMEOUT_MS: "1800000" }), 7 * MIN, "--stall-minutes wins");
  });

  it("answers from the library without a command", (t) => {
    const config = session(t);
    const p = project(t);
    plant(config, p, "h1", "w", lines("2.1.332", firstToolResult("2.1.332")), 15 * MIN + 1);
    const out = agentLiveness(realpathSync(p.dir), SESSION, ["w"], NOW, 15 * MIN);
    assert.deepEqual(out.stalled, ["w"]);
  });
});

describe("the hook and --waiting", () => {
  const ROOT = resolve(__dirname, "../..");
  const call = (skill: string, tail: string) => `node "${ROOT}/skills/${skill}/scripts/plan.js" expert-validate .design/expert-api.json ${tail}`;
  const allows = (p: Project, skill: "design" | "recon" | "improve", command: string) =>
    permits({ tool_name: "Bash", tool_input: { command, description: "x" }, cwd: realpathSync(p.dir) } as HookInput, ROOT, skill);

  it("approves the check as the lead types it (a list, with spaces, empty, with a limit), never a name that is not one", (t) => {
    const saved = process.env.CLAUDE_PROJECT_DIR;
    const p = project(t, { ".design/expert-api.json": EXPERT });
    process.env.CLAUDE_PROJECT_DIR = realpathSync(p.dir);
    t.after(() => (saved === undefined ? delete process.env.CLAUDE_PROJECT_DIR : (process.env.CLAUDE_PROJECT_DIR = saved)));
    for (const skill of ["design", "recon", "improve"] as const) {
      for (const tail of ["--waiting 'api,web'", "--waiting 'api, web-2'", "--waiting api", "--waiting ''", "--waiting 'api' --stall-minutes 20", "--waiting 'api' --scores"]) {
        assert.equal(allows(p, skill, call(skill, tail)), true, `${skill}: ${tail}`);
      }
      for (const tail of ["--waiting '../x'", "--waiting 'Api'", "--waiting 'a;b'", "--waiting \"$(id)\"", "--waiting api --stall-minutes '$(id)'"]) {
        assert.equal(allows(p, skill, call(skill, tail)), false, `${skill}: ${tail}`);
      }
    }
  });
});
