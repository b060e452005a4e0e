// Bundle the helper (src/cli.ts → plan.js, plus one file per command under commands/) and the plugin's PreToolUse
// hook (src/hooks/permit-main.ts → permit.js) into self-contained files in dist/ (an installed plugin has no
// node_modules).
//
// Startup matters: the helper is started many times per skill run, and V8 pre-parses every function in the file
// before running a line. zod alone is ~450 KB of the bundle, used only by the few commands that validate with a
// schema. So zod is pre-bundled on its own and embedded deflated (base64: a short literal is cheap to scan, where
// even a plain 450 KB string literal costs ~15 ms), inflated and compiled on first use by a tiny shim that the
// lazily-loaded command modules import in its place.
import { build } from "esbuild";
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";

const outdir = process.argv[2] ?? "dist";
mkdirSync(outdir, { recursive: true });

const common = {
  bundle: true,
  platform: "node",
  target: "node18",
  format: "cjs",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
};

const zodSource = await build({
  ...common,
  stdin: { contents: 'module.exports = require("zod");', resolveDir: process.cwd(), loader: "js" },
  write: false,
});
const zodPacked = deflateRawSync(Buffer.from(zodSource.outputFiles[0].text, "utf8"), { level: 9 }).toString("base64");

const lazyZod = {
  name: "lazy-zod",
  setup(b) {
    b.onResolve({ filter: /^zod$/ }, () => ({ path: "zod", namespace: "lazy-zod" }));
    b.onLoad({ filter: /.*/, namespace: "lazy-zod" }, () => ({
      loader: "js",
      contents: [
        "const m = { exports: {} };",
        `const code = require("node:zlib").inflateRawSync(Buffer.from(${JSON.stringify(zodPacked)}, "base64")).toString("utf8");`,
        'new Function("module", "exports", "require", code)(m, m.exports, require);',
        "module.exports = m.exports;",
      ].join("\n"),
    }));
  },
};

// proper-lockfile (kept as the lock library) requires graceful-fs, which patches and clones node:fs on load. The
// helper uses only the synchronous API (lockSync), where graceful-fs adds nothing, so it gets node:fs itself.
const plainFs = {
  name: "plain-fs",
  setup(b) {
    b.onResolve({ filter: /^graceful-fs$/ }, () => ({ path: "node:fs", external: true }));
  },
};

// One file per command. V8 compiles the whole of a script before running it, so a single bundle made every call
// pay for every command (~25 ms of CPU on the 2-core machine, against ~2 ms for a command's own file). dist/plan.js
// holds the CLI, the registry and the argument parser; each registry entry's module is bundled on its own to
// dist/commands/<area>/<name>.js, the very path the registry's `import("./commands/...")` names, which stays an
// external require in every bundle. Command files throw their own copy of HelperError, so the CLI recognises it
// by name (lib/command.ts), not by class.
const registry = readFileSync("src/registry.ts", "utf8");
const commandModules = [...new Set([...registry.matchAll(/import\("(\.\/commands\/[^"]+)\.js"\)/g)].map((m) => m[1]))];
if (commandModules.length === 0) throw new Error("no command modules found in src/registry.ts");

const externalCommands = {
  name: "external-commands",
  setup(b) {
    b.onResolve({ filter: /^\.\/commands\// }, (args) =>
      args.importer.endsWith(join("src", "registry.ts")) ? { path: args.path, external: true } : undefined);
  },
};
// A command file that imports the registry (self-test: for the command names) never loads commands through it.
const noCommands = {
  name: "no-commands",
  setup(b) {
    b.onResolve({ filter: /^\.\/commands\// }, (args) =>
      args.importer.endsWith(join("src", "registry.ts")) ? { path: args.path, namespace: "no-commands" } : undefined);
    b.onLoad({ filter: /.*/, namespace: "no-commands" }, () => ({
      loader: "js",
      contents: 'throw new Error("commands are loaded by dist/plan.js only");',
    }));
  },
};

rmSync(join(outdir, "commands"), { recursive: true, force: true });
const outputs = [
  { entry: "src/cli.ts", file: "plan.js", plugins: [externalCommands, lazyZod, plainFs], banner: true },
  { entry: "src/hooks/permit-main.ts", file: "permit.js", plugins: [], banner: true },
  ...commandModules.map((m) => ({ entry: `src/${m.slice(2)}.ts`, file: `${m.slice(2)}.js`, plugins: [noCommands, lazyZod, plainFs], banner: false })),
];
for (const o of outputs) {
  const outfile = join(outdir, o.file);
  // `supported` turns the registry's import() of a command file into require(): a dynamic import() goes through
  // Node's ESM loader (resolution, a CommonJS translator, cjs-module-lexer), ~15 ms more per call.
  await build({
    ...common, entryPoints: [o.entry], outfile, supported: { "dynamic-import": false },
    ...(o.banner ? { banner: { js: "#!/usr/bin/env node" } } : {}), plugins: o.plugins,
  });
  if (o.banner) chmodSync(outfile, 0o755);
}
writeFileSync(join(outdir, "package.json"), '{ "type": "commonjs" }\n');
