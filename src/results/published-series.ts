import { z } from "zod";
import type { Cell } from "../plan/cell.js";
import { targetKey, targetName } from "../plan/platforms.js";
import data from "./baselines/published-series.json" with { type: "json" };
import { type MeasuredSeries, samplesFromIntervals } from "./measured-series.js";
import { publishedFileSchema, publishedTransferFields } from "./published-file.js";
import type { ResultRecord } from "./result-record.js";
import { normalizeSamples } from "./samples.js";
import { fitSeries, type SeriesModel, summarizeSeriesFits } from "./series-fit.js";

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
    ...publishedTransferFields,
    memoryMb: z.number().int().positive(),
    streams: z.number().int().positive(),
    statement: z.string().min(1),
    intervals: z.array(intervalSchema).min(4),
  })
  .strict();

export type PublishedSeries = z.output<typeof publishedSeriesSchema>;

export const publishedSeries = publishedFileSchema("published-series", {
  series: z.array(publishedSeriesSchema).min(1),
}).parse(data).series;

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

/** The sampling interval a run's series must share with a published one: within 1%. */
const SAME_INTERVAL_SHARE = 0.01;

/** One of our cells beside a published series that measured the same thing, both fitted alike. */
export interface PublishedSeriesBeside {
  cellId: string;
  targetKey: string;
  target: string;
  arch: string;
  memoryMb: number;
  probeLabel: string;
  /** The bucket model over the cell's repetitions (n = transfers fitted). */
  ours: SeriesModel;
  /** Idle seconds before each of our tests (the probe's restSeconds; 0 when none). */
  oursRestSeconds: number;
  published: {
    id: string;
    source: string;
    measured: string;
    statement: string;
    /** Intervals the source gives (what the fit has). */
    intervals: number;
    model: SeriesModel;
  };
  /** Seconds at the published sustained rate that refill the published bucket: a rest that short or longer starts each test as full. */
  refillSeconds: number;
}

type CellLike = Pick<Cell, "id" | "memoryMb" | "arch" | "probe" | "probeLabel" | "environments" | "vpc"> & {
  target: Cell["target"];
};

/**
 * Our iperf3 cells that measured what a published series measured, each beside it: the same
 * direction, the same number of streams, the same sampling interval (the records' own, within
 * 1%) and the same memory size, one environment at a time, outside a VPC (a function in a VPC is
 * not under the bandwidth quota). Both sides are fitted by `fit`'s model (series-fit.ts), our
 * repetitions one transfer each, so like is compared with like; a cell with fewer than 4
 * samples per record has no fit and is left out. Pure.
 */
export function publishedSeriesBeside(
  cells: readonly CellLike[],
  records: readonly ResultRecord[],
): PublishedSeriesBeside[] {
  const out: PublishedSeriesBeside[] = [];
  for (const cell of cells) {
    const probe = cell.probe;
    if (probe.kind !== "iperf3" || (cell.environments ?? 1) !== 1 || cell.vpc) continue;
    const direction = probe.direction;
    if (direction === "bidir") continue;
    const candidates = publishedSeries.filter(
      (s) => s.direction === direction && s.streams === probe.parallel && s.memoryMb === cell.memoryMb,
    );
    if (candidates.length === 0) continue;
    const ours = cellSeries(cell, records, direction, probe.parallel);
    for (const series of candidates) {
      const published = publishedAsMeasured(series);
      const interval = published.samples.intervalSeconds;
      const same = ours.filter(
        (s) => Math.abs(s.samples.intervalSeconds - interval) <= interval * SAME_INTERVAL_SHARE,
      );
      const ourModel = summarizeSeriesFits(same.flatMap((s) => fitSeries(s) ?? []));
      const publishedFit = fitSeries(published);
      const publishedModel = publishedFit ? summarizeSeriesFits([publishedFit]) : null;
      if (!ourModel || !publishedFit || !publishedModel) continue;
      out.push({
        cellId: cell.id,
        targetKey: targetKey(cell.target),
        target: targetName(cell.target),
        arch: cell.arch,
        memoryMb: cell.memoryMb,
        probeLabel: cell.probeLabel,
        ours: ourModel,
        oursRestSeconds: probe.restSeconds ?? 0,
        published: {
          id: series.id,
          source: series.source,
          measured: series.measured,
          statement: series.statement,
          intervals: series.intervals.length,
          model: publishedModel,
        },
        refillSeconds: publishedFit.bucketBytes / (publishedFit.sustainedBitsPerSecond / 8),
      });
    }
  }
  return out;
}

/** Each measuring repetition of the cell as a series `fit` reads: our own counters, the probe's side. */
function cellSeries(
  cell: CellLike,
  records: readonly ResultRecord[],
  direction: "upload" | "download",
  streams: number,
): MeasuredSeries[] {
  return records.flatMap((record) => {
    if (record.cellId !== cell.id || record.warmup || !record.ok) return [];
    const samples = normalizeSamples(record.samples);
    if (!samples) return [];
    return [
      {
        label: `${cell.probeLabel} at ${cell.memoryMb} MB, repetition ${record.repetition}`,
        format: "run-record" as const,
        direction,
        // the probe counts what it sent (upload) or received (download), as stock iperf3's client does
        counted: direction === "upload" ? ("sender" as const) : ("receiver" as const),
        streams,
        samples,
      },
    ];
  });
}
