// /do:remember's helper calls, run the way the Bash tool runs them (bash -c, the command's text with
// ${CLAUDE_PLUGIN_ROOT} substituted), on learnings full of shell syntax: the text reaches memory.jsonl byte for
// byte and nothing in it is executed, because it travels in a file the model wrote, never on the command line.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "../..");
const COMMAND = readFileSync(join(ROOT, "commands/remember.md"), "utf8");

/** The command's helper calls as written, substituted the way Claude Code substitutes a command's body. */
function calls(): string[] {
  return [...COMMAND.matchAll(/`(node "\$\{CLAUDE_PLUGIN_ROOT\}\/dist\/plan\.js"[^`]*)`/g)].map((m) => m[1].replaceAll("${CLAUDE_PLUGIN_ROOT}", ROOT));
}

function bash(cmd: string, cwd: string): any {
  const r = spawnSync("bash", ["-c", cmd], { cwd, encoding: "utf8" });
  return { code: r.status, json: JSON.parse(r.stdout) };
}

const HOSTILE = [
  `Quote "double" and 'single' and it's fine`,
  "Never run $(touch pwned-subst) here",
  "Backticks `touch pwned-tick` stay text",
  "A $HOME and ${PATH} and $1 stay literal; also ; touch pwned-semi && | > out.txt",
  "Two\nlines\r\nand a tab\there, unicode é ✓",
].join(" ");

describe("/do:remember's calls with hostile learnings", () => {
  it("stores the text exactly and runs none of it, then boosts the duplicate by id from the file", (t) => {
    const dir = mkdtempSync(join(tmpdir(), "do-remember-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, ".design/tmp"), { recursive: true });
    const [add, boost] = calls();
    assert.ok(add?.includes("--from .design/tmp/remember.json") && boost?.includes("--boost --from .design/tmp/remember.json"), JSON.stringify(calls()));

    // What the model writes with the Write tool.
    writeFileSync(join(dir, ".design/tmp/remember.json"), JSON.stringify({ category: "mistake", keywords: ["shell", "quoting"], importance: 7, surprise: "quotes inside a heredoc still expand", content: HOSTILE, source: "user" }));
    const first = bash(add, dir);
    assert.equal(first.code, 0, JSON.stringify(first.json));
    const stored = readFileSync(join(dir, ".design/memory.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(stored.length, 1);
    assert.equal(stored[0].content, HOSTILE);
    for (const f of ["pwned-subst", "pwned-tick", "pwned-semi", "out.txt"]) assert.equal(existsSync(join(dir, f)), false, f);

    // The same learning again: refused as a near-duplicate, with the entry to show.
    const again = bash(add, dir);
    assert.equal(again.code, 1);
    assert.equal(again.json.gate, "duplicate");
    assert.equal(again.json.existing.content, HOSTILE);
    // The user says yes: the model writes the id into the file and boosts.
    writeFileSync(join(dir, ".design/tmp/remember.json"), JSON.stringify({ id: again.json.existing.id }));
    const boosted = bash(boost, dir);
    assert.deepEqual([boosted.code, boosted.json.action, boosted.json.importance], [0, "boosted", 8]);
  });
});
