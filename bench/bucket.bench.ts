/**
 * How long a bucket fingerprint takes, and how close its fit comes to the lab's shaping, on
 * each profile: seed-oregon-2026 (60 MB at 4,000 over 625 Mbit/s, both directions),
 * default-625 (a wire-rate profile: 1 s at 2,800 over 625), a large bucket (272 MB at 2,700
 * over 625) and no burst. Two schedules: the probe's defaults (`{ kind: bucket }`: 5 s
 * transfer, gaps 0.1-8 s, 2 s refill transfers, 8 s rest) and a short one fitted to a bucket
 * that refills within ~1 s: the lab test's (gaps 0.15-0.6 and 1.2 s, each refill transfer as long
 * as the first, so every gap starts from the same drain; docs/bucket.md). 3 repetitions each, at 2,048 MB; the error of each fitted median
 * against the shaper's payload figures.
 * Needs root. Run: npm run bench -- bucket (takes the bench lock itself).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtInProfiles, type LabProfileInput, labProfileSchema } from "../src/plan/lab-profile.js";
import { acquireBenchLock } from "../test/helpers/bench-lock.js";
import {
  type BucketSchedule,
  expectedBucket,
  fingerprintOnLab,
  relativeError,
} from "../test/helpers/bucket-fingerprint.js";
import { ensureBuilt } from "../test/platforms/lab-helpers.js";

const MEMORY_MB = 2_048;
const REPETITIONS = 3;
const payloadProfile = (name: string, burst: LabProfileInput["burst"]): LabProfileInput => ({
  name,
  download: [{ memoryMb: 128, megabitsPerSecond: 625 }],
  upload: [{ memoryMb: 128, megabitsPerSecond: 625 }],
  burst,
  payload: true,
});
const short: BucketSchedule = {
  transferSeconds: 3,
  gapsSeconds: [0.15, 0.3, 0.45, 0.6, 1.2],
  refillTransferSeconds: 3,
  restSeconds: 1.5,
};
const cases: Array<{
  profile: string;
  custom?: LabProfileInput;
  directions: Array<"upload" | "download">;
  schedule: BucketSchedule;
  label: string;
}> = [
  { profile: "seed-oregon-2026", directions: ["download", "upload"], schedule: {}, label: "defaults" },
  { profile: "seed-oregon-2026", directions: ["download", "upload"], schedule: short, label: "short" },
  { profile: "default-625", directions: ["download"], schedule: {}, label: "defaults" },
  {
    profile: "bench-large-272",
    custom: payloadProfile("bench-large-272", { peakMegabitsPerSecond: 2_700, bytes: 272_000_000 }),
    directions: ["download"],
    schedule: {},
    label: "defaults",
  },
  {
    profile: "bench-none-625",
    custom: payloadProfile("bench-none-625", null),
    directions: ["download"],
    schedule: { transferSeconds: 2, gapsSeconds: [0.5, 1], refillTransferSeconds: 1, restSeconds: 1 },
    label: "short",
  },
];

const percent = (error: number | null) => (error === null ? "–" : `${(error * 100).toFixed(1)}%`);

ensureBuilt();
const out = await mkdtemp(join(tmpdir(), "lnb-bucket-bench-"));
const lock = await acquireBenchLock(3_600);
try {
  console.log(
    "| profile | direction | schedule | s per fingerprint | sustained | peak | bucket | refill | refill delay (s) | shape |",
  );
  console.log("| :--- | :--- | :--- | ---: | ---: | ---: | ---: | ---: | ---: | :--- |");
  for (const c of cases) {
    const run = await fingerprintOnLab({
      profile: c.profile,
      directions: c.directions,
      schedule: c.schedule,
      parentDir: out,
      memoryMb: MEMORY_MB,
      repetitions: REPETITIONS,
      ...(c.custom ? { custom: c.custom } : {}),
    });
    const profile = c.custom
      ? labProfileSchema.parse(c.custom)
      : builtInProfiles.find((p) => p.name === c.profile);
    if (!profile) throw new Error(`no profile ${c.profile}`);
    for (const direction of c.directions) {
      const model = run.models.get(direction);
      const want = expectedBucket(profile, direction, MEMORY_MB);
      const perFingerprint = run.records
        .filter((r) => r.direction === direction)
        .map((r) => r.durationSeconds)
        .sort((a, b) => a - b)[1];
      const noBurst = want.peakBitsPerSecond === null;
      const fitted = (value: number | undefined, expected: number | null, unit: number, digits: number) =>
        value === undefined
          ? noBurst
            ? "none (right)"
            : "none"
          : `${(value / unit).toFixed(digits)} (${expected === null ? "none expected" : percent(relativeError(value, expected))})`;
      console.log(
        `| ${c.profile} | ${direction} | ${c.label} | ${perFingerprint?.toFixed(1)} | ${fitted(model?.sustainedBitsPerSecond?.median, want.sustainedBitsPerSecond, 1e6, 0)} | ${fitted(model?.peakBitsPerSecond?.median, want.peakBitsPerSecond, 1e6, 0)} | ${fitted(model?.bucketBytes?.median, noBurst ? null : want.bucketBytes, 1e6, 1)} MB | ${fitted(model?.refill?.bytesPerSecond?.median, noBurst ? null : want.refillBytesPerSecond, 1e6, 1)} MB/s | ${model?.refill?.delaySeconds?.median?.toFixed(3) ?? "–"} | ${model?.refill?.shape ?? "–"}${model?.refill?.bound === "at-least" ? " (at least)" : ""} |`,
      );
    }
  }
} finally {
  lock.release();
  await rm(out, { recursive: true, force: true });
}
