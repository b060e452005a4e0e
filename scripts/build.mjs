// Bundle src/cli.ts into one self-contained dist/plan.js (an installed plugin has no node_modules).
import { build } from "esbuild";
import { chmodSync, writeFileSync } from "node:fs";

const outfile = process.argv[2] ?? "dist/plan.js";
await build({
  entryPoints: ["src/cli.ts"],
  outfile,
  bundle: true,
  platform: "node",
  target: "node18",
  format: "cjs",
  minify: true,
  legalComments: "none",
  banner: { js: "#!/usr/bin/env node" },
  logLevel: "warning",
});
chmodSync(outfile, 0o755);
if (!process.argv[2]) writeFileSync("dist/package.json", '{ "type": "commonjs" }\n');
