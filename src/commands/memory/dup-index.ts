// The duplicate gate's index: what memory-add needs to know about the entries of a large memory file, beside it
// as `.<name>.index` (binary, a few percent of the file), so an add does not read and tokenise the whole file.
//
// Per entry: the line's byte offset and length, its category, its token count, a hash of its normalised content
// (for contents without tokens) and one 8-bit hash per token (tokens.ts), sorted. From these, an upper bound of the
// Jaccard similarity with the new content follows (a shared token always has the same hash, so counting the
// entry's hashes that the new content also has gives at least the real intersection): an entry whose bound is
// under the threshold cannot be a duplicate. Every entry that passes the bound is re-read from the memory file
// itself and compared exactly (contentSimilarity), so the index can only narrow the search, never decide a refusal.
//
// Per category: only an add of a category needs that category's records, so the index holds the categories adds
// have needed (a bit each in the header). A first add (or one after a rebuild) reads only the lines that can be of
// its category and indexes those; a later add of another category appends that category's records. Records of one
// category are in file order; a category added later follows the others.
//
// The file is append-only between rebuilds: a 72-byte header, then the records (offset, length, category | token
// count << 4, normalised-content hash, the token hashes, padded to 4 bytes). An add that passed the gate appends
// its record (and its category's, the first time) and rewrites the header in place; only a rebuild writes the whole
// file (atomically).
//
// Never trusted blindly: the header records the memory file's device, inode, size, mtime and ctime (in ns) as
// memory-add left them, a running CRC-32 of every record (extended by each append), and a hash of the memory file's
// tail (from its last line's start, also in the header, to the end, read back on every add). Any difference
// (another program edited the file, a boost rewrote it, a crash between the append and the index write, a torn
// or foreign index) means a scan that rebuilds it. What this cannot notice: a same-size in-place rewrite of the
// file by a program that ignores the lock, within the same clock tick as memory-add's own append (the file
// system's timestamp granularity), that leaves the last line as it was.
//
// Why one file: the index's format, its reader and its builder must agree byte for byte; split, each would import
// the others' layout.
import type { BigIntStats } from "node:fs";
import { MEMORY_CATEGORIES, normaliseContent } from "./scoring.js";
import { tokens } from "./tokens.js";

const MAGIC = 0x494d4f44; // "DOMI"
/**
 * 3: tokens of tokens.ts (Unicode words, CJK bigrams, stems), records for some categories only (the header says
 * which), the last line's offset in the header. An index of another version is rebuilt.
 */
const VERSION = 3;
export const HEADER = 72;
/** Every category indexed. */
export const ALL_CATEGORIES = (1 << MEMORY_CATEGORIES.length) - 1;
/** Category code of an entry that can never match: another category, or content that is not a string. */
export const NO_CATEGORY = 15;
/** A probe's category when it is compared with every category's entries (memory-add's gate, issue 31). */
export const ANY_CATEGORY = -1;

export interface IndexEntry {
  offset: number;
  length: number;
  category: number;
  normHash: number;
  /** Sorted 8-bit token hashes. */
  hashes: Uint8Array;
}

/** What a scan of a whole, fresh index yields: its size and checksum (for an append) and the candidates. */
export interface IndexScan {
  n: number;
  /** Bytes of records after the header, and their running checksum. */
  bodyBytes: number;
  sum: number;
  /** The categories the index has records for (bit c: every entry of category c has its record). */
  categories: number;
  /** The entries (in file order) that may be near-duplicates: where their lines are in the memory file. */
  found: Array<{ offset: number; length: number }>;
}

/** The new content as the scan compares it: its sorted token hashes, their count and its normalised-text hash. */
export interface Probe {
  category: number;
  hashes: Uint8Array;
  normHash: number;
  size: number;
  threshold: number;
}

export function fnvOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** FNV-1a over bytes: the memory file's tail hash. */
export function hashBytes(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

export function categoryCode(category: unknown, content: unknown): number {
  if (typeof content !== "string") return NO_CATEGORY;
  const i = (MEMORY_CATEGORIES as readonly unknown[]).indexOf(category);
  return i < 0 ? NO_CATEGORY : i;
}

/** What the index keeps of one content: its token hashes (sorted) and the hash of its normalised text. */
export function describe(content: string): { hashes: Uint8Array; normHash: number; size: number } {
  return describeTokens(tokens(content), content);
}

/**
 * describe() for a content whose token set is already at hand. The normalised-text hash only matters for a content
 * without tokens (two such contents are duplicates only when their normalised texts are equal); it is 0 otherwise.
 */
export function describeTokens(ts: ReadonlySet<string>, content: string): { hashes: Uint8Array; normHash: number; size: number } {
  const hashes = new Uint8Array(ts.size);
  let k = 0;
  for (const t of ts) hashes[k++] = fnvOf(t) & 0xff;
  hashes.sort();
  return { hashes, normHash: normHashOf(ts, content), size: ts.size };
}

export const normHashOf = (ts: ReadonlySet<string>, content: string) => (ts.size === 0 ? textNormHash(content) : 0);

/** The hash of a content's normalised text (kept for contents without tokens). */
export const textNormHash = (content: string) => fnvOf(normaliseContent(content));

// The running checksum is CRC-32 (zlib's, which can be continued from a previous value): Node's native
// zlib.crc32 (20.15+) checks the 0.5 MB of a 20k-entry index in ~0.3 ms, where a JavaScript loop over it, run
// once in a fresh process before V8 optimises it, takes 10-30 ms. Older Node uses the same CRC in JavaScript.
let CRC_TABLE: Int32Array | undefined;
function crc32js(bytes: Uint8Array, value: number): number {
  if (!CRC_TABLE) {
    CRC_TABLE = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      CRC_TABLE[n] = c;
    }
  }
  let c = ~value;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

type Crc = (data: Uint8Array, value?: number) => number;
let nativeCrc: Crc | null | undefined;

/**
 * CRC-32 of `bytes`, continuing from `value` (the CRC of what came before; 0 for none). `total`: how many bytes the
 * caller checksums in all; up to 128 KB (an index of one category or two, a record) the JavaScript loop costs less
 * than loading node:zlib, which brings the streams stack with it (~3-4 ms), unless zlib is loaded already.
 */
export function crc32(bytes: Uint8Array, value = 0, total = bytes.length): number {
  if (nativeCrc === undefined && total <= 128 * 1024) return crc32js(bytes, value);
  if (nativeCrc === undefined) {
    // Loaded here, not at the top: only an add to a memory file large enough for the index needs it.
    const native = (require("node:zlib") as { crc32?: Crc }).crc32;
    nativeCrc = typeof native === "function" ? native : null;
  }
  return nativeCrc ? nativeCrc(bytes, value) >>> 0 : crc32js(bytes, value);
}

/** For tests: force the JavaScript CRC (true) or let the native one be used again (false). */
export function useJsCrc(on: boolean): void {
  nativeCrc = on ? null : undefined;
}

const recordBytes = (tokenCount: number) => 16 + ((tokenCount + 3) & ~3);

const statKey = (st: BigIntStats) => [st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs];

/** Where scanIndex reads the index from: its size, and positional reads (the open file, or a buffer). */
export interface IndexSource {
  size: number;
  /** Up to `length` bytes at `position` into `into` from `at`; the count read (0 at the end). */
  read(into: Buffer, at: number, length: number, position: number): number;
}

/** An index held in memory (a fresh rebuild) as a source. */
export function bufferSource(buf: Buffer): IndexSource {
  return { size: buf.length, read: (into, at, length, position) => buf.copy(into, at, position, Math.min(buf.length, position + length)) };
}

const CHUNK = 64 * 1024;

/**
 * One pass over the index: undefined unless it is whole and describes the memory file as `st` shows it now
 * (`tail(offset)` returns the memory file's bytes from `offset`, the last entry's line, to its end); else the
 * entries that may be near-duplicates of `probe`: the same category, and a Jaccard upper bound at or above the
 * threshold (or, for content without tokens, the same normalised-text hash).
 *
 * The index is read 64 KB at a time into one buffer (a buffer of the whole index, fresh memory, cost ~2 ms of page
 * faults for 0.5 MB), its checksum computed chunk by chunk as it is read and compared at the end; nothing found
 * counts unless it matches.
 */
export function scanIndex(src: IndexSource, st: BigIntStats, tail: (offset: number) => Uint8Array | undefined, probe: Probe): IndexScan | undefined {
  const total = src.size;
  if (total < HEADER || total % 4 !== 0) return undefined;
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, total));
  if (readFully(src, buf, 0, HEADER, 0) !== HEADER) return undefined;
  const dv = new DataView(buf.buffer, buf.byteOffset, HEADER);
  if (dv.getUint32(0, true) !== MAGIC || dv.getUint32(4, true) !== VERSION) return undefined;
  const n = dv.getUint32(8, true);
  const bodyBytes = dv.getUint32(12, true);
  const key = statKey(st);
  for (let i = 0; i < 5; i++) if (dv.getBigUint64(16 + i * 8, true) !== key[i]) return undefined;
  if (total !== HEADER + bodyBytes || n > bodyBytes / 16) return undefined;
  const wantSum = dv.getUint32(56, true);
  const wantTail = dv.getUint32(60, true);
  const tailFrom = dv.getUint32(64, true);
  const categories = dv.getUint32(68, true);
  if (tailFrom > Number(st.size) || (categories & ~ALL_CATEGORIES) !== 0) return undefined;

  const win: Window = { src, total, buf, base: HEADER, have: 0, sum: 0, u32: new Uint32Array(0), u8: new Uint8Array(0) };
  views(win);
  // The loop works on local copies of the window (refreshed after each fill): a variable a closure shares would be
  // a context slot on every access, which the cold loop pays 20,000 times.
  let { base, have, u32, u8 } = win;

  const size = Number(st.size);
  const { category, hashes: a, size: na, normHash, threshold } = probe;
  const bound = threshold - 1e-9;
  // has[h]: whether the new content has a token of hash h. Counting an entry's hashes the new content also has gives
  // at least the number of tokens they share (a token they share has the same hash on both sides; an entry's hash
  // that occurs twice counts twice, which only lets more through). One table lookup per hash byte: this loop runs
  // for every entry of the category, mostly before V8 has optimised it.
  const has = new Uint8Array(256);
  for (let i = 0; i < na; i++) has[a[i]] = 1;
  const found: IndexScan["found"] = [];
  let at = HEADER;
  for (let i = 0; i < n; i++) {
    if (at + 16 > base + have) {
      if (!fill(win, at, 16)) return undefined;
      ({ base, have, u32, u8 } = win);
    }
    const w = (at - base) >>> 2;
    const m = u32[w + 2];
    const nb = m >>> 4;
    const recordEnd = at + 16 + ((nb + 3) & ~3);
    if (recordEnd > total) return undefined;
    // Most entries are of another category: nothing else of them is read. (The checksum vouches for every record;
    // a candidate's place is checked below and its line is read back and compared; the file's last line is checked
    // through the tail hash.)
    if (category === ANY_CATEGORY ? (m & 15) !== NO_CATEGORY : (m & 15) === category) {
      const offset = u32[w];
      const length = u32[w + 1];
      if (offset + length > size) return undefined;
      if (na === 0 || nb === 0) {
        // Without tokens on one side only identical normalised text reaches the threshold (similarity 1).
        if (na === 0 && nb === 0 && u32[w + 3] === normHash) found.push({ offset, length });
      } else if (Math.min(na, nb) / Math.max(na, nb) >= bound) {
        if (recordEnd > base + have) {
          if (!fill(win, at, recordEnd - at)) return undefined;
          ({ base, have, u32, u8 } = win);
        }
        const from = at - base + 16;
        const stop = from + nb;
        // The merge stops as soon as the shared hashes cannot reach `least`, a lower bound of the least
        // intersection whose Jaccard ratio passes (one under the computed value: rounding only lets more through).
        const least = Math.ceil((bound * (na + nb)) / (1 + bound)) - 1;
        let common = 0;
        for (let y = from; y < stop; y++) {
          common += has[u8[y]];
          if (common + (stop - y - 1) < least) break;
        }
        if (common / (na + nb - common) >= bound) found.push({ offset, length });
      }
    }
    at = recordEnd;
  }
  if (at !== total) return undefined;
  // Whatever the records did not need is still part of the checksum.
  if (base + have < total && !fill(win, total - 4, 4)) return undefined;
  if (win.sum !== wantSum) return undefined;
  const t = tail(tailFrom);
  if (t === undefined || hashBytes(t) !== wantTail) return undefined;
  // Records of a category added to the index later follow the others: put the candidates in file order.
  if (found.length > 1) found.sort((x, y) => x.offset - y.offset);
  const covered = category === ANY_CATEGORY ? categories === ALL_CATEGORIES : ((categories >> category) & 1) === 1;
  return { n, bodyBytes, sum: win.sum, categories, found: covered ? found : [] };
}

/** The part of the index scanIndex holds: the file's bytes [base, base + have) in buf, and the checksum so far. */
interface Window {
  src: IndexSource;
  total: number;
  buf: Buffer;
  base: number;
  have: number;
  sum: number;
  u32: Uint32Array;
  u8: Uint8Array;
}

function views(win: Window): void {
  win.u32 = new Uint32Array(win.buf.buffer, win.buf.byteOffset, win.buf.length >>> 2);
  win.u8 = new Uint8Array(win.buf.buffer, win.buf.byteOffset, win.buf.length);
}

/**
 * Make the file's bytes [at, at + length) available in the window, from its start (records start 4-aligned, and
 * so does the buffer); false when the index ends first. Every byte is read once, in order, and goes into the
 * checksum, those of records the scan skips included.
 */
function fill(win: Window, at: number, length: number): boolean {
  if (at + length <= win.base + win.have) return true;
  if (at + length > win.total) return false;
  while (win.base + win.have < at) {
    // Bytes before `at` never loaded (the end of a skipped record): read for the checksum only.
    win.base += win.have;
    win.have = 0;
    const want = Math.min(win.buf.length, at - win.base);
    if (readFully(win.src, win.buf, 0, want, win.base) !== want) return false;
    win.sum = crc32(win.buf.subarray(0, want), win.sum, win.total);
    win.base += want;
  }
  const keep = win.base + win.have - at;
  if (length > win.buf.length) {
    const bigger = Buffer.allocUnsafe(Math.max(length, 2 * win.buf.length));
    win.buf.copy(bigger, 0, at - win.base, at - win.base + keep);
    win.buf = bigger;
    views(win);
  } else if (keep > 0 && at !== win.base) win.buf.copy(win.buf, 0, at - win.base, at - win.base + keep);
  win.base = at;
  win.have = keep;
  while (win.have < length) {
    const want = Math.min(win.buf.length - win.have, win.total - (win.base + win.have));
    if (readFully(win.src, win.buf, win.have, want, win.base + win.have) !== want) return false;
    win.sum = crc32(win.buf.subarray(win.have, win.have + want), win.sum, win.total);
    win.have += want;
  }
  return true;
}

function readFully(src: IndexSource, into: Buffer, at: number, length: number, position: number): number {
  let got = 0;
  while (got < length) {
    const k = src.read(into, at + got, length - got, position + got);
    if (k <= 0) break;
    got += k;
  }
  return got;
}

function writeRecord(u8: Uint8Array, dv: DataView, at: number, e: IndexEntry): number {
  dv.setUint32(at, e.offset, true);
  dv.setUint32(at + 4, e.length, true);
  dv.setUint32(at + 8, e.category | (e.hashes.length << 4), true);
  dv.setUint32(at + 12, e.normHash, true);
  u8.set(e.hashes, at + 16);
  return at + recordBytes(e.hashes.length);
}

/** Where the header says what the index describes; `tailFrom`: where the memory file's last line starts. */
interface Describes {
  st: BigIntStats;
  tailHash: number;
  tailFrom: number;
  categories: number;
}

function writeHeader(dv: DataView, n: number, bodyBytes: number, sum: number, d: Describes): void {
  dv.setUint32(0, MAGIC, true);
  dv.setUint32(4, VERSION, true);
  dv.setUint32(8, n, true);
  dv.setUint32(12, bodyBytes, true);
  statKey(d.st).forEach((v, i) => dv.setBigUint64(16 + i * 8, v, true));
  dv.setUint32(56, sum, true);
  dv.setUint32(60, d.tailHash, true);
  dv.setUint32(64, d.tailFrom, true);
  dv.setUint32(68, d.categories, true);
}

/**
 * A whole index built record by record (a rebuild adds every entry of the memory file in one pass, then the new
 * entry), into one growing buffer: no object per entry.
 */
export class IndexBuilder {
  private buf: Buffer;
  private u8: Uint8Array;
  private dv: DataView;
  private at = HEADER;
  private n = 0;

  constructor(expectedBytes = 64 * 1024) {
    this.buf = Buffer.alloc(HEADER + expectedBytes);
    this.u8 = new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.buf.length);
    this.dv = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  }

  private room(bytes: number): void {
    const need = this.at + bytes;
    if (need > this.buf.length) {
      const bigger = Buffer.alloc(Math.max(need, this.buf.length * 2));
      this.buf.copy(bigger, 0, 0, this.at);
      this.buf = bigger;
      this.u8 = new Uint8Array(bigger.buffer, bigger.byteOffset, bigger.length);
      this.dv = new DataView(bigger.buffer, bigger.byteOffset, bigger.length);
    }
  }

  add(e: IndexEntry): void {
    this.room(recordBytes(e.hashes.length));
    this.at = writeRecord(this.u8, this.dv, this.at, e);
    this.n++;
  }

  /**
   * The record of an entry whose distinct tokens' index bytes are t.out[0, t.n) (ByteTokens, byte-tokens.ts): what
   * add(describeTokens(...)) writes.
   */
  addScanned(offset: number, length: number, category: number, t: { readonly n: number; readonly out: Uint8Array }, normHash: number): void {
    const nb = t.n;
    this.room(recordBytes(nb));
    const { u8, dv, at } = this;
    dv.setUint32(at, offset, true);
    dv.setUint32(at + 4, length, true);
    dv.setUint32(at + 8, category | (nb << 4), true);
    dv.setUint32(at + 12, normHash, true);
    const from = at + 16;
    const out = t.out;
    for (let k = 0; k < nb; k++) {
      const h = out[k];
      let j = from + k;
      while (j > from && u8[j - 1] > h) {
        u8[j] = u8[j - 1];
        j--;
      }
      u8[j] = h;
    }
    const end = at + recordBytes(nb);
    for (let k = from + nb; k < end; k++) u8[k] = 0;
    this.at = end;
    this.n++;
  }

  /** The record of an entry straight from its token set (what add(describeTokens(...)) writes, without the arrays). */
  addTokens(offset: number, length: number, category: number, ts: ReadonlySet<string>, content: string): void {
    const nb = ts.size;
    this.room(recordBytes(nb));
    const { u8, dv, at } = this;
    dv.setUint32(at, offset, true);
    dv.setUint32(at + 4, length, true);
    dv.setUint32(at + 8, category | (nb << 4), true);
    dv.setUint32(at + 12, normHashOf(ts, content), true);
    // The token hashes, sorted in place (insertion sort: a few dozen at most), and the padding zeroed.
    const from = at + 16;
    let k = from;
    for (const t of ts) {
      const h = fnvOf(t) & 0xff;
      let j = k++;
      while (j > from && u8[j - 1] > h) {
        u8[j] = u8[j - 1];
        j--;
      }
      u8[j] = h;
    }
    const end = at + recordBytes(nb);
    for (; k < end; k++) u8[k] = 0;
    this.at = end;
    this.n++;
  }

  /** The index so far, describing the memory file as `d` says. */
  finish(d: Describes): Buffer {
    const out = this.buf.subarray(0, this.at);
    writeHeader(new DataView(out.buffer, out.byteOffset, HEADER), this.n, this.at - HEADER, crc32(out.subarray(HEADER)), d);
    return out;
  }

  /** The records so far, without a header (to append to an index that lacks their category). */
  records(): { n: number; bytes: Buffer } {
    return { n: this.n, bytes: this.buf.subarray(HEADER, this.at) };
  }
}

/**
 * A whole index for `entries`, describing the memory file as `st` (its last line, from `tailFrom` on, hashing to
 * `tailHash`; by default the last entry's line), with records for `categories` (by default all six).
 */
export function serialise(entries: readonly IndexEntry[], st: BigIntStats, tailHash: number, tailFrom?: number, categories = ALL_CATEGORIES): Buffer {
  const b = new IndexBuilder(entries.reduce((s, e) => s + recordBytes(e.hashes.length), 0));
  for (const e of entries) b.add(e);
  return b.finish({ st, tailHash, tailFrom: tailFrom ?? entries[entries.length - 1]?.offset ?? 0, categories });
}

/**
 * What an append writes into an index in place: `records` at the end of its body (one new entry's, or every entry
 * of a category it did not have, then maybe the new entry's), and the header that then describes the whole file.
 */
export function appendRecords(index: IndexScan, records: { n: number; bytes: Buffer }, d: Omit<Describes, "categories">, categories: number): { at: number; header: Buffer } {
  const sum = crc32(records.bytes, index.sum);
  const header = Buffer.alloc(HEADER);
  writeHeader(new DataView(header.buffer, header.byteOffset, HEADER), index.n + records.n, index.bodyBytes + records.bytes.length, sum, { ...d, categories: index.categories | categories });
  return { at: HEADER + index.bodyBytes, header };
}

/** One entry's record on its own (for appendRecords). */
export function recordOf(e: IndexEntry): { n: number; bytes: Buffer } {
  const bytes = Buffer.alloc(recordBytes(e.hashes.length));
  writeRecord(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), new DataView(bytes.buffer, bytes.byteOffset, bytes.length), 0, e);
  return { n: 1, bytes };
}
