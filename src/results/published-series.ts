import { z } from "zod";
import data from "./baselines/published-series.json" with { type: "json" };
import { type MeasuredSeries, samplesFromIntervals } from "./measured-series.js";

/**
 * Published iperf3 interval series measured by others in AWS Lambda, kept as their numbers (start,
 * rate and bytes of each interval, as published) with their source and how they were measured;
 * nothing here was measured by this tool. An interval's length is bytes x 8 / rate: the source
 * prints the rate iperf3 computed from its own measured length, to 7 significant digits.
 */

const intervalSchema = z
  .object({
    startSeconds: z.number().nonnegative(),
    bitsPerSecond: z.number().positive(),
    bytes: z.number().int().nonnegative(),
  })
  .strict();

const publishedSeriesSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/),
    source: z.string().min(1),
    measured: z.string().min(1),
    direction: z.enum(["upload", "download"]),
    memoryMb: z.number().int().positive(),
    streams: z.number().int().positive(),
    statement: z.string().min(1),
    intervals: z.array(intervalSchema).min(4),
  })
  .strict();

export type PublishedSeries = z.output<typeof publishedSeriesSchema>;

export const publishedSeries = z
  .object({
    name: z.literal("published-series"),
    title: z.string(),
    transcribedOn: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    series: z.array(publishedSeriesSchema).min(1),
  })
  .strict()
  .parse(data).series;

export const publishedSeriesIds = publishedSeries.map((s) => s.id);

/** A published series as a measured transfer (the same shape the file readers give). */
export function publishedAsMeasured(series: PublishedSeries): MeasuredSeries {
  return {
    label: `published: ${series.id}`,
    format: "published",
    direction: series.direction,
    counted: series.direction === "upload" ? "sender" : "receiver",
    streams: series.streams,
    samples: samplesFromIntervals(
      series.id,
      series.intervals.map((interval, i) => ({
        field: `intervals[${i}]`,
        startSeconds: interval.startSeconds,
        durationSeconds: (interval.bytes * 8) / interval.bitsPerSecond,
        bytes: interval.bytes,
      })),
    ),
  };
}
