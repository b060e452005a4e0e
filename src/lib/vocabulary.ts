// Closed word lists the helper contract fixes, shared by the commands that check input by hand and the zod schemas
// that document the same files (src/schemas/). Plain constants only: importing this module does no work.

/** The skills a reflection can be about, in the order reflection-add's messages list them (contract 2.3). */
export const REFLECTION_SKILLS = ["design", "execute", "improve", "reflect", "recon"] as const;
export type ReflectionSkill = (typeof REFLECTION_SKILLS)[number];

/** How a run ended, as a reflection records it (contract 2.3). */
export const REFLECTION_OUTCOMES = ["completed", "partial", "failed", "aborted"] as const;
export type ReflectionOutcome = (typeof REFLECTION_OUTCOMES)[number];

/** The six memory categories, in the fixed order error messages list them (contract 2.2, Fix D10). */
export const MEMORY_CATEGORIES = ["pattern", "mistake", "convention", "approach", "failure", "procedure"] as const;
export type MemoryCategory = (typeof MEMORY_CATEGORIES)[number];
