import assert from "node:assert/strict";
import { test } from "node:test";
import { buildReportModel } from "../../src/report/report-model.js";
import { curveSentence } from "../../src/report/summary-rows.js";
import { buildVerdicts } from "../../src/report/verdict.js";
import { analyzeRun } from "../../src/results/analysis.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { fixtureManifest, fixtureRecord } from "../helpers/fixture-run.js";
import { noisyRecords, normalDraws } from "../helpers/noisy-draws.js";

/**
 * The knee and the recommendation from fixed, seeded draws: a size is below the plateau only when
 * the evidence says so. Six sizes on default-625, 3% run-to-run noise (the published one-stream
 * figures span 568-618 on a 625 quota).
 */
const sizes = [1024, 2048, 3072, 5120, 8192, 10240];
const flatManifest = (repetitions: number) =>
  fixtureManifest(
    {
      name: "flat",
      targets: [{ platform: "local", profile: "default-625" }],
      memoryMb: sizes,
      repetitions,
      probes: [{ kind: "iperf3", timeSeconds: 4, parallel: 4 }],
    },
    { "local:default-625": 625e6 },
  );
// 1,000: the rule reads flat in ~99% of them, and a 95% bar is 13 standard errors away at 1,000
const draws = 1000;

test("a flat curve with 3% noise at n=3 reads 'more memory buys no bandwidth' in at least 95% of 1,000 seeded draws, and recommends the smallest size", (t) => {
  const manifest = flatManifest(3);
  const draw = normalDraws(27);
  let flat = 0;
  let recommendedAtLeastTwice = 0;
  for (let i = 0; i < draws; i += 1) {
    const records = noisyRecords(manifest.cells, 3, () => 590e6, draw, 0.03);
    const model = buildReportModel(manifest, records, undefined, null);
    const [verdict] = buildVerdicts(model);
    if (verdict?.text.includes("more memory buys no bandwidth")) flat += 1;
    const recommended = model.analysis.curves[0]?.recommendedMemoryMb ?? null;
    if (recommended !== null && recommended >= 2 * 1024) recommendedAtLeastTwice += 1;
  }
  t.diagnostic(
    `flat n=3: ${((flat / draws) * 100).toFixed(1)}% of ${draws} draws read "more memory buys no bandwidth"`,
  );
  t.diagnostic(`flat n=3: ${((recommendedAtLeastTwice / draws) * 100).toFixed(1)}% recommend >= 2,048 MB`);
  // the highest-median rule (95% of the top median) read flat in about half of these draws
  assert.ok(flat >= 0.95 * draws, `${flat} of ${draws} draws read flat`);
  assert.ok(recommendedAtLeastTwice <= 0.05 * draws, `${recommendedAtLeastTwice} draws recommend >= 2x`);
});

test("a real rise is still found: 625 -> 3,000 from 2 GB with 3% noise at n=3 puts the knee at 10,240 MB in at least 95% of draws", (t) => {
  const manifest = fixtureManifest(
    {
      name: "rising",
      targets: [{ platform: "local", profile: "raised-3000" }],
      memoryMb: sizes,
      repetitions: 3,
      probes: [{ kind: "iperf3", timeSeconds: 4, parallel: 4 }],
    },
    { "local:raised-3000": 3000e6 },
  );
  const curveAt = (memoryMb: number) =>
    0.95 * (memoryMb <= 2048 ? 625e6 : 625e6 + ((memoryMb - 2048) / (10240 - 2048)) * 2375e6);
  const draw = normalDraws(28);
  let knee = 0;
  const runs = 500;
  for (let i = 0; i < runs; i += 1) {
    const records = noisyRecords(manifest.cells, 3, (cell) => curveAt(cell.memoryMb), draw, 0.03);
    const [curve] = analyzeRun(manifest, records).curves;
    if (curve?.kneeMemoryMb === 10240 && curve.recommendedMemoryMb === 10240) knee += 1;
  }
  t.diagnostic(
    `rising n=3: knee and recommendation at 10,240 MB in ${((knee / runs) * 100).toFixed(1)}% of ${runs} draws`,
  );
  assert.ok(knee >= 0.95 * runs, `${knee} of ${runs}`);
});

test("n=2 a size: the knee cannot be told, nothing is recommended, and the lines say why", () => {
  const manifest = flatManifest(2);
  const records = noisyRecords(manifest.cells, 2, () => 600e6, normalDraws(5), 0.03);
  const model = buildReportModel(manifest, records, undefined, null);
  const curve = model.analysis.curves[0];
  assert.ok(curve);
  assert.equal(curve.kneeMemoryMb, null);
  assert.equal(curve.recommendedMemoryMb, null);
  assert.equal(curve.moveSeconds, null);
  assert.ok(curve.points.every((p) => p.standing === "untold" || p.standing === "plateau"));
  const sentence = curveSentence(curve, 100);
  assert.match(
    sentence,
    /no knee and no recommendation: n=2 at every size \(an interval on the medians needs 3 repetitions a size\)/,
  );
  assert.doesNotMatch(sentence, /Recommended/);
  const [verdict] = buildVerdicts(model);
  assert.equal(verdict?.shape, "untold");
  assert.doesNotMatch(verdict?.text ?? "", /more memory buys no bandwidth|larger sizes/);
  assert.match(verdict?.text ?? "", /no knee at n<3/);
});

test("one size measured: no knee and no recommendation, CPU-bound or not", () => {
  const manifest = fixtureManifest(
    {
      name: "one",
      targets: [{ platform: "local", profile: "default-625" }],
      memoryMb: [10240],
      repetitions: 3,
      probes: [{ kind: "iperf3", timeSeconds: 4, parallel: 4 }],
    },
    { "local:default-625": 625e6 },
  );
  const cell = manifest.cells[0];
  assert.ok(cell);
  for (const cpuSeconds of [0.4, 4 * (10240 / 1769) * 0.95]) {
    const records: ResultRecord[] = [1, 2, 3].map((rep) =>
      fixtureRecord(cell, rep, {
        bitsPerSecond: 921e6,
        sustainedBitsPerSecond: 600e6,
        burstFactor: 3,
        cpuSeconds,
      }),
    );
    const curve = analyzeRun(manifest, records).curves[0];
    assert.ok(curve);
    assert.equal(curve.kneeMemoryMb, null);
    assert.equal(curve.recommendedMemoryMb, null);
    const sentence = curveSentence(curve, 100);
    assert.match(sentence, /one size measured \(10,240 MB\): a knee and a recommendation need two or more/);
    assert.doesNotMatch(sentence, /Recommended|reached/);
  }
});

test("a CPU-bound plateau below the quota gives no knee; a CPU-bound size at the plateau is never recommended", () => {
  const manifest = fixtureManifest(
    {
      name: "cpu",
      targets: [{ platform: "local", profile: "default-625" }],
      memoryMb: [1024, 2048],
      repetitions: 3,
      probes: [{ kind: "iperf3", timeSeconds: 4, parallel: 4 }],
    },
    { "local:default-625": 625e6 },
  );
  const busy = (memoryMb: number) => 4 * (memoryMb / 1769) * 0.95;
  const recordsWith = (rates: Record<number, number>, cpuBoundAt: number[]) =>
    manifest.cells.flatMap((cell) =>
      [0.99, 1, 1.01].map((f, i) =>
        fixtureRecord(cell, i + 1, {
          bitsPerSecond: (rates[cell.memoryMb] as number) * f,
          cpuSeconds: cpuBoundAt.includes(cell.memoryMb) ? busy(cell.memoryMb) : 0.4,
        }),
      ),
    );
  // 300 at 1 GB, 500 at 2 GB, the 2 GB cell CPU-bound at 80% of the quota: more CPU may give more
  const risingOnCpu = analyzeRun(manifest, recordsWith({ 1024: 300e6, 2048: 500e6 }, [2048])).curves[0];
  assert.equal(risingOnCpu?.kneeMemoryMb, null);
  assert.match(risingOnCpu?.kneeUnknownReason ?? "", /the plateau's size \(2,048 MB\) is CPU-bound/);
  assert.equal(risingOnCpu?.recommendedMemoryMb, null);
  // flat at 600, the cheaper 1 GB CPU-bound: 2 GB is recommended and the sentence says why not 1 GB
  const flatCpu = analyzeRun(manifest, recordsWith({ 1024: 600e6, 2048: 600e6 }, [1024])).curves[0];
  assert.ok(flatCpu);
  assert.equal(flatCpu.kneeMemoryMb, 1024);
  assert.equal(flatCpu.recommendedMemoryMb, 2048);
  assert.deepEqual(flatCpu.cpuBoundLeftOutMemoryMb, [1024]);
  assert.match(
    curveSentence(flatCpu, 100),
    /Recommended: 2,048 MB \(n=3\) at \$[\d.]+ per GB moved \(left out as CPU-bound: 1,024 MB\)/,
  );
});
