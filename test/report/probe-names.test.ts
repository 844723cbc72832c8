import assert from "node:assert/strict";
import { test } from "node:test";
import { runProbeNames } from "../../src/report/probe-names.js";
import { fixtureManifest } from "../helpers/fixture-run.js";

const manifest = fixtureManifest(
  {
    name: "probe-names",
    targets: [{ platform: "local", profile: "default-625" }],
    memoryMb: [1024],
    repetitions: 1,
    probes: [
      { kind: "s3-get", objectMib: 40, concurrency: 1, chunkMib: 8 },
      { kind: "s3-get", objectMib: 384, concurrency: 1, chunkMib: 8 },
      { kind: "s3-get", objectMib: 1024, concurrency: 4, chunkMib: 16 },
    ],
  },
  { "local:default-625": 625e6 },
);

test("two probes whose short names would read alike keep their full labels; the others their short names", () => {
  const names = runProbeNames(manifest.cells);
  const shorts = manifest.cells.map((cell) => names[cell.probeKey]?.short);
  // was "s3-get conc 1" twice: the console summary's rows and the verdict could not tell them apart
  assert.deepEqual(shorts, [
    "s3-get 40 MiB conc 1 chunk 8 MiB",
    "s3-get 384 MiB conc 1 chunk 8 MiB",
    "s3-get conc 4",
  ]);
  assert.equal(new Set(shorts).size, shorts.length);
});
