// health-check: integrity report for the design directory (contract 4.12). `ok` stays true when unhealthy: the
// findings are `issues` (broken state) and `warnings` (tolerated damage).
import { join, resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError, detail } from "../../base/errors.js";
import { isObject, pyStr } from "../../lib/values.js";
import { isLockName, isTempName, listDir, parseJson, pathKind, readConfined, readText, splitLines, type DirEntry } from "../../store.js";

/** A helper lock or temp file untouched for this long is reported (locks are refreshed every second). */
const STALE_MS = 60_000;

interface Findings {
  issues: string[];
  warnings: string[];
}

function checkPlan(cwd: string, dir: string, out: Findings): void {
  const r = readConfined(cwd, join(dir, "plan.json"), readText);
  if (r.kind === "missing") {
    const archived = pathKind(join(dir, "history")) === "directory";
    return void out.issues.push(
      `plan.json not found: ${archived ? "earlier plans are archived in .design/history/; " : ""}run /do:design <goal> to plan (a skill that only plans or researches may go on without one)`,
    );
  }
  if (r.kind === "error") return void out.issues.push(`Cannot read plan.json: ${r.detail}`);
  const p = parseJson(r.text);
  if (!p.ok) return void out.issues.push(`plan.json is not valid JSON: ${p.detail}`);
  if (!isObject(p.value)) return void out.issues.push("plan.json is not a JSON object");
  const v = p.value.schemaVersion;
  if (!(typeof v === "number" && v === 4)) out.issues.push(`Invalid schema version: ${pyStr(v)} (expected 4)`);
}

/** Scan a JSONL file line by line; physical lines count from 1, blank lines are skipped. */
function checkJsonl(cwd: string, dir: string, file: string, required: readonly string[], out: Findings): void {
  const r = readConfined(cwd, join(dir, file), readText);
  if (r.kind === "missing") return;
  if (r.kind === "error") return void out.issues.push(`Cannot read ${file}: ${r.detail}`);
  splitLines(r.text).forEach((line, i) => {
    const t = line.trim();
    if (t === "") return;
    const p = parseJson(t);
    const n = i + 1;
    if (!p.ok) return void out.warnings.push(`${file} line ${n}: invalid JSON`);
    if (!isObject(p.value)) return void out.warnings.push(`${file} line ${n}: not a JSON object`);
    const value = p.value;
    const absent = required.filter((k) => !(k in value));
    if (absent.length) out.warnings.push(`${file} line ${n}: missing fields {${absent.map((k) => `'${k}'`).join(", ")}}`);
  });
}

function checkEntries(dir: string, now: number, out: Findings): void {
  let entries: DirEntry[];
  try {
    entries = listDir(dir);
  } catch (err) {
    return void out.warnings.push(`Cannot scan directory for symlinks: ${detail(err)}`);
  }
  for (const e of entries) {
    if (e.isSymlink && e.broken) out.issues.push(`Broken symlink: ${e.name} -> ${e.linkText}`);
  }
  for (const e of entries) {
    if ((isLockName(e.name) || isTempName(e.name)) && now - e.mtimeMs > STALE_MS) {
      out.warnings.push(`Stale helper file: ${e.name}`);
    }
  }
}

/** The findings for the design dir at `dir` (absolute, an existing directory). */
export function healthOf(cwd: string, dir: string, now: number): { healthy: boolean; issues: string[]; warnings: string[] } {
  const out: Findings = { issues: [], warnings: [] };
  checkPlan(cwd, dir, out);
  checkJsonl(cwd, dir, "memory.jsonl", ["id", "category", "content", "timestamp"], out);
  checkJsonl(cwd, dir, "reflection.jsonl", ["id", "skill", "goal", "outcome", "timestamp"], out);
  checkEntries(dir, now, out);
  return { healthy: out.issues.length === 0, issues: out.issues, warnings: out.warnings };
}

export default defineCommand({
  positionals: [{ name: "design_dir", help: "design directory", default: ".design", path: "read" }],
  flags: {},
  run(ctx, args) {
    const given = args.design_dir as string;
    const name = given.replace(/\/+$/, "") || (given.startsWith("/") ? "/" : given);
    const dir = resolve(ctx.cwd, name);
    const kind = pathKind(dir);
    if (kind === "missing") throw new HelperError("E_NOT_FOUND", `Design directory not found: ${name}`);
    if (kind !== "directory") throw new HelperError("E_READ", `${name} is not a directory`);
    return healthOf(ctx.cwd, dir, ctx.now());
  },
});
