// plan-health-summary: lifecycle context shown at every skill start (contract 4.14). Never fails because of
// missing or broken files; the directory need not exist.
import { join, resolve } from "node:path";
import { defineCommand } from "../../lib/command/command.js";
import { lifecycle } from "../../lib/plan/lifecycle.js";
import { readConfined, readJson, readJsonl, readText } from "../../store.js";

export default defineCommand({
  positionals: [{ name: "design_dir", help: "design directory", default: ".design", path: "read" }],
  flags: {},
  run(ctx, args) {
    const dir = resolve(ctx.cwd, args.design_dir as string);
    const at = (name: string) => join(dir, name);
    return {
      ...lifecycle(
        readConfined(ctx.cwd, at("handoff.md"), readText),
        readConfined(ctx.cwd, at("reflection.jsonl"), readJsonl),
        readConfined(ctx.cwd, at("plan.json"), readJson),
      ),
    };
  },
});
