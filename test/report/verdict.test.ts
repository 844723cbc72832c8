import assert from "node:assert/strict";
import { test } from "node:test";
import { buildReportModel } from "../../src/report/report-model.js";
import { buildVerdicts } from "../../src/report/verdict.js";
import { fixtureFailure, fixtureManifest, fixtureRecord } from "../helpers/fixture-run.js";
import { fixtureStudy } from "../helpers/fixture-study.js";

test("verdict of the fixed study: one line per target and probe family, sustained first, burst after", () => {
  const { manifest, records } = fixtureStudy();
  const verdicts = buildVerdicts(buildReportModel(manifest, records));
  assert.deepEqual(
    verdicts.map((v) => `${v.target} ${v.probeFamily}`),
    ["default-625 iperf3 upload", "default-625 S3 GET", "raised-3000 iperf3 upload", "raised-3000 S3 GET"],
  );
  const [flat, , rising] = verdicts;
  assert.equal(flat?.shape, "flat");
  // 625 x 0.99 = 618.75 at every size, 1 s bursts at 2,800; the failed repetition at 3,072 MB leaves n=2 there
  assert.equal(
    flat?.text,
    "default-625 iperf3 upload: ~619 Mbit/s sustained at every size: more memory buys no bandwidth; burst 2,800 for 1.0 s at every size (n=2-3)",
  );
  assert.equal(rising?.shape, "rising");
  assert.equal(rising?.leadMemoryMb, 10240);
  // 10,240 MB: 3,000 x 0.99 = 2,970 = 99% of the quota, above the 2,800 peak: no burst there;
  // 3,072 MB: the median of two repetitions (0.95 and 1.0 x 913)
  assert.match(
    rising?.text ?? "",
    /^raised-3000 iperf3 upload: 10,240 MB gives 2,970 Mbit\/s sustained \(99% of quota\), 8,192 MB 2,382, 5,120 MB 1,500, 3,072 MB 890, 2,048 MB 619, 1,024 MB 619; burst 2,800 for 1\.0 s at 1,024 MB, 2,048 MB, 3,072 MB, 5,120 MB, 8,192 MB \(n=2-3\)$/,
  );
  // the failed repetition at 3,072 MB leaves n = 2 there: the line says so
  assert.equal(rising?.sustainedByMemoryMb.find((p) => p.memoryMb === 3072)?.n, 2);
  assert.equal(rising?.fewestRepetitions, 2);
});

test("verdict says less when unsure: n below 3, a size without a sustained rate, none at all", () => {
  const manifest = fixtureManifest(
    {
      name: "few",
      targets: [{ platform: "local", profile: "default-625" }],
      memoryMb: [1024, 5120],
      repetitions: 1,
      probes: [
        { kind: "iperf3", timeSeconds: 4, parallel: 4 },
        { kind: "s3-get", objectMib: 64, concurrency: 1, chunkMib: 8 },
        { kind: "s3-put", sizeMib: 64, partMib: 8, concurrency: 4 },
      ],
    },
    { "local:default-625": 625e6 },
  );
  const records = manifest.cells.map((cell) => {
    if (cell.probe.kind === "s3-put" && cell.memoryMb === 5120) return fixtureFailure(cell, 1, "timeout");
    if (cell.probe.kind === "iperf3")
      return fixtureRecord(cell, 1, {
        bitsPerSecond: 864e6,
        sustainedBitsPerSecond: 598e6,
        burstFactor: 4.4,
      });
    // one second of data, all of it burst: no sustained part to take a median of
    const tooShort = cell.probe.kind === "s3-get" && cell.memoryMb === 1024;
    return fixtureRecord(cell, 1, { bitsPerSecond: 700e6, seconds: tooShort ? 1 : 4 });
  });
  const verdicts = buildVerdicts(buildReportModel(manifest, records));
  const byFamily = new Map(verdicts.map((v) => [v.probeFamily, v]));
  const iperf3 = byFamily.get("iperf3 upload");
  assert.match(iperf3?.text ?? "", /~598 Mbit\/s sustained at every size: .* \(n=1, no spread\)$/);
  const single = byFamily.get("S3 GET single stream");
  assert.match(single?.text ?? "", /no sustained rate at 1,024 MB \(too short\)/);
  assert.match(
    single?.text ?? "",
    /5,120 MB gives 700 Mbit\/s sustained \(112% of quota\) \(the only size with one\)/,
  );
  assert.equal(single?.shape, "single");
  // one size too short to tell, one flat: neither a burst nor "no burst" is claimed
  assert.doesNotMatch(single?.text ?? "", /burst/);
  const put = byFamily.get("S3 PUT");
  assert.equal(put?.sustainedByMemoryMb.length, 1, "the failed size is left out, not printed as zero");
});

test("verdict with no sustained rate anywhere prints no rate at all", () => {
  const manifest = fixtureManifest({
    name: "short",
    targets: [{ platform: "local", profile: "default-625" }],
    memoryMb: [1024],
    repetitions: 1,
    probes: [{ kind: "s3-get", objectMib: 64, concurrency: 4, chunkMib: 8 }],
  });
  const records = manifest.cells.map((cell) =>
    fixtureRecord(cell, 1, { bitsPerSecond: 2_000e6, seconds: 1 }),
  );
  const [verdict] = buildVerdicts(buildReportModel(manifest, records));
  assert.equal(verdict?.shape, "no-sustained");
  assert.doesNotMatch(verdict?.text ?? "", /\d,?\d{3} Mbit/);
  assert.match(verdict?.text ?? "", /no sustained rate at any size \(too short\)/);
});
