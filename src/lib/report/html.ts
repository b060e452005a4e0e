// The report as one self-contained HTML file: no script, no request (its Content-Security-Policy allows none), no
// external font or image. The plan graph and the attempt timeline are inline SVG, each with a table that says the
// same in words; status is a glyph and a word beside its colour; every role is a link target reachable by keyboard;
// colours follow the reader's light or dark scheme; print drops the backgrounds and keeps sections whole.
import { BOX_H, layoutGraph, type Layout } from "./layout.js";
import { glyphOf, type AttemptView, type EvidenceView, type ReportModel, type RoleView } from "./model.js";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** At most `n` characters (code points) for a box label, with an ellipsis when cut. */
function cut(s: string, n: number): string {
  const chars = [...s.replace(/\s+/g, " ")];
  return chars.length > n ? `${chars.slice(0, n - 1).join("")}…` : chars.join("");
}

const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#57606a;--line:#8c959f;--card:#f6f8fa;--focus:#0969da;
--completed:#d1f0d8;--completed-b:#1a7f37;--failed:#ffd8d3;--failed-b:#cf222e;--in_progress:#fff1c2;--in_progress-b:#9a6700;
--pending:#eaeef2;--pending-b:#6e7781;--skipped:#f6f8fa;--skipped-b:#8c959f;--blocked:#ffd8d3;--blocked-b:#82071e;--overlap:#8250df}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#6e7681;--card:#161b22;--focus:#4493f8;
--completed:#12361f;--completed-b:#3fb950;--failed:#3d1416;--failed-b:#f85149;--in_progress:#3a2a06;--in_progress-b:#d29922;
--pending:#21262d;--pending-b:#8b949e;--skipped:#161b22;--skipped-b:#6e7681;--blocked:#3d1416;--blocked-b:#ff7b72;--overlap:#a371f7}}
*{box-sizing:border-box}body{margin:0;padding:1.5rem;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:1200px;margin:0 auto}h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.25rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line)}
h3{font-size:1.05rem;margin:0 0 .5rem}.muted{color:var(--muted)}code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all}
a{color:var(--focus)}a:focus-visible,summary:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.counts{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;padding:0}.counts li{padding:.15rem .6rem;border-radius:1rem;border:1px solid var(--line)}
.scroll{overflow:auto;border:1px solid var(--line);border-radius:6px;background:var(--card);max-height:80vh}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
.role{border:1px solid var(--line);border-radius:6px;padding:1rem;margin:1rem 0;background:var(--card);break-inside:avoid}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.5rem 0}dt{font-weight:600}dd{margin:0}
.pass{color:var(--completed-b)}.fail{color:var(--failed-b)}pre{white-space:pre-wrap;margin:.25rem 0;font:12px/1.4 ui-monospace,monospace}
svg text{fill:var(--fg);font:12px system-ui,sans-serif}svg .node rect{stroke-width:2}svg a:focus rect{stroke:var(--focus);stroke-width:4}
svg .dep{fill:none;stroke:var(--line);stroke-width:1.5}svg .ovl{fill:none;stroke:var(--overlap);stroke-width:1.5;stroke-dasharray:6 4}
.legend{display:flex;flex-wrap:wrap;gap:1rem;font-size:.9rem}.sw{display:inline-block;width:1rem;height:1rem;border:2px solid;vertical-align:-.2rem;margin-right:.3rem}
@media print{body{background:#fff;color:#000;padding:0}.scroll{max-height:none;overflow:visible;background:none}.role{background:none}a{color:#000}}
`;

/** How often a live report reloads itself. */
export const LIVE_RELOAD_SECONDS = 10;

const STATUSES = ["completed", "in_progress", "pending", "failed", "skipped", "blocked"];
const statusClass = (s: string) => (STATUSES.includes(s) ? s : "pending");

function legend(): string {
  const items = STATUSES.map((s) => `<span><span class="sw" style="background:var(--${s});border-color:var(--${s}-b)"></span>${glyphOf(s)} ${s.replace("_", " ")}</span>`);
  items.push(`<span><svg width="36" height="10" aria-hidden="true"><path class="dep" d="M2,5 L34,5" marker-end="url(#arrow)"/></svg> depends on</span>`);
  items.push(`<span><svg width="36" height="10" aria-hidden="true"><path class="ovl" d="M2,5 L34,5"/></svg> never together (same files)</span>`);
  return `<div class="legend" aria-hidden="true">${items.join("")}</div>`;
}

function graphSvg(model: ReportModel, layout: Layout): string {
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" id="graph" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}" role="group" aria-labelledby="graph-title graph-desc">`);
  parts.push(`<title id="graph-title">Plan graph: ${model.roles.length} roles</title>`);
  parts.push(`<desc id="graph-desc">Each role is a box coloured by status; arrows point from a role to the roles that depend on it; dashed lines join roles that may touch the same files. The table below the graph says the same in words.</desc>`);
  parts.push(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="var(--line)"/></marker></defs>`);
  for (const e of layout.edges) {
    const cls = e.kind === "dependency" ? "dep" : "ovl";
    parts.push(`<path class="${cls}" data-from="${e.from}" data-to="${e.to}" data-kind="${e.kind}" d="${e.path}"${e.kind === "dependency" ? ' marker-end="url(#arrow)"' : ""}/>`);
  }
  for (const b of layout.boxes) {
    const r = model.roles[b.index];
    const s = statusClass(r.status);
    const dash = s === "skipped" ? ' stroke-dasharray="5 3"' : "";
    parts.push(
      `<a class="node" href="#role-${b.index}" data-role="${b.index}" data-status="${esc(r.status)}" aria-label="${esc(`${r.name}: ${r.status}`)}">` +
        `<title>${esc(`${r.name} (${r.status})`)}</title>` +
        `<rect x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}" rx="6" style="fill:var(--${s});stroke:var(--${s}-b)"${dash}/>` +
        `<text x="${b.x + 10}" y="${b.y + 21}">${esc(glyphOf(r.status))} ${esc(cut(r.name, 22))}</text>` +
        `<text x="${b.x + 10}" y="${b.y + BOX_H - 12}" class="muted" style="fill:var(--muted)">${esc(r.status.replace("_", " "))} · ${esc(r.tier)}${r.attempts.length > 1 ? ` · ${r.attempts.length} tries` : ""}</text>` +
        `</a>`,
    );
  }
  parts.push("</svg>");
  return parts.join("\n");
}

function graphTable(model: ReportModel): string {
  const rows = model.roles.map((r) => {
    const ovl = model.overlaps.filter(([a, b]) => a === r.index || b === r.index).map(([a, b]) => model.roles[a === r.index ? b : a].name);
    return `<tr><td><a href="#role-${r.index}">${esc(r.name)}</a></td><td>${esc(glyphOf(r.status))} ${esc(r.status)}</td><td>${esc(r.dependencies.join(", ") || "—")}</td><td>${esc(ovl.join(", ") || "—")}</td></tr>`;
  });
  return `<details><summary>The graph as a table</summary><table><caption class="muted">Roles, their status, what each depends on, and which roles it never runs beside</caption><thead><tr><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Depends on</th><th scope="col">Never together with</th></tr></thead><tbody>${rows.join("")}</tbody></table></details>`;
}

const ROW_H = 22;
const LABEL_W = 200;
const TRACK_W = 720;

function timelineSvg(model: ReportModel): string {
  const times = model.roles.flatMap((r) => r.attempts.flatMap((a) => [a.startedAt, a.endedAt])).filter((t): t is string => !!t).map((t) => Date.parse(t)).filter(Number.isFinite);
  const timed = times.length >= 2 && model.roles.every((r) => r.attempts.every((a) => a.startedAt));
  const t0 = timed ? Math.min(...times) : 0;
  const t1 = timed ? Math.max(...times, t0 + 1) : 1;
  const maxTries = Math.max(1, ...model.roles.map((r) => r.attempts.length));
  const height = model.roles.length * ROW_H + 28;
  const parts: string[] = [`<svg xmlns="http://www.w3.org/2000/svg" id="timeline" width="${LABEL_W + TRACK_W + 20}" height="${height}" role="img" aria-labelledby="timeline-title"><title id="timeline-title">Attempts of each role ${timed ? "over time" : "in order"}; the roles' sections below list them in words</title>`];
  model.roles.forEach((r, row) => {
    const y = row * ROW_H + 4;
    parts.push(`<text x="4" y="${y + 14}">${esc(cut(r.name, 26))}</text>`);
    r.attempts.forEach((a, k) => {
      let x: number;
      let w: number;
      if (timed) {
        const s = Date.parse(a.startedAt as string);
        const e = a.endedAt ? Date.parse(a.endedAt) : t1;
        x = LABEL_W + ((s - t0) / (t1 - t0)) * TRACK_W;
        w = Math.max(4, ((e - s) / (t1 - t0)) * TRACK_W);
      } else {
        w = TRACK_W / maxTries - 4;
        x = LABEL_W + k * (w + 4);
      }
      const s = a.outcome === "completed" ? "completed" : a.outcome === "running" ? "in_progress" : a.outcome === "interrupted" ? "skipped" : "failed";
      const label = `attempt ${a.attempt}: ${a.outcome}${a.stalled ? " (stalled)" : ""}, ${a.model}, ${a.agent}${a.durationMs !== null ? `, ${Math.round(a.durationMs / 1000)} s` : ""}`;
      parts.push(`<rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${ROW_H - 6}" rx="3" style="fill:var(--${s});stroke:var(--${s}-b)" data-role="${r.index}"><title>${esc(label)}</title></rect>`);
      if (w > 60) parts.push(`<text x="${(x + 4).toFixed(1)}" y="${y + 12}" style="font-size:10px">${esc(cut(`${a.model} ${a.outcome}`, Math.floor(w / 6)))}</text>`);
    });
  });
  parts.push("</svg>");
  return parts.join("");
}

function attemptRows(attempts: AttemptView[]): string {
  if (attempts.length === 0) return `<p class="muted">No attempt yet.</p>`;
  const rows = attempts.map(
    (a) =>
      `<tr data-attempt="${a.attempt}"><td>${a.attempt}</td><td>${esc(a.model)}${a.escalated ? ` <span class="muted">(escalated ${esc(a.escalated)})</span>` : ""}</td><td>${esc(a.agent)}</td><td>${esc(a.outcome)}${a.stalled ? " (stalled)" : ""}</td><td>${a.durationMs === null ? "—" : seconds(a.durationMs)}</td><td>${a.tokens === null ? "—" : a.tokens.toLocaleString("en-US")}</td><td>${a.toolUses === null ? "—" : a.toolUses}</td></tr>`,
  );
  const table = `<table><caption class="muted">Attempts</caption><thead><tr><th scope="col">#</th><th scope="col">Tier</th><th scope="col">Agent</th><th scope="col">Outcome</th><th scope="col">Duration</th><th scope="col">Tokens</th><th scope="col">Tool uses</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
  const reflexions = attempts
    .filter((a) => a.reflexion)
    .map((a) => {
      const r = a.reflexion!;
      return `<li>Before attempt ${a.attempt}: root cause ${esc(r.rootCause)}; wrong assumption ${esc(r.wrongAssumptions)}; instead ${esc(r.alternative)}</li>`;
    });
  return table + (reflexions.length ? `<h4>Reflexion on retry</h4><ul class="reflexion">${reflexions.join("")}</ul>` : "");
}

const seconds = (ms: number) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`);

function proof(ev: EvidenceView, attempt: number): string {
  const how = ev.timedOut ? "timed out" : `exit ${ev.exitCode === null ? "none" : ev.exitCode}`;
  const took = ev.durationMs === null ? "" : `, ${seconds(ev.durationMs)}`;
  return `<div class="${ev.passed ? "pass" : "fail"}">${ev.passed ? "✔ passed" : "✖ failed"} (${how}${took}, attempt ${attempt})</div>${ev.output ? `<pre>${esc(ev.output)}</pre>` : ""}`;
}

/** Each acceptance criterion with the newest evidence of its check; then the checks run without a criterion left in
 *  the plan (the role's spec command, and every check of a completed role: update-status keeps only its attempts). */
function criteria(r: RoleView): string {
  const last = [...r.attempts].reverse().find((a) => a.evidence.length > 0);
  const items = r.criteria.map((c) => {
    const ev = last?.evidence.find((e) => e.check === c.check);
    return `<li data-criterion>${esc(c.criterion)}<br><code>${esc(c.check)}</code>${ev && last ? proof(ev, last.attempt) : `<div class="muted">no evidence recorded</div>`}</li>`;
  });
  const named = new Set(r.criteria.map((c) => c.check));
  const rest = (last?.evidence ?? []).filter((e) => !named.has(e.check) || e.kind === "spec");
  const more = rest.map((e) => `<li data-evidence="${e.kind}">${e.kind === "spec" ? "Spec" : "Check"}: <code>${esc(e.check)}</code>${proof(e, last!.attempt)}</li>`);
  if (items.length === 0 && more.length === 0) return "";
  return `${items.length ? `<h4>Acceptance criteria</h4><ul>${items.join("")}</ul>` : ""}${more.length ? `<h4>${items.length ? "Other checks run" : "Checks run"}</h4><ul>${more.join("")}</ul>` : ""}`;
}

function roleSection(r: RoleView): string {
  const facts = [
    ["Status", `${glyphOf(r.status)} ${r.status}`],
    ["Tier", r.tier === r.model ? r.tier : `${r.tier} (its last attempt; the plan names ${r.model})`],
    ["Agent", r.agent || "—"],
    ["Goal", r.goal],
    ["Scope", r.scope.join(", ") || "—"],
    ["Depends on", r.dependencies.join(", ") || "—"],
    ["Tokens", r.tokens === null ? "not recorded" : r.tokens.toLocaleString("en-US")],
  ];
  if (r.waitsOnRetry.length) facts.push(["Waits for", `the retry of ${r.waitsOnRetry.join(", ")} (skipped until then)`]);
  if (r.result) facts.push(["Result", r.result]);
  const dl = facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("");
  return `<section class="role" id="role-${r.index}" aria-labelledby="role-${r.index}-h" tabindex="-1"><h3 id="role-${r.index}-h">${esc(glyphOf(r.status))} ${esc(r.name)}</h3><dl>${dl}</dl>${criteria(r)}${attemptRows(r.attempts)}</section>`;
}

function history(model: ReportModel): string {
  if (model.history.length === 0) return `<p class="muted">No earlier run recorded.</p>`;
  const rows = model.history.map(
    (h) => `<tr><td>${esc(h.timestamp)}</td><td>${esc(h.skill)}</td><td>${esc(h.outcome)}</td><td>${h.goalAchieved ? "✔ met" : "✖ not met"}</td><td>${h.tokens === null ? "—" : h.tokens.toLocaleString("en-US")}</td><td>${esc(cut(h.goal, 80))}</td></tr>`,
  );
  return `<table><caption class="muted">The last runs, newest first</caption><thead><tr><th scope="col">When</th><th scope="col">Skill</th><th scope="col">Outcome</th><th scope="col">Goal</th><th scope="col">Tokens</th><th scope="col">What</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

/** Tokens per model tier, per execute run and per auxiliary agent. */
function costTables(model: ReportModel): string {
  const c = model.cost;
  if (c.tokens === 0) return `<p class="muted">No agent's usage recorded yet${c.unrecorded ? ` (${c.unrecorded} finished attempt${c.unrecorded === 1 ? "" : "s"} without a record)` : ""}.</p>`;
  const n = (x: number) => x.toLocaleString("en-US");
  const table = (caption: string, head: string, rows: Array<[string, number]>) =>
    rows.length
      ? `<table><caption class="muted">${esc(caption)}</caption><thead><tr><th scope="col">${esc(head)}</th><th scope="col">Tokens</th></tr></thead><tbody>${rows.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${n(v)}</td></tr>`).join("")}</tbody></table>`
      : "";
  return [
    table("Workers by model tier", "Tier", Object.entries(c.byTier)),
    table("By execute run", "Run", c.byRun.map((r) => [r.runId, r.tokens])),
    table("Auxiliary agents", "Agent", c.auxiliaries.map((a) => [a.agent, a.tokens])),
    c.unrecorded ? `<p class="muted">${c.unrecorded} finished attempt${c.unrecorded === 1 ? "" : "s"} without a usage record.</p>` : "",
  ].join("");
}

/** The whole report as HTML text. */
export function reportHtml(model: ReportModel): string {
  const layout = layoutGraph(model.roles.length, model.deps, model.overlaps);
  const counts = Object.entries(model.counts).map(([s, n]) => `<li>${esc(glyphOf(s))} ${n} ${esc(s.replace("_", " "))}</li>`).join("");
  const run = model.run
    ? `<p>Run <code>${esc(model.run.runId)}</code> started ${esc(model.run.startedAt)}${model.run.completedAt ? `, ended ${esc(model.run.completedAt)} (${esc(model.run.outcome)})` : ", still open"}.</p>`
    : `<p class="muted">No execute run recorded.</p>`;
  const phases = model.run && (model.run.phases.length || model.run.skippedPhases.length)
    ? `<section aria-labelledby="phases-h"><h2 id="phases-h">Phases of the run</h2><ol class="phases">${model.run.phases
        .map((p) => `<li data-phase="${esc(p.phase)}"><strong>${esc(p.phase)}</strong> <span class="muted">${esc(p.at)}</span>${p.decisions ? ` — ${esc(p.decisions)}` : ""}</li>`)
        .join("")}${model.run.skippedPhases.map((p) => `<li class="muted" data-phase="${esc(p)}">${esc(p)}: not reached</li>`).join("")}</ol></section>`
    : "";
  const anyTokens = model.cost.tokens > 0;
  const list = (title: string, xs: string[]) => (xs.length ? `<div>${esc(title)}<ul>${xs.map((x) => `<li>${esc(x)}</li>`).join("")}</ul></div>` : "");
  const g = model.goalReview;
  const verdicts = [
    model.verifier
      ? `<li data-verdict="verifier">Integration verifier: <strong>${esc(model.verifier.verdict)}</strong>${model.verifier.summary ? ` — ${esc(model.verifier.summary)}` : ""}${list("Blocking issues:", model.verifier.blocking)}</li>`
      : `<li class="muted" data-verdict="verifier">Integration verifier: no report.</li>`,
    model.regression ? `<li data-verdict="regression">Regression checker: <strong>${model.regression.passed ? "no regression" : "regressions found"}</strong>${model.regression.summary ? ` — ${esc(model.regression.summary)}` : ""}</li>` : "",
    g
      ? `<li data-verdict="goal">Goal review: <strong>${g.verdict ? `goal ${esc(g.verdict)}` : g.goalAchieved ? "goal met" : "goal not met"}</strong>${g.summary ? ` — ${esc(g.summary)}` : ""}${list("What worked:", g.whatWorked)}${list("What failed:", g.whatFailed)}${list("Next time:", g.doNextTime)}</li>`
      : `<li class="muted" data-verdict="goal">Goal review: none recorded.</li>`,
  ].join("");
  const memories = model.memories.length
    ? `<ul>${model.memories.map((m) => `<li><strong>${esc(m.category)}</strong>: ${esc(m.content)}${m.keywords.length ? ` <span class="muted">(${esc(m.keywords.join(", "))})</span>` : ""}</li>`).join("")}</ul>`
    : `<p class="muted">No memory stored in this run.</p>`;
  const problems = model.problems.length ? `<section aria-labelledby="problems-h"><h2 id="problems-h">Problems</h2><ul>${model.problems.map((p) => `<li>${esc(p)}</li>`).join("")}</ul></section>` : "";
  // An open execute run: the page reloads itself (a meta refresh is navigation, no request the CSP must allow).
  const live = model.run !== null && model.run.completedAt === null;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
${live ? `<meta http-equiv="refresh" content="${LIVE_RELOAD_SECONDS}">` : ""}
<title>${esc(cut(model.goal || "Plan", 80))} — do report</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header>
<h1>${esc(model.goal || "(no goal)")}</h1>
<p class="muted">Report of the plan in <code>.design/plan.json</code>, made ${esc(model.generatedAt)}. State: ${esc(model.state)}.</p>
${live ? `<p data-live="true"><strong>Live:</strong> the run is going; this page is rewritten at each start, finish, stall and check, and reloads every ${LIVE_RELOAD_SECONDS} s.</p>` : ""}
<ul class="counts" aria-label="Roles by status">${counts}</ul>
${run}
${anyTokens ? `<p>Tokens recorded for the plan's agents: <strong>${model.cost.tokens.toLocaleString("en-US")}</strong>.</p>` : ""}
</header>
${problems}
<section aria-labelledby="graph-h">
<h2 id="graph-h">Graph</h2>
${legend()}
<div class="scroll">${graphSvg(model, layout)}</div>
${graphTable(model)}
</section>
<section aria-labelledby="timeline-h">
<h2 id="timeline-h">Attempts</h2>
<div class="scroll">${timelineSvg(model)}</div>
</section>
${phases}
<section aria-labelledby="verdicts-h">
<h2 id="verdicts-h">Verdicts</h2>
<ul>${verdicts}</ul>
</section>
<section aria-labelledby="roles-h">
<h2 id="roles-h">Roles</h2>
${model.roles.map(roleSection).join("\n")}
</section>
<section aria-labelledby="cost-h">
<h2 id="cost-h">Cost</h2>
${costTables(model)}
</section>
<section aria-labelledby="memories-h">
<h2 id="memories-h">Memories stored</h2>
${memories}
</section>
<section aria-labelledby="history-h">
<h2 id="history-h">Run history</h2>
${history(model)}
</section>
</main>
</body>
</html>
`;
}
