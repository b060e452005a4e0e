// The overlap rule (schedulerCore: scopeEntry, entriesOverlap, overlapWaits, decide) against a brute-force oracle
// on generated file trees and generated scopes. The oracle reads each scope its own way (node:path resolves it
// against the project, brace groups and [classes] are expanded as shells and globbers do, letters compared without
// case as macOS and Windows do) and lists the tree's files both scopes of a pair cover. Checked per pair:
//   - never a false "apart": when the oracle finds a shared file, or the grant's editCovers lets both entries edit
//     one (src/lib/grant/grant.ts, what a worker may actually edit), the rule says they overlap;
//   - never an overlap from nowhere: when the rule says overlap, its witness path is covered by both entries as
//     their canonical forms read with the grant's globMatch (an independent matcher);
//   - the index (overlapWaits) agrees with the pairwise rule, and `next` (decide) never runs two roles together
//     whose scopes the oracle finds sharing a file.
// Replay a failure with DO_PROPERTY_SEED=<seed> (printed on failure).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { posix } from "node:path";
import { editCovers, globMatch } from "../../src/lib/grant/grant.ts";
import { schedulerCore } from "../../src/lib/plan/scheduler.ts";

const core = schedulerCore();
const ROOT = "/work/proj";
const SEED = Number(process.env.DO_PROPERTY_SEED ?? 20260601);
const TREES = 400;
const SCOPES_PER_TREE = 14;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

// ---------------------------------------------------------------- generation

const DIRS = ["src", "api", "api-v2", "web", "lib", "test", "tests", "docs", "Docs", "a", "b", "app", "[id]", "node_modules", ".github"];
const FILES = ["x.ts", "y.ts", "index.ts", "a.test.ts", "README.md", "notes.md", "x.md", "api", "page.tsx", ".env", "b", "Makefile"];

function tree(r: () => number): string[] {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const files = new Set<string>();
  const n = 4 + Math.floor(r() * 20);
  for (let k = 0; k < n; k++) {
    const depth = Math.floor(r() * 4);
    const segs = Array.from({ length: depth }, () => pick(DIRS));
    segs.push(pick(FILES));
    files.add(segs.join("/"));
  }
  // A file may not also be a folder: drop files that another path runs through.
  const all = [...files];
  return all.filter((f) => !all.some((g) => g.startsWith(`${f}/`)));
}

interface Scope {
  raw: string;
  pattern: boolean;
}

/** A scope derived from the tree (so shared files are common) or a free form, with the rule's edge cases. */
function scope(r: () => number, files: string[]): Scope {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const pattern = r() < 0.5;
  const free = ["", ".", "./", "..", "/", "/etc", ROOT, `${ROOT}/`, "~/proj", "../proj/src", "**", "**/*", "*", "*.md", "**/*.md", "**/*.test.ts",
    "src/**", "src/api/**", "src/web/**", "*/api", "src/{api,web}", "src/{api,web}/*.ts", "app/[id]", "a/**/b", "**/x.?s", "src//api/", "src/./api", "src/x/../api"];
  if (r() < 0.2) return { raw: pick(free), pattern };
  const f = pick(files).split("/");
  let segs = f.slice(0, 1 + Math.floor(r() * f.length)); // the file or a folder above it
  const form = Math.floor(r() * 14);
  if (form === 1) segs[Math.floor(r() * segs.length)] = "*";
  else if (form === 2) segs[Math.floor(r() * segs.length)] = "**";
  else if (form === 3) segs = ["**", segs[segs.length - 1]];
  else if (form === 4) segs = [...segs, "**"];
  else if (form === 5) {
    const last = segs[segs.length - 1];
    const dot = last.lastIndexOf(".");
    segs[segs.length - 1] = dot > 0 ? `*${last.slice(dot)}` : `${last.slice(0, 1)}*`;
  } else if (form === 6) {
    const k = Math.floor(r() * segs.length);
    const s = segs[k];
    const at = Math.floor(r() * s.length);
    segs[k] = s.slice(0, at) + "?" + s.slice(at + 1);
  } else if (form === 7) segs = segs.map((s) => (r() < 0.5 ? s.toUpperCase() : s));
  else if (form === 8) segs[segs.length - 1] = `{${segs[segs.length - 1]},zz}`;
  else if (form === 9) segs = ["**", ...segs.slice(-1).map((s) => `*${s.slice(-2)}`)];
  let raw = segs.join("/");
  const dress = Math.floor(r() * 8);
  if (dress === 1) raw = `./${raw}`;
  else if (dress === 2) raw = `${raw}/`;
  else if (dress === 3) raw = `${ROOT}/${raw}`;
  else if (dress === 4) raw = `zz/../${raw}`;
  else if (dress === 5) raw = `${raw}//`;
  else if (dress === 6) raw = ` ${raw} `;
  return { raw, pattern };
}

// ---------------------------------------------------------------- the oracle

/** Brace alternatives expanded (innermost first), as bash and most globbers do. */
function expand(s: string): string[] {
  const m = /\{([^{}]*)\}/.exec(s);
  if (!m) return [s];
  return m[1].split(",").flatMap((alt) => expand(s.slice(0, m.index) + alt + s.slice(m.index + m[0].length)));
}

/** A glob as a regular expression: `**` spans folders, `*` and `?` do not, `[...]` is a class. */
function globRegex(g: string): RegExp {
  let re = "";
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === "*" && g[i + 1] === "*") {
      if (g[i + 2] === "/") {
        re += "(?:.*/)?";
        i += 2;
      } else {
        re += ".*";
        i += 1;
      }
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else if (c === "[" && g.indexOf("]", i) > i + 1) {
      const end = g.indexOf("]", i);
      re += `[${g.slice(i + 1, end).replace(/^!/, "^").replace(/[\\\]]/g, "\\$&")}]`;
      i = end;
    } else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/**
 * Which of `files` a scope entry can touch, read independently of the rule: resolved against the project with
 * node:path (".", "..", "//", absolute forms), outside the project → nothing here, "~" → nothing known; a
 * directory covers what its (expanded) glob matches and all below; a pattern what it matches; no case.
 */
function oracleCovers(s: Scope, files: string[]): Set<string> {
  const out = new Set<string>();
  const raw = s.raw.trim();
  if (raw.startsWith("~")) return out;
  for (const alt of expand(raw)) {
    const rel = posix.relative(ROOT, posix.resolve(ROOT, alt));
    if (rel.startsWith("..") || posix.isAbsolute(rel)) continue;
    const re = globRegex(rel.toLowerCase());
    for (const f of files) {
      const lf = f.toLowerCase();
      if (rel === "") {
        out.add(f);
        continue;
      }
      if (s.pattern ? re.test(lf) : prefixes(lf).some((p) => re.test(p))) out.add(f);
    }
  }
  return out;
}

/** The path and each folder above it. */
function prefixes(p: string): string[] {
  const out = [p];
  for (let i = p.indexOf("/"); i >= 0; i = p.indexOf("/", i + 1)) out.push(p.slice(0, i));
  return out;
}

/** Whether a canonical entry (scopeEntry's form) covers a path, read with the grant's globMatch. */
function canonicalCovers(e: string, path: string): boolean {
  if (e.endsWith("/")) {
    const g = e.slice(0, -1);
    return prefixes(path).some((p) => globMatch(g, p));
  }
  return globMatch(e, path);
}

// ---------------------------------------------------------------- the property

describe("overlap by meaning against a brute-force oracle", () => {
  it(`never says apart when a file is shared, never overlaps from nowhere (${TREES} trees, seed ${SEED})`, () => {
    const r = rng(SEED);
    const counts = { pairs: 0, shared: 0, grantShared: 0, ruleOverlap: 0, apart: 0, universal: 0, schedulerRounds: 0 };
    for (let t = 0; t < TREES; t++) {
      const files = tree(r);
      const scopes = Array.from({ length: SCOPES_PER_TREE }, () => scope(r, files));
      const forms = scopes.map((s) => core.scopeEntry(s.raw, s.pattern, ROOT));
      const covers = scopes.map((s) => oracleCovers(s, files));
      const ctx = (i: number, j: number) => `seed ${SEED}, tree ${t}: ${JSON.stringify({ files, a: scopes[i], b: scopes[j], forms: [forms[i], forms[j]] })}`;
      for (let i = 0; i < scopes.length; i++) {
        if (forms[i] === "**/") counts.universal++;
        for (let j = i + 1; j < scopes.length; j++) {
          counts.pairs++;
          const overlap = core.entriesOverlap(forms[i], forms[j]);
          assert.equal(core.entriesOverlap(forms[j], forms[i]), overlap, `symmetric: ${ctx(i, j)}`);
          const shared = [...covers[i]].find((f) => covers[j].has(f));
          if (shared !== undefined) {
            counts.shared++;
            assert.ok(overlap, `the oracle finds ${shared} in both, the rule says apart: ${ctx(i, j)}`);
          }
          const item = (s: Scope) => ({ value: s.raw, roles: [], kind: s.pattern ? ("pattern" as const) : ("directory" as const) });
          const granted = files.find((f) => editCovers(item(scopes[i]), f) && editCovers(item(scopes[j]), f));
          if (granted !== undefined) {
            counts.grantShared++;
            assert.ok(overlap, `the grant lets both edit ${granted}, the rule says apart: ${ctx(i, j)}`);
          }
          if (overlap) {
            counts.ruleOverlap++;
            const w = core.entriesWitness(forms[i], forms[j]);
            assert.notEqual(w, null, `overlap without a witness: ${ctx(i, j)}`);
            if (w !== "") {
              assert.ok(canonicalCovers(forms[i], w as string) && canonicalCovers(forms[j], w as string), `witness ${w} not covered by both: ${ctx(i, j)}`);
              assert.ok(!(w as string).split("/").includes(""), `witness ${w} has an empty segment`);
            }
          } else {
            counts.apart++;
            // Apart means apart on the canonical reading too: no tree file lies in both.
            const both = files.find((f) => canonicalCovers(forms[i], f.toLowerCase()) && canonicalCovers(forms[j], f.toLowerCase()));
            assert.equal(both, undefined, `apart, yet ${both} is in both: ${ctx(i, j)}`);
          }
        }
      }

      // Roles of one or two scopes each: the index must equal the pairwise rule, and `next` must never run two
      // roles together whose scopes the oracle finds sharing a file.
      const n = 2 + Math.floor(r() * 6);
      const roles = Array.from({ length: n }, (_, k) => {
        const mine = [Math.floor(r() * scopes.length), ...(r() < 0.4 ? [Math.floor(r() * scopes.length)] : [])];
        return {
          name: `r${k}`,
          model: "sonnet",
          scope: {
            directories: mine.filter((m) => !scopes[m].pattern).map((m) => scopes[m].raw),
            patterns: mine.filter((m) => scopes[m].pattern).map((m) => scopes[m].raw),
            dependencies: k > 0 && r() < 0.25 ? [`r${Math.floor(r() * k)}`] : [],
          },
          mine,
          status: "pending",
        };
      });
      const terr = roles.map((role) => core.territoryOf(role, ROOT));
      const deps = core.depsOf(roles);
      const waits = core.overlapWaits(terr, deps);
      const ordered = (a: number, b: number) => {
        const reach = (x: number, y: number): boolean => deps[x].some((d) => d === y || reach(d, y));
        return reach(a, b) || reach(b, a);
      };
      for (let a = 0; a < n; a++) {
        const want: number[] = [];
        for (let b = a + 1; b < n; b++) {
          if (ordered(a, b)) continue;
          if (terr[a].some((x) => terr[b].some((y) => core.entriesOverlap(x, y)))) want.push(b);
        }
        assert.deepEqual(waits[a], want, `index vs pairwise: seed ${SEED}, tree ${t}: ${JSON.stringify(terr)}`);
      }
      const shares = (a: number, b: number) => roles[a].mine.some((x) => roles[b].mine.some((y) => [...covers[x]].some((f) => covers[y].has(f))));
      for (let round = 0; round < n + 2; round++) {
        const d = core.decide(roles, ROOT);
        counts.schedulerRounds++;
        const active = [...d.start, ...d.running].map((s) => s.roleIndex);
        for (const a of active) for (const b of active) {
          if (a < b) assert.ok(!shares(a, b), `next runs ${a} and ${b} together, which share a file: seed ${SEED}, tree ${t}: ${JSON.stringify({ files, roles })}`);
        }
        for (const s of d.start) roles[s.roleIndex].status = "in_progress";
        const running = roles.flatMap((role, k) => (role.status === "in_progress" ? [k] : []));
        if (running.length === 0) break;
        roles[running[Math.floor(r() * running.length)]].status = "completed";
      }
    }
    // The run must exercise both verdicts and every source of sharing, or it proves little.
    console.log(`# overlap oracle: ${JSON.stringify(counts)}`);
    assert.ok(counts.pairs >= 30_000, `pairs ${counts.pairs}`);
    assert.ok(counts.shared > 3_000 && counts.apart > 3_000 && counts.grantShared > 100 && counts.universal > 100, JSON.stringify(counts));
  });
});
