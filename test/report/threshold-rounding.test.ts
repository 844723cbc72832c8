import assert from "node:assert/strict";
import { test } from "node:test";
import { compareRuns, renderComparisonCompact } from "../../src/report/compare-runs.js";
import { buildReportModel } from "../../src/report/report-model.js";
import { summaryColumns } from "../../src/report/summary-rows.js";
import { analyzeRun } from "../../src/results/analysis.js";
import { nameBottleneck } from "../../src/results/bottleneck.js";
import { defaultLabManifest, fixtureRecord } from "../helpers/fixture-run.js";

/**
 * Rounding at thresholds: a figure printed beside a decision taken at a threshold agrees with the
 * decision. Whole numbers that round onto the line ("0.90 of 1.00 cores", "+5%") say one decimal.
 */

/** The bottleneck of a cell below its quota whose client used `usedCores` of one core. */
const cpuVerdict = (usedCores: number) =>
  nameBottleneck({
    platform: "local",
    sustainedBitsPerSecond: 400e6,
    sustainedMissing: null,
    quota: { bitsPerSecond: 598e6, basis: "lab profile" },
    streams: null,
    flowCap: null,
    cpu: { usedCores, shareCores: 1 },
    server: null,
  });

test("client CPU at 89.6% of its share: not CPU-bound, and the evidence says 89.6%, not only '0.90 of 1.00 cores'", () => {
  const verdict = cpuVerdict(0.896);
  assert.equal(verdict.kind, "undetermined");
  assert.match(verdict.evidence, /client CPU 0\.90 of 1\.00 cores \(89\.6%\)/);
  // at 90.4% it is CPU-bound, and says so to one decimal (the quota's 95% is not its line)
  const bound = cpuVerdict(0.904);
  assert.equal(bound.kind, "cpu");
  assert.match(bound.evidence, /\(90\.4%\) for a sustained/);
});

const manifest = defaultLabManifest("cpu-line");

test("the summary's CPU column says the share near the CPU-bound line: '0.52/0.58 (89.6%)', never a bare 0.52/0.58 that reads either way", () => {
  // 1,024 MB / 1,769 MB per vCPU = 0.5789 cores; 89.6% of it is 0.5187 cores over 4 s
  const share = 1024 / 1769;
  const records = manifest.cells.flatMap((cell) =>
    [1, 2, 3].map((rep) => fixtureRecord(cell, rep, { bitsPerSecond: 600e6, cpuSeconds: 0.896 * share * 4 })),
  );
  const cell = analyzeRun(manifest, records).cells[0];
  assert.ok(cell);
  assert.equal(cell.cpuBound, false);
  const column = summaryColumns.find((c) => c.header === "CPU used/share (cores)");
  assert.equal(column?.text(cell), "0.52/0.58 (89.6%)");
  // far from the line, the cores alone
  const idle = manifest.cells.flatMap((c) =>
    [1, 2, 3].map((rep) => fixtureRecord(c, rep, { bitsPerSecond: 600e6, cpuSeconds: 0.4 })),
  );
  assert.equal(column?.text(analyzeRun(manifest, idle).cells[0] as never), "0.10/0.58");
});

test("compare: a 4.6% shift prints '+4.6%' beside its within-noise mark, not '+5%' (the minimum effect)", () => {
  const model = (runId: string, rate: number) =>
    buildReportModel(
      { ...manifest, runId },
      manifest.cells.flatMap((cell) =>
        [1, 2, 3].map((rep) => fixtureRecord(cell, rep, { bitsPerSecond: rate * (1 + (rep - 2) * 0.001) })),
      ),
      undefined,
      null,
    );
  const comparison = compareRuns(model("a", 500e6), model("b", 523e6));
  const text = renderComparisonCompact(comparison, 100);
  assert.match(text, /\+4\.6%/);
  assert.doesNotMatch(text, /\+5%/);
});
