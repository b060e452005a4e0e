// Draws the plugin's icon, .claude-plugin/icon.png: a small dependency graph (four plan roles, the arrows between
// them, coloured like /do:plan-status: two completed, one in progress, one pending) on a rounded dark square.
// 512×512 RGBA, anti-aliased by 4×4 supersampling. No dependencies: the PNG bytes (signature, IHDR, IDAT through
// node's zlib, IEND, each chunk with its CRC-32) are written here, so the same Node.js writes the same bytes.
//
//   node scripts/make-icon.mjs            write .claude-plugin/icon.png
//   node scripts/make-icon.mjs --check    exit 1 when the committed file differs from what this script draws
import { deflateSync } from "node:zlib";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const SIZE = 512;
export const ICON_PATH = join(dirname(fileURLToPath(import.meta.url)), "..", ".claude-plugin", "icon.png");
const SAMPLES = 4;

const rgb = (hex) => [parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16), parseInt(hex.slice(5, 7), 16)];
const BACKGROUND = rgb("#172033");
const EDGE = rgb("#94A3B8");
const RING = rgb("#F8FAFC");
const COMPLETED = rgb("#34D399");
const IN_PROGRESS = rgb("#FBBF24");
const PENDING = rgb("#475569");

const NODE_RADIUS = 50;
const RING_WIDTH = 9;
const EDGE_WIDTH = 14;
const ARROW_LENGTH = 34;
const ARROW_HALF_WIDTH = 21;

const nodes = [
  { x: 112, y: 256, fill: COMPLETED },
  { x: 256, y: 140, fill: COMPLETED },
  { x: 256, y: 372, fill: IN_PROGRESS },
  { x: 400, y: 256, fill: PENDING },
];
const edges = [
  [0, 1],
  [0, 2],
  [1, 2],
  [1, 3],
  [2, 3],
];

/** Distance from (px, py) to the segment a-b. */
function segmentDistance(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  const qx = ax + t * dx - px;
  const qy = ay + t * dy - py;
  return Math.sqrt(qx * qx + qy * qy);
}

function insideTriangle(px, py, [a, b, c]) {
  const side = (p, q) => (px - q[0]) * (p[1] - q[1]) - (p[0] - q[0]) * (py - q[1]);
  const d1 = side(a, b);
  const d2 = side(b, c);
  const d3 = side(c, a);
  return !((d1 < 0 || d2 < 0 || d3 < 0) && (d1 > 0 || d2 > 0 || d3 > 0));
}

// Each edge runs from the rim of its source to the base of an arrowhead whose tip touches the target's ring.
const shafts = edges.map(([from, to]) => {
  const a = nodes[from];
  const b = nodes[to];
  const len = Math.hypot(b.x - a.x, b.y - a.y);
  const ux = (b.x - a.x) / len;
  const uy = (b.y - a.y) / len;
  const tipDist = len - NODE_RADIUS - RING_WIDTH / 2 - 2;
  const tip = [a.x + ux * tipDist, a.y + uy * tipDist];
  const base = [tip[0] - ux * ARROW_LENGTH, tip[1] - uy * ARROW_LENGTH];
  return {
    start: [a.x + ux * NODE_RADIUS, a.y + uy * NODE_RADIUS],
    end: [base[0] + ux * 2, base[1] + uy * 2],
    head: [tip, [base[0] - uy * ARROW_HALF_WIDTH, base[1] + ux * ARROW_HALF_WIDTH], [base[0] + uy * ARROW_HALF_WIDTH, base[1] - ux * ARROW_HALF_WIDTH]],
  };
});

/** The colour at one sample point, or null outside the rounded square (transparent). */
function colourAt(x, y) {
  const corner = 104;
  const cx = Math.max(corner, Math.min(SIZE - corner, x));
  const cy = Math.max(corner, Math.min(SIZE - corner, y));
  if (Math.hypot(x - cx, y - cy) > corner) return null;
  for (const n of nodes) {
    const d = Math.hypot(x - n.x, y - n.y);
    if (d <= NODE_RADIUS - RING_WIDTH / 2) return n.fill;
    if (d <= NODE_RADIUS + RING_WIDTH / 2) return RING;
  }
  for (const s of shafts) {
    if (segmentDistance(x, y, s.start[0], s.start[1], s.end[0], s.end[1]) <= EDGE_WIDTH / 2) return EDGE;
    if (insideTriangle(x, y, s.head)) return EDGE;
  }
  return BACKGROUND;
}

/** Raw RGBA scanlines, each led by filter byte 0. Colour is averaged over the covered samples, alpha is coverage. */
export function pixels() {
  const stride = SIZE * 4 + 1;
  const out = Buffer.alloc(stride * SIZE);
  const n = SAMPLES * SAMPLES;
  for (let y = 0; y < SIZE; y++) {
    out[y * stride] = 0;
    for (let x = 0; x < SIZE; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let covered = 0;
      for (let sy = 0; sy < SAMPLES; sy++)
        for (let sx = 0; sx < SAMPLES; sx++) {
          const c = colourAt(x + (sx + 0.5) / SAMPLES, y + (sy + 0.5) / SAMPLES);
          if (!c) continue;
          r += c[0];
          g += c[1];
          b += c[2];
          covered++;
        }
      const o = y * stride + 1 + x * 4;
      if (covered) {
        out[o] = Math.round(r / covered);
        out[o + 1] = Math.round(g / covered);
        out[o + 2] = Math.round(b / covered);
        out[o + 3] = Math.round((255 * covered) / n);
      }
    }
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, i) => {
  let c = i;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** The whole PNG file. */
export function iconPng() {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(SIZE, 0);
  ihdr.writeUInt32BE(SIZE, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type: RGBA
  ihdr[10] = 0; // deflate
  ihdr[11] = 0; // adaptive filtering (every row uses filter 0)
  ihdr[12] = 0; // no interlace
  const idat = deflateSync(pixels(), { level: 9, memLevel: 9, strategy: 0, windowBits: 15 });
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", idat), chunk("IEND", Buffer.alloc(0))]);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const png = iconPng();
  if (process.argv.includes("--check")) {
    let committed;
    try {
      committed = readFileSync(ICON_PATH);
    } catch {
      committed = Buffer.alloc(0);
    }
    if (!committed.equals(png)) {
      console.error(`${ICON_PATH} differs from what scripts/make-icon.mjs draws: run node scripts/make-icon.mjs`);
      process.exit(1);
    }
    console.log(`${ICON_PATH}: up to date (${png.length} bytes)`);
  } else {
    writeFileSync(ICON_PATH, png);
    console.log(`wrote ${ICON_PATH} (${png.length} bytes, ${SIZE}x${SIZE})`);
  }
}
