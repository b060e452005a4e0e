import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseTimestamp } from "../../src/lib/values.ts";

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
