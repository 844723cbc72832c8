import { z } from "zod";
import data from "./baselines/published-buckets.json" with { type: "json" };
import { publishedFileSchema, publishedTransferFields } from "./published-file.js";

/**
 * Published burst figures (measured by others, in AWS) shown beside a bucket fit that measured
 * the same direction at a memory size they cover. Each keeps its source, what and how it
 * measured, and the source's own words; nothing here was measured by this tool. Rates in
 * Mbit/s as published (MB/s figures x 8); bytes as published ("about" ranges as low-high).
 */

const range = z.object({ low: z.number().nonnegative(), high: z.number().nonnegative() }).strict();

const publishedBucketSchema = z
  .object({
    ...publishedTransferFields,
    memoryMb: z.object({ from: z.number().int(), to: z.number().int() }).strict(),
    /** The source's sample length: a burst shorter than one 1 s sample shows as a first-second rate only. */
    sampleSeconds: z.number().positive(),
    sustainedMegabitsPerSecond: range,
    /** The rate of the first 1 s sample (burst and sustained together). */
    firstSecondMegabitsPerSecond: range,
    /** Bytes moved in the burst, where the source resolves it (20 ms samples). */
    burstBytes: range.nullable(),
    /** A repetition after an idle time: the burst it got. */
    refillAfterIdle: z.object({ idleSeconds: z.number().positive(), burstBytes: range }).strict().optional(),
    statement: z.string().min(1),
  })
  .strict();

export type PublishedBucket = z.output<typeof publishedBucketSchema>;

export const publishedBuckets = publishedFileSchema("published-buckets", {
  figures: z.array(publishedBucketSchema).min(1),
}).parse(data);

/** The published figures that measured this direction at this memory size. */
export function publishedBucketsFor(direction: "upload" | "download", memoryMb: number): PublishedBucket[] {
  return publishedBuckets.figures.filter(
    (f) => f.direction === direction && memoryMb >= f.memoryMb.from && memoryMb <= f.memoryMb.to,
  );
}
