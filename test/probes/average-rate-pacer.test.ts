import assert from "node:assert/strict";
import { test } from "node:test";
import { AverageRatePacer } from "../../src/probes/iperf3/average-rate-pacer.js";

/** 100 Mbit/s = 12,500 bytes per ms; the clock is the test's, in ms. */
const RATE = 100e6;
const BYTES_PER_MS = 12_500;

test("a paced stream waits exactly as long as it is ahead of the average rate, and never less than 1 ms", () => {
  const pacer = new AverageRatePacer(RATE, 1_000, 0);
  assert.equal(pacer.waitMs(0, 1_000), 0, "nothing written yet: go");
  assert.equal(pacer.waitMs(BYTES_PER_MS * 10, 1_010), 0, "exactly on the rate: go");
  assert.equal(pacer.waitMs(BYTES_PER_MS * 30, 1_010), 20, "20 ms of bytes ahead: wait 20 ms");
  assert.equal(pacer.waitMs(BYTES_PER_MS * 10 + 100, 1_010), 1, "a few bytes ahead: the 1 ms floor");
  // the clock before the start mark allows nothing
  assert.equal(pacer.waitMs(BYTES_PER_MS * 5, 990), 5);
});

test("a stream descheduled for 500 ms catches up to the average, then is held to it again", () => {
  const pacer = new AverageRatePacer(RATE, 0, 0);
  // on pace for 100 ms, then a 500 ms stall with nothing written
  let written = BYTES_PER_MS * 100;
  assert.equal(pacer.waitMs(written, 100), 0);
  const afterStallMs = 600;
  // behind by 500 ms of bytes: every write goes at once until the average is reached
  let writes = 0;
  while (pacer.waitMs(written, afterStallMs) === 0) {
    written += 128 * 1024;
    writes += 1;
  }
  assert.ok(written >= BYTES_PER_MS * afterStallMs, "caught up to the average");
  assert.ok(written < BYTES_PER_MS * afterStallMs + 128 * 1024, "and no block further");
  assert.equal(writes, Math.ceil((BYTES_PER_MS * 500) / (128 * 1024)));
});

test("bytes written before the start mark do not count; a rate that is no rate is refused", () => {
  const pacer = new AverageRatePacer(RATE, 0, 1_000_000);
  assert.equal(pacer.waitMs(1_000_000 + BYTES_PER_MS * 10, 10), 0);
  assert.throws(() => new AverageRatePacer(0, 0, 0), /0 bit\/s is not a positive rate/);
});
