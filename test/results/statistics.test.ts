import assert from "node:assert/strict";
import { test } from "node:test";
import { analyzeRun, costPerGigabyte } from "../../src/results/analysis.js";
import { recordRates } from "../../src/results/record-rates.js";
import { describe, quantile, slope } from "../../src/results/statistics.js";
import { fixtureFailure, fixtureManifest, fixtureRecord } from "../helpers/fixture-run.js";

const close = (actual: number | null | undefined, expected: number, tolerance = 1e-9) =>
  assert.ok(
    actual !== null &&
      actual !== undefined &&
      Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)),
    `${actual} != ${expected}`,
  );

test("even n: median between the middle two, quartiles interpolated (type 7), CV with n-1", () => {
  const s = describe([4, 1, 3, 2]);
  assert.ok(s);
  assert.equal(s.n, 4);
  assert.equal(s.median, 2.5);
  assert.equal(s.min, 1);
  assert.equal(s.max, 4);
  assert.equal(s.q1, 1.75);
  assert.equal(s.q3, 3.25);
  assert.equal(s.iqr, 1.5);
  close(s.cv, Math.sqrt(5 / 3) / 2.5); // 0.516398
});

test("odd n: the middle value; an outlier moves the mean and CV, not the median", () => {
  const s = describe([100, 10, 40, 20, 30]);
  assert.ok(s);
  assert.equal(s.median, 30);
  assert.equal(s.q1, 20);
  assert.equal(s.q3, 40);
  assert.equal(s.iqr, 20);
  assert.equal(s.mean, 40);
  close(s.cv, Math.sqrt(1250) / 40); // 0.883883
});

test("a single value has no spread and no CV; no values give null", () => {
  const s = describe([7]);
  assert.deepEqual(s, { n: 1, median: 7, min: 7, max: 7, q1: 7, q3: 7, iqr: 0, mean: 7, cv: null });
  assert.equal(describe([]), null);
  assert.equal(quantile([1, 2], 0.5), 1.5);
  assert.equal(slope([{ x: 1, y: 1 }]), null);
});

const manifest = fixtureManifest(
  {
    name: "fixture",
    targets: [{ platform: "local", profile: "raised-3000" }],
    memoryMb: [1024, 2048, 3072, 5120, 8192, 10240],
    repetitions: 3,
    probes: [{ kind: "iperf3", timeSeconds: 4, parallel: 4 }],
  },
  { "local:raised-3000": 3_000e6 },
);
const cellAt = (memoryMb: number) => {
  const cell = manifest.cells.find((c) => c.memoryMb === memoryMb);
  assert.ok(cell);
  return cell;
};

test("record rates: burst detected from the samples, sustained after it, effective kept apart; failures have none", () => {
  const record = fixtureRecord(cellAt(1024), 1, {
    bitsPerSecond: 2000,
    seconds: 2.1,
    cpuSeconds: 0.525,
    // 4 x 100 bytes (3,200 bit/s) in the first second, then 1600, 1920, 2240, 2560 bit/s, then a 0.1 s sliver
    samples: {
      intervalSeconds: 0.25,
      bytes: [100, 100, 100, 100, 50, 60, 70, 80, 10],
      lastIntervalSeconds: 0.1,
    },
  });
  const rates = recordRates(record);
  assert.ok(rates);
  // tail (start >= 1.05 s): 1920, 2240, 2560 -> L = 2240, ceiling 2240 x 1.15 + ... (MAD 320 -> 3 x 1.4826 x 320 = 1423) = 3663:
  // 3,200 is within that noisy band, so no burst: sustained = bytes over time of the 8 full
  // intervals (660 bytes in 2 s = 2,640 bit/s), the sliver left out; their median (2,880) is the diagnostic
  assert.equal(rates.burstFound, "none");
  assert.equal(rates.sustainedBitsPerSecond, 2640);
  assert.equal(rates.sustainedMedianBitsPerSecond, 2880);
  assert.equal(rates.effectiveBitsPerSecond, 2000);
  assert.equal(rates.cpuCores, 0.25);
  const short = fixtureRecord(cellAt(1024), 1, {
    bitsPerSecond: 1,
    seconds: 0.5,
    samples: { intervalSeconds: 0.25, bytes: [10, 10], lastIntervalSeconds: 0.25 },
  });
  assert.equal(recordRates(short)?.burst, null, "too short: undetermined");
  assert.equal(recordRates(short)?.burstFound, "undetermined");
  assert.equal(recordRates(short)?.sustainedBitsPerSecond, null);
  assert.match(recordRates(short)?.sustainedNullReason ?? "", /too short/);
  assert.equal(recordRates(short)?.effectiveBitsPerSecond, 1, "the effective rate stays, in its own field");
  assert.equal(recordRates(fixtureFailure(cellAt(1024), 1, "timeout")), null);
});

test("cost per GB: memory GB x seconds per GB x GB-second price + requests", () => {
  const price = { region: "us-east-1", requestUsd: 0.2e-6, gigabyteSecondUsd: 0.0000133334, verified: true };
  // 2 GB x 10 s per GB = 20 GB-s; one 1 GB invocation = one request
  close(costPerGigabyte(2048, 800e6, 1e9, price), 20 * 0.0000133334 + 0.2e-6);
});

test("per cell and per target: failed records counted, not measured; plateau, knee, slope, recommendation", () => {
  const medians: Record<number, number> = {
    1024: 600e6,
    2048: 625e6,
    3072: 922e6,
    5120: 1516e6,
    8192: 2400e6,
    10240: 2410e6,
  };
  const records = manifest.cells.flatMap((cell) => {
    const m = medians[cell.memoryMb] as number;
    return [
      fixtureRecord(cell, 1, { bitsPerSecond: m * 0.9, cpuSeconds: 0.4 }),
      fixtureRecord(cell, 2, { bitsPerSecond: m, cpuSeconds: 0.4 }),
      cell.memoryMb === 1024
        ? fixtureFailure(cell, 3, "timeout")
        : fixtureRecord(cell, 3, { bitsPerSecond: m * 1.2, cpuSeconds: 0.4 }),
    ];
  });
  const analysis = analyzeRun(manifest, records);
  assert.equal(analysis.recordedInvocations, 18);
  assert.equal(analysis.failedInvocations, 1);
  assert.equal(analysis.emulated, true);
  const small = analysis.cells.find((c) => c.memoryMb === 1024);
  assert.ok(small?.effective);
  assert.equal(small.effective.n, 2, "the failed record is not a measurement");
  assert.deepEqual(small.failures, { timeout: 1 });
  close(small.effective.median, (540e6 + 600e6) / 2);
  const big = analysis.cells.find((c) => c.memoryMb === 10240);
  close(big?.effective?.median, 2410e6);
  close(big?.effective?.min, 2410e6 * 0.9);
  close(big?.quotaPercent, (2410 / 3000) * 100);
  // 0.4 CPU s over 4 s = 0.1 core; 1,024 MB has 0.579 core: not CPU-bound
  assert.equal(small.cpuBound, false);
  close(small.cpuShareCores, 1024 / 1769);

  assert.equal(analysis.curves.length, 1);
  const curve = analysis.curves[0];
  assert.ok(curve);
  assert.equal(curve.plateauBitsPerSecond, 2410e6);
  assert.equal(curve.plateauMemoryMb, 10240);
  // 8 GB (2,160-2,880) overlaps 10 GB (2,169-2,892): it reaches the plateau; 5 GB's max 1,819 is
  // far more than 5% under 10 GB's min: below beyond noise, as are 2 and 3 GB
  const standing = Object.fromEntries(curve.points.map((p) => [p.memoryMb, p.standing]));
  assert.deepEqual(standing, {
    1024: "untold",
    2048: "below",
    3072: "below",
    5120: "below",
    8192: "reaches",
    10240: "plateau",
  });
  // but 1 GB has n=2 (one failure): nothing can put it below, so the knee cannot be told, and
  // nothing is recommended on it
  assert.equal(curve.kneeMemoryMb, null);
  assert.match(
    curve.kneeUnknownReason ?? "",
    /^1,024 MB has n=2 \(an interval on the medians needs 3 repetitions a size\)/,
  );
  assert.equal(curve.recommendedMemoryMb, null);
  assert.equal(curve.slopeBitsPerSecondPerGigabyte, null);
  assert.equal(curve.moveSeconds, null);

  // the same curve without the failure: knee 8 GB, the rise from 1 GB, the cheaper 8 GB recommended
  const whole = records.map((r) =>
    r.ok ? r : fixtureRecord(cellAt(1024), 3, { bitsPerSecond: 600e6 * 1.2, cpuSeconds: 0.4 }),
  );
  const told = analyzeRun(manifest, whole).curves[0];
  assert.ok(told);
  assert.equal(told.kneeMemoryMb, 8192, "smallest memory the evidence does not put below 10 GB");
  // x = 1, 2, 3, 5, 8 GB, y = 600, 625, 922, 1516, 2400; 625 is within 5% of 600, so the rise
  // starts at 2 GB: x = 2, 3, 5, 8, y = 625, 922, 1516, 2400
  const xs = [2, 3, 5, 8];
  const ys = [625, 922, 1516, 2400];
  const mx = xs.reduce((a, b) => a + b) / 4;
  const my = ys.reduce((a, b) => a + b) / 4;
  const expectedSlope =
    xs.reduce((sum, x, i) => sum + (x - mx) * ((ys[i] as number) - my), 0) /
    xs.reduce((sum, x) => sum + (x - mx) ** 2, 0);
  close(told.slopeBitsPerSecondPerGigabyte, expectedSlope * 1e6, 1e-6);
  assert.equal(told.recommendedMemoryMb, 8192, "8 GB at 2,400 costs less per GB than 10 GB at 2,410");
  assert.equal(told.recommendedRepetitions, 3);
  close(told.moveSeconds, (100 * 8e9) / 2400e6);
});

test("a CPU-bound cell is flagged when the client used its whole CPU share", () => {
  const cell = cellAt(1024);
  const share = 1024 / 1769;
  const records = [1, 2, 3].map((rep) =>
    fixtureRecord(cell, rep, { bitsPerSecond: 500e6, seconds: 4, cpuSeconds: 4 * share * 0.95 }),
  );
  const analysis = analyzeRun(manifest, records);
  assert.equal(analysis.cells.find((c) => c.cellId === cell.id)?.cpuBound, true);
});
