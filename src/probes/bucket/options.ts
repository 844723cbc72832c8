import { z } from "zod";
import { iperf3AuthSchema } from "../iperf3/options.js";

/**
 * The bucket probe's options: one direction of an environment's token bucket, measured against
 * an iperf3 server. A long transfer drains the bucket and shows the peak and the sustained rate;
 * then each idle gap of the schedule is followed by a short transfer that shows how much came
 * back. Strict, like every probe's options, so a bad event names its field before traffic flows.
 */

/** The idle gaps, seconds: short ones catch a bucket that refills fast, long ones a slow or stepped refill. */
export const DEFAULT_GAPS_SECONDS = [0.1, 0.25, 0.5, 1, 2, 4, 8];

/** Fine enough to see a burst shorter than one second (published bursts last 0.1-1 s). */
export const DEFAULT_BUCKET_INTERVAL_MS = 10;

export const bucketEventSchema = z
  .object({
    probe: z.literal("bucket"),
    host: z.string().min(1),
    port: z.number().int().min(1).max(65_535).default(5201),
    /** upload = the environment sends; download = the server sends (iperf3 -R). */
    direction: z.enum(["upload", "download"]).default("download"),
    /** Streams: enough that a per-flow cap does not hide the peak (8 x 600 Mbit/s > 4 Gbit/s). */
    parallel: z.number().int().min(1).max(128).default(8),
    /** Sample interval, ms: 10-100 (the burst lasts a fraction of a second). */
    intervalMs: z.number().int().min(10).max(100).default(DEFAULT_BUCKET_INTERVAL_MS),
    /** The first, long transfer: it must run well past the burst, to show the sustained rate. */
    transferSeconds: z.number().min(1).max(120).default(5),
    /** Idle gaps, each followed by a short transfer; strictly increasing. */
    gapsSeconds: z
      .array(z.number().positive().max(120))
      .min(1)
      .max(20)
      .refine((gaps) => gaps.every((gap, i) => i === 0 || gap > (gaps[i - 1] ?? 0)), {
        message: "gaps must be strictly increasing",
      })
      .default(DEFAULT_GAPS_SECONDS),
    /**
     * Idle time before the long transfer, so its bucket starts as full as the schedule can tell
     * (a warm environment may have just moved data); default: the longest gap.
     */
    restSeconds: z.number().min(0).max(600).optional(),
    /** Each refill transfer: long enough to empty a refilled bucket again before the next gap. */
    refillTransferSeconds: z.number().min(0.5).max(60).default(2),
    connectTimeoutMs: z.number().int().min(100).max(120_000).default(5_000),
    auth: iperf3AuthSchema.optional(),
  })
  .strict();

export type BucketEvent = z.output<typeof bucketEventSchema>;
