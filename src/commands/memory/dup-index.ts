// The duplicate gate's index: what memory-add needs to know about every entry of a large memory file, beside it
// as `.<name>.index` (binary, a few percent of the file), so an add does not read and tokenise the whole file.
//
// Per entry (in file order): the line's byte offset and length, its category (one of the six, or "never
// matches"), its token count, a hash of its normalised content and one 8-bit hash per token, sorted. From these,
// an upper bound of the Jaccard similarity with the new content follows (a shared token always has the same
// hash, so the multiset intersection of hashes is at least the real intersection): an entry whose bound is under
// the threshold cannot be a duplicate. Every entry that passes the bound is re-read from the memory file itself
// and compared exactly (contentSimilarity), so the index can only narrow the search, never decide a refusal.
//
// Never trusted blindly: the header records the memory file's device, inode, size, mtime and ctime (in ns) as
// memory-add left them, and a checksum of the body. Any difference (another program edited the file, a boost
// rewrote it, a crash between the append and the index write, a torn or foreign index) means a full scan that
// rebuilds it. What this cannot notice: a same-size in-place rewrite of the file by a program that ignores the
// lock, within the same clock tick as memory-add's own append (the file system's timestamp granularity).
import type { BigIntStats } from "node:fs";
import { tokens } from "../../lib/values.js";
import { MEMORY_CATEGORIES, normaliseContent } from "./scoring.js";

const MAGIC = 0x494d4f44; // "DOMI"
const VERSION = 1;
const HEADER = 64;
/** Category code of an entry that can never match: another category, or content that is not a string. */
export const NO_CATEGORY = 15;

export interface IndexEntry {
  offset: number;
  length: number;
  category: number;
  normHash: number;
  /** Sorted 8-bit token hashes. */
  hashes: Uint8Array;
}

export interface DupIndex {
  n: number;
  offsets: Uint32Array;
  lengths: Uint32Array;
  /** category | tokenCount << 4 */
  meta: Uint32Array;
  norm: Uint32Array;
  /** All token hashes, entry after entry. */
  toks: Uint8Array;
}

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export function categoryCode(category: unknown, content: unknown): number {
  if (typeof content !== "string") return NO_CATEGORY;
  const i = (MEMORY_CATEGORIES as readonly unknown[]).indexOf(category);
  return i < 0 ? NO_CATEGORY : i;
}

/** What the index keeps of one content: its token hashes (sorted) and the hash of its normalised text. */
export function describe(content: string): { hashes: Uint8Array; normHash: number; size: number } {
  const ts = tokens(content);
  const hashes = new Uint8Array(ts.size);
  let k = 0;
  for (const t of ts) hashes[k++] = fnv(t) & 0xff;
  hashes.sort();
  return { hashes, normHash: fnv(normaliseContent(content)), size: ts.size };
}

function checksum(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  const words = bytes.length >>> 2;
  const u32 = new Uint32Array(bytes.buffer, bytes.byteOffset, words);
  for (let i = 0; i < words; i++) h = Math.imul(h ^ u32[i], 0x01000193);
  for (let i = words * 4; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

const statKey = (st: BigIntStats) => [st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs];

/** The index in `buf` when it is whole and describes the memory file as `st` shows it now; else undefined. */
export function parseIndex(buf: Buffer, st: BigIntStats): DupIndex | undefined {
  if (buf.length < HEADER || buf.byteOffset % 8 !== 0) buf = Buffer.from(buf);
  if (buf.length < HEADER) return undefined;
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.length);
  if (dv.getUint32(0, true) !== MAGIC || dv.getUint32(4, true) !== VERSION) return undefined;
  const n = dv.getUint32(8, true);
  const total = dv.getUint32(12, true);
  const key = statKey(st);
  for (let i = 0; i < 5; i++) if (dv.getBigUint64(16 + i * 8, true) !== key[i]) return undefined;
  if (buf.length !== HEADER + n * 16 + total) return undefined;
  const body = new Uint8Array(buf.buffer, buf.byteOffset + HEADER, buf.length - HEADER);
  if (checksum(body) !== dv.getUint32(56, true)) return undefined;
  const at = buf.byteOffset + HEADER;
  const index: DupIndex = {
    n,
    offsets: new Uint32Array(buf.buffer, at, n),
    lengths: new Uint32Array(buf.buffer, at + n * 4, n),
    meta: new Uint32Array(buf.buffer, at + n * 8, n),
    norm: new Uint32Array(buf.buffer, at + n * 12, n),
    toks: new Uint8Array(buf.buffer, at + n * 16, total),
  };
  let sum = 0;
  const size = Number(st.size);
  for (let i = 0; i < n; i++) {
    sum += index.meta[i] >>> 4;
    if (index.offsets[i] + index.lengths[i] > size) return undefined;
  }
  return sum === total ? index : undefined;
}

/** The index bytes for `entries` (existing ones from `base`, then `extra`), describing the memory file as `st`. */
export function serialise(base: DupIndex | undefined, extra: readonly IndexEntry[], st: BigIntStats): Buffer {
  const n0 = base?.n ?? 0;
  const n = n0 + extra.length;
  const total = (base?.toks.length ?? 0) + extra.reduce((s, e) => s + e.hashes.length, 0);
  const buf = Buffer.alloc(HEADER + n * 16 + total);
  const at = buf.byteOffset + HEADER;
  const offsets = new Uint32Array(buf.buffer, at, n);
  const lengths = new Uint32Array(buf.buffer, at + n * 4, n);
  const meta = new Uint32Array(buf.buffer, at + n * 8, n);
  const norm = new Uint32Array(buf.buffer, at + n * 12, n);
  const toks = new Uint8Array(buf.buffer, at + n * 16, total);
  let t = 0;
  if (base) {
    offsets.set(base.offsets);
    lengths.set(base.lengths);
    meta.set(base.meta);
    norm.set(base.norm);
    toks.set(base.toks);
    t = base.toks.length;
  }
  extra.forEach((e, k) => {
    offsets[n0 + k] = e.offset;
    lengths[n0 + k] = e.length;
    meta[n0 + k] = e.category | (e.hashes.length << 4);
    norm[n0 + k] = e.normHash;
    toks.set(e.hashes, t);
    t += e.hashes.length;
  });
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.length);
  dv.setUint32(0, MAGIC, true);
  dv.setUint32(4, VERSION, true);
  dv.setUint32(8, n, true);
  dv.setUint32(12, total, true);
  statKey(st).forEach((v, i) => dv.setBigUint64(16 + i * 8, v, true));
  dv.setUint32(56, checksum(new Uint8Array(buf.buffer, at, buf.length - HEADER)), true);
  return buf;
}

/**
 * Indices (in file order) of the entries that may be near-duplicates of content `d` in category `category` at
 * `threshold`: the same category, and a Jaccard upper bound at or above the threshold (or, for content without
 * tokens, the same normalised-text hash).
 */
export function candidates(index: DupIndex, category: number, d: { hashes: Uint8Array; normHash: number; size: number }, threshold: number): number[] {
  const out: number[] = [];
  const a = d.hashes;
  const na = d.size;
  const slack = 1e-9;
  let start = 0;
  for (let i = 0; i < index.n; i++) {
    const m = index.meta[i];
    const nb = m >>> 4;
    const from = start;
    start += nb;
    if ((m & 15) !== category) continue;
    if (na === 0 || nb === 0) {
      // Without tokens on one side only identical normalised text reaches the threshold (similarity 1).
      if (na === 0 && nb === 0 && index.norm[i] === d.normHash) out.push(i);
      continue;
    }
    if (Math.min(na, nb) / Math.max(na, nb) < threshold - slack) continue;
    let x = 0;
    let y = from;
    let common = 0;
    while (x < na && y < start) {
      const hb = index.toks[y];
      if (a[x] === hb) {
        common++;
        x++;
        y++;
      } else if (a[x] < hb) x++;
      else y++;
    }
    if (common / (na + nb - common) >= threshold - slack) out.push(i);
  }
  return out;
}
