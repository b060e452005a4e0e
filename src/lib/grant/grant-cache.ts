// The permission hook's record of a grant it verified in full, so that the next call the grant covers need not load
// node:crypto (~4.5 ms of CPU), check the HMAC and hash the plan and its spec files again (issue 23: the hook's cost
// per call within 1.2x bare node).
//
// What a record binds, and why it is enough: the verdict of `grantState` is a function of the project's real root,
// the user's key and the bytes of `.design/grant.json`, `.design/run-execute.json`, `.design/plan.json` and each
// verification spec file (read by the same bounded readers, under the same rules), plus the clock (the expiry, which
// the caller checks on every call from the grant's own bytes). A record holds exactly those bytes as they were
// verified (bytes, not text: the spec files are hashed as bytes) and the identity of the key file
// (`fileIdentity`: device, inode, mode, links, size, and the modification, change and birth times; the change time
// cannot be set back from user space). The hook reads the same files again, compares them byte for byte with the record (memcmp, nothing
// decoded) and stats the key:
// any difference, however small, and whatever timestamps were restored, is a miss, and the grant is verified in
// full. No timestamp is trusted for a file inside the project (a same-size rewrite within one clock tick, or a write
// through a shared mapping, leaves ctime alone); only the key, which lives outside every project, is compared by
// identity. A record never holds a refusal.
//
// Where it lives: beside the key, `<config>/do/grant-cache-<tag of the root>.json`, written by the hook after a full
// verification (O_EXCL temp file of mode 0600, renamed into place, never through a link), read only when it is a
// regular file private to this user (owner, mode 0600 or stricter, one link), at most 4 MiB, a JSON header of
// exactly the keys below and of this format, for this root, followed by exactly the bytes it counts. Nothing that can write only inside the project can
// reach that folder (the key's own rule: never inside the project); code that can write there could write the key
// itself. Records older than the longest grant are pruned when a record is written.
//
// Imports only node:fs, node:path and the bounded reader: the hook bundles it.
import { closeSync, constants, lstatSync, openSync, readdirSync, renameSync, unlinkSync, writeSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { readRegular } from "../../base/safe-read.js";

export const GRANT_CACHE_FORMAT = 2;
/** A record larger than this is neither written nor read (a plan of some 3 MB is verified in full every time). */
export const MAX_GRANT_CACHE = 4 << 20;
const RECORD = /^grant-cache-[0-9a-f]{16}\.json$/;
const TEMP = /^grant-cache-[0-9a-f]{16}\.json\.[0-9]+-[0-9a-z]+\.tmp$/;
/** A temp file older than this was left by a writer that died. */
const TEMP_MAX_AGE_MS = 60_000;
const MAX_PRUNE = 256;

export interface GrantCacheRecord {
  /** The project's real root. */
  root: string;
  /** `fileIdentity` of the key file whose key verified the grant. */
  key: string;
  /** The verified bytes of grant.json, run-execute.json and plan.json. */
  grant: Buffer;
  run: Buffer;
  plan: Buffer;
  /** Each verification spec of the plan, in its order: its path as the plan gives it (null: none) and its bytes. */
  specs: Array<[string | null, Buffer | null]>;
  /** The plan's worker names and their role (null: two roles claim the name), as `planWorkers` made them. */
  workers: Array<[string, string | null]>;
}

/**
 * The file: the header's length in 8 decimal digits, the header (JSON, these keys exactly), then the verified bytes
 * one after the other, in the order and of the sizes the header gives (grant, run, plan, then each spec file read). Bytes, not text: compared with
 * memcmp, never decoded or escaped.
 */
const HEADER_KEYS: readonly string[] = ["format", "root", "key", "sizes", "specs", "workers"];

/** What was done with the cache on one read of the grant (for tests and the bench). */
export interface GrantCacheUse {
  /**
   * "hit": a record matched, nothing was verified anew; "written": verified in full and recorded; "miss": verified
   * in full, nothing recorded (no place for it, too large, a failed write). Unset: the cache was not reached (no
   * grant, or one that no item, the root or the clock already refused).
   */
  outcome?: "hit" | "written" | "miss";
}

/**
 * A file's identity: what changes whenever its inode is replaced or its content, mode or links change. Times in
 * milliseconds as doubles (sub-microsecond at today's dates): the bigint stat costs ~0.3 ms more in a cold hook.
 */
export function fileIdentity(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.mode}:${st.nlink}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.birthtimeMs}`;
}

/**
 * Where the record for a project root lives: beside the key, named by a 64-bit tag of the root (two FNV-1a-style
 * passes; the JavaScript MD5 costs ~1 ms cold here). Two roots that share a tag share a file and only take turns
 * in it: the record names its root, and a record of another root is a miss.
 */
export function grantCachePath(keyPath: string, root: string): string {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < root.length; i++) {
    const c = root.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, "0");
  return join(dirname(keyPath), `grant-cache-${hex(a)}${hex(b)}.json`);
}

const uid = (): number | undefined => (typeof process.getuid === "function" ? process.getuid() : undefined);

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The record for `root` at `path`, or null: missing, a link, not a regular file, not private to this user, larger
 * than MAX_GRANT_CACHE, or not a record of this format for this root (a header of exactly its keys and types, and
 * exactly as many bytes after it as the header counts).
 */
export function readGrantCache(path: string, root: string): GrantCacheRecord | null {
  const me = uid();
  if (me === undefined) return null;
  const bytes = readRegular(path, MAX_GRANT_CACHE, { noFollow: true, privateTo: me });
  if (bytes === null) return null;
  // The header's length: 8 decimal digits, then the header.
  const digits = bytes.toString("latin1", 0, 8);
  if (!/^[0-9]{8}$/.test(digits)) return null;
  const length = Number(digits);
  if (length < 2 || 8 + length > bytes.length) return null;
  const eol = 8 + length;
  let h: unknown;
  try {
    h = JSON.parse(bytes.toString("utf8", 8, eol));
  } catch {
    return null;
  }
  if (!isObj(h)) return null;
  const keys = Object.keys(h);
  if (keys.length !== HEADER_KEYS.length || !keys.every((k) => HEADER_KEYS.includes(k))) return null;
  const { sizes, specs, workers } = h;
  if (h.format !== GRANT_CACHE_FORMAT || h.root !== root || typeof h.key !== "string") return null;
  if (!Array.isArray(sizes) || sizes.length !== 3 || !Array.isArray(specs) || !Array.isArray(workers)) return null;
  // The bytes after the header, each run of them exactly as long as the header says, and nothing more.
  let at = eol;
  const take = (n: unknown): Buffer | null => {
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0 || at + n > bytes.length) return null;
    at += n;
    return bytes.subarray(at - n, at);
  };
  const grant = take(sizes[0]);
  const run = take(sizes[1]);
  const plan = take(sizes[2]);
  if (!grant || !run || !plan) return null;
  const specBytes: Array<[string | null, Buffer | null]> = [];
  for (const s of specs) {
    if (!Array.isArray(s) || s.length !== 2 || (s[0] !== null && typeof s[0] !== "string")) return null;
    const b = s[1] === null ? null : take(s[1]);
    if (b === null && s[1] !== null) return null;
    specBytes.push([s[0], b]);
  }
  for (const w of workers) if (!Array.isArray(w) || w.length !== 2 || typeof w[0] !== "string" || (w[1] !== null && typeof w[1] !== "string")) return null;
  if (at !== bytes.length) return null;
  return { root, key: h.key, grant, run, plan, specs: specBytes, workers: workers as Array<[string, string | null]> };
}

/**
 * Write the record at `path` (best effort; false when nothing was written): only into a folder that is a real
 * folder of this user that no one else may write, through a new temp file (O_EXCL, O_NOFOLLOW, mode 0600) renamed
 * over the old record (a link there is replaced, never followed). Then records and temp files older than
 * `maxAgeMs` are removed from that folder.
 */
export function writeGrantCache(path: string, record: GrantCacheRecord, now: number, maxAgeMs: number): boolean {
  const me = uid();
  if (me === undefined) return false;
  const dir = dirname(path);
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.uid !== me || (st.mode & 0o022) !== 0) return false;
  } catch {
    return false;
  }
  const header = {
    format: GRANT_CACHE_FORMAT,
    root: record.root,
    key: record.key,
    sizes: [record.grant.length, record.run.length, record.plan.length],
    specs: record.specs.map(([p, b]) => [p, b === null ? null : b.length]),
    workers: record.workers,
  };
  const blobs = [record.grant, record.run, record.plan, ...record.specs.flatMap(([, b]) => (b === null ? [] : [b]))];
  const head = Buffer.from(JSON.stringify(header), "utf8");
  if (head.length > 99_999_999) return false;
  const data = Buffer.concat([Buffer.from(String(head.length).padStart(8, "0"), "latin1"), head, ...blobs]);
  if (data.length > MAX_GRANT_CACHE) return false;
  const temp = `${path}.${process.pid}-${Math.random().toString(36).slice(2, 10) || "0"}.tmp`;
  let fd: number;
  try {
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch {
    return false;
  }
  let ok = false;
  try {
    for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
    ok = true;
  } catch {
    /* not written */
  } finally {
    closeSync(fd);
  }
  try {
    if (ok) renameSync(temp, path);
  } catch {
    ok = false;
  }
  if (!ok) {
    try {
      unlinkSync(temp);
    } catch {
      /* gone already */
    }
    return false;
  }
  prune(dir, path, now, maxAgeMs);
  return true;
}

/** Remove this cache's records older than `maxAgeMs` (their grant has expired) and temp files a dead writer left. */
function prune(dir: string, keep: string, now: number, maxAgeMs: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  let seen = 0;
  for (const name of names) {
    const temp = TEMP.test(name);
    if (!temp && !RECORD.test(name)) continue;
    if (++seen > MAX_PRUNE) return;
    const p = join(dir, name);
    if (p === keep) continue;
    try {
      const st = lstatSync(p);
      if (st.isFile() && st.mtimeMs < now - (temp ? TEMP_MAX_AGE_MS : maxAgeMs)) unlinkSync(p);
    } catch {
      /* gone meanwhile */
    }
  }
}
