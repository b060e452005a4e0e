// Runs every test/**/*.test.ts with node:test through tsx, and fails when there is none
// (on Node 20 `tsx --test` with no matching files exits 0).
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";

const only = process.argv.slice(2);
const roots = only.length ? only : ["test"];
const files = [];
for (const root of roots) {
  if (root.endsWith(".test.ts")) { files.push(root); continue; }
  // test/e2e drives the real Claude Code CLI: it runs only when asked for by name (npm run test:e2e).
  const e2e = root.split("/").includes("e2e");
  for (const f of readdirSync(root, { recursive: true })) {
    const p = `${root}/${f}`;
    if (p.endsWith(".test.ts") && (e2e || !p.includes("/e2e/"))) files.push(p);
  }
}
files.sort();
if (files.length === 0) {
  console.error("no test files found");
  process.exit(1);
}
const r = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=2", ...files], { stdio: "inherit" });
process.exit(r.status ?? 1);
