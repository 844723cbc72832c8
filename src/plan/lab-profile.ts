import { z } from "zod";
import builtInData from "./lab-profiles.json" with { type: "json" };
import { memoryMbSchema } from "./lambda-memory.js";

/**
 * Lab profiles: bandwidth (per direction, piecewise-linear in memory), burst, CPU share and
 * path-realism fields. The built-in ones live in lab-profiles.json; custom ones come from a
 * config file and are validated with the same schema.
 */

/**
 * The most the lab's S3 server can pace one connection, bytes per second: a paced send is
 * 10 ms of data at the cap and must fit in nginx's 2 MiB busy buffers (see
 * platforms/local/s3-connection-cap.ts), so 2 MiB x 100 = 200 MB/s. A profile may not ask more.
 */
export const MAX_PACED_CONNECTION_BYTES_PER_SECOND = (2 * 1024 * 1024 * 1000) / 10;

const bandwidthPointSchema = z
  .object({
    memoryMb: memoryMbSchema,
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

/**
 * Wire bytes per payload byte of a full-sized TCP segment on the lab's veths (MTU 1500): tc
 * counts the Ethernet frame (14 + 1,500 bytes, GSO packets per segment), TCP carries 1,448 of
 * them (1,500 - 20 IP - 20 TCP - 12 timestamp option). 1,514 / 1,448 = 1.0456: payload is 4.4%
 * below the wire rate, as measured (600 of 625, 2,870 of 3,000).
 */
export const FRAME_BYTES_PER_SEGMENT = 1_514;
export const PAYLOAD_BYTES_PER_SEGMENT = 1_448;
export const WIRE_BYTES_PER_PAYLOAD_BYTE = FRAME_BYTES_PER_SEGMENT / PAYLOAD_BYTES_PER_SEGMENT;

export const labProfileSchema = z
  .object({
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "lowercase letters, digits and '-', at most 63 characters"),
    description: z.string().default(""),
    /** Where the numbers come from and how they were fitted (shown in run facts). */
    source: z.string().default(""),
    /** Cloud -> environment (what a GET or iperf3 -R measures). */
    download: bandwidthCurveSchema,
    /** Environment -> cloud. */
    upload: bandwidthCurveSchema,
    /**
     * Token-bucket burst at the start of a transfer; null for none. The bucket is given either
     * as `seconds` (how long a transfer runs at the peak rate, so its size depends on the
     * sustained rate) or as `bytes` (one size at every memory: what a fitted profile states).
     */
    burst: z
      .object({
        peakMegabitsPerSecond: z.number().positive().max(100_000),
        /** How long a transfer runs at the peak rate before the bucket is empty. */
        seconds: z.number().min(0).max(60).optional(),
        /** Bucket size in bytes (in the profile's units: payload when `payload` is true). */
        bytes: z.number().int().min(0).max(10_000_000_000).optional(),
      })
      .strict()
      .refine((burst) => (burst.seconds === undefined) !== (burst.bytes === undefined), {
        message: "give exactly one of seconds or bytes",
      })
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
     * Per-flow cap: each TCP connection to the cloud side gets at most this much (the lab's
     * iperf3 server paces each stream, nginx caps each S3 request, sch_fq `maxrate` where the
     * kernel has fq); null for none.
     */
    flowMegabitsPerSecond: z.number().positive().max(100_000).nullable().default(null),
    /**
     * True when the rates (curves, burst peak and bytes, flow cap) are TCP payload, as a quota
     * that counts payload would be: the shaper, which counts Ethernet frames, then adds the
     * frame overhead. False: the rates are on the wire (payload ~4.4% below them).
     */
    payload: z.boolean().default(false),
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
    /**
     * The CFS period the CPU share is enforced over, ms (the kernel allows 1 to 1,000): each
     * period the environment runs for its share of it, then waits for the next. A small share's
     * waits are as long as the period allows: many short ones at 20 ms, few long ones at 100.
     * Default 100, the kernel's; Lambda's pauses come in 20 ms steps (docs/lab.md).
     */
    cpuPeriodMs: z.number().int().min(1).max(1_000).default(100),
  })
  .strict()
  .superRefine((profile, context) => {
    // the flow cap also caps each S3 connection, which nginx can pace only up to a limit
    const flowBitsPerSecond = flowCapBitsPerSecond(profile);
    if (
      profile.s3ConnectionBytesPerSecond === null &&
      flowBitsPerSecond !== null &&
      flowBitsPerSecond / 8 > MAX_PACED_CONNECTION_BYTES_PER_SECOND
    ) {
      context.addIssue({
        code: "custom",
        path: ["flowMegabitsPerSecond"],
        message: `at most ${Math.floor((MAX_PACED_CONNECTION_BYTES_PER_SECOND * 8) / 1e6)} Mbit/s without an s3ConnectionBytesPerSecond (the lab's S3 server paces at most ${MAX_PACED_CONNECTION_BYTES_PER_SECOND} bytes/s per connection)`,
      });
    }
  });

export type LabProfile = z.output<typeof labProfileSchema>;
export type LabProfileInput = z.input<typeof labProfileSchema>;

export const builtInProfiles: readonly LabProfile[] = z.array(labProfileSchema).parse(builtInData.profiles);

export function builtInProfileNames(): string[] {
  return builtInProfiles.map((profile) => profile.name);
}

/** Factor from the profile's rates to what tc counts (1 for wire-rate profiles). */
export function wireFactor(profile: LabProfile): number {
  return profile.payload ? WIRE_BYTES_PER_PAYLOAD_BYTE : 1;
}

/** The per-flow cap in TCP payload bits per second (what a pacing application counts), or null. */
export function flowCapBitsPerSecond(profile: LabProfile): number | null {
  if (profile.flowMegabitsPerSecond === null) return null;
  const wirePerFlow = profile.flowMegabitsPerSecond * 1e6 * wireFactor(profile);
  return Math.round(wirePerFlow / WIRE_BYTES_PER_PAYLOAD_BYTE);
}

/** The per-flow cap as tc counts it (frames; sch_fq `maxrate`), or null. */
export function flowCapWireBitsPerSecond(profile: LabProfile): number | null {
  if (profile.flowMegabitsPerSecond === null) return null;
  return Math.round(profile.flowMegabitsPerSecond * 1e6 * wireFactor(profile));
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
