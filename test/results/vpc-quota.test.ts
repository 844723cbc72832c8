import assert from "node:assert/strict";
import { test } from "node:test";
import { analyzeRun } from "../../src/results/analysis.js";
import { fixtureManifest, fixtureRecord } from "../helpers/fixture-run.js";

// The bandwidth quota covers functions outside a VPC only (aws-facts.md): a VPC cell's sustained
// rate is not a share of it, so its "Quota %" stays empty while the non-VPC cell beside it has one.
test("quota % for non-VPC cells only", () => {
  const manifest = fixtureManifest(
    {
      name: "vpc-axis",
      targets: [{ platform: "aws", region: "us-west-2" }],
      memoryMb: [2048],
      repetitions: 2,
      vpc: [false, true],
      probes: [{ kind: "s3-get", objectMib: 1024, concurrency: 10, chunkMib: 16 }],
    },
    { "aws:us-west-2": 3000e6 },
  );
  assert.equal(manifest.cells.length, 2);
  const records = manifest.cells.flatMap((cell) =>
    [1, 2].map((rep) =>
      fixtureRecord(cell, rep, {
        bitsPerSecond: cell.vpc ? 580e6 : 2880e6,
        sustainedBitsPerSecond: cell.vpc ? 580e6 : 2880e6,
        burstFactor: 1,
      }),
    ),
  );
  const analysis = analyzeRun(manifest, records);
  const plain = analysis.cells.find((c) => !c.probeLabel.endsWith(" in VPC"));
  const inVpc = analysis.cells.find((c) => c.probeLabel.endsWith(" in VPC"));
  assert.equal(plain?.quotaPercent, 96);
  assert.equal(inVpc?.quotaPercent, null);
  assert.equal(inVpc?.sustained?.median, 580e6);
  // two curves, one per variant: the report shows them as separate rows and lines
  assert.equal(new Set(analysis.curves.map((c) => c.probeKey)).size, 2);
});
