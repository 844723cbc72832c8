import assert from "node:assert/strict";
import { test } from "node:test";
import { detectBurst } from "../../src/results/burst-detection.js";
import { type IntervalSamples, normalizeSamples } from "../../src/results/samples.js";

/** Samples of 250 ms intervals at the given rates (Mbit/s): bytes = rate x 0.25 s / 8. */
function samplesAt(megabits: number[], durationSeconds = 0.25): IntervalSamples {
  return {
    intervalSeconds: 0.25,
    startSeconds: megabits.map((_, i) => i * durationSeconds),
    durationSeconds: megabits.map(() => durationSeconds),
    bytes: megabits.map((m) => (m * 1e6 * durationSeconds) / 8),
  };
}

const sustained12 = [600, 610, 590, 600, 605, 595, 600, 600, 610, 590, 600, 600];

test("burst then sustained: 1 s at 2,800 then 600 (median of the 12 intervals after it)", () => {
  const result = detectBurst(samplesAt([2800, 2800, 2800, 2800, ...sustained12]));
  assert.equal(result.burstFound, "detected");
  // two samples wholly inside it at 2,800; (350 - 75) MB/s x 1 s above the sustained rate, whose
  // own share of the window (75 MB) is not the burst's
  assert.deepEqual(result.burst, {
    bitsPerSecond: 2800e6,
    peakBound: "measured",
    seconds: 1,
    secondsBound: "measured",
    bytes: 275e6,
    intervalSeconds: 0.25,
  });
  // sorted: 590 590 595 600 600 600 600 600 600 605 610 610 -> 600
  assert.equal(result.sustainedBitsPerSecond, 600e6);
  assert.equal(result.sustainedIntervals, 12);
  assert.equal(result.sustainedNullReason, null);
});

test("a transition interval above the band belongs to the burst: 3 x 2,800 + 1,700, then 600", () => {
  // tail (start >= 2 s): 605 595 600 600 610 590 600 600 -> L = 600, MAD 2.5 -> ceiling 600 x 1.15 = 690
  const result = detectBurst(samplesAt([2800, 2800, 2800, 1700, ...sustained12]));
  assert.equal(result.burstFound, "detected");
  // the peak is the samples wholly inside (2,800), not the window's average with its transition
  // (2,525); above the sustained rate: 3 x 87.5e6 + 53.125e6 - 75e6 x 1 s = 240.625e6, which
  // lasted 240.625e6 / (350e6 - 75e6) = 0.875 s at the peak (the 1,700 interval held 0.125 s of it)
  assert.deepEqual(result.burst, {
    bitsPerSecond: 2800e6,
    peakBound: "measured",
    seconds: 0.875,
    secondsBound: "measured",
    bytes: 240.625e6,
    intervalSeconds: 0.25,
  });
  assert.equal(result.sustainedBitsPerSecond, 600e6);
});

test("no burst: a slow-start first interval is not a burst, sustained is bytes over time of every interval", () => {
  const rates = [300, 600, 610, 590, 600, 605, 595, 600, 600, 610, 590, 600, 600, 600, 600, 600];
  const result = detectBurst(samplesAt(rates));
  assert.equal(result.burstFound, "none");
  assert.equal(result.burst, null);
  // (300 + 15 intervals summing 9,000) / 16 = 581.25: the slow start is part of the transfer's time
  assert.equal(result.sustainedBitsPerSecond, 581.25e6);
  assert.equal(result.sustainedMedianBitsPerSecond, 600e6);
  assert.equal(result.sustainedIntervals, 16);
});

test("one noisy interval neither starts nor ends a burst", () => {
  // a single 900 after the start: settled (600) followed by settled -> no burst
  const flat = detectBurst(samplesAt([600, 900, 600, 600, 600, 600, 600, 600, 600, 600]));
  assert.equal(flat.burstFound, "none");
  // bytes over time (6,300 / 10) = 630; the median stays at 600
  assert.equal(flat.sustainedBitsPerSecond, 630e6);
  assert.equal(flat.sustainedMedianBitsPerSecond, 600e6);
  // a single dip inside the burst does not cut it short
  const dip = detectBurst(samplesAt([2800, 600, 2800, 2800, ...sustained12]));
  // the window still runs to the fourth interval; the peak is the upper of the two inside (600,
  // 2,800), and the burst's 3 x 68.75e6 bytes above 600 lasted 0.75 s at it
  assert.equal(dip.burst?.bitsPerSecond, 2800e6);
  assert.equal(dip.burst?.bytes, 206.25e6);
  assert.equal(dip.burst?.seconds, 0.75);
});

test("too short: 1.5 s measured has no sustained part, with the reason, never the average", () => {
  const result = detectBurst(samplesAt([2800, 2800, 2800, 2800, 600, 600]));
  assert.equal(result.burstFound, "undetermined");
  assert.equal(result.sustainedBitsPerSecond, null);
  assert.match(result.sustainedNullReason ?? "", /too short: 1\.5 s measured/);
});

test("a burst that outlasts half the record: sustained null, burst flagged", () => {
  // 3 s: 2 s at 2,800 then 1 s at 600; the tail (start >= 1.5 s) settles only at 2 s
  const result = detectBurst(samplesAt([...Array(8).fill(2800), 600, 600, 600, 600]));
  assert.equal(result.burstFound, "detected");
  assert.equal(result.sustainedBitsPerSecond, null);
  assert.match(result.sustainedNullReason ?? "", /did not settle before half/);
});

test("measured durations count: a late 0.5 s interval with twice the bytes is no spike", () => {
  const samples = samplesAt([2800, 2800, 2800, 2800, ...sustained12]);
  // merge intervals 8 and 9 as a late timer would have: one 0.5 s interval, 37.5e6 bytes -> 600
  samples.bytes.splice(8, 2, 37.5e6);
  samples.durationSeconds.splice(8, 2, 0.5);
  samples.startSeconds.splice(9, 1);
  const result = detectBurst(samples);
  assert.equal(result.burst?.seconds, 1);
  assert.equal(result.sustainedBitsPerSecond, 600e6);
});

test("no samples: undetermined with the reason", () => {
  assert.match(detectBurst(null).sustainedNullReason ?? "", /no interval samples/);
});

test("normalizeSamples: the legacy shape gets nominal boundaries and its partial last interval", () => {
  const legacy = { intervalSeconds: 0.25, bytes: [10, 20, 5], lastIntervalSeconds: 0.1 };
  assert.deepEqual(normalizeSamples(legacy), {
    intervalSeconds: 0.25,
    startSeconds: [0, 0.25, 0.5],
    durationSeconds: [0.25, 0.25, 0.1],
    bytes: [10, 20, 5],
  });
  const v2 = { intervalSeconds: 0.25, startSeconds: [0, 0.26], durationSeconds: [0.26, 0.25], bytes: [1, 2] };
  assert.deepEqual(normalizeSamples(v2), v2);
  assert.equal(
    normalizeSamples({ intervalSeconds: 0.25, startSeconds: [0], durationSeconds: [], bytes: [1] }),
    null,
  );
  assert.equal(normalizeSamples({ intervalSeconds: 0, bytes: [1], lastIntervalSeconds: 0 }), null);
  assert.equal(normalizeSamples("nope"), null);
});

test("normalizeSamples gives the legacy sampler's lost time back: no false zero, no inflated interval", () => {
  // a steady 3,200 bit/s (100 bytes per 0.25 s) sampled by a timer firing every 0.3125 s: each tick
  // holds 125 bytes, and after 4 late ticks the lag is a whole interval, recorded as a 0
  const legacy = {
    intervalSeconds: 0.25,
    bytes: [125, 125, 125, 125, 0, 125, 125, 125, 125, 0, 50],
    lastIntervalSeconds: 0.1,
  };
  const repaired = normalizeSamples(legacy);
  assert.ok(repaired);
  assert.deepEqual(repaired.bytes, [125, 125, 125, 125, 125, 125, 125, 125, 50]);
  // each of the 4 intervals before a zero lasted 5/4 x 0.25 = 0.3125 s: 125 bytes -> 3,200 bit/s
  assert.deepEqual(repaired.durationSeconds, [...Array(8).fill(0.3125), 0.1]);
  assert.deepEqual(repaired.startSeconds.slice(0, 3), [0, 0.3125, 0.625]);
  assert.equal(repaired.startSeconds[8], 2.5);
  // a zero at the very start (nothing moved yet) stays; measured-time samples are never touched
  assert.deepEqual(
    normalizeSamples({ intervalSeconds: 0.25, bytes: [0, 100, 100], lastIntervalSeconds: 0.25 })?.bytes,
    [0, 100, 100],
  );
  const v2 = {
    intervalSeconds: 0.25,
    startSeconds: [0, 0.25, 0.5],
    durationSeconds: [0.25, 0.25, 0.25],
    bytes: [1, 0, 2],
  };
  assert.deepEqual(normalizeSamples(v2), v2);
});

test("waiting for the first byte is not the link: idle edges are dropped, and a short transfer says so", () => {
  // an 8 MiB GET in a slow guest: 3.5 s measured, data in two intervals only
  const waited = samplesAt([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 90, 40]);
  const result = detectBurst(waited);
  assert.equal(result.sustainedBitsPerSecond, null);
  assert.equal(result.burstFound, "undetermined");
  assert.match(
    result.sustainedNullReason ?? "",
    /too short: 0\.5 s moving data \(of 3\.5 s; the rest waited/,
  );
  // after the first byte, the link's rate is what counts: 3 s of 600 after 2 s of waiting
  const late = detectBurst(samplesAt([0, 0, 0, 0, 0, 0, 0, 0, ...sustained12, 0]));
  assert.equal(late.sustainedBitsPerSecond, 600e6);
  assert.equal(late.burstFound, "none");
});

test("a sustained median of zero is never a figure: null, with the reason", () => {
  // data now and then, nothing most of the time (a transfer waiting on requests)
  const result = detectBurst(samplesAt([600, 0, 0, 600, 0, 0, 600, 0, 0, 600, 0, 0, 600]));
  assert.equal(result.sustainedBitsPerSecond, null);
  assert.match(result.sustainedNullReason ?? "", /moved nothing \(\d+ of \d+\): the transfer was waiting/);
  assert.equal(detectBurst(samplesAt([0, 0, 0])).sustainedNullReason, "no data moved in any interval");
});

test("a flat transfer above the ceiling ended inside its burst: no sustained rate, the bytes above it and what to change", () => {
  // one S3 connection capped at 720 between a 598 quota and the peak: 4 s flat, no edge to find
  const flat = samplesAt(Array(16).fill(720));
  assert.equal(
    detectBurst(flat).sustainedBitsPerSecond,
    720e6,
    "without a ceiling the series alone says 720",
  );
  assert.equal(detectBurst(flat).ceilingCheck, "unknown");
  const held = detectBurst(flat, 598e6);
  assert.equal(held.sustainedBitsPerSecond, null);
  assert.equal(held.ceilingCheck, "exceeded");
  // (720 - 598) Mbit/s x 4 s / 8 = 61 MB
  assert.equal(Math.round((held.insideBurst?.excessBytes ?? 0) / 1e6), 61);
  assert.match(
    held.sustainedNullReason ?? "",
    /ended inside the burst: 61 MB above the 598 Mbit\/s ceiling in 4 s; a longer transfer/,
  );
  // long enough: 4 s at 720, then 8 s at the quota: the sustained rate is the quota's
  const long = detectBurst(samplesAt([...Array(16).fill(720), ...Array(32).fill(598)]), 598e6);
  assert.equal(long.sustainedBitsPerSecond, 598e6);
  assert.equal(long.burstFound, "detected");
  assert.equal(long.ceilingCheck, "known");
});

test("with the ceiling known, an interval median above its band is left out: no sustained figure above the quota", () => {
  // after each stall the shaper's refilled bucket runs the next intervals above the quota: bytes
  // over time stay within the band (100 x 1.05), the median of the intervals does not
  const record = samplesAt([107, 107, 107, 50, 107, 107, 107, 50, 107, 107, 107, 50]);
  const free = detectBurst(record);
  assert.equal(free.sustainedMedianBitsPerSecond, 107e6, "without a ceiling the diagnostic stays");
  const held = detectBurst(record, 100e6);
  assert.equal(held.ceilingCheck, "known");
  assert.ok(Math.abs((held.sustainedBitsPerSecond ?? 0) - 92.75e6) < 1, `${held.sustainedBitsPerSecond}`);
  assert.equal(held.sustainedMedianBitsPerSecond, null);
  // within the band it is kept
  assert.equal(
    detectBurst(samplesAt([100, 104, 100, 104, 100, 104, 100, 104, 100]), 100e6).sustainedMedianBitsPerSecond,
    100e6,
  );
});
