// grant: what execute's workers will need, for the user to approve once before the workers start: edits inside
// the scope of every role still to run, and the exact acceptance-check, verification-spec, build and test commands
// of the plan. Without a flag it only shows the proposal. `--approve` records it in .design/grant.json, signed with
// the user's grant key and bound to the project's real root, the plan's fingerprint, the current execute run and an
// expiry, for the permission hook to consult (src/lib/grant/grant.ts); it records only when started as
// `skills/execute/scripts/grant-approve.js` (the context's `consent`), the call Claude Code asks the user about.
// `--revoke` ends it. Scope entries that would reach .design/, .git/, .claude/ or outside the project are refused.
import { ensureGrantKey } from "../../lib/grant/grant-key.js";
import { join } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import {
  AUXILIARY_ITEM, GRANT_FILE, GRANT_TTL_MS, GRANT_VERSION, grantKeyPath, PLAN_ITEM, planFingerprint, refusedEdit, signGrant,
  type GrantBody, type GrantItem,
} from "../../lib/grant/grant.js";
import { loadPlan, PLAN_PATH, rolesOf, scopeOf, str, stringsOf } from "../../lib/plan/plan.js";
import { schedulerCore } from "../../lib/plan/scheduler.js";
import { newId } from "../../lib/ids.js";
import { isObject, isoSeconds, sha256 } from "../../lib/values.js";
import { specFileBytes } from "../../lib/checks/evidence.js";
import { confine, ensureDir, MAX_STATE_BYTES, projectRoots, readJson, updateText } from "../../store.js";
import { budgetFor, planForecast } from "../../lib/cost/budget.js";
import { OWN } from "../../base/owned.js";
import { refuseWhileChallenged } from "../../lib/plan/challenge.js";
import { prefixProblem, runsOf } from "../../lib/checks/role-runs.js";
import { dirtyInScopes } from "../../lib/git/dirty-scope.js";

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
  "Workers edit the code these commands run (a test command runs the tests a worker just wrote, a run starts the program it just built), so approving lets them run code of their choosing with your rights until the run ends.";

/** Who an item is for, in the summary's words. */
function whose(item: GrantItem): string {
  const names = item.roles.map((r) => (r === PLAN_ITEM ? "every worker" : r === AUXILIARY_ITEM ? "the verifier and auxiliaries" : r));
  return names.join(", ");
}

/**
 * The summary's lines of the granted commands: each command once (a command that is both a check and the test
 * command is one line), in backticks, with whom it is for; never joined by a `|`, which reads as a pipe.
 */
function commandLines(commands: GrantItem[]): string[] {
  const exact = new Map<string, GrantItem[]>();
  const prefixes: GrantItem[] = [];
  for (const c of commands) {
    if (c.kind === "run-prefix") prefixes.push(c);
    else exact.set(c.value, [...(exact.get(c.value) ?? []), c]);
  }
  const lines: string[] = [];
  if (exact.size === 0 && prefixes.length === 0) return ["Commands: none."];
  if (exact.size) {
    lines.push(`Commands, each exactly as written (${exact.size}):`);
    for (const [value, items] of exact) {
      const roles = [...new Set(items.flatMap((i) => i.roles))];
      lines.push(`  - \`${value}\` (${whose({ value, roles, kind: items[0].kind })})`);
    }
  }
  if (prefixes.length) {
    lines.push(`Commands followed by plain words of the worker's choosing (letters, digits, _ . / : @ % + , = -; no quotes, $, ;, &, |, redirection or globs) (${prefixes.length}):`);
    for (const p of prefixes) lines.push(`  - \`${p.value} …\` (${whose(p)})`);
  }
  return lines;
}

/**
 * The spec files that are not the bytes finalize hashed: finalize records each spec's SHA-256 in the plan, the
 * challenger and the user judged that spec, and a file edited since (or one finalize never saw) would run under the
 * grant unvetted. The grant's own fingerprint binds the spec as it is at approval; this binds it to what finalize
 * installed. Only for the roles still to run: a completed role's spec runs no more.
 */
export function changedSpecs(projectDir: string, doc: Record<string, unknown>, toRun: ReadonlySet<string>): Array<{ path: string; role: string; why: string }> {
  const out: Array<{ path: string; role: string; why: string }> = [];
  for (const spec of Array.isArray(doc.verificationSpecs) ? doc.verificationSpecs : []) {
    if (!isObject(spec) || typeof spec.path !== "string" || !toRun.has(str(spec.role))) continue;
    const bytes = specFileBytes(projectDir, spec.path);
    const recorded = typeof spec.sha256 === "string" ? spec.sha256 : null;
    if (bytes === null) {
      if (recorded !== null) out.push({ path: spec.path, role: str(spec.role), why: "deleted or unreadable since finalize hashed it" });
    }
    else if (recorded === null) out.push({ path: spec.path, role: str(spec.role), why: "finalize recorded no hash for it (the file appeared after finalize)" });
    else if (sha256(bytes) !== recorded) out.push({ path: spec.path, role: str(spec.role), why: `changed since finalize (recorded ${recorded.slice(0, 12)}…, now ${sha256(bytes).slice(0, 12)}…)` });
  }
  return out;
}

function refuseChangedSpecs(projectDir: string, doc: Record<string, unknown>): void {
  const core = schedulerCore();
  const toRun = new Set(rolesOf(doc).filter((r) => core.statusOf(r) !== "completed" && core.permanentReason(r) === "").map((r) => str(r.name)));
  const changed = changedSpecs(projectDir, doc, toRun);
  if (changed.length === 0) return;
  throw new HelperError(
    "E_INVALID",
    `Spec files are not what finalize installed: ${changed.map((c) => `${c.path} (${c.role}): ${c.why}`).join("; ")}. ` +
      "Edit the spec in .design/draft/specs/ and finalize the draft again, so the challenger and the grant see the spec that will run",
    { changedSpecs: changed },
  );
}

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
    refuseChangedSpecs(project, doc);
    const roles = rolesOf(doc);
    const core = schedulerCore();
    const edits: GrantItem[] = [];
    const commands: GrantItem[] = [];
    const refused: Array<{ value: string; role: string; reason: string }> = [];
    /** A role's `runs`: exact lines, and prefixes the rules of lib/checks/role-runs.ts allow (any other is refused). */
    const addRuns = (role: unknown, name: string) => {
      for (const r of runsOf(role)) {
        if (r.command.trim() === "" || /[\n\r\0]/.test(r.command)) continue;
        const why = r.args === "plain" ? prefixProblem(r.command) : "";
        if (why) refused.push({ value: `${r.command} …`, role: name, reason: why });
        else add(commands, r.command, name, r.args === "plain" ? "run-prefix" : "run");
      }
    };
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
      addRuns(role, name);
    }
    const names = new Set(toRun.map((r) => str(r.name)));
    for (const spec of Array.isArray(doc.verificationSpecs) ? doc.verificationSpecs : []) {
      if (isObject(spec) && typeof spec.runCommand === "string" && names.has(str(spec.role))) add(commands, spec.runCommand, str(spec.role), "spec");
    }
    const context = isObject(doc.context) ? doc.context : {};
    if (toRun.length > 0) {
      if (typeof context.buildCommand === "string") add(commands, context.buildCommand, PLAN_ITEM, "build");
      if (typeof context.testCommand === "string") add(commands, context.testCommand, PLAN_ITEM, "test");
      for (const aux of Array.isArray(doc.auxiliaryRoles) ? doc.auxiliaryRoles : []) addRuns(aux, AUXILIARY_ITEM);
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
      ...commandLines(commands),
      ...(refused.length ? [`Not granted: ${refused.map((r) => `${r.value} (${r.reason})`).join(", ")}`] : []),
      GRANT_WARNING,
      requiresSandbox
        ? "The plan sets grantRequiresSandbox: the commands are approved only while Claude Code's sandbox is on."
        : 'Claude Code\'s sandbox ("sandbox": {"enabled": true, "failIfUnavailable": true} in settings; on Linux with bubblewrap and socat) stops these commands from writing outside this project or using the network, not from reading your files; the plan setting context.grantRequiresSandbox approves them only while it is on.',
      `The grant ends when this run ends, when anything in the plan or its spec files changes, or at ${expiresAt}.`,
      ...cost,
    ];
    // The user's uncommitted work inside the scopes, and what the run does with it (lib/git/dirty-scope.ts).
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
