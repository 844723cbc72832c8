import assert from "node:assert/strict";
import { test } from "node:test";
import type { BucketMeasurement } from "../../src/probes/bucket/measurement.js";
import { emptySamples, type IntervalSamples } from "../../src/probes/interval-sampler.js";
import { bucketMarkdownLines, bucketTextLines } from "../../src/report/bucket-section.js";
import { analyzeRun } from "../../src/results/analysis.js";
import { summarizeBucketFits } from "../../src/results/bucket-cells.js";
import { fitBucket } from "../../src/results/bucket-fit.js";
import { bucketProfile } from "../../src/results/bucket-profile.js";
import { fixtureManifest, fixtureRecord } from "../helpers/fixture-run.js";

/**
 * A bucket larger than the long transfer can drain: the transfer runs at the peak to its end,
 * and the fit, with no break to find, reads that peak as the sustained rate. Against the ceiling
 * in force (the lab profile's rate or the quota) it is burst: the bucket section must say so and
 * print no sustained rate from it.
 */

const SUSTAINED_BITS = 78.125e6;
const PEAK_BITS = 454e6;

/** 10 ms samples, `burstSeconds` at the peak, then the sustained rate, for `seconds` in all. */
function transfer(burstSeconds: number, seconds: number): IntervalSamples {
  const samples = emptySamples(10);
  for (let t = 0; t < seconds - 1e-9; t += 0.01) {
    const atPeak = Math.max(0, Math.min(0.01, burstSeconds - t));
    const bits = atPeak * PEAK_BITS + (0.01 - atPeak) * SUSTAINED_BITS;
    samples.startSeconds.push(t);
    samples.durationSeconds.push(0.01);
    // a few % of noise, deterministic
    samples.bytes.push((bits / 8) * (1 + 0.03 * Math.sin(t * 977)));
  }
  return samples;
}

function measurement(burstSeconds: number): BucketMeasurement {
  return {
    direction: "download",
    parallel: 8,
    transfers: [{ gapSeconds: null, idleSeconds: null, samples: transfer(burstSeconds, 3) }],
  };
}

const outlasted = fitBucket(measurement(10)); // a 10 s burst in a 3 s transfer
const drained = fitBucket(measurement(0.15));

test("a long transfer that never left its burst reads its peak as sustained without a ceiling; with one it is burst", () => {
  assert.ok(outlasted && drained);
  // what was printed before: the peak as the sustained rate, no burst
  const blind = summarizeBucketFits([outlasted]);
  assert.ok(blind && Math.abs((blind.sustainedBitsPerSecond?.median ?? 0) / PEAK_BITS - 1) < 0.05);
  assert.equal(blind.neverLeftBurst, null);

  const model = summarizeBucketFits([outlasted], SUSTAINED_BITS);
  assert.ok(model);
  assert.equal(model.n, 0, "no repetition left its burst");
  assert.equal(model.sustainedBitsPerSecond, null);
  assert.equal(model.bucketBytes, null);
  assert.equal(model.neverLeftBurst?.repetitions, 1);
  assert.equal(model.neverLeftBurst?.ceilingBitsPerSecond, SUSTAINED_BITS);
  assert.ok(Math.abs((model.neverLeftBurst?.rateBitsPerSecond.median ?? 0) / PEAK_BITS - 1) < 0.05);
});

test("repetitions that left their burst keep their figures; those that did not are counted apart", () => {
  assert.ok(outlasted && drained);
  const model = summarizeBucketFits([drained, outlasted, drained], SUSTAINED_BITS);
  assert.ok(model);
  assert.equal(model.n, 2);
  assert.equal(model.burstFound, 2);
  assert.ok(Math.abs((model.sustainedBitsPerSecond?.median ?? 0) / SUSTAINED_BITS - 1) < 0.03);
  assert.equal(model.neverLeftBurst?.repetitions, 1);
  // within the ceiling's noise a rate is sustained: a drained transfer at the ceiling stays in
  assert.equal(summarizeBucketFits([drained], SUSTAINED_BITS / 1.04)?.neverLeftBurst, null);
});

test("a run on the lab: the bucket section prints no sustained rate for a transfer that never left its burst, and says why", () => {
  const manifest = fixtureManifest(
    {
      name: "never-left",
      targets: [{ platform: "local", profile: "seed-oregon-2026" }],
      memoryMb: [2048],
      repetitions: 2,
      probes: [{ kind: "bucket", direction: ["download"] }],
    },
    { "local:seed-oregon-2026": SUSTAINED_BITS },
  );
  const cell = manifest.cells[0] as (typeof manifest.cells)[number];
  const records = [1, 2].map((repetition) => ({
    ...fixtureRecord(cell, repetition, { bitsPerSecond: PEAK_BITS }),
    bucket: { measurement: measurement(10), fit: outlasted as NonNullable<typeof outlasted> },
  }));
  const [bucket] = analyzeRun(manifest, records).buckets;
  assert.ok(bucket);
  assert.equal(bucket.model.sustainedBitsPerSecond, null);
  assert.equal(bucket.model.neverLeftBurst?.repetitions, 2);
  assert.equal(bucket.example, null, "no chart of a sustained rate that was not reached");
  // wrapped lines joined: a sentence may break anywhere
  const text = bucketTextLines([bucket], 100).join("\n").replace(/\n +/g, " ");
  const markdown = bucketMarkdownLines([bucket]).join("\n");
  for (const out of [text, markdown]) {
    assert.match(
      out,
      /2 of 2 repetition\(s\) never left the burst: 4\d\d Mbit\/s .* above the 78 Mbit\/s ceiling/,
    );
    assert.doesNotMatch(out, /\b4\d\d\b(?! Mbit\/s to the end)/, "the peak nowhere but in the reason");
    assert.doesNotMatch(out, /no bucket to refill/, "not that there is no bucket: it outlasted the transfer");
  }
  assert.throws(
    () => bucketProfile("never-left", [{ memoryMb: 2048, model: bucket.model }], "the lab"),
    /no bucket fit with a sustained rate/,
  );
});
