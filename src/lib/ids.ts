// Ids whose format the helper contract does not fix (grant ids): 21 URL-safe characters from nanoid. Memory and
// reflection ids stay UUID v4 (`uuid4` in values.ts), as the contract says. nanoid loads node:crypto, so only the
// commands that need an id of this kind import this module.
import { nanoid } from "nanoid";

export function newId(): string {
  return nanoid();
}
