// Issue 24's execute calls (run-begin, run-end, curator-apply) through the permission hook: approved for the lead
// exactly as the skill will write them, with the decorations a model adds (`cd <root> &&`, `2>&1`, the helper path
// unquoted or single-quoted); never for an agent, another skill's helper, plan mode or the sandbox turned off; and
// never with a path leaving .design/ or a write path another command owns.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { permits, type HookInput, type Skill } from "../../src/hooks/permit.ts";

const ROOT = resolve(__dirname, "../..");
let dir: string;

before(() => {
  dir = join(realpathSync(mkdtempSync(join(tmpdir(), "do-permit-run-"))), "project");
  mkdirSync(join(dir, ".design/tmp"), { recursive: true });
  writeFileSync(join(dir, ".design/plan.json"), "{}");
  writeFileSync(join(dir, ".design/tmp/eval.json"), "{}");
  writeFileSync(join(dir, ".design/memory-curator-report.json"), "{}");
});
after(() => rmSync(resolve(dir, ".."), { recursive: true, force: true }));

const helper = (skill = "execute") => `node "${ROOT}/skills/${skill}/scripts/plan.js"`;
const event = (command: string, extra: Record<string, unknown> = {}, input: Record<string, unknown> = {}): HookInput =>
  ({ tool_name: "Bash", tool_input: { command, description: "x", ...input }, cwd: dir, ...extra }) as HookInput;
const allowed = (input: HookInput, skill?: Skill) => permits(input, ROOT, skill);

/** The calls as skills/execute will write them (arguments after the subcommand). */
export const RUN_CALLS: readonly string[] = [
  "run-begin execute",
  "run-begin execute --resume",
  "run-begin execute --fresh",
  "run-begin execute --fresh --end-grant",
  "run-begin execute --budget 200000",
  "run-begin execute --resume --budget 200000",
  "run-end execute --outcome completed --goal-achieved true --eval .design/tmp/eval.json",
  "run-end execute --outcome partial --goal-achieved false --eval .design/tmp/eval.json",
  "run-end execute --outcome aborted",
  "run-end execute --outcome aborted --goal 'no plan'",
  "curator-apply .design/memory-curator-report.json",
  "curator-apply .design/memory-curator-report.json --goal 'Add the login page'",
  "validate-auxiliary-report .design/memory-curator-report.json --type memory-curator",
  "validate-auxiliary-report .design/memory-curator-report.json --type memory-curator --agent memory-curator",
];

function decorated(args: string): string[] {
  return [
    `${helper()} ${args}`,
    `${helper()} ${args} 2>&1`,
    `cd ${dir} && ${helper()} ${args}`,
    `cd "${dir}" && ${helper()} ${args} 2>&1`,
    `node ${ROOT}/skills/execute/scripts/plan.js ${args}`,
    `node '${ROOT}/skills/execute/scripts/plan.js' ${args}`,
  ];
}

describe("issue 24's execute calls through the hook", () => {
  it("approves each call for the lead, with every decoration, also by execute's own hook", () => {
    const refused = RUN_CALLS.flatMap(decorated).filter((c) => !allowed(event(c)) || !allowed(event(c), "execute"));
    assert.deepEqual(refused, []);
  });

  it("refuses them for an agent, in plan mode, with the sandbox off, and through another skill's helper", () => {
    for (const args of RUN_CALLS) {
      const c = `${helper()} ${args}`;
      assert.ok(!allowed(event(c, { agent_id: "a1", transcript_path: join(dir, "t.jsonl") })), `agent: ${c}`);
      assert.ok(!allowed(event(c, { permission_mode: "plan" })), `plan mode: ${c}`);
      assert.ok(!allowed(event(c, {}, { dangerouslyDisableSandbox: true })), `sandbox off: ${c}`);
      assert.ok(!allowed(event(`${helper("design")} ${args}`), "design"), `design's helper: ${c}`);
    }
  });

  it("refuses paths out of .design/, unknown flags, a second command and a shell expansion", () => {
    const bad = [
      "run-begin execute --inputs ../secret",
      "run-begin execute --inputs /etc/passwd",
      "run-begin execute --budget -5",
      "run-begin execute --budget lots",
      "run-begin execute --design-dir .",
      "run-begin execute; rm -rf /",
      "run-begin execute --goal \"$(id)\"",
      "run-begin execute --approve",
      "run-end execute --outcome completed --eval ../eval.json",
      "run-end execute --outcome completed --eval /etc/passwd",
      "run-end execute --outcome done",
      "run-end execute",
      "curator-apply ../report.json",
      "curator-apply .design/memory-curator-report.json --memory .design/plan.json",
      "curator-apply .design/memory-curator-report.json --memory .design/reflection.jsonl",
      "curator-apply .design/memory-curator-report.json --agent 'Bad Name'",
    ].map((a) => `${helper()} ${a}`);
    assert.deepEqual(bad.filter((c) => allowed(event(c))), []);
  });
});
