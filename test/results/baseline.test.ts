import assert from "node:assert/strict";
import { test } from "node:test";
import {
  baselineNames,
  baselinePoints,
  baselineSchema,
  loadBaseline,
  matchBaselineSeries,
} from "../../src/results/baseline.js";

test("seed-2026 loads, carries its source and dates, and states the study's numbers exactly", () => {
  assert.deepEqual([...baselineNames], ["seed-2026"]);
  const seed = loadBaseline("seed-2026");
  assert.match(seed.source, /seed-study/);
  assert.deepEqual(seed.studyPeriod, { from: "2026-08", to: "2026-11" });
  const s3 = seed.series.find((s) => s.id === "us-west-2-s3-get-concurrency-10");
  assert.ok(s3);
  const at = (memoryMb: number) => s3.figures.find((f) => f.memoryMb === memoryMb);
  assert.equal(at(1024)?.secondsPerObject, 13.36);
  assert.equal(at(10240)?.secondsPerObject, 2.89);
  assert.equal(at(10240)?.megabitsPerSecond, 2976);
  // Tokyo: the study states a shape and no number, so nothing is plotted for it
  const tokyo = seed.series.find((s) => s.id === "ap-northeast-1-iperf3-upload");
  assert.ok(tokyo);
  assert.ok(tokyo.figures.every((f) => f.megabitsPerSecond === null && f.secondsPerObject === null));
  assert.deepEqual(baselinePoints(tokyo), []);
});

test("plottable points: stated, approximate ('about 2,400'), and rates derived from seconds per object", () => {
  const seed = loadBaseline("seed-2026");
  const oregon = seed.series.find((s) => s.id === "us-west-2-iperf3-upload");
  assert.ok(oregon);
  assert.deepEqual(
    baselinePoints(oregon).map((p) => [p.memoryMb, p.megabitsPerSecond, p.basis]),
    [
      [8192, 2400, "approximate"],
      [10240, 2400, "approximate"],
    ],
  );
  const s3 = seed.series.find((s) => s.id === "us-west-2-s3-get-concurrency-10");
  assert.ok(s3);
  const points = baselinePoints(s3);
  // 1,073,741,824 bytes x 8 / 13.36 s = 642.96 Mbit/s (derived, the study states the seconds)
  assert.equal(points[0]?.basis, "derived");
  assert.ok(Math.abs((points[0]?.megabitsPerSecond ?? 0) - 642.96) < 0.01);
  assert.deepEqual([points[1]?.megabitsPerSecond, points[1]?.basis], [2976, "stated"]);
});

test("matching: lab profiles by quota, AWS by region, probe by kind and direction/concurrency", () => {
  const seed = loadBaseline("seed-2026");
  const ids = (curve: Parameters<typeof matchBaselineSeries>[1]) =>
    matchBaselineSeries(seed, curve).map((s) => s.id);
  const upload = { direction: "upload", parallel: 4, timeSeconds: 4 };
  const raised3000Iperf3 = (parameters: Record<string, unknown>) =>
    ids({ platform: "local", target: "raised-3000", quotaBitsPerSecond: 3e9, probe: "iperf3", parameters });
  assert.deepEqual(raised3000Iperf3(upload), ["us-west-2-iperf3-upload"]);
  assert.deepEqual(
    ids({
      platform: "local",
      target: "default-625",
      quotaBitsPerSecond: 625e6,
      probe: "iperf3",
      parameters: upload,
    }),
    ["ap-northeast-1-iperf3-upload"],
  );
  assert.deepEqual(
    ids({
      platform: "aws",
      target: "us-west-2",
      quotaBitsPerSecond: null,
      probe: "s3-get",
      parameters: { concurrency: 10 },
    }),
    ["us-west-2-s3-get-concurrency-10"],
  );
  assert.deepEqual(
    ids({
      platform: "aws",
      target: "us-west-2",
      quotaBitsPerSecond: 3e9,
      probe: "iperf3",
      parameters: { direction: "download" },
    }),
    [],
  );
  // the study ran -P 4: a single stream (the streams preset's -P 1) is not compared with it
  for (const parallel of [1, 8])
    assert.deepEqual(raised3000Iperf3({ ...upload, parallel }), [], `-P ${parallel}`);
});

test("an unknown name is refused with the allowed names; the schema rejects an invented field", () => {
  assert.throws(() => loadBaseline("seed-2025"), /unknown baseline "seed-2025" \(allowed: seed-2026\)/);
  const seed = loadBaseline("seed-2026");
  const broken = {
    ...seed,
    series: [{ ...seed.series[0], figures: [{ memoryMb: 1024, megabitsPerSecond: 1 }] }],
  };
  assert.equal(baselineSchema.safeParse(broken).success, false);
});
