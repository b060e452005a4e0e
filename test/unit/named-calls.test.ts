// Issue 30, Build item 2: every helper call the text names is approved by the hook in the state in which it is made,
// or the text says the user is asked and why. The calls come from the text itself: each SKILL.md (every written call,
// filled as a lead types it), each command's call, and every helper answer (an error, an advice, a next step) that
// tells the lead to make a call. Each is judged by src/hooks/permit.ts for the lead with no grant in force: that is the
// state after any wait (the skill's allowed-tools have lapsed; the hook alone approves) and for a run that declined
// the grant. The calls that run programs or git under the grant (run-checks, commit, clean-attempt) are refused
// without one, and execute's SKILL.md says so. Agents are given no helper call: the refs name none (refs.test.ts),
// and the briefs never send a background agent to a tool that is denied or asks there.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { GRANTED_HELPER_COMMANDS, permits, SKILLS, type HookInput, type Skill } from "../../src/hooks/permit.ts";
import { registry } from "../../src/registry.ts";
import { commandCalls, filled, writtenCalls } from "../helpers/skill-calls.ts";

const ROOT = resolve(__dirname, "../..");
let dir: string;
let saved: string | undefined;

before(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "do-named-calls-")));
  for (const d of [".design/tmp", ".design/draft/specs", ".design/history/20260101T000000Z", ".claude/skills/greet"]) mkdirSync(join(dir, d), { recursive: true });
  for (const f of [".design/plan.json", ".design/draft/plan.json", ".design/memory.jsonl", ".design/reflection.jsonl", ".claude/skills/greet/SKILL.md"]) writeFileSync(join(dir, f), "{}\n");
  for (const f of ["eval.json", "constraints.json", "update.json", "updates.json", "tasks.json", "resolutions.json", "remember.json", "recon-draft.json"]) writeFileSync(join(dir, ".design/tmp", f), "{}\n");
  saved = process.env.CLAUDE_PROJECT_DIR;
  process.env.CLAUDE_PROJECT_DIR = dir;
});

after(() => {
  if (saved === undefined) delete process.env.CLAUDE_PROJECT_DIR;
  else process.env.CLAUDE_PROJECT_DIR = saved;
  rmSync(dir, { recursive: true, force: true });
});

const lead = (command: string): HookInput => ({ tool_name: "Bash", tool_input: { command, description: "x" }, cwd: dir }) as HookInput;
const approved = (command: string) => permits(lead(command), ROOT);
const helperOf = (skill: Skill) => `node "${ROOT}/skills/${skill}/scripts/plan.js"`;
const commandsHelper = `node "${ROOT}/dist/plan.js"`;

/** Every .ts file under src/. */
function sources(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith(".ts")) out.push(p);
    }
  };
  walk(join(ROOT, "src"));
  return out.sort();
}

/**
 * The calls the helper's own answers tell the lead to make: a registry command followed by a flag, on a line that
 * builds an error, an advice, a next step or an announcement. The schema descriptions (json-schemas.ts) describe
 * fields, not calls.
 */
function suggestedCalls(): Array<{ file: string; text: string }> {
  const names = Object.keys(registry).sort((a, b) => b.length - a.length);
  const re = new RegExp(`\\b(${names.join("|")}) (?:[.a-z<{][^\`"';)]*?)?--[a-z-]+(?: [^\`"';),]*)?`, "g");
  const out: Array<{ file: string; text: string }> = [];
  for (const f of sources()) {
    if (f.endsWith("json-schemas.ts") || f.includes("/schemas/")) continue;
    for (const line of readFileSync(f, "utf8").split("\n")) {
      if (!/HelperError|throw|advice|error|usage\(|nextStep|announce|return `|: `|=> `|= "|= `/.test(line)) continue;
      if (/^\s*(\/\/|\*|\/\*\*)/.test(line)) continue;
      for (const m of line.matchAll(re)) out.push({ file: f.slice(ROOT.length + 1), text: m[0].trim() });
    }
  }
  return out;
}

/**
 * Each suggestion the helper makes, as the lead would type it in the skill that gets that answer (or, for
 * /do:remember's boost, on the commands' helper path). A new suggestion fails the test until it is listed here, so
 * it is proved too.
 */
const CONCRETE: Record<string, string> = {
  "memory-add .design/memory.jsonl --boost --from .design/tmp/remember.json": `${commandsHelper} memory-add .design/memory.jsonl --boost --from .design/tmp/remember.json`,
  "report to read: pass --report": `${helperOf("execute")} commit .design/plan.json --role 0 --report .design/fix-1.json --message 'fix-1: fixed'`,
  "finish again (or with --give-up": `${helperOf("execute")} finish .design/plan.json --agent api --give-up`,
  "run-begin again with --resume or --fresh": `${helperOf("design")} run-begin design --goal 'add due dates' --resume`,
  "run-begin --fresh (it sets the earlier runs": `${helperOf("recon")} run-begin recon --goal 'where to act' --fresh`,
  "run-begin --fresh": `${helperOf("improve")} run-begin improve --goal 'greet clarity' --fresh`,
  "run-begin --fresh (it moves the stopped run": `${helperOf("reflect")} run-begin reflect --goal 'execute' --fresh`,
  "budget --tokens to go on": `${helperOf("execute")} budget .design/plan.json --tokens 200000`,
};

describe("every helper call the text names is approved where it is made, or the text says the user is asked", () => {
  it("each skill's written calls, for the lead after a wait and without a grant (the granted ones refused, and said so)", () => {
    const asks: string[] = [];
    const refusedSilently: string[] = [];
    for (const skill of SKILLS) {
      for (const call of writtenCalls(skill)) {
        const line = filled(call, skill);
        const command = /plan\.js" ([a-z-]+)/.exec(line)?.[1] ?? "";
        if (/grant-approve\.js/.test(line)) continue; // the user's consent: asked on purpose (permit.test.ts)
        if (approved(line)) continue;
        if (GRANTED_HELPER_COMMANDS.includes(command) && command !== "finish") asks.push(`${skill}: ${command}`);
        else refusedSilently.push(`${skill}: ${line}`);
      }
    }
    assert.deepEqual(refusedSilently, [], "a written call the hook refuses, and the text does not say the user is asked");
    assert.deepEqual([...new Set(asks)].sort(), ["execute: clean-attempt", "execute: commit", "execute: run-checks"]);
    // execute's text says so, and why.
    const execute = readFileSync(join(ROOT, "skills/execute/SKILL.md"), "utf8");
    assert.match(execute, /No grant \(declined, or ended\) → `clean-attempt`, `run-checks` and `commit` ask the user, who is told why: the\s+helper runs git and the plan's checks only under a grant\./);
  });

  it("each command's written call, on the commands' helper path", () => {
    const refused = commandCalls().map((c) => filled(c, "commands")).filter((c) => !approved(c));
    assert.deepEqual(refused, []);
  });

  it("each call a helper answer suggests is listed, and the hook approves it as the lead types it", () => {
    // self-test's own report says which commands answer --help: a fact, not a call for the lead.
    const found = suggestedCalls().filter((x) => x.text !== "self-test answers --help");
    const unknown = found.filter((s) => !(s.text in CONCRETE)).map((s) => `${s.file}: ${s.text}`);
    assert.deepEqual(unknown, [], "a helper answer suggests a call this test does not prove: add it to CONCRETE");
    assert.deepEqual(Object.keys(CONCRETE).filter((k) => !found.some((s) => s.text === k)), [], "CONCRETE lists a suggestion no answer makes any more");
    const refused = Object.entries(CONCRETE).filter(([, line]) => !approved(line) && !/ commit /.test(line)).map(([k, line]) => `${k}: ${line}`);
    assert.deepEqual(refused, []);
    // commit is granted: without a grant it asks (execute's SKILL.md says so, above).
    assert.equal(approved(CONCRETE["report to read: pass --report"]), false);
  });

  it("no helper answer suggests a call the skills no longer make (run-start, run-checkpoint, run-complete, reflection-add, health-check)", () => {
    const stale = suggestedCalls().filter((s) => /^(run-start|run-checkpoint|run-complete|reflection-add|health-check|validate-checks|run-status)\b/.test(s.text));
    assert.deepEqual(stale, []);
    const memoryAdd = readFileSync(join(ROOT, "src/commands/memory/add.ts"), "utf8");
    assert.doesNotMatch(memoryAdd, /--boost --id/, "the near-duplicate error names a form the hook refuses");
  });

  it("the briefs send no background agent to a tool that asks or is denied there", () => {
    const recon = readFileSync(join(ROOT, "skills/recon/refs/researcher-briefs.md"), "utf8");
    assert.doesNotMatch(recon, /Use git log/);
    assert.match(recon, /git log are denied in\s+the background/);
    assert.match(recon, /WebFetch may be denied in the background/);
    const scout = readFileSync(join(ROOT, "skills/execute/refs/pre-execution-briefs.md"), "utf8");
    assert.doesNotMatch(scout, /--version/);
    assert.match(scout, /judge a tool by the project's files \(its manifest, lockfile, scripts\); run nothing/);
    const worker = readFileSync(join(ROOT, "skills/execute/refs/worker-brief.md"), "utf8");
    assert.match(worker, /Read your brief first: \{brief\}/);
    assert.doesNotMatch(worker, /plan\.json → roles\[/, "a worker never searches the growing plan for its role");
  });
});
