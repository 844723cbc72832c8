import assert from "node:assert/strict";
import { test } from "node:test";
import {
  compareRuns,
  renderComparisonCompact,
  renderComparisonJson,
  renderComparisonText,
} from "../../src/report/compare-runs.js";
import { buildReportModel } from "../../src/report/report-model.js";
import { fixtureManifest } from "../helpers/fixture-run.js";
import { noisyRecords, normalDraws } from "../helpers/noisy-draws.js";

/**
 * compare's "beyond noise" from seeded draws: one cell on default-625 measured in run A and run B,
 * 3% run-to-run noise. Unchanged: the min-max rule read about 1 pair in 10 "beyond noise" at n=3.
 */
const manifestOf = (runId: string, repetitions: number) => ({
  ...fixtureManifest(
    {
      name: "pair",
      targets: [{ platform: "local", profile: "default-625" }],
      memoryMb: [1024],
      repetitions,
      probes: [{ kind: "iperf3", timeSeconds: 4, parallel: 4 }],
    },
    { "local:default-625": 625e6 },
  ),
  runId,
});

function confidences(repetitions: number, shift: number, draws: number, seed: number) {
  const a = manifestOf("before", repetitions);
  const b = manifestOf("after", repetitions);
  const draw = normalDraws(seed);
  const counts = { "within noise": 0, "beyond noise": 0, other: 0 };
  for (let i = 0; i < draws; i += 1) {
    const before = buildReportModel(
      a,
      noisyRecords(a.cells, repetitions, () => 500e6, draw, 0.03),
      undefined,
      null,
    );
    const after = buildReportModel(
      b,
      noisyRecords(b.cells, repetitions, () => 500e6 * (1 + shift), draw, 0.03),
      undefined,
      null,
    );
    const confidence = compareRuns(before, after).rows[0]?.confidence;
    if (confidence === "within noise" || confidence === "beyond noise") counts[confidence] += 1;
    else counts.other += 1;
  }
  return counts;
}

test("an unchanged pair of runs at n=3 a side, 3% noise, reads 'within noise' in at least 95% of 2,000 seeded draws", (t) => {
  const draws = 2000;
  const counts = confidences(3, 0, draws, 41);
  t.diagnostic(
    `unchanged n=3: ${((counts["within noise"] / draws) * 100).toFixed(1)}% of ${draws} draws within noise`,
  );
  assert.equal(counts.other, 0);
  assert.ok(counts["within noise"] >= 0.95 * draws, `${counts["within noise"]} of ${draws}`);
});

test("a real 15% shift at n=5 a side reads 'beyond noise' in at least 95% of 500 seeded draws", (t) => {
  const draws = 500;
  const counts = confidences(5, 0.15, draws, 42);
  t.diagnostic(
    `15% shift n=5: ${((counts["beyond noise"] / draws) * 100).toFixed(1)}% of ${draws} draws beyond noise`,
  );
  assert.ok(counts["beyond noise"] >= 0.95 * draws, `${counts["beyond noise"]} of ${draws}`);
});

test("the comparison says which test decided and on what n, in every format", () => {
  const a = manifestOf("before", 3);
  const b = manifestOf("after", 3);
  const draw = normalDraws(7);
  const comparison = compareRuns(
    buildReportModel(
      a,
      noisyRecords(a.cells, 3, () => 500e6, draw, 0.01),
      undefined,
      null,
    ),
    buildReportModel(
      b,
      noisyRecords(b.cells, 3, () => 600e6, draw, 0.01),
      undefined,
      null,
    ),
  );
  const row = comparison.rows[0];
  assert.equal(row?.confidence, "beyond noise");
  assert.ok(row?.interval && row.interval.lowBitsPerSecond > 0, "the interval on B - A lies above zero");
  const rule =
    /95% bootstrap interval on the difference of medians \(2,000 resamples\) excludes zero and the delta is at least 5% of A/;
  assert.match(renderComparisonText(comparison), rule);
  assert.match(
    renderComparisonCompact(comparison, 200),
    /no mark: beyond noise \(the 95% bootstrap interval/,
  );
  const json = JSON.parse(renderComparisonJson(comparison));
  assert.equal(json.noiseTest.minimumEffectPercent, 5);
  assert.equal(json.rows[0].sustainedBitsPerSecondA.n, 3);
  assert.ok(json.rows[0].deltaIntervalBitsPerSecond.lowBitsPerSecond > 0);
});
