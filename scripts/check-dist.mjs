// Fails when the committed dist/ bundles are not what a fresh build of src/ produces.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "do-check-dist-"));
try {
  execFileSync(process.execPath, ["scripts/build.mjs", dir], { stdio: "inherit" });
  const files = (d) => readdirSync(d, { recursive: true }).filter((f) => f.endsWith(".js") || f.endsWith(".json")).sort();
  const built = files(dir);
  const extra = files("dist").filter((f) => !built.includes(f));
  const stale = [...built, ...extra].filter((f) => {
    try {
      return !readFileSync(join("dist", f)).equals(readFileSync(join(dir, f)));
    } catch {
      return true;
    }
  });
  if (stale.length) {
    console.error(`dist/ is stale (${stale.join(", ")}): run \`npm run build\` and commit dist/`);
    process.exit(1);
  }
  console.log("dist/ is fresh");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
