import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type LabProfile, type LabProfileInput, labProfileSchema } from "../../src/plan/lab-profile.js";
import { buildCharts } from "../../src/report/charts/chart-specs.js";
import { renderSvg } from "../../src/report/charts/render-chart.js";
import { renderMarkdown } from "../../src/report/markdown-format.js";
import { loadReportModel } from "../../src/report/write-report.js";
import type { BucketModel } from "../../src/results/bucket-cells.js";
import { bucketProfile } from "../../src/results/bucket-profile.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import {
  type BucketSchedule,
  expectedBucket,
  fingerprintOnLab,
  refillPointsText,
  repetitionsText,
} from "../helpers/bucket-fingerprint.js";
import { rootSkip } from "../helpers/root-gate.js";
import { scaledProfile } from "../helpers/scaled-profile.js";

/**
 * The bucket probe on lab profiles whose shaping is known, each at 1/8 of its rates and bytes
 * (test/helpers/scaled-profile.ts: a bucket of B bytes at peak P over sustained S empties and
 * refills in the time B/8 at P/8 over S/8 does, so the schedules stay the profiles' own): the
 * fit recovers what the shaper was set to (bucket and peak within 10%, an upload's bucket 15%
 * and its peak 25% under to 5% over; a burst under 0.5 s, both directions' peaks 30% under to 5%
 * over: SHARE, UPLOAD_PEAK, SHORT_BURST_PEAK;
 * sustained within 3%; refill within 10%), and a profile saved from a fit shapes that fit and
 * its download replay recovers the saved shaping (within the same shares). Each profile runs 3 repetitions at 2,048 MB, once: at most 500
 * Mbit/s crosses a shaper, so the figures hold on a busy 2-core host the first time; the full-rate fingerprints (4,000 Mbit/s
 * peaks) are `npm run bench -- bucket` (docs/BENCHMARKS.md).
 *
 * What the lab's shaper does (tbf, src/platforms/local/shaping.ts): tokens accrue at the
 * sustained rate whether the link is idle or busy, up to the bucket; so the refill while idle
 * is the sustained rate, linear, and it starts only once what tbf still queues (at most 20 ms
 * at the peak rate) has drained after the streams closed: a delay of 0-0.06 s that the fit
 * reports apart (delaySeconds), not as a slower refill.
 */
const skip = rootSkip("the bucket probe on lab profiles");
let out: string;
before(async () => {
  if (skip) return;
  out = await mkdtemp(join(tmpdir(), "lnb-bucket-"));
});
after(async () => {
  if (out) await rm(out, { recursive: true, force: true });
});

/** Every profile here runs at 1/DIVISOR of its rates. */
const DIVISOR = 8;
const MEMORY_MB = 2_048;
const M = 1e6;

const fingerprint = (
  profile: string,
  directions: Array<"upload" | "download">,
  schedule: BucketSchedule,
  custom: LabProfileInput,
) =>
  fingerprintOnLab({
    profile,
    directions,
    schedule,
    custom,
    parentDir: out,
    memoryMb: MEMORY_MB,
    repetitions: 3,
  });

function within(
  actual: number | undefined,
  expected: number,
  share: number,
  what: string,
  detail = "",
): void {
  assert.ok(actual !== undefined, `${what}: no value`);
  const error = Math.abs(actual - expected) / expected;
  assert.ok(
    error <= share,
    `${what}: ${actual.toFixed(0)} vs ${expected.toFixed(0)} (${(error * 100).toFixed(1)}% off, allowed ${share * 100}%)${detail}`,
  );
}

/**
 * How close a fitted peak and bucket must come to the shaper's. The upload's peak is looser, and
 * from below: the lab delivers less than its upload tbf is set to while the bucket drains. Stock
 * iperf3 in the same environment (8 streams, its receiver's 100 ms intervals) received 438-460
 * Mbit/s in the first 100 ms on seed-oregon at 1/8 (500 Mbit/s peak), where the download's
 * receiver read 474-505 (2026-12-02); and the probe's upload samples are the sender's (bytes the
 * peer acknowledged, in GSO-sized steps), so the 0.14 s burst's slope reads lower again: 8-9%
 * under in six repetitions, 17% in two runs of three (412.8 and 416.6 Mbit/s, 2026-12-02, one
 * of them in CI). A peak above the shaper's, or a fit wrong by a factor, still fails.
 */
const SHARE = { download: 0.1, upload: 0.15 } as const;
const UPLOAD_PEAK = { under: 0.25, over: 0.05 } as const;
/**
 * A burst shorter than SHORT_BURST_SECONDS (seed-oregon's 0.14 s) is a handful of samples whose
 * slope a descheduled sender lowers in either direction, never raises: download 436.8 on 500 in
 * a whole run at the suite's own load, upload 368.7 at host load ~9 (CI runs 2026-12-03). Its
 * peak is held from below in both directions; the peak's accuracy is the large bucket's check
 * (a 1.05 s burst, 10%: 337.0 on 338).
 */
const SHORT_BURST_SECONDS = 0.5;
const SHORT_BURST_PEAK = { under: 0.3, over: 0.05 } as const;

/**
 * A peak no repetition's samples resolved (every receiver stalled through its burst) is printed as
 * a lower bound: the fit says so, and the bound must not pass the shaper's peak.
 */
function withinPeak(model: BucketModel, expected: number, burstSeconds: number, label: string): void {
  if (model.peakBound === "at-least") {
    const bound = model.peakBitsPerSecond?.median ?? Number.NaN;
    assert.ok(
      bound <= expected * 1.05,
      `${label} peak: at least ${bound.toFixed(0)}, above the shaper's ${expected.toFixed(0)}`,
    );
    return;
  }
  const fromBelow =
    burstSeconds < SHORT_BURST_SECONDS ? SHORT_BURST_PEAK : model.direction === "upload" ? UPLOAD_PEAK : null;
  if (fromBelow === null) {
    within(model.peakBitsPerSecond?.median, expected, SHARE.download, `${label} peak`);
    return;
  }
  const actual = model.peakBitsPerSecond?.median;
  assert.ok(actual !== undefined, `${label} peak: no value`);
  const ratio = actual / expected;
  assert.ok(
    ratio >= 1 - fromBelow.under && ratio <= 1 + fromBelow.over,
    `${label} peak: ${actual.toFixed(0)} vs ${expected.toFixed(0)} (ratio ${ratio.toFixed(3)}, allowed ${1 - fromBelow.under}-${1 + fromBelow.over}, a ${burstSeconds.toFixed(2)} s burst)`,
  );
}

function assertRecovers(
  model: BucketModel | undefined,
  profile: LabProfile,
  label: string,
  records: readonly ResultRecord[],
): void {
  assert.ok(model, `${label}: no model`);
  const want = expectedBucket(profile, model.direction, MEMORY_MB);
  assert.equal(
    model.burstFound,
    model.n,
    `${label}: a burst in every repetition\n${repetitionsText(records, model.direction)}`,
  );
  within(
    model.sustainedBitsPerSecond?.median,
    want.sustainedBitsPerSecond,
    0.03,
    `${label} sustained`,
    `\n${repetitionsText(records, model.direction)}`,
  );
  const share = SHARE[model.direction];
  const peak = want.peakBitsPerSecond ?? Number.NaN;
  const burstSeconds = (want.bucketBytes * 8) / (peak - want.sustainedBitsPerSecond);
  withinPeak(model, peak, burstSeconds, label);
  within(model.bucketBytes?.median, want.bucketBytes, share, `${label} bucket`);
  assert.equal(model.refill?.bound, "measured", `${label}: refill measured, not only bounded`);
  within(
    model.refill?.bytesPerSecond?.median,
    want.refillBytesPerSecond,
    0.1,
    `${label} refill`,
    `\n${refillPointsText(records, model.direction)}`,
  );
}

const summary = (m: BucketModel | undefined) =>
  m
    ? `sustained ${((m.sustainedBitsPerSecond?.median ?? 0) / M).toFixed(1)} peak ${((m.peakBitsPerSecond?.median ?? 0) / M).toFixed(1)} bucket ${((m.bucketBytes?.median ?? 0) / M).toFixed(2)} MB refill ${((m.refill?.bytesPerSecond?.median ?? 0) / M).toFixed(2)} MB/s delay ${(m.refill?.delaySeconds?.median ?? 0).toFixed(3)} s ${m.refill?.shape}`
    : "none";

const oregon = scaledProfile("seed-oregon-2026", DIVISOR);
/**
 * 7.5 MB refills in ~0.8 s at 78 Mbit/s, after 0-0.06 s of draining once the streams closed:
 * four gaps below 85% of the bucket (past it a point only says "full") show the slope, the last
 * the full bucket. Each refill transfer runs as long as the first (3 s): the link stays
 * busy after a transfer's measured end with what its streams still hold, and a 1.2 s transfer
 * (the flows not yet settled after the burst) left more than a 3 s one. With 1.2 s refill
 * transfers the 0.25 s gap, which follows the long transfer, drained for 0.12-0.15 s and every
 * other gap for 0.17-0.24 s, so the line through the points read the refill 12-23% low at this
 * rate (7.55-8.67 MB/s on 9.77, 2026-12-02), where a constant drain only moves the line's delay.
 * Idle time counted from TEST_END (the streams close 63-91 ms later, the server sending until
 * then) and a late start mark's bytes left out (up to 0.81 MB) still moved each point by its own
 * amount: CI read 8.33 (2026-12-07). Counted from the close, with those bytes in, beside a busy
 * loop: 9.48-10.17 download, 9.69-9.82 upload, delay 0-0.06 s (docs/bucket.md).
 */
const oregonSchedule: BucketSchedule = {
  transferSeconds: 3,
  gapsSeconds: [0.15, 0.3, 0.45, 0.6, 1.2],
  refillTransferSeconds: 3,
  restSeconds: 1.5,
};

/** The seed-oregon-2026 fit, once it recovered the shaping: what the round trip replays. */
let oregonRecovered: Map<string, BucketModel> | undefined;
let oregonRun: string | undefined;

test(`${oregon.label} (7.5 MB at 500 Mbit/s over 78): the fit recovers bucket, peak, sustained and refill, both directions`, {
  skip,
  timeout: 900_000,
}, async () => {
  const run = await fingerprint(oregon.name, ["download", "upload"], oregonSchedule, oregon.profile);
  oregonRun = run.runDir;
  console.log(`${oregon.label}: ${run.records.length} fingerprints in ${run.seconds.toFixed(0)} s`);
  assert.ok(
    run.records.every((r) => r.bucket?.fit && r.bucket.measurement.transfers.length === 6),
    "every record keeps its transfers (the long one and one per gap) and its fit",
  );
  for (const direction of ["download", "upload"]) {
    const model = run.models.get(direction);
    console.log(`${oregon.label} ${direction}: ${summary(model)}`);
    assertRecovers(model, oregon.profile, `${oregon.label} ${direction}`, run.records);
    assert.equal(model?.refill?.shape, "linear", "the lab's tbf refills linearly");
  }
  oregonRecovered = run.models;
});

test("the report of a bucket run: its section in report.md and a chart with the fit", { skip }, async (t) => {
  if (!oregonRun) return t.skip(`the ${oregon.label} fingerprint did not run`);
  const model = await loadReportModel(oregonRun);
  assert.match(
    renderMarkdown(model),
    new RegExp(`## Token bucket[\\s\\S]*${oregon.name} \\S+ 2,048 MB download \\| 3 \\|`),
  );
  const charts = buildCharts(model).filter((c) => c.name.startsWith("bucket-"));
  assert.deepEqual(
    charts.map((c) => c.name.replace(/-(arm64|x86-64)-/, "-ARCH-")),
    [`bucket-${oregon.name}-2048-ARCH-download`, `bucket-${oregon.name}-2048-ARCH-upload`],
  );
  const svg = await renderSvg(charts[0] as (typeof charts)[number]);
  assert.match(svg, /token bucket/);
});

const large = scaledProfile(
  {
    name: "bucket-large-272",
    download: [{ memoryMb: 128, megabitsPerSecond: 625 }],
    upload: [{ memoryMb: 128, megabitsPerSecond: 625 }],
    burst: { peakMegabitsPerSecond: 2_700, bytes: 272_000_000 },
    payload: true,
  },
  DIVISOR,
);

test(`a large bucket, ${large.label} (34 MB at 338 Mbit/s over 78): the fit recovers it`, {
  skip,
  timeout: 900_000,
}, async () => {
  // the full bucket lasts 1.05 s at the peak and refills in ~3.5 s
  const run = await fingerprint(
    large.name,
    ["download"],
    {
      transferSeconds: 4,
      gapsSeconds: [0.5, 1, 2, 3, 4.5],
      refillTransferSeconds: 1.8,
      restSeconds: 4.5,
    },
    large.profile,
  );
  const model = run.models.get("download");
  console.log(`${large.label} download: ${summary(model)}`);
  assertRecovers(model, large.profile, large.label, run.records);
});

const flat = scaledProfile(
  {
    name: "bucket-none-625",
    download: [{ memoryMb: 128, megabitsPerSecond: 625 }],
    upload: [{ memoryMb: 128, megabitsPerSecond: 625 }],
    burst: null,
    payload: true,
  },
  DIVISOR,
);

test(`no burst at all, ${flat.label}: the fit finds none, and the sustained rate`, {
  skip,
  timeout: 900_000,
}, async () => {
  const { models, records } = await fingerprint(
    flat.name,
    ["download"],
    {
      transferSeconds: 2,
      gapsSeconds: [0.5, 1],
      refillTransferSeconds: 1,
      restSeconds: 1,
    },
    flat.profile,
  );
  const model = models.get("download");
  console.log(`${flat.label} download: ${summary(model)} bursts ${model?.burstFound}/${model?.n}`);
  // the samples say how a false burst came about (a receiver's late start or stall: docs/testing.md)
  assert.equal(model?.burstFound, 0, `no repetition shows a burst\n${repetitionsText(records, "download")}`);
  assert.equal(model?.bucketBytes, null);
  assert.equal(model?.refill, null);
  within(model?.sustainedBitsPerSecond?.median, 78.125 * M, 0.03, "sustained");
});

test(`round trip: the profile saved from ${oregon.label}'s fit shapes that fit, and its download replay recovers it (the first test's shares)`, {
  skip,
  timeout: 900_000,
}, async (t) => {
  // a fit that missed its own checks is nothing to replay: that test fails already
  const first = oregonRecovered;
  if (!first) return t.skip(`the ${oregon.label} fit did not recover its shaping`);
  const saved = labProfileSchema.parse(
    bucketProfile(
      "bucket-replay",
      [...first.values()].map((model) => ({ memoryMb: MEMORY_MB, model })),
      `local:${oregon.name}`,
    ),
  );
  // The saving is exact: the saved profile shapes each direction's fitted sustained rate, and
  // one bucket (the median of the two fits: one burst for the environment)
  for (const direction of ["download", "upload"] as const) {
    const fitted = first.get(direction)?.sustainedBitsPerSecond?.median ?? Number.NaN;
    within(
      expectedBucket(saved, direction, MEMORY_MB).sustainedBitsPerSecond,
      fitted,
      0.005,
      `saved ${direction} sustained`,
    );
  }
  // The replay is judged on what the saved profile shapes, with the first test's shares: set
  // against the first fit instead, two fits' errors add (CI 2026-12-03: upload refill 9.25 then
  // 10.20 MB/s, each within 5% of its own shaping, 10.2% apart). One direction replays the
  // saved bucket (one for the environment); the upload's saved rate is checked exactly above,
  // and the lab shaping an upload is the first test's.
  const again = await fingerprint("bucket-replay", ["download"], oregonSchedule, saved);
  const model = again.models.get("download");
  console.log(`replay download: ${summary(model)}`);
  assertRecovers(model, saved, "replay download", again.records);
});
