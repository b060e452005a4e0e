import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { isoSeconds, parseTimestamp } from "../../src/lib/values.ts";

describe("canonical timestamps", () => {
  it("count days exactly as Date.UTC does, over four centuries of dates", () => {
    for (let ms = Date.UTC(1900, 0, 1); ms < Date.UTC(2300, 0, 1); ms += 86_400_000 * 7 + 3_723_000) {
      const iso = new Date(ms).toISOString().slice(0, 19) + "Z";
      assert.equal(parseTimestamp(iso), Math.floor(ms / 1000), iso);
    }
  });

  it("reads the year 0000-era edge and leap days the same way", () => {
    for (const iso of ["1970-01-01T00:00:00Z", "2000-02-29T23:59:59Z", "2100-03-01T00:00:00Z", "1600-02-29T12:00:00Z", "0001-01-01T00:00:00Z"]) {
      const [y, mo, d, h, mi, s] = iso.match(/\d+/g)!.map(Number);
      const expected = new Date(0);
      expected.setUTCFullYear(y, mo - 1, d);
      expected.setUTCHours(h, mi, s, 0);
      assert.equal(parseTimestamp(iso), expected.getTime() / 1000, iso);
    }
  });
});

describe("timestamps of the first centuries", () => {
  it("read year 1 to 99 as those years in every grammar, like Python", () => {
    const year1 = -62135596800; // datetime(1, 1, 1, tzinfo=utc).timestamp()
    assert.equal(parseTimestamp("0001-01-01T00:00:00Z"), year1);
    assert.equal(parseTimestamp("0001-1- 1T0:0:0Z"), year1, "the lenient grammar");
    assert.equal(parseTimestamp("0001-01-01T01:00:00+01:00"), year1, "RFC 3339 with an offset");
    assert.equal(parseTimestamp("0099-12-31T23:59:59Z"), -59011459201);
  });

  it("has no year 0", () => {
    assert.equal(parseTimestamp("0000-01-01T00:00:00Z"), 0);
  });
});

describe("isoSeconds", () => {
  it("equals Date#toISOString to the second, across leap days, century rules and the range's ends", () => {
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "Z";
    const fixed = [
      0, 999, 1000, 86_399_999, 86_400_000, Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(2000, 2, 1), Date.UTC(2100, 1, 28, 12),
      Date.UTC(2100, 2, 1), Date.UTC(2400, 1, 29), Date.UTC(1972, 1, 29), Date.UTC(2026, 1, 18, 9, 4, 5), Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      253402300800000, -1, -86_400_001, Date.UTC(1969, 11, 31, 23, 59, 59), 8.64e15, -8.64e15,
    ];
    for (const ms of fixed) assert.equal(isoSeconds(ms), iso(ms), String(ms));
    let seed = 3;
    const r = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let k = 0; k < 20_000; k++) {
      const ms = Math.floor(r() * 253402300800000);
      assert.equal(isoSeconds(ms), iso(ms), String(ms));
    }
    // Every day boundary (and the second before it) of four centuries' worth of leap-year rules.
    for (let day = 0; day < 146_097 * 2; day += 7) {
      const ms = (day + 10_957) * 86_400_000; // from 2000-01-01
      assert.equal(isoSeconds(ms), iso(ms));
      assert.equal(isoSeconds(ms - 1), iso(ms - 1));
    }
  });
});
