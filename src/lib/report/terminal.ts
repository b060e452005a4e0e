// The report's terminal summary: the plan's graph drawn with Unicode, one line per role in dependency order
// (a status glyph, the name, its tier and attempts, what it waits for), the counts, and where the full report is.
import { depths } from "../plan/graph.js";
import { glyphOf, type ReportModel } from "./model.js";

const MAX_NAME = 28;

function pad(s: string, n: number): string {
  const chars = [...s];
  if (chars.length > n) return `${chars.slice(0, n - 1).join("")}…`;
  return s + " ".repeat(n - chars.length);
}

/** Control characters and line breaks in plan text would break the one-line-per-role drawing. */
const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ");

export function terminalSummary(model: ReportModel, url: string | null): string {
  const lines: string[] = [];
  lines.push(`Plan: ${oneLine(model.goal) || "(no goal)"}`);
  const counts = Object.entries(model.counts).map(([s, n]) => `${glyphOf(s)} ${n} ${s}`);
  lines.push(`Roles: ${counts.join("  ") || "none"}`);
  const d = depths(model.deps);
  const order = model.roles.map((r) => r.index).sort((a, b) => (d[a] === d[b] ? a - b : d[a] - d[b]));
  const width = Math.min(MAX_NAME, Math.max(4, ...model.roles.map((r) => [...oneLine(r.name)].length)));
  for (const i of order) {
    const r = model.roles[i];
    const tries = r.attempts.length === 1 ? "1 attempt" : `${r.attempts.length} attempts`;
    const tier = r.tier;
    const retry = r.waitsOnRetry.length ? `  (waits for ${r.waitsOnRetry.map(oneLine).join(", ")}'s retry)` : "";
    const waits = (r.dependencies.length ? `  ← ${r.dependencies.map(oneLine).join(", ")}` : "") + retry;
    const spent = r.tokens === null ? "" : `  ${r.tokens.toLocaleString("en-US")} tok`;
    lines.push(`  ${glyphOf(r.status)} ${pad(oneLine(r.name), width)}  ${pad(tier, 6)}  ${pad(tries, 10)}${spent}${waits}`.trimEnd());
  }
  if (model.overlaps.length) {
    const names = model.overlaps.slice(0, 5).map(([a, b]) => `${oneLine(model.roles[a].name)} ⇄ ${oneLine(model.roles[b].name)}`);
    lines.push(`Never together (same files): ${names.join(", ")}${model.overlaps.length > 5 ? ` and ${model.overlaps.length - 5} more` : ""}`);
  }
  if (model.run) {
    const r = model.run;
    const parts = [r.completedAt ? `${oneLine(r.outcome)} (ended ${oneLine(r.completedAt)})` : `open since ${oneLine(r.startedAt)}`];
    if (model.verifier) parts.push(`verifier ${oneLine(model.verifier.verdict)}`);
    const g = model.goalReview;
    if (g) parts.push(g.verdict ? `goal ${g.verdict}` : g.goalAchieved ? "goal met" : "goal not met");
    lines.push(`Run: ${oneLine(r.runId)} ${parts.join("; ")}`);
  }
  const c = model.cost;
  if (c.tokens > 0) {
    const n = (x: number) => x.toLocaleString("en-US");
    const tiers = Object.entries(c.byTier).map(([t, v]) => `${oneLine(t)} ${n(v)}`);
    const aux = c.auxiliaries.reduce((s, a) => s + a.tokens, 0);
    const parts = [...tiers, ...(aux ? [`auxiliaries ${n(aux)}`] : [])];
    // An attempt killed, interrupted or never finished has no usage record: said, not silently left out (issue 31).
    const unmeasured = c.unrecorded ? `; ${c.unrecorded} attempt${c.unrecorded === 1 ? "" : "s"} without a usage record, not in this sum` : "";
    lines.push(`Cost: ${n(c.tokens)} tokens (${parts.join(", ")}) over ${c.byRun.length} run${c.byRun.length === 1 ? "" : "s"}${unmeasured}`);
  }
  if (model.next) {
    const n = model.next;
    if (n.done) lines.push(`Next: nothing left to run (${oneLine(n.reason)})`);
    else {
      const parts = [
        ...(n.start.length ? [`start ${n.start.map(oneLine).join(", ")}`] : []),
        ...(n.running.length ? [`running ${n.running.map(oneLine).join(", ")}`] : []),
        ...n.waiting.slice(0, 5).map((w) => `${oneLine(w.name)} waits for ${w.on.map(oneLine).join(", ")}`),
      ];
      lines.push(`Next: ${parts.join("; ") || oneLine(n.reason)}${n.waiting.length > 5 ? `; ${n.waiting.length - 5} more waiting` : ""}`);
    }
  }
  // What this run stored, then what the project holds: the file's count is no run's doing (issue 31).
  lines.push(`Memories: ${model.memories.length} stored by this run; ${model.memoryCount} in the project`);
  for (const r of model.interrupted) {
    lines.push(`Interrupted: /do:${r.skill} stopped ${r.lastPhase ? `after ${r.lastPhase}` : "before its first phase"}${r.nextPhase ? `; it resumes at ${r.nextPhase}` : ""}`);
  }
  if (url) lines.push(`Report: ${url}`);
  return lines.join("\n");
}
