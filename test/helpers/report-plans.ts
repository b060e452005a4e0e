// Plans of any size for the report's tests: seeded, so a failure replays. Roles depend on up to three earlier
// roles, share scope folders often enough to overlap, and carry statuses and attempt logs of every kind.
import { rng } from "./rng.ts";

export { rng };

const STATUSES = ["completed", "failed", "in_progress", "pending", "skipped", "blocked"];
const OUTCOMES = ["completed", "failed", "stalled", "interrupted"];
const TIERS = ["haiku", "sonnet", "opus"];


export function reportPlan(n: number, seed = n): any {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const folders = Math.max(2, Math.floor(n * 0.8));
  const roles = Array.from({ length: n }, (_, i) => {
    const deps = i === 0 ? [] : [...new Set(Array.from({ length: Math.floor(r() * 3) }, () => `role-${Math.floor(r() * i)}`))];
    const status = pick(STATUSES);
    const tries = status === "pending" ? 0 : 1 + Math.floor(r() * 3);
    const attemptLog = Array.from({ length: tries }, (_, k) => ({
      attempt: k + 1,
      model: TIERS[Math.min(2, k)],
      agent: k === 0 ? `role-${i}` : `role-${i}--${k + 1}`,
      outcome: k < tries - 1 ? pick(OUTCOMES.slice(1)) : status === "completed" ? "completed" : status === "in_progress" ? "running" : pick(OUTCOMES),
    }));
    return {
      name: `role-${i}`,
      goal: `Work item ${i} <with> "markup" & text`,
      model: "sonnet",
      status,
      attempts: tries,
      scope: { directories: [`src/area-${Math.floor(r() * folders)}/`], dependencies: deps },
      acceptanceCriteria: [{ criterion: `item ${i} works`, check: `npm test -- item-${i}` }],
      ...(tries ? { attemptLog } : {}),
    };
  });
  return { schemaVersion: 4, goal: `A plan of ${n} roles`, roles };
}
