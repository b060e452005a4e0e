// The plan graph's layout for the report: roles in layers by dependency depth (a role sits below everything it
// depends on), each layer ordered by where its dependencies sit and wrapped into rows of at most MAX_COLUMNS, so
// no two boxes overlap and the drawing stays readable from 2 to 300 roles. Edges end on the borders of their boxes:
// a dependency from the bottom of the role it waits for to the top of the dependent, an overlap (two roles that
// may touch the same files and so never run together) as a dashed line between the facing borders. Pure: numbers
// in, numbers out.
import { depths, type Deps } from "../plan/graph.js";

export const BOX_W = 184;
export const BOX_H = 52;
const GAP_X = 36;
const GAP_ROW = 28;
const GAP_LAYER = 64;
const MARGIN = 24;
export const MAX_COLUMNS = 8;

export interface Box {
  index: number;
  layer: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Point {
  x: number;
  y: number;
}

export interface Edge {
  from: number;
  to: number;
  kind: "dependency" | "overlap";
  start: Point;
  end: Point;
  /** SVG path data from start to end. */
  path: string;
}

export interface Layout {
  boxes: Box[];
  edges: Edge[];
  width: number;
  height: number;
}

/** Layer of each role: 0 for roles without dependencies, else one below its deepest dependency; cycles fall to 0. */
function layersOf(deps: Deps): number[] {
  const d = depths(deps);
  return d.map((v) => (v >= 999 || !Number.isFinite(v) ? 0 : v - 1));
}

/** Where the straight line from a box's centre towards `toward` leaves the box. */
export function borderPoint(box: Box, toward: Point): Point {
  const cx = box.x + box.w / 2;
  const cy = box.y + box.h / 2;
  const dx = toward.x - cx;
  const dy = toward.y - cy;
  if (dx === 0 && dy === 0) return { x: cx, y: box.y };
  const sx = dx === 0 ? Infinity : box.w / 2 / Math.abs(dx);
  const sy = dy === 0 ? Infinity : box.h / 2 / Math.abs(dy);
  const s = Math.min(sx, sy);
  return { x: cx + dx * s, y: cy + dy * s };
}

const r1 = (n: number) => Math.round(n * 10) / 10;

/** The layout of `count` roles with dependencies `deps` and overlap pairs `overlaps` (each pair once). */
export function layoutGraph(count: number, deps: Deps, overlaps: ReadonlyArray<readonly [number, number]>): Layout {
  const layer = layersOf(deps);
  const layerCount = count === 0 ? 0 : Math.max(...layer) + 1;
  const members: number[][] = Array.from({ length: layerCount }, () => []);
  for (let i = 0; i < count; i++) members[layer[i]].push(i);
  // Order each layer by the mean position of its dependencies in the layers above (barycentre), index to break ties.
  const position = new Array<number>(count).fill(0);
  for (const ids of members) {
    const key = (i: number) => {
      const ds = deps[i].filter((d) => layer[d] < layer[i]);
      return ds.length ? ds.reduce((s, d) => s + position[d], 0) / ds.length : Number.POSITIVE_INFINITY;
    };
    const keyed = ids.map((i) => ({ i, k: key(i) }));
    keyed.sort((a, b) => (a.k === b.k ? a.i - b.i : a.k === Number.POSITIVE_INFINITY ? 1 : b.k === Number.POSITIVE_INFINITY ? -1 : a.k - b.k));
    keyed.forEach(({ i }, p) => (position[i] = p));
    ids.splice(0, ids.length, ...keyed.map((x) => x.i));
  }
  const widest = Math.max(1, ...members.map((m) => Math.min(MAX_COLUMNS, m.length)));
  const boxes: Box[] = new Array(count);
  let y = MARGIN;
  members.forEach((ids, l) => {
    const rows = Math.ceil(ids.length / MAX_COLUMNS);
    for (let r = 0; r < rows; r++) {
      const row = ids.slice(r * MAX_COLUMNS, (r + 1) * MAX_COLUMNS);
      // Centre a short row under the widest one.
      const offset = ((widest - row.length) * (BOX_W + GAP_X)) / 2;
      row.forEach((i, c) => {
        boxes[i] = { index: i, layer: l, x: MARGIN + offset + c * (BOX_W + GAP_X), y, w: BOX_W, h: BOX_H };
      });
      y += BOX_H + (r < rows - 1 ? GAP_ROW : 0);
    }
    y += GAP_LAYER;
  });
  const width = MARGIN * 2 + widest * (BOX_W + GAP_X) - GAP_X;
  const height = count === 0 ? MARGIN * 2 : y - GAP_LAYER + MARGIN;

  const edges: Edge[] = [];
  const seen = new Set<string>();
  for (let to = 0; to < count; to++) {
    for (const from of deps[to]) {
      const key = `${from}>${to}`;
      if (seen.has(key) || from === to) continue;
      seen.add(key);
      const a = boxes[from];
      const b = boxes[to];
      if (a.y + a.h <= b.y) {
        const start = { x: a.x + a.w / 2, y: a.y + a.h };
        const end = { x: b.x + b.w / 2, y: b.y };
        const mid = (start.y + end.y) / 2;
        edges.push({ from, to, kind: "dependency", start, end, path: `M${r1(start.x)},${r1(start.y)} C${r1(start.x)},${r1(mid)} ${r1(end.x)},${r1(mid)} ${r1(end.x)},${r1(end.y)}` });
      } else {
        // A dependency that does not point down (a cycle in a broken plan): a straight line between the borders.
        const start = borderPoint(a, { x: b.x + b.w / 2, y: b.y + b.h / 2 });
        const end = borderPoint(b, { x: a.x + a.w / 2, y: a.y + a.h / 2 });
        edges.push({ from, to, kind: "dependency", start, end, path: `M${r1(start.x)},${r1(start.y)} L${r1(end.x)},${r1(end.y)}` });
      }
    }
  }
  for (const [p, q] of overlaps) {
    const a = boxes[p];
    const b = boxes[q];
    const start = borderPoint(a, { x: b.x + b.w / 2, y: b.y + b.h / 2 });
    const end = borderPoint(b, { x: a.x + a.w / 2, y: a.y + a.h / 2 });
    edges.push({ from: p, to: q, kind: "overlap", start, end, path: `M${r1(start.x)},${r1(start.y)} L${r1(end.x)},${r1(end.y)}` });
  }
  return { boxes, edges, width, height };
}
