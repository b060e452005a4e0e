// Command-line parsing per contract 1.1: flags anywhere, --flag=value, boolean flags, strict integers,
// every mistake an E_USAGE error that names the command and the argument.
import { usage } from "../../base/errors.js";

export type FlagType = "string" | "boolean" | "int";

export interface FlagSpec {
  type: FlagType;
  help: string;
  required?: boolean;
  choices?: readonly string[];
  default?: string | number | boolean;
  /** A path: confined before the command runs (store.ts `confineArgs`). */
  path?: "read" | "write";
  /** With `path`: a comma-separated list, every entry confined. */
  list?: boolean;
}

export interface PositionalSpec {
  name: string;
  help: string;
  /** Absent and no default: the positional is required. */
  default?: string;
  optional?: boolean;
  /** A path: confined before the command runs (store.ts `confineArgs`). */
  path?: "read" | "write";
  /** A file read instead of the command's stdin: given, stdin is not read (the hook then approves no stdin). */
  insteadOfStdin?: boolean;
}

export interface ArgSpec {
  positionals: readonly PositionalSpec[];
  flags: Readonly<Record<string, FlagSpec>>;
}

export type ArgValue = string | number | boolean | undefined;
export type Args = Record<string, ArgValue>;

const INT = /^\s*[+-]?\d+\s*$/;

/** True when --help / -h appears as an argument of its own (not as another flag's value). */
export function wantsHelp(argv: readonly string[], spec: ArgSpec | undefined): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--help" || a === "-h") return true;
    if (a === "--") return false;
    if (spec && a.startsWith("--") && !a.includes("=")) {
      const f = spec.flags[a.slice(2)];
      if (f && f.type !== "boolean") i++;
    }
  }
  return false;
}

export function parseArgs(command: string, argv: readonly string[], spec: ArgSpec): Args {
  const out: Args = {};
  const positionals: string[] = [];
  let onlyPositionals = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (onlyPositionals || a === "-" || !a.startsWith("-") || /^-\d/.test(a)) {
      positionals.push(a);
      continue;
    }
    if (a === "--") {
      onlyPositionals = true;
      continue;
    }
    if (!a.startsWith("--")) throw usage(`${command}: unknown flag ${a}`);
    const eq = a.indexOf("=");
    const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
    const flag = spec.flags[name];
    if (!flag) {
      const known = Object.keys(spec.flags).map((f) => `--${f}`);
      throw usage(`${command}: unknown flag --${name}`, { hint: known.length ? `known flags: ${known.join(", ")}` : "this command takes no flags" });
    }
    if (flag.type === "boolean") {
      if (eq >= 0) throw usage(`${command}: flag --${name} takes no value`);
      out[name] = true;
      continue;
    }
    let value: string;
    if (eq >= 0) value = a.slice(eq + 1);
    else {
      if (i + 1 >= argv.length) throw usage(`${command}: flag --${name} needs a value`);
      value = argv[++i];
    }
    if (flag.type === "int") {
      if (!INT.test(value)) throw usage(`${command}: argument --${name}: invalid integer value: '${value}'`);
      out[name] = Number.parseInt(value.trim(), 10);
    } else {
      if (flag.choices && !flag.choices.includes(value)) {
        throw usage(`${command}: argument --${name}: invalid choice: '${value}' (choose from ${flag.choices.join(", ")})`);
      }
      out[name] = value;
    }
  }
  for (const [name, flag] of Object.entries(spec.flags)) {
    if (out[name] === undefined) {
      if (flag.required) throw usage(`${command}: missing required flag --${name}`);
      if (flag.default !== undefined) out[name] = flag.default;
      else if (flag.type === "boolean") out[name] = false;
    }
  }
  if (positionals.length > spec.positionals.length) {
    throw usage(`${command}: unexpected argument '${positionals[spec.positionals.length]}'`);
  }
  spec.positionals.forEach((p, i) => {
    if (i < positionals.length) out[p.name] = positionals[i];
    else if (p.default !== undefined) out[p.name] = p.default;
    else if (!p.optional) throw usage(`${command}: missing required argument ${p.name}`);
  });
  return out;
}

/** The `arguments` list printed by --help. */
export function describeArgs(spec: ArgSpec): Array<Record<string, unknown>> {
  const list: Array<Record<string, unknown>> = spec.positionals.map((p) => ({
    name: p.name,
    kind: "positional",
    required: p.default === undefined && !p.optional,
    ...(p.default !== undefined ? { default: p.default } : {}),
    ...(p.path ? { path: p.path } : {}),
    help: p.help,
  }));
  for (const [name, f] of Object.entries(spec.flags)) {
    list.push({
      name: `--${name}`,
      kind: "flag",
      type: f.type,
      required: !!f.required,
      ...(f.default !== undefined ? { default: f.default } : {}),
      ...(f.choices ? { choices: [...f.choices] } : {}),
      ...(f.path ? { path: f.path, ...(f.list ? { list: true } : {}) } : {}),
      help: f.help,
    });
  }
  return list;
}

export function synopsis(command: string, spec: ArgSpec, stdin?: string): string {
  const parts = [command];
  for (const p of spec.positionals) parts.push(p.default !== undefined || p.optional ? `[${p.name}]` : `<${p.name}>`);
  for (const [name, f] of Object.entries(spec.flags)) {
    const v = f.type === "boolean" ? `--${name}` : `--${name} ${f.choices ? f.choices.join("|") : name.toUpperCase().replace(/-/g, "_")}`;
    parts.push(f.required ? v : `[${v}]`);
  }
  if (!stdin) return parts.join(" ");
  return spec.positionals.some((p) => p.insteadOfStdin) ? `${parts.join(" ")} (or < ${stdin})` : `${parts.join(" ")} < ${stdin}`;
}
