import assert from "node:assert/strict";
import { test } from "node:test";
import { renderJson } from "../../src/report/json-format.js";
import { buildReportModel } from "../../src/report/report-model.js";
import { analyzeRun, costPerGigabyte } from "../../src/results/analysis.js";
import { fixtureManifest, fixtureRecord, fixtureSamples } from "../helpers/fixture-run.js";

/**
 * A short parallel S3 PUT: 3.25 s in 250 ms samples, a ramp, nine intervals at 2,800 Mbit/s with
 * every part in flight, then the last parts finishing one by one. The median of the intervals
 * reads 2,800; the transfer moved 2,531 Mbit/s, and that is what the cell's sustained rate, its
 * cost per GB and its time to move N GB use.
 */
const megabits = [2_000, ...Array.from({ length: 9 }, () => 2_800), 2_500, 2_000, 1_200];
const bytes = megabits.map((m) => (m * 1e6 * 0.25) / 8);
const movedBitsPerSecond = (bytes.reduce((a, b) => a + b, 0) * 8) / 3.25;

const manifest = fixtureManifest(
  {
    name: "put-sustained",
    targets: [{ platform: "aws", region: "us-west-2" }],
    memoryMb: [10240],
    repetitions: 3,
    probes: [{ kind: "s3-put", sizeMib: 1024, partMib: 64, concurrency: 16 }],
  },
  { "aws:us-west-2": 3_000e6 },
);
const cell = manifest.cells[0] as (typeof manifest.cells)[number];
const records = [1, 2, 3].map((repetition) =>
  fixtureRecord(cell, repetition, {
    bitsPerSecond: movedBitsPerSecond,
    seconds: 3.25,
    samples: fixtureSamples(0.25, bytes),
  }),
);

test("a cell's sustained rate is bytes over time after the burst; the interval median is a diagnostic beside it", () => {
  const [stats] = analyzeRun(manifest, records).cells;
  assert.ok(stats);
  assert.equal(stats.burstFound.none, 3, "no burst: the ramp is slow start, the rest within the band");
  assert.ok(Math.abs((stats.sustained?.median ?? 0) - movedBitsPerSecond) < 1, `${stats.sustained?.median}`);
  assert.equal(Math.round(movedBitsPerSecond / 1e6), 2_531);
  assert.equal(stats.sustainedIntervalMedian?.median, 2_800e6);
  assert.ok(Math.abs((stats.quotaPercent ?? 0) - (movedBitsPerSecond / 3_000e6) * 100) < 1e-6);
  // the cost per GB at the rate the transfer achieved, not at the median's
  const price = analyzeRun(manifest, records).prices.byTarget[`aws:us-west-2/${cell.arch}`];
  assert.ok(price);
  const bytesPerInvocation = (movedBitsPerSecond * 3.25) / 8;
  assert.equal(
    stats.costPerGigabyteUsd,
    costPerGigabyte(10_240, stats.sustained?.median ?? 0, bytesPerInvocation, price),
  );
  assert.ok(
    (stats.costPerGigabyteUsd ?? 0) > costPerGigabyte(10_240, 2_800e6, bytesPerInvocation, price) * 1.05,
    "the median's rate would price it more than 5% low",
  );
});

test("report.json carries the interval median per cell, beside the sustained rate", () => {
  const json = JSON.parse(renderJson(buildReportModel(manifest, records))) as {
    cells: Array<{ sustained: { median: number }; sustainedIntervalMedian: { median: number } | null }>;
  };
  assert.equal(json.cells[0]?.sustainedIntervalMedian?.median, 2_800e6);
  assert.ok(Math.abs((json.cells[0]?.sustained.median ?? 0) - movedBitsPerSecond) < 1);
});
