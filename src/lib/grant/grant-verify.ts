// The half of verifying an execute grant that costs: node:crypto (~4.5 ms of CPU to load), the canonical JSON, the
// plan's fingerprint, the HMAC, and the worker names the scheduler gives each role's attempts (the scheduler core is
// the largest module the hook would otherwise compile). src/lib/grant/grant.ts requires it on first use. The helper's
// bundles include it; the permission hook gets it as its own file, dist/permit-verify.js (scripts/build.mjs), which
// a call that no grant item covers, or that the hook's record of an earlier verification answers
// (src/lib/grant/grant-cache.ts), never reads or compiles.
//
// It imports nothing of grant.ts (the two would form a circle): what it signs and fingerprints comes in as data.
import { specFileBytes } from "../checks/evidence.js";
// The record of a verification is written only after one: the hook's permit.js never compiles the writer.
export { writeGrantCache } from "./grant-cache.js";
import { schedulerCore } from "../plan/scheduler.js";

// node:crypto is loaded on first use: a grant that does not need verifying never needs it.
let cryptoModule: typeof import("node:crypto") | undefined;
const nodeCrypto = () => (cryptoModule ??= require("node:crypto") as typeof import("node:crypto"));

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * JSON with object keys sorted at every level: the same data gives the same text. Throws past 200 levels. Built by
 * appending to one string with indexed loops: the hook runs it cold on the whole plan when it verifies a grant in full.
 */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > 200) throw new Error("too deeply nested");
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      out += (i === 0 ? "" : ",") + (v === undefined ? "null" : canonicalJson(v, depth + 1));
    }
    return `${out}]`;
  }
  const obj = value as Obj;
  const keys = Object.keys(obj).sort();
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const v = obj[keys[i]];
    if (v === undefined) continue;
    out += (out.length === 1 ? "" : ",") + JSON.stringify(keys[i]) + ":" + canonicalJson(v, depth + 1);
  }
  return `${out}}`;
}

/** The fields an execute run changes: everything else in the plan is what the user approved. */
const RUN_FIELDS_OF_ROLE: ReadonlySet<string> = new Set(["status", "result", "attempts", "attemptLog"]);
const RUN_FIELDS_OF_PLAN: ReadonlySet<string> = new Set(["progress"]);

/**
 * The fingerprint of everything in the plan that will run or that tells a worker what to do: the whole plan but
 * its run fields (each role's status, result, attempts and attemptLog, and the plan's progress), plus the current
 * SHA-256 of each verification spec file. Status updates keep it; any other change ends the grant.
 */
export function planFingerprint(plan: unknown, projectDir: string): string {
  return fingerprintOf(plan, specFiles(plan, projectDir).map((s) => s.bytes));
}

/** Each verification spec of the plan, in order: its path (null: not an object with a string path) and its bytes now. */
export function specFiles(plan: unknown, projectDir: string): Array<{ path: string | null; bytes: Buffer | null }> {
  const specs = isObj(plan) && Array.isArray(plan.verificationSpecs) ? plan.verificationSpecs : [];
  return specs.map((s) => {
    const path = isObj(s) && typeof s.path === "string" ? s.path : null;
    return { path, bytes: path === null ? null : specFileBytes(projectDir, path) };
  });
}

/** The fingerprint of a plan whose spec files read `specBytes` (in the order of its verificationSpecs). */
export function fingerprintOf(plan: unknown, specBytes: ReadonlyArray<Buffer | null>): string {
  const doc: Obj = isObj(plan) ? { ...plan } : {};
  for (const k of RUN_FIELDS_OF_PLAN) delete doc[k];
  if (Array.isArray(doc.roles)) {
    doc.roles = doc.roles.map((r) => {
      if (!isObj(r)) return r;
      const copy: Obj = {};
      for (const k of Object.keys(r)) if (!RUN_FIELDS_OF_ROLE.has(k)) copy[k] = r[k];
      return copy;
    });
  }
  const specFiles = specBytes.map((b) => (b === null ? null : nodeCrypto().createHash("sha256").update(b).digest("hex")));
  return nodeCrypto().createHash("sha256").update(canonicalJson({ plan: doc, specFiles })).digest("hex");
}

/** The HMAC-SHA256 (hex) of a grant body (its canonical JSON) under the key. */
export function signGrant(body: object, key: Buffer): string {
  return nodeCrypto().createHmac("sha256", key).update(canonicalJson(body)).digest("hex");
}

/** Whether `signature` is the HMAC of the body under the key (compared in constant time). */
export function signatureVerifies(body: object, signature: unknown, key: Buffer): boolean {
  if (typeof signature !== "string" || !/^[0-9a-f]{64}$/.test(signature)) return false;
  return nodeCrypto().timingSafeEqual(Buffer.from(signGrant(body, key), "hex"), Buffer.from(signature, "hex"));
}

/**
 * Each worker name of a role → that role's name: the names the plan records (its `agent`, its attemptLog's agents)
 * and the ones the scheduler gives its attempts. A name two roles claim maps to null.
 */
export function planWorkers(plan: unknown): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const roles = isObj(plan) && Array.isArray(plan.roles) ? plan.roles : [];
  // The names the scheduler gives each attempt (`next`, and the labels of the generated Workflow script, whose
  // agents' updates reach plan.json only when the run ends): "<slug>" and "<slug>--<attempt>".
  const core = schedulerCore();
  const bases = core.baseNames(roles);
  roles.forEach((r, i) => {
    if (!isObj(r) || typeof r.name !== "string") return;
    const log = Array.isArray(r.attemptLog) ? r.attemptLog : [];
    const last = Math.max(core.MAX_ATTEMPTS, core.attemptsOf(r) + 1);
    const scheduled = Array.from({ length: last }, (_, k) => core.agentName(bases[i], k + 1));
    const names = new Set([r.agent, ...log.map((a) => (isObj(a) ? a.agent : undefined)), ...scheduled].filter((n): n is string => typeof n === "string" && n !== ""));
    for (const n of names) out.set(n, out.has(n) && out.get(n) !== r.name ? null : r.name);
  });
  return out;
}
