// The table of bad inputs (contract 1.8 and the defects list): every one exits 1 with {ok:false,error} naming the
// problem, prints no stack trace, writes nothing on stderr and leaves every file as it was.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { planWith, writeFiles, type Files } from "../helpers/design-dir.ts";
import { snapshot } from "../helpers/snapshot.ts";
import { helperCall } from "../helpers/soak.ts";

const plan = planWith(["api", { name: "web", deps: ["api"] }]);
const finalized = planWith([
  { name: "api", status: "completed", attempts: 0, result: "done" },
  { name: "web", deps: ["api"], status: "pending", attempts: 0, result: null },
]);
const memory = [{ id: "m1", timestamp: "2026-01-01T00:00:00Z", category: "pattern", keywords: ["api"], content: "x", importance: 5 }];
const recon = (iv: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  schemaVersion: 1, goal: "g", scope: "src", contradictions: [],
  interventions: [{ title: "t", leverageLevel: 7, leverageGroup: "Parameters", designGoal: "d", confidence: "high", effort: "small", ...iv }],
  ...extra,
});

interface Bad {
  name: string;
  args: string[];
  stdin?: string;
  files?: Files;
  error: RegExp;
}

const P = ".design/plan.json";
const M = ".design/memory.jsonl";
const R = ".design/reflection.jsonl";

const TABLE: Bad[] = [
  { name: "no command at all", args: [], error: /^No command given$/ },
  { name: "an unknown command", args: ["bogus"], error: /^Unknown command: bogus$/ },
  { name: "an extra positional", args: ["status", "a.json", "b.json"], error: /status: unexpected argument 'b\.json'/ },
  { name: "an unknown flag", args: ["status", "--bogus"], error: /status: unknown flag --bogus/ },
  { name: "a non-integer --limit", args: ["memory-search", "--goal", "api", "--limit", "abc"], error: /--limit.*abc/ },
  { name: "a non-integer --limit=value", args: ["memory-search", "--goal", "api", "--limit=1.5"], error: /--limit.*1\.5/ },
  { name: "a negative --limit on memory-search (D11)", args: ["memory-search", M, "--goal", "api", "--limit", "-1"], files: { [M]: memory }, error: /limit/ },
  { name: "a negative --limit on reflection-search (D11)", args: ["reflection-search", "--limit", "-2"], error: /limit/ },
  { name: "a flag without its value", args: ["memory-search", "--goal"], error: /--goal/ },
  { name: "update-status with stdin that is not JSON", args: ["update-status"], stdin: "not json", files: { [P]: plan }, error: /^Invalid JSON in stdin/ },
  { name: "update-status with an object on stdin", args: ["update-status"], stdin: "{}", files: { [P]: plan }, error: /^Expected JSON array in stdin$/ },
  { name: "update-status with empty stdin", args: ["update-status"], stdin: "", files: { [P]: plan }, error: /^Invalid JSON in stdin/ },
  { name: "a negative roleIndex (D1)", args: ["update-status"], stdin: '[{"roleIndex":-1,"status":"in_progress"}]', files: { [P]: plan }, error: /^Update 0: roleIndex -1 out of range \(0\.\.1\)$/ },
  { name: "a too-large roleIndex (D1)", args: ["update-status"], stdin: '[{"roleIndex":7,"status":"in_progress"}]', files: { [P]: plan }, error: /^Update 0: roleIndex 7 out of range \(0\.\.1\)$/ },
  { name: "a boolean roleIndex (D1)", args: ["update-status"], stdin: '[{"roleIndex":true,"status":"in_progress"}]', files: { [P]: plan }, error: /^Update 0: roleIndex must be an integer$/ },
  { name: "a string roleIndex (D1)", args: ["update-status"], stdin: '[{"roleIndex":"0","status":"in_progress"}]', files: { [P]: plan }, error: /^Update 0: roleIndex must be an integer$/ },
  { name: "a missing roleIndex (D1)", args: ["update-status"], stdin: '[{"status":"in_progress"}]', files: { [P]: plan }, error: /^Update 0: roleIndex must be an integer$/ },
  { name: "an update that is not an object", args: ["update-status"], stdin: "[5]", files: { [P]: plan }, error: /^Update 0: must be an object$/ },
  { name: "a numeric status", args: ["update-status"], stdin: '[{"roleIndex":0,"status":3}]', files: { [P]: plan }, error: /^Update 0: status must be a string$/ },
  { name: "a forbidden transition", args: ["update-status"], stdin: '[{"roleIndex":0,"status":"pending"}]', files: { [P]: finalized }, error: /^Role 0 \(api\): Invalid transition: completed -> pending\. Allowed: none \(terminal state\)$/ },
  { name: "a batch whose second update is bad", args: ["update-status"], stdin: '[{"roleIndex":1,"status":"in_progress"},{"roleIndex":9,"status":"failed"}]', files: { [P]: finalized }, error: /^Update 1: roleIndex 9 out of range/ },
  { name: "update-status without a plan", args: ["update-status"], stdin: "[]", error: /^Plan file not found: \.design\/plan\.json$/ },
  { name: "update-status on a plan that is an array (D7)", args: ["update-status"], stdin: "[]", files: { [P]: [1, 2] }, error: /^Invalid plan structure: top-level value must be an object$/ },
  { name: "status on a plan that is an array (D7)", args: ["status"], files: { [P]: [1, 2] }, error: /^bad_schema \(schemaVersion=None, expected 4\)$/ },
  { name: "summary with roles that are a string (D7)", args: ["summary"], files: { [P]: { schemaVersion: 4, roles: "ab" } }, error: /^Invalid plan structure: 'roles' must be an array$/ },
  { name: "retry-candidates with a role that is a number (D7)", args: ["retry-candidates"], files: { [P]: { schemaVersion: 4, roles: [5] } }, error: /^Invalid plan structure: roles\[0\] must be an object$/ },
  { name: "tasklist-data on torn JSON", args: ["tasklist-data"], files: { [P]: '{"roles": [' }, error: /^Invalid JSON in plan file: / },
  { name: "finalize without schemaVersion (D19)", args: ["finalize"], files: { [P]: { ...plan, schemaVersion: undefined } }, error: /^validation_failed$/ },
  { name: "finalize with a criterion that is a number (D7)", args: ["finalize"], files: { [P]: planWith([{ name: "a", acceptanceCriteria: [3] }]) }, error: /^validation_failed$/ },
  { name: "finalize with a dependency cycle", args: ["finalize"], files: { [P]: planWith([{ name: "a", deps: ["b"] }, { name: "b", deps: ["a"] }]) }, error: /^validation_failed$/ },
  { name: "memory-add with --boost and --decay (D25)", args: ["memory-add", "--boost", "--decay", "--id", "m1"], files: { [M]: memory }, error: /^--boost and --decay are mutually exclusive$/ },
  { name: "memory-add --boost without --id", args: ["memory-add", "--boost"], files: { [M]: memory }, error: /^--id required when using --boost or --decay$/ },
  { name: "memory-add --boost of an unknown id", args: ["memory-add", "--boost", "--id", "nope"], files: { [M]: memory }, error: /^Entry with id 'nope' not found$/ },
  { name: "memory-add with an unknown category", args: ["memory-add", "--category", "bogus", "--keywords", "eslint", "--content", "Run eslint --fix before a commit"], files: { [M]: memory }, error: /^Invalid category 'bogus'\. Must be one of: \{'pattern', 'mistake', 'convention', 'approach', 'failure', 'procedure'\}$/ },
  { name: "memory-add with importance 11", args: ["memory-add", "--category", "pattern", "--keywords", "eslint", "--content", "Run eslint --fix before a commit", "--importance", "11"], files: { [M]: memory }, error: /^Importance must be between 1 and 10 \(inclusive\)$/ },
  { name: "memory-add with only blank keywords", args: ["memory-add", "--category", "pattern", "--keywords", " , ", "--content", "c"], files: { [M]: memory }, error: /^At least one keyword is required$/ },
  { name: "memory-add without content", args: ["memory-add", "--category", "pattern", "--keywords", "a"], files: { [M]: memory }, error: /^--content is required for new entries$/ },
  { name: "reflection-add with an unknown skill", args: ["reflection-add", "--skill", "bogus", "--goal", "g", "--outcome", "completed"], stdin: "{}", error: /^Invalid skill 'bogus'\. Must be one of: design, execute, improve, reflect, recon$/ },
  { name: "reflection-add with an unknown outcome", args: ["reflection-add", "--skill", "design", "--goal", "g", "--outcome", "meh"], stdin: "{}", error: /^Invalid outcome 'meh'/ },
  { name: "reflection-add with an array evaluation (D23)", args: ["reflection-add", "--skill", "design", "--goal", "g", "--outcome", "completed"], stdin: "[1,2]", files: { [R]: "" }, error: /^Evaluation must be a JSON object$/ },
  { name: "reflection-add with stdin that is not JSON", args: ["reflection-add", "--skill", "design", "--goal", "g", "--outcome", "completed"], stdin: "{", error: /^Invalid JSON in stdin \(expected evaluation object\)$/ },
  { name: "reflection-validate with a string (D7)", args: ["reflection-validate"], stdin: '"whatWorked whatFailed doNextTime"', error: /^Evaluation must be a JSON object$/ },
  { name: "reflection-validate with fields that are not arrays", args: ["reflection-validate"], stdin: '{"whatWorked":1,"whatFailed":[],"doNextTime":"x"}', error: /^Fields must be arrays: whatWorked, doNextTime$/ },
  { name: "expert-validate on a string artifact (D7)", args: ["expert-validate", "a.json"], files: { "a.json": "summary verificationProperties" }, error: /^Invalid JSON in artifact: / },
  { name: "expert-validate on a JSON string artifact (D7)", args: ["expert-validate", "a.json"], files: { "a.json": '"summary verificationProperties"' }, error: /^Artifact must be a JSON object$/ },
  { name: "expert-validate on a missing file", args: ["expert-validate", "nope.json"], error: /^Artifact file not found: nope\.json$/ },
  { name: "validate-auxiliary-report with an unknown --type", args: ["validate-auxiliary-report", "a.json", "--type", "bogus"], files: { "a.json": {} }, error: /--type.*bogus/ },
  { name: "validate-auxiliary-report of the wrong shape", args: ["validate-auxiliary-report", "a.json", "--type", "challenger"], files: { "a.json": { issues: {}, summary: 3 } }, error: /^Schema validation failed: Field 'issues' must be list, got dict; Field 'summary' must be str, got int$/ },
  { name: "worker-completion-validate with stdin that is not JSON", args: ["worker-completion-validate"], stdin: "nope", error: /^Invalid JSON in worker completion: / },
  { name: "recon-validate with a boolean leverageLevel (D22)", args: ["recon-validate", "r.json"], files: { "r.json": recon({ leverageLevel: true }) }, error: /^Intervention 0: leverageLevel must be integer 1-7, got True$/ },
  { name: "recon-validate with schemaVersion 2", args: ["recon-validate", "r.json"], files: { "r.json": { ...recon({}), schemaVersion: 2 } }, error: /^Invalid schemaVersion: expected 1, got 2$/ },
  { name: "recon-validate with six interventions", args: ["recon-validate", "r.json"], files: { "r.json": { ...recon({}), interventions: Array(6).fill(recon({}).interventions[0]) } }, error: /^Too many interventions: 6 > 5$/ },
  { name: "plan-diff without its second plan", args: ["plan-diff", "a.json"], files: { "a.json": plan }, error: /plan-diff: missing required argument plan_b/ },
  { name: "archive of a .design that is a file", args: ["archive", ".design"], files: { ".design": "x" }, error: /^\.design is not a directory$/ },
  { name: "health-check of a missing folder", args: ["health-check", "nope"], error: /^Design directory not found: nope$/ },
  { name: "team-name without its skill", args: ["team-name"], error: /team-name: missing required argument skill/ },
  { name: "add-constraints for an unknown role", args: ["add-constraints"], stdin: '[{"role":"ghost","constraints":["x"]}]', files: { [P]: plan }, error: /ghost/ },
  { name: "add-constraints with no constraints", args: ["add-constraints"], stdin: '[{"role":"api","constraints":[]}]', files: { [P]: plan }, error: /constraints/ },
  { name: "sync-check of a missing folder", args: ["sync-check", "nope"], error: /^Skills directory not found: nope$/ },
  { name: "schema of an unknown name", args: ["schema", "bogus"], error: /bogus/ },
];

// Under `npm run test:soak` each case is a real process that mostly waits on Node's start-up, so the cases run as
// many at a time as the machine has cores (plus one); in `npm test` they go through the bundle in-process.
describe("bad inputs", { concurrency: availableParallelism() + 1 }, () => {
  it("has at least forty cases", () => assert.ok(TABLE.length >= 40, `only ${TABLE.length}`));

  for (const bad of TABLE) {
    it(`refuses ${bad.name}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "do-bad-"));
      try {
        writeFiles(dir, bad.files ?? {});
        const before = snapshot(dir);
        const r = await helperCall(bad.args, { cwd: dir, stdin: bad.stdin });
        assert.equal(r.code, 1, `exit code (stdout: ${r.stdout})`);
        assert.equal(r.stderr, "", "nothing on stderr");
        assert.equal(r.stdout.trim().split("\n").length, 1, "one JSON document on one line");
        assert.equal(r.json?.ok, false);
        assert.equal(typeof r.json.error, "string");
        assert.match(r.json.error, bad.error);
        assert.doesNotMatch(r.stdout, /\n\s+at |Error: .*\n\s+at /, "no stack trace");
        assert.notEqual(r.json.code, "E_INTERNAL", "a bad input is not an internal error");
        assert.deepEqual(snapshot(dir), before, "no file changed");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
