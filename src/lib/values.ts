import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { JS_BUDGET, sha256Small } from "./sha256.js";

// node:crypto is loaded on first use only (~5 ms of a call's start): most commands never hash or make an id.
let crypto: typeof import("node:crypto") | undefined;
const nodeCrypto = () => (crypto ??= require("node:crypto") as typeof import("node:crypto"));

// Value semantics shared by all commands (contract 1.5, 1.6, 3.6, 3.10).

/** Python falsiness: missing, null, false, 0, "", [] and {} are empty. */
export function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") return Object.keys(v as object).length === 0;
  return false;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function isInt(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v);
}

/** A JSON value rendered the way Python's str() renders it (contract 1.2). */
export function pyStr(v: unknown): string {
  if (v === undefined || v === null) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  return JSON.stringify(v);
}

/** Python's string order: by code point (JavaScript's default compares UTF-16 code units). */
export function byCodePoint(a: string, b: string): number {
  for (let i = 0; i < a.length && i < b.length; ) {
    const ca = a.codePointAt(i) as number;
    const cb = b.codePointAt(i) as number;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
  }
  return a.length - b.length;
}

/** Python type names used in validation messages. */
export function pyType(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (Array.isArray(v)) return "list";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "str";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  return "dict";
}

/** Round like Python's round(x, d): exact binary value, ties to even (contract 3.10). */
export function pyRound(x: number, d: number): number {
  if (!Number.isFinite(x)) return x;
  const exact = Math.abs(x).toFixed(Math.min(100, d + 60));
  const [ip, fp = ""] = exact.split(".");
  const rest = fp.slice(d);
  let n = BigInt(ip + fp.slice(0, d));
  const tie = /^50*$/.test(rest);
  const above = rest > "5" + "0".repeat(Math.max(0, rest.length - 1));
  if (above || (tie && n % 2n === 1n)) n += 1n;
  const s = n.toString().padStart(d + 1, "0");
  const v = Number(d ? `${s.slice(0, -d)}.${s.slice(-d)}` : s);
  return x < 0 && v !== 0 ? -v : v;
}

/** UTC timestamp with second precision: 2026-02-18T09:04:05Z. */
export function isoSeconds(ms: number): string {
  // Years 1970-9999 by arithmetic (the first Date#toISOString of a process costs ~1 ms); anything else by Date.
  if (!(ms >= 0 && ms < 253402300800000)) return new Date(ms).toISOString().slice(0, 19) + "Z";
  const secs = Math.floor(ms / 1000);
  const days = Math.floor(secs / 86400);
  const rest = secs - days * 86400;
  // Days since 1970-01-01 to a proleptic Gregorian date (eras of 400 years starting on March 1st).
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const two = (v: number) => (v < 10 ? `0${v}` : `${v}`);
  const hh = Math.floor(rest / 3600);
  const mm = Math.floor((rest % 3600) / 60);
  return `${year}-${two(month)}-${two(day)}T${two(hh)}:${two(mm)}:${two(rest % 60)}Z`;
}

/** Archive folder name: 20260218T090405Z. */
export function compactStamp(ms: number): string {
  return isoSeconds(ms).replace(/[-:]/g, "");
}

const LENIENT = /^(\d{4})-(\d{1,2})-( ?\d{1,2})[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})[Zz]$/;
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/;

function validDate(y: number, mo: number, d: number, h: number, mi: number, s: number): boolean {
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false;
  const monthDays = mo === 2 ? (isLeap(y) ? 29 : 28) : mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31;
  return d <= monthDays;
}

const two = (s: string, i: number) => (s.charCodeAt(i) - 48) * 10 + s.charCodeAt(i + 1) - 48;
const isDigit = (s: string, i: number) => s.charCodeAt(i) - 48 >>> 0 < 10;
const DAYS_BEFORE_MONTH = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

/**
 * The form the helper writes, YYYY-MM-DDTHH:MM:SSZ, read without a regex or a Date: readers parse one per memory
 * line. undefined when the text is not exactly that shape (the general grammar below then decides).
 */
function canonicalSeconds(v: string): number | undefined {
  if (v.length !== 20 || v[4] !== "-" || v[7] !== "-" || v[10] !== "T" || v[13] !== ":" || v[16] !== ":" || v[19] !== "Z") return undefined;
  for (let i = 0; i < 19; i++) if (i !== 4 && i !== 7 && i !== 10 && i !== 13 && i !== 16 && !isDigit(v, i)) return undefined;
  const y = two(v, 0) * 100 + two(v, 2);
  const mo = two(v, 5);
  const d = two(v, 8);
  const h = two(v, 11);
  const mi = two(v, 14);
  const s = two(v, 17);
  if (!validDate(y, mo, d, h, mi, s)) return 0;
  return utcSeconds(y, mo, d, h, mi, s);
}

const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/**
 * Seconds since 1970-01-01T00:00:00Z in the proleptic Gregorian calendar, for any year from 1 (Date.UTC would
 * read years below 100 as 19xx; Python, whose behaviour the contract follows, does not).
 */
function utcSeconds(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  const yb = y - 1;
  const days =
    (y - 1970) * 365 + (Math.floor(yb / 4) - Math.floor(yb / 100) + Math.floor(yb / 400)) - 477 +
    DAYS_BEFORE_MONTH[mo - 1] + (mo > 2 && isLeap(y) ? 1 : 0) + d - 1;
  return days * 86_400 + h * 3600 + mi * 60 + s;
}

/** Timestamp → epoch seconds; anything unparsable is 0 (contract 3.6). */
export function parseTimestamp(v: unknown): number {
  if (typeof v === "number") return Number.isFinite(v) ? v : 0;
  if (typeof v !== "string") return 0;
  const fast = canonicalSeconds(v);
  if (fast !== undefined) return fast;
  let m = LENIENT.exec(v);
  if (m) {
    const [y, mo, d, h, mi, s] = m.slice(1, 7).map((x) => Number(x.trim()));
    if (!validDate(y, mo, d, h, mi, s)) return 0;
    return utcSeconds(y, mo, d, h, mi, s);
  }
  m = RFC3339.exec(v);
  if (m) {
    const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
    if (!validDate(y, mo, d, h, mi, s)) return 0;
    let secs = utcSeconds(y, mo, d, h, mi, s) + (m[7] ? Number(`0${m[7]}`) : 0);
    const off = m[8];
    if (off !== "Z" && off !== "z") {
      const sign = off[0] === "-" ? -1 : 1;
      const digits = off.slice(1).replace(":", "");
      const oh = Number(digits.slice(0, 2));
      const om = Number(digits.slice(2, 4));
      if (oh > 23 || om > 59) return 0;
      secs -= sign * (oh * 3600 + om * 60);
    }
    return secs;
  }
  return 0;
}

/** What this process may still hash in JavaScript (sha256.ts); once spent, node:crypto hashes. */
let jsBudget = JS_BUDGET;

/** Lowercase hex SHA-256 (the first short inputs in JavaScript, so that a call hashing only a goal never loads node:crypto). */
export function sha256(data: string | Buffer): string {
  const size = typeof data === "string" ? (data.length > jsBudget ? Infinity : Buffer.byteLength(data, "utf8")) : data.length;
  if (size <= jsBudget) {
    jsBudget -= size;
    return sha256Small(data);
  }
  jsBudget = 0;
  return nodeCrypto().createHash("sha256").update(data).digest("hex");
}

// The kernel's random source, read directly: node:crypto costs ~7 ms of CPU to load (some twenty built-in
// modules) for 16 random bytes. Its only read outside the project: a character device, nothing the project holds.
let randomSource = "/dev/urandom";

/** For tests: read random bytes from `path` instead (a path that is not a character device falls back to node:crypto). */
export function useRandomSource(path: string): void {
  randomSource = path;
}

/** `out` filled from the random device; false (nothing trusted) when it is missing, short or not a character device. */
function fromRandomDevice(out: Buffer): boolean {
  let fd: number;
  try {
    fd = openSync(randomSource, "r");
  } catch {
    return false;
  }
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
    for (let n = 0; n < out.length; ) {
      const k = readSync(fd, out, n, out.length - n, null);
      if (k <= 0) return false;
      n += k;
    }
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/** `n` random bytes from the kernel's random device, or from node:crypto when the device is not usable. */
export function randomBytes(n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  if (!fromRandomDevice(b)) nodeCrypto().randomFillSync(b);
  return b;
}

/** Random UUID v4 (RFC 9562: version 4, variant 10), lowercase canonical form. */
export function uuid4(): string {
  const b = randomBytes(16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Stable descending sort by a numeric key (equal keys keep their order). */
export function sortDesc<T>(items: T[], key: (t: T) => number | number[]): T[] {
  const withKey = items.map((item, i) => ({ item, i, k: key(item) }));
  withKey.sort((a, b) => {
    const ka = Array.isArray(a.k) ? a.k : [a.k];
    const kb = Array.isArray(b.k) ? b.k : [b.k];
    for (let x = 0; x < ka.length; x++) if (ka[x] !== kb[x]) return kb[x] - ka[x];
    return a.i - b.i;
  });
  return withKey.map((w) => w.item);
}
