// The user's work is never lost, as a property (fast-check): random sequences of the user's edits between attempts
// (change, create, delete, rename, stage, inside and outside the role's scope), attempts started and retried, the
// worker's edits (write, create, delete), each attempt either failing (then clean-attempt) or finishing (finish, which
// commits), with clean-attempt and finish killed with SIGKILL at a random crash point and called again. After each:
//   - a failed attempt's clean-up leaves every file of the scope exactly as the user left it when the attempt
//     started, and the user's index and the files outside the scope untouched;
//   - a finished role's work is committed, once: HEAD holds the worker's bytes for each file it touched, HEAD's own
//     bytes for every file it did not (a user's uncommitted change the worker did not touch is never committed:
//     the grant question lists such files), the work tree keeps the user's bytes, and a repeat commits nothing.
// The user edits only while no attempt runs: an edit inside a role's scope while its worker runs is, by design,
// indistinguishable from the worker's (README, "Your work and git"). DO_PROPERTY_SEED replays; DO_SOAK=1 runs more.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { planWith } from "../helpers/design-dir.ts";
import { cliSync } from "../helpers/cli.ts";
import { runCrashing } from "../helpers/crash.ts";
import { gitProject, PLAN } from "../helpers/git-project.ts";
import { soak } from "../helpers/soak.ts";

const SCOPE = "src/api";
const PATHS = ["src/api/f0.ts", "src/api/f1.ts", "src/api/f2.ts", "src/api/sub/f3.ts", "top.txt"];
const START = { "src/api/f0.ts": "f0 at HEAD\n", "src/api/f1.ts": "f1 at HEAD\n", "top.txt": "top at HEAD\n" };
const plan = (): any => planWith([{ name: "api", acceptanceCriteria: [{ criterion: "c", check: "true" }] }]);
const REFLEXION = { rootCause: "the attempt before failed its checks", wrongAssumptions: "that the change was local", alternative: "a smaller change this time" };

type UserOp = { kind: "change" | "delete" | "rename" | "stage"; path: string; to: string; text: string };
type WorkerOp = { kind: "write" | "delete"; path: string; text: string };
type Episode = { user: UserOp[]; worker: WorkerOp[]; outcome: "fail" | "finish"; killAt: number; listUntouched: boolean };

const text = fc.string({ maxLength: 12 }).map((s) => `${s}\n`);
const path = fc.constantFrom(...PATHS);
const scoped = fc.constantFrom(...PATHS.filter((p) => p.startsWith(`${SCOPE}/`)));
const userOp: fc.Arbitrary<UserOp> = fc.record({ kind: fc.constantFrom("change", "change", "delete", "rename", "stage"), path, to: path, text });
const workerOp: fc.Arbitrary<WorkerOp> = fc.record({ kind: fc.constantFrom("write", "write", "delete"), path: scoped, text });
const episode: fc.Arbitrary<Episode> = fc.record({
  user: fc.array(userOp, { maxLength: 4 }),
  worker: fc.array(workerOp, { maxLength: 4 }),
  outcome: fc.constantFrom("fail", "finish"),
  killAt: fc.integer({ min: 0, max: 14 }),
  listUntouched: fc.boolean(),
});

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    const abs = join(dir, rel);
    if (!existsSync(abs)) return;
    for (const e of readdirSync(abs, { withFileTypes: true })) {
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(r);
      else out.set(r, readFileSync(join(dir, r), "utf8"));
    }
  };
  walk(SCOPE);
  return out;
}

describe("the user's work is never lost (property)", () => {
  it("random user edits, attempts, worker edits, kills and retries: nothing of the user's lost or committed unasked", async (t) => {
    const seed = process.env.DO_PROPERTY_SEED ? Number(process.env.DO_PROPERTY_SEED) : undefined;
    await fc.assert(
      fc.asyncProperty(fc.array(episode, { minLength: 1, maxLength: 3 }), async (episodes) => {
        const p = await gitProject(t, plan(), START);
        const read = (rel: string) => (existsSync(join(p.dir, rel)) ? readFileSync(join(p.dir, rel), "utf8") : null);
        const write = (rel: string, s: string) => {
          mkdirSync(dirname(join(p.dir, rel)), { recursive: true });
          writeFileSync(join(p.dir, rel), s);
        };
        const ok = (args: string[], stdin?: string) => {
          const r = cliSync(args, { cwd: p.dir, stdin });
          assert.equal(r.json?.ok, true, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
          return r.json;
        };
        const killedThenAgain = async (args: string[], at: number) => {
          if (at > 0) await runCrashing({ args }, p.dir, { at });
          return ok(args);
        };
        for (const [k, ep] of episodes.entries()) {
          // The user's edits, while no attempt runs.
          for (const u of ep.user) {
            if (u.kind === "change") write(u.path, u.text);
            else if (u.kind === "delete") rmSync(join(p.dir, u.path), { force: true });
            else if (u.kind === "rename" && existsSync(join(p.dir, u.path)) && u.to !== u.path) {
              mkdirSync(dirname(join(p.dir, u.to)), { recursive: true });
              renameSync(join(p.dir, u.path), join(p.dir, u.to));
            } else if (u.kind === "stage" && existsSync(join(p.dir, u.path))) p.git("add", "--", u.path);
          }
          const userFiles = files(p.dir);
          const userTop = read("top.txt");
          const userIndex = p.git("ls-files", "-s");
          const headBefore = p.git("rev-parse", "HEAD").trim();
          const agent = k === 0 ? "api" : `api-${k + 1}`;
          ok(["update-status", PLAN], JSON.stringify([{ roleIndex: 0, status: "in_progress", agent, ...(k ? { reflexion: REFLEXION } : {}) }]));
          // The worker's edits.
          for (const w of ep.worker) {
            if (w.kind === "write") write(w.path, w.text);
            else rmSync(join(p.dir, w.path), { force: true });
          }
          // What the attempt changed: the files whose bytes (or presence) differ from the user's at its start.
          const after = files(p.dir);
          const touched = new Set([...after.keys(), ...userFiles.keys()].filter((rel) => after.get(rel) !== userFiles.get(rel)));
          const last = k === episodes.length - 1;
          if (ep.outcome === "fail" || !last) {
            ok(["update-status", PLAN], JSON.stringify([{ roleIndex: 0, status: "failed", result: "failed" }]));
            await killedThenAgain(["clean-attempt", PLAN, "--role", "0"], ep.killAt);
            assert.deepEqual(files(p.dir), userFiles, "the scope is as the user left it");
            assert.equal(read("top.txt"), userTop, "outside the scope: untouched");
            assert.equal(p.git("ls-files", "-s"), userIndex, "the user's index: untouched");
            assert.equal(p.git("rev-parse", "HEAD").trim(), headBefore, "nothing committed");
            const again = ok(["clean-attempt", PLAN, "--role", "0"]);
            assert.deepEqual([again.restored, again.removed], [[], []], "a repeat changes nothing");
            continue;
          }
          // The worker finishes: its report lists what it touched (and, at random, the user's dirty files besides).
          const listed = [...touched, ...(ep.listUntouched ? [...userFiles.keys()] : [])];
          write(`.design/worker-${agent}.json`, JSON.stringify({ role: "api", achieved: true, filesChanged: listed, acceptanceCriteria: [{ criterion: "c", passed: true, evidence: "e" }] }));
          const args = ["finish", PLAN, "--agent", agent];
          const done = await killedThenAgain(args, ep.killAt);
          assert.equal(done.status, "completed", JSON.stringify(done));
          const show = (rev: string, rel: string) => {
            try {
              return p.git("show", `${rev}:${rel}`);
            } catch {
              return null;
            }
          };
          const commits = Number(p.git("rev-list", "--count", `${headBefore}..HEAD`).trim());
          assert.ok(commits <= 1, "committed at most once");
          for (const rel of PATHS.filter((x) => x.startsWith(`${SCOPE}/`))) {
            const now = read(rel);
            if (touched.has(rel)) {
              // The worker's bytes are committed (a file it deleted that HEAD never had stays absent).
              assert.equal(show("HEAD", rel), now, `${rel}: the worker's work is committed`);
            } else {
              assert.equal(show("HEAD", rel), show(headBefore, rel), `${rel}: the user's change the worker did not touch is not committed`);
              assert.equal(now, userFiles.get(rel) ?? null, `${rel}: the user's bytes stay`);
            }
          }
          assert.equal(read("top.txt"), userTop);
          const head = p.git("rev-parse", "HEAD").trim();
          const repeat = ok(args);
          assert.equal(repeat.alreadyRecorded, true);
          assert.equal(p.git("rev-parse", "HEAD").trim(), head, "a repeat commits nothing");
          break;
        }
      }),
      { numRuns: soak(6, 60), ...(seed !== undefined ? { seed } : {}), endOnFailure: true, includeErrorInReport: true },
    );
  });
});
