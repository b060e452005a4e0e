// Every failure the helper reports is a HelperError: a machine code beside the contract's message.
export type ErrorCode =
  | "E_USAGE" // bad command line
  | "E_NOT_FOUND" // a file or an entry does not exist
  | "E_READ" // a file exists but cannot be read
  | "E_JSON" // a file or stdin is not valid JSON
  | "E_SCHEMA" // valid JSON of the wrong shape
  | "E_INVALID" // a validation command found problems
  | "E_TRANSITION" // a status change the state machine forbids
  | "E_LOCKED" // gave up waiting for a lock
  | "E_WRITE" // writing a file failed
  | "E_PATH" // a path resolves outside the project's .design/ (writes) or the project (reads)
  | "E_INTERNAL"; // a bug: an unexpected throw

export class HelperError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra keys printed beside `error` (issues, results, hint, ...). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "HelperError";
  }
}

export function usage(message: string, extra: Record<string, unknown> = {}): HelperError {
  return new HelperError("E_USAGE", message, extra);
}

/** The message of an OS or parser error, without Node's "ENOENT: " style prefix noise removed. */
export function detail(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
