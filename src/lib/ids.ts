// Ids whose format the helper contract does not fix (run ids; grant and attempt ids when they get one): nanoid's
// 21 characters of its URL-safe alphabet (126 random bits). Memory and reflection ids stay UUID v4, as the contract
// says (`uuid4` in values.ts). The random bytes come from the kernel's device, like uuid4's: nanoid's own `nanoid()`
// would load node:crypto (~7 ms of CPU) for them, and only its alphabet and `customRandom` are bundled.
import { customRandom, urlAlphabet } from "nanoid";
import { randomBytes } from "./values.js";

let generate: (() => string) | undefined;

/** A new random id: 21 characters of `A-Za-z0-9_-`. */
export function newId(): string {
  generate ??= customRandom(urlAlphabet, 21, randomBytes);
  return generate();
}
