import { describe, it } from "node:test";
import assert from "node:assert/strict";
import matter from "gray-matter";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { permits, type HookInput } from "../../src/hooks/permit.ts";
import { allowedTools, commandFiles, injectedCommands, invocations, ROOT, SKILLS, skillDirs, skillFiles } from "./plugin-files.ts";

describe("skill frontmatter", () => {
  it("exists for exactly the five skills", () => {
    assert.deepEqual(skillDirs(), [...SKILLS].sort());
  });

  for (const f of skillFiles()) {
    describe(f.rel, () => {
      it("parses and names the skill after its folder", () => {
        assert.doesNotThrow(() => matter(f.raw));
        assert.equal(f.data.name, f.name);
      });

      it("has a one-line description that starts with 'Use when' and fits 1,024 characters", () => {
        const d = f.data.description;
        assert.equal(typeof d, "string");
        assert.match(d as string, /^Use when /);
        assert.ok((d as string).length <= 1024, `description is ${(d as string).length} characters`);
        assert.doesNotMatch(d as string, /\n/);
      });

      it("keeps steps and angle brackets out of the description", () => {
        const d = f.data.description as string;
        assert.doesNotMatch(d, /(^|\s)\d+[.)]\s/, "numbered steps");
        assert.doesNotMatch(d, /[<>]/);
        assert.doesNotMatch(d, /\bthen\b.*\bthen\b/i, "a step sequence");
      });

      if (f.name !== "execute") {
        it("says when to use the skill, not how it works or what it writes", () => {
          const d = f.data.description as string;
          assert.doesNotMatch(d, /\.design\//, "a file the skill writes");
          assert.doesNotMatch(d, /\b(produces|reads|writes|spawns|agents?|phases?|static analysis|helper)\b/i, "how it works");
        });
      }

      it("has an argument hint", () => {
        assert.equal(typeof f.data["argument-hint"], "string");
        assert.ok((f.data["argument-hint"] as string).length > 0);
      });

      it("lets every helper call run without asking", () => {
        // Every skill names its own helper only: in the invoking turn a skill's Bash rules also cover the background
        // agents it starts (checked on 2.1.197 and 2.1.330), and `Bash(node:*)` would let them run any `node -e`.
        const rule = 'Bash(node "${CLAUDE_SKILL_DIR}/scripts/plan.js":*)';
        assert.ok(allowedTools(f.data).includes(rule), `allowed-tools: ${JSON.stringify(f.data["allowed-tools"])}`);
        assert.ok(!allowedTools(f.data).some((t) => /^Bash\(node[ :]\*?\*?\)$|^Bash\(node:\*\)$/.test(t)), "no rule for any node call");
      });

      it("uses only keys Claude Code knows", () => {
        const known = new Set(["name", "description", "argument-hint", "allowed-tools"]);
        for (const k of Object.keys(f.data)) assert.ok(known.has(k), `unexpected key ${k}`);
      });
    });
  }
});

/** The one helper call a view makes beyond its injection: /do:memories filtering every memory by the user's keyword. */
const KEYWORD_CALL = /memory-review \.design\/memory\.jsonl --top 20 --keyword '<keyword>'$/;

describe("/do:memories filters every memory, then shows 20", () => {
  it("writes the keyword call as the hook approves it, and the hook refuses it bent", (t) => {
    const memories = commandFiles().find((c) => c.name === "memories")!;
    const call = invocations(memories).map((i) => i.text.trim()).find((x) => KEYWORD_CALL.test(x));
    assert.ok(call, "the keyword call is written");
    const project = realpathSync(mkdtempSync(join(tmpdir(), "do-memories-")));
    t.after(() => rmSync(project, { recursive: true, force: true }));
    mkdirSync(join(project, ".design"));
    const typed = (keyword: string) => call!.replace("${CLAUDE_PLUGIN_ROOT}", ROOT).replace("'<keyword>'", keyword);
    const allowed = (command: string) => permits({ tool_name: "Bash", tool_input: { command }, cwd: project } as HookInput, ROOT);
    for (const k of ["'auth'", "'it'\\''s'", "'a b'"]) assert.equal(allowed(typed(k)), true, typed(k));
    for (const k of ["'auth'; id", "\"$(id)\"", "'auth' --top 9999", "'auth' > .design/x"]) assert.equal(allowed(typed(k)), false, typed(k));
  });
});

describe("command frontmatter", () => {
  const commands = commandFiles();

  it("has a plan status view and a memory view", () => {
    const names = commands.map((c) => c.name);
    assert.ok(names.includes("plan-status"), names.join(", "));
    assert.ok(names.includes("memories"), names.join(", "));
  });

  for (const c of commands) {
    describe(c.rel, () => {
      it("does not share a name with a skill (it would hide the skill)", () => {
        assert.ok(!(SKILLS as readonly string[]).includes(c.name));
      });

      it("has a short description that fits /help", () => {
        const d = c.data.description;
        assert.equal(typeof d, "string");
        assert.ok((d as string).length > 0 && (d as string).length <= 100, `description is ${(d as string).length} characters`);
      });

      it("allows exactly its own helper calls, each as written, and no other command", () => {
        // In a command's turn its Bash rules cover every call the model makes, while it shows text from .design/
        // that a cloned repository can fill: `Bash(node:*)` would run any `node -e` unasked. ${CLAUDE_PLUGIN_ROOT}
        // is substituted in a command's allowed-tools, and an exact rule (no `:*`) approves that one command line
        // (test/e2e/command-scope.test.ts, 2.1.197 and 2.1.332).
        // /do:memories' keyword call carries the user's word, so no exact rule can name it: the hook approves it
        // (below), and the command's own rules stay exact.
        const calls = [...new Set([...injectedCommands(c.raw), ...invocations(c).map((i) => i.text.trim())])].filter((call) => !KEYWORD_CALL.test(call));
        assert.ok(calls.length > 0);
        const bashRules = allowedTools(c.data).filter((t) => /^Bash\b/.test(t));
        assert.deepEqual(bashRules.sort(), calls.map((call) => `Bash(${call})`).sort());
        for (const rule of bashRules) assert.doesNotMatch(rule, /\*|\$ARGUMENTS|\$\d/, rule);
        for (const call of calls) assert.ok(call.startsWith('node "${CLAUDE_PLUGIN_ROOT}/dist/plan.js" '), call);
      });
    });
  }
});
