import assert from "node:assert/strict";
import { test } from "node:test";
import { samplesUntilCompletion } from "../../src/probes/s3/completion-wait.js";
import { detectBurst } from "../../src/results/burst-detection.js";
import { fixtureSamples } from "../helpers/fixture-run.js";

// 3 s of parts at 2,600 Mbit/s in 250 ms samples, then two empty intervals while S3 answered the
// last parts; CompleteMultipartUpload answered 0.3 s after that, at 3.8 s
const rateBytes = (2_600e6 * 0.25) / 8;
const parts = fixtureSamples(0.25, [...Array.from({ length: 12 }, () => rateBytes), 0, 0]);

test("an upload's samples run to the completion: the wait joins the last interval that moved bytes", () => {
  const samples = samplesUntilCompletion(parts, 3.8);
  assert.equal(samples.bytes.length, 12, "the empty intervals after the last byte are part of the wait");
  assert.equal(samples.startSeconds.at(-1), 2.75);
  assert.ok(Math.abs((samples.durationSeconds.at(-1) ?? 0) - 1.05) < 1e-12);
  assert.ok(Math.abs(samples.durationSeconds.reduce((a, b) => a + b, 0) - 3.8) < 1e-12);
  assert.equal(
    samples.bytes.reduce((a, b) => a + b, 0),
    12 * rateBytes,
  );
  assert.deepEqual(samplesUntilCompletion(fixtureSamples(0.25, [0, 0]), 1), fixtureSamples(0.25, [0, 0]));
});

test("the sustained rate of an upload is its bytes over the time to the completion", () => {
  // cut at the last part, the empty tail reads as idle after the last byte: 2,600
  assert.equal(Math.round((detectBurst(parts).sustainedBitsPerSecond ?? 0) / 1e6), 2_600);
  // to the completion's answer: 3 s of bytes over 3.8 s
  const sustained = detectBurst(samplesUntilCompletion(parts, 3.8)).sustainedBitsPerSecond ?? 0;
  assert.ok(Math.abs(sustained - (12 * rateBytes * 8) / 3.8) < 1, `${sustained / 1e6} Mbit/s`);
});
