// The store: the only code that touches .design files, one concern per module behind this one interface.
//   store/read.ts     reading text, JSON and JSONL (readers never lock)
//   store/write.ts    the locked write protocol: atomic replace, JSONL appends, history folders
//   store/move.ts     moves into history, with the journal a kill leaves for the next call to finish
//   store/confine.ts  confinement of every path to the project (reads) or its .design/ (writes)
export * from "./store/read.js";
export * from "./store/write.js";
export * from "./store/move.js";
export * from "./store/confine.js";
