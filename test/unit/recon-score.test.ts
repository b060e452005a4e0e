import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  LEVELS,
  compositeScore,
  confidenceOverall,
  effortMultiplier,
  summarizeIntervention,
} from "../../src/lib/recon/recon-score.ts";

// Contract §7, copied row by row: weight, confidence, then trivial, small, medium, large, transformative.
const TABLE: Array<[number, string, number[]]> = [
  [7, "high", [14.0, 7.0, 3.5, 1.75, 0.88]],
  [7, "medium", [9.8, 4.9, 2.45, 1.22, 0.61]],
  [7, "low", [5.6, 2.8, 1.4, 0.7, 0.35]],
  [6, "high", [12.0, 6.0, 3.0, 1.5, 0.75]],
  [6, "medium", [8.4, 4.2, 2.1, 1.05, 0.52]],
  [6, "low", [4.8, 2.4, 1.2, 0.6, 0.3]],
  [5, "high", [10.0, 5.0, 2.5, 1.25, 0.62]],
  [5, "medium", [7.0, 3.5, 1.75, 0.88, 0.44]],
  [5, "low", [4.0, 2.0, 1.0, 0.5, 0.25]],
  [4, "high", [8.0, 4.0, 2.0, 1.0, 0.5]],
  [4, "medium", [5.6, 2.8, 1.4, 0.7, 0.35]],
  [4, "low", [3.2, 1.6, 0.8, 0.4, 0.2]],
  [1, "high", [2.0, 1.0, 0.5, 0.25, 0.12]],
  [1, "medium", [1.4, 0.7, 0.35, 0.17, 0.09]],
  [1, "low", [0.8, 0.4, 0.2, 0.1, 0.05]],
];
const EFFORTS = ["trivial", "small", "medium", "large", "transformative"];
const LEVELS_BY_WEIGHT: Record<number, number[]> = { 7: [6], 6: [3, 5], 5: [1, 4], 4: [2], 1: [7] };

describe("compositeScore (contract §7)", () => {
  it("maps every level to the weight its table row uses", () => {
    for (const [weight, levels] of Object.entries(LEVELS_BY_WEIGHT)) {
      for (const level of levels) assert.equal(LEVELS[level - 1].weight, Number(weight), `level ${level}`);
    }
  });

  let cells = 0;
  for (const [weight, confidence, values] of TABLE) {
    for (const level of LEVELS_BY_WEIGHT[weight]) {
      it(`level ${level} (weight ${weight}) with ${confidence} confidence scores ${values.join(" / ")}`, () => {
        EFFORTS.forEach((effort, k) => {
          assert.equal(compositeScore(level, confidence, effort), values[k], `${level} ${confidence} ${effort}`);
        });
      });
      cells += EFFORTS.length;
    }
  }

  it("covers all 105 cells (7 levels × 3 confidences × 5 efforts)", () => {
    assert.equal(cells, 105);
  });

  it("rounds the starred cells like Python, where Math.round and toFixed give the higher value", () => {
    // 5 × 1.0 / 8 = 0.625 and 1 × 1.0 / 8 = 0.125 are exact ties (to even); 1 × 0.7 / 4 = 0.175 is stored below the half.
    assert.equal(compositeScore(1, "high", "transformative"), 0.62);
    assert.equal(compositeScore(4, "high", "transformative"), 0.62);
    assert.equal(compositeScore(7, "high", "transformative"), 0.12);
    assert.equal(compositeScore(7, "medium", "large"), 0.17);
    assert.equal(Math.round(0.625 * 100) / 100, 0.63);
    assert.equal(Math.round((0.7 / 4) * 100) / 100, 0.18);
  });

  it("accepts the seed effort aliases low = small and high = large", () => {
    assert.equal(effortMultiplier("low"), effortMultiplier("small"));
    assert.equal(effortMultiplier("high"), effortMultiplier("large"));
    assert.equal(compositeScore(6, "high", "low"), 7.0);
    assert.equal(compositeScore(6, "high", "high"), 1.75);
    assert.equal(compositeScore(7, "medium", "high"), 0.17);
  });

  it("has no score for a boolean, out-of-range or fractional level, or an unknown confidence or effort", () => {
    assert.equal(compositeScore(true, "high", "small"), undefined);
    assert.equal(compositeScore(0, "high", "small"), undefined);
    assert.equal(compositeScore(8, "high", "small"), undefined);
    assert.equal(compositeScore(2.5, "high", "small"), undefined);
    assert.equal(compositeScore("3", "high", "small"), undefined);
    assert.equal(compositeScore(3, "HIGH", "small"), undefined);
    assert.equal(compositeScore(3, "high", "huge"), undefined);
    assert.equal(compositeScore(3, "high", "toString"), undefined);
  });
});

describe("confidenceOverall (contract 4.26)", () => {
  it("is unknown without interventions", () => {
    assert.equal(confidenceOverall([]), "unknown");
  });

  it("is high at a mean of exactly 0.85 ([high, medium])", () => {
    assert.equal(confidenceOverall(["high", "medium"]), "high");
  });

  it("is medium just below 0.85 and at 0.55", () => {
    assert.equal(confidenceOverall(["medium"]), "medium"); // 0.7
    assert.equal(confidenceOverall(["high", "medium", "medium"]), "medium"); // 0.8
    assert.equal(confidenceOverall(["medium", "low"]), "medium"); // 0.55
  });

  it("is low below 0.55 and counts unknown confidences as low", () => {
    assert.equal(confidenceOverall(["low"]), "low");
    assert.equal(confidenceOverall(["medium", "low", "low"]), "low"); // 0.5
    assert.equal(confidenceOverall(["high", "bogus"]), "medium"); // (1.0 + 0.4) / 2 = 0.7
    assert.equal(confidenceOverall([undefined, null]), "low");
  });

  it("is high for all-high", () => {
    assert.equal(confidenceOverall(["high", "high", "high"]), "high");
  });
});

describe("summarizeIntervention (contract 4.26)", () => {
  it("keeps a stored compositeScore", () => {
    const s = summarizeIntervention({ title: "t", compositeScore: 9.5, leverageLevel: 6, confidence: "high", effort: "small" });
    assert.equal(s.compositeScore, 9.5);
    assert.equal(s.score, 9.5);
  });

  it("computes a missing score [Fix D21] and falls back to 0 when it cannot", () => {
    assert.equal(summarizeIntervention({ leverageLevel: 6, confidence: "high", effort: "small" }).compositeScore, 7);
    assert.equal(summarizeIntervention({ leverageLevel: true, confidence: "high", effort: "small" }).compositeScore, 0);
  });

  it("uses the seed name when title is absent, and the defaults", () => {
    assert.deepEqual(summarizeIntervention({ name: "n" }), {
      rank: 0, title: "n", designGoal: "", constraints: [], leverageGroup: "", compositeScore: 0, score: 0,
    });
  });
});
