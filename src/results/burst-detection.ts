import { type BurstWindow, burstFigures } from "./burst-figures.js";
import { ceilingNoiseShare } from "./ceiling.js";
import { type IntervalRate, type IntervalSamples, intervalRates } from "./samples.js";
import { median } from "./statistics.js";

/**
 * Finds where a transfer's rate settles to its sustained level, from its per-interval samples.
 * Pure. The rule (docs/reports.md, "Burst and sustained"):
 *
 * 1. A record shorter than `minimumRecordSeconds` has no sustained part: Lambda's burst lasts about
 *    a second, so a shorter record cannot tell a burst from a sustained rate.
 * 2. The reference level L is the median rate of the intervals that start in the second half of
 *    the measured period (the tail). The rule assumes a burst is over by half of the record.
 * 3. An interval is "settled" when its rate is at most L + max(15% of L, 3 robust SDs of the tail)
 *    (robust SD = 1.4826 x median absolute deviation). Rates below the band count as settled:
 *    a dip is not a burst.
 * 4. A burst starts the transfer: when the first interval is settled there is none. Otherwise it
 *    ends at the first interval that is settled and followed by a settled one (one low interval
 *    does not end it). A first interval clearly below L (under 85%,
 *    TCP slow start) is skipped when looking for a burst, and belongs to the burst window when there is one.
 * 5. When the burst window would reach into the tail, the rate never settled: sustained is null.
 * 6. Sustained = bytes / measured seconds of the intervals after the burst window; needs >= 1 s
 *    of them. The median of their rates is kept as a diagnostic: on a short parallel transfer it
 *    read 2,785 where the transfer's second half moved 2,519.
 * 7. With the ceiling in force known (`ceiling.ts`), a sustained rate above it by more than its
 *    noise (5%) is burst: a transfer whose bucket drains slowly (one S3 connection capped between
 *    the quota and the peak) runs flat inside its burst and shows no edge. The sustained part then
 *    starts at the first interval at or under the ceiling after which the rest stays under it in
 *    bytes over time; with no such interval the transfer ended inside the burst and has no
 *    sustained rate, with the bytes it moved above the ceiling and for how long. The interval
 *    median kept beside a sustained rate is left out when it reads above that band.
 *
 * The burst's figures come from the cumulative bytes against the sustained rate (burst-figures.ts):
 * its bytes above the sustained rate, its peak from the samples wholly inside it (at least
 * `resolvingSamples`), its length at the peak; a burst too short for that gets bounds (the peak at
 * least the fastest sample, the length at most the bytes over what that leaves above the sustained
 * rate: "< 0.25 s" for one that ended inside the first sample), never a figure finer than the sampling.
 * Without a sustained rate there is nothing to take the bytes above, and no burst figure.
 *
 * Before all of this, the intervals before the first byte and after the last one are dropped:
 * they measure waiting on a request (an S3 time to first byte), not the link. A short S3 test in
 * a slow guest measured 3.5 s of which most moved nothing, and a median over it said "sustained
 * 0 Mbit/s". A sustained median of zero is never reported either: it is null, with the reason.
 */

export const minimumRecordSeconds = 2;
export const minimumSustainedSeconds = 1;
/** A burst must exceed the tail level by this share (or by 3 robust SDs, whichever is larger). */
export const burstMargin = 0.15;
const robustSdPerMad = 1.4826;

export type { BurstWindow };

/**
 * Samples wholly inside a burst that measure its peak here: two, where 10 ms samples want three.
 * Two whole 250 ms samples of one burst agree within a few %, and Lambda's ~1 s burst holds just
 * two beside its first (TCP start) and its last (where it ends).
 */
export const resolvingSamples = 2;

/** The leading samples' rate, length and bytes (measured time): where the burst ran. */
interface Window {
  bitsPerSecond: number;
  seconds: number;
  bytes: number;
}

/** The analysis before the burst's figures are read from the cumulative bytes. */
type WindowAnalysis = Omit<BurstAnalysis, "burst"> & { burst: Window | null };

export interface BurstAnalysis {
  /** The burst at the start of the transfer; null when none was detected (see `burstFound`). */
  burst: BurstWindow | null;
  /** "detected", "none" (the rate started at its sustained level), "undetermined" (too short / no samples). */
  burstFound: "detected" | "none" | "undetermined";
  /** Bytes / seconds after the burst; null with `sustainedNullReason` when there is no sustained part. */
  sustainedBitsPerSecond: number | null;
  /** Median of the interval rates after the burst (a diagnostic; the headline is the rate above). */
  sustainedMedianBitsPerSecond: number | null;
  /** Intervals the sustained rate is taken over. */
  sustainedIntervals: number;
  sustainedNullReason: string | null;
  /**
   * known: the ceiling in force was known and the sustained rate is within its noise; unknown:
   * no ceiling to check it against (the rate is unconfirmed); exceeded: the transfer ended inside
   * its burst (see `insideBurst`).
   */
  ceilingCheck: "known" | "unknown" | "exceeded";
  /** The transfer never fell to the ceiling: its bytes above the ceiling and its seconds; null otherwise. */
  insideBurst: { excessBytes: number; seconds: number; ceilingBitsPerSecond: number } | null;
}

const undetermined = (reason: string): WindowAnalysis => ({
  burst: null,
  burstFound: "undetermined",
  sustainedBitsPerSecond: null,
  sustainedMedianBitsPerSecond: null,
  sustainedIntervals: 0,
  sustainedNullReason: reason,
  ceilingCheck: "unknown",
  insideBurst: null,
});

const fmtSeconds = (s: number) => `${Number(s.toFixed(2))} s`;

/**
 * The burst and the sustained rate of one record; `ceilingBitsPerSecond` is the payload limit in
 * force for its cell (null when unknown: the sustained rate is then unconfirmed).
 */
export function detectBurst(
  recorded: IntervalSamples | null,
  ceilingBitsPerSecond: number | null = null,
): BurstAnalysis {
  const edge = detectEdge(recorded);
  if (!recorded) return { ...edge, burst: null };
  const samples = withoutIdleEdges(recorded);
  const held =
    ceilingBitsPerSecond === null || !(ceilingBitsPerSecond > 0)
      ? edge
      : withMedianHeld(heldToCeiling(edge, samples, ceilingBitsPerSecond), ceilingBitsPerSecond);
  return withFigures(held, samples);
}

/** The burst's figures from the cumulative bytes past its window (burst-figures.ts). */
function withFigures(analysis: WindowAnalysis, samples: IntervalSamples): BurstAnalysis {
  const { burst: window, ...rest } = analysis;
  const sustained = analysis.sustainedBitsPerSecond;
  if (!window || sustained === null) return { ...rest, burst: null };
  // the window is the leading samples that make up its measured seconds
  let count = 0;
  for (let seconds = 0; count < samples.bytes.length && seconds < window.seconds - 1e-9; count += 1)
    seconds += samples.durationSeconds[count] as number;
  const figures = burstFigures(samples, sustained / 8, count, resolvingSamples);
  if (!figures) return { ...rest, burst: null, burstFound: "none" };
  return {
    ...rest,
    burst: {
      bitsPerSecond: figures.peakBitsPerSecond,
      peakBound: figures.peakBound,
      seconds: figures.seconds,
      secondsBound: figures.secondsBound,
      bytes: figures.excessBytes,
      intervalSeconds: figures.intervalSeconds,
    },
  };
}

function detectEdge(recorded: IntervalSamples | null): WindowAnalysis {
  if (!recorded || recorded.bytes.length === 0) return undetermined("no interval samples in the record");
  const measuredSeconds = sumSeconds(recorded);
  const samples = withoutIdleEdges(recorded);
  if (samples.bytes.length === 0) return undetermined("no data moved in any interval");
  const totalSeconds = sumSeconds(samples);
  const idle =
    totalSeconds < measuredSeconds - 1e-9
      ? ` moving data (of ${fmtSeconds(measuredSeconds)}; the rest waited for the first or after the last byte)`
      : " measured";
  if (totalSeconds < minimumRecordSeconds)
    return undetermined(
      `too short: ${fmtSeconds(totalSeconds)}${idle}; a sustained rate needs >= ${minimumRecordSeconds} s (a burst lasts ~1 s)`,
    );
  const rates = intervalRates(samples);
  const firstStart = samples.startSeconds[0] ?? 0;
  const half = firstStart + totalSeconds / 2;
  const tail = rates.filter((r) => r.startSeconds >= half - 1e-9);
  if (tail.length === 0) return undetermined("no full interval in the second half of the record");
  const level = median(tail.map((r) => r.bitsPerSecond));
  const mad = median(tail.map((r) => Math.abs(r.bitsPerSecond - level)));
  const ceiling = level + Math.max(burstMargin * level, 3 * robustSdPerMad * mad);
  const settled = (r: IntervalRate | undefined) => r === undefined || r.bitsPerSecond <= ceiling;

  const skipRamp =
    rates.length > 1 && (rates[0] as IntervalRate).bitsPerSecond < (1 - burstMargin) * level ? 1 : 0;
  // a burst starts the transfer: a settled first (non-ramp) interval means there is none
  if (settled(rates[skipRamp])) return sustainedAfter(rates, 0, null, "none");
  let end = skipRamp;
  while (end < rates.length && !(settled(rates[end]) && settled(rates[end + 1]))) end += 1;
  if (end === skipRamp) return sustainedAfter(rates, 0, null, "none");
  if (end >= rates.length || (rates[end] as IntervalRate).startSeconds >= half - 1e-9)
    return {
      ...undetermined(
        `the rate did not settle before half of the record (${fmtSeconds(totalSeconds)}): the burst may outlast the test`,
      ),
      burstFound: "detected",
    };
  // the burst window is everything before `end`, slivers included, in measured time
  const burst = windowBefore(samples, (rates[end] as IntervalRate).startSeconds);
  if (!(burst.bitsPerSecond > ceiling)) return sustainedAfter(rates, 0, null, "none");
  return sustainedAfter(rates, end, burst, "detected");
}

function sumSeconds(samples: IntervalSamples): number {
  return samples.durationSeconds.reduce((sum, d) => sum + d, 0);
}

/** The samples from the first interval that moved data to the last one that did. */
function withoutIdleEdges(samples: IntervalSamples): IntervalSamples {
  const first = samples.bytes.findIndex((b) => b > 0);
  if (first < 0) return { ...samples, startSeconds: [], durationSeconds: [], bytes: [] };
  let last = samples.bytes.length - 1;
  while ((samples.bytes[last] as number) === 0) last -= 1;
  return {
    ...samples,
    startSeconds: samples.startSeconds.slice(first, last + 1),
    durationSeconds: samples.durationSeconds.slice(first, last + 1),
    bytes: samples.bytes.slice(first, last + 1),
  };
}

function sustainedAfter(
  rates: IntervalRate[],
  from: number,
  burst: Window | null,
  burstFound: "detected" | "none",
): WindowAnalysis {
  const after = rates.slice(from);
  const seconds = after.reduce((sum, r) => sum + r.durationSeconds, 0);
  const none = { ceilingCheck: "unknown" as const, insideBurst: null, sustainedMedianBitsPerSecond: null };
  const noSustained = (sustainedNullReason: string): WindowAnalysis => ({
    ...none,
    burst,
    burstFound,
    sustainedBitsPerSecond: null,
    sustainedIntervals: 0,
    sustainedNullReason,
  });
  if (after.length === 0 || seconds < minimumSustainedSeconds)
    return noSustained(
      `too short after the burst: ${fmtSeconds(seconds)} (needs >= ${minimumSustainedSeconds} s)`,
    );
  const middle = median(after.map((r) => r.bitsPerSecond));
  if (!(middle > 0))
    return noSustained(
      `most intervals after the burst moved nothing (${after.filter((r) => r.bitsPerSecond === 0).length} of ${after.length}): the transfer was waiting, not limited by the link`,
    );
  const bytes = after.reduce((sum, r) => sum + (r.bitsPerSecond * r.durationSeconds) / 8, 0);
  return {
    ...none,
    burst,
    burstFound,
    sustainedBitsPerSecond: (bytes * 8) / seconds,
    sustainedMedianBitsPerSecond: middle,
    sustainedIntervals: after.length,
    sustainedNullReason: null,
  };
}

/**
 * Rule 7: the edge found from the series alone, checked against the ceiling. A rate within the
 * ceiling's noise stands; above it, the sustained part starts where the rate falls to the ceiling,
 * or the transfer ended inside its burst.
 */
function heldToCeiling(edge: WindowAnalysis, samples: IntervalSamples, ceiling: number): WindowAnalysis {
  const band = ceiling * (1 + ceilingNoiseShare);
  if (edge.sustainedBitsPerSecond !== null && edge.sustainedBitsPerSecond <= band)
    return { ...edge, ceilingCheck: "known" };
  const totalBytes = samples.bytes.reduce((sum, b) => sum + b, 0);
  const totalSeconds = sumSeconds(samples);
  if (totalSeconds <= 0) return edge;
  // a record too short to tell, or one that never settled, keeps its reason unless it ran above the ceiling
  if (edge.sustainedBitsPerSecond === null && (totalBytes * 8) / totalSeconds <= band) return edge;
  const rates = totalSeconds >= minimumRecordSeconds ? intervalRates(samples) : [];
  for (let k = 0; k < rates.length; k += 1) {
    const from = rates[k] as IntervalRate;
    if (from.bitsPerSecond > band) continue;
    const window = windowBefore(samples, from.startSeconds);
    const rest = sustainedAfter(rates, k, null, window.seconds > 0 ? "detected" : "none");
    if (rest.sustainedBitsPerSecond === null || rest.sustainedBitsPerSecond > band) continue;
    if (window.seconds <= 0) return { ...rest, ceilingCheck: "known" };
    if (!(window.bitsPerSecond > band)) continue;
    return { ...rest, burst: window, ceilingCheck: "known" };
  }
  const excessBytes = Math.max(0, totalBytes - (ceiling / 8) * totalSeconds);
  return {
    burst: null,
    burstFound: "detected",
    sustainedBitsPerSecond: null,
    sustainedMedianBitsPerSecond: null,
    sustainedIntervals: 0,
    sustainedNullReason: `ended inside the burst: ${formatMegabytes(excessBytes)} MB above the ${Math.round(ceiling / 1e6).toLocaleString("en-US")} Mbit/s ceiling in ${fmtSeconds(totalSeconds)}; a longer transfer (or more connections, which drain the burst sooner) would reach the sustained rate`,
    ceilingCheck: "exceeded",
    insideBurst: { excessBytes, seconds: totalSeconds, ceilingBitsPerSecond: ceiling },
  };
}

/**
 * The interval median beside a sustained rate held to the ceiling: left out when it reads above
 * the ceiling's band. Intervals can run above the quota where the bytes over time do not: after a stall
 * the shaper's bucket has refilled, and the intervals that drain it run above it. A
 * single-connection S3 GET on the lab at 1/8 (a 78.1 Mbit/s quota, band 82.0) moved no more than
 * the band over its sustained part while the median of its intervals read 83.2 (quiet run,
 * 2026-12-07). Such a median is no sustained rate, and report.json would print it as one.
 */
function withMedianHeld(analysis: WindowAnalysis, ceiling: number): WindowAnalysis {
  const median = analysis.sustainedMedianBitsPerSecond;
  return median !== null && median > ceiling * (1 + ceilingNoiseShare)
    ? { ...analysis, sustainedMedianBitsPerSecond: null }
    : analysis;
}

const formatMegabytes = (bytes: number) => Math.round(bytes / 1e6).toLocaleString("en-US");

/** Rate, seconds and bytes of the samples that start before `endSeconds` (measured time). */
function windowBefore(samples: IntervalSamples, endSeconds: number): Window {
  let bytes = 0;
  let seconds = 0;
  samples.startSeconds.forEach((start, i) => {
    if (start < endSeconds - 1e-9) {
      bytes += samples.bytes[i] as number;
      seconds += samples.durationSeconds[i] as number;
    }
  });
  return { bitsPerSecond: seconds > 0 ? (bytes * 8) / seconds : 0, seconds, bytes };
}
