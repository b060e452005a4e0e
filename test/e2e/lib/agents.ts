// Scripted subagents (experts, workers, auxiliaries): each writes its report with the Write tool, answers with one
// line, and answers every later message (a SendMessage that resumes it) with a fixed reply.
import { existsSync } from "node:fs";
import { bash, done, flowScript, read, turn, write } from "./lead.ts";
import type { Sample } from "./project.ts";
import type { Script, ToolResult } from "./stub.ts";

/** One call an agent makes on the project before its report: an Edit (after reading the file) or a Bash command. */
export type WorkStep = { edit: string; from: string; to: string } | { bash: string };

export interface AgentPart {
  /** Calls on the project made first, in order (a worker changing source and running its check). */
  work?: WorkStep[];
  /** Told each work step's tool result (denied or not), in order. */
  seen?: (step: WorkStep, result: ToolResult) => void;
  /** Project-relative file the agent writes, and its content (objects become JSON; a function gets the work results). */
  file?: string;
  content?: string | object | ((results: ToolResult[]) => string | object);
  /** Its final line, which the lead gets in the task notification. */
  reply: string;
  /** Its answer when a SendMessage resumes it. */
  onMessage?: string;
}

/** Subagents are told apart by a first line `Agent: <key>` in the brief the lead wrote. */
export function agentKey(brief: string): string | undefined {
  return /^Agent: (\S+)\s*$/m.exec(brief)?.[1];
}

export function agentScript(project: Sample, part: AgentPart, errors: string[]): Script {
  return flowScript(function* () {
    const results: ToolResult[] = [];
    for (const step of part.work ?? []) {
      let r: ToolResult;
      if ("edit" in step) {
        const path = project.path(step.edit);
        // The Edit tool refuses a file the agent has not read.
        done((yield turn(`Reading ${step.edit}.`, read(path))).results[0]);
        r = (yield turn(`Editing ${step.edit}.`, { name: "Edit", input: { file_path: path, old_string: step.from, new_string: step.to } })).results[0];
      } else r = (yield turn("Running my acceptance check.", bash(step.bash, "Run the role's acceptance check"))).results[0];
      results.push(r);
      part.seen?.(step, r);
    }
    if (part.file) {
      const path = project.path(part.file);
      // The Write tool refuses to overwrite a file the agent has not read (a retried worker's report).
      if (existsSync(path)) done((yield turn("Reading my earlier report.", read(path))).results[0]);
      const content = typeof part.content === "function" ? part.content(results) : part.content;
      const ctx = yield turn("Writing my report.", write(path, typeof content === "string" ? content : JSON.stringify(content, null, 2) + "\n"));
      const r = ctx.results[0];
      if (!r || r.isError) errors.push(`${part.file}: ${r?.text}`);
    }
    let reply = part.reply;
    for (;;) {
      yield turn(reply);
      reply = part.onMessage ?? "Nothing to add.";
    }
  });
}

/** The stub's `agents` option: the script of each known key; unknown briefs fail the session. */
export function agentTable(project: Sample, parts: Record<string, AgentPart>, errors: string[]): (brief: string) => Script | undefined {
  return (brief) => {
    const key = agentKey(brief);
    const part = key ? parts[key] : undefined;
    if (!part) {
      errors.push(`unexpected agent brief: ${brief.slice(0, 200)}`);
      return undefined;
    }
    return agentScript(project, part, errors);
  };
}
