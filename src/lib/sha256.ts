// SHA-256 (FIPS 180-4) in JavaScript, for the few short texts most hot calls hash (a goal, a small spec): loading
// node:crypto costs ~3 ms of CPU (some twenty built-in modules), and this costs ~1 ms for the first KB or two, before
// V8 has optimised it (a cold 60 KB took ~10 ms; optimised, 0.5 ms). So values.ts's sha256 uses it while a process
// has hashed at most JS_BUDGET bytes in all, and node:crypto after that; both give the same digest
// (test/unit/sha256.test.ts compares them on random inputs of every length around the block boundaries).

/** The bytes a process hashes here, in all, before it hands every further input to node:crypto. */
export const JS_BUDGET = 2048;

let K: Uint32Array | undefined;
let H0: Uint32Array | undefined;

/** The first 32 bits of the fractional parts of the square (H0) and cube (K) roots of the first primes. */
function constants(): { k: Uint32Array; h0: Uint32Array } {
  if (!K || !H0) {
    const primes: number[] = [];
    for (let n = 2; primes.length < 64; n++) if (primes.every((p) => n % p !== 0)) primes.push(n);
    const frac = (x: number) => Math.floor((x - Math.floor(x)) * 2 ** 32) >>> 0;
    K = Uint32Array.from(primes, (p) => frac(Math.cbrt(p)));
    H0 = Uint32Array.from(primes.slice(0, 8), (p) => frac(Math.sqrt(p)));
  }
  return { k: K, h0: H0 };
}

/** Lowercase hex SHA-256 of `data` (a string is hashed as UTF-8). */
export function sha256Small(data: string | Uint8Array): string {
  const { k, h0 } = constants();
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const len = bytes.length;
  const blocks = ((len + 8) >>> 6) + 1;
  const msg = new Uint8Array(blocks * 64);
  msg.set(bytes);
  msg[len] = 0x80;
  const view = new DataView(msg.buffer);
  view.setUint32(msg.length - 8, Math.floor(len / 2 ** 29) >>> 0);
  view.setUint32(msg.length - 4, (len * 8) >>> 0);
  const h = Uint32Array.from(h0);
  const w = new Uint32Array(64);
  for (let b = 0; b < blocks; b++) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(b * 64 + t * 4);
    for (let t = 16; t < 64; t++) {
      const x = w[t - 15];
      const y = w[t - 2];
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[t] = (w[t - 16] + s0 + w[t - 7] + s1) >>> 0;
    }
    let a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + k[t] + w[t]) >>> 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & bb) ^ (a & c) ^ (bb & c);
      const t2 = (S0 + maj) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = bb;
      bb = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] = (h[0] + a) >>> 0;
    h[1] = (h[1] + bb) >>> 0;
    h[2] = (h[2] + c) >>> 0;
    h[3] = (h[3] + d) >>> 0;
    h[4] = (h[4] + e) >>> 0;
    h[5] = (h[5] + f) >>> 0;
    h[6] = (h[6] + g) >>> 0;
    h[7] = (h[7] + hh) >>> 0;
  }
  let hex = "";
  for (let i = 0; i < 8; i++) hex += h[i].toString(16).padStart(8, "0");
  return hex;
}
