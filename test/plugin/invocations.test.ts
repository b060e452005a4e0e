import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { registry } from "../../src/registry.ts";
import { parseArgs } from "../../src/lib/command/args.ts";
import type { CommandDef } from "../../src/lib/command/command.ts";
import { commandFiles, injectedCommands, invocations, shellWords, skillFiles, type Invocation } from "./plugin-files.ts";

async function definition(name: string): Promise<CommandDef | undefined> {
  const entry = Object.prototype.hasOwnProperty.call(registry, name) ? registry[name] : undefined;
  return entry ? (await entry.load()).default : undefined;
}

/** Why a written call would be refused by the helper, or null when it would be accepted. */
async function problem(inv: Invocation): Promise<string | null> {
  if (!inv.command) return "no command after plan.js";
  const def = await definition(inv.command);
  if (!def) return `unknown command ${inv.command}`;
  if (inv.argv.includes("--help")) return null;
  try {
    parseArgs(inv.command, inv.argv, def);
  } catch (err) {
    return (err as Error).message;
  }
  // A file argument may stand in for stdin (worker-completion-validate's report_path): then no stdin as well.
  const instead = def.positionals.findIndex((p) => p.insteadOfStdin);
  const fileGiven = instead >= 0 && inv.argv.filter((a) => !a.startsWith("-")).length > instead;
  if (def.stdin && !fileGiven && !inv.hasStdin) return `${inv.command} reads stdin but nothing is piped or redirected in`;
  if ((!def.stdin || fileGiven) && inv.hasStdin) return `${inv.command} reads no stdin${fileGiven ? " with a file argument" : ""} but input is piped or redirected in`;
  return null;
}

describe("the invocation scanner", () => {
  it("splits quoted words and stops at a redirect", () => {
    assert.deepEqual(shellWords(` memory-add m.jsonl --content 'it'\\''s' --keywords "a,b" < x.json`), {
      words: ["memory-add", "m.jsonl", "--content", "it's", "--keywords", "a,b"],
      stop: "<",
    });
  });

  it("sees a pipe before the call as stdin", () => {
    const [inv] = invocations({
      rel: "x",
      kind: "skill",
      name: "x",
      data: {},
      body: "",
      raw: "`echo '[{\"roleIndex\": 0}]' | node \"${CLAUDE_SKILL_DIR}/scripts/plan.js\" update-status .design/plan.json`",
    });
    assert.equal(inv.command, "update-status");
    assert.deepEqual(inv.argv, [".design/plan.json"]);
    assert.equal(inv.hasStdin, true);
  });
});

describe("helper invocations in skills", () => {
  for (const f of skillFiles()) {
    const calls = invocations(f);

    it(`${f.rel} calls the helper through CLAUDE_SKILL_DIR only`, () => {
      assert.ok(calls.length > 0);
      for (const c of calls) assert.equal(c.via, "CLAUDE_SKILL_DIR", `${f.rel}:${c.line}`);
      assert.ok(!f.raw.includes("CLAUDE_PLUGIN_ROOT"), "CLAUDE_PLUGIN_ROOT is not set in the Bash tool");
    });

    it(`${f.rel} passes no argument in double quotes (free text goes single-quoted, a quote as '\\'')`, () => {
      // Double quotes let the shell expand `$`, backticks and `!`: a goal holding them would be refused by the hook,
      // or run if the user approved it. The Script Setup states the single-quote rule once.
      const doubled = calls.map((c) => c.text.slice(c.text.indexOf('plan.js"') + 'plan.js"'.length)).filter((rest) => rest.includes('"'));
      assert.deepEqual(doubled, []);
      assert.match(f.body, /Free text goes in single quotes, a `'` in it as `'\\''`; never in double quotes\./);
    });

    it(`${f.rel} names real commands with arguments the helper accepts`, async () => {
      const bad: string[] = [];
      for (const c of calls) {
        const p = await problem(c);
        if (p) bad.push(`${f.rel}:${c.line}: ${c.text.trim()}\n    → ${p}`);
      }
      assert.deepEqual(bad, []);
    });

    it(`${f.rel} injects exactly its pre-flight digest, before the flow starts`, () => {
      assert.deepEqual(injectedCommands(f.raw), [`node "\${CLAUDE_SKILL_DIR}/scripts/plan.js" preflight ${f.name}`]);
      const line = f.body.split("\n").findIndex((l) => l.startsWith("!`node "));
      const firstSection = f.body.split("\n").findIndex((l) => l.startsWith("## "));
      assert.ok(line >= 0 && line < firstSection, "the digest line comes before the first ## section");
      assert.equal(f.body.split("\n")[line], `!\`node "\${CLAUDE_SKILL_DIR}/scripts/plan.js" preflight ${f.name}\``);
    });

    it(`${f.rel} ends every run with reflection-add for its own skill`, () => {
      const ends = calls.filter((c) => c.command === "run-end");
      if (ends.length) {
        // run-end records the reflection (from the evaluation file) and closes the run in one call.
        assert.deepEqual([ends.length, calls.filter((c) => c.command === "reflection-add").length], [1, 0]);
        assert.equal(ends[0].argv[0], f.name);
        assert.ok(ends[0].argv.includes("--eval"), "the evaluation comes from a file");
        return;
      }
      const adds = calls.filter((c) => c.command === "reflection-add");
      assert.equal(adds.length, 1);
      const i = adds[0].argv.indexOf("--skill");
      assert.equal(adds[0].argv[i + 1], f.name);
      assert.ok(adds[0].hasStdin, "the evaluation comes from a file");
    });
  }
});

/** Commands that act (the model runs their helper calls with Bash) instead of rendering one injected answer. */
const ACTION_COMMANDS = new Set(["remember"]);

describe("helper invocations in commands", () => {
  for (const f of commandFiles()) {
    const calls = invocations(f);

    if (ACTION_COMMANDS.has(f.name)) {
      it(`${f.rel} injects nothing and calls the helper through CLAUDE_PLUGIN_ROOT only`, () => {
        assert.deepEqual(injectedCommands(f.raw), []);
        assert.ok(calls.length > 0);
        for (const c of calls) assert.equal(c.via, "CLAUDE_PLUGIN_ROOT", `${f.rel}:${c.line}`);
        assert.ok(!f.raw.includes("CLAUDE_SKILL_DIR"), "CLAUDE_SKILL_DIR is not substituted in commands");
      });

      it(`${f.rel} passes the user's text to the helper as a file, never on a command line`, () => {
        for (const c of calls) {
          assert.ok(!c.text.includes("$ARGUMENTS"), `${f.rel}:${c.line}: ${c.text}`);
          assert.ok(c.argv.includes("--from"), `${f.rel}:${c.line}: the entry comes from a file`);
          assert.ok(!c.argv.some((a) => /^--(content|keywords|category|id)$/.test(a)), `${f.rel}:${c.line}: ${c.text}`);
        }
        const lines = f.body.split("\n");
        const args = lines.filter((l) => l.includes("$ARGUMENTS"));
        assert.equal(args.length, 1, "the learning appears once, as data between tags");
        assert.equal(args[0].trim(), "$ARGUMENTS");
      });
    } else {
      it(`${f.rel} gets its data by injection through CLAUDE_PLUGIN_ROOT`, () => {
        const injected = injectedCommands(f.raw);
        assert.equal(injected.length, 1);
        // /do:memories also filters every memory by the user's keyword (frontmatter.test.ts: the hook approves it).
        assert.equal(calls.filter((c) => !c.argv.includes("--keyword")).length, 1);
        assert.equal(calls[0].via, "CLAUDE_PLUGIN_ROOT");
        assert.ok(!f.raw.includes("CLAUDE_SKILL_DIR"), "CLAUDE_SKILL_DIR is not substituted in commands");
      });
    }

    it(`${f.rel} names real commands with arguments the helper accepts`, async () => {
      for (const c of calls) {
        const p = await problem(c);
        assert.equal(p, null, `${f.rel}: ${c.text}`);
      }
    });
  }
});

describe("arguments reach commands as data", () => {
  for (const f of commandFiles()) {
    it(`${f.rel} puts no $ARGUMENTS (or $0, $1…) on its !-line, where the shell would parse them`, () => {
      for (const line of injectedCommands(f.raw)) assert.doesNotMatch(line, /\$(ARGUMENTS|\d)/, line);
    });
  }
});
