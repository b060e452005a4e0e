// The permission hook applies the helper's table of ownership (src/base/owned.ts) to the helper calls it approves:
// a writing command typed as a skill would type it, but naming another command's file under .design/ (directly,
// or through a symlink or hard link from its own file), is not approved, so the user is asked. The same calls
// naming the command's own file are approved.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { permits, type HookInput, type Skill } from "../../src/hooks/permit.ts";

const ROOT = resolve(__dirname, "../..");
const helper = (skill: Skill) => `node "${ROOT}/skills/${skill}/scripts/plan.js"`;

/** The files of a project with one of every owned file, plus files nobody owns. */
const FILES = [
  ".design/plan.json", ".design/draft/plan.json", ".design/draft/specs/x.sh", ".design/specs/x.sh", ".design/grant.json",
  ".design/run-execute.json", ".design/run-design.json", ".design/workflow.js", ".design/memory.jsonl", ".design/reflection.jsonl",
  ".design/recon.json", ".design/.git/config", ".design/conftest.py", ".design/tmp/eval.json", ".design/history/old/x.txt",
];

function makeProject(base: string, name: string): string {
  const dir = join(base, name);
  for (const f of FILES) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    writeFileSync(join(dir, f), "{}\n");
  }
  return dir;
}

interface Writer {
  skill: Skill;
  call: (v: string) => string;
  own: string[];
  dir?: boolean;
}

const WRITERS: Writer[] = [
  { skill: "execute", call: (v) => `curator-apply .design/memory-curator-report.json --memory ${v}`, own: [".design/memory.jsonl"] },
  { skill: "recon", call: (v) => `recon-rank .design/tmp/eval.json --out ${v}`, own: [".design/recon.json"] },
  { skill: "recon", call: (v) => `recon-rank .design/tmp/eval.json --out=${v} --replace`, own: [".design/recon.json"] },
  { skill: "execute", call: (v) => `update-status ${v} < .design/tmp/eval.json`, own: [".design/plan.json"] },
  { skill: "execute", call: (v) => `budget ${v} --tokens 5000`, own: [".design/plan.json"] },
  { skill: "execute", call: (v) => `next ${v}`, own: [".design/plan.json"] },
  { skill: "execute", call: (v) => `add-constraints ${v} < .design/tmp/eval.json`, own: [".design/plan.json"] },
  { skill: "design", call: (v) => `finalize ${v}`, own: [".design/draft/plan.json", ".design/plan.json"] },
  { skill: "design", call: (v) => `archive ${v}`, own: [".design"], dir: true },
  { skill: "improve", call: (v) => `archive ${v} --only experts`, own: [".design"], dir: true },
  { skill: "execute", call: (v) => `run-checkpoint execute --phase a --design-dir=${v}`, own: [".design"], dir: true },
];

const FILE_TARGETS = [
  ".design/plan.json", ".design/draft/plan.json", ".design/grant.json", ".design/run-execute.json", ".design/workflow.js",
  ".design/specs/x.sh", ".design/draft/specs/x.sh", ".design/memory.jsonl", ".design/reflection.jsonl", ".design/recon.json",
  ".design/.git/config", ".design/conftest.py", ".design/tmp/new.json", ".design/specs/new.sh", ".design/history/old/x.txt",
  ".design/recon-2.json/x", ".design/tmp/memory.jsonl", ".design/MEMORY.jsonl",
];
const DIR_TARGETS = [".design/specs", ".design/draft", ".design/history", ".design/tmp", ".design/.git", ".design/plan.json", ".design/draft/specs"];
const LINK_TARGETS = [".design/plan.json", ".design/grant.json", ".design/run-execute.json", ".design/workflow.js", ".design/specs/x.sh", ".design/draft/specs/x.sh", ".design/conftest.py"];

let base = "";
let plain = "";

before(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "do-permit-own-")));
  plain = makeProject(base, "plain");
});
after(() => rmSync(base, { recursive: true, force: true }));

const bashIn = (cwd: string, command: string) => permits({ tool_name: "Bash", tool_input: { command }, cwd } as HookInput, ROOT);

describe("the hook applies the helper's table of ownership", () => {
  it("approves each writing command naming its own file, as the skills type it", () => {
    const refused = WRITERS.flatMap((w) => w.own.map((o) => `${helper(w.skill)} ${w.call(o)}`)).filter((c) => !bashIn(plain, c));
    assert.deepEqual(refused, []);
    // An absolute path to the same file is the same file.
    assert.ok(bashIn(plain, `${helper("execute")} curator-apply .design/memory-curator-report.json --memory ${plain}/.design/memory.jsonl`));
    assert.ok(bashIn(plain, `${helper("execute")} curator-apply .design/memory-curator-report.json --memory .design/memory-team.jsonl`), "another memory file");
  });

  it("refuses each writing command naming another command's file, a dotfile or a file nobody owns", () => {
    const approved: string[] = [];
    for (const w of WRITERS) {
      for (const t of (w.dir ? DIR_TARGETS : FILE_TARGETS).filter((x) => !w.own.includes(x))) {
        const command = `${helper(w.skill)} ${w.call(t)}`;
        if (bashIn(plain, command)) approved.push(command);
      }
    }
    assert.deepEqual(approved, []);
  });

  it("refuses a call naming its own file when that is a symlink to another command's file", () => {
    const approved: string[] = [];
    LINK_TARGETS.forEach((target, k) => {
      const proj = makeProject(base, `link-${k}`);
      const sources = [".design/memory.jsonl", ".design/reflection.jsonl", ".design/recon.json", ".design/plan.json", ".design/draft/plan.json"].filter((s) => s !== target);
      for (const s of sources) {
        rmSync(join(proj, s));
        symlinkSync(relative(dirname(join(proj, s)), join(proj, target)), join(proj, s));
      }
      for (const w of WRITERS.filter((x) => !x.dir)) {
        // A link to another file the same command owns (finalize's draft → plan.json) is that command's file.
        for (const o of w.own.filter((x) => sources.includes(x) && !w.own.includes(target))) {
          const command = `${helper(w.skill)} ${w.call(o)}`;
          if (bashIn(proj, command)) approved.push(`${o} → ${target}: ${command}`);
        }
      }
    });
    assert.deepEqual(approved, []);
  });

  it("refuses a call naming its own file when that has a second name (a hard link to a spec)", () => {
    const proj = makeProject(base, "hard");
    for (const s of [".design/memory.jsonl", ".design/reflection.jsonl", ".design/recon.json", ".design/plan.json"]) {
      rmSync(join(proj, s));
      linkSync(join(proj, ".design/specs/x.sh"), join(proj, s));
    }
    const approved = WRITERS.filter((w) => !w.dir)
      .map((w) => `${helper(w.skill)} ${w.call(w.own[w.own.length - 1])}`)
      .filter((c) => bashIn(proj, c));
    assert.deepEqual(approved, []);
  });

  it("leaves read arguments as they were: a reader may name any file inside .design/", () => {
    assert.ok(bashIn(plain, `${helper("execute")} grant .design/grant.json`));
    assert.ok(bashIn(plain, `${helper("design")} run-checkpoint design --phase a --outputs .design/plan.json,.design/specs/x.sh`));
    assert.ok(bashIn(plain, `${helper("recon")} recon-rank .design/specs/x.sh`), "the draft is read");
  });
});
