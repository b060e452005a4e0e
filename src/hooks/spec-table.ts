// The compact form of a helper command's argument spec that the permission hook checks calls against. Built from
// the commands' own defineCommand specs (scripts/build.mjs writes src/hooks/specs.ts with it; a unit test rebuilds
// it from the registry and fails when the committed table differs), so the hook never carries zod or command code.
import type { ArgSpec } from "../lib/command/args.js";

/** [type, required, choices]: "s" string, "i" integer, "b" boolean. */
export type HookFlag = readonly ["s" | "i" | "b", 0 | 1, ...string[]];

export interface HookSpec {
  /** Positional names in order, with 1 when required. */
  p: ReadonlyArray<readonly [string, 0 | 1]>;
  f: Readonly<Record<string, HookFlag>>;
  /** 1 when the command reads stdin. */
  s: 0 | 1;
  /** The positional that names a file read instead of stdin: given, the call has no stdin. */
  sf?: string;
}

export function hookSpec(def: ArgSpec & { stdin?: string }): HookSpec {
  const f: Record<string, HookFlag> = {};
  for (const [name, flag] of Object.entries(def.flags)) {
    const type = flag.type === "string" ? "s" : flag.type === "int" ? "i" : "b";
    f[name] = [type, flag.required ? 1 : 0, ...(flag.choices ?? [])];
  }
  const instead = def.stdin ? def.positionals.find((p) => p.insteadOfStdin) : undefined;
  return {
    p: def.positionals.map((p) => [p.name, p.default === undefined && !p.optional ? 1 : 0] as const),
    f,
    s: def.stdin ? 1 : 0,
    ...(instead ? { sf: instead.name } : {}),
  };
}
