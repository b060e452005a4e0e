// reflect-metrics groups failure texts and finds the memory that resolved each group through word-pair and word
// indexes (src/lib/reflection/reflect-metrics.ts) instead of comparing every text with every earlier one and every memory with
// every group. The oracle below is the pairwise rule as it was: each test here asserts the indexed answer equal to
// it, group for group and memory for memory, on random word sets (small vocabularies, where most pairs are similar,
// and large ones, where few are) and on the labelled texts of test/fixtures/memory/.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  comparisons, computeMetrics, contentWords, group, memoryRefs, resolvers, similar,
  type Group, type MemoryRef, type Mention, type RunRef,
} from "../../src/lib/reflection/reflect-metrics.ts";

/** The grouping as it was: a text joins the first group with a similar member, else starts a group. */
function oracleGroup(mentions: readonly Mention[]): Group[] {
  const groups: Group[] = [];
  for (const m of mentions) {
    if (m.words.size === 0) continue;
    const g = groups.find((gr) => gr.mentions.some((o) => similar(o.words, m.words)));
    if (g) g.mentions.push(m);
    else groups.push({ mentions: [m] });
  }
  return groups;
}

/** The resolving memory as it was: the first memory at or after the group's last run similar to one of its texts. */
function oracleResolvers(groups: readonly Group[], lasts: readonly number[], memories: readonly MemoryRef[]) {
  return groups.map((g, gi) => memories.find((m) => m.epoch >= lasts[gi] && g.mentions.some((x) => similar(x.words, m.words))));
}

function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

const runRef = (index: number, epoch: number): RunRef => ({ index, timestamp: String(epoch), epoch, goal: "", outcome: "failed", goalAchieved: false });

/** The groups as lists of positions in `mentions`, to compare two groupings. */
const shape = (groups: Group[], mentions: readonly Mention[]) => groups.map((g) => g.mentions.map((m) => mentions.indexOf(m)));

function randomCase(seed: number, texts: number, vocab: number, maxWords: number) {
  const rnd = rng(seed);
  const word = () => `w${Math.floor(rnd() ** 2 * vocab)}`; // skewed: low words frequent, as in real text
  const set = () => new Set(Array.from({ length: Math.floor(rnd() * (maxWords + 1)) }, word));
  const mentions: Mention[] = Array.from({ length: texts }, (_, i) => {
    const words = rnd() < 0.2 && i > 0 ? new Set(Array.from(mentionsSoFar[Math.floor(rnd() * i)] ?? [])) : set();
    mentionsSoFar.push(words);
    return { run: runRef(i, i), text: `t${i}`, words };
  });
  mentionsSoFar.length = 0;
  const memories: MemoryRef[] = Array.from({ length: Math.floor(texts / 2) }, (_, i) => ({ id: `m${i}`, content: "", epoch: Math.floor(rnd() * texts), words: set() }));
  return { mentions, memories };
}
const mentionsSoFar: Array<Set<string>> = [];

function assertSame(mentions: Mention[], memories: MemoryRef[], label: string) {
  const mine = group(mentions);
  const theirs = oracleGroup(mentions);
  assert.deepEqual(shape(mine, mentions), shape(theirs, mentions), `${label}: groups`);
  const lasts = theirs.map((g) => Math.max(...g.mentions.map((m) => m.run.epoch)));
  const got = resolvers(mine, lasts, memories).map((m) => m?.id ?? null);
  const want = oracleResolvers(theirs, lasts, memories).map((m) => m?.id ?? null);
  assert.deepEqual(got, want, `${label}: resolving memories`);
  // Groups made elsewhere (no word sets of `group` beside them): the same answer.
  assert.deepEqual(resolvers(theirs, lasts, memories).map((m) => m?.id ?? null), want, `${label}: resolving memories of other groups`);
  return theirs.length;
}

describe("reflect-metrics' indexed grouping equals the pairwise rule", () => {
  it("on random word sets, from tiny vocabularies (nearly everything similar) to large ones (nearly nothing)", () => {
    let groups = 0;
    let cases = 0;
    for (const vocab of [2, 3, 5, 8, 20, 60, 400]) {
      for (const maxWords of [1, 2, 3, 6, 12, 30]) {
        for (let seed = 1; seed <= 6; seed++) {
          const { mentions, memories } = randomCase(seed * 7919 + vocab * 31 + maxWords, 120, vocab, maxWords);
          groups += assertSame(mentions, memories, `vocab ${vocab}, up to ${maxWords} words, seed ${seed}`);
          cases++;
        }
      }
    }
    assert.equal(cases, 252);
    assert.ok(groups > 1000, `the cases form groups (${groups})`);
  });

  it("on the labelled texts of test/fixtures/memory (pairs, session reports, memories) as failures and memories", () => {
    const dir = join(import.meta.dirname, "../fixtures/memory");
    const pairs = JSON.parse(readFileSync(join(dir, "pairs.json"), "utf8")) as Array<{ a: string; b: string }>;
    const session = JSON.parse(readFileSync(join(dir, "session-specific.json"), "utf8")) as Array<{ text: string }>;
    const search = JSON.parse(readFileSync(join(dir, "search.json"), "utf8")) as { memories: Array<Record<string, unknown>> };
    const texts = [...pairs.flatMap((p) => [p.a, p.b]), ...session.map((s) => s.text)];
    for (let seed = 1; seed <= 5; seed++) {
      const rnd = rng(seed);
      // The texts in a shuffled order, each run holding one to three of them, some repeated.
      const order = texts.map((t) => ({ t, k: rnd() })).sort((x, y) => x.k - y.k).map((x) => x.t);
      const mentions: Mention[] = [];
      for (let i = 0, run = 0; i < order.length; run++) {
        for (let k = 1 + Math.floor(rnd() * 3); k > 0 && i < order.length; k--, i++) {
          const text = rnd() < 0.1 && mentions.length ? mentions[Math.floor(rnd() * mentions.length)].text : order[i];
          mentions.push({ run: runRef(run, run * 3600), text, words: contentWords(text) });
        }
      }
      const entries = [
        ...search.memories,
        ...texts.filter(() => rnd() < 0.3).map((content, i) => ({ id: `t${i}`, content, keywords: [], timestamp: new Date(rnd() * mentions.length * 3600 * 1000).toISOString() })),
      ];
      const memories = memoryRefs(entries).map((m, i) => ({ ...m, epoch: Math.floor(rnd() * mentions.length * 3600), id: m.id ?? i }));
      const groups = assertSame(mentions, memories, `fixture texts, seed ${seed}`);
      assert.ok(groups > 50 && groups < mentions.length, `real texts group (${groups} groups of ${mentions.length} texts)`);
    }
  });

  it("gives computeMetrics the same patterns, statuses and resolving memories as the pairwise rule", () => {
    const rnd = rng(99);
    const causes = ["acceptance check needed a database the worker could not start", "worker context window exhausted on the large module",
      "flaky network timeout in the e2e suite", "lint failed on an unused import", "migration broke the schema"];
    const entries = Array.from({ length: 300 }, (_, i) => ({
      timestamp: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(), skill: "execute", goal: `g${i}`, outcome: rnd() < 0.5 ? "failed" : "completed",
      evaluation: { whatFailed: rnd() < 0.7 ? [`${causes[Math.floor(rnd() * causes.length)]} in part${Math.floor(rnd() * 40)}`] : [`unique ${i} zebra${i} yak${i}`], doNextTime: [] },
    }));
    const memories = memoryRefs(Array.from({ length: 100 }, (_, i) => ({
      id: `m${i}`, content: `${causes[i % causes.length]} fixed by a fixture`, keywords: [], timestamp: new Date(Date.UTC(2026, 0, 1) + Math.floor(rnd() * 320) * 3_600_000).toISOString(),
    })));
    const metrics = computeMetrics(entries, memories);
    // The same through the oracle: groups of the failures in run order, then the memory each group's last run allows.
    const mentions: Mention[] = [];
    entries.forEach((e, i) => {
      for (const text of e.evaluation.whatFailed) mentions.push({ run: runRef(i, Date.parse(e.timestamp) / 1000), text, words: contentWords(text) });
    });
    const groups = oracleGroup(mentions);
    const found = oracleResolvers(groups, groups.map((g) => Math.max(...g.mentions.map((m) => m.run.epoch))), memories);
    assert.equal((metrics.patternCounts as { total: number }).total, groups.length);
    assert.equal((metrics.patternCounts as { confirmed_resolved: number }).confirmed_resolved, found.filter(Boolean).length);
    const byText = new Map(groups.map((g, i) => [g.mentions[0].text, found[i]?.id ?? null]));
    for (const p of metrics.patterns) assert.equal((p.resolvedBy as { id: unknown } | undefined)?.id ?? null, byText.get(p.text as string), p.text as string);
  });
});

describe("reflect-metrics compares candidates, not every pair", () => {
  it("groups 3,000 unrelated texts with no comparison and 3,000 alike texts with about one each", () => {
    const unrelated: Mention[] = Array.from({ length: 3000 }, (_, i) => ({ run: runRef(i, i), text: `t${i}`, words: new Set([`a${i}`, `b${i}`, `c${i}`]) }));
    comparisons.count = 0;
    assert.equal(group(unrelated).length, 3000);
    assert.equal(comparisons.count, 0, "no two share a word");
    // Every text shares "database check" and adds a word of its own: one group, each found similar at once.
    const alike: Mention[] = Array.from({ length: 3000 }, (_, i) => ({ run: runRef(i, i), text: `t${i}`, words: new Set(["database", "check", `p${i}`]) }));
    comparisons.count = 0;
    assert.equal(group(alike).length, 1);
    assert.ok(comparisons.count <= 2 * alike.length, `${comparisons.count} comparisons for ${alike.length} texts (pairwise: ${(alike.length * (alike.length - 1)) / 2})`);
  });
});
