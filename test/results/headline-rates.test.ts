import assert from "node:assert/strict";
import { test } from "node:test";
import { analyzeRun, costPerGigabyte } from "../../src/results/analysis.js";
import { environmentCpuShare } from "../../src/results/cpu-share.js";
import { lambdaPrice } from "../../src/results/price-table.js";
import { fixtureManifest, fixtureRecord } from "../helpers/fixture-run.js";

/**
 * Which figure each headline uses: two memory sizes on default-625, each record a 1 s burst at
 * 2,800 Mbit/s then 600 (1 GB) or 620 (2 GB) Mbit/s for 3 s. Effective = (4 x 2,800 + 12 x r) / 16:
 * 1,150 and 1,165. Every headline must follow the sustained 600/620, never the effective. Three
 * repetitions (a knee needs them); the same records at n=2 tell no knee.
 */
const manifestOf = (repetitions: number) =>
  fixtureManifest(
    {
      name: "headlines",
      targets: [{ platform: "local", profile: "default-625" }],
      memoryMb: [1024, 2048],
      repetitions,
      probes: [{ kind: "iperf3", timeSeconds: 4, parallel: 4 }],
    },
    { "local:default-625": 625e6 },
  );
const sustainedOf: Record<number, number> = { 1024: 600e6, 2048: 620e6 };
const recordsOf = (m: ReturnType<typeof manifestOf>, repetitions: number) =>
  m.cells.flatMap((cell) =>
    Array.from({ length: repetitions }, (_, i) => {
      const sustained = sustainedOf[cell.memoryMb] as number;
      return fixtureRecord(cell, i + 1, {
        bitsPerSecond: (4 * 2800e6 + 12 * sustained) / 16,
        sustainedBitsPerSecond: sustained,
        burstFactor: 2800e6 / sustained,
      });
    }),
  );
const manifest = manifestOf(3);
const records = recordsOf(manifest, 3);

test("plateau, knee, slope, recommendation, cost per GB, time to move N GB and quota % use the sustained rate", () => {
  const analysis = analyzeRun(manifest, records);
  const curve = analysis.curves[0];
  assert.ok(curve);
  assert.equal(curve.rateBasis, "sustained");
  assert.equal(curve.plateauBitsPerSecond, 620e6);
  // 600 is 3.2% under 620 with no spread: the interval [-20, -20] is not wholly more than 5%
  // (31 Mbit/s) under the plateau, so 1 GB reaches it: the knee is the smallest size, the curve flat
  assert.equal(curve.kneeMemoryMb, 1024);
  assert.equal(curve.points[0]?.standing, "reaches");
  assert.equal(curve.slopeBitsPerSecondPerGigabyte, 0);
  // 1 GB at 600 costs less per GB than 2 GB at 620
  assert.equal(curve.recommendedMemoryMb, 1024);
  const price = lambdaPrice("local", "default-625", "arm64");
  assert.ok(price);
  const small = analysis.cells.find((c) => c.memoryMb === 1024);
  assert.ok(small);
  // bytes per invocation = effective x 4 s / 8 = 1,150e6 x 4 / 8 = 575e6
  const expectedCost = costPerGigabyte(1024, 600e6, 575e6, price);
  assert.equal(small.costPerGigabyteUsd, expectedCost);
  assert.equal(curve.recommendedCostPerGigabyteUsd, expectedCost);
  // 100 GB x 8e9 / 600e6 = 1,333.3 s (the effective rate would say 695.7 s)
  assert.equal(curve.moveSeconds, (100 * 8e9) / 600e6);
  assert.equal(curve.recommendedEffectiveBitsPerSecond, 1150e6);
  assert.equal(small.quotaPercent, 96);
  assert.equal(small.effective?.median, 1150e6);
  assert.equal(small.burst?.median, 2800e6);
  assert.equal(small.burstSeconds?.median, 1);
  // bytes above the sustained rate: (2,800 - 600) Mbit/s x 1 s / 8, not the burst window's 350e6
  assert.equal(small.burstBytes?.median, 275e6);
  assert.equal(curve.recommendedRepetitions, 3);

  // the same two sizes at n=2: no interval, so no knee, no recommendation, no time to move N GB
  const few = analyzeRun(manifestOf(2), recordsOf(manifestOf(2), 2)).curves[0];
  assert.ok(few);
  assert.equal(few.plateauBitsPerSecond, 620e6, "the highest median is still shown, with its n");
  assert.equal(few.plateauRepetitions, 2);
  assert.equal(few.kneeMemoryMb, null);
  assert.equal(few.recommendedMemoryMb, null);
  assert.equal(few.moveSeconds, null);
  assert.match(few.noRecommendationReason ?? "", /^n=2 at every size/);
});

test("a size without a sustained rate is listed with its reason, never filled with the effective rate", () => {
  const short = records.map((r) =>
    r.memoryMb === 2048
      ? {
          ...r,
          seconds: 1,
          samples: { intervalSeconds: 0.25, bytes: [1e6, 1e6, 1e6, 1e6], lastIntervalSeconds: 0.25 },
        }
      : r,
  );
  const curve = analyzeRun(manifest, short).curves[0];
  assert.ok(curve);
  assert.deepEqual(
    curve.points.map((p) => ({ memoryMb: p.memoryMb, medianBitsPerSecond: p.medianBitsPerSecond })),
    [{ memoryMb: 1024, medianBitsPerSecond: 600e6 }],
  );
  assert.equal(curve.missing[0]?.memoryMb, 2048);
  assert.match(curve.missing[0]?.reason ?? "", /too short: 1 s measured/);
  assert.equal(curve.plateauBitsPerSecond, 600e6);
});

test("CPU share: the lab profile's mbPerVcpu capped by host cores; AWS 1,769 MB per vCPU up to 6", () => {
  const lab = (mbPerVcpu: number, hostCores = 8) => ({
    platform: "local" as const,
    target: "custom",
    emulated: true,
    unshaped: false,
    quotaBitsPerSecond: null,
    details: { profile: { mbPerVcpu }, hostCores },
  });
  assert.equal(environmentCpuShare(2048, lab(1024)).cores, 2);
  assert.equal(environmentCpuShare(10240, lab(1024, 2)).cores, 2, "capped by the host's 2 cores");
  assert.equal(environmentCpuShare(1769, lab(1769)).cores, 1);
  const aws = {
    platform: "aws" as const,
    target: "us-west-2",
    emulated: false,
    unshaped: false,
    quotaBitsPerSecond: null,
    details: {},
  };
  assert.equal(environmentCpuShare(3538, aws).cores, 2);
  assert.equal(environmentCpuShare(10240, aws).cores, 10240 / 1769, "5.79 vCPUs, under the cap of 6");
  assert.equal(
    environmentCpuShare(10240, { ...lab(1769), unshaped: true }).cores,
    8,
    "unshaped: no CPU limit",
  );
  // a profile with 512 MB per vCPU: 1 core at 512 MB, so 0.46 cores used is not CPU-bound
  const m = fixtureManifest({
    name: "cpu",
    targets: [{ platform: "local", profile: "default-625" }],
    memoryMb: [512],
    repetitions: 1,
    probes: [{ kind: "iperf3", timeSeconds: 4, parallel: 4 }],
  });
  m.platforms["local:default-625"] = { ...lab(512), target: "default-625" };
  const cell = m.cells[0];
  assert.ok(cell);
  const analysis = analyzeRun(m, [fixtureRecord(cell, 1, { bitsPerSecond: 500e6, cpuSeconds: 4 * 0.46 })]);
  assert.equal(analysis.cells[0]?.cpuShareCores, 1);
  assert.equal(
    analysis.cells[0]?.cpuBound,
    false,
    "a fixed 1,769 MB per vCPU would have said 0.29 core and flagged it CPU-bound",
  );
});
