// The pure plan-graph algorithms (contract 3.1-3.5) and the computational view of a plan (3.11 step 5).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ancestors, dependents, depths, hasCycle, overlapWaits, pathsOverlap, reverse, scopeEntry, territoriesOf, territoriesOverlap } from "../../src/lib/plan/graph.ts";
import { attemptsOf, depsOf, guardPlan, nameIndex, rolesOf, scopeOf, statusOf } from "../../src/lib/plan/plan.ts";

const sorted = (s: Set<number>) => [...s].sort((a, b) => a - b);

/** Roles with the given dependencies field (any JSON value), named by the keys. */
function rolesWith(spec: Record<string, unknown>): Array<Record<string, unknown>> {
  return Object.entries(spec).map(([name, dependencies]) => ({ name, scope: { dependencies } }));
}

describe("depths (3.2)", () => {
  it("gives roots depth 1 and every other role one more than its deepest dependency", () => {
    // a→[], b→[a], c→[a], d→[b,c]
    assert.deepEqual(depths([[], [0], [0], [1, 2]]), [1, 2, 2, 3]);
  });

  it("reproduces the contract's cyclic example a=1001, b=1000, c=1002", () => {
    // a↔b, c→a
    assert.deepEqual(depths([[1], [0], [0]]), [1001, 1000, 1002]);
  });

  it("computes the same values from a plan's role names", () => {
    const roles = rolesWith({ a: ["b"], b: ["a"], c: ["a"] });
    assert.deepEqual(depths(depsOf(roles)), [1001, 1000, 1002]);
  });

  it("gives a self-dependent role the cycle sentinel plus one", () => {
    assert.deepEqual(depths([[0], []]), [1000, 1]);
  });

  it("returns an empty list for no roles", () => {
    assert.deepEqual(depths([]), []);
  });

  it("takes the maximum over dependencies listed in any order", () => {
    // d depends on a (depth 1) then c (depth 3)
    assert.deepEqual(depths([[], [0], [1], [0, 2]]), [1, 2, 3, 4]);
  });
});

describe("closures (3.3)", () => {
  it("ancestors follow dependencies transitively and leave out the role itself", () => {
    const deps = [[], [0], [1], [2, 0]];
    assert.deepEqual(sorted(ancestors(deps, 3)), [0, 1, 2]);
    assert.deepEqual(sorted(ancestors(deps, 0)), []);
  });

  it("ancestors contain the role itself only when it lies on a cycle", () => {
    assert.deepEqual(sorted(ancestors([[1], [0], [0]], 0)), [0, 1]);
    assert.deepEqual(sorted(ancestors([[1], [0], [0]], 2)), [0, 1]);
    assert.deepEqual(sorted(ancestors([[0]], 0)), [0]);
  });

  it("dependents collect every transitive dependent and exclude the start set", () => {
    const deps = [[], [0], [1], [], [3]];
    assert.deepEqual(sorted(dependents(deps, [0])), [1, 2]);
    assert.deepEqual(sorted(dependents(deps, [0, 1])), [2]);
    assert.deepEqual(sorted(dependents(deps, [0, 3])), [1, 2, 4]);
    assert.deepEqual(sorted(dependents(deps, [])), []);
  });

  it("dependents exclude start members even when a cycle leads back to them", () => {
    assert.deepEqual(sorted(dependents([[1], [0], [0]], [0])), [1, 2]);
  });

  it("reverse lists who depends on each role, duplicates kept", () => {
    assert.deepEqual(reverse([[], [0, 0], [0, 1]]), [[1, 1, 2], [2], []]);
  });
});

describe("cycle detection (3.5)", () => {
  it("finds no cycle in a diamond", () => {
    assert.equal(hasCycle([[], [0], [0], [1, 2]]), false);
  });

  it("finds a two-role cycle", () => {
    assert.equal(hasCycle([[1], [0]]), true);
  });

  it("finds a longer cycle reached from an acyclic prefix", () => {
    assert.equal(hasCycle([[], [0, 3], [1], [2]]), true);
  });

  it("counts a role depending on itself as a cycle", () => {
    assert.equal(hasCycle([[], [1]]), true);
    assert.equal(hasCycle(depsOf(rolesWith({ a: [], b: ["b"] }))), true);
  });

  it("cannot be fooled by unknown dependency names, which were dropped", () => {
    assert.equal(hasCycle(depsOf(rolesWith({ a: ["ghost"], b: ["a", "ghost"] }))), false);
  });

  it("finds no cycle without roles", () => {
    assert.equal(hasCycle([]), false);
  });
});

describe("scope overlap by meaning (3.4)", () => {
  // [a, b, overlap]: "d:" marks a directory, "p:" a pattern; the root of the project is /home/u/proj.
  const ROOT = "/home/u/proj";
  const entry = (s: string) => scopeEntry(s.slice(2), s.startsWith("p:"), ROOT);
  const cases: Array<[string, string, boolean]> = [
    ["d:src/api/", "d:src/api/", true],
    ["d:src", "d:src/api/", true], // a directory holds its subdirectories
    ["d:src/a", "d:src/ab", false], // per path segment
    ["d:src/api", "d:src/api-v2", false],
    ["d:.", "d:src/api", true], // the project itself
    ["d:./", "d:src/api", true],
    ["d:", "d:lib", true], // an empty entry is the project too
    ["d:./src/api", "d:src/api/v1", true],
    ["d:src//api/", "d:src/api", true],
    ["d:src/./api", "d:src/api", true],
    ["d:src/x/../api", "d:src/api/v1", true],
    ["d:/home/u/proj/src/api", "d:src/api/v1", true], // absolute inside the project
    ["d:/home/u/proj/src/api", "d:lib", false],
    ["d:/home/u/proj", "d:lib", true],
    ["d:/etc", "d:lib", true], // outside the project: unsure, so an overlap
    ["d:../proj/src", "d:lib", true], // above the project: unsure
    ["d:~/proj/src", "d:lib", true],
    ["d:SRC/Api", "d:src/api/v1", true], // case-insensitive file systems
    ["p:src/*.ts", "d:src/", true],
    ["p:src/*.ts", "p:src/x/y.ts", false], // "*" stays within one segment
    ["p:src/**/*.ts", "d:src/api/**", true],
    ["p:src/**/*.ts", "p:src/api/**", true],
    ["p:**/*.test.ts", "d:src/api", true], // nothing before the first "*": still decided by meaning
    ["p:**/*.md", "d:docs/", true],
    ["p:**/*.md", "p:src/**", true],
    ["p:**/*.md", "p:**/*.ts", false], // no file ends in both
    ["p:*.md", "d:src/x.ts", false], // "*.md" is at the top level only
    ["p:*.md", "p:README.md", true],
    ["p:src/api/**", "p:src/web/**", false],
    ["p:src/ap*", "d:src/api/x", false], // the pattern matches src/api, a file, not what is under it
    ["d:src/ap*", "d:src/api/x", true], // a directory entry with a wildcard holds what is under its matches
    ["p:src/ap**", "d:src/api/x", true],
    ["p:src/x?.ts", "p:src/xy.ts", true],
    ["p:src/x?.ts", "p:src/x/.ts", false], // "?" is never "/"
    ["p:a/**/b", "p:a/b", true], // "**/" may be nothing
    ["p:src/{api,web}/*.ts", "d:src/api", true], // brace groups: read as "**", which covers them
    ["p:app/[slug]/page.tsx", "p:app/x/page.tsx", true],
    ["p:lib/**", "p:src/**", false],
    ["p:src/x.ts", "d:src", true], // a pattern without a wildcard: read as a directory too
  ];
  for (const [a, b, want] of cases) {
    it(`${want ? "overlaps" : "does not overlap"}: ${a} vs ${b}`, () => {
      const [x, y] = [entry(a), entry(b)];
      assert.equal(territoriesOverlap([x], [y]), want);
      assert.equal(territoriesOverlap([y], [x]), want);
    });
  }

  it("reads a directory's absolute path as unsure without the project's root", () => {
    assert.equal(pathsOverlap("/home/u/proj/src", "lib"), true);
    assert.equal(pathsOverlap("/home/u/proj/src", "lib", ROOT), false);
  });

  it("matches two territories when any pair overlaps", () => {
    const t = (...xs: string[]) => xs.map((x) => scopeEntry(x, false));
    assert.equal(territoriesOverlap(t("docs/", "src/api"), t("lib", "src/api/v1/")), true);
    assert.equal(territoriesOverlap(t("docs/"), t("lib/")), false);
    assert.equal(territoriesOverlap([], t("lib/")), false);
  });

  it("records only the later role, and only when no dependency path orders the pair", () => {
    const territories = [["src/"], ["src/api/"], ["src/db/"], ["docs/"], ["docs/x.md/"]];
    // 2 depends on 0 (ordered), 4 depends on 1 which does not reach 3
    const deps = [[], [], [0], [], [1]];
    assert.deepEqual(overlapWaits(territories, deps), [[1], [], [], [4], []]);
  });

  it("treats a transitive dependency path as ordering the pair", () => {
    // c→b→a, a and c share territory: no overlap entry
    assert.deepEqual(overlapWaits([["src/"], ["docs/"], ["src/"]], [[], [0], [1]]), [[], [], []]);
  });
});

describe("plan computational view (3.1, 3.11)", () => {
  it("maps dependency names to indices in list order with duplicates kept", () => {
    const roles = rolesWith({ a: [], b: [], c: ["b", "a", "b"] });
    assert.deepEqual(depsOf(roles), [[], [], [1, 0, 1]]);
  });

  it("drops unknown dependency names", () => {
    assert.deepEqual(depsOf(rolesWith({ a: [], b: ["ghost", "a"] })), [[], [0]]);
  });

  it("lets a later role with a duplicate name win the index", () => {
    const roles = [{ name: "x" }, { name: "x" }, { name: "c", scope: { dependencies: ["x"] } }];
    assert.deepEqual(nameIndex(roles).get("x"), 1);
    assert.deepEqual(depsOf(roles), [[], [], [1]]);
  });

  it("indexes a role without name under the empty name", () => {
    const roles = [{ goal: "anonymous" }, { name: "b", scope: { dependencies: [""] } }];
    assert.deepEqual(depsOf(roles), [[], [0]]);
  });

  it("does not iterate a string of dependencies character by character [Fix D26]", () => {
    const roles = rolesWith({ a: [], b: [], c: "ab" });
    assert.deepEqual(depsOf(roles), [[], [], []]);
  });

  it("drops dependency entries that are not strings", () => {
    const roles = rolesWith({ a: [], b: [0, null, ["a"], { a: 1 }, "a"] });
    assert.deepEqual(depsOf(roles), [[], [0]]);
  });

  it("gives no dependencies when scope is not an object or dependencies not an array", () => {
    const roles = [{ name: "a" }, { name: "b", scope: null }, { name: "c", scope: ["a"] }, { name: "d", scope: { dependencies: { a: 1 } } }];
    assert.deepEqual(depsOf(roles), [[], [], [], []]);
    assert.deepEqual(scopeOf({ scope: null }), {});
    assert.deepEqual(scopeOf({ scope: "src/" }), {});
  });

  it("builds a territory from directories and patterns, strings only, each canonical form once", () => {
    const role = { scope: { directories: ["src/", "./src", 3, null], patterns: ["src/", "**/*.ts"] } };
    assert.deepEqual(territoriesOf([role, { scope: { directories: "src/", patterns: null } }, { scope: null }]), [["src/", "**/*.ts"], [], []]);
  });

  it("reads a missing or null status as pending [Fix D27]", () => {
    assert.equal(statusOf({}), "pending");
    assert.equal(statusOf({ status: null }), "pending");
    assert.equal(statusOf({ status: "failed" }), "failed");
  });

  it("reads attempts that are not a non-negative integer as 0 [Fix D7]", () => {
    assert.equal(attemptsOf({ attempts: 2 }), 2);
    for (const attempts of [null, undefined, -1, 1.5, "2", true, [1], { n: 1 }]) {
      assert.equal(attemptsOf({ attempts }), 0, `attempts ${JSON.stringify(attempts)}`);
    }
  });

  it("reads missing roles as none", () => {
    assert.deepEqual(rolesOf(guardPlan({ schemaVersion: 4 })), []);
  });

  it("rejects structurally wrong plans with the contract's messages [Fix D7]", () => {
    assert.throws(() => guardPlan([1, 2]), { message: "Invalid plan structure: top-level value must be an object" });
    assert.throws(() => guardPlan("x"), { message: "Invalid plan structure: top-level value must be an object" });
    assert.throws(() => guardPlan({ roles: "ab" }), { message: "Invalid plan structure: 'roles' must be an array" });
    assert.throws(() => guardPlan({ roles: [{}, 3] }), { message: "Invalid plan structure: roles[1] must be an object" });
  });
});

describe("graph walks of any depth", () => {
  /** The recursive definitions the iterative walks replace (contract 3.2). */
  function depthsByRecursion(deps: number[][]): number[] {
    const memo = new Map<number, number>();
    const depthOf = (i: number, onPath: Set<number>): number => {
      const known = memo.get(i);
      if (known !== undefined) return known;
      if (onPath.has(i)) return 999;
      if (deps[i].length === 0) return memo.set(i, 1), 1;
      const next = new Set(onPath).add(i);
      let best = -Infinity;
      for (const d of deps[i]) best = Math.max(best, depthOf(d, next));
      memo.set(i, best + 1);
      return best + 1;
    };
    for (let i = 0; i < deps.length; i++) if (!memo.has(i)) depthOf(i, new Set());
    return deps.map((_, i) => memo.get(i) as number);
  }

  it("gives the recursive definition's depths and cycle verdict on 3,000 random graphs, cycles included", () => {
    let seed = 5;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    let cyclic = 0;
    for (let k = 0; k < 3000; k++) {
      const n = 1 + Math.floor(rand() * 9);
      const deps = Array.from({ length: n }, () => Array.from({ length: n }, (_, j) => j).filter(() => rand() < 0.2));
      assert.deepEqual(depths(deps), depthsByRecursion(deps), JSON.stringify(deps));
      const cycle = deps.some((_, i) => ancestors(deps, i).has(i));
      assert.equal(hasCycle(deps), cycle, JSON.stringify(deps));
      if (cycle) cyclic++;
    }
    assert.ok(cyclic > 500 && cyclic < 2500, `cyclic ${cyclic}`);
  });

  it("walks a 200,000-role chain", () => {
    const deps = Array.from({ length: 200_000 }, (_, i) => (i ? [i - 1] : []));
    const d = depths(deps);
    assert.equal(d[199_999], 200_000);
    assert.equal(hasCycle(deps), false);
    deps[0] = [199_999];
    assert.equal(hasCycle(deps), true);
  });
});
