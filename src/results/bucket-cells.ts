import type { IntervalSamples } from "../probes/interval-sampler.js";
import { type BucketFit, fitBucket, type RefillPoint, type TransferFit } from "./bucket-fit.js";
import { ceilingNoiseShare } from "./ceiling.js";
import { type RecordCell, recordCell } from "./record-cell.js";
import type { ResultRecord } from "./result-record.js";
import { describe, median, type Spread } from "./statistics.js";

/**
 * The bucket model of one direction with its uncertainty: each repetition is fitted on its own
 * (bucket-fit.ts), and every parameter is given as the spread of those fits (n, median, min,
 * max, IQR). Pure.
 */
export interface BucketModel {
  direction: "upload" | "download";
  /**
   * Repetitions fitted (successful measurements with enough samples) whose transfer left its
   * burst: every other figure is over these. Those that did not are in `neverLeftBurst`.
   */
  n: number;
  /** Repetitions whose transfer ran measurably above the sustained rate at its start. */
  burstFound: number;
  sustainedBitsPerSecond: Spread | null;
  /** The first second's rate: what tools sampling each second publish as "the burst". */
  firstSecondBitsPerSecond: Spread | null;
  /**
   * Over the repetitions with a burst whose samples resolved the peak, when any did
   * (`peakBound` measured); else over all of them as lower bounds (at-least).
   */
  peakBitsPerSecond: Spread | null;
  peakBound: "measured" | "at-least";
  /** Repetitions with a burst whose samples resolved its peak (the rest only bound it). */
  peakResolved: number;
  /** Over the repetitions with a burst. */
  bucketBytes: Spread | null;
  /** As the peak: measured where any repetition resolved it, else upper bounds (at-most). */
  burstSeconds: Spread | null;
  burstSecondsBound: "measured" | "at-most";
  refill: {
    bytesPerSecond: Spread | null;
    delaySeconds: Spread | null;
    fullAfterSeconds: Spread | null;
    /** "at-least" when any repetition could only bound the rate (full at its shortest gap). */
    bound: "measured" | "at-least";
    /** The shape most repetitions showed. */
    shape: "linear" | "stepped" | "undetermined";
    /** Idle seconds and refilled bytes of every repetition (for tables and charts). */
    points: RefillPoint[];
  } | null;
  /**
   * Repetitions whose long transfer still ran above the ceiling in force (the profile's rate or
   * the quota, beyond its noise) after the fit's break: it never left its burst, so the rate
   * after the break is burst, not sustained, and the bucket is larger than the transfer could
   * show. Left out of every figure above; null when none (or no ceiling is known).
   */
  neverLeftBurst: {
    repetitions: number;
    /** What their transfers ran at after the fit's break (burst, not sustained). */
    rateBitsPerSecond: Spread;
    ceilingBitsPerSecond: number;
  } | null;
}

export interface BucketCell extends RecordCell {
  model: BucketModel;
  /** The repetition whose bucket is the median one: its long transfer's samples and fit, for the chart. */
  example: {
    samples: IntervalSamples;
    fit: TransferFit;
    sustainedBitsPerSecond: number;
    /** The example's burst was resolved: its two segments are the burst as the link ran it. */
    peakResolved: boolean;
  } | null;
}

const pick = (values: Array<number | null | undefined>) =>
  describe(values.filter((v): v is number => typeof v === "number"));

/**
 * One direction's model from its repetitions' fits (all of one direction); null when there is
 * none. With the ceiling in force (payload bit/s), a fit whose rate after the break is above it
 * beyond its noise never left its burst: it is counted in `neverLeftBurst`, not in the figures.
 */
export function summarizeBucketFits(
  all: readonly BucketFit[],
  ceilingBitsPerSecond: number | null = null,
): BucketModel | null {
  const first = all[0];
  if (!first) return null;
  const fits = all.filter((f) => !neverLeftBurst(f, ceilingBitsPerSecond));
  const stillBursting = all.filter((f) => neverLeftBurst(f, ceilingBitsPerSecond));
  const bursts = fits.filter((f) => f.burst);
  const resolved = bursts.filter((f) => f.peakBound === "measured");
  const peaks = resolved.length > 0 ? resolved : bursts;
  const lengthsResolved = bursts.filter((f) => f.burstSecondsBound === "measured");
  const lengths = lengthsResolved.length > 0 ? lengthsResolved : bursts;
  const refills = bursts
    .map((f) => f.refill)
    .filter((r): r is NonNullable<BucketFit["refill"]> => r !== null);
  const shapes = refills.map((r) => r.shape);
  const shape = (["linear", "stepped", "undetermined"] as const).reduce((best, candidate) =>
    shapes.filter((s) => s === candidate).length > shapes.filter((s) => s === best).length ? candidate : best,
  );
  return {
    direction: first.direction,
    n: fits.length,
    burstFound: bursts.length,
    sustainedBitsPerSecond: pick(fits.map((f) => f.sustainedBitsPerSecond)),
    firstSecondBitsPerSecond: pick(fits.map((f) => f.firstSecondBitsPerSecond)),
    peakBitsPerSecond: pick(peaks.map((f) => f.peakBitsPerSecond)),
    peakBound: resolved.length > 0 || bursts.length === 0 ? "measured" : "at-least",
    peakResolved: resolved.length,
    bucketBytes: pick(bursts.map((f) => f.bucketBytes)),
    burstSeconds: pick(lengths.map((f) => f.burstSeconds)),
    burstSecondsBound: lengthsResolved.length > 0 || bursts.length === 0 ? "measured" : "at-most",
    refill:
      refills.length === 0
        ? null
        : {
            bytesPerSecond: pick(refills.map((r) => r.bytesPerSecond)),
            delaySeconds: pick(refills.filter((r) => r.bound === "measured").map((r) => r.delaySeconds)),
            fullAfterSeconds: pick(refills.map((r) => r.fullAfterSeconds)),
            bound: refills.some((r) => r.bound === "at-least") ? "at-least" : "measured",
            shape,
            points: refills.flatMap((r) => r.points),
          },
    neverLeftBurst:
      stillBursting.length > 0 && ceilingBitsPerSecond !== null
        ? {
            repetitions: stillBursting.length,
            rateBitsPerSecond: describe(stillBursting.map((f) => f.sustainedBitsPerSecond)) as Spread,
            ceilingBitsPerSecond,
          }
        : null,
  };
}

/** The fit's rate after its break is above the ceiling beyond the ceiling's noise: still burst. */
function neverLeftBurst(fit: BucketFit, ceilingBitsPerSecond: number | null): boolean {
  return (
    ceilingBitsPerSecond !== null &&
    fit.sustainedBitsPerSecond > ceilingBitsPerSecond * (1 + ceilingNoiseShare)
  );
}

/**
 * The bucket cells of a run, one per cell with at least one fitted repetition, in record order.
 * Each repetition is fitted again from its stored samples, so a report of an older run uses
 * today's fit (the record keeps the fit made when it was written). `ceilingOf` gives a record's
 * ceiling in force (payload bit/s, null when none is known): a transfer still above it after the
 * break never left its burst (summarizeBucketFits).
 */
export function bucketCells(
  records: readonly ResultRecord[],
  ceilingOf: (record: ResultRecord) => number | null = () => null,
): BucketCell[] {
  const byCell = new Map<string, Array<{ record: ResultRecord; fit: BucketFit }>>();
  for (const record of records) {
    if (record.warmup || !record.ok || !record.bucket) continue;
    const fit = fitBucket(record.bucket.measurement);
    if (fit) byCell.set(record.cellId, [...(byCell.get(record.cellId) ?? []), { record, fit }]);
  }
  return [...byCell.values()].flatMap((fitted): BucketCell[] => {
    const first = (fitted[0] as { record: ResultRecord }).record;
    const ceiling = ceilingOf(first);
    const model = summarizeBucketFits(
      fitted.map((f) => f.fit),
      ceiling,
    );
    if (!model) return [];
    return [
      {
        ...recordCell(first),
        model,
        example: medianExample(fitted.filter((f) => !neverLeftBurst(f.fit, ceiling))),
      },
    ];
  });
}

/** The repetition whose bucket is the median one, among those whose samples resolved the peak when any did. */
function medianExample(all: Array<{ record: ResultRecord; fit: BucketFit }>): BucketCell["example"] {
  if (all.length === 0) return null;
  const resolved = all.filter((f) => f.fit.peakBound === "measured");
  const fitted = resolved.length > 0 ? resolved : all;
  const middle = median(fitted.map((f) => f.fit.bucketBytes));
  const chosen = [...fitted].sort(
    (a, b) => Math.abs(a.fit.bucketBytes - middle) - Math.abs(b.fit.bucketBytes - middle),
  )[0];
  const samples = chosen?.record.bucket?.measurement.transfers[0]?.samples;
  if (!chosen || !samples) return null;
  return {
    samples,
    fit: chosen.fit.transfer,
    sustainedBitsPerSecond: chosen.fit.sustainedBitsPerSecond,
    peakResolved: chosen.fit.burst && chosen.fit.peakBound === "measured",
  };
}
