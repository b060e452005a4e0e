// Iteration counts of the process-level race tests: `npm test` runs the quick count, `npm run test:soak` (CI runs
// both) the soak count. Only loops whose iterations assert nothing of their own are shortened, so `npm test` keeps
// every assertion; the soak run repeats the same checks on many more races.
export const SOAK = process.env.DO_SOAK === "1";

export function soak(quick: number, full: number): number {
  return SOAK ? full : quick;
}
