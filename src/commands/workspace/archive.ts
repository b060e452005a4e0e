import { defineCommand } from "../../lib/command.js";
import { HelperError } from "../../lib/errors.js";

// PLACEHOLDER: replaced by the real implementation.
export default defineCommand({
  positionals: [],
  flags: {},
  run() {
    throw new HelperError("E_INTERNAL", "not implemented yet");
  },
});
