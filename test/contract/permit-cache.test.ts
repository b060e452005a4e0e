// The built hook (dist/permit.js) and its record of a verified grant, as real processes: the first call a grant
// covers verifies the grant in full (loading dist/permit-verify.js and node:crypto) and writes the record beside the
// key; the next ones answer from it without either; a change to what the grant binds is caught by the next process.
// A call no grant item covers never loads either, nor the sandbox check.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PLAN_JS } from "../helpers/cli.ts";
import { planWith, writeFiles } from "../helpers/design-dir.ts";

const DIST = dirname(PLAN_JS);
const PERMIT = join(DIST, "permit.js");
const GRANT_APPROVE = join(DIST, "..", "skills", "execute", "scripts", "grant-approve.js");

let base: string;
let root: string;
let config: string;
let preload: string;

before(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "do-permit-cache-")));
  root = join(base, "project");
  config = join(base, "config");
  mkdirSync(config);
  writeFiles(root, {
    ".design/plan.json": planWith(
      [{ name: "api", dirs: ["src/api/"], acceptanceCriteria: [{ criterion: "api tests pass", check: "npm test -- api" }] }],
      { context: { testCommand: "npm test" }, verificationSpecs: [{ role: "api", path: ".design/specs/spec-api.sh", runCommand: "sh .design/specs/spec-api.sh", sha256: createHash("sha256").update("#!/bin/sh\necho ok\n").digest("hex") }] },
    ),
    ".design/specs/spec-api.sh": "#!/bin/sh\necho ok\n",
    "src/api/a.ts": "x\n",
  });
  const env = { ...process.env, CLAUDE_CONFIG_DIR: config };
  const start = spawnSync(process.execPath, [PLAN_JS, "run-start", "execute", "--phases", "pre-flight,challenge,grant,workers,verify,learn,close", "--goal", "g"], { cwd: root, env, encoding: "utf8" });
  assert.equal(JSON.parse(start.stdout).ok, true, start.stdout);
  const approve = spawnSync(process.execPath, [GRANT_APPROVE, ".design/plan.json"], { cwd: root, env, encoding: "utf8" });
  assert.equal(JSON.parse(approve.stdout).recorded, true, approve.stdout);
  // What the process loaded: built-in modules and files of the plugin.
  preload = join(base, "loaded.cjs");
  writeFileSync(preload, 'process.on("exit", () => require("fs").writeSync(2, "\\n@loaded " + JSON.stringify([process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13)), Object.keys(require.cache)]) + "\\n"));\n');
});

after(() => rmSync(base, { recursive: true, force: true }));

function hook(command: string) {
  const event = { session_id: "s", transcript_path: join(base, "t.jsonl"), cwd: root, permission_mode: "default", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command, description: "x" } };
  const r = spawnSync(process.execPath, ["--require", preload, PERMIT], {
    input: JSON.stringify(event),
    env: { PATH: process.env.PATH, HOME: base, CLAUDE_CONFIG_DIR: config, CLAUDE_PROJECT_DIR: root },
    encoding: "utf8",
  });
  const [builtins, files] = JSON.parse(/@loaded (.*)/.exec(r.stderr)![1]) as [string[], string[]];
  return { allowed: r.status === 0 && r.stdout.includes('"allow"'), silent: r.status === 0 && r.stdout === "", builtins, files: files.filter((f) => f.startsWith(`${DIST}/`)).map((f) => f.slice(DIST.length + 1)) };
}

const records = () => readdirSync(join(config, "do")).filter((n) => n.startsWith("grant-cache-"));

describe("dist/permit.js with its record of the verified grant", () => {
  it("verifies in full once, then answers from the record without node:crypto or permit-verify.js", () => {
    assert.deepEqual(records(), []);
    const cold = hook("npm test -- api");
    assert.ok(cold.allowed);
    assert.ok(cold.builtins.includes("crypto"), "the full verification hashes");
    assert.deepEqual(cold.files.sort(), ["permit-verify.js", "permit.js"]);
    const [name] = records();
    assert.match(name, /^grant-cache-[0-9a-f]{16}\.json$/);
    assert.equal(lstatSync(join(config, "do", name)).mode & 0o777, 0o600);
    for (let i = 0; i < 2; i++) {
      const warm = hook("npm test -- api");
      assert.ok(warm.allowed);
      assert.ok(!warm.builtins.includes("crypto") && !warm.builtins.includes("os"), warm.builtins.join(" "));
      assert.deepEqual(warm.files, ["permit.js"]);
    }
    // A call no item covers: the grant is read, nothing is verified or recorded.
    const other = hook("npm test -- api; id");
    assert.ok(other.silent);
    assert.deepEqual(other.files, ["permit.js"]);
    assert.ok(!other.builtins.includes("crypto"));
  });

  it("a spec file rewritten between two processes ends the grant at the next call", () => {
    hook("npm test -- api");
    assert.ok(hook("npm test -- api").allowed);
    const spec = join(root, ".design/specs/spec-api.sh");
    const text = readFileSync(spec, "utf8");
    writeFileSync(spec, text.replace("ok", "pw"));
    const after = hook("npm test -- api");
    assert.ok(after.silent, "no allow once the spec changed");
    assert.ok(after.builtins.includes("crypto"), "verified in full, and refused");
    writeFileSync(spec, text);
    assert.ok(hook("npm test -- api").allowed, "the approved bytes again: the grant holds again");
  });
});
