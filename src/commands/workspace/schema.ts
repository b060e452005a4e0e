// schema: the JSON Schema of plan.json, the JSONL entries, recon.json or an agent's report, generated from the
// zod schemas (src/schemas/catalog.ts) at build time, so an agent (or an editor) knows the exact shape before it
// writes the file, and the call loads no zod.
import { defineCommand } from "../../lib/command/command.js";
import { usage } from "../../base/errors.js";
import { JSON_SCHEMAS } from "../../schemas/json-schemas.js";

export const SCHEMA_NAMES = Object.keys(JSON_SCHEMAS);

export default defineCommand({
  positionals: [{ name: "name", help: `schema name (${SCHEMA_NAMES.join(", ")})`, optional: true }],
  flags: { list: { type: "boolean", help: "list the schema names" } },
  run(_ctx, args) {
    const name = args.name as string | undefined;
    if (name === undefined || args.list) return { names: SCHEMA_NAMES };
    if (!Object.prototype.hasOwnProperty.call(JSON_SCHEMAS, name)) {
      throw usage(`schema: unknown name '${name}' (choose from ${SCHEMA_NAMES.join(", ")})`, { names: SCHEMA_NAMES });
    }
    return { name, schema: JSON_SCHEMAS[name] };
  },
});
