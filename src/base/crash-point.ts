// Crash injection for the kill tests (test/helpers/crash.ts): `crashPoint("label")` marks a step boundary of a
// multi-step write (the store's locked write protocol, appendLine, the steps of a command). It does nothing unless
// the process was started with one of these variables, read once, on the first point reached:
//   DO_CRASH_AT=<n>          SIGKILL this process at the n-th point it reaches (1-based)
//   DO_CRASH_AT=<label>      ... at the first point of that label; <label>#<k> at its k-th
//   DO_CRASH_FD=<fd>         write "<label>\n" to that open descriptor at every point reached (before any kill), so a
//                            test learns how many points a call passes and can kill it from outside in between
// A leaf: it imports nothing of src/ and does no work at load (the helper's start-up is a hot path).

type Mode = { at: number; label: string; nth: number; fd: number; seen: number; byLabel: Map<string, number> };

/** undefined: not read yet; null: no variable set (every later point returns at once). */
let mode: Mode | null | undefined;

function readMode(): Mode | null {
  const at = process.env.DO_CRASH_AT ?? "";
  const fdText = process.env.DO_CRASH_FD ?? "";
  if (at === "" && fdText === "") return null;
  const fd = /^\d{1,4}$/.test(fdText) ? Number(fdText) : -1;
  let n = 0;
  let label = "";
  let nth = 1;
  if (/^\d{1,9}$/.test(at)) n = Number(at);
  else if (at !== "") {
    const hash = at.lastIndexOf("#");
    if (hash > 0 && /^\d{1,9}$/.test(at.slice(hash + 1))) {
      label = at.slice(0, hash);
      nth = Number(at.slice(hash + 1));
    } else label = at;
  }
  return { at: n, label, nth, fd, seen: 0, byLabel: new Map() };
}

function die(): never {
  process.kill(process.pid, "SIGKILL");
  // SIGKILL to oneself ends the process before kill(2) returns; never go on if it somehow did not.
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
}

/** A step boundary: see the header. Free when no crash variable is set. */
export function crashPoint(label: string): void {
  if (mode === null) return;
  if (mode === undefined) {
    mode = readMode();
    if (mode === null) return;
  }
  const m = mode;
  m.seen++;
  const k = (m.byLabel.get(label) ?? 0) + 1;
  m.byLabel.set(label, k);
  if (m.fd >= 0) {
    try {
      (require("node:fs") as typeof import("node:fs")).writeSync(m.fd, `${label}\n`);
    } catch {
      /* the listener went away: the points still count */
    }
  }
  if (m.seen === m.at || (m.label === label && k === m.nth)) die();
}
