import type { BucketMeasurement, BucketTransfer } from "../probes/bucket/measurement.js";
import type { IntervalSamples } from "../probes/interval-sampler.js";
import { leadingBurstFigures } from "./burst-figures.js";
import { settledRate } from "./settled-rate.js";
import { median } from "./statistics.js";

/**
 * The token-bucket model fitted to one bucket measurement (one direction, one repetition). Pure.
 *
 * A token bucket lets a transfer run at a peak rate P while it holds tokens, then at the
 * sustained rate S; the bucket holds B bytes above S (it empties at P - S). The cumulative bytes
 * of a transfer are then two straight lines: slope P from the start t0 to the break T, slope S
 * after it, and B = (P - S) x (T - t0). The fit finds the break that makes the two lines fit the
 * cumulative curve best (least squares), which uses every sample instead of thresholds on noisy
 * 10 ms rates. After an idle gap, a short transfer's bytes above the sustained rate, once its
 * burst is over, are the bytes that came back (settledExcessBytes).
 */

export interface TransferFit {
  /** Rate while the bucket lasted, bits per second (the first segment's slope). */
  peakBitsPerSecond: number;
  /** Where the first segment meets zero bytes: the transfer's effective start, seconds. */
  startSeconds: number;
  /** The break between the two segments, seconds from the start of the samples. */
  breakSeconds: number;
  /** Bytes above the sustained rate: (P - S) x (T - t0); 0 without a burst. */
  excessBytes: number;
  /**
   * Samples wholly inside the first segment. With fewer than MIN_INSIDE_SAMPLES the peak is the
   * segment's slope, which averages the burst with slower samples: not a rate the link ran.
   */
  insideSamples: number;
  /**
   * Samples of the burst's window (the first segment's and the one after its break) longer than
   * STRETCHED_INTERVALS intervals: the sampler stalled there (a descheduled receiver), so the
   * break, placed on a sample's end, may be off by that sample's length.
   */
  stretchedSamples: number;
}

export interface RefillPoint {
  /** Idle time before the transfer, seconds (as measured). */
  idleSeconds: number;
  refilledBytes: number;
  /** At or near the full bucket: says only that the bucket was full by then. */
  saturated: boolean;
  /**
   * The transfer ran at the sustained rate at its end. False: it was still above it (the
   * transfer was too short for what came back), so refilledBytes is only a lower bound and the
   * line leaves the point out.
   */
  settled: boolean;
}

export interface RefillFit {
  points: RefillPoint[];
  /**
   * Bytes of bucket refilled per idle second while refilling (the slope over the unsaturated
   * points); with `bound` "at-least", a lower bound (the bucket was full at the shortest gap).
   */
  bytesPerSecond: number | null;
  bound: "measured" | "at-least";
  /**
   * Idle time before the refill shows, seconds (where the line meets zero): a shaper whose queue
   * still drains after the sender stopped refills only once the queue is empty.
   */
  delaySeconds: number;
  /** linear: the points lie on one line; stepped: they do not (refill in steps); undetermined: too few points. */
  shape: "linear" | "stepped" | "undetermined";
  /** Idle seconds until the bucket is full again (delay + bucket / rate); null when unknown. */
  fullAfterSeconds: number | null;
}

export interface BucketFit {
  direction: "upload" | "download";
  /** Rate after the burst, bits per second (settledRate after the break). */
  sustainedBitsPerSecond: number;
  /** True when the transfer ran measurably above the sustained rate at its start. */
  burst: boolean;
  /** Peak rate, bits per second (the sustained rate when there is no burst). */
  peakBitsPerSecond: number;
  /**
   * at-least: the burst ran inside too few samples, or inside one the sampler stretched over a
   * stall, to resolve its rate; the peak is then a lower bound.
   */
  peakBound: "measured" | "at-least";
  /** Bucket size: bytes above the sustained rate; 0 without a burst. */
  bucketBytes: number;
  /** How long the full bucket lasted at the peak rate, seconds. */
  burstSeconds: number;
  /** at-most with an at-least peak: the burst lasted at most this long. */
  burstSecondsBound: "measured" | "at-most";
  /** The long transfer's rate over its first second: what a tool sampling each second reports as the burst. */
  firstSecondBitsPerSecond: number | null;
  /** The long transfer's two segments (for charts). */
  transfer: TransferFit;
  /** null without a bucket, or without refill transfers. */
  refill: RefillFit | null;
}

/** A peak this far above the sustained rate is a burst (10 ms samples of a steady link vary by a few %). */
const BURST_RATE_SHARE = 0.1;
/** A burst must hold more than this many sample intervals at the sustained rate (tbf's minimum bucket is ~4 ms). */
const MIN_BURST_INTERVALS = 2;
/**
 * A burst the samples do not resolve (it lay inside a stretched sample or a few) must hold more
 * than this many seconds at the sustained rate above it. A receiver that starts its clock late
 * finds what the link delivered meanwhile in its first read, a lump above the sustained rate with
 * no bucket behind it: on the lab's flat profile at 78 Mbit/s one busy run read 0.22 MB (22 ms at
 * the sustained rate) that way, where the smallest bucket the tests replay holds 0.7 s (6.8 MB).
 */
const UNRESOLVED_MIN_SECONDS = 0.1;
/** A refill at this share of the bucket is taken as full. */
const SATURATED_SHARE = 0.85;
/** Below this share of the bucket, a refill point tells only the delay (it is mostly noise). */
const NOISE_SHARE = 0.05;
/** Relative RMS residual up to which refill points lie on one line. */
const LINEAR_RESIDUAL = 1 / 5;
/** Leave this share of the samples after the last candidate break, so the sustained segment has points. */
const TAIL_SHARE = 1 / 5;

interface Cumulative {
  seconds: number[];
  bytes: number[];
}

function cumulative(samples: IntervalSamples): Cumulative {
  const seconds: number[] = [];
  const bytes: number[] = [];
  let total = 0;
  samples.bytes.forEach((b, i) => {
    total += b;
    seconds.push((samples.startSeconds[i] ?? 0) + (samples.durationSeconds[i] ?? 0));
    bytes.push(total);
  });
  return { seconds, bytes };
}

/** Bytes per second over the samples after `fromSeconds` (measured durations). */
function rateAfter(samples: IntervalSamples, fromSeconds: number): number | null {
  return rateBetween(samples, fromSeconds, Number.POSITIVE_INFINITY);
}

/** Bytes per second over the samples that start in [fromSeconds, toSeconds) (measured durations). */
function rateBetween(samples: IntervalSamples, fromSeconds: number, toSeconds: number): number | null {
  let bytes = 0;
  let seconds = 0;
  samples.bytes.forEach((b, i) => {
    const start = samples.startSeconds[i] ?? 0;
    if (start >= fromSeconds && start < toSeconds) {
      bytes += b;
      seconds += samples.durationSeconds[i] ?? 0;
    }
  });
  return seconds > 0 ? bytes / seconds : null;
}

/**
 * The break of the two-segment fit with the second slope fixed at `sustainedBytesPerSecond`:
 * for each candidate break T (a sample end in the first 80% of the transfer), y = C - S x
 * max(0, t - T) regressed on x = min(t, T) gives the first segment (intercept a, slope P); the
 * T with the least squared error wins. Running sums make it linear in the number of samples.
 */
export function fitTransfer(samples: IntervalSamples, sustainedBytesPerSecond: number): TransferFit | null {
  const { seconds: t, bytes: c } = cumulative(samples);
  const n = t.length;
  if (n < 4) return null;
  const s = sustainedBytesPerSecond;
  // suffix sums of D = C - S t (the second segment's points, shifted by S T per candidate)
  const sufD = new Array<number>(n + 1).fill(0);
  const sufD2 = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i -= 1) {
    const d = (c[i] as number) - s * (t[i] as number);
    sufD[i] = (sufD[i + 1] as number) + d;
    sufD2[i] = (sufD2[i + 1] as number) + d * d;
  }
  let best: { sse: number; a: number; p: number; k: number } | null = null;
  let sx = 0;
  let sxx = 0;
  let sy = 0;
  let sxy = 0;
  let syy = 0;
  const lastCandidate = Math.max(1, Math.floor(n * (1 - TAIL_SHARE)) - 1);
  for (let k = 0; k <= lastCandidate; k += 1) {
    const tk = t[k] as number;
    const ck = c[k] as number;
    sx += tk;
    sxx += tk * tk;
    sy += ck;
    sxy += tk * ck;
    syy += ck * ck;
    const m = n - k - 1;
    // after the break: x = T, y = D + S T
    const yTail = (sufD[k + 1] as number) + s * tk * m;
    const y2Tail = (sufD2[k + 1] as number) + 2 * s * tk * (sufD[k + 1] as number) + m * s * s * tk * tk;
    const Sx = sx + m * tk;
    const Sxx = sxx + m * tk * tk;
    const Sy = sy + yTail;
    const Sxy = sxy + tk * yTail;
    const Syy = syy + y2Tail;
    const line = firstSegment(n, Sx, Sxx, Sy, Sxy, Syy);
    // a flat first segment is a stall (a slow start, a descheduled sender), not a burst's line
    if (line && line.p > 0 && (best === null || line.sse < best.sse)) best = { ...line, k };
  }
  if (best === null) return null;
  const breakSeconds = t[best.k] as number;
  const startSeconds = Math.min(breakSeconds, Math.max(0, -best.a / best.p));
  const excessBytes = Math.max(0, (best.p - s) * (breakSeconds - startSeconds));
  const inside = insideSamples(samples, startSeconds, breakSeconds);
  const peakBytesPerSecond = inside.length < MIN_INSIDE_SAMPLES ? best.p : pooledRate(samples, inside);
  return {
    peakBitsPerSecond: peakBytesPerSecond * 8,
    startSeconds,
    breakSeconds,
    excessBytes,
    insideSamples: inside.length,
    stretchedSamples: stretchedUpTo(samples, breakSeconds),
  };
}

/**
 * The first segment's line (intercept a, slope p) and squared error, from the regression's raw
 * sums. No bytes cross before the samples' clock starts, so the line may meet zero bytes late
 * (connect, TCP start: a < 0) but never start above it: when the free line would (a > 0), the
 * best line with a <= 0 goes through the origin. A free intercept took a burst that a stalled
 * sampler read in a few stretched samples as bytes before the start: an upload of seed-oregon
 * at 1/8 whose sender then stalled 0.3 s mid-transfer read a 7 MB bucket as a 7 MB intercept,
 * "no burst", with the break 1.6 s late.
 */
function firstSegment(
  n: number,
  Sx: number,
  Sxx: number,
  Sy: number,
  Sxy: number,
  Syy: number,
): { a: number; p: number; sse: number } | null {
  const varX = Sxx - (Sx * Sx) / n;
  if (varX > 0) {
    const cov = Sxy - (Sx * Sy) / n;
    const p = cov / varX;
    const a = (Sy - p * Sx) / n;
    if (a <= 0) return { a, p, sse: Syy - (Sy * Sy) / n - (cov * cov) / varX };
  }
  // through the origin, one sample is a line too: a burst inside the first sample
  if (!(Sxx > 0)) return null;
  const throughOrigin = Sxy / Sxx;
  return { a: 0, p: throughOrigin, sse: Syy - Sxy * throughOrigin };
}

/** A sample this many nominal intervals long or longer spans a stall of the sampler. */
const STRETCHED_INTERVALS = 2;

/** Samples that start before `breakSeconds`, or just at it, and span a stall. */
function stretchedUpTo(samples: IntervalSamples, breakSeconds: number): number {
  const interval = samples.intervalSeconds;
  return samples.durationSeconds.filter(
    (duration, i) =>
      (samples.startSeconds[i] ?? 0) < breakSeconds + interval / 2 &&
      duration >= interval * STRETCHED_INTERVALS,
  ).length;
}

/** Fewer samples inside the burst than this: its rate is the segment's slope. */
const MIN_INSIDE_SAMPLES = 3;

/** The indices of the samples wholly inside [from, to]. */
function insideSamples(samples: IntervalSamples, from: number, to: number): number[] {
  const inside: number[] = [];
  samples.bytes.forEach((_, i) => {
    const start = samples.startSeconds[i] ?? 0;
    const duration = samples.durationSeconds[i] ?? 0;
    if (start >= from && start + duration <= to && duration > 0) inside.push(i);
  });
  return inside;
}

/**
 * The peak as the link ran it: the bytes over the seconds of the samples inside the burst, the
 * transfer's first sample (connect, TCP start) and the last inside one (the break lies on a sample
 * end, often the one after the burst ended) left out while two stay. The slope of the first
 * segment also spans that first, slower sample: on a 4,000 Mbit/s lab peak it read 3,835. Not the
 * median of the samples' rates: a busy host moves bytes between neighbouring samples (a table
 * read late, a receive lump), so single 10-30 ms samples read 270-826 Mbit/s through a 500
 * Mbit/s shaper beside two busy loops, and their median 507-532; pooled, what one sample gains
 * its neighbour loses, and the same bursts read 497-498 (2026-12-07).
 */
function pooledRate(samples: IntervalSamples, inside: readonly number[]): number {
  const trimmed = inside.filter((i) => i !== 0).slice(0, -1);
  const used = trimmed.length >= 2 ? trimmed : inside;
  const bytes = used.reduce((sum, i) => sum + (samples.bytes[i] ?? 0), 0);
  const seconds = used.reduce((sum, i) => sum + (samples.durationSeconds[i] ?? 0), 0);
  return bytes / seconds;
}

/** Rounds of sustained rate and break, at most: each moves the break toward the burst's end. */
const SETTLING_ROUNDS = 4;

/**
 * The sustained rate after the burst and the fit with it (settledRate: the count's lags after the
 * burst are not read as rate): first the rate over the second half of the transfer (past any
 * burst the probe is built to outlast), then the rate after the break that rate gives, until the
 * break stays put. One round was not always enough: a sender stalled 0.5 s at 1 s caught up in
 * the second half, which read 104 Mbit/s on a 78 link; the break that rate gave lay inside the
 * burst, and the rate after it, 87, held the burst's end.
 */
function sustainedAndFit(samples: IntervalSamples): { sustained: number; fit: TransferFit } | null {
  let sustained = settledRate(samples, transferEnd(samples) / 2);
  if (sustained === null || !(sustained > 0)) return null;
  let fit = fitTransfer(samples, sustained);
  if (!fit) return null;
  for (let round = 1; round < SETTLING_ROUNDS; round += 1) {
    const settled = settledRate(samples, fit.breakSeconds + samples.intervalSeconds);
    const next = settled === null ? null : fitTransfer(samples, settled);
    if (settled === null || next === null) break;
    const moved = next.breakSeconds !== fit.breakSeconds;
    sustained = settled;
    fit = next;
    if (!moved) break;
  }
  return { sustained, fit };
}

/**
 * A token bucket runs dry at the break: from there the link carries the sustained rate, below
 * the peak, in every part of what follows. A slowdown after the break leaves a part at the peak:
 * a flat link whose sender was held off the CPU for 0.14 s in the last 0.25 s of a 2 s transfer
 * (quiet run, 2026-12-07) fitted its break before the stall, read 62.3 Mbit/s after it and 78.0
 * before, and called that a 3.25 MB bucket; with the stall in the first half after the break, the
 * second half runs at the peak again. So when either half after the break runs within
 * BURST_RATE_SHARE of the peak, no bucket ran dry there: no burst, and the sustained rate stays the
 * lower one the fit read (never one with a burst in it). A stall in a real bucket's tail only
 * lowers a half, which stays far under the peak.
 */
function ranDryAtBreak(samples: IntervalSamples, fit: TransferFit): boolean {
  const middle = (fit.breakSeconds + transferEnd(samples)) / 2;
  const halves = [
    rateBetween(samples, fit.breakSeconds, middle),
    rateBetween(samples, middle, Number.POSITIVE_INFINITY),
  ];
  const peak = fit.peakBitsPerSecond / 8;
  return halves.every((rate) => rate === null || rate * (1 + BURST_RATE_SHARE) < peak);
}

/** A burst's figures as the fit reports them, each with how far the samples resolve it. */
interface Burst {
  peakBitsPerSecond: number;
  peakBound: BucketFit["peakBound"];
  bucketBytes: number;
  burstSeconds: number;
  burstSecondsBound: BucketFit["burstSecondsBound"];
}

function isBurst(
  peakBitsPerSecond: number,
  excessBytes: number,
  sustainedBytesPerSecond: number,
  intervalSeconds: number,
): boolean {
  return (
    peakBitsPerSecond / 8 > sustainedBytesPerSecond * (1 + BURST_RATE_SHARE) &&
    excessBytes > sustainedBytesPerSecond * intervalSeconds * MIN_BURST_INTERVALS
  );
}

/**
 * The burst of the long transfer. Resolved when the two-segment fit finds one with enough
 * samples inside it and none stretched over a stall. When it does not, the samples may still
 * hold a burst the fit cannot place: a receiver descheduled at the start reads the whole burst in
 * one sample the sampler stretched over the stall (its bytes crossed the link inside it), and the
 * fit's line, which a free intercept let take that lump as bytes before the start ("no burst"),
 * now holds a slope averaged with the stall (a 454 Mbit/s peak read 223-334 in simulation, and a
 * 6.8 MB bucket 5.2 with a stall inside the burst). A download's bytes above the sustained
 * rate, once its leading fast samples are over, are then the bucket at any sampling
 * (burst-figures.ts), with the peak bounded from below when the samples cannot resolve it. An
 * upload's samples count what the peer acknowledged, read from the kernel's table at most every
 * 5 ms, which moves bytes between neighbouring samples: one busy run read 2.8 MB in 19 ms
 * (1,185 Mbit/s through a 454 Mbit/s shaper), so an upload's fastest sample bounds nothing, and
 * an upload keeps the fit's verdict, its peak (the pooled rate of the samples inside its first line,
 * or with fewer than three the line's slope) as a lower bound. Either way a
 * burst the samples do not resolve must hold more than UNRESOLVED_MIN_SECONDS at the sustained
 * rate: less is what a receiver that started late reads.
 *
 * And any burst must still be there at the transfer's end: bytes above what the sustained rate
 * carries from the samples' start (settledExcessBytes), more than UNRESOLVED_MIN_SECONDS' worth.
 * A bucket's bytes stay above that line for good; a count that fell behind and caught up (a
 * receiver that read a tenth of what crossed for 0.3 s, then its backlog at 1.5x the link) ends
 * on it, though its line from a late start to the catch-up looks like a burst (117 Mbit/s over
 * 78 and 1.7 MB in simulation; 159.8 and 1.80 MB on the lab's flat profile in a busy run).
 */
function longTransferBurst(
  measurement: BucketMeasurement,
  transfer: BucketTransfer,
  fit: TransferFit,
  sustained: number,
): Burst | null {
  const { samples } = transfer;
  const telling = (excessBytes: number) => excessBytes > sustained * UNRESOLVED_MIN_SECONDS;
  if (!telling(settledExcessBytes(samples, sustained, transfer.bytesBeforeStart ?? 0) ?? 0)) return null;
  const fitBurst = isBurst(fit.peakBitsPerSecond, fit.excessBytes, sustained, samples.intervalSeconds);
  const segment = {
    peakBitsPerSecond: fit.peakBitsPerSecond,
    bucketBytes: fit.excessBytes,
    burstSeconds: fit.breakSeconds - fit.startSeconds,
  };
  if (fitBurst && fit.insideSamples >= MIN_INSIDE_SAMPLES && fit.stretchedSamples === 0)
    return { ...segment, peakBound: "measured", burstSecondsBound: "measured" };
  const leading = measurement.direction === "download" ? leadingBurstFigures(samples, sustained) : null;
  if (
    leading &&
    isBurst(leading.peakBitsPerSecond, leading.excessBytes, sustained, samples.intervalSeconds) &&
    telling(leading.excessBytes)
  )
    return {
      peakBitsPerSecond: leading.peakBitsPerSecond,
      peakBound: leading.peakBound,
      bucketBytes: leading.excessBytes,
      burstSeconds: leading.seconds,
      burstSecondsBound: leading.secondsBound,
    };
  return fitBurst && telling(fit.excessBytes)
    ? { ...segment, peakBound: "at-least", burstSecondsBound: "at-most" }
    : null;
}

/** Fits one bucket measurement; null when the long transfer has too few samples to fit. */
export function fitBucket(measurement: BucketMeasurement): BucketFit | null {
  const [first, ...refills] = measurement.transfers;
  if (!first) return null;
  const fitted = sustainedAndFit(first.samples);
  if (!fitted) return null;
  const { sustained, fit } = fitted;
  const burst = ranDryAtBreak(first.samples, fit)
    ? longTransferBurst(measurement, first, fit, sustained)
    : null;
  const early = burst
    ? beforeStart(first.bytesBeforeStart ?? 0, sustained, burst.peakBitsPerSecond / 8)
    : null;
  const bucketBytes = burst && early ? burst.bucketBytes + early.excessBytes : 0;
  const refillPoints = refills.flatMap((transfer): RefillPoint[] => {
    const refilled = settledExcessBytes(transfer.samples, sustained, transfer.bytesBeforeStart ?? 0);
    if (refilled === null || transfer.idleSeconds === null) return [];
    const endRate = rateAfter(transfer.samples, transferEnd(transfer.samples) * (1 - SETTLED_SHARE));
    return [
      {
        idleSeconds: transfer.idleSeconds,
        refilledBytes: refilled,
        saturated: refilled >= bucketBytes * SATURATED_SHARE,
        settled: endRate === null || endRate <= sustained * (1 + BURST_RATE_SHARE),
      },
    ];
  });
  return {
    direction: measurement.direction,
    sustainedBitsPerSecond: sustained * 8,
    burst: burst !== null,
    peakBitsPerSecond: burst?.peakBitsPerSecond ?? sustained * 8,
    peakBound: burst?.peakBound ?? "measured",
    bucketBytes,
    burstSeconds: burst && early ? burst.burstSeconds + early.seconds : 0,
    burstSecondsBound: burst?.burstSecondsBound ?? "measured",
    firstSecondBitsPerSecond: firstSecondRate(first.samples),
    transfer: fit,
    refill: burst && refillPoints.length > 0 ? fitRefill(refillPoints, bucketBytes) : null,
  };
}

/**
 * The burst's part before the long transfer's samples began (`bytesBeforeStart`), which the fit
 * of the samples misses: 0.81 MB arrived before a late mark, and a 7.2 MB bucket read 6.71. The
 * bucket was full, so those bytes came at the peak, over before / peak seconds, in which the
 * sustained rate carries sustained x that; the rest is bucket.
 */
function beforeStart(
  beforeBytes: number,
  sustained: number,
  peakBytesPerSecond: number,
): { excessBytes: number; seconds: number } {
  if (!(peakBytesPerSecond > sustained)) return { excessBytes: 0, seconds: 0 };
  const seconds = beforeBytes / peakBytesPerSecond;
  return { excessBytes: beforeBytes - sustained * seconds, seconds };
}

/** The share of a refill transfer, at its end, over which its excess is read (its burst is long over). */
const SETTLED_SHARE = 1 / 4;

/**
 * Bytes a refill transfer carried above the sustained rate once its burst was over: the median,
 * over the samples that end in its last quarter, of cumulative bytes - sustained x time (never
 * below 0). The two-segment fit needs samples inside the burst, and a refill after a short gap
 * often lies wholly inside the transfer's first sample, whose length varies with the host: on
 * the lab, under load, 18 MB back after 0.25 s read 0-14 MB by the fit, 17-18 MB this way.
 *
 * The bytes that arrived before the samples began (`beforeBytes`, up to 0.81 MB of a 7.2 MB
 * bucket) count: left out, a refill point read low by what a late start mark happened to miss.
 * Time still counts from the mark, which is that lead later than the link's start, and the idle
 * time before it is that lead longer; so the point moves by the lead along a line of the
 * sustained rate's slope, which is the refill's own where tokens accrue at the sustained rate
 * (tbf), and off the line by (refill - sustained) x the lead (milliseconds) elsewhere.
 */
function settledExcessBytes(
  samples: IntervalSamples,
  sustainedBytesPerSecond: number,
  beforeBytes = 0,
): number | null {
  const { seconds, bytes } = cumulative(samples);
  const end = transferEnd(samples);
  if (seconds.length < 4) return null;
  const excess = seconds
    .map((t, i) => ({ t, excess: beforeBytes + (bytes[i] as number) - sustainedBytesPerSecond * t }))
    .filter((point) => point.t >= end * (1 - SETTLED_SHARE))
    .map((point) => point.excess);
  return Math.max(0, median(excess));
}

/** End of the last sample, seconds from the start of the samples (0 without samples). */
function transferEnd(samples: IntervalSamples): number {
  const last = samples.startSeconds.length - 1;
  return last < 0 ? 0 : (samples.startSeconds[last] as number) + (samples.durationSeconds[last] as number);
}

/** Rate over the samples that start in the first second (null for a transfer shorter than one second). */
function firstSecondRate(samples: IntervalSamples): number | null {
  let bytes = 0;
  let seconds = 0;
  samples.bytes.forEach((b, i) => {
    if ((samples.startSeconds[i] ?? 0) < 1) {
      bytes += b;
      seconds += samples.durationSeconds[i] ?? 0;
    }
  });
  return seconds >= 1 ? (bytes * 8) / seconds : null;
}

/**
 * Refill = r x (idle - delay), up to the bucket. The line is fitted (least squares) to the
 * points between noise and saturation; with one such point it goes through the last point the
 * refill had not shown at (or the origin). All points saturated: r is at least bucket / the
 * shortest idle time.
 */
export function fitRefill(points: RefillPoint[], bucketBytes: number): RefillFit {
  const rising = points.filter(
    (p) => !p.saturated && p.settled && p.refilledBytes >= bucketBytes * NOISE_SHARE,
  );
  const shortest = Math.min(...points.map((p) => p.idleSeconds));
  if (rising.length === 0) {
    const allFull = points.every((p) => p.saturated);
    const rate = allFull ? bucketBytes / shortest : null;
    return {
      points,
      bytesPerSecond: rate,
      bound: "at-least",
      delaySeconds: 0,
      shape: "undetermined",
      fullAfterSeconds: allFull ? shortest : null,
    };
  }
  const line = rising.length >= 2 ? leastSquares(rising) : null;
  let rate: number;
  let delay: number;
  if (line && line.slope > 0 && line.intercept <= 0) {
    rate = line.slope;
    delay = -line.intercept / line.slope;
  } else {
    // through the origin: a line whose intercept is above zero would refill before any idle time
    rate =
      rising.reduce((sum, p) => sum + p.idleSeconds * p.refilledBytes, 0) /
      rising.reduce((sum, p) => sum + p.idleSeconds ** 2, 0);
    delay = 0;
  }
  const residuals = rising.map((p) => p.refilledBytes - rate * (p.idleSeconds - delay));
  const meanRefill = rising.reduce((sum, p) => sum + p.refilledBytes, 0) / rising.length;
  const rms = Math.sqrt(residuals.reduce((sum, r) => sum + r * r, 0) / rising.length);
  // two points always lie on a line: linearity needs a third
  const shape =
    rising.length < 3 ? "undetermined" : rms / meanRefill <= LINEAR_RESIDUAL ? "linear" : "stepped";
  return {
    points,
    bytesPerSecond: rate,
    bound: "measured",
    delaySeconds: delay,
    shape,
    fullAfterSeconds: rate > 0 ? delay + bucketBytes / rate : null,
  };
}

function leastSquares(points: RefillPoint[]): { slope: number; intercept: number } | null {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.idleSeconds, 0) / n;
  const my = points.reduce((s, p) => s + p.refilledBytes, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.idleSeconds - mx) ** 2, 0);
  if (!(sxx > 0)) return null;
  const sxy = points.reduce((s, p) => s + (p.idleSeconds - mx) * (p.refilledBytes - my), 0);
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}
