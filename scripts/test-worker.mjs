// One process of the suite's worker pool (scripts/test.mjs starts it as `node --import tsx scripts/test-worker.mjs`
// with an IPC channel). It asks the parent for a test file, runs it as one top-level suite named after the file
// (its tests, hooks and nested suites run inside it, as they would in a process of their own), tells the parent
// when that suite has finished, and asks again; when the parent answers with no file, it lets node:test print its
// TAP summary and exit (exit code 1 when any test failed).
import { describe } from "node:test";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";

/** CPU time of this process and of its finished children, in ms (Linux: /proc/self/stat; elsewhere this process only). */
function cpuMs() {
  const own = process.cpuUsage();
  let children = 0;
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    children = ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // cutime + cstime, in clock ticks of 1/100 s
  } catch {
    // not Linux
  }
  return (own.user + own.system) / 1000 + children;
}

let answer = null;
process.on("message", (msg) => {
  const take = answer;
  answer = null;
  take?.(msg.file ?? null);
});

function nextFile() {
  return new Promise((done) => {
    answer = done;
    process.send({ want: true });
  });
}

for (let file = await nextFile(); file; file = await nextFile()) {
  const started = performance.now();
  const cpu = cpuMs();
  await describe(file, async () => {
    await import(pathToFileURL(resolve(file)).href);
  });
  process.send({ done: file, ms: Math.round(performance.now() - started), cpuMs: Math.round(cpuMs() - cpu) });
}
process.disconnect();
