// The developer install, pinned by dev/package-lock.json.
//
// The lockfile lives in dev/, not at the repository root, because `claude plugin install` runs
// `npm ci --ignore-scripts` in every installed plugin whose root holds package.json and a lockfile: with the
// lockfile at the root, each user's install would pull this project's dev tooling (typescript, esbuild, tsx...) into
// their plugin cache. The plugin itself needs none of it (dist/ is committed). See CLAUDE.md.
//
//   node scripts/setup.mjs                   npm ci from dev/package-lock.json (what CI and the README run)
//   node scripts/setup.mjs install <spec>…   npm install <spec>…, then the new lockfile goes back to dev/
//
// Either way the lockfile is put at the root only for npm's run and removed afterwards (it is gitignored too).
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pinned = join(root, "dev", "package-lock.json");
const atRoot = join(root, "package-lock.json");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

const [mode = "ci", ...rest] = process.argv.slice(2);
if (mode !== "ci" && mode !== "install") {
  console.error("usage: node scripts/setup.mjs [install <package spec>…]");
  process.exit(2);
}
if (!existsSync(pinned)) {
  console.error(`${pinned} is missing: the developer install is pinned by it`);
  process.exit(1);
}

copyFileSync(pinned, atRoot);
let status = 1;
try {
  const args = mode === "ci" ? ["ci", "--no-audit", "--no-fund", ...rest] : ["install", "--no-audit", "--no-fund", ...rest];
  const r = spawnSync(npm, args, { cwd: root, stdio: "inherit" });
  status = r.status ?? 1;
  if (status === 0 && mode === "install") {
    copyFileSync(atRoot, pinned);
    console.log("dev/package-lock.json updated: commit it with package.json");
  }
} finally {
  rmSync(atRoot, { force: true });
}
process.exit(status);
