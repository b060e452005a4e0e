// The shape of src/'s imports: no circle, no import that runs back up the layers
// cli → main → registry → commands → schemas/hooks → lib → store → base (the leaves: base/errors, base/owned,
// base/safe-read, base/crash-point), and inside lib/ only the arrows the folder table below allows, with nothing in
// lib/'s root but the leaves it names. Every import counts: static, type-only,
// re-exports, import() and require() (a type import of a higher layer is still a dependency on it). The source is
// scanned by a small lexer (comments, strings, templates and regex literals told apart), not by a regex over the
// raw text, so an import written inside a string or a comment is not one.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { importsOf } from "../helpers/ts-source.ts";

const SRC = resolve(__dirname, "../../src");

/**
 * Top to bottom: a module may import a module of its own layer or of any layer below it. Entries are paths under
 * src/, a folder ending in "/". Every file of src/ must fall in one layer.
 */
const LAYERS: readonly (readonly string[])[] = [
  ["cli.ts"],
  ["main.ts"],
  ["registry.ts"],
  ["commands/"],
  ["schemas/", "hooks/"],
  ["lib/"],
  ["store.ts", "store/"],
  // Leaves that import nothing of src/: HelperError and its codes, the table of what each command may write, the
  // bounded reader of planted files, the crash points (the store, lib/ and the hook all use them).
  ["base/"],
];

/**
 * Imports that run up the layers and are accepted as they are, [importer, imported]. The list can only shrink: an
 * entry that no longer matches an import fails the test too.
 */
const UPWARD_ALLOWED: readonly (readonly [string, string])[] = [];

/**
 * The folders of src/lib/ and the other lib/ folders each may import (below lib/, the store and base/ are open to
 * all, and so are the leaves of lib/'s root). The table is a graph without a circle, read top to bottom: a folder
 * names only folders listed after it. A new folder needs a row; a new arrow, a word here first.
 */
const LIB_FOLDERS: readonly (readonly [string, readonly string[]])[] = [
  ["lib/attempts/", ["lib/git/", "lib/run/", "lib/cost/", "lib/plan/", "lib/checks/"]],
  ["lib/git/", ["lib/grant/", "lib/plan/"]],
  ["lib/grant/", ["lib/run/", "lib/plan/", "lib/checks/", "lib/command/"]],
  ["lib/run/", ["lib/plan/"]],
  ["lib/cost/", ["lib/plan/"]],
  ["lib/report/", ["lib/plan/"]],
  ["lib/plan/", ["lib/checks/"]],
  ["lib/checks/", []],
  ["lib/command/", []],
  ["lib/skills/", []],
  ["lib/improve/", []],
  ["lib/recon/", []],
  ["lib/reflection/", []],
  ["lib/workspace/", []],
];

/** The only files of lib/'s root: small leaves every folder may use, importing nothing of src/ but each other. */
const LIB_ROOT_LEAVES = ["lib/ids.ts", "lib/sha256.ts", "lib/values.ts", "lib/vocabulary.ts"];

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) files.push(...sourceFiles(p));
    else if (e.name.endsWith(".ts")) files.push(p);
  }
  return files;
}

/** src/-relative posix path of a file. */
const rel = (file: string) => relative(SRC, file).split("\\").join("/");

/** The import graph of src/: file → the src/ files it imports (node: and package imports left out). */
function graph(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of sourceFiles(SRC).sort()) {
    const targets: string[] = [];
    for (const spec of importsOf(readFileSync(file, "utf8"))) {
      if (!spec.startsWith(".")) continue;
      const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
      assert.ok(existsSync(target), `${rel(file)} imports ${spec}, which is no file of src/`);
      targets.push(rel(target));
    }
    edges.set(rel(file), [...new Set(targets)]);
  }
  return edges;
}

function layerOf(path: string): number {
  // A file named on its own wins over the folder that holds it.
  const exact = LAYERS.findIndex((entries) => entries.includes(path));
  const i = exact >= 0 ? exact : LAYERS.findIndex((entries) => entries.some((e) => e.endsWith("/") && path.startsWith(e)));
  assert.ok(i >= 0, `src/${path} is in no layer of LAYERS (test/unit/imports.test.ts)`);
  return i;
}

/** Every circle of the graph, each as the files of one strongly connected component (Tarjan). */
function circles(edges: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  return found;
}

/** Imports that run up the layers, as "importer → imported". */
function upward(edges: Map<string, string[]>): string[] {
  const bad: string[] = [];
  for (const [from, targets] of edges) {
    for (const to of targets) if (layerOf(to) < layerOf(from)) bad.push(`${from} → ${to}`);
  }
  return bad;
}

describe("imports of src/", () => {
  it("form no circle", () => {
    assert.deepEqual(circles(graph()), []);
  });

  it("never run back up the layers, but for the listed exceptions", () => {
    const found = upward(graph());
    const allowed = UPWARD_ALLOWED.map(([a, b]) => `${a} → ${b}`);
    assert.deepEqual(found.filter((e) => !allowed.includes(e)), [], "imports that run up the layers");
    assert.deepEqual(allowed.filter((e) => !found.includes(e)), [], "UPWARD_ALLOWED entries that match no import any more: remove them");
  });

  it("inside lib/, run only along the folder table, and lib/'s root holds only its named leaves", () => {
    const folderOf = (p: string) => LIB_FOLDERS.find(([f]) => p.startsWith(f))?.[0];
    const bad: string[] = [];
    for (const [from, targets] of graph()) {
      if (!from.startsWith("lib/")) continue;
      if (!from.slice(4).includes("/")) {
        if (!LIB_ROOT_LEAVES.includes(from)) bad.push(`${from} is in lib/'s root: give it a folder`);
        for (const to of targets) if (!LIB_ROOT_LEAVES.includes(to)) bad.push(`${from} → ${to} (a root leaf imports only root leaves)`);
        continue;
      }
      const own = folderOf(from);
      if (!own) {
        bad.push(`${from} is in a folder LIB_FOLDERS does not list`);
        continue;
      }
      const may = LIB_FOLDERS.find(([f]) => f === own)![1];
      for (const to of targets) {
        if (!to.startsWith("lib/") || LIB_ROOT_LEAVES.includes(to)) continue;
        const theirs = folderOf(to);
        if (theirs !== own && !may.includes(theirs ?? to)) bad.push(`${from} → ${to}`);
      }
    }
    assert.deepEqual(bad, [], "imports inside lib/ that the folder table does not allow");
  });

  it("has a folder table without a circle, each folder naming only folders after it", () => {
    LIB_FOLDERS.forEach(([folder, may], i) => {
      for (const m of may) {
        const j = LIB_FOLDERS.findIndex(([f]) => f === m);
        assert.ok(j > i, `${folder} may import ${m}, which is not listed after it`);
      }
    });
    for (const e of readdirSync(join(SRC, "lib"), { withFileTypes: true })) {
      if (e.isDirectory()) assert.ok(LIB_FOLDERS.some(([f]) => f === `lib/${e.name}/`), `src/lib/${e.name}/ has no row in LIB_FOLDERS`);
    }
  });

  it("open each lib/ folder with a README.md whose **May import:** line names exactly the folders of its row", () => {
    for (const [folder, may] of LIB_FOLDERS) {
      const readme = join(SRC, folder, "README.md");
      assert.ok(existsSync(readme), `src/${folder} has no README.md saying what it owns and what it may import`);
      const line = readFileSync(readme, "utf8").match(/^\*\*May import:\*\*(.*)$/m);
      assert.ok(line, `src/${folder}README.md has no **May import:** line`);
      const named = [...line[1].matchAll(/`(lib\/[a-z-]+\/)`/g)].map((m) => m[1]).sort();
      assert.deepEqual(named, [...may].sort(), `src/${folder}README.md's **May import:** line against LIB_FOLDERS`);
    }
  });

  it("place every file of src/ in a layer", () => {
    for (const file of graph().keys()) layerOf(file);
  });

  it("are read from the code, not from comments, strings, templates or regex literals", () => {
    const source = [
      'import { a } from "./a.js";',
      "import type {",
      "  B,",
      "  C,",
      '} from "../b.js";',
      'export { d } from "./d.js";',
      'export * from "./e.js";',
      'import "./side.js";',
      'const lazy = () => import("./lazy.js");',
      'const req = require("./req.js") as typeof import("./typed.js");',
      '// import { no } from "./comment.js";',
      '/* require("./block.js") */',
      'const s = "import { no } from \'./string.js\'";',
      'const t = `import("./template.js") ${x ? import("./in-template.js") : "y"} done`;',
      'const r = /"|\'/g.test(q) ? a / b : c; const re2 = (/from "x"/);',
      'obj.import("./method.js"); other.require("./method2.js");',
      'export const after = "./not.js";',
    ].join("\n");
    assert.deepEqual(importsOf(source).sort(), ["../b.js", "./a.js", "./d.js", "./e.js", "./in-template.js", "./lazy.js", "./req.js", "./side.js", "./typed.js"]);
  });

  it("finds a circle and an upward import when there is one", () => {
    const edges = new Map([
      ["lib/a.ts", ["lib/b.ts"]],
      ["lib/b.ts", ["lib/a.ts", "store.ts"]],
      ["store.ts", ["commands/x.ts"]],
      ["commands/x.ts", []],
    ]);
    assert.deepEqual(circles(edges), [["lib/a.ts", "lib/b.ts"]]);
    assert.deepEqual(upward(edges), ["store.ts → commands/x.ts"]);
  });
});
