import type { IntervalSamples } from "./samples.js";
import { describe, median, type Spread } from "./statistics.js";

/**
 * A burst's figures from the cumulative bytes, at the resolution the samples hold. Pure. The
 * token-bucket model (bucket-fit.ts): a transfer runs at a peak P while its bucket lasts, then at
 * the sustained rate S, so its cumulative bytes are two lines, slope P then slope S.
 *
 * - Bytes above the sustained rate (the bucket): once the burst is over, cumulative bytes -
 *   S x elapsed time stays at the bucket, whatever the sampling; the median over the samples
 *   after the burst's leading ones. The burst window's own bytes would count S's share too: a
 *   150 MB bucket read "273 MB" that way.
 * - The peak: measured only from samples wholly inside the burst, the leading ones but the first
 *   (connect, TCP start) and the last (the burst ends inside it); their (upper) median. With fewer
 *   than `resolvingSamples` of them the burst ended inside its first few samples, which average it
 *   with what followed: the peak is at least the fastest of their rates.
 * - The length at the peak: bucket / (P - S); with an unresolved peak, at most bucket / (fastest
 *   - S), which for a burst that ended inside the first sample is that sample's length: at 250 ms
 *   samples a 60 MB burst at 4,000 Mbit/s (0.14 s) is "< 0.25 s", never "0.25 s".
 *
 * The two-segment fit's own break lies on a sample's end, so its bucket and length are as coarse
 * as the sampling (a 35 MB bucket read 31.5 at 250 ms); the cumulative excess is not.
 */

export interface BurstFigures {
  /** Bytes above the sustained rate. */
  excessBytes: number;
  peakBitsPerSecond: number;
  /** at-least: the burst was too short to hold enough whole samples; the fastest one. */
  peakBound: "measured" | "at-least";
  /** Seconds at the peak rate. */
  seconds: number;
  secondsBound: "measured" | "at-most";
  /** Leading samples the burst ran in. */
  burstSamples: number;
  /** The sampling interval, seconds (nominal). */
  intervalSeconds: number;
}

/**
 * Samples wholly inside the burst needed to measure its peak, by default: 10 ms samples (the
 * bucket probe's, stock iperf3's) need three to stand against one slow or fast among them.
 */
export const RESOLVING_SAMPLES = 3;

/**
 * The middle sample, the higher of the two middle ones when they are even: a token bucket holds
 * every sample inside the burst at or under its peak, and one that fell under it (a sender that
 * paused) must not halve the distance to the peak, as the mean of two would.
 */
function upperMedian(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** A sample's end, seconds from the transfer's start. */
export const endOf = (samples: IntervalSamples, i: number) =>
  (samples.startSeconds[i] as number) + (samples.durationSeconds[i] as number);

/**
 * The figures of a burst that ran in the first `burstSamples` samples, against a sustained rate
 * in bytes per second; null when no bytes lie above the sustained rate once the burst is over.
 */
export function burstFigures(
  samples: IntervalSamples,
  sustainedBytesPerSecond: number,
  burstSamples: number,
  resolvingSamples = RESOLVING_SAMPLES,
): BurstFigures | null {
  const n = samples.bytes.length;
  if (burstSamples < 1 || burstSamples >= n || !(sustainedBytesPerSecond > 0)) return null;
  // slivers (under half an interval) give wild rates: the peak is read from whole samples
  const rates = samples.bytes.slice(0, burstSamples).flatMap((bytes, i) => {
    const seconds = samples.durationSeconds[i] as number;
    return seconds >= samples.intervalSeconds / 2 ? [bytes / seconds] : [];
  });
  const inside = rates.slice(1, -1);
  const peak = inside.length >= resolvingSamples ? upperMedian(inside) : null;
  const resolved = peak !== null && peak > sustainedBytesPerSecond ? peak : null;
  const excessBytes = excessAfter(samples, sustainedBytesPerSecond, burstSamples, resolved);
  if (!(excessBytes > 0)) return null;
  // unresolved: the fastest burst sample is a lower bound on the peak, so the length an upper one
  const fastest = Math.max(...rates, 0);
  const peakRate = resolved ?? fastest;
  if (!(peakRate > sustainedBytesPerSecond)) return null;
  return {
    excessBytes,
    burstSamples,
    intervalSeconds: samples.intervalSeconds,
    peakBitsPerSecond: peakRate * 8,
    peakBound: resolved === null ? "at-least" : "measured",
    seconds: excessBytes / (peakRate - sustainedBytesPerSecond),
    secondsBound: resolved === null ? "at-most" : "measured",
  };
}

/** A sample this far above the sustained rate still holds some of the burst. */
export const ABOVE_SHARE = 0.1;

/** A sample's rate, bytes per second over its measured length. */
export const rateOf = (samples: IntervalSamples, i: number) =>
  (samples.bytes[i] as number) / (samples.durationSeconds[i] as number);

/** The samples from the first that moved a byte on: the ones before it hold the connection's set-up. */
function fromFirstByte(samples: IntervalSamples): IntervalSamples {
  const first = samples.bytes.findIndex((bytes) => bytes > 0);
  if (first <= 0) return samples;
  return {
    intervalSeconds: samples.intervalSeconds,
    startSeconds: samples.startSeconds.slice(first),
    durationSeconds: samples.durationSeconds.slice(first),
    bytes: samples.bytes.slice(first),
  };
}

/**
 * The figures of the burst, if any, that ran in the leading samples still above the sustained
 * rate, counted from the first byte: a transfer that waited 20 ms for it (two empty 10 ms
 * samples) read as no burst. Null without such samples, or without bytes above the sustained
 * rate once they are over.
 */
export function leadingBurstFigures(
  samples: IntervalSamples,
  sustainedBytesPerSecond: number,
): BurstFigures | null {
  const moving = fromFirstByte(samples);
  let burstSamples = 0;
  while (
    burstSamples < moving.bytes.length - 1 &&
    rateOf(moving, burstSamples) > sustainedBytesPerSecond * (1 + ABOVE_SHARE)
  )
    burstSamples += 1;
  return burstFigures(moving, sustainedBytesPerSecond, burstSamples);
}

/**
 * Cumulative bytes - sustained x elapsed time, median over the samples after the burst. Elapsed
 * from the transfer's effective start: with a measured peak, where a line at the peak through the
 * first sample's bytes meets zero (as the two-segment fit's start), so a first sample that waited
 * for its first byte or ramped up does not lower the bucket by the sustained rate x that wait;
 * without one, the first sample's start.
 */
function excessAfter(
  samples: IntervalSamples,
  sustainedBytesPerSecond: number,
  burstSamples: number,
  peakBytesPerSecond: number | null,
): number {
  const firstSeconds = samples.durationSeconds[0] as number;
  const late =
    peakBytesPerSecond === null
      ? 0
      : Math.max(0, firstSeconds - (samples.bytes[0] as number) / peakBytesPerSecond);
  const origin = (samples.startSeconds[0] as number) + late;
  let total = 0;
  const excess: number[] = [];
  samples.bytes.forEach((bytes, i) => {
    total += bytes;
    if (i >= burstSamples) excess.push(total - sustainedBytesPerSecond * (endOf(samples, i) - origin));
  });
  return median(excess);
}

/** A cell's burst over its repetitions: measured figures where any repetition resolved them, else the bounds. */
export interface CellBurst {
  burst: Spread | null;
  burstSeconds: Spread | null;
  /** Bytes above the sustained rate. */
  burstBytes: Spread | null;
  /** How far the figures above are measured; null without a burst. */
  burstBounds: {
    peak: "measured" | "at-least";
    seconds: "measured" | "at-most";
    /** The sampling interval (the longest of the repetitions'), seconds. */
    intervalSeconds: number;
  } | null;
}

/** One transfer's burst, as a record's analysis carries it (burst-detection.ts). */
export interface BurstWindow {
  /** Peak rate, bit/s; with `peakBound` at-least, a lower bound (the fastest burst sample). */
  bitsPerSecond: number;
  peakBound: "measured" | "at-least";
  /** Seconds at the peak; with `secondsBound` at-most, an upper bound. */
  seconds: number;
  secondsBound: "measured" | "at-most";
  /** Bytes above the sustained rate (its own share left out). */
  bytes: number;
  /** The sampling interval, seconds. */
  intervalSeconds: number;
}

export function cellBurst(bursts: readonly BurstWindow[]): CellBurst {
  if (bursts.length === 0) return { burst: null, burstSeconds: null, burstBytes: null, burstBounds: null };
  const measuredPeaks = bursts.filter((b) => b.peakBound === "measured");
  const measuredLengths = bursts.filter((b) => b.secondsBound === "measured");
  const peaks = measuredPeaks.length > 0 ? measuredPeaks : bursts;
  const lengths = measuredLengths.length > 0 ? measuredLengths : bursts;
  return {
    burst: describe(peaks.map((b) => b.bitsPerSecond)),
    burstSeconds: describe(lengths.map((b) => b.seconds)),
    burstBytes: describe(bursts.map((b) => b.bytes)),
    burstBounds: {
      peak: measuredPeaks.length > 0 ? "measured" : "at-least",
      seconds: measuredLengths.length > 0 ? "measured" : "at-most",
      intervalSeconds: Math.max(...bursts.map((b) => b.intervalSeconds)),
    },
  };
}
