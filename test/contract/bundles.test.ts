// Each library only on the paths that need it, in the built bundle: nanoid (run ids, src/lib/ids.ts) is bundled into
// the commands that make such ids and no other file, and only its customRandom over the kernel's random device, not
// its own nanoid(), which would load node:crypto's webcrypto for the bytes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PLAN_JS } from "../helpers/cli.ts";

const DIST = dirname(PLAN_JS);
/** nanoid's URL-safe alphabet, which every copy of it carries. */
const NANOID_ALPHABET = "useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict";
/** The bundles of the commands that call newId() (src/lib/ids.ts): add a command here when it starts to. */
const ID_MAKERS = ["commands/run/grant.js", "commands/run/begin.js", "commands/run/start.js"];

function bundles(): string[] {
  const commands = readdirSync(join(DIST, "commands"), { recursive: true }).map(String).filter((f) => f.endsWith(".js")).map((f) => join("commands", f));
  return ["plan.js", "permit.js", ...commands].sort();
}

describe("the bundles' libraries", () => {
  it("bundle nanoid into the commands that make ids only, without its webcrypto source", () => {
    const withNanoid = bundles().filter((f) => readFileSync(join(DIST, f), "utf8").includes(NANOID_ALPHABET));
    assert.deepEqual(withNanoid, [...ID_MAKERS].sort());
    for (const f of ID_MAKERS) assert.doesNotMatch(readFileSync(join(DIST, f), "utf8"), /webcrypto|getRandomValues/, f);
  });
});
