// Bundle src/cli.ts into one self-contained dist/plan.js (an installed plugin has no node_modules).
//
// Startup matters: the helper is started many times per skill run, and V8 pre-parses every function in the file
// before running a line. zod alone is ~450 KB of the bundle, used only by the few commands that validate with a
// schema. So zod is pre-bundled on its own and embedded as a string literal (scanned, not parsed), compiled on
// first use by a tiny shim that the lazily-loaded command modules import in its place.
import { build } from "esbuild";
import { chmodSync, writeFileSync } from "node:fs";

const outfile = process.argv[2] ?? "dist/plan.js";

const zodSource = await build({
  stdin: { contents: 'module.exports = require("zod");', resolveDir: process.cwd(), loader: "js" },
  bundle: true,
  write: false,
  platform: "node",
  target: "node18",
  format: "cjs",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
});
const zodCode = zodSource.outputFiles[0].text;

const lazyZod = {
  name: "lazy-zod",
  setup(b) {
    b.onResolve({ filter: /^zod$/ }, () => ({ path: "zod", namespace: "lazy-zod" }));
    b.onLoad({ filter: /.*/, namespace: "lazy-zod" }, () => ({
      loader: "js",
      contents: [
        "const m = { exports: {} };",
        `new Function("module", "exports", "require", ${JSON.stringify(zodCode)})(m, m.exports, require);`,
        "module.exports = m.exports;",
      ].join("\n"),
    }));
  },
};

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
  plugins: [lazyZod],
  logLevel: "warning",
});
chmodSync(outfile, 0o755);
if (!process.argv[2]) writeFileSync("dist/package.json", '{ "type": "commonjs" }\n');
