// Phase checkpoints recorded by the calls that produce a phase's output (issue 30): design-tier records design's
// pre-flight, expert-validate the experts (research, analysis) once no one is still out, finalize the draft and the
// finalize phases, recon-rank recon's synthesis and write-and-validate, reflect-metrics reflect's gather,
// improve-guards improve's guards. A call records every phase of the open run up to and including its own that is
// not yet recorded, in order (the phases between carry the outputs they are known to leave, when those exist), so a
// skipped phase costs no call. Nothing is recorded when no run of the skill is open, or when the run is already
// past the phase: a repeated call changes nothing. The recording is a side effect that never fails its call: the
// caller gets `checkpoint` (the announce line) or nothing.
import { join } from "node:path";
import { confined, MAX_STATE_BYTES, pathKind, updateText } from "../../store.js";
import { nextPhase, parseRun, readRun, runFile, runFileName, type Skill } from "./run-state.js";
import { isoSeconds } from "../values.js";

/** The files each phase leaves, by skill (listed as the phase's outputs when they exist). */
export const PHASE_OUTPUTS: Readonly<Partial<Record<Skill, Readonly<Record<string, readonly string[]>>>>> = {
  design: {
    "cross-review": [".design/cross-review.json", ".design/interfaces.json"],
    plan: [".design/draft/plan.json", ".design/draft/specs"],
    finalize: [".design/plan.json"],
  },
  improve: {
    "pre-flight": [".design/skill-snapshot.md", ".design/skill-features.json"],
    "cross-review": [".design/cross-review.json"],
    synthesis: [".design/draft/plan.json", ".design/draft/specs"],
    guards: [".design/draft/plan.json"],
    finalize: [".design/plan.json"],
  },
  recon: {
    synthesis: [".design/tmp/recon-draft.json"],
  },
  reflect: {
    analyse: [".design/tmp/patterns.md"],
    hypotheses: [".design/tmp/hypotheses.md"],
    plan: [".design/plan.json"],
  },
};

export interface RecordedPhases {
  skill: Skill;
  phases: string[];
  next: string | null;
  announce: string;
}

/** The open run among `skills` whose unrecorded phases include `phase`; the most recently updated one wins. */
export function openRunFor(cwd: string, skills: readonly Skill[], phase: (skill: Skill) => string | null): Skill | null {
  let best: { skill: Skill; at: string } | null = null;
  for (const skill of skills) {
    const p = phase(skill);
    if (p === null) continue;
    let r;
    try {
      r = readRun(runFile(cwd, ".design", skill, "read"));
    } catch {
      continue;
    }
    if (r.kind !== "ok" || r.run.completedAt !== null) continue;
    const at = r.run.phases.indexOf(p);
    if (at < 0 || r.run.completed.length > at) continue;
    if (best === null || r.run.updatedAt > best.at) best = { skill, at: r.run.updatedAt };
  }
  return best?.skill ?? null;
}

/**
 * Record the open `skill` run's phases up to and including `upTo` that are not recorded yet. `decisions` is the
 * line for `upTo` (and, by phase, for the ones before it); `outputs` adds files to `upTo`'s known ones. Returns
 * what was recorded, or null when nothing was (no open run, already past, or the state cannot be written).
 */
export async function recordPhases(
  cwd: string,
  skill: Skill,
  upTo: string,
  now: number,
  decisions: string | Record<string, string> = "",
  outputs: readonly string[] = [],
): Promise<RecordedPhases | null> {
  let path: string;
  try {
    path = runFile(cwd, ".design", skill);
  } catch {
    return null;
  }
  if (pathKind(path) !== "file") return null;
  const exists = (p: string) => {
    const real = confined(cwd, p, "read");
    return real !== null && pathKind(real) !== "missing";
  };
  try {
    return await updateText<RecordedPhases | null>(path, (text) => {
      if (text === null) return { text: null, result: null };
      const run = parseRun(text, `.design/${runFileName(skill)}`);
      const at = run.phases.indexOf(upTo);
      if (run.completedAt !== null || at < 0 || run.completed.length > at) return { text: null, result: null };
      const stamp = isoSeconds(now);
      const done: string[] = [];
      while (run.completed.length <= at) {
        const phase = run.phases[run.completed.length];
        const known = PHASE_OUTPUTS[skill]?.[phase] ?? [];
        const mine = phase === upTo ? [...known, ...outputs] : known;
        const line = typeof decisions === "string" ? (phase === upTo ? decisions : "") : (decisions[phase] ?? "");
        run.completed.push({ phase, at: stamp, outputs: [...new Set(mine)].filter(exists), decisions: line.trim().replace(/\s*\n\s*/g, " ") });
        done.push(phase);
      }
      run.updatedAt = stamp;
      const next = nextPhase(run);
      const announce = `${skill} · phase ${at + 1}/${run.phases.length} ${done.join(", ")}: done · next: ${next ?? "finish the run"}`;
      return { text: `${JSON.stringify(run, null, 2)}\n`, result: { skill, phases: done, next, announce } };
    }, undefined, undefined, MAX_STATE_BYTES);
  } catch {
    return null;
  }
}

/** recordPhases for the one open run among `skills` that has `phase(skill)` still to record. */
export async function recordFor(
  cwd: string,
  skills: readonly Skill[],
  phase: (skill: Skill) => string | null,
  now: number,
  decisions: string | Record<string, string> = "",
  outputs: readonly string[] = [],
): Promise<RecordedPhases | null> {
  const skill = openRunFor(cwd, skills, phase);
  if (skill === null) return null;
  return recordPhases(cwd, skill, phase(skill) as string, now, decisions, outputs);
}

/** The file names of a comma list of `.design/expert-*.json` artifacts (for a checkpoint's outputs). */
export const artifactPaths = (names: readonly string[]) => names.map((n) => join(".design", `expert-${n}.json`));
