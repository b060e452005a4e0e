// `next`'s and the workflow's read of the memory file through an index (issue 33): `.design/.memory.jsonl.terms`,
// beside the memory file, says per memory where its line is and which tokens the scorer can find in it, so a call
// reads the index and only the lines that share a token with some role's query, instead of scoring every line.
//
// Why this is exact: memory-search's score (scoring.ts) is zero unless a query token is among the tokens
// (tokens.ts) of the entry's keyword text or content, and only a positive score ranks (Ranking). The index keeps,
// per object line, a 16-bit hash of each of those tokens, computed from the same two texts the scorer builds
// (keywords joined as searchScores joins them, content when it is a string), and the two other factors of the
// score (timestamp and importance, as the scorer reads them). A token the entry shares with a query has the same
// hash on both sides, so the count of the query's tokens whose hash the entry holds is at least its hit count, and
// the score's formula over that count is an upper bound of its score (a hash collision only loosens it). Lines are
// read back (at their offsets) and scored exactly as the full scan scores them only while their bound can still
// reach the best `limit` scores (answer()); the ones read are ranked in file order, so ties break the same way.
// The count of unreadable lines (the warning's figure) is in the header.
//
// Layout (little-endian): a 76-byte header (magic, version, entry count, hash count, unreadable-line count, CRC-32
// of the body, the memory file's device, inode, size, mtime and ctime in ns, where its last non-blank line starts,
// an FNV hash of the bytes from there to the end, and the CRC-32 of the whole file), then the body: every entry's
// offset, then every length, then every hash count (u32 each), every timestamp, every importance (f64 each), then
// the hashes (u16), padded to 4 bytes.
//
// Never trusted blindly: the size must match the counts, the CRC the body, the entries must lie in the file in
// order, and every line read back must begin and end at a line end and hold a JSON object. Fresh means the memory
// file's stat and tail are the header's. When the file only grew (memory-add appends: same device and inode, longer,
// its first bytes hashing to the header's CRC-32 and ending at a line end), the appended lines are indexed and added
// (one read of the file, no tokenising of the rest). Anything else (missing, rewritten by a boost, edited, replaced,
// torn, hostile) means the full scan of rank-file.ts, and the index rebuilt. Either is replaced atomically (a
// cache: no fsync; a crash leaves the old index or none, and a stale one is caught by the checks), and only when
// the file is still what was read. Nothing but the memory file (through the one descriptor opened on it, within
// its size) and the index is read. What this cannot notice: a same-size in-place edit by another program within
// the file system's timestamp granularity of the index's build that leaves the last line as it was (as dup-index).
//
// Why one file: the index's layout, its builder, its reader and the bound that relies on what the builder stored
// must agree byte for byte and with the scorer's formula; split, each would import the others' layout.
import { closeSync, constants, fstatSync, openSync, readSync, type BigIntStats } from "node:fs";
import { MAX_JSONL_BYTES, parseJsonText, sweepOrphans, writeAtomic } from "../../store.js";
import { openRegular } from "../../base/safe-read.js";
import { crc32, fnvOf, hashBytes } from "./dup-index.js";
import { STRING_LITERALS, matchMemoryLine, text as literalText, fromCaptures } from "./fast-line.js";
import { rankMemoryFile, type MemoryRanking } from "./rank-file.js";
import { importanceOf, QueryGroup, Ranking, searchScores, searchScoresOfCaptures, type Entry } from "./scoring.js";
import { parseTimestamp } from "../../lib/values.js";
import { eachToken, TokenIds } from "./tokens.js";

/** The index's path, relative to the project. */
export const TERMS_FILE = ".design/.memory.jsonl.terms";
/** Memory files smaller than this are simply scanned (memory-add's index starts at the same size). */
export const TERMS_MIN_BYTES = 256 * 1024;

const MAGIC = 0x544d4f44; // "DOMT"
const VERSION = 1;
const HEADER = 76;
/** The longest tail (from the last non-blank line) hashed on a read; an index saying more is not used. */
const MAX_TAIL = 1024 * 1024;

/**
 * How a ranking was answered (for tests and the bench): through a fresh index, through one extended by the lines
 * appended since it was built, by the full scan (the index rebuilt), or by the full scan of a small file.
 */
export type Route = "index" | "extend" | "scan" | "small";

const statKey = (st: BigIntStats) => [st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs];
const hash16 = (h: number) => (h ^ (h >>> 16)) & 0xffff;
const isEol = (b: number) => b === 10 || b === 13;
const bodyEnd = (n: number, h: number) => HEADER + 28 * n + ((2 * h + 3) & ~3);

/**
 * rankMemoryFile's answer for `queries`, through the index at `termsPath` when it is fresh (or extended when the
 * file only grew); otherwise the full scan, and the index rebuilt there (`termsPath` null: the helper may not write
 * it, so the full scan).
 */
export function rankMemoryIndexed(
  path: string,
  termsPath: string | null,
  queries: ReadonlyArray<ReadonlySet<string>>,
  limit: number,
  nowSec: number,
  route?: (r: Route) => void,
): MemoryRanking {
  const o = openRegular(path, MAX_JSONL_BYTES);
  if (!o.ok) {
    route?.("scan");
    return o.reason === "missing" ? { kind: "missing" } : rankMemoryFile(path, queries, limit, nowSec);
  }
  const fd = o.fd;
  let how: Route = "scan";
  try {
    const st = fstatSync(fd, { bigint: true });
    if (termsPath === null || st.size < BigInt(TERMS_MIN_BYTES)) {
      how = "small";
      return rankMemoryFile(path, queries, limit, nowSec);
    }
    const size = Number(st.size);
    const idx = decode(readIndex(termsPath, size));
    if (idx && sameKey(idx.key, statKey(st)) && tailMatches(fd, size, idx)) {
      const through = answer(fd, size, idx, queries, limit, nowSec);
      if (through) {
        how = "index";
        return through;
      }
    } else if (idx && idx.key[0] === st.dev && idx.key[1] === st.ino && idx.key[2] < st.size) {
      const grown = extend(fd, size, st, idx);
      const gi = grown && decode(grown);
      const through = gi && answer(fd, size, gi, queries, limit, nowSec);
      if (through) {
        put(fd, st, termsPath, grown as Buffer);
        how = "extend";
        return through;
      }
    }
    const scan = rankMemoryFile(path, queries, limit, nowSec);
    if (scan.kind === "ok") put(fd, st, termsPath, buildIndex(fd, size, st));
    return scan;
  } catch {
    how = "scan";
    return rankMemoryFile(path, queries, limit, nowSec);
  } finally {
    closeSync(fd);
    route?.(how);
  }
}

/** `length` bytes of `fd` at `position` into `buf` (from 0); how many were read. */
function preadInto(fd: number, buf: Buffer, length: number, position: number): number {
  let got = 0;
  while (got < length) {
    const k = readSync(fd, buf, got, length - got, position + got);
    if (k === 0) break;
    got += k;
  }
  return got;
}

/** The index file's bytes: a regular file, not through a symlink, no larger than an index of this memory file can be. */
function readIndex(termsPath: string, memorySize: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(termsPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    // At most a record (12 bytes) and a few hashes (2 bytes each) per line of 2+ bytes: 8 bytes per byte is ample.
    if (!st.isFile() || st.size < HEADER || st.size > Math.min(HEADER + 8 * memorySize + 4, 2 ** 31) || st.size % 4 !== 0) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    return preadInto(fd, buf, st.size, 0) === st.size ? buf : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** An index as read: its header's figures and its body's arrays. */
interface Index {
  buf: Buffer;
  n: number;
  h: number;
  skipped: number;
  key: bigint[];
  tailFrom: number;
  tailHash: number;
  prefixCrc: number;
  offsets: Uint32Array;
  lengths: Uint32Array;
  counts: Uint32Array;
  /** Per entry its timestamp in seconds as the scorer parses it (NaN: no timestamp key, age 0) and importance. */
  times: Float64Array;
  importances: Float64Array;
  hashAt: number;
}

const sameKey = (a: readonly bigint[], b: readonly bigint[]) => a.every((v, i) => v === b[i]);

/**
 * An index whose bytes are whole and consistent: its magic and version, a size that matches its counts, its CRC,
 * its entries in order inside the file it describes, counts adding up. Undefined otherwise. Whether it describes the
 * memory file as it is now is for the caller.
 */
function decode(buf: Buffer | undefined): Index | undefined {
  if (!buf || buf.length < HEADER) return undefined;
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.length);
  if (dv.getUint32(0, true) !== MAGIC || dv.getUint32(4, true) !== VERSION) return undefined;
  const n = dv.getUint32(8, true);
  const h = dv.getUint32(12, true);
  if (buf.length !== bodyEnd(n, h)) return undefined;
  if (crc32(buf.subarray(HEADER), 0) !== dv.getUint32(20, true)) return undefined;
  const key = [0, 1, 2, 3, 4].map((i) => dv.getBigUint64(24 + i * 8, true));
  const size = Number(key[2]);
  const offsets = u32s(buf, HEADER, n);
  const lengths = u32s(buf, HEADER + 4 * n, n);
  const counts = u32s(buf, HEADER + 8 * n, n);
  let end = -1;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const off = offsets[i];
    if (off <= end || lengths[i] === 0 || off + lengths[i] > size) return undefined;
    end = off + lengths[i];
    total += counts[i];
  }
  if (total !== h) return undefined;
  const tailFrom = dv.getUint32(64, true);
  if (tailFrom > size || size - tailFrom > MAX_TAIL) return undefined;
  const times = f64s(buf, HEADER + 12 * n, n);
  const importances = f64s(buf, HEADER + 20 * n, n);
  return { buf, n, h, skipped: dv.getUint32(16, true), key, tailFrom, tailHash: dv.getUint32(68, true), prefixCrc: dv.getUint32(72, true), offsets, lengths, counts, times, importances, hashAt: HEADER + 28 * n };
}

/** Whether the memory file's bytes from the index's tail offset to the end hash as the index says. */
function tailMatches(fd: number, size: number, idx: Index): boolean {
  const tail = Buffer.allocUnsafe(size - idx.tailFrom);
  return preadInto(fd, tail, tail.length, idx.tailFrom) === tail.length && hashBytes(tail) === idx.tailHash;
}

/**
 * The index extended by the lines appended since it was built (memory-add appends; only a boost or another program
 * rewrites): the file must be the same one (device, inode), longer, its first bytes the very bytes the index
 * describes (their CRC-32, in the header) ending at a line end. Undefined otherwise.
 */
function extend(fd: number, size: number, st: BigIntStats, idx: Index): Buffer | undefined {
  const old = Number(idx.key[2]);
  const file = Buffer.allocUnsafe(size);
  if (preadInto(fd, file, size, 0) !== size) return undefined;
  if (old === 0 || !isEol(file[old - 1]) || crc32(file.subarray(0, old), 0) !== idx.prefixCrc) return undefined;
  const grown = scanRegion(file, old, size);
  const n = idx.n + grown.offsets.length;
  const h = idx.h + grown.h;
  const hashes = new Uint16Array(h);
  for (let i = 0; i < idx.h; i++) hashes[i] = idx.buf[idx.hashAt + 2 * i] | (idx.buf[idx.hashAt + 2 * i + 1] << 8);
  hashes.set(grown.hashes.subarray(0, grown.h), idx.h);
  const parts: Parts = {
    offsets: joined(idx.offsets, grown.offsets),
    lengths: joined(idx.lengths, grown.lengths),
    counts: joined(idx.counts, grown.counts),
    times: joinedF(idx.times, grown.times),
    importances: joinedF(idx.importances, grown.importances),
    hashes,
    h,
    skipped: idx.skipped + grown.skipped,
    lastFrom: grown.lastFrom >= 0 ? grown.lastFrom : idx.tailFrom,
  };
  if (parts.offsets.length !== n) return undefined;
  return serialise(parts, st, file, crc32(file.subarray(old), idx.prefixCrc));
}

function joinedF(a: Float64Array, b: ArrayLike<number>): Float64Array {
  const out = new Float64Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function joined(a: Uint32Array, b: ArrayLike<number>): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * The ranking through an index of the file as it is; undefined when a line is not where the index says or scores
 * above what the index allows.
 *
 * Per query, each entry sharing a token hash with it gets an upper bound of its score: the score's own formula
 * (QueryGroup.scores) with the entry's stored timestamp and importance, and for the hit count the number of the
 * query's tokens whose hash the entry holds (at least the tokens it shares; IEEE arithmetic is monotonic, so the
 * bound is never below the score). Lines are read back only while their bound can still reach the query's
 * `limit`-th best score read so far: first every entry whose bound is at least the `limit`-th best bound, then, if
 * the scores read fall short of it, every entry whose bound reaches the `limit`-th best score. An entry left unread
 * scores strictly below `limit` entries that were read, so it cannot rank; the read ones are ranked in file order.
 */
function answer(fd: number, size: number, idx: Index, queries: ReadonlyArray<ReadonlySet<string>>, limit: number, nowSec: number): MemoryRanking | undefined {
  const { buf, n, offsets, lengths, counts, times, importances, skipped } = idx;
  const nq = queries.length;
  const rankings = queries.map(() => new Ranking(limit));
  const done = () => ({ kind: "ok" as const, ranked: rankings.map((r) => r.result()), skipped });
  if (limit === 0) return done();
  // Per token hash, the queries holding tokens with that hash, and how many each.
  const slot = new Int32Array(65536).fill(-1);
  const owners: number[][] = [];
  const weights: number[][] = [];
  queries.forEach((q, qi) => {
    for (const t of q) {
      const x = hash16(fnvOf(t));
      if (slot[x] < 0) {
        slot[x] = owners.length;
        owners.push([]);
        weights.push([]);
      }
      const o = owners[slot[x]];
      const k = o.indexOf(qi);
      if (k < 0) {
        o.push(qi);
        weights[slot[x]].push(1);
      } else weights[slot[x]][k]++;
    }
  });
  if (owners.length === 0) return done();
  const sizes = queries.map((q) => q.size);
  // Per query, its candidates (entry, bound) in file order.
  const candEntry: number[][] = queries.map(() => []);
  const candBound: number[][] = queries.map(() => []);
  const hitCount = new Int32Array(nq);
  const touched: number[] = [];
  let at = idx.hashAt;
  for (let i = 0; i < n; i++) {
    const stop = at + 2 * counts[i];
    for (let p = at; p < stop; p += 2) {
      const k = slot[buf[p] | (buf[p + 1] << 8)];
      if (k < 0) continue;
      const o = owners[k];
      const w = weights[k];
      for (let j = 0; j < o.length; j++) {
        if (hitCount[o[j]] === 0) touched.push(o[j]);
        hitCount[o[j]] += w[j];
      }
    }
    at = stop;
    if (touched.length === 0) continue;
    const age = Number.isNaN(times[i]) ? 0 : nowSec - times[i];
    for (const q of touched) {
      const bound = scoreOf(Math.min(hitCount[q], sizes[q]), sizes[q], age, importances[i]);
      hitCount[q] = 0;
      if (bound > 0 || Number.isNaN(bound)) {
        candEntry[q].push(i);
        candBound[q].push(bound);
      }
    }
    touched.length = 0;
  }

  // The entries read: their exact scores for every query (the line scored once for all) and the entry itself.
  const group = new QueryGroup(queries);
  const exact = new Map<number, { entry: Entry; scores: Float64Array }>();
  let line = Buffer.allocUnsafe(4096);
  const read = (i: number): boolean => {
    if (exact.has(i)) return true;
    // The line with the byte before and after it: both must be line ends (or the file's edges), none inside.
    const from = offsets[i] === 0 ? 0 : offsets[i] - 1;
    const to = offsets[i] + lengths[i];
    if (to > size) return false;
    const want = to + (to < size ? 1 : 0) - from;
    if (line.length < want) line = Buffer.allocUnsafe(Math.max(want, 2 * line.length));
    if (preadInto(fd, line, want, from) !== want) return false;
    const s = offsets[i] - from;
    const e = s + lengths[i];
    if (s === 1 && !isEol(line[0])) return false;
    if (e < want && !isEol(line[e])) return false;
    const inside = line.subarray(s, e);
    if (inside.indexOf(10) >= 0 || inside.indexOf(13) >= 0) return false;
    const t = inside.toString("utf8").trim();
    if (t === "") return false;
    const scores = new Float64Array(nq);
    const m = matchMemoryLine(t);
    let entry: Entry | undefined;
    if (m) {
      searchScoresOfCaptures(m, group, nowSec, scores);
      entry = fromCaptures(m);
    } else {
      entry = objectLine(t);
      if (!entry) return false;
      searchScores(entry, group, nowSec, scores);
    }
    exact.set(i, { entry, scores });
    return true;
  };
  for (let q = 0; q < nq; q++) {
    const ents = candEntry[q];
    const bounds = candBound[q];
    const readFrom = (tau: number, check: boolean): boolean => {
      for (let c = 0; c < ents.length; c++) {
        if (bounds[c] < tau) continue; // NaN is never below: read
        if (!read(ents[c])) return false;
        // The index's factors must bound the line's score.
        if (check && (exact.get(ents[c]) as { scores: Float64Array }).scores[q] > bounds[c]) return false;
      }
      return true;
    };
    if (limit > 64 || ents.length <= limit) {
      if (!readFrom(-Infinity, true)) return undefined;
      continue;
    }
    const tau = kthLargest(bounds, limit);
    if (!readFrom(tau, true)) return undefined;
    const best = kthBestScore(exact, q, limit);
    if (best >= tau) continue;
    if (!readFrom(best > 0 ? best : -Infinity, true)) return undefined;
  }
  const order = [...exact.keys()].sort((x, y) => x - y);
  for (const i of order) {
    const { entry, scores } = exact.get(i) as { entry: Entry; scores: Float64Array };
    for (let q = 0; q < nq; q++) rankings[q].offer(entry, scores[q]);
  }
  return done();
}

/** QueryGroup.scores' formula, the same operations in the same order. */
const scoreOf = (hits: number, size: number, age: number, importance: number) => (hits / size) * 0.9 ** (age / MONTH) * (importance / 10);
const MONTH = 30 * 86_400;

/** The k-th largest of `values` (NaN counted as largest); k <= values.length. */
function kthLargest(values: readonly number[], k: number): number {
  const top: number[] = [];
  for (const v0 of values) {
    const v = Number.isNaN(v0) ? Infinity : v0;
    if (top.length === k && v <= top[k - 1]) continue;
    let p = top.length;
    while (p > 0 && top[p - 1] < v) p--;
    top.splice(p, 0, v);
    if (top.length > k) top.pop();
  }
  return top[k - 1];
}

/** The k-th best positive score of query `q` among the entries read; 0 when fewer than k scored above 0. */
function kthBestScore(exact: Map<number, { scores: Float64Array }>, q: number, k: number): number {
  const top: number[] = [];
  for (const { scores } of exact.values()) {
    const v = scores[q];
    if (!(v > 0)) continue;
    if (top.length === k && v <= top[k - 1]) continue;
    let p = top.length;
    while (p > 0 && top[p - 1] < v) p--;
    top.splice(p, 0, v);
    if (top.length > k) top.pop();
  }
  return top.length === k ? top[k - 1] : 0;
}

function f64s(buf: Buffer, at: number, n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = buf.readDoubleLE(at + 8 * i);
  return out;
}

function u32s(buf: Buffer, at: number, n: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = buf.readUInt32LE(at + 4 * i);
  return out;
}

/** The object a trimmed line holds (scanJsonlFile's rule); undefined for anything else. */
function objectLine(t: string): Entry | undefined {
  let v: unknown;
  try {
    v = parseJsonText(t);
  } catch {
    return undefined;
  }
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Entry) : undefined;
}

/**
 * Put an index of the memory file open on `fd` in place, atomically (a cache: no fsync), but only if the file is
 * still as `st` describes it: an index must never describe other bytes than its key's. Failures are ignored.
 */
function put(fd: number, st: BigIntStats, termsPath: string, bytes: Buffer | undefined): void {
  try {
    if (!bytes || !sameKey(statKey(st), statKey(fstatSync(fd, { bigint: true })))) return;
    sweepOrphans(termsPath);
    writeAtomic(termsPath, bytes, false);
  } catch {
    /* a cache: the next call scans and tries again */
  }
}

/** The records of a stretch of the file: per entry its line's offset, length and hash count, and the hashes. */
interface Parts {
  offsets: ArrayLike<number>;
  lengths: ArrayLike<number>;
  counts: ArrayLike<number>;
  times: ArrayLike<number>;
  importances: ArrayLike<number>;
  hashes: Uint16Array;
  h: number;
  skipped: number;
  /** Where the last non-blank line starts (-1: none). */
  lastFrom: number;
}

/** The index of the first `size` bytes of `fd`, as `st` describes the file. */
export function buildIndex(fd: number, size: number, st: BigIntStats): Buffer | undefined {
  const file = Buffer.allocUnsafe(size);
  if (preadInto(fd, file, size, 0) !== size) return undefined;
  return serialise(scanRegion(file, 0, size), st, file, crc32(file, 0));
}

/**
 * The records of the lines of `file[from, to)`, read as scanJsonlFile reads them (split at "\n", "\r" and "\r\n",
 * trimmed, blank ones ignored): each object line an entry, any other line counted as unreadable. `from` is 0 or
 * just after a line end.
 */
function scanRegion(file: Buffer, from: number, to: number): Parts {
  const offsets: number[] = [];
  const lengths: number[] = [];
  const counts: number[] = [];
  const times: number[] = [];
  const importances: number[] = [];
  let hashes = new Uint16Array(Math.max(1024, (to - from) >>> 4));
  let h = 0;
  let skipped = 0;
  const ids = new TokenIds();
  const idHash: number[] = [];
  const stamps = new Uint32Array(65536);
  let stamp = 0;
  const add = (x: number) => {
    if (stamps[x] === stamp) return;
    stamps[x] = stamp;
    if (h === hashes.length) {
      const bigger = new Uint16Array(2 * hashes.length);
      bigger.set(hashes);
      hashes = bigger;
    }
    hashes[h++] = x;
  };
  const addText = (s: string) => {
    if (s === "") return;
    if (ids.scan(s)) {
      for (let k = 0; k < ids.n; k++) {
        const id = ids.out[k];
        let x = idHash[id];
        if (x === undefined) x = idHash[id] = hash16(fnvOf(ids.texts[id]));
        add(x);
      }
    } else eachToken(s, (t) => add(hash16(fnvOf(t))));
  };
  let start = from;
  let lastFrom = -1;
  // The next "\n" and "\r" at or after `start`, each searched again only once passed (a file without "\r" is
  // searched for it once, not once per line).
  let lf = -1;
  let cr = -1;
  while (start <= to) {
    if (lf < start) {
      lf = file.indexOf(10, start);
      if (lf < 0 || lf > to) lf = to;
    }
    if (cr < start) {
      cr = file.indexOf(13, start);
      if (cr < 0 || cr > to) cr = to;
    }
    const end = Math.min(lf, cr);
    if (end > start) {
      const t = file.toString("utf8", start, end).trim();
      if (t !== "") {
        lastFrom = start;
        let keywordText = "";
        let content = "";
        let ok = true;
        let time = Number.NaN;
        let importance = 5;
        const m = matchMemoryLine(t);
        if (m) {
          time = parseTimestamp(literalText(m[2]));
          const imp = Number(m[8]);
          importance = Number.isFinite(imp) ? imp : 5;
          // The two texts the scorer reads (searchScoresOfCaptures, searchScores).
          const kw = m[4];
          if (kw !== "") {
            if (kw.includes("\\")) for (const k of kw.match(STRING_LITERALS) as string[]) keywordText += `${literalText(k)} , `;
            else keywordText = kw;
          }
          content = literalText(m[5]);
        } else {
          const entry = objectLine(t);
          if (entry) {
            // The two factors as searchScores computes them (no timestamp key: age 0).
            time = "timestamp" in entry ? parseTimestamp(entry.timestamp) : Number.NaN;
            importance = importanceOf(entry);
            const kw = entry.keywords;
            const words = typeof kw === "string" ? [kw] : Array.isArray(kw) ? kw : [];
            for (const k of words) if (typeof k === "string") keywordText += `${k} , `;
            if (typeof entry.content === "string") content = entry.content;
          } else ok = false;
        }
        if (ok) {
          if (++stamp === 0xffffffff) {
            stamps.fill(0);
            stamp = 1;
          }
          const before = h;
          addText(keywordText);
          addText(content);
          offsets.push(start);
          lengths.push(end - start);
          counts.push(h - before);
          times.push(time);
          importances.push(importance);
        } else skipped++;
      }
    }
    if (end >= to) break;
    start = end + (file[end] === 13 && file[end + 1] === 10 ? 2 : 1);
  }
  return { offsets, lengths, counts, times, importances, hashes, h, skipped, lastFrom };
}

/** An index's bytes: `parts` describing `file` (its whole length) as `st` shows it, `fileCrc` the CRC-32 of its bytes. */
function serialise(parts: Parts, st: BigIntStats, file: Buffer, fileCrc: number): Buffer {
  const { offsets, lengths, counts, hashes, h } = parts;
  const n = offsets.length;
  const out = Buffer.alloc(bodyEnd(n, h));
  const dv = new DataView(out.buffer, out.byteOffset, out.length);
  for (let i = 0; i < n; i++) {
    dv.setUint32(HEADER + 4 * i, offsets[i], true);
    dv.setUint32(HEADER + 4 * (n + i), lengths[i], true);
    dv.setUint32(HEADER + 4 * (2 * n + i), counts[i], true);
    dv.setFloat64(HEADER + 12 * n + 8 * i, parts.times[i], true);
    dv.setFloat64(HEADER + 20 * n + 8 * i, parts.importances[i], true);
  }
  const hashAt = HEADER + 28 * n;
  for (let i = 0; i < h; i++) dv.setUint16(hashAt + 2 * i, hashes[i], true);
  const lastFrom = Math.max(0, parts.lastFrom);
  dv.setUint32(0, MAGIC, true);
  dv.setUint32(4, VERSION, true);
  dv.setUint32(8, n, true);
  dv.setUint32(12, h, true);
  dv.setUint32(16, parts.skipped, true);
  statKey(st).forEach((v, i) => dv.setBigUint64(24 + i * 8, v, true));
  dv.setUint32(64, lastFrom, true);
  dv.setUint32(68, hashBytes(file.subarray(lastFrom, file.length)), true);
  dv.setUint32(72, fileCrc, true);
  dv.setUint32(20, crc32(out.subarray(HEADER), 0), true);
  return out;
}
