import { z } from "zod";
import { LabRefusal } from "./lab-refusal.js";
import builtInData from "./profiles.json" with { type: "json" };
import { MAX_PACED_CONNECTION_BYTES_PER_SECOND } from "./s3-connection-cap.js";

/**
 * Lab profiles: bandwidth (per direction, piecewise-linear in memory), burst, CPU share and
 * path-realism fields. The built-in ones live in profiles.json; custom ones come from a
 * config file and are validated with the same schema.
 */

export const MIN_MEMORY_MB = 128;
export const MAX_MEMORY_MB = 10_240;

const bandwidthPointSchema = z
  .object({
    memoryMb: z.number().int().min(MIN_MEMORY_MB).max(MAX_MEMORY_MB),
    megabitsPerSecond: z.number().positive().max(100_000),
  })
  .strict();

/** Points sorted by memory, at least one; memory sizes strictly increasing. */
const bandwidthCurveSchema = z
  .array(bandwidthPointSchema)
  .min(1)
  .refine(
    (points) => points.every((point, i) => i === 0 || point.memoryMb > (points[i - 1]?.memoryMb ?? 0)),
    {
      message: "points must be sorted by memoryMb, each memoryMb once",
    },
  );

export const labProfileSchema = z
  .object({
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "lowercase letters, digits and '-', at most 63 characters"),
    description: z.string().default(""),
    /** Cloud -> environment (what a GET or iperf3 -R measures). */
    download: bandwidthCurveSchema,
    /** Environment -> cloud. */
    upload: bandwidthCurveSchema,
    /** Token-bucket burst at the start of a transfer; null for none. */
    burst: z
      .object({
        peakMegabitsPerSecond: z.number().positive().max(100_000),
        /** How long a transfer runs at the peak rate before the bucket is empty. */
        seconds: z.number().min(0).max(60),
      })
      .strict()
      .nullable()
      .default(null),
    /** Per-request rate cap of the lab's S3 server (S3 serves ~90 MB/s per connection); null for none. */
    s3ConnectionBytesPerSecond: z
      .number()
      .int()
      .positive()
      .max(MAX_PACED_CONNECTION_BYTES_PER_SECOND, {
        message: `at most ${MAX_PACED_CONNECTION_BYTES_PER_SECOND} bytes/s (the most the lab's S3 server paces per connection; null for no cap)`,
      })
      .nullable()
      .default(null),
    /**
     * Round-trip delay to the cloud side. Needs the kernel's netem qdisc; the lab refuses a
     * non-zero value on a kernel without it rather than silently ignoring it.
     */
    roundTripMs: z.number().min(0).max(1_000).default(0),
    /**
     * Random packet loss in each direction, percent (netem, like roundTripMs; refused where
     * the kernel has no netem).
     */
    lossPercent: z.number().min(0).max(50).default(0),
    /**
     * A host link all environments share on the cloud side, Mbit/s each way, so a fleet's
     * aggregate saturates there; null (default) for none. Needs the lab brought up with it.
     */
    hostMegabitsPerSecond: z.number().positive().max(100_000).nullable().default(null),
    /** Memory per vCPU of CPU share (AWS: 1,769 MB = 1 vCPU). */
    mbPerVcpu: z.number().positive().default(1769),
  })
  .strict();

export type LabProfile = z.output<typeof labProfileSchema>;
export type LabProfileInput = z.input<typeof labProfileSchema>;

const builtInProfiles: LabProfile[] = z.array(labProfileSchema).parse(builtInData.profiles);

export function builtInProfileNames(): string[] {
  return builtInProfiles.map((profile) => profile.name);
}

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
  if (!Number.isInteger(memoryMb) || memoryMb < MIN_MEMORY_MB || memoryMb > MAX_MEMORY_MB) {
    throw new Error(
      `memoryMb: ${memoryMb} is not allowed (allowed: integers ${MIN_MEMORY_MB}-${MAX_MEMORY_MB})`,
    );
  }
}

/** Piecewise-linear interpolation; flat beyond the first and last points. */
export function interpolateMegabitsPerSecond(
  points: { memoryMb: number; megabitsPerSecond: number }[],
  memoryMb: number,
): number {
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last) throw new Error("bandwidth curve has no points");
  if (memoryMb <= first.memoryMb) return first.megabitsPerSecond;
  if (memoryMb >= last.memoryMb) return last.megabitsPerSecond;
  for (let i = 1; i < points.length; i += 1) {
    const low = points[i - 1];
    const high = points[i];
    if (low && high && memoryMb <= high.memoryMb) {
      const fraction = (memoryMb - low.memoryMb) / (high.memoryMb - low.memoryMb);
      return low.megabitsPerSecond + fraction * (high.megabitsPerSecond - low.megabitsPerSecond);
    }
  }
  return last.megabitsPerSecond;
}

/** What one direction of an environment's link gets: the shaper's parameters. */
export interface DirectionShape {
  /** Sustained rate on the wire (tc counts Ethernet frames), bits per second. */
  rateBitsPerSecond: number;
  /** Peak rate while the bucket lasts, or null when there is no burst above the sustained rate. */
  peakBitsPerSecond: number | null;
  /** Token bucket size: (peak - sustained) x burst seconds, so the burst lasts that long. */
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
  const rateBitsPerSecond = Math.round(interpolateMegabitsPerSecond(profile[direction], memoryMb) * 1e6);
  const minimumBucket = Math.max(MIN_BUCKET_BYTES, Math.round((rateBitsPerSecond * MIN_BUCKET_SECONDS) / 8));
  const peak = profile.burst ? Math.round(profile.burst.peakMegabitsPerSecond * 1e6) : 0;
  if (!profile.burst || peak <= rateBitsPerSecond || profile.burst.seconds === 0) {
    return { rateBitsPerSecond, peakBitsPerSecond: null, bucketBytes: minimumBucket };
  }
  const bucketBytes = Math.round(((peak - rateBitsPerSecond) * profile.burst.seconds) / 8);
  return { rateBitsPerSecond, peakBitsPerSecond: peak, bucketBytes: Math.max(minimumBucket, bucketBytes) };
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
