// A scripted lead bound to one skill: its helper calls come from the SKILL.md text (exactly as written, with
// ${CLAUDE_SKILL_DIR} and the {placeholders} filled), its refs from the skill's folder, its files under the project.
import { join } from "node:path";
import { bash, check, ok, read, turn, write } from "./lead.ts";
import type { Sample } from "./project.ts";
import { delivery, skillCall, skillPrompt, type CallFill, type Prompt } from "./prompts.ts";
import { userText, type ToolCall, type TurnContext } from "./stub.ts";

export class SkillLead {
  readonly prompt: Prompt;

  constructor(
    readonly skill: string,
    readonly pluginDir: string,
    readonly project: Sample,
    readonly args: string,
  ) {
    this.prompt = skillPrompt(pluginDir, skill);
  }

  /** The written call of `command` (the one containing every `contains` string), filled in. */
  call(command: string, contains: string[] = [], fill: CallFill = {}): string {
    return skillCall(this.prompt, this.pluginDir, command, contains, fill);
  }

  /**
   * The user's "yes" to one written call, as a permission rule for exactly that command line (`--allowedTools`): in
   * -p nobody can answer a prompt, so a call the skill leaves to the user (execute's grant-approve.js) runs only so.
   */
  approval(command: string, contains: string[] = [], fill: CallFill = {}): string {
    return `Bash(${this.call(command, contains, fill)})`;
  }

  /** A Bash tool call running that written call. */
  run(command: string, contains: string[] = [], fill: CallFill = {}): ToolCall {
    return bash(this.call(command, contains, fill), `do helper: ${command}`);
  }

  /** A Read of one of the skill's refs, as "Read `refs/x.md` now" asks. */
  ref(name: string): ToolCall {
    return read(join(this.prompt.dir, "refs", name));
  }

  write(rel: string, content: string | object): ToolCall {
    return write(this.project.path(rel), typeof content === "string" ? content : JSON.stringify(content, null, 2) + "\n");
  }

  readFile(rel: string): ToolCall {
    return read(this.project.path(rel));
  }

  /** The pre-flight digest the CLI injected into the skill body of the first request. Throws when absent. */
  digest(first: TurnContext): any {
    const d = delivery(this.prompt, this.pluginDir, this.args, userText(first.body));
    if (d.missing.length) throw new Error(`${this.skill}: the skill body did not arrive: ${d.missing[0].slice(0, 200)}`);
    return JSON.parse(d.injected[0]);
  }
}

/** One turn of tool calls; the flow fails unless each call got its result. Returns the next turn's context. */
export function* calls(text: string, ...tools: ToolCall[]): Generator<any, TurnContext, TurnContext> {
  const ctx: TurnContext = yield turn(text, ...tools);
  check(ctx.results.length === tools.length, `expected ${tools.length} results, got ${ctx.results.length}`);
  return ctx;
}

/** One helper call of the skill as a turn; returns its JSON answer, which must be ok:true. */
export function* helper(lead: SkillLead, text: string, command: string, contains: string[] = [], fill: Parameters<SkillLead["call"]>[2] = {}): Generator<any, any, TurnContext> {
  return ok((yield* calls(text, lead.run(command, contains, fill))).results[0]);
}
