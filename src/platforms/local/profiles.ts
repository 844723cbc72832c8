import {
  builtInProfileNames,
  builtInProfiles,
  flowCapBitsPerSecond,
  interpolateMegabitsPerSecond,
  type LabProfile,
  labProfileSchema,
  wireFactor,
} from "../../plan/lab-profile.js";
import { isLambdaMemoryMb, MEMORY_MB_RANGE } from "../../plan/lambda-memory.js";
import { LabRefusal } from "./lab-refusal.js";
import { s3ConnectionCapBytesPerSecond } from "./s3-connection-cap.js";

/** How the lab turns a profile (src/plan/lab-profile.ts) into its shapers' parameters, and finds one by name. */

/**
 * Finds a profile by name among the built-in ones and the custom ones (custom ones are
 * validated here and may not reuse a built-in name).
 */
export function resolveProfile(name: string, custom: unknown[] = []): LabProfile {
  const customProfiles = custom.map((input, index) => {
    const parsed = labProfileSchema.safeParse(input);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .map((issue) => `profiles[${index}].${issue.path.join(".")}: ${issue.message}`)
        .join("; ");
      throw new LabRefusal(`invalid lab profile: ${issues}`);
    }
    if (builtInProfileNames().includes(parsed.data.name)) {
      throw new LabRefusal(
        `invalid lab profile: profiles[${index}].name: "${parsed.data.name}" is a built-in profile`,
      );
    }
    return parsed.data;
  });
  const all = [...builtInProfiles, ...customProfiles];
  const profile = all.find((candidate) => candidate.name === name);
  if (!profile) {
    throw new LabRefusal(`unknown lab profile "${name}" (allowed: ${all.map((p) => p.name).join(", ")})`);
  }
  return profile;
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
    memoryLimitBytes: memoryMb * 1_048_576,
  };
}
