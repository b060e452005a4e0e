// The tokens of ASCII text read straight from a memory file's bytes, for the duplicate gate's cold scan (add.ts,
// scanEntries): the same distinct tokens eachToken() finds (tokens.ts), given as their index bytes (each token's
// FNV-1a hash & 0xff, dup-index.ts), with no string, array or set made per text.
//
// eachToken() of ASCII text lowercases it and expands each compound the word pattern finds (words of [a-z0-9]
// joined by - . _, with a leading -- kept) with compoundTokens(), which depends on the compound alone. Here a small
// state machine finds the same compounds in the bytes (case-insensitive), hashing each one lowercased as it goes;
// a table keyed by that hash, the bytes compared on every hit (so two compounds whose hashes collide stay apart),
// remembers each compound's token ids, learned once through compoundTokens itself. A number (digits only) is its
// own only token (countNumbers). Tokens are deduplicated per text by id (a stamp per id).
//
// Both tables are open-addressed in typed arrays, their keys' bytes in one arena: a 50,000-entry file repeats its
// vocabulary, and in a process that runs once every object made per line is paid again in the collector (TokenIds'
// strings, arrays and map lookups, and collecting them, were over half of the scan at 50,000 entries).
import { compoundTokens } from "./tokens.js";

// The keys' hash: h * 33 ^ byte over the lowercased bytes, kept to 24 bits so that every step stays a small
// integer (before V8 optimises the loop, a 32-bit product is a heap number, allocated per byte).
const KEY_MASK = 0xffffff;
/** The hash of "--". */
const DASHES = ((45 * 33) ^ 45) & KEY_MASK;

/**
 * The low byte of a key's FNV-1a hash (a token's index byte, dup-index.ts): FNV-1a's low 8 bits depend only on the
 * low 8 bits of its state and of its prime (0x93), so they are computed in 8 bits.
 */
function indexByte(bytes: Uint8Array, from: number, to: number): number {
  let f = 0xc5;
  for (let k = from; k < to; k++) f = ((f ^ bytes[k]) * 0x93) & 0xff;
  return f;
}

/** Byte → its lowercase for [A-Za-z0-9], 0 for anything else (the word pattern's characters, case-folded). */
const WORD = new Uint8Array(256);
for (let c = 48; c <= 57; c++) WORD[c] = c;
for (let c = 97; c <= 122; c++) WORD[c] = WORD[c - 32] = c;

/** A table of keys (lowercased bytes) in open addressing: each slot holds an entry's number + 1, 0 when empty. */
interface Keys {
  slots: Int32Array;
  /** 32 - log2 of the slots' count. */
  shift: number;
  hash: Int32Array;
  start: Int32Array;
  length: Int32Array;
  count: number;
}

function newKeys(entries: number): Keys {
  const keys: Keys = { slots: EMPTY, shift: 0, hash: EMPTY, start: EMPTY, length: EMPTY, count: 1 };
  keys.count = 0;
  keys.shift = 32 - Math.log2(entries * 2);
  // Stored twice: a field V8 has seen change is not compiled in as a constant, so the first growth does not throw
  // away the optimised scan (a deoptimisation and a recompile cost more than the scan of a large file).
  keys.slots = new Int32Array(entries * 2);
  keys.hash = new Int32Array(entries);
  keys.start = new Int32Array(entries);
  keys.length = new Int32Array(entries);
  return keys;
}
const EMPTY = new Int32Array(0);
/** Room for this many tokens and compounds at first, doubled as needed. */
const START = 64;
const EMPTY8 = new Uint8Array(0);

/**
 * The most slots a lookup walks. The key hash is not keyed, so a memory file can be written whose compounds all hash
 * alike (50,000 of them would cost ~10^9 probes); a table kept half full walks ~2.5 slots on average, and a walk this
 * long has practically no chance otherwise. Past it the tokenizer stops for the rest of the scan (`flooded`) and every
 * later line goes through eachToken, whose maps V8 hashes with a per-process seed: the same answers, at the old cost.
 */
const MAX_PROBES = 64;
/** Thrown by a lookup past MAX_PROBES; caught by scan. */
const FLOODED: unique symbol = Symbol("flooded");

/** The slot a hash starts probing at (Fibonacci hashing: the product's high bits depend on every bit of it). */
const home = (h: number, shift: number) => Math.imul(h, 0x9e3779b1) >>> shift;

export class ByteTokens {
  /** The keys' bytes (compounds and tokens), end to end, each with bit 5 set (see find). */
  private arena = EMPTY8;
  private arenaEnd = 0;
  private tokens = newKeys(START);
  /** Per token id: its index byte, and the stamp of the last text it was counted in. */
  private tokenByte = EMPTY8;
  private stamps = EMPTY;
  private stamp = 0;
  /** The current text's numbers: start, end and hash of each. */
  private numbers = EMPTY;
  /** A token's bytes while it is looked up. */
  private scratch = EMPTY8;
  private compounds = newKeys(START);
  /** Per compound: where its distinct token ids are in `lists`, and how many. */
  private listAt = EMPTY;
  private listLength = EMPTY;
  private lists = EMPTY;
  private listsEnd = 0;
  /** The last scanned text's distinct tokens, as index bytes; `n` of them. */
  out = EMPTY8;
  n = 0;
  /** Where the last scan stopped: the quote, or `to`. */
  end = 0;
  /** Whether a lookup walked past MAX_PROBES: every scan since has answered false. */
  flooded = false;

  constructor() {
    // Each growing array stored a second time (see newKeys).
    this.arena = new Uint8Array(16 * START);
    this.tokenByte = new Uint8Array(START);
    this.stamps = new Int32Array(START);
    this.listAt = new Int32Array(START);
    this.listLength = new Int32Array(START);
    this.lists = new Int32Array(4 * START);
    this.out = new Uint8Array(START);
    this.numbers = new Int32Array(START);
    this.scratch = new Uint8Array(START);
  }

  /**
   * The distinct tokens of buf[from, to) into `out` and `n`, up to the first quote if one comes first (the end of a
   * JSON string literal; `end` says where it stopped); false (and nothing meaningful in `out`) when it meets a byte
   * over 0x7f, a backslash or a control character before: text that is not ASCII, or a literal with escapes (or not
   * a valid literal), is left to eachToken.
   */
  scan(buf: Buffer, from: number, to: number): boolean {
    if (this.flooded) return false;
    try {
      return this.read(buf, from, to);
    } catch (err) {
      if (err !== FLOODED) throw err;
      // The tables may hold a compound learned halfway: they are never read again.
      this.flooded = true;
      return false;
    }
  }

  private read(buf: Buffer, from: number, to: number): boolean {
    const stamp = ++this.stamp;
    let n = 0;
    let numbers = 0;
    let i = from;
    while (i < to) {
      const b = buf[i];
      if (WORD[b] === 0) {
        if (b === 34) break;
        if (b > 127 || b === 92 || b < 32) return false;
        i++;
        continue;
      }
      // A compound starts at i; the pattern takes a "--" just before it (which a previous compound cannot own: it
      // ends before a character the pattern does not take, and "-" is not one it ends with).
      let start = i;
      let h = 0;
      let number = true;
      if (i - 2 >= from && buf[i - 1] === 45 && buf[i - 2] === 45) {
        start = i - 2;
        h = DASHES;
        number = false;
      }
      for (;;) {
        let c = 0;
        while (i < to && (c = WORD[buf[i]]) !== 0) {
          h = ((h * 33) ^ c) & KEY_MASK;
          if (c > 57) number = false;
          i++;
        }
        // A joiner continues the compound only when a word character follows it.
        const j = i < to ? buf[i] : 0;
        if ((j === 45 || j === 46 || j === 95) && i + 1 < to && WORD[buf[i + 1]] !== 0) {
          h = ((h * 33) ^ j) & KEY_MASK;
          number = false;
          i++;
          continue;
        }
        break;
      }
      if (number) {
        // Looked up once the text's compounds are all known (below).
        if (numbers + 3 > this.numbers.length) this.numbers = grown(this.numbers, numbers + 3);
        this.numbers[numbers++] = start;
        this.numbers[numbers++] = i;
        this.numbers[numbers++] = h;
      } else {
        let c = this.find(this.compounds, h, buf, start, i);
        if (c < 0) c = this.learn(h, buf, start, i);
        const at = this.listAt[c];
        const end = at + this.listLength[c];
        for (let k = at; k < end; k++) n = this.count(this.lists[k], stamp, n);
      }
    }
    this.n = numbers === 0 ? n : this.countNumbers(buf, numbers, stamp, n);
    this.end = i;
    return true;
  }

  /**
   * The numbers of the text (this.numbers[0, count): start, end and hash of each), after its compounds: a number that
   * is a token of a compound seen so far (`5` of `1.5`) is that token; any other is a token of this text alone, told
   * apart from the text's other numbers by its bytes. (Numbers are not remembered: a memory file holds tens of
   * thousands of different ones, and a table of them cost more than it saved.)
   */
  private countNumbers(buf: Buffer, count: number, stamp: number, n: number): number {
    const numbers = this.numbers;
    for (let k = 0; k < count; k += 3) {
      const from = numbers[k];
      const to = numbers[k + 1];
      const id = this.find(this.tokens, numbers[k + 2], buf, from, to);
      if (id >= 0) {
        n = this.count(id, stamp, n);
        numbers[k + 2] = -1; // a known token: not one to compare the later numbers with
        continue;
      }
      let seen = false;
      for (let m = 0; m < k && !seen; m += 3) {
        if (numbers[m + 2] < 0 || numbers[m + 1] - numbers[m] !== to - from) continue;
        let q = 0;
        while (q < to - from && buf[numbers[m] + q] === buf[from + q]) q++;
        seen = q === to - from;
      }
      if (seen) continue;
      if (n === this.out.length) this.out = grown(this.out, n + 1);
      this.out[n++] = indexByte(buf, from, to);
    }
    return n;
  }

  /** Token `id` into `out` unless this text has it already; the new count. */
  private count(id: number, stamp: number, n: number): number {
    if (this.stamps[id] === stamp) return n;
    this.stamps[id] = stamp;
    if (n === this.out.length) this.out = grown(this.out, n + 1);
    this.out[n] = this.tokenByte[id];
    return n + 1;
  }

  /** The entry of `keys` whose key is buf[from, to) lowercased, or -1. */
  private find(keys: Keys, h: number, buf: Uint8Array, from: number, to: number): number {
    const { slots, hash, start, length } = keys;
    const mask = slots.length - 1;
    const arena = this.arena;
    const len = to - from;
    let probes = 0;
    for (let s = home(h, keys.shift); ; s = (s + 1) & mask) {
      const e = slots[s] - 1;
      if (e < 0) return -1;
      if (++probes > MAX_PROBES) throw FLOODED;
      if (hash[e] !== h || length[e] !== len) continue;
      const a = start[e];
      let k = 0;
      // Keys are kept with bit 5 set: letters lowercase, digits, "-" and "." as they are, "_" as 0x7f (no other
      // byte of a compound becomes one of these).
      while (k < len && (buf[from + k] | 0x20) === arena[a + k]) k++;
      if (k === len) return e;
    }
  }

  /** A new entry of `keys` for the lowercased key buf[from, to) (not in it yet); its number. */
  private insert(keys: Keys, h: number, buf: Uint8Array, from: number, to: number): number {
    const len = to - from;
    if (this.arenaEnd + len > this.arena.length) {
      const bigger = new Uint8Array(Math.max(2 * this.arena.length, this.arenaEnd + len));
      bigger.set(this.arena.subarray(0, this.arenaEnd));
      this.arena = bigger;
    }
    for (let k = 0; k < len; k++) this.arena[this.arenaEnd + k] = buf[from + k] | 0x20;
    if (keys.count === keys.hash.length) grow(keys);
    const e = keys.count++;
    keys.hash[e] = h;
    keys.start[e] = this.arenaEnd;
    keys.length[e] = len;
    this.arenaEnd += len;
    place(keys, e);
    return e;
  }

  /** The id of the token buf[from, to) (lowercase ASCII), a new one the first time; `h`: its key hash. */
  private token(h: number, buf: Uint8Array, from: number, to: number): number {
    const found = this.find(this.tokens, h, buf, from, to);
    if (found >= 0) return found;
    const id = this.insert(this.tokens, h, buf, from, to);
    if (id === this.tokenByte.length) {
      const bytes = new Uint8Array(2 * id);
      bytes.set(this.tokenByte);
      this.tokenByte = bytes;
      const stamps = new Int32Array(2 * id);
      stamps.set(this.stamps);
      this.stamps = stamps;
    }
    this.tokenByte[id] = indexByte(buf, from, to);
    return id;
  }

  /** The compound buf[from, to) (any case), seen for the first time: its entry, with its distinct tokens. */
  private learn(h: number, buf: Buffer, from: number, to: number): number {
    const c = this.insert(this.compounds, h, buf, from, to);
    if (c === this.listAt.length) {
      this.listAt = grown(this.listAt, c + 1);
      this.listLength = grown(this.listLength, c + 1);
    }
    const first = this.listsEnd;
    this.listAt[c] = first;
    compoundTokens(buf.toString("latin1", from, to).toLowerCase(), (t) => {
      // The token's bytes (ASCII) into the scratch array, and its key hash.
      if (t.length > this.scratch.length) this.scratch = new Uint8Array(2 * t.length);
      const bytes = this.scratch;
      let th = 0;
      for (let k = 0; k < t.length; k++) {
        bytes[k] = t.charCodeAt(k);
        th = ((th * 33) ^ bytes[k]) & KEY_MASK;
      }
      const id = this.token(th, bytes, 0, t.length);
      for (let k = first; k < this.listsEnd; k++) if (this.lists[k] === id) return;
      if (this.listsEnd === this.lists.length) this.lists = grown(this.lists, this.listsEnd + 1);
      this.lists[this.listsEnd++] = id;
    });
    this.listLength[c] = this.listsEnd - first;
    return c;
  }
}

/** A copy of `a` with room for at least `size` elements. */
function grown<T extends Uint8Array | Int32Array>(a: T, size: number): T {
  const bigger = new (a.constructor as new (n: number) => T)(Math.max(size, 2 * a.length));
  bigger.set(a);
  return bigger;
}

/** Entry `e` into its slot (the table kept at most half full). */
function place(keys: Keys, e: number): void {
  const mask = keys.slots.length - 1;
  let s = home(keys.hash[e], keys.shift);
  while (keys.slots[s] !== 0) s = (s + 1) & mask;
  keys.slots[s] = e + 1;
}

/** Twice the room, every entry placed again. */
function grow(keys: Keys): void {
  const entries = keys.hash.length * 2;
  const bigger = (a: Int32Array) => {
    const b = new Int32Array(entries);
    b.set(a);
    return b;
  };
  keys.hash = bigger(keys.hash);
  keys.start = bigger(keys.start);
  keys.length = bigger(keys.length);
  keys.slots = new Int32Array(entries * 2);
  keys.shift--;
  for (let e = 0; e < keys.count; e++) place(keys, e);
}
