import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { validatePlan } from "../../src/plan/load-plan.js";
import type { IntervalSamples } from "../../src/probes/interval-sampler.js";
import { readIperf3Output } from "../../src/results/iperf3-output.js";
import type { MeasuredSeries } from "../../src/results/measured-series.js";
import { publishedAsMeasured, publishedSeries } from "../../src/results/published-series.js";
import { readSeriesCsv } from "../../src/results/series-csv.js";
import { fitSeries, type SeriesFit, summarizeSeriesFits } from "../../src/results/series-fit.js";
import { seriesProfile, seriesReplayProbe } from "../../src/results/series-profile.js";
import { formatError } from "../helpers/series-format-error.js";

/**
 * The readers of iperf3 output and sample CSVs, and the fit of what they read, on real stock
 * iperf3 3.12 output from the lab (test/fixtures/iperf3/README.md: 125 Mbit/s sustained, a 35 MB
 * bucket at 600 Mbit/s, payload) and on a published Lambda series.
 */

const fixtures = join(import.meta.dirname, "../fixtures/iperf3");
const read = (name: string) => readIperf3Output(name, readFileSync(join(fixtures, name), "utf8"));
const M = 1e6;
const SUSTAINED = 125 * M;
const BUCKET = 35 * M;
const PEAK = 600 * M;

interface BucketRunRecord {
  warmup: boolean;
  repetition: number;
  probeLabel: string;
  bucket: { measurement: { transfers: Array<{ samples: IntervalSamples }> } };
}

function within(actual: number | undefined, expected: number, share: number, what: string): void {
  assert.ok(actual !== undefined, `${what}: no value`);
  assert.ok(Math.abs(actual - expected) / expected <= share, `${what}: ${actual} vs ${expected}`);
}

function fitted(series: MeasuredSeries | undefined): SeriesFit {
  assert.ok(series);
  const fit = fitSeries(series);
  assert.ok(fit, "fitted");
  return fit;
}

test("stock iperf3 -J at 1 s: the sustained rate and the bucket are measured, the peak only bounded from below", () => {
  const [series, ...rest] = read("download-1s.json");
  assert.equal(rest.length, 0);
  assert.equal(series?.direction, "download");
  assert.equal(series?.counted, "receiver");
  assert.equal(series?.streams, 1);
  assert.equal(series?.samples.bytes.length, 5);
  const fit = fitted(series);
  within(fit.sustainedBitsPerSecond, SUSTAINED, 0.03, "sustained");
  within(fit.bucketBytes, BUCKET, 0.1, "bucket");
  assert.equal(fit.peakBitsPerSecond?.bound, "at-least");
  assert.ok((fit.peakBitsPerSecond?.value ?? 0) < PEAK, "a lower bound under the true peak");
  assert.equal(fit.burstSeconds?.bound, "at-most");
  assert.ok(
    (fit.burstSeconds?.value ?? 0) >= BUCKET / ((PEAK - SUSTAINED) / 8),
    "an upper bound over the true length",
  );
  const model = summarizeSeriesFits([fit]);
  assert.match(model?.limits.join(" ") ?? "", /peak was at least 405 Mbit\/s/);
});

test("stock iperf3 -J at 250 ms: the bucket within 10% though the burst ends inside the third sample", () => {
  const fit = fitted(read("download-250ms.json")[0]);
  within(fit.sustainedBitsPerSecond, SUSTAINED, 0.03, "sustained");
  within(fit.bucketBytes, BUCKET, 0.1, "bucket");
  assert.equal(fit.burstSamples, 3);
  assert.equal(fit.peakBitsPerSecond?.bound, "at-least");
});

test("10 ms samples (stock iperf3 3.12 takes -i 0.1 at least: the bucket probe's, as a CSV): sustained, bucket and peak all measured, from the first byte", () => {
  // test/fixtures/bucket-run: default-625 at 1/8 in the lab, tbf 78.125 Mbit/s sustained after
  // 1 s at 350 on the wire; payload = wire / 1.0456, the bucket (350 - 78.125) x 1 s / 8 of it
  const payload = (wireBitsPerSecond: number) => wireBitsPerSecond / 1.0456;
  const records = readFileSync(join(import.meta.dirname, "../fixtures/bucket-run/results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as BucketRunRecord)
    .filter((record) => record.bucket && !record.warmup);
  assert.equal(records.length, 4);
  for (const record of records) {
    const samples = record.bucket.measurement.transfers[0]?.samples;
    assert.ok(samples);
    const rows = samples.bytes.map(
      (bytes, i) =>
        `${(samples.startSeconds[i] as number) + (samples.durationSeconds[i] as number)},${bytes}`,
    );
    const direction = record.probeLabel.includes("download") ? "download" : "upload";
    const [series] = readSeriesCsv("bucket.csv", `elapsed_seconds,bytes\n${rows.join("\n")}\n`, direction);
    const what = `${record.probeLabel} #${record.repetition}`;
    const fit = fitted(series);
    within(fit.sustainedBitsPerSecond, payload(78.125 * M), 0.03, `${what}: sustained`);
    within(fit.bucketBytes, payload((350 - 78.125) * M) / 8, 0.1, `${what}: bucket`);
    assert.equal(fit.peakBitsPerSecond?.bound, "measured", what);
    within(fit.peakBitsPerSecond?.value, payload(350 * M), 0.1, `${what}: peak`);
  }
});

test("an upload (-J without -R) says the sender counted, and the limits say what that means", () => {
  const [series] = read("upload-1s.json");
  assert.equal(series?.direction, "upload");
  assert.equal(series?.counted, "sender");
  const model = summarizeSeriesFits([fitted(series)]);
  assert.match(model?.limits.join(" ") ?? "", /sending side counted/);
});

test("--json-stream lines read as the same transfer as -J; several tests in one file are one transfer each", () => {
  const [stream] = read("download-1s.jsonl");
  const [document] = read("download-1s.json");
  assert.equal(stream?.format, "iperf3-json-stream");
  assert.deepEqual(stream?.samples, document?.samples);
  const text = readFileSync(join(fixtures, "download-1s.json"), "utf8");
  const two = readIperf3Output("runs.json", `${text}\n${text}`);
  assert.deepEqual(
    two.map((s) => s.label),
    ["runs.json test 1", "runs.json test 2"],
  );
  const lines = readFileSync(join(fixtures, "download-1s.jsonl"), "utf8");
  assert.equal(readIperf3Output("runs.jsonl", lines + lines).length, 2);
});

test("-O: the omitted intervals (which hold the burst) and the counted ones, whose clock restarts, share one time line", () => {
  const interval = (start: number, seconds: number, omitted: boolean) => ({
    sum: { start, end: start + seconds, seconds, bytes: 1_000_000, omitted, sender: false },
  });
  const doc = {
    start: { test_start: { protocol: "TCP", num_streams: 1, reverse: 1, omit: 1 } },
    intervals: [
      interval(0, 0.5, true),
      interval(0.5, 0.5, true),
      interval(0, 0.5, false),
      interval(0.5, 0.5, false),
    ],
  };
  const [series] = readIperf3Output("omit.json", JSON.stringify(doc));
  assert.deepEqual(series?.samples.startSeconds, [0, 0.5, 1, 1.5]);
});

test("a file that is not iperf3 output: the error names the field and what was expected", () => {
  assert.match(
    formatError(() => readIperf3Output("x.json", '{"hello": 1}')).message,
    /^x\.json: start: expected the iperf3 -J start object/,
  );
  const doc = JSON.parse(readFileSync(join(fixtures, "download-1s.json"), "utf8"));
  doc.intervals[2].sum.bytes = "many";
  assert.match(
    formatError(() => readIperf3Output("y.json", JSON.stringify(doc))).message,
    /^y\.json: intervals\[2\]\.sum\.bytes: expected a non-negative number, found "many"$/,
  );
  doc.start.test_start.bidir = 1;
  assert.match(
    formatError(() => readIperf3Output("z.json", JSON.stringify(doc))).message,
    /start\.test_start\.bidir/,
  );
  assert.match(
    formatError(() =>
      readIperf3Output("e.json", '{"start": {}, "intervals": [], "error": "unable to connect"}'),
    ).message,
    /error: expected a test that ran .*"unable to connect"/,
  );
  assert.match(
    formatError(() => readIperf3Output("s.jsonl", '{"event":"interval","data":{}}\n')).message,
    /line 1: event: expected "start" first/,
  );
});

test("a CSV of elapsed seconds and bytes (or cumulative bytes), one transfer per repetition", () => {
  const [one] = readSeriesCsv(
    "a.csv",
    "# from a logger\nelapsed_seconds,bytes\n0.5,100\n1.0,50\n1.5,50\n",
    "upload",
  );
  assert.deepEqual(one?.samples.startSeconds, [0, 0.5, 1]);
  assert.deepEqual(one?.samples.bytes, [100, 50, 50]);
  assert.equal(one?.direction, "upload");
  const cumulative = readSeriesCsv(
    "b.csv",
    "repetition,seconds,cumulative_bytes\n1,1,100\n1,2,150\n2,1,90\n2,2,140\n",
    null,
  );
  assert.deepEqual(
    cumulative.map((s) => [s.label, s.samples.bytes]),
    [
      ["b.csv repetition 1", [100, 50]],
      ["b.csv repetition 2", [90, 50]],
    ],
  );
  assert.match(
    formatError(() => readSeriesCsv("c.csv", "time,bytes\n1,2\n", null)).message,
    /line 1 \(header\): expected elapsed_seconds/,
  );
  assert.match(
    formatError(() => readSeriesCsv("d.csv", "seconds,bytes\n1,2\n1,3\n", null)).message,
    /line 3, column seconds: expected more than the row before/,
  );
  assert.match(
    formatError(() => readSeriesCsv("e.csv", "seconds,bytes\n1,-2\n", null)).message,
    /line 2, column bytes: expected a non-negative number, found "-2"/,
  );
});

test("a published Lambda series at 1 s: about 600 Mbit/s sustained, a bucket of ~276 MB, the peak at least its first second", () => {
  const published = publishedSeries.find((s) => s.id === "sjakthol-2024-eu-north-1-1024");
  assert.ok(published);
  const fit = fitted(publishedAsMeasured(published));
  within(fit.sustainedBitsPerSecond, 631 * M, 0.01, "sustained");
  within(fit.bucketBytes, 276.3 * M, 0.01, "bucket");
  assert.deepEqual(fit.peakBitsPerSecond, { value: 2_866_908_000, bound: "at-least" });
});

test("the saved profile takes the bound for the peak, and the replay the original's settings", () => {
  const model = summarizeSeriesFits([fitted(read("download-1s.json")[0])]);
  assert.ok(model);
  const profile = seriesProfile("replayed", [model], 2048, "download-1s.json");
  assert.equal(
    profile.burst?.peakMegabitsPerSecond,
    Math.round((model.peakBitsPerSecond?.spread.median ?? 0) / 1e4) / 100,
  );
  assert.equal(profile.burst?.bytes, Math.round(model.bucketBytes?.median ?? 0));
  assert.deepEqual(profile.upload, profile.download, "one direction measured: the other copies it");
  assert.match(profile.source, /bound the peak from below only/);
  const probe = seriesReplayProbe(model);
  assert.deepEqual(probe, {
    kind: "iperf3",
    direction: "download",
    parallel: 1,
    timeSeconds: 5,
    intervalMs: 1000,
    omitSeconds: 0,
    // the fitted bucket refilled at the sustained rate, with a quarter to spare
    restSeconds: 4,
  });
  const plan = validatePlan({
    targets: [{ platform: "local", profile: "replayed" }],
    memoryMb: [2048],
    probes: [probe],
    profiles: [profile],
  });
  assert.equal(plan.probes.length, 1);
  const csvModel = summarizeSeriesFits([
    fitted(readSeriesCsv("n.csv", "seconds,bytes\n1,10\n2,10\n3,10\n4,10\n5,10\n", null)[0]),
  ]);
  assert.ok(csvModel);
  assert.throws(() => seriesProfile("n", [csvModel], 2048, "n.csv"), /--direction/);
});
