import assert from "node:assert/strict";
import { test } from "node:test";
import { buildReportModel } from "../../src/report/report-model.js";
import { summaryColumns } from "../../src/report/summary-rows.js";
import { buildVerdicts } from "../../src/report/verdict.js";
import { analyzeRun } from "../../src/results/analysis.js";
import { detectBurst } from "../../src/results/burst-detection.js";
import type { IntervalSamples } from "../../src/results/samples.js";
import { defaultLabManifest, fixtureRecord } from "../helpers/fixture-run.js";

/**
 * Burst figures at the sampling's resolution (issue: "2,504 ... 0.25 s, 79 MB" for a 60 MB burst
 * of 0.14 s). Each series is a token bucket sampled as a probe would: a transfer that starts
 * `startSeconds` into its first sample, runs at the peak until `bucketBytes` above the sustained
 * rate are spent, then at the sustained rate; samples of 250 ms.
 */
function bucketSeries(shape: {
  peakBitsPerSecond: number;
  sustainedBitsPerSecond: number;
  bucketBytes: number;
  seconds: number;
  startSeconds?: number;
}): IntervalSamples {
  const peak = shape.peakBitsPerSecond / 8;
  const sustained = shape.sustainedBitsPerSecond / 8;
  const start = shape.startSeconds ?? 0;
  const burstEnd = start + shape.bucketBytes / (peak - sustained);
  const cumulative = (t: number) =>
    t <= start
      ? 0
      : t <= burstEnd
        ? peak * (t - start)
        : peak * (burstEnd - start) + sustained * (t - burstEnd);
  const count = Math.round(shape.seconds / 0.25);
  const starts = Array.from({ length: count }, (_, i) => i * 0.25);
  return {
    intervalSeconds: 0.25,
    startSeconds: starts,
    durationSeconds: starts.map(() => 0.25),
    bytes: starts.map((t) => cumulative(t + 0.25) - cumulative(t)),
  };
}

/** The fitted Oregon profile at 1,024 MB: 60 MB at 4,000 Mbit/s over 625 (0.14 s), 4 s sampled at 250 ms. */
const oregon = () =>
  bucketSeries({ peakBitsPerSecond: 4000e6, sustainedBitsPerSecond: 625e6, bucketBytes: 60e6, seconds: 4 });

test("a 0.14 s burst inside one 250 ms sample: its 60 MB above the sustained rate, the peak a lower bound, the length under one sample", () => {
  const burst = detectBurst(oregon(), 625e6).burst;
  assert.ok(burst);
  // the window's own bytes were 79.5 MB (the sustained rate's 19.5 MB share in them)
  assert.ok(Math.abs(burst.bytes - 60e6) < 0.01 * 60e6, `${burst.bytes}`);
  assert.equal(burst.peakBound, "at-least");
  assert.equal(burst.secondsBound, "at-most");
  assert.ok(burst.seconds <= 0.25 + 1e-9, `${burst.seconds}`);
  assert.ok(burst.bitsPerSecond <= 4000e6);
});

test("the summary and the verdict print '< 0.25 s, 60 MB' and a peak of at least the fastest sample, never '0.25 s, 79 MB'", () => {
  const manifest = defaultLabManifest("oregon-burst");
  const samples = oregon();
  const bytes = samples.bytes.reduce((a, b) => a + b, 0);
  const records = manifest.cells.flatMap((cell) =>
    [1, 2, 3].map((rep) => fixtureRecord(cell, rep, { bitsPerSecond: (bytes * 8) / 4, samples })),
  );
  const cell = analyzeRun(manifest, records).cells[0];
  assert.ok(cell);
  const column = (header: string) => summaryColumns.find((c) => c.header.startsWith(header));
  const length = column("Burst length")?.text(cell) ?? "";
  assert.equal(length, "< 0.25 s, 60 MB");
  const rate = column("Burst (Mbit/s)")?.text(cell) ?? "";
  // 79.5 MB in the first 0.25 s: at least 2,545 Mbit/s, not "2,545" as if measured
  assert.match(rate, /^≥2,545 .*n=3$/);
  const [verdict] = buildVerdicts(buildReportModel(manifest, records, undefined, null));
  const text = verdict?.text ?? "";
  assert.match(
    text,
    /burst of 60 MB above the sustained rate in < 0\.25 s \(peak ≥2,545: shorter than the 0\.25 s samples resolve\)/,
  );
  assert.doesNotMatch(text, /79 MB|0\.25 s,|for 0\.2/);
});

test("a 150 MB bucket reads 150 MB above the sustained rate, not the window's 206 MB with the sustained share", () => {
  const samples = bucketSeries({
    peakBitsPerSecond: 2800e6,
    sustainedBitsPerSecond: 600e6,
    bucketBytes: 150e6,
    seconds: 6,
  });
  const burst = detectBurst(samples, 625e6).burst;
  assert.ok(burst);
  assert.ok(Math.abs(burst.bytes - 150e6) < 0.01 * 150e6, `${burst.bytes}`);
  // 0.545 s at the peak: two samples and part of a third, one wholly inside, not enough for a peak
  assert.equal(burst.secondsBound, "at-most");
  assert.ok(burst.seconds >= 0.545 && burst.seconds <= 0.75, `${burst.seconds}`);
});

test("the same 340 MB burst reads the same figures wherever the samples' boundaries fall", () => {
  const figures = [0, 0.06, 0.125, 0.19].map((startSeconds) => {
    const burst = detectBurst(
      bucketSeries({
        peakBitsPerSecond: 2800e6,
        sustainedBitsPerSecond: 600e6,
        bucketBytes: 340e6,
        seconds: 8,
        startSeconds,
      }),
      625e6,
    ).burst;
    assert.ok(burst, `start ${startSeconds}`);
    return burst;
  });
  for (const burst of figures) {
    assert.equal(burst.peakBound, "measured");
    assert.equal(burst.bitsPerSecond, 2800e6);
    assert.ok(Math.abs(burst.bytes - 340e6) < 0.01 * 340e6, `${burst.bytes}`);
    // 340e6 / (350e6 - 75e6) = 1.236 s at the peak
    assert.ok(Math.abs(burst.seconds - 1.236) < 0.02, `${burst.seconds}`);
  }
});
