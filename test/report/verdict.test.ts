import assert from "node:assert/strict";
import { test } from "node:test";
import { builtInProfiles } from "../../src/plan/lab-profile.js";
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
  const [flat] = verdicts;
  assert.equal(flat?.shape, "flat");
  // 625 x 0.99 = 618.75 at every size, 1 s bursts at 2,800; the failed repetition at 3,072 MB leaves n=2 there
  assert.equal(
    flat?.text,
    "default-625 iperf3 upload: ~619 Mbit/s sustained at every size: more memory buys no bandwidth (not compared: 3,072 MB n=2); burst 2,800 for 1.0 s at every size (n=2-3)",
  );
  // the failed repetition at 3,072 MB leaves n=2 below the plateau's 10,240 MB: no interval can
  // put it below, so the smallest size at the plateau cannot be told, and no size leads the line
  const [, , untold, rising] = verdicts;
  assert.equal(untold?.shape, "untold");
  assert.equal(untold?.leadMemoryMb, null);
  assert.equal(
    untold?.text,
    "raised-3000 iperf3 upload: 619 / 619 / 890 / 1,500 / 2,382 / 2,970 Mbit/s sustained at 1,024 / 2,048 / 3,072 / 5,120 / 8,192 / 10,240 MB; 3,072 MB has n=2 (an interval on the medians needs 3 repetitions a size): the smallest size at the plateau cannot be told; burst 2,800 for 1.0 s at 1,024 MB, 2,048 MB, 3,072 MB, 5,120 MB, 8,192 MB (n=2-3)",
  );
  // S3 GET, n=3 everywhere: 8,192 MB's max (2,334 x 1.05 = 2,451) is more than 5% under 10,240 MB's
  // min (2,910 x 0.95 = 2,765): below beyond noise, and so every smaller size; 10,240 MB leads
  assert.equal(rising?.shape, "rising");
  assert.equal(rising?.leadMemoryMb, 10240);
  assert.equal(
    rising?.text,
    "raised-3000 S3 GET: 10,240 MB gives 2,910 Mbit/s sustained (97% of quota), 8,192 MB 2,334, 5,120 MB 1,470, 3,072 MB 894, 2,048 MB 606, 1,024 MB 606; burst 2,800 for 1.0 s at 1,024 MB, 2,048 MB, 3,072 MB, 5,120 MB, 8,192 MB",
  );
  assert.equal(untold?.sustainedByMemoryMb.find((p) => p.memoryMb === 3072)?.n, 2);
  assert.equal(untold?.sustainedByMemoryMb.find((p) => p.memoryMb === 3072)?.standing, "untold");
  assert.equal(untold?.fewestRepetitions, 2);
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
  // the lab records its profile in the facts: the ceiling is its curve in payload terms (598)
  const facts = manifest.platforms["local:default-625"];
  assert.ok(facts);
  facts.details.profile = builtInProfiles.find((p) => p.name === "default-625");
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
  // n=1: two equal medians are not evidence of a flat curve; the line says it cannot tell
  assert.equal(iperf3?.shape, "untold");
  assert.match(
    iperf3?.text ?? "",
    /: 598 \/ 598 Mbit\/s sustained at 1,024 \/ 5,120 MB; no knee at n<3; .* \(n=1, no spread\)$/,
  );
  assert.doesNotMatch(iperf3?.text ?? "", /more memory buys no bandwidth/);
  const single = byFamily.get("S3 GET single stream");
  // 700 Mbit/s flat on a 625 quota (598 in payload) is the burst, never a sustained rate: the
  // 4 s transfer ended inside it (700 - 598 = 102 Mbit/s x 4 s = 51 MB above the quota)
  assert.equal(single?.shape, "no-sustained");
  assert.match(
    single?.text ?? "",
    /no sustained rate at any size \(ended inside the burst: 13 MB above the quota in 1\.0 s, ended inside the burst: 51 MB above the quota in 4\.0 s\)/,
  );
  assert.match(single?.text ?? "", /a longer transfer, or more connections, reaches the sustained rate/);
  assert.doesNotMatch(single?.text ?? "", /700/);
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
