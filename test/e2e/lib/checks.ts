// The checks every skill and command session must pass; shared by the skill cases and by the guard cases that
// prove these checks fail on a broken plugin.
import assert from "node:assert/strict";
import { ok } from "./lead.ts";
import { callCommand, delivery, substitute, writtenCalls, type Prompt } from "./prompts.ts";
import type { Session } from "./session.ts";
import type { ToolResult } from "./stub.ts";

/** Values for the {placeholders} of the calls the skill cases run. */
export const FILL: Record<string, string> = {
  goal: "add due dates to the todo API",
  "role goal": "Store a due date with every todo",
  "scope directories": "src/db,src/api",
  skill: "design",
  "main failure words": "expert timeout",
  "skill name": "greet",
  focus: "clarity",
  arguments: "design --min-runs 1",
  "target path": ".claude/skills/greet/SKILL.md",
};

export function fill(call: string, values: Record<string, string> = FILL): string {
  return call.replace(/\{([a-zA-Z][^{}"]*)\}/g, (whole, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`no value for ${whole} in ${call}`);
    return v;
  });
}

/**
 * The calls a scripted lead makes first for a skill: its run-begin (the Script Setup names no call: run-begin checks
 * health) and its memory-search where it writes one (reflect; the others get their memories from run-begin, execute
 * from `next`), as written.
 */
export function setupCalls(p: Prompt, pluginDir: string): string[] {
  const begin = writtenCalls(p).filter((c) => callCommand(c) === "run-begin");
  assert.equal(begin.length, 1, `${p.name}: writes ${begin.length} run-begin calls`);
  const search = writtenCalls(p).filter((c) => callCommand(c) === "memory-search");
  return [...begin, ...search.slice(0, 1)].map((c) => fill(substitute(c, p, pluginDir, "")));
}

/** The delivered prompt: body verbatim, nothing unresolved, the !-line's output the helper's ok:true JSON. */
export function checkDelivery(p: Prompt, pluginDir: string, args: string, s: Session): any {
  const d = delivery(p, pluginDir, args, s.received);
  assert.deepEqual(d.missing, [], `${p.name}: body text did not arrive (the CLI dropped or changed the prompt)`);
  for (const left of ["${", "$ARGUMENTS", "!`"]) assert.ok(!d.text.includes(left), `${p.name}: '${left}' left unresolved in the delivered body`);
  assert.equal(d.injected.length, 1, `${p.name}: expected one injected !-line output`);
  let doc: any;
  assert.doesNotThrow(() => (doc = JSON.parse(d.injected[0])), `${p.name}: the !-line output is not the helper's JSON: ${d.injected[0].slice(0, 300)}`);
  assert.equal(doc.ok, true, `${p.name}: injected helper output is not ok: ${d.injected[0].slice(0, 300)}`);
  return doc;
}

/** Each scripted call came back, unchanged, with the helper's ok:true JSON (no approval asked). */
export function checkResults(calls: string[], results: ToolResult[]): any[] {
  assert.equal(results.length, calls.length, "every scripted call should come back");
  return results.map((r, i) => {
    assert.equal(r.input?.command, calls[i]);
    return ok(r);
  });
}
