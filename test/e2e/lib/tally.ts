// What one skill run cost, counted from the requests the stub received (issue 24: "helper calls and lead turns per
// skill"): the lead's helper calls that ran, its model requests, the tokens the stub reported for them, and the size
// of the skill body the CLI delivered on invoke.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DENIAL } from "./lead.ts";
import { commandPrompt, delivery, skillPrompt, type Prompt } from "./prompts.ts";
import { DEFAULT_USAGE, requestText, userText, type Recorded } from "./stub.ts";

export interface Tally {
  /** The skill or command run (`/do:<name>`), or "" for a session that ran none. */
  skill: string;
  /** Bash tool uses of the lead that ran the plugin's helper (plan.js, dist/plan.js, grant-approve.js) and got a result that is not a refusal. */
  helperCalls: number;
  /** The lead's helper calls the CLI refused (needed approval): they did not run. */
  helperDenied: number;
  /** Every tool use of the lead that got a result, helper calls included. */
  leadTools: number;
  /** The lead's model requests: one per turn of its conversation (a retried request counts once). */
  leadTurns: number;
  /** Input and output tokens the stub reported for the lead's requests (a turn without scripted usage: 10 and 10). */
  tokensIn: number;
  tokensOut: number;
  /** The lead's requests measured instead of reported: characters / 4 of what each request sent (system prompt, tools, messages) and of each answer. */
  estIn: number;
  estOut: number;
  /** Characters / 4 of the skill body as the CLI delivered it in the first request (the !-line's output included). */
  skillTokens: number;
  /** Whether that body was found verbatim; when not, skillTokens is the substituted file body's size. */
  skillDelivered: boolean;
  /** Subagent conversations, their model requests and their helper calls that ran. */
  agents: number;
  agentTurns: number;
  agentHelperCalls: number;
}

/** A Bash command that runs the plugin's helper: `…/scripts/plan.js`, `…/dist/plan.js` or `…/scripts/grant-approve.js`. */
export const HELPER_COMMAND = /(?:^|[\s"'/])(?:plan|grant-approve)\.js(?![\w.-])/;

const tokens = (chars: number) => Math.ceil(chars / 4);

function blocks(content: unknown): any[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content : [];
}

function resultText(b: any): string {
  return blocks(b.content)
    .map((x) => (x?.type === "text" ? String(x.text ?? "") : ""))
    .join("\n");
}

interface Calls {
  helper: number;
  helperDenied: number;
  tools: number;
}

/**
 * The tool uses of one conversation that got a result, from every request it made: each tool_use block the model
 * issued, paired with the first tool_result the CLI sent back for it (a later request may carry it cleared).
 */
function countCalls(reqs: Recorded[]): Calls {
  const uses = new Map<string, any>();
  const results = new Map<string, string>();
  for (const r of reqs) {
    for (const m of r.body?.messages ?? []) {
      for (const b of blocks(m.content)) {
        if (m.role === "assistant" && b.type === "tool_use" && !uses.has(b.id)) uses.set(b.id, b);
        if (m.role === "user" && b.type === "tool_result" && !results.has(b.tool_use_id)) results.set(b.tool_use_id, resultText(b));
      }
    }
  }
  const out: Calls = { helper: 0, helperDenied: 0, tools: 0 };
  for (const [id, use] of uses) {
    const text = results.get(id);
    if (text === undefined) continue;
    const refused = DENIAL.test(text);
    if (!refused) out.tools++;
    if (use.name !== "Bash" || !HELPER_COMMAND.test(String(use.input?.command ?? ""))) continue;
    if (refused) out.helperDenied++;
    else out.helper++;
  }
  return out;
}

/** The prompt file a `/do:<name> …` prompt invokes: the skill, else the command; undefined for anything else. */
function invoked(prompt: string, pluginDir: string | null | undefined): { p: Prompt; args: string } | undefined {
  const m = /^\/do:([\w-]+)(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  if (!m || !pluginDir) return undefined;
  const args = m[2]?.trim() ?? "";
  if (existsSync(join(pluginDir, "skills", m[1], "SKILL.md"))) return { p: skillPrompt(pluginDir, m[1]), args };
  if (existsSync(join(pluginDir, "commands", `${m[1]}.md`))) return { p: commandPrompt(pluginDir, m[1]), args };
  return undefined;
}

/** The tally of one session: its stub's requests, the prompt it was started with and the plugin it loaded. */
export function tally(requests: Recorded[], prompt: string, pluginDir?: string | null): Tally {
  const main = requests.filter((r) => r.kind === "main");
  const agentReqs = requests.filter((r) => r.kind === "agent");
  const lead = countCalls(main);
  let tokensIn = 0;
  let tokensOut = 0;
  let estIn = 0;
  let estOut = 0;
  for (const r of main) {
    const usage = { ...DEFAULT_USAGE, ...r.answer?.usage };
    tokensIn += usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
    tokensOut += usage.output_tokens;
    estIn += tokens(requestText(r.body).length + JSON.stringify(r.body?.tools ?? []).length);
    estOut += tokens((r.answer?.text ?? "").length + JSON.stringify(r.answer?.tools ?? []).length);
  }
  const byAgent = new Map<string, Recorded[]>();
  for (const r of agentReqs) byAgent.set(r.conversation ?? "", [...(byAgent.get(r.conversation ?? "") ?? []), r]);
  let agentHelperCalls = 0;
  for (const reqs of byAgent.values()) agentHelperCalls += countCalls(reqs).helper;

  const skill = invoked(prompt, pluginDir);
  let skillTokens = 0;
  let skillDelivered = false;
  if (skill) {
    const received = main[0] ? userText(main[0].body) : "";
    const d = delivery(skill.p, pluginDir!, skill.args, received);
    skillDelivered = d.missing.length === 0 && d.text.length > 0;
    skillTokens = tokens(skillDelivered ? d.text.length : skill.p.body.trim().length);
  }
  return {
    skill: skill?.p.name ?? "",
    helperCalls: lead.helper,
    helperDenied: lead.helperDenied,
    leadTools: lead.tools,
    leadTurns: new Set(main.map((r) => r.turn)).size,
    tokensIn,
    tokensOut,
    estIn,
    estOut,
    skillTokens,
    skillDelivered,
    agents: byAgent.size,
    agentTurns: new Set(agentReqs.map((r) => `${r.conversation}:${r.turn}`)).size,
    agentHelperCalls,
  };
}

/** One line for the test log: `# tally execute: helperCalls=43 leadTurns=65 …`. */
export function tallyLine(t: Tally, label = t.skill || "session"): string {
  const fields = [
    `helperCalls=${t.helperCalls}`,
    ...(t.helperDenied ? [`helperDenied=${t.helperDenied}`] : []),
    `leadTurns=${t.leadTurns}`,
    `leadTools=${t.leadTools}`,
    `tokensIn=${t.tokensIn}`,
    `tokensOut=${t.tokensOut}`,
    `estIn=${t.estIn}`,
    `estOut=${t.estOut}`,
    `skillTokens=${t.skillTokens}${t.skillDelivered ? "" : "(file)"}`,
    `agents=${t.agents}`,
    `agentTurns=${t.agentTurns}`,
    `agentHelperCalls=${t.agentHelperCalls}`,
  ];
  return `# tally ${label}: ${fields.join(" ")}`;
}
