// Fails when the committed dist/plan.js is not what a fresh build of src/ produces.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "do-check-dist-"));
try {
  const fresh = join(dir, "plan.js");
  execFileSync(process.execPath, ["scripts/build.mjs", fresh], { stdio: "inherit" });
  const committed = readFileSync("dist/plan.js");
  if (!committed.equals(readFileSync(fresh))) {
    console.error("dist/plan.js is stale: run `npm run build` and commit dist/plan.js");
    process.exit(1);
  }
  console.log("dist/plan.js is fresh");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
