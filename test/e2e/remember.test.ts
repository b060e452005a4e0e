// /do:remember through the real CLI: the user's learning, full of shell syntax, arrives in the command's body as
// data; the scripted lead writes it to .design/tmp/remember.json with the Write tool and runs the helper call
// exactly as the command spells it. The text is stored byte for byte, nothing in it runs, no approval is asked;
// the same learning again is refused as a near-duplicate and boosted instead.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ensureClaude, PLUGIN_DIR } from "./lib/claude.ts";
import { bash, done, flowScript, helperJson, ok, read, turn, write } from "./lib/lead.ts";
import { cleanup, sampleProject, type Sample } from "./lib/project.ts";
import { commandPrompt, delivery, substitute } from "./lib/prompts.ts";
import { assertClean, session } from "./lib/session.ts";

const LEARNING = `npm test needs DATABASE_URL; never "$(touch pwned)" or \`touch pwned2\` in checks, use npm run test:unit`;
const TIMEOUT = 120_000;

describe("/do:remember through claude -p", () => {
  let project: Sample;
  before(() => {
    ensureClaude();
    project = sampleProject();
  });
  after(() => cleanup(project?.dir));

  /** The command's helper calls as the model reads them (CLAUDE_PLUGIN_ROOT substituted), add first, boost second. */
  function calls(): string[] {
    const p = commandPrompt(PLUGIN_DIR, "remember");
    return [...p.body.matchAll(/`(node "\$\{CLAUDE_PLUGIN_ROOT\}\/dist\/plan\.js"[^`]*)`/g)].map((m) => substitute(m[1], p, PLUGIN_DIR, ""));
  }

  it("stores a new learning from a file the model wrote, without approval, and runs none of it", { timeout: TIMEOUT }, async () => {
    const file = join(project.dir, ".design/tmp/remember.json");
    const entry = { category: "mistake", keywords: ["npm-test", "database"], importance: 7, surprise: "the failure message never names the variable", content: LEARNING, source: "user" };
    let stored: any;
    const s = await session({
      prompt: `/do:remember ${LEARNING}`,
      cwd: project.dir,
      maxTurns: 4,
      script: flowScript(function* () {
        const back = yield turn("Filing it.", write(file, JSON.stringify(entry)), bash(calls()[0]));
        done(back.results[0]);
        stored = ok(back.results[1]);
        yield turn("Remembered.");
      }),
    });
    assertClean(s);
    const p = commandPrompt(PLUGIN_DIR, "remember");
    const d = delivery(p, PLUGIN_DIR, LEARNING, s.received);
    assert.deepEqual(d.missing, [], "the command's body, with the learning between its tags, arrives verbatim");
    assert.equal(stored.category, "mistake");
    const [mem] = project.jsonl(".design/memory.jsonl");
    assert.equal(mem.content, LEARNING);
    assert.equal(mem.source, "user");
    for (const f of ["pwned", "pwned2"]) assert.equal(existsSync(join(project.dir, f)), false, f);
  });

  it("refuses the same learning as a near-duplicate, shows the existing one and boosts it", { timeout: TIMEOUT }, async () => {
    const file = join(project.dir, ".design/tmp/remember.json");
    const entry = { category: "mistake", keywords: ["database"], importance: 6, content: LEARNING, source: "user" };
    let boosted: any;
    const s = await session({
      prompt: `/do:remember ${LEARNING}`,
      cwd: project.dir,
      maxTurns: 6,
      script: flowScript(function* () {
        let back = yield turn("Reading the old input first.", read(file));
        done(back.results[0]);
        back = yield turn("Filing it.", write(file, JSON.stringify(entry)), bash(calls()[0]));
        const dup = helperJson(back.results[1]);
        if (dup.gate !== "duplicate" || dup.existing?.content !== LEARNING) throw new Error(`expected a duplicate: ${back.results[1].text}`);
        back = yield turn(`Already remembered: "${dup.existing.content}" (importance ${dup.existing.importance}). Boosting it.`, write(file, JSON.stringify({ id: dup.existing.id })), bash(calls()[1]));
        done(back.results[0]);
        boosted = ok(back.results[1]);
        yield turn("Boosted.");
      }),
    });
    assertClean(s);
    assert.deepEqual([boosted.action, boosted.importance], ["boosted", 8]);
    assert.equal(project.jsonl(".design/memory.jsonl").length, 1);
  });
});
