// What the built dist/ holds (scripts/build.mjs). Each library only on the paths that need it: nanoid (run ids,
// src/lib/ids.ts) reaches the commands that make such ids and no other, and only its customRandom over the kernel's
// random device, not its own nanoid(), which would load node:crypto's webcrypto for the bytes. The code several
// commands include lives once, in dist/chunks/ (issue 33: an install of at most 3 MB): each chunk is loaded by the
// commands that use it and its code is in none of their bundles, the hot calls and the hook load no chunk, and the
// whole of dist/ stays under a size that keeps the installed copy under 3 MB.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { PLAN_JS } from "../helpers/cli.ts";
import { registry } from "../../src/registry.ts";

const DIST = dirname(PLAN_JS);
/** nanoid's URL-safe alphabet, which every copy of it carries. */
const NANOID_ALPHABET = "useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict";
/** The bundles of the commands that call newId() (src/lib/ids.ts): add a command here when it starts to. */
const ID_MAKERS = ["commands/run/grant.js", "commands/run/begin.js", "commands/run/start.js"];
/**
 * dist/ in bytes, at most: with what else an install ships (skills, commands, hooks, the manifests, README and
 * CHANGELOG: ~0.4 MB, .gitattributes export-ignores the rest) the installed copy stays under test/e2e/install.test.ts's
 * 3,000,000 bytes. 2.17 MB at the first chunked build (2.93 MB before, every command with its own copy).
 */
const MAX_DIST_BYTES = 2_400_000;
/** The calls `npm run bench cheap` times (HOT_CALLS in scripts/build.mjs): their bundles stay self-contained. */
const HOT_CALLS = ["status", "update-status", "finalize", "memory-add", "run-checkpoint", "preflight", "run-start"];
/** Files that load no chunk: the CLI, the hook's, and the hot calls' bundles (found through the registry's loaders). */
const SELF_CONTAINED = [
  "plan.js", "permit.js", "permit-verify.js", "permit-sandbox.js", "zod.js",
  ...HOT_CALLS.map((name) => {
    const file = /\.\/(commands\/[^"'`]+\.js)/.exec(registry[name].load.toString())?.[1];
    assert.ok(file, `no bundle path in the registry's loader of ${name}`);
    return file;
  }),
];

const jsUnder = (dir: string): string[] =>
  readdirSync(join(DIST, dir), { recursive: true }).map(String).filter((f) => f.endsWith(".js")).map((f) => join(dir, f)).sort();
const text = (f: string) => readFileSync(join(DIST, f), "utf8");

function bundles(): string[] {
  return ["plan.js", "permit.js", ...jsUnder("commands")].sort();
}

/** The chunks a dist/ file names (the stubs' paths, relative to the file), as paths under dist/. */
function chunksNamedBy(file: string): string[] {
  const named = [...text(file).matchAll(/"((?:\.\.?\/)+chunks\/[\w.-]+\.js)"/g)].map((m) => relative(DIST, resolve(DIST, dirname(file), m[1])));
  return [...new Set(named)].sort();
}

/** Every file a command's bundle can load: the bundle, the chunks it names, and theirs. */
function reach(file: string): string[] {
  const seen = new Set([file]);
  for (const f of seen) for (const c of chunksNamedBy(f)) seen.add(c);
  return [...seen].sort();
}

/** String literals of 40 characters or more, a chunk's own code's fingerprint (minifying keeps them). */
function longLiterals(source: string): string[] {
  return [...new Set([...source.matchAll(/"((?:[^"\\\n]|\\.){40,})"/g)].map((m) => m[1]))].filter((s) => !/^(\.\.?\/)+/.test(s));
}

describe("the bundles' libraries", () => {
  it("bundle nanoid into the commands that make ids only, without its webcrypto source", () => {
    const withNanoid = jsUnder("commands").filter((f) => reach(f).some((r) => text(r).includes(NANOID_ALPHABET)));
    assert.deepEqual(withNanoid, [...ID_MAKERS].sort());
    for (const f of ["plan.js", "permit.js"]) assert.ok(!text(f).includes(NANOID_ALPHABET), f);
    for (const f of ID_MAKERS) for (const r of reach(f)) assert.doesNotMatch(text(r), /webcrypto|getRandomValues/, r);
  });
});

describe("dist/ in shared chunks", () => {
  it("stays under its size guard", (t) => {
    const files = readdirSync(DIST, { recursive: true }).map(String).filter((f) => statSync(join(DIST, f)).isFile());
    const bytes = files.reduce((n, f) => n + statSync(join(DIST, f)).size, 0);
    t.diagnostic(`dist/: ${files.length} files, ${bytes} bytes (guard ${MAX_DIST_BYTES})`);
    assert.ok(bytes <= MAX_DIST_BYTES, `dist/ holds ${bytes} bytes (limit ${MAX_DIST_BYTES})`);
  });

  it("each chunk is named by two or more commands, names only chunks that exist, and its code is in none of their bundles", () => {
    const chunks = jsUnder("chunks");
    assert.ok(chunks.length > 0, "no dist/chunks/");
    const loaders = new Map(chunks.map((c) => [c, [] as string[]]));
    for (const f of [...jsUnder("commands"), ...chunks]) {
      for (const c of chunksNamedBy(f)) {
        assert.ok(loaders.has(c), `${f} names ${c}, which dist/chunks/ does not hold`);
        if (f.startsWith("commands/")) loaders.get(c)!.push(f);
      }
    }
    const commands = jsUnder("commands");
    for (const c of chunks) {
      const users = commands.filter((f) => reach(f).includes(c));
      assert.ok(users.length >= 2, `${c} is loaded by ${users.length} command(s): ${users.join(", ")}`);
      const own = longLiterals(text(c));
      for (const f of users) {
        const copied = own.filter((s) => text(f).includes(`"${s}"`));
        assert.deepEqual(copied, [], `${f} carries its own copy of code in ${c}`);
      }
    }
  });

  it("the CLI, the hook and the hot calls (npm run bench cheap) load no chunk", () => {
    for (const f of SELF_CONTAINED) assert.deepEqual(chunksNamedBy(f), [], `${f} names a chunk`);
    // And at run time: a status call reads no file under dist/chunks/.
    const { seen, r } = chunkReads([PLAN_JS, "status"]);
    assert.equal(typeof JSON.parse(r.stdout).ok, "boolean", r.stdout + r.stderr);
    assert.deepEqual(seen, []);
  });

  it("a sharing command loads each chunk once, from dist/chunks/, and answers", () => {
    // plan-view in a folder with no plan: it loads its chunks and answers that there is none.
    const { seen, r } = chunkReads([PLAN_JS, "plan-view"]);
    const out = JSON.parse(r.stdout);
    assert.equal(out.state, "none", r.stdout + r.stderr);
    assert.ok(seen.length > 0, "plan-view loaded no chunk");
    assert.equal(new Set(seen).size, seen.length, `a chunk was read twice: ${seen.join(", ")}`);
    const expected = new Set(reach("commands/plan/plan-view.js").filter((f) => f.startsWith("chunks/")).map((f) => join(DIST, f)));
    for (const p of seen) assert.ok(expected.has(p), `${p} is not named by plan-view`);
  });

  it("a sharing command answers where Node may not compile code from strings (the loader falls back to require)", () => {
    const r = spawnSync(process.execPath, ["--disallow-code-generation-from-strings", PLAN_JS, "plan-view"], { encoding: "utf8", cwd: tmpdir() });
    assert.equal(JSON.parse(r.stdout).state, "none", r.stdout + r.stderr);
  });
});

/** Runs node with `args` in an empty folder, recording each file under dist/chunks/ it reads. */
function chunkReads(args: string[]) {
  const dir = mkdtempSync(join(tmpdir(), "do-chunks-"));
  try {
    const preload = join(dir, "record.cjs");
    writeFileSync(preload, [
      'const fs = require("node:fs");',
      "const read = fs.readFileSync;",
      "const seen = [];",
      `fs.readFileSync = function (p, ...rest) { if (String(p).startsWith(${JSON.stringify(join(DIST, "chunks"))})) seen.push(String(p)); return read.call(this, p, ...rest); };`,
      'process.on("exit", () => fs.writeSync(2, "\\nCHUNKS " + JSON.stringify(seen) + "\\n"));',
      "",
    ].join("\n"));
    const r = spawnSync(process.execPath, ["-r", preload, ...args], { encoding: "utf8", cwd: dir });
    const seen: string[] = JSON.parse(/CHUNKS (.*)/.exec(r.stderr)?.[1] ?? "null");
    return { seen, r };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
