import assert from "node:assert/strict";
import { test } from "node:test";
import type { BucketTransfer } from "../../src/probes/bucket/measurement.js";
import { analyzeRun } from "../../src/results/analysis.js";
import { recordRates } from "../../src/results/record-rates.js";
import { fixtureManifest, fixtureRecord, fixtureSamples } from "../helpers/fixture-run.js";

/**
 * The CPU a probe used, in cores, goes over the seconds it was spent in. A bucket probe runs a
 * 5 s transfer and seven 2 s ones after idle gaps; its CPU covers all eight, its headline
 * seconds only the first.
 */
const manifest = fixtureManifest({
  name: "cpu-cores",
  targets: [{ platform: "local", profile: "default-625" }],
  memoryMb: [1024],
  repetitions: 1,
  probes: [{ kind: "bucket", direction: ["download"] }],
});
const cell = manifest.cells[0] as (typeof manifest.cells)[number];

/** A transfer of `seconds` at 600 Mbit/s in 250 ms samples. */
function transfer(seconds: number, gapSeconds: number | null): BucketTransfer {
  const intervalBytes = (600e6 * 0.25) / 8;
  return {
    gapSeconds,
    idleSeconds: gapSeconds === null ? null : gapSeconds + 0.05,
    samples: fixtureSamples(
      0.25,
      Array.from({ length: seconds * 4 }, () => intervalBytes),
    ),
  };
}

const gaps = [0.25, 0.5, 1, 2, 4, 8, 16];
const transfers = [transfer(5, null), ...gaps.map((gap) => transfer(2, gap))];
const bucketRecord = {
  ...fixtureRecord(cell, 1, { bitsPerSecond: 600e6, seconds: 5, cpuSeconds: 4.92 }),
  bucket: { measurement: { direction: "download" as const, parallel: 8, transfers }, fit: null },
};

test("a bucket record's CPU goes over all its transfers' measured seconds, not the long one's 5 s", () => {
  const rates = recordRates(bucketRecord);
  assert.ok(rates);
  // 4.92 CPU-seconds over 5 + 7 x 2 = 19 s; over the headline's 5 s it read 0.98
  assert.ok(Math.abs((rates.cpuCores ?? 0) - 4.92 / 19) < 1e-9, `cores ${rates.cpuCores}`);
  // the headline rate and seconds stay the long transfer's
  assert.equal(rates.transferSeconds, 5);
  assert.equal(rates.effectiveBitsPerSecond, 600e6);
});

test("at 1,024 MB (0.58 cores of share) the bucket cell is not named CPU-bound for 0.26 cores", () => {
  const [stats] = analyzeRun(manifest, [bucketRecord]).cells;
  assert.ok(stats);
  assert.ok(Math.abs((stats.cpuCores?.median ?? 0) - 4.92 / 19) < 1e-9);
  assert.equal(stats.cpuBound, false, `${stats.cpuCores?.median} of ${stats.cpuShareCores} cores`);
  assert.notEqual(stats.bottleneck.kind, "cpu", stats.bottleneck.evidence);
});

test("a single-transfer record's CPU still goes over its measured period", () => {
  const plain = fixtureRecord(cell, 1, { bitsPerSecond: 600e6, seconds: 4, cpuSeconds: 1 });
  assert.equal(recordRates(plain)?.cpuCores, 0.25);
});
