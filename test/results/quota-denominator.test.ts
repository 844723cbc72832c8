import assert from "node:assert/strict";
import { test } from "node:test";
import { builtInProfiles } from "../../src/plan/lab-profile.js";
import { buildReportModel } from "../../src/report/report-model.js";
import { summaryColumns } from "../../src/report/summary-rows.js";
import { buildVerdicts } from "../../src/report/verdict.js";
import { analyzeRun } from "../../src/results/analysis.js";
import { fixtureManifest, fixtureRecord } from "../helpers/fixture-run.js";

/**
 * One denominator for every percentage of the quota: the payload limit in force for the cell's
 * memory size and direction (summed for a bidirectional cell). A lab profile of 500 Mbit/s on the
 * wire carries 478.2 of TCP payload: 477 sustained is 99.75% of what the link allows, where the
 * quota's 500 would say 95% beside a bottleneck of "100% of the 478 in force".
 */
const wire500 = {
  ...(builtInProfiles.find((p) => p.name === "default-625") as (typeof builtInProfiles)[number]),
  name: "wire-500",
  upload: [
    { memoryMb: 128, megabitsPerSecond: 500 },
    { memoryMb: 10240, megabitsPerSecond: 500 },
  ],
  download: [
    { memoryMb: 128, megabitsPerSecond: 500 },
    { memoryMb: 10240, megabitsPerSecond: 500 },
  ],
};

function run(direction: "upload" | "bidir", sustainedBitsPerSecond: number) {
  const manifest = fixtureManifest(
    {
      name: "denominator",
      targets: [{ platform: "local", profile: "default-625" }],
      memoryMb: [1024],
      repetitions: 3,
      probes: [{ kind: "iperf3", timeSeconds: 4, parallel: 4, direction }],
    },
    { "local:default-625": 500e6 },
  );
  const facts = manifest.platforms["local:default-625"];
  assert.ok(facts);
  facts.details.profile = wire500;
  const records = manifest.cells.flatMap((cell) =>
    [1, 2, 3].map((rep) =>
      fixtureRecord(cell, rep, {
        bitsPerSecond: (4 * 2800e6 + 12 * sustainedBitsPerSecond) / 16,
        sustainedBitsPerSecond,
        burstFactor: 2800e6 / sustainedBitsPerSecond,
      }),
    ),
  );
  return { manifest, records };
}

const quotaColumn = summaryColumns.find((c) => c.header === "Quota (%)");

test("477 sustained on a 478.2 payload limit reads 100% of the quota everywhere, never 95%", () => {
  const { manifest, records } = run("upload", 477e6);
  const cell = analyzeRun(manifest, records).cells[0];
  assert.ok(cell?.ceiling);
  assert.ok(Math.abs(cell.ceiling.bitsPerSecond / 1e6 - 478.2) < 0.1, `${cell.ceiling.bitsPerSecond}`);
  assert.ok(Math.abs((cell.quotaPercent ?? 0) - 99.75) < 0.05, `${cell.quotaPercent}`);
  assert.equal(quotaColumn?.text(cell), "100%");
  assert.equal(cell.bottleneck.kind, "quota");
  assert.match(cell.bottleneck.evidence, /is 100% of the 478 Mbit\/s in force/);
  const [verdict] = buildVerdicts(buildReportModel(manifest, records, undefined, null));
  assert.match(verdict?.text ?? "", /477 Mbit\/s sustained \(100% of quota\)/);
  assert.doesNotMatch(verdict?.text ?? "", /95%/);
});

test("a bidirectional cell divides both directions' sum by both directions' limit", () => {
  const { manifest, records } = run("bidir", 950e6);
  const cell = analyzeRun(manifest, records).cells[0];
  assert.ok(cell?.ceiling);
  // 2 x 478.2 = 956.4: 950 is 99.3%, not 190% of one direction's 500
  assert.ok(Math.abs(cell.ceiling.bitsPerSecond / 1e6 - 956.4) < 0.2, `${cell.ceiling.bitsPerSecond}`);
  assert.equal(quotaColumn?.text(cell), "99%");
  assert.match(cell.bottleneck.evidence, /is 99% of the 956 Mbit\/s in force/);
});

test("near the 95% threshold one decimal: 94.6% of the limit never prints '95%' beside 'not quota-bound'", () => {
  const limit = 478.2034346e6;
  const { manifest, records } = run("upload", 0.946 * limit);
  const cell = analyzeRun(manifest, records).cells[0];
  assert.ok(cell);
  assert.notEqual(cell.bottleneck.kind, "quota");
  assert.equal(quotaColumn?.text(cell), "94.6%");
  assert.match(cell.bottleneck.evidence, /\(94\.6% of the 478 Mbit\/s quota\)/);
  const [verdict] = buildVerdicts(buildReportModel(manifest, records, undefined, null));
  assert.match(verdict?.text ?? "", /\(94\.6% of quota\)/);
  // away from the threshold, whole percent as before
  const { manifest: m2, records: r2 } = run("upload", 0.8 * limit);
  assert.equal(quotaColumn?.text(analyzeRun(m2, r2).cells[0] as never), "80%");
});
