// grant: what execute's workers will need, for the user to approve once before the workers start: edits inside
// the scope of every role still to run, and the exact acceptance-check, verification-spec, build and test commands
// of the plan. Without a flag it only shows the proposal; `--approve` records it in .design/grant.json, bound to
// the plan's fingerprint and to the current execute run, for the permission hook to consult (src/lib/grant.ts);
// `--revoke` ends it. Scope entries that would reach .design/, .git/, .claude/ or outside the project are refused.
import { join, resolve } from "node:path";
import { defineCommand } from "../../lib/command.js";
import { HelperError } from "../../lib/errors.js";
import { GRANT_FILE, GRANT_VERSION, PLAN_ITEM, planFingerprint, refusedEdit, type GrantItem } from "../../lib/grant.js";
import { loadPlan, PLAN_PATH, rolesOf, scopeOf, str, stringsOf } from "../../lib/plan.js";
import { schedulerCore } from "../../lib/scheduler.js";
import { isObject, isoSeconds } from "../../lib/values.js";
import { confine, ensureDir, MAX_STATE_BYTES, readJson, updateText } from "../../store.js";
import { OWN } from "../../lib/owned.js";

function add(list: GrantItem[], value: string, role: string, kind: GrantItem["kind"]): void {
  const v = value.trim();
  if (v === "") return;
  const found = list.find((x) => x.value === v && x.kind === kind);
  if (found) {
    if (!found.roles.includes(role)) found.roles.push(role);
  } else list.push({ value: v, roles: [role], kind });
}

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {
    approve: { type: "boolean", help: "record the grant (after the user approved what it shows)" },
    revoke: { type: "boolean", help: "end the recorded grant" },
  },
  async run(ctx, args) {
    const design = resolve(ctx.cwd, ".design");
    const grantPath = `.design/${GRANT_FILE}`;
    const target = confine(ctx.cwd, "grant file", grantPath, "write", OWN.grant);
    if (args.approve && args.revoke) throw new HelperError("E_USAGE", "grant: --approve and --revoke exclude each other");
    if (args.revoke) {
      ensureDir(design);
      await updateText(target, () => ({ text: `${JSON.stringify({ version: GRANT_VERSION, revoked: true }, null, 2)}\n`, result: null }), "Error writing grant");
      return { recorded: false, revoked: true, grantPath };
    }

    const doc = loadPlan(ctx.cwd, args.plan_path as string);
    const roles = rolesOf(doc);
    const core = schedulerCore();
    const edits: GrantItem[] = [];
    const commands: GrantItem[] = [];
    const refused: Array<{ value: string; role: string; reason: string }> = [];
    const toRun = roles.filter((r) => core.statusOf(r) !== "completed" && core.permanentReason(r) === "");
    for (const role of toRun) {
      const name = str(role.name);
      const scope = scopeOf(role);
      for (const [kind, values] of [["directory", stringsOf(scope.directories)], ["pattern", stringsOf(scope.patterns)]] as const) {
        for (const v of values) {
          const why = refusedEdit(v);
          if (why) refused.push({ value: v, role: name, reason: why });
          else add(edits, v, name, kind);
        }
      }
      const criteria = Array.isArray(role.acceptanceCriteria) ? role.acceptanceCriteria : [];
      for (const c of criteria) if (isObject(c) && typeof c.check === "string") add(commands, c.check, name, "check");
    }
    const names = new Set(toRun.map((r) => str(r.name)));
    for (const spec of Array.isArray(doc.verificationSpecs) ? doc.verificationSpecs : []) {
      if (isObject(spec) && typeof spec.runCommand === "string" && names.has(str(spec.role))) add(commands, spec.runCommand, str(spec.role), "spec");
    }
    const context = isObject(doc.context) ? doc.context : {};
    if (toRun.length > 0) {
      if (typeof context.buildCommand === "string") add(commands, context.buildCommand, PLAN_ITEM, "build");
      if (typeof context.testCommand === "string") add(commands, context.testCommand, PLAN_ITEM, "test");
    }

    const fingerprint = planFingerprint(doc);
    const run = readJson(join(design, "run-execute.json"), MAX_STATE_BYTES);
    const runId = run.kind === "ok" && isObject(run.value) && typeof run.value.runId === "string" && run.value.completedAt == null ? run.value.runId : null;
    const summary = [
      `Workers may edit files under: ${edits.map((e) => e.value).join(", ") || "nothing"}`,
      `Workers may run exactly: ${commands.map((c) => c.value).join(" | ") || "nothing"}`,
      ...(refused.length ? [`Not granted: ${refused.map((r) => `${r.value} (${r.reason})`).join(", ")}`] : []),
    ];
    const proposal = { grantPath, planFingerprint: fingerprint, runId, edits, commands, refused, summary };
    if (!args.approve) return { recorded: false, ...proposal };

    if (runId === null) throw new HelperError("E_INVALID", "No unfinished execute run: start it with run-start execute before approving a grant");
    if (edits.length === 0 && commands.length === 0) throw new HelperError("E_INVALID", "Nothing to grant: no role is left to run");
    const approvedAt = isoSeconds(ctx.now());
    const grant = { version: GRANT_VERSION, planFingerprint: fingerprint, runId, approvedAt, edits, commands };
    ensureDir(design);
    await updateText(target, () => ({ text: `${JSON.stringify(grant, null, 2)}\n`, result: null }), "Error writing grant");
    return { recorded: true, approvedAt, ...proposal };
  },
});
