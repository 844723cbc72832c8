import assert from "node:assert/strict";
import { test } from "node:test";
import { probeParameters } from "../../src/plan/cell.js";
import { labProfileSchema } from "../../src/plan/lab-profile.js";
import { analyzeRun } from "../../src/results/analysis.js";
import { fitFlowCap } from "../../src/results/flow-cap-fit.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { streamsSweeps } from "../../src/results/streams-sweeps.js";
import { fixtureManifest, fixtureRecord, fixtureSamples } from "../helpers/fixture-run.js";

const M = 1e6;

test("a per-flow cap of 600 under a 3,000 quota is recovered from 1-16 streams, with its spread", () => {
  // hand-made: 1, 2, 4 streams at ~600 each; 8 and 16 at the quota
  const fit = fitFlowCap([
    { streams: 1, bitsPerSecond: [598 * M, 601 * M, 604 * M] },
    { streams: 2, bitsPerSecond: [1_196 * M, 1_200 * M, 1_210 * M] },
    { streams: 4, bitsPerSecond: [2_380 * M, 2_402 * M, 2_410 * M] },
    { streams: 8, bitsPerSecond: [2_990 * M, 3_001 * M, 2_985 * M] },
    { streams: 16, bitsPerSecond: [2_996 * M, 2_970 * M, 3_003 * M] },
  ]);
  assert.equal(fit.verdict, "cap");
  assert.deepEqual(fit.flowLimitedStreams, [1, 2, 4]);
  // least squares through the origin: (1x601 + 2x1,200 + 4x2,402) / (1 + 4 + 16) = 12,609 / 21 = 600.43
  assert.ok(Math.abs((fit.flowBitsPerSecond ?? 0) / M - 600.429) < 0.01, String(fit.flowBitsPerSecond));
  assert.equal(fit.spread?.n, 9);
  assert.equal(Math.round((fit.spread?.min ?? 0) / M), 595); // 2,380 / 4
  assert.equal(Math.round((fit.spread?.max ?? 0) / M), 605); // 1,210 / 2
  assert.equal(Math.round(fit.plateauBitsPerSecond / M), 2_993); // median of 2,990 and 2,996;
  assert.match(
    fit.summary,
    /per-flow cap: 600 Mbit\/s detected from 1, 2, 4 stream\(s\), per stream 595-605 \(n=9\)/,
  );
});

test("no cap: one stream already reaches the plateau, so none is seen (with the lower bound it implies)", () => {
  const fit = fitFlowCap([
    { streams: 1, bitsPerSecond: [2_950 * M, 2_900 * M] },
    { streams: 2, bitsPerSecond: [3_000 * M] },
    { streams: 4, bitsPerSecond: [2_990 * M] },
    { streams: 16, bitsPerSecond: [3_010 * M] },
  ]);
  assert.equal(fit.verdict, "none-seen");
  assert.equal(fit.flowBitsPerSecond, null);
  assert.match(fit.summary, /^per-flow cap: none seen \(1 stream already reaches the plateau/);
  assert.ok((fit.atLeastBitsPerSecond ?? 0) > 2_900 * M);
});

test("growth that is not proportional to the streams is inconclusive, not a cap", () => {
  // CPU-limited client: 1 stream 1,500, 2 streams 1,900, 4+ at 3,000
  const fit = fitFlowCap([
    { streams: 1, bitsPerSecond: [1_500 * M] },
    { streams: 2, bitsPerSecond: [1_900 * M] },
    { streams: 4, bitsPerSecond: [3_000 * M] },
    { streams: 8, bitsPerSecond: [3_000 * M] },
  ]);
  assert.equal(fit.verdict, "inconclusive");
  assert.equal(fit.flowBitsPerSecond, null);
  assert.equal(fitFlowCap([{ streams: 4, bitsPerSecond: [1e9] }]).verdict, "inconclusive");
});

/** These hand-made records' rates stand for their sustained rates. */
const ownRate = (record: ResultRecord) => record.bitsPerSecond;

function record(
  probe: string,
  parameters: Record<string, unknown>,
  bitsPerSecond: number,
  memoryMb = 10_240,
) {
  return {
    probe,
    parameters,
    bitsPerSecond,
    memoryMb,
    target: "seed-oregon-2026",
    platform: "local",
    arch: "x86_64",
    warmup: false,
    ok: true,
  } as unknown as ResultRecord;
}

test("sweeps are grouped by everything but the stream count; single counts and 'auto' are not sweeps", () => {
  const base = { kind: "iperf3", direction: "upload", timeSeconds: 10, omitSeconds: 0 };
  const records = [
    record("iperf3", { ...base, parallel: 1 }, 600 * M),
    record("iperf3", { ...base, parallel: 2 }, 1_200 * M),
    record("iperf3", { ...base, parallel: 8 }, 3_000 * M),
    record("iperf3", { ...base, parallel: 16 }, 3_000 * M),
    record("iperf3", { ...base, direction: "download", parallel: 4 }, 2_400 * M),
    record("s3-get", { kind: "s3-get", objectMib: 1024, chunkMib: 16, concurrency: "auto" }, 3_000 * M),
    record("s3-get", { kind: "s3-get", objectMib: 1024, chunkMib: 16, concurrency: 10 }, 3_000 * M),
  ];
  const sweeps = streamsSweeps(records, ownRate);
  assert.equal(sweeps.length, 1);
  assert.equal(sweeps[0]?.description, "iperf3 upload -t 10s");
  assert.deepEqual(
    sweeps[0]?.points.map((p) => p.streams),
    [1, 2, 8, 16],
  );
  assert.equal(sweeps[0]?.fit.verdict, "cap");
  assert.equal(Math.round((sweeps[0]?.fit.flowBitsPerSecond ?? 0) / M), 600);
});

test("a fleet's members (environments at once) are a sweep of their own, apart from single environments", () => {
  const base = { kind: "iperf3", direction: "upload", timeSeconds: 10, omitSeconds: 0 };
  const inFleet = (parallel: number, bitsPerSecond: number) =>
    ({ ...record("iperf3", { ...base, parallel }, bitsPerSecond), environments: 4 }) as ResultRecord;
  const sweeps = streamsSweeps(
    [
      record("iperf3", { ...base, parallel: 1 }, 600 * M),
      record("iperf3", { ...base, parallel: 2 }, 1_200 * M),
      record("iperf3", { ...base, parallel: 8 }, 3_000 * M),
      inFleet(1, 300 * M),
      inFleet(2, 600 * M),
      inFleet(8, 750 * M),
      // two stream counts (the seed preset's S3 at concurrency 1 and 10) are not a sweep
      record("s3-get", { kind: "s3-get", objectMib: 1024, chunkMib: 16, concurrency: 1 }, 540 * M),
      record("s3-get", { kind: "s3-get", objectMib: 1024, chunkMib: 16, concurrency: 10 }, 2_970 * M),
    ],
    ownRate,
  );
  assert.equal(sweeps.length, 2);
  assert.deepEqual(
    sweeps.map((sweep) => sweep.points.map((p) => Math.round((p.bitsPerSecond[0] ?? 0) / M))),
    [
      [600, 1_200, 3_000],
      [300, 600, 750],
    ],
  );
});

test("a stray high point at one stream (a burst that outlived the omit) does not become the plateau", () => {
  // measured in the lab on default-625 at 1,024 MB: 1 stream 722/630, 2: 601/597, 8: 596/595
  const fit = fitFlowCap([
    { streams: 1, bitsPerSecond: [722 * M, 630 * M] },
    { streams: 2, bitsPerSecond: [601 * M, 597 * M] },
    { streams: 8, bitsPerSecond: [596 * M, 595 * M] },
  ]);
  assert.equal(fit.verdict, "none-seen", fit.summary);
  assert.equal(Math.round(fit.plateauBitsPerSecond / M), 599);
});

/**
 * 250 ms samples of `seconds` of a transfer offering `offeredMbps` through a token bucket: the
 * peak while the bucket (Mbit above the sustained rate) lasts, then the sustained rate.
 */
function bucketSamples(offeredMbps: number, seconds: number) {
  const peakMbps = 2_800;
  const sustainedMbps = 625;
  let bucketMegabits = (peakMbps - sustainedMbps) * 1;
  const bytes: number[] = [];
  for (let t = 0; t < seconds - 1e-9; t += 0.25) {
    const fast = Math.min(offeredMbps, peakMbps);
    const drainMbps = fast - sustainedMbps;
    // the part of the interval the bucket still lasts at this rate
    const burstSeconds = drainMbps > 0 ? Math.min(0.25, bucketMegabits / drainMbps) : 0;
    bucketMegabits -= burstSeconds * Math.max(0, drainMbps);
    const megabits = fast * burstSeconds + Math.min(offeredMbps, sustainedMbps) * (0.25 - burstSeconds);
    bytes.push((megabits * 1e6) / 8);
  }
  return fixtureSamples(0.25, bytes);
}

test("the per-flow cap is fitted on sustained rates: a burst in the averages is no cap", () => {
  // one flow held to 720 Mbit/s above a 625 quota (one S3 connection on default-625): at one
  // stream the 6 s transfer never leaves its burst (the bucket drains at 95 Mbit/s), at two or
  // more it drains within 2.7 s. The averages read 720, then 988 for 2, 4 and 8 streams, which
  // fitted a 720 Mbit/s "per-flow cap" under a plateau of 988; the sustained rates are 625 at
  // 2, 4 and 8 streams, and one stream has none.
  const profile = {
    name: "flow-above-quota",
    download: [{ memoryMb: 128, megabitsPerSecond: 625 }],
    upload: [{ memoryMb: 128, megabitsPerSecond: 625 }],
    burst: { peakMegabitsPerSecond: 2_800, seconds: 1 },
    flowMegabitsPerSecond: 720,
    payload: true,
  };
  const manifest = fixtureManifest({
    name: "sustained-sweep",
    targets: [{ platform: "local", profile: profile.name }],
    profiles: [profile],
    memoryMb: [1024],
    repetitions: 3,
    probes: [{ kind: "iperf3", timeSeconds: 6, omitSeconds: 0, parallel: [1, 2, 4, 8] }],
  });
  const facts = manifest.platforms[`local:${profile.name}`];
  assert.ok(facts);
  facts.details = { profile: labProfileSchema.parse(profile), hostCores: 2 };
  const records = manifest.cells.flatMap((cell) =>
    [1, 2, 3].map((repetition) => {
      const streams = (cell.probe as { parallel: number }).parallel;
      const samples = bucketSamples(streams * 720, 6);
      const bytes = samples.bytes.reduce((sum, b) => sum + b, 0);
      return {
        ...fixtureRecord(cell, repetition, { bitsPerSecond: (bytes * 8) / 6, seconds: 6, samples }),
        parameters: probeParameters(cell.probe),
      };
    }),
  );
  const averages = streamsSweeps(records, ownRate);
  assert.equal(averages[0]?.fit.verdict, "cap", "the averages alone fit a cap: the case this test is about");
  const [sweep] = analyzeRun(manifest, records).streams;
  assert.ok(sweep);
  assert.deepEqual(
    sweep.points.map((p) => p.streams),
    [2, 4, 8],
    "one stream ended inside its burst: no sustained rate, no point",
  );
  for (const point of sweep.points)
    for (const rate of point.bitsPerSecond) assert.ok(Math.abs(rate / M - 625) < 1, `${rate / M}`);
  assert.equal(sweep.fit.verdict, "none-seen", sweep.fit.summary);
  assert.ok(Math.abs(sweep.fit.plateauBitsPerSecond / M - 625) < 1, sweep.fit.summary);
});
