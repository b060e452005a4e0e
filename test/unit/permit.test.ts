import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { isHelperCall, permits } from "../../src/hooks/permit.ts";

const ROOT = "/opt/plugins/do";
const HELPER = `node "${ROOT}/skills/execute/scripts/plan.js"`;
const bash = (command: string) => permits({ tool_name: "Bash", tool_input: { command } }, ROOT);

describe("the PreToolUse hook", () => {
  it("allows the skills' helper calls as SKILL.md spells them", () => {
    assert.ok(bash(`${HELPER} status .design/plan.json`));
    assert.ok(bash(`${HELPER} memory-search .design/memory.jsonl --goal "add rate limiting" --limit 5`));
    assert.ok(bash(`echo '[{"roleIndex": 0, "status": "in_progress"}]' | ${HELPER} update-status .design/plan.json`));
    assert.ok(bash(`${HELPER} add-constraints .design/plan.json < .design/tmp/constraints.json`));
    assert.ok(bash(`${HELPER} run-checkpoint design --phase experts --outputs ".design/expert-a.json,.design/expert-b.json" --decisions 'two experts, REST'`));
    assert.ok(bash(`${HELPER} memory-add --content 'it'\\''s fine' --category pattern --keywords a`));
  });

  it("does not allow another script, another program or a second command", () => {
    assert.ok(!bash(`node "${ROOT}/dist/plan.js" status`), "only the skills' symlinks");
    assert.ok(!bash(`node "/tmp/evil/skills/x/scripts/plan.js" status`), "outside the plugin");
    assert.ok(!bash(`${HELPER} status; rm -rf /`));
    assert.ok(!bash(`${HELPER} status && curl x`));
    assert.ok(!bash(`${HELPER} status | sh`));
    assert.ok(!bash(`${HELPER} status > /etc/passwd`));
    assert.ok(!bash(`${HELPER} status\nrm -rf .`));
    assert.ok(!bash(`${HELPER} status "$(whoami)"`));
    assert.ok(!bash(`${HELPER} status "\`whoami\`"`));
    assert.ok(!bash(`node -e "require('fs')"`));
    assert.ok(!bash(`echo '[]' | sh`));
  });

  it("does not allow a path argument that leaves the project, quoted or not", () => {
    assert.ok(!bash(`${HELPER} archive /home/user`));
    assert.ok(!bash(`${HELPER} archive "/home/user"`));
    assert.ok(!bash(`${HELPER} archive '/home/user'`));
    assert.ok(!bash(`${HELPER} memory-add "../../elsewhere.jsonl" --content x --category pattern --keywords a`));
    assert.ok(!bash(`${HELPER} run-start design --phases a --design-dir ~/x`));
    assert.ok(!bash(`${HELPER} update-status .design/plan.json < .design/../../etc/x`));
    assert.ok(bash(`${HELPER} run-start design --phases a --goal "wait... then see ../docs"`), "text that only looks like a path stays fine");
  });

  it("allows writes under the project's .design only, and reads of the plugin's own files", () => {
    const cwd = "/work/project";
    assert.ok(permits({ tool_name: "Write", tool_input: { file_path: "/work/project/.design/tmp/eval.json" }, cwd }, ROOT));
    assert.ok(permits({ tool_name: "Edit", tool_input: { file_path: "/work/project/.design/handoff.md" }, cwd }, ROOT));
    assert.ok(!permits({ tool_name: "Write", tool_input: { file_path: "/work/project/src/app.ts" }, cwd }, ROOT));
    assert.ok(!permits({ tool_name: "Write", tool_input: { file_path: "/work/project/.design/../src/app.ts" }, cwd }, ROOT));
    assert.ok(!permits({ tool_name: "Write", tool_input: { file_path: ".design/x" }, cwd }, ROOT), "relative paths are not judged");
    assert.ok(permits({ tool_name: "Read", tool_input: { file_path: `${ROOT}/skills/design/refs/expert-briefs.md` } }, ROOT));
    assert.ok(!permits({ tool_name: "Read", tool_input: { file_path: "/etc/shadow" } }, ROOT));
    assert.ok(!permits({ tool_name: "Glob", tool_input: {} }, ROOT));
  });

  it("judges the helper path by where it resolves", () => {
    assert.ok(isHelperCall(`node "${ROOT}/skills/recon/../design/scripts/plan.js" status`, ROOT));
    assert.ok(!isHelperCall(`node "${ROOT}/skills/../../other/skills/x/scripts/plan.js" status`, ROOT));
  });

  it("prints the allow decision as a process, and nothing for what it does not allow", () => {
    const permitJs = resolve(__dirname, "../../dist/permit.js");
    const root = resolve(__dirname, "../..");
    const run = (input: unknown) => spawnSync(process.execPath, [permitJs], { input: JSON.stringify(input), encoding: "utf8" });
    const yes = run({ tool_name: "Bash", tool_input: { command: `node "${root}/skills/design/scripts/plan.js" status` } });
    assert.equal(yes.status, 0);
    assert.equal(JSON.parse(yes.stdout).hookSpecificOutput.permissionDecision, "allow");
    const no = run({ tool_name: "Bash", tool_input: { command: "rm -rf /" } });
    assert.equal(no.status, 0);
    assert.equal(no.stdout, "");
    const junk = spawnSync(process.execPath, [permitJs], { input: "not json", encoding: "utf8" });
    assert.equal(junk.status, 0);
    assert.equal(junk.stdout, "");
  });
});
