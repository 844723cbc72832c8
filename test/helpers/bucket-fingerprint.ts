import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import {
  type LabProfile,
  type LabProfileInput,
  WIRE_BYTES_PER_PAYLOAD_BYTE,
} from "../../src/plan/lab-profile.js";
import { validatePlan } from "../../src/plan/load-plan.js";
import { privateLabName } from "../../src/platforms/local/lab-names.js";
import { LocalPlatform } from "../../src/platforms/local/local-platform.js";
import { directionShape } from "../../src/platforms/local/profiles.js";
import { type BucketModel, bucketCells } from "../../src/results/bucket-cells.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { readRecords } from "../../src/results/run-directory.js";
import { runPlan } from "../../src/runner/run-plan.js";

/** The bucket probe's schedule (plan fields); the probe's defaults where absent. */
export interface BucketSchedule {
  transferSeconds?: number;
  gapsSeconds?: number[];
  refillTransferSeconds?: number;
  restSeconds?: number;
}

export interface Fingerprint {
  models: Map<string, BucketModel>;
  runDir: string;
  records: ResultRecord[];
  /** Wall time of the run (lab set-up included). */
  seconds: number;
}

/**
 * Fingerprints one lab profile (built-in, or custom when given) on a private lab through the
 * runner, as `run` would: one bucket cell per direction, 8 streams. The fitted models by direction.
 */
export async function fingerprintOnLab(options: {
  profile: string;
  directions: Array<"upload" | "download">;
  schedule: BucketSchedule;
  parentDir: string;
  memoryMb: number;
  repetitions: number;
  custom?: LabProfileInput;
}): Promise<Fingerprint> {
  const { profile, custom } = options;
  const plan = validatePlan({
    name: `bucket-${profile}`,
    targets: [{ platform: "local", profile }],
    memoryMb: [options.memoryMb],
    repetitions: options.repetitions,
    warmup: false,
    probes: [{ kind: "bucket", direction: options.directions, parallel: 8, ...options.schedule }],
    ...(custom ? { profiles: [custom] } : {}),
  });
  const parent = join(options.parentDir, `${profile}-${Date.now()}`);
  const startMs = performance.now();
  const result = await runPlan({
    start: { plan, parentDir: parent, source: { preset: null, configPath: null, regions: null } },
    openPlatform: () =>
      LocalPlatform.open({ profile, customProfiles: plan.profiles ?? [], labName: privateLabName() }),
  });
  const seconds = (performance.now() - startMs) / 1000;
  assert.equal(result.remaining, 0);
  const [name] = await readdir(parent);
  const runDir = join(parent, name as string);
  const { records } = await readRecords(runDir);
  const failed = records.find((r) => !r.ok);
  assert.equal(failed, undefined, JSON.stringify(failed?.error));
  const models = new Map<string, BucketModel>();
  for (const cell of bucketCells(records)) models.set(cell.model.direction, cell.model);
  assert.equal(models.size, options.directions.length, "one fitted model per direction");
  return { models, runDir, records, seconds };
}

/**
 * What the lab's shaper is set to for this profile and memory, as TCP payload (what the probe
 * measures): tbf counts frames, so payload is the wire figure / 1.0456. tbf refills its bucket
 * at the sustained rate, idle or not.
 */
export function expectedBucket(profile: LabProfile, direction: "upload" | "download", memoryMb: number) {
  const shape = directionShape(profile, direction, memoryMb);
  const toPayload = (wire: number) => wire / WIRE_BYTES_PER_PAYLOAD_BYTE;
  return {
    sustainedBitsPerSecond: toPayload(shape.rateBitsPerSecond),
    peakBitsPerSecond: shape.peakBitsPerSecond === null ? null : toPayload(shape.peakBitsPerSecond),
    bucketBytes: shape.peakBitsPerSecond === null ? 0 : toPayload(shape.bucketBytes),
    refillBytesPerSecond: toPayload(shape.rateBitsPerSecond) / 8,
  };
}

/** Relative error of a fitted figure against the shaping; null without a figure. */
export function relativeError(actual: number | null | undefined, expected: number): number | null {
  return actual === null || actual === undefined ? null : Math.abs(actual - expected) / expected;
}

/**
 * Each repetition's fit of one direction and the long transfer's samples (ms and KB), every one
 * of them, for a failure message: a burst not found is a fit or a sampling question, the log is
 * all CI keeps, and a fit's break can lie seconds after the first samples (an upload's at 1.59 s,
 * 2026-12-06), so a failure must be rebuilt from the whole transfer.
 */
export function repetitionsText(records: readonly ResultRecord[], direction: "upload" | "download"): string {
  const M = 1e6;
  return records
    .filter((r) => r.bucket?.measurement.direction === direction)
    .map((r, i) => {
      const fit = r.bucket?.fit;
      const samples = r.bucket?.measurement.transfers[0]?.samples;
      const all = samples
        ? samples.bytes
            .map(
              (b, k) => `${((samples.durationSeconds[k] ?? 0) * 1000).toFixed(0)}:${(b / 1000).toFixed(0)}`,
            )
            .join(" ")
        : "none";
      const figures = fit
        ? `burst ${fit.burst} sustained ${(fit.sustainedBitsPerSecond / M).toFixed(1)} peak ${(fit.peakBitsPerSecond / M).toFixed(1)} bucket ${(fit.bucketBytes / M).toFixed(2)} MB break ${fit.transfer.breakSeconds.toFixed(3)} s start ${fit.transfer.startSeconds.toFixed(3)} s`
        : "no fit";
      return `#${i + 1}: ${figures}; samples (ms:KB) ${all}`;
    })
    .join("\n");
}

/**
 * Each repetition's refill line and its points (idle seconds: MB back, "full" past 85% of the
 * bucket) with each transfer's bytes before its start mark, for a failure message: a slope read
 * wrong is one point off its line, and the log is all CI keeps.
 */
export function refillPointsText(records: readonly ResultRecord[], direction: "upload" | "download"): string {
  const M = 1e6;
  return records
    .filter((r) => r.bucket?.measurement.direction === direction)
    .map((r, i) => {
      const refill = r.bucket?.fit?.refill;
      const points = (refill?.points ?? [])
        .map(
          (p) =>
            `${p.idleSeconds.toFixed(3)}:${(p.refilledBytes / M).toFixed(2)}${p.saturated ? " full" : ""}`,
        )
        .join(", ");
      const before = (r.bucket?.measurement.transfers ?? [])
        .map((t) => ((t.bytesBeforeStart ?? 0) / M).toFixed(2))
        .join(" ");
      const line = refill
        ? `${((refill.bytesPerSecond ?? 0) / M).toFixed(2)} MB/s after ${refill.delaySeconds.toFixed(3)} s`
        : "no refill";
      return `#${i + 1}: ${line}; points (s:MB) ${points}; MB before each start mark ${before}`;
    })
    .join("\n");
}
