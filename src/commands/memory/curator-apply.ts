// curator-apply: the memory curator's report (.design/memory-curator-report.json) checked and applied in one call,
// replacing a memory-add per kept memory and per boost or decay. Each kept memory is stored with its own category,
// keywords, content and importance (source: the run's skill, goal context: the run's goal) behind memory-add's own
// gates: a near-duplicate of a stored memory becomes a boost of that entry, a memory a gate refuses
// (session-specific, specificity, category, importance, keywords, content) is answered in `rejected` with the
// reason; a report scoring three or more memories all alike is refused whole (gate 3, not uniform). Then the
// report's `boost` and `decay` lists are applied (an id not in the file is answered in `notFound`). The report is read
// as data: content with quotes, `$(…)` or backticks is stored byte for byte, never near a shell. A report that does
// not have the curator's shape is refused whole: nothing is written. The curator's usage is recorded as
// validate-auxiliary-report records it.
import { join } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { HelperError } from "../../base/errors.js";
import { OWN } from "../../base/owned.js";
import { checkSkill, readRun, runFile } from "../../lib/run/run-state.js";
import { isInt, isObject } from "../../lib/values.js";
import { argLabel, confine, MAX_JSONL_BYTES, parseJsonl, projectRoots, readConfined, readJson, readText } from "../../store.js";
import { crashPoint } from "../../base/crash-point.js";
import { schemaFailure } from "../reports/checks.js";
import { agentName, AGENT_FLAG, auxiliaryErrors, auxiliaryUsage } from "../reports/auxiliary.js";
import { loadArtifact } from "../reports/expert-validate.js";
import { adjustMemory, storeMemory, type MemoryInput } from "./add.js";
import { uniformImportance } from "./quality-gates.js";

/** A short key of the report's content: the same report applied again is recognised by it. */
function reportKey(doc: Record<string, unknown>): string {
  const { createHash } = require("node:crypto") as typeof import("node:crypto");
  return createHash("sha256").update(JSON.stringify(doc)).digest("hex").slice(0, 16);
}

/** The memories the report with `key` already stored: its mark → the entry's id. */
function storedBy(target: string, key: string): Map<string, string> {
  const found = new Map<string, string>();
  const r = readText(target, MAX_JSONL_BYTES);
  if (r.kind !== "ok" || !r.text.includes(`"${key}:store:`)) return found;
  for (const e of parseJsonl(r.text).entries) {
    const marks = e.value.curator;
    if (!Array.isArray(marks) || typeof e.value.id !== "string") continue;
    for (const m of marks) if (typeof m === "string" && m.startsWith(`${key}:store:`)) found.set(m, e.value.id);
  }
  return found;
}

/** Every problem of the report beyond the curator's required keys: each memory's fields, the boost and decay lists. */
function reportErrors(report: unknown): string[] {
  const errors = auxiliaryErrors("memory-curator", report);
  if (errors.length || !isObject(report)) return errors;
  (report.memories as unknown[]).forEach((m, i) => {
    if (!isObject(m)) return void errors.push(`memories[${i}] must be an object`);
    if (typeof m.category !== "string") errors.push(`memories[${i}].category must be a string`);
    if (typeof m.content !== "string") errors.push(`memories[${i}].content must be a string`);
    const kw = m.keywords;
    if (!(typeof kw === "string" || (Array.isArray(kw) && kw.every((k) => typeof k === "string")))) errors.push(`memories[${i}].keywords must be a list of strings`);
    if (m.importance !== undefined && !isInt(m.importance)) errors.push(`memories[${i}].importance must be an integer from 1 to 10`);
    if (m.surprise !== undefined && typeof m.surprise !== "string") errors.push(`memories[${i}].surprise must be a string`);
  });
  // Gate 3, "not uniform": importance scored by surprise differs between memories (quality-gates.ts).
  if (errors.length === 0) {
    const memories = report.memories as Array<Record<string, unknown>>;
    const same = uniformImportance(memories.map((m) => (m.importance as number | undefined) ?? 5));
    if (same !== null) errors.push(`every memory has importance ${same}: score each by how unexpected it was (1-3 what anyone would assume, 7-9 a trap that cost an attempt)`);
  }
  for (const key of ["boost", "decay"]) {
    const v = report[key];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v) || !v.every((id) => typeof id === "string" && id !== "")) errors.push(`${key} must be a list of memory ids`);
  }
  return errors;
}

export default defineCommand({
  positionals: [{ name: "report_path", help: "the curator's report", default: ".design/memory-curator-report.json", path: "read" }],
  flags: {
    goal: { type: "string", help: "the goal the memories came from (default: the run's goal)", default: "" },
    skill: { type: "string", help: "the skill whose run the curator served: the memories' source", default: "execute" },
    memory: { type: "string", help: "the memory file", default: ".design/memory.jsonl", path: "write" },
    agent: AGENT_FLAG,
  },
  async run(ctx, args) {
    const skill = checkSkill("curator-apply", args.skill as string);
    const agent = agentName(args.agent, "memory-curator");
    const shown = args.memory as string;
    const target = confine(ctx.cwd, argLabel("memory", shown, true), shown, "write", OWN.memory);
    const report = loadArtifact(ctx.cwd, args.report_path as string);
    const errors = reportErrors(report);
    if (errors.length) throw new HelperError("E_INVALID", schemaFailure(errors), { errors });
    const doc = report as Record<string, unknown>;
    const now = ctx.now();

    let goal = (args.goal as string).trim();
    if (goal === "") {
      const run = readRun(runFile(ctx.cwd, ".design", skill, "read"));
      goal = run.kind === "ok" ? run.run.goal : "";
    }
    if (goal === "") {
      const plan = readConfined(ctx.cwd, join(projectRoots(ctx.cwd).design, "plan.json"), readJson);
      goal = plan.kind === "ok" && isObject(plan.value) && typeof plan.value.goal === "string" ? plan.value.goal : "";
    }

    const stored: string[] = [];
    const boosted: string[] = [];
    const decayed: string[] = [];
    const duplicates: Array<{ content: string; duplicateOf: string }> = [];
    const rejected: Array<{ content: string; reason: string; gate?: string }> = [];
    const notFound: Array<{ id: string; list: "boost" | "decay" }> = [];
    // Safe to repeat after a kill at any point: every memory this report stores and every entry it boosts or
    // decays carries the report's key in `curator`, so a retry of the same report stores nothing twice and adjusts
    // nothing twice; it answers what the report did.
    const key = reportKey(doc);
    const earlier = storedBy(target, key);
    const bump = async (id: string, up: boolean, list: "boost" | "decay") => {
      try {
        await adjustMemory(target, shown, id, up, `${key}:${list}`);
        crashPoint("curator:adjusted");
        (up ? boosted : decayed).push(id);
      } catch (err) {
        if ((err as HelperError).code !== "E_NOT_FOUND") throw err;
        notFound.push({ id, list });
      }
    };

    for (const [i, m] of (doc.memories as Array<Record<string, unknown>>).entries()) {
      const mark = `${key}:store:${i}`;
      const done = earlier.get(mark);
      if (done !== undefined) {
        stored.push(done);
        continue;
      }
      const input: MemoryInput = {
        category: m.category as string,
        keywords: typeof m.keywords === "string" ? m.keywords.split(",") : (m.keywords as string[]),
        content: m.content as string,
        importance: (m.importance as number | undefined) ?? 5,
        source: skill,
        goalContext: goal,
        surprise: typeof m.surprise === "string" ? m.surprise : "",
        id: undefined,
        curator: mark,
      };
      try {
        stored.push((await storeMemory(target, input, now)).id);
        crashPoint("curator:stored");
      } catch (err) {
        const e = err as HelperError;
        const gate = e.extra?.gate;
        if (typeof gate !== "string") throw err;
        if (gate === "duplicate") {
          const id = String(e.extra?.duplicateOf);
          duplicates.push({ content: input.content, duplicateOf: id });
          if (!boosted.includes(id)) await bump(id, true, "boost");
        } else rejected.push({ content: input.content, reason: e.message, gate });
      }
    }
    for (const id of (doc.boost as string[] | undefined) ?? []) if (!boosted.includes(id)) await bump(id, true, "boost");
    for (const id of (doc.decay as string[] | undefined) ?? []) if (!decayed.includes(id)) await bump(id, false, "decay");

    const usage = await auxiliaryUsage(ctx.cwd, agent, now);
    crashPoint("curator:usage");
    return {
      stored,
      boosted,
      decayed,
      rejected,
      duplicates,
      notFound,
      summary: typeof doc.summary === "string" ? doc.summary : "",
      announce: `memory curator: ${stored.length} stored, ${boosted.length} boosted, ${decayed.length} decayed, ${rejected.length} rejected${duplicates.length ? ` (${duplicates.length} duplicate(s) boosted instead)` : ""}`,
      usage,
    };
  },
});
