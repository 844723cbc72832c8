import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { readSeriesFile } from "../../src/results/series-file.js";
import { fitSeries } from "../../src/results/series-fit.js";
import { formatError } from "../helpers/series-format-error.js";

/**
 * The file readers on stock iperf3 3.12 output as it prints it on loopback
 * (test/fixtures/iperf3/loopback/README: client paced at 300 Mbit/s, no shaping), and the choice
 * of reader for a file: what a user who runs `fit` on their own files meets first.
 */

const loopback = join(import.meta.dirname, "../fixtures/iperf3/loopback");
const read = (name: string) => readSeriesFile(name, readFileSync(join(loopback, name), "utf8"), null);

test("-i 0.1 -R: 30 samples of 100 ms, counted by the receiver; a paced steady link has no burst", () => {
  const [series, ...rest] = read("down-100ms.json");
  assert.equal(rest.length, 0);
  assert.equal(series?.format, "iperf3-json");
  assert.equal(series?.direction, "download");
  assert.equal(series?.counted, "receiver");
  assert.equal(series?.samples.bytes.length, 30);
  assert.ok(Math.abs((series?.samples.intervalSeconds ?? 0) - 0.1) < 0.002);
  const fit = series ? fitSeries(series) : null;
  assert.ok(fit);
  assert.ok(Math.abs(fit.sustainedBitsPerSecond - 300e6) / 300e6 <= 0.03, `${fit.sustainedBitsPerSecond}`);
  assert.equal(fit.burst, false);
  assert.equal(fit.peakBitsPerSecond, null);
});

test("-O 1 -P 2: the sum over both streams, the omitted intervals first and the restarted clock on one time line", () => {
  const [series] = read("up-p2-omit.json");
  assert.equal(series?.streams, 2);
  assert.equal(series?.direction, "upload");
  assert.equal(series?.counted, "sender");
  const samples = series?.samples;
  assert.equal(samples?.bytes.length, 8);
  // the first counted interval starts where the second omitted one ended (1.000194 s)
  assert.ok(Math.abs((samples?.startSeconds[2] ?? 0) - 1.000194) < 1e-6, `${samples?.startSeconds[2]}`);
  const ends = samples?.startSeconds.map((start, i) => start + (samples.durationSeconds[i] ?? 0)) ?? [];
  assert.ok(Math.abs((ends[7] ?? 0) - 4.0) < 0.01, `the test's 1 + 3 s: ${ends[7]}`);
  // 2 x 300 Mbit/s
  const bytes = samples?.bytes.reduce((sum, b) => sum + b, 0) ?? 0;
  assert.ok(Math.abs((bytes * 8) / (ends[7] ?? 1) - 600e6) / 600e6 <= 0.03);
});

test("iperf3's error document (a test that never ran) is refused with iperf3's own message, whole", () => {
  assert.equal(
    formatError(() => read("refused.json")).message,
    'refused.json: error: expected a test that ran (iperf3 reported this error), found "unable to connect to server: Connection refused"',
  );
});

test("iperf3's text output (no -J) is named as such, not read as a CSV without a header", () => {
  assert.match(
    formatError(() => read("text-output.txt")).message,
    /^text-output\.txt: line 1: expected iperf3 -J or --json-stream output \(this is iperf3's text output: run the test again with -J\), found "Connecting to host/,
  );
  for (const first of ["Usage: iperf3 [-s|-c host] [options]", "iperf3: error - unable to connect"])
    assert.match(
      formatError(() => readSeriesFile("t.txt", `\n${first}\n`, null)).message,
      /line 2: .*text output/,
    );
});

test("an empty file, JSON that is not iperf3's, and a CSV each get their own reader and error", () => {
  assert.match(
    formatError(() => readSeriesFile("e.json", " \n", null)).message,
    /^e\.json: \(file\): expected iperf3 -J or --json-stream output, or a CSV .*found an empty file$/,
  );
  assert.match(
    formatError(() => readSeriesFile("j.json", "[1, 2]", null)).message,
    /^j\.json: \[0\]: expected an iperf3 -J object/,
  );
  assert.match(
    formatError(() => readSeriesFile("x.json", "{nope", null)).message,
    /line 1: expected valid JSON/,
  );
  const [csv] = readSeriesFile("s.csv", "seconds,bytes\n1,10\n2,10\n", "download");
  assert.equal(csv?.format, "csv");
  assert.equal(csv?.direction, "download");
});
