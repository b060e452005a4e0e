// grant: what execute's workers will need, for the user to approve once before the workers start: edits inside
// the scope of every role still to run, and the exact acceptance-check, verification-spec, build and test commands
// of the plan. Without a flag it only shows the proposal. `--approve` records it in .design/grant.json, signed with
// the user's grant key and bound to the project's real root, the plan's fingerprint, the current execute run and an
// expiry, for the permission hook to consult (src/lib/grant.ts); it records only when started as
// `skills/execute/scripts/grant-approve.js` (the context's `consent`), the call Claude Code asks the user about.
// `--revoke` ends it. Scope entries that would reach .design/, .git/, .claude/ or outside the project are refused.
import { ensureGrantKey } from "../../lib/grant-key.js";
import { join } from "node:path";
import { defineCommand } from "../../lib/command.js";
import { HelperError } from "../../lib/errors.js";
import {
  GRANT_FILE, GRANT_TTL_MS, GRANT_VERSION, grantKeyPath, PLAN_ITEM, planFingerprint, refusedEdit, signGrant,
  type GrantBody, type GrantItem,
} from "../../lib/grant.js";
import { loadPlan, PLAN_PATH, rolesOf, scopeOf, str, stringsOf } from "../../lib/plan.js";
import { schedulerCore } from "../../lib/scheduler.js";
import { newId } from "../../lib/ids.js";
import { isObject, isoSeconds } from "../../lib/values.js";
import { confine, ensureDir, MAX_STATE_BYTES, projectRoots, readJson, updateText } from "../../store.js";
import { budgetFor, planForecast } from "../../lib/budget.js";
import { OWN } from "../../lib/owned.js";
import { refuseWhileChallenged } from "../../lib/challenge.js";
import { dirtyInScopes } from "../../lib/dirty-scope.js";

function add(list: GrantItem[], value: string, role: string, kind: GrantItem["kind"]): void {
  const v = value.trim();
  if (v === "") return;
  const found = list.find((x) => x.value === v && x.kind === kind);
  if (found) {
    if (!found.roles.includes(role)) found.roles.push(role);
  } else list.push({ value: v, roles: [role], kind });
}

/** The plain sentence the grant question carries: what approving really allows. */
export const GRANT_WARNING =
  "Workers edit the code these commands run (a test command runs the tests a worker just wrote), so approving lets them run code of their choosing with your rights until the run ends.";

export default defineCommand({
  positionals: [PLAN_PATH],
  flags: {
    approve: { type: "boolean", help: "record the grant (only as skills/execute/scripts/grant-approve.js: the call the user approves)" },
    revoke: { type: "boolean", help: "end the recorded grant" },
  },
  async run(ctx, args) {
    const { project, design } = projectRoots(ctx.cwd);
    const grantPath = `.design/${GRANT_FILE}`;
    const target = confine(ctx.cwd, "grant file", grantPath, "write", OWN.grant);
    if (args.approve && args.revoke) throw new HelperError("E_USAGE", "grant: --approve and --revoke exclude each other");
    if (args.revoke) {
      ensureDir(design);
      await updateText(target, () => ({ text: `${JSON.stringify({ version: GRANT_VERSION, revoked: true }, null, 2)}\n`, result: null }), "Error writing grant");
      return { recorded: false, revoked: true, grantPath };
    }
    if (args.approve && !ctx.consent) {
      throw new HelperError(
        "E_USAGE",
        "grant --approve records the user's consent only as `node <plugin>/skills/execute/scripts/grant-approve.js .design/plan.json`, the call Claude Code asks the user about",
      );
    }

    const doc = loadPlan(ctx.cwd, args.plan_path as string);
    refuseWhileChallenged(ctx.cwd, doc, "the grant");
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
    const requiresSandbox = context.grantRequiresSandbox === true;

    const fingerprint = planFingerprint(doc, project);
    const run = readJson(join(design, "run-execute.json"), MAX_STATE_BYTES);
    const runId = run.kind === "ok" && isObject(run.value) && typeof run.value.runId === "string" && run.value.completedAt == null ? run.value.runId : null;
    const expiresAt = isoSeconds(ctx.now() + GRANT_TTL_MS);
    // What the run may spend and is expected to spend: shown with the question, never part of what is signed.
    const budget = budgetFor(doc, runId);
    const forecast = planForecast(doc, design, runId, toRun.map((role) => ({ role, tier: core.tierFor(role) })));
    const n = (x: number) => x.toLocaleString("en-US");
    const cost = [
      budget
        ? `Budget: ${n(budget.tokens)} tokens for this run (${budget.source === "run" ? "set with --budget" : "the plan's tokenBudget"}); no worker starts once its forecast would pass it.`
        : "No token budget for this run (/do:execute --budget <tokens> sets one).",
      forecast.samples > 0
        ? `Forecast: about ${n(forecast.tokens)} tokens for the ${toRun.length} role${toRun.length === 1 ? "" : "s"} to run, one attempt each (from ${forecast.samples} earlier attempt${forecast.samples === 1 ? "" : "s"} with recorded usage).`
        : "No forecast yet: no earlier attempt recorded what it cost.",
      ...forecast.roles.filter((r) => r.escalation).map((r) => `Memory: ${r.escalation?.reason}, so ${r.role} starts on ${r.tier}.`),
    ];
    const summary = [
      `Workers may edit files under: ${edits.map((e) => e.value).join(", ") || "nothing"}`,
      `Workers may run exactly: ${commands.map((c) => c.value).join(" | ") || "nothing"}`,
      ...(refused.length ? [`Not granted: ${refused.map((r) => `${r.value} (${r.reason})`).join(", ")}`] : []),
      GRANT_WARNING,
      requiresSandbox
        ? "The plan sets grantRequiresSandbox: the commands are approved only while Claude Code's sandbox is on."
        : 'Claude Code\'s sandbox ("sandbox": {"enabled": true, "failIfUnavailable": true} in settings; on Linux with bubblewrap and socat) stops these commands from writing outside this project or using the network, not from reading your files; the plan setting context.grantRequiresSandbox approves them only while it is on.',
      `The grant ends when this run ends, when anything in the plan or its spec files changes, or at ${expiresAt}.`,
      ...cost,
    ];
    // The user's uncommitted work inside the scopes, and what the run does with it (lib/dirty-scope.ts).
    const dirty = await dirtyInScopes(project, toRun);
    summary.push(dirty.files.length ? `${dirty.note} Those files: ${dirty.files.map((f) => `${f.path} (${f.state}; ${f.roles.join(", ")})`).join(", ")}${dirty.count > dirty.files.length ? `, and ${dirty.count - dirty.files.length} more` : ""}.` : dirty.note);
    const proposal = { grantPath, planFingerprint: fingerprint, runId, expiresAt, requiresSandbox, edits, commands, refused, summary, budget, forecast, dirty };
    if (!args.approve) return { recorded: false, ...proposal };

    if (runId === null) throw new HelperError("E_INVALID", "No unfinished execute run: start it with run-begin execute before approving a grant");
    if (edits.length === 0 && commands.length === 0) throw new HelperError("E_INVALID", "Nothing to grant: no role is left to run");
    let key: Buffer;
    try {
      key = ensureGrantKey(project);
    } catch (err) {
      throw new HelperError("E_WRITE", `Cannot make the grant key: ${(err as Error).message}`);
    }
    const approvedAt = isoSeconds(ctx.now());
    const body: GrantBody = {
      version: GRANT_VERSION,
      grantId: newId(),
      projectRoot: project,
      planFingerprint: fingerprint,
      runId,
      approvedAt,
      expiresAt,
      requiresSandbox,
      edits,
      commands,
    };
    const grant = { ...body, signature: signGrant(body, key) };
    ensureDir(design);
    await updateText(target, () => ({ text: `${JSON.stringify(grant, null, 2)}\n`, result: null }), "Error writing grant");
    return { recorded: true, approvedAt, grantId: body.grantId, keyPath: grantKeyPath(), ...proposal };
  },
});
