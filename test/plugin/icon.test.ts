// The plugin's icon: a real square PNG that the directory accepts (512-2048 px, under 2 MB), drawn by
// scripts/make-icon.mjs, which must reproduce the committed bytes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import { ROOT } from "./plugin-files.ts";

const ICON = join(ROOT, ".claude-plugin", "icon.png");

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

function chunks(png: Buffer): { type: string; data: Buffer }[] {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "PNG signature");
  const out: { type: string; data: Buffer }[] = [];
  for (let o = 8; o < png.length; ) {
    const len = png.readUInt32BE(o);
    const type = png.toString("ascii", o + 4, o + 8);
    const data = png.subarray(o + 8, o + 8 + len);
    assert.equal(png.readUInt32BE(o + 8 + len), crc32(png.subarray(o + 4, o + 8 + len)), `CRC of ${type}`);
    out.push({ type, data });
    o += 12 + len;
  }
  return out;
}

describe("icon", () => {
  const png = readFileSync(ICON);

  it("scripts/make-icon.mjs reproduces the committed .claude-plugin/icon.png byte for byte", () => {
    const r = spawnSync(process.execPath, [join(ROOT, "scripts", "make-icon.mjs"), "--check"], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr + r.stdout);
  });

  it("is a square 512 px RGBA PNG under 2 MB with valid chunks", () => {
    assert.ok(png.length < 2 * 1024 * 1024, `${png.length} bytes`);
    const list = chunks(png);
    assert.deepEqual(list.map((c) => c.type), ["IHDR", "IDAT", "IEND"]);
    const ihdr = list[0].data;
    assert.equal(ihdr.readUInt32BE(0), 512);
    assert.equal(ihdr.readUInt32BE(4), 512);
    assert.deepEqual([...ihdr.subarray(8)], [8, 6, 0, 0, 0], "8-bit RGBA, deflate, no interlace");
  });

  it("draws a picture: transparent rounded corners, an opaque middle, more than two colours", () => {
    const raw = inflateSync(chunks(png).find((c) => c.type === "IDAT")!.data);
    const stride = 512 * 4 + 1;
    assert.equal(raw.length, stride * 512);
    const px = (x: number, y: number) => [...raw.subarray(y * stride + 1 + x * 4, y * stride + 1 + x * 4 + 4)];
    for (const [x, y] of [[0, 0], [511, 0], [0, 511], [511, 511]]) assert.equal(px(x, y)[3], 0, `corner ${x},${y}`);
    assert.equal(px(256, 256)[3], 255);
    const colours = new Set<string>();
    for (let y = 0; y < 512; y += 8) for (let x = 0; x < 512; x += 8) if (px(x, y)[3] === 255) colours.add(px(x, y).slice(0, 3).join(","));
    assert.ok(colours.size > 4, `only ${colours.size} opaque colours`);
  });
});
