import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  builtInProfiles,
  type LabProfile,
  type LabProfileInput,
  labProfileSchema,
} from "../../src/plan/lab-profile.js";
import { buildCharts } from "../../src/report/charts/chart-specs.js";
import { renderSvg } from "../../src/report/charts/render-chart.js";
import { renderMarkdown } from "../../src/report/markdown-format.js";
import { loadReportModel } from "../../src/report/write-report.js";
import type { BucketModel } from "../../src/results/bucket-cells.js";
import { bucketProfile } from "../../src/results/bucket-profile.js";
import { acquireBenchLock, type BenchLock } from "../helpers/bench-lock.js";
import { type BucketSchedule, expectedBucket, fingerprintOnLab } from "../helpers/bucket-fingerprint.js";
import { rootSkip } from "../helpers/root-gate.js";

/**
 * The bucket probe on lab profiles whose shaping is known: the fit recovers what the shaper was
 * set to (bucket and peak within 10%, an upload peak 15%: PEAK_SHARE; sustained within 3%,
 * refill within 10%), and a profile saved from a fit replays the same fit (within the same
 * shares). Each profile runs 3 repetitions at 2,048 MB (1.16 cores of CPU share: enough for the
 * client's side of a 4,000 Mbit/s peak with 8 streams).
 *
 * What the lab's shaper does (tbf, src/platforms/local/shaping.ts): tokens accrue at the
 * sustained rate whether the link is idle or busy, up to the bucket; so the refill while idle
 * is the sustained rate, linear, and it starts only once tbf's queue (20 ms at the peak rate,
 * ~10 MB at 4,000 Mbit/s) has drained after the sender stopped: a delay of ~0.1 s that the fit
 * reports apart (delaySeconds), not as a slower refill.
 */
const skip = rootSkip("the bucket probe on lab profiles");
let out: string;
let lock: BenchLock | undefined;
before(
  async () => {
    if (skip) return;
    out = await mkdtemp(join(tmpdir(), "lnb-bucket-"));
    lock = await acquireBenchLock(1_800);
  },
  { timeout: 2_000_000 },
);
after(async () => {
  lock?.release();
  if (out) await rm(out, { recursive: true, force: true });
});

const MEMORY_MB = 2_048;
const M = 1e6;

const fingerprint = (
  profile: string,
  directions: Array<"upload" | "download">,
  schedule: BucketSchedule,
  custom?: LabProfileInput,
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

function within(actual: number | undefined, expected: number, share: number, what: string): void {
  assert.ok(actual !== undefined, `${what}: no value`);
  const error = Math.abs(actual - expected) / expected;
  assert.ok(
    error <= share,
    `${what}: ${actual.toFixed(0)} vs ${expected.toFixed(0)} (${(error * 100).toFixed(1)}% off, allowed ${share * 100}%)`,
  );
}

/**
 * How close a fitted peak must come, by direction. A 4,000 Mbit/s upload burst takes more than
 * this 2-core host has: our client sending, the stock iperf3 3.12 server receiving 8 streams in
 * one thread, and the shaper's softirq work together. The upload peak then reads what the host
 * carried: on 2026-12-01 nine repetitions read 3,418-4,009 Mbit/s (two fits 10.5% apart), where
 * download, which costs the host less, read 4,000 in every run. Its peak is held to 15%.
 */
const PEAK_SHARE = { download: 0.1, upload: 0.15 } as const;

function assertRecovers(model: BucketModel | undefined, profile: LabProfile, label: string): void {
  assert.ok(model, `${label}: no model`);
  const want = expectedBucket(profile, model.direction, MEMORY_MB);
  assert.equal(model.burstFound, model.n, `${label}: a burst in every repetition`);
  within(model.sustainedBitsPerSecond?.median, want.sustainedBitsPerSecond, 0.03, `${label} sustained`);
  within(
    model.peakBitsPerSecond?.median,
    want.peakBitsPerSecond ?? Number.NaN,
    PEAK_SHARE[model.direction],
    `${label} peak`,
  );
  within(model.bucketBytes?.median, want.bucketBytes, 0.1, `${label} bucket`);
  assert.equal(model.refill?.bound, "measured", `${label}: refill measured, not only bounded`);
  within(model.refill?.bytesPerSecond?.median, want.refillBytesPerSecond, 0.1, `${label} refill`);
}

const summary = (m: BucketModel | undefined) =>
  m
    ? `sustained ${((m.sustainedBitsPerSecond?.median ?? 0) / M).toFixed(0)} peak ${((m.peakBitsPerSecond?.median ?? 0) / M).toFixed(0)} bucket ${((m.bucketBytes?.median ?? 0) / M).toFixed(1)} MB refill ${((m.refill?.bytesPerSecond?.median ?? 0) / M).toFixed(1)} MB/s delay ${(m.refill?.delaySeconds?.median ?? 0).toFixed(3)} s ${m.refill?.shape}`
    : "none";

const oregon = builtInProfiles.find((p) => p.name === "seed-oregon-2026") as LabProfile;
// 60 MB refills in ~0.8 s at 625 Mbit/s (after ~0.1 s of queue draining): four gaps show the slope, the last the full bucket
const oregonSchedule: BucketSchedule = {
  transferSeconds: 3,
  gapsSeconds: [0.25, 0.4, 0.55, 0.7, 1.2],
  refillTransferSeconds: 1.2,
  restSeconds: 1.5,
};
/**
 * A fingerprint is 3 repetitions of sub-second bursts at up to 4,000 Mbit/s on a shared 2-core
 * host: a host that takes the CPU away mid-burst moves a peak (CI, 2026-12-01 and -02: download
 * peaks of 3,341 and 2,974 on a 4,000 link) or lengthens what still flows after a transfer
 * stopped, which eats into the shortest gap's refill (a download refill of 86.7 MB/s on 78, its
 * delay 0.085 s). A check that misses is measured again, up to three attempts, saying so in the
 * log; a wrong fit misses every time. (The upload refills of 92-120 MB/s on 78 seen before
 * 2026-12-02 were the fit's: a short gap's refill inside one sample, see bucket-fit.ts.)
 */
const ATTEMPTS = 3;

async function measuredAgain(label: string, attempt: () => Promise<void>): Promise<void> {
  for (let tried = 1; ; tried += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof assert.AssertionError) || tried === ATTEMPTS) throw error;
      console.log(`${label}: ${error.message}; measuring again (attempt ${tried + 1} of ${ATTEMPTS})`);
    }
  }
}

/** The seed-oregon-2026 fit, once it recovered the shaping: what the round trip replays. */
let oregonRecovered: Map<string, BucketModel> | undefined;
let oregonRun: string | undefined;

test(
  "seed-oregon-2026 (60 MB at 4,000 Mbit/s over 625): the fit recovers bucket, peak, sustained and refill, both directions",
  {
    skip,
    timeout: 900_000,
  },
  async () =>
    measuredAgain("seed-oregon-2026", async () => {
      const run = await fingerprint("seed-oregon-2026", ["download", "upload"], oregonSchedule);
      oregonRun = run.runDir;
      console.log(`seed-oregon-2026: ${run.records.length} fingerprints in ${run.seconds.toFixed(0)} s`);
      assert.ok(
        run.records.every((r) => r.bucket?.fit && r.bucket.measurement.transfers.length === 6),
        "every record keeps its transfers (the long one and one per gap) and its fit",
      );
      for (const direction of ["download", "upload"]) {
        const model = run.models.get(direction);
        console.log(`seed-oregon-2026 ${direction}: ${summary(model)}`);
        assertRecovers(model, oregon, `seed-oregon-2026 ${direction}`);
        assert.equal(model?.refill?.shape, "linear", "the lab's tbf refills linearly");
      }
      oregonRecovered = run.models;
    }),
);

test("the report of a bucket run: its section in report.md and a chart with the fit", { skip }, async (t) => {
  if (!oregonRun) return t.skip("the seed-oregon-2026 fingerprint did not run");
  const model = await loadReportModel(oregonRun);
  assert.match(renderMarkdown(model), /## Token bucket[\s\S]*seed-oregon-2026 \S+ 2,048 MB download \| 3 \|/);
  const charts = buildCharts(model).filter((c) => c.name.startsWith("bucket-"));
  assert.deepEqual(
    charts.map((c) => c.name.replace(/-(arm64|x86-64)-/, "-ARCH-")),
    ["bucket-seed-oregon-2026-2048-ARCH-download", "bucket-seed-oregon-2026-2048-ARCH-upload"],
  );
  const svg = await renderSvg(charts[0] as (typeof charts)[number]);
  assert.match(svg, /token bucket/);
});

const large: LabProfileInput = {
  name: "bucket-large-272",
  download: [{ memoryMb: 128, megabitsPerSecond: 625 }],
  upload: [{ memoryMb: 128, megabitsPerSecond: 625 }],
  burst: { peakMegabitsPerSecond: 2_700, bytes: 272_000_000 },
  payload: true,
};

test("a large bucket (272 MB at 2,700 Mbit/s over 625): the fit recovers it", {
  skip,
  timeout: 900_000,
}, async () => {
  // the full bucket lasts 1.05 s at the peak and refills in ~3.5 s
  const { models } = await fingerprint(
    "bucket-large-272",
    ["download"],
    {
      transferSeconds: 4,
      gapsSeconds: [0.5, 1, 2, 3, 4.5],
      refillTransferSeconds: 1.8,
      restSeconds: 4.5,
    },
    large,
  );
  const model = models.get("download");
  console.log(`bucket-large-272 download: ${summary(model)}`);
  assertRecovers(model, labProfileSchema.parse(large), "bucket-large-272");
});

const flat: LabProfileInput = {
  name: "bucket-none-625",
  download: [{ memoryMb: 128, megabitsPerSecond: 625 }],
  upload: [{ memoryMb: 128, megabitsPerSecond: 625 }],
  burst: null,
  payload: true,
};

// CI, 2026-12-02, the host starved (the VM beside read 28 of 40 Mbit/s): one repetition's rate fell
// mid-transfer (sustained median 574 on 625), which looks like a small burst: measured once more
test("no burst at all: the fit finds none, and the sustained rate", { skip, timeout: 900_000 }, async () =>
  measuredAgain("bucket-none-625", async () => {
    const { models } = await fingerprint(
      "bucket-none-625",
      ["download"],
      {
        transferSeconds: 2,
        gapsSeconds: [0.5, 1],
        refillTransferSeconds: 1,
        restSeconds: 1,
      },
      flat,
    );
    const model = models.get("download");
    console.log(`bucket-none-625 download: ${summary(model)} bursts ${model?.burstFound}/${model?.n}`);
    assert.equal(model?.burstFound, 0, "no repetition shows a burst");
    assert.equal(model?.bucketBytes, null);
    assert.equal(model?.refill, null);
    within(model?.sustainedBitsPerSecond?.median, 625 * M, 0.03, "sustained");
  }),
);

test("round trip: the profile saved from seed-oregon-2026's fit replays the same fit (within 10%, an upload peak 15%)", {
  skip,
  timeout: 900_000,
}, async (t) => {
  // a fit that missed its own checks (a starved host) is nothing to replay: that test fails already
  const first = oregonRecovered;
  if (!first) return t.skip("the seed-oregon-2026 fit did not recover its shaping");
  await measuredAgain("round trip", async () => {
    const saved = bucketProfile(
      "bucket-replay",
      [...first.values()].map((model) => ({ memoryMb: MEMORY_MB, model })),
      "local:seed-oregon-2026",
    );
    const again = (await fingerprint("bucket-replay", ["download", "upload"], oregonSchedule, saved)).models;
    for (const direction of ["download", "upload"] as const) {
      const a = first.get(direction);
      const b = again.get(direction);
      console.log(`replay ${direction}: ${summary(b)}`);
      for (const field of ["sustainedBitsPerSecond", "bucketBytes"] as const) {
        within(b?.[field]?.median, a?.[field]?.median ?? Number.NaN, 0.1, `replay ${direction} ${field}`);
      }
      within(
        b?.peakBitsPerSecond?.median,
        a?.peakBitsPerSecond?.median ?? Number.NaN,
        PEAK_SHARE[direction],
        `replay ${direction} peakBitsPerSecond`,
      );
      within(
        b?.refill?.bytesPerSecond?.median,
        a?.refill?.bytesPerSecond?.median ?? Number.NaN,
        0.1,
        `replay ${direction} refill`,
      );
    }
  });
});
