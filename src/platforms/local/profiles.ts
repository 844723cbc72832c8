import {
  builtInProfiles,
  flowCapBitsPerSecond,
  interpolateMegabitsPerSecond,
  type LabProfile,
  wireFactor,
} from "../../plan/lab-profile.js";
import { isLambdaMemoryMb, MEMORY_MB_RANGE } from "../../plan/lambda-memory.js";
import { LabRefusal } from "./lab-refusal.js";
import { s3ConnectionCapBytesPerSecond } from "./s3-connection-cap.js";

/** How the lab turns a profile (src/plan/lab-profile.ts) into its shapers' parameters, and finds one by name. */

/**
 * A lab profile chosen by name, with the field that names it in messages and the figures the
 * lab's servers take from it, derived here once.
 */
export interface ChosenProfile {
  profile: LabProfile;
  /** `profiles.N` for a plan's custom profile, else `profile NAME`. */
  field: string;
  /** Per-flow cap in TCP payload bits per second (our iperf3 servers pace each stream to it), or null. */
  flowCapBitsPerSecond: number | null;
  /** What the lab's S3 allows one connection, bytes per second, or null for no cap. */
  s3RequestBytesPerSecond: number | null;
}

/**
 * Finds a profile by name among the built-in ones and a plan's custom ones. The custom ones
 * were validated with the plan (plan-schema.ts: the profile schema, unique names that never
 * shadow a built-in one), so they arrive typed.
 */
export function chooseProfile(name: string, custom: readonly LabProfile[] = []): ChosenProfile {
  const index = custom.findIndex((candidate) => candidate.name === name);
  const profile = custom[index] ?? builtInProfiles.find((candidate) => candidate.name === name);
  if (!profile) {
    const allowed = [...builtInProfiles, ...custom].map((candidate) => candidate.name);
    throw new LabRefusal(`unknown lab profile "${name}" (allowed: ${allowed.join(", ")})`);
  }
  return {
    profile,
    field: index >= 0 ? `profiles.${index}` : `profile ${name}`,
    flowCapBitsPerSecond: flowCapBitsPerSecond(profile),
    s3RequestBytesPerSecond: s3RequestBytesPerSecond(profile),
  };
}

/** The profile alone (see chooseProfile). */
export function resolveProfile(name: string, custom: readonly LabProfile[] = []): LabProfile {
  return chooseProfile(name, custom).profile;
}

export function checkMemoryMb(memoryMb: number): void {
  if (!isLambdaMemoryMb(memoryMb)) {
    throw new Error(`memoryMb: ${memoryMb} is not allowed (allowed: ${MEMORY_MB_RANGE})`);
  }
}

/** What one direction of an environment's link gets: the shaper's parameters. */
export interface DirectionShape {
  /** Sustained rate on the wire (tc counts Ethernet frames), bits per second; a payload profile's rate x 1.0456. */
  rateBitsPerSecond: number;
  /** Peak rate while the bucket lasts, or null when there is no burst above the sustained rate. */
  peakBitsPerSecond: number | null;
  /** Token bucket size, wire bytes: the profile's burst bytes, or (peak - sustained) x burst seconds. */
  bucketBytes: number;
}

export interface EnvironmentShape {
  memoryMb: number;
  download: DirectionShape;
  upload: DirectionShape;
  /** CPU share in cores: memory / mbPerVcpu, capped by the host's cores. */
  cpuCores: number;
  /** The CFS period the share is enforced over (the profile's cpuPeriodMs), microseconds. */
  cpuPeriodMicroseconds: number;
  memoryLimitBytes: number;
}

/** Smallest bucket the shaper gets: enough for a few ms at the rate and a 64 KiB GSO packet. */
const MIN_BUCKET_SECONDS = 0.004;
const MIN_BUCKET_BYTES = 131_072;

export function directionShape(
  profile: LabProfile,
  direction: "download" | "upload",
  memoryMb: number,
): DirectionShape {
  const factor = wireFactor(profile);
  const rateBitsPerSecond = Math.round(
    interpolateMegabitsPerSecond(profile[direction], memoryMb) * 1e6 * factor,
  );
  const minimumBucket = Math.max(MIN_BUCKET_BYTES, Math.round((rateBitsPerSecond * MIN_BUCKET_SECONDS) / 8));
  const burst = profile.burst;
  const peak = burst ? Math.round(burst.peakMegabitsPerSecond * 1e6 * factor) : 0;
  const burstBytes = !burst
    ? 0
    : burst.bytes !== undefined
      ? Math.round(burst.bytes * factor)
      : Math.round(((peak - rateBitsPerSecond) * (burst.seconds ?? 0)) / 8);
  if (!burst || peak <= rateBitsPerSecond || burstBytes <= 0) {
    return { rateBitsPerSecond, peakBitsPerSecond: null, bucketBytes: minimumBucket };
  }
  return { rateBitsPerSecond, peakBitsPerSecond: peak, bucketBytes: Math.max(minimumBucket, burstBytes) };
}

/** What the lab's S3 allows one connection for this profile, bytes per second (s3-connection-cap.ts); null for no cap. */
export function s3RequestBytesPerSecond(profile: LabProfile): number | null {
  return s3ConnectionCapBytesPerSecond({
    s3ConnectionBytesPerSecond: profile.s3ConnectionBytesPerSecond,
    flowBitsPerSecond: flowCapBitsPerSecond(profile),
  });
}

export function environmentShape(profile: LabProfile, memoryMb: number, hostCores: number): EnvironmentShape {
  checkMemoryMb(memoryMb);
  return {
    memoryMb,
    download: directionShape(profile, "download", memoryMb),
    upload: directionShape(profile, "upload", memoryMb),
    cpuCores: Math.min(memoryMb / profile.mbPerVcpu, hostCores),
    cpuPeriodMicroseconds: profile.cpuPeriodMs * 1000,
    memoryLimitBytes: memoryMb * 1_048_576,
  };
}
