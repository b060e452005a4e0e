// MD5 of a short UTF-8 string in JavaScript (RFC 1321), for the team-name rule's 6-character tag of the cwd: a
// call that needs nothing else from node:crypto then does not load it (~5 ms of a helper call's start).
// Not for security, and not for large inputs (node:crypto is the one for file hashes).

const S = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
const K = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) >>> 0);

export function md5Hex(text: string): string {
  const data = Buffer.from(text, "utf8");
  const blocks = ((data.length + 8) >>> 6) + 1;
  const msg = Buffer.alloc(blocks * 64);
  data.copy(msg);
  msg[data.length] = 0x80;
  const bits = data.length * 8;
  msg.writeUInt32LE(bits >>> 0, msg.length - 8);
  msg.writeUInt32LE(Math.floor(bits / 2 ** 32) >>> 0, msg.length - 4);
  let a0 = 0x67452301;
  let b0 = 0xefcdab89;
  let c0 = 0x98badcfe;
  let d0 = 0x10325476;
  const m = new Array<number>(16);
  for (let off = 0; off < msg.length; off += 64) {
    for (let j = 0; j < 16; j++) m[j] = msg.readUInt32LE(off + j * 4);
    let a = a0;
    let b = b0;
    let c = c0;
    let d = d0;
    for (let i = 0; i < 64; i++) {
      let f: number;
      let g: number;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) % 16;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) % 16;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) % 16;
      }
      const s = S[(i >>> 4) * 4 + (i % 4)];
      const x = (a + f + K[i] + m[g]) | 0;
      a = d;
      d = c;
      c = b;
      b = (b + ((x << s) | (x >>> (32 - s)))) | 0;
    }
    a0 = (a0 + a) | 0;
    b0 = (b0 + b) | 0;
    c0 = (c0 + c) | 0;
    d0 = (d0 + d) | 0;
  }
  const out = Buffer.alloc(16);
  out.writeInt32LE(a0, 0);
  out.writeInt32LE(b0, 4);
  out.writeInt32LE(c0, 8);
  out.writeInt32LE(d0, 12);
  return out.toString("hex");
}
