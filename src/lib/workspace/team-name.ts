// The team-name rule (contract 4.1): do-<skill>-<slug of the cwd's last component, 20 chars>-<md5 prefix of the cwd>.
import { basename, resolve } from "node:path";
import { md5Hex } from "./md5.js";

/** Lowercase, one "-" per run of characters outside [a-z0-9], "-" stripped at both ends, first 20 kept. */
function sanitize(base: string): string {
  return base
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 20);
}

export function teamNameFor(skill: string, cwd: string): string {
  const dir = resolve(cwd); // absolute, no trailing slash ("/" stays "/")
  const hash = md5Hex(dir).slice(0, 6);
  return `do-${skill}-${sanitize(basename(dir))}-${hash}`;
}
