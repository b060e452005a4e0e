// The report's graph layout: no two boxes overlap, every edge starts and ends on the borders of its two boxes,
// everything lies inside the drawing, from 1 to 300 roles.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { depsOf } from "../../src/lib/plan/plan.ts";
import { overlapWaits, territoriesOf } from "../../src/lib/plan/graph.ts";
import { borderPoint, layoutGraph, MAX_COLUMNS, type Box, type Point } from "../../src/lib/report/layout.ts";
import { reportPlan } from "../helpers/report-plans.ts";

const onBorder = (b: Box, p: Point) => {
  const inX = p.x >= b.x - 0.5 && p.x <= b.x + b.w + 0.5;
  const inY = p.y >= b.y - 0.5 && p.y <= b.y + b.h + 0.5;
  const edge = Math.abs(p.x - b.x) < 0.5 || Math.abs(p.x - b.x - b.w) < 0.5 || Math.abs(p.y - b.y) < 0.5 || Math.abs(p.y - b.y - b.h) < 0.5;
  return inX && inY && edge;
};
const apart = (a: Box, b: Box) => a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;

function layoutOf(n: number, seed: number) {
  const plan = reportPlan(n, seed);
  const deps = depsOf(plan.roles);
  const pairs: Array<[number, number]> = [];
  overlapWaits(territoriesOf(plan.roles), deps).forEach((js, i) => js.forEach((j) => pairs.push([i, j])));
  return { plan, deps, pairs, layout: layoutGraph(n, deps, pairs) };
}

describe("report layout", () => {
  for (const n of [1, 2, 3, 8, 40, 120, 300]) {
    it(`places ${n} roles without overlap and attaches every edge to its boxes`, () => {
      for (const seed of [1, 2, 3]) {
        const { deps, pairs, layout } = layoutOf(n, seed * 1000 + n);
        assert.equal(layout.boxes.length, n);
        for (let i = 0; i < n; i++) {
          const b = layout.boxes[i];
          assert.ok(b.x >= 0 && b.y >= 0 && b.x + b.w <= layout.width && b.y + b.h <= layout.height, `box ${i} inside`);
          for (let j = i + 1; j < n; j++) assert.ok(apart(b, layout.boxes[j]), `boxes ${i} and ${j} overlap`);
        }
        const depEdges = layout.edges.filter((e) => e.kind === "dependency");
        assert.equal(depEdges.length, new Set(deps.flatMap((ds, i) => ds.filter((d) => d !== i).map((d) => `${d}>${i}`))).size);
        assert.equal(layout.edges.length - depEdges.length, pairs.length);
        for (const e of layout.edges) {
          assert.ok(onBorder(layout.boxes[e.from], e.start), `edge ${e.from}->${e.to} starts on its box`);
          assert.ok(onBorder(layout.boxes[e.to], e.end), `edge ${e.from}->${e.to} ends on its box`);
          assert.ok(e.path.startsWith(`M${Math.round(e.start.x * 10) / 10},${Math.round(e.start.y * 10) / 10}`));
        }
        // A role sits below every role it depends on.
        deps.forEach((ds, i) => ds.forEach((d) => assert.ok(layout.boxes[d].y + layout.boxes[d].h <= layout.boxes[i].y, `${d} above ${i}`)));
        assert.ok(layout.width <= 2 * 24 + MAX_COLUMNS * (184 + 36), "never wider than the column cap");
      }
    });
  }

  it("handles a dependency cycle of a broken plan without overlap", () => {
    const layout = layoutGraph(3, [[2], [0], [1]], []);
    for (let i = 0; i < 3; i++) for (let j = i + 1; j < 3; j++) assert.ok(apart(layout.boxes[i], layout.boxes[j]));
    for (const e of layout.edges) assert.ok(onBorder(layout.boxes[e.from], e.start) && onBorder(layout.boxes[e.to], e.end));
  });

  it("finds the border point of a box toward any point", () => {
    const b = { index: 0, layer: 0, x: 0, y: 0, w: 100, h: 50 };
    assert.deepEqual(borderPoint(b, { x: 200, y: 25 }), { x: 100, y: 25 });
    assert.deepEqual(borderPoint(b, { x: 50, y: -100 }), { x: 50, y: 0 });
    assert.deepEqual(borderPoint(b, { x: 50, y: 25 }), { x: 50, y: 0 });
  });
});
