import { type BucketFit, fitBucket } from "./bucket-fit.js";
import { ABOVE_SHARE, endOf, leadingBurstFigures, rateOf } from "./burst-figures.js";
import type { MeasuredSeries } from "./measured-series.js";
import { describe, median, type Spread } from "./statistics.js";

/**
 * The bucket probe's model (bucket-fit.ts) fitted to a transfer measured elsewhere, saying what
 * its sampling can resolve. Pure.
 *
 * The sustained rate is the probe's (the two-segment fit's break, then the rate after it). The
 * bucket (bytes above the sustained rate) is measurable at any interval: once the burst is over,
 * cumulative bytes - sustained x time stays at the bucket (the median over the samples after the
 * leading ones that ran above the sustained rate; the probe reads its refill points the same
 * way). The peak is measurable only when samples lie wholly inside the burst: the leading
 * samples but the first (connect and TCP start) and the last (the burst ends inside it), at
 * least RESOLVING_SAMPLES of them (the number the probe's fit wants for its peak); their median
 * is the peak and bucket / (peak - sustained) the burst's length. The two-segment fit's own
 * break lies on a sample's end, which at 250 ms read a 35 MB bucket as 31.5 and a 600 Mbit/s
 * peak as 524. With fewer, the burst ended inside the first few samples, which average it with
 * what followed: the peak is at least the fastest of their rates, and the burst lasted at most
 * bucket / (that rate - sustained): bounds, never a figure the samples do not hold. The bucket,
 * peak and length are read by burst-figures.ts, as for every record's burst.
 */

export type Bounded<B extends string> = { value: number; bound: "measured" | B };

export interface SeriesFit {
  label: string;
  direction: MeasuredSeries["direction"];
  counted: MeasuredSeries["counted"];
  streams: number | null;
  /** The samples' median length, seconds. */
  intervalSeconds: number;
  sampleCount: number;
  /** End of the last sample, seconds. */
  durationSeconds: number;
  sustainedBitsPerSecond: number;
  burst: boolean;
  /** Bytes above the sustained rate; 0 without a burst. */
  bucketBytes: number;
  /** null without a burst. */
  peakBitsPerSecond: Bounded<"at-least"> | null;
  /** How long the full bucket lasted at the peak; null without a burst. */
  burstSeconds: Bounded<"at-most"> | null;
  /** The first sample's rate and the first second's (what a 1 s sampler shows as the burst). */
  firstSampleBitsPerSecond: number;
  firstSecondBitsPerSecond: number | null;
  /** Samples (from the first) the burst ran in, when it was not resolved. */
  burstSamples: number;
  /** The probe's own fit of the same samples (its two segments), for reference and charts. */
  probeFit: BucketFit;
}

/** The fit of one transfer; null when it has too few samples (4) or no rate after its start. */
export function fitSeries(series: MeasuredSeries): SeriesFit | null {
  const { samples } = series;
  const probeFit = fitBucket({
    direction: series.direction ?? "upload",
    parallel: series.streams ?? 1,
    transfers: [{ gapSeconds: null, idleSeconds: null, samples }],
  });
  if (!probeFit) return null;
  const n = samples.bytes.length;
  const sustained = probeFit.sustainedBitsPerSecond / 8;
  const common = {
    label: series.label,
    direction: series.direction,
    counted: series.counted,
    streams: series.streams,
    intervalSeconds: samples.intervalSeconds,
    sampleCount: n,
    durationSeconds: endOf(samples, n - 1),
    sustainedBitsPerSecond: probeFit.sustainedBitsPerSecond,
    firstSampleBitsPerSecond: rateOf(samples, 0) * 8,
    firstSecondBitsPerSecond: probeFit.firstSecondBitsPerSecond,
    probeFit,
  };
  const figures = leadingBurstFigures(samples, sustained);
  if (!figures)
    return {
      ...common,
      burst: false,
      bucketBytes: 0,
      peakBitsPerSecond: null,
      burstSeconds: null,
      burstSamples: 0,
    };
  return {
    ...common,
    burst: true,
    bucketBytes: figures.excessBytes,
    peakBitsPerSecond: { value: figures.peakBitsPerSecond, bound: figures.peakBound },
    burstSeconds: { value: figures.seconds, bound: figures.secondsBound },
    burstSamples: figures.burstSamples,
  };
}

export interface SeriesModel {
  direction: MeasuredSeries["direction"];
  /** Transfers fitted. */
  n: number;
  burstFound: number;
  intervalSeconds: Spread;
  sustainedBitsPerSecond: Spread;
  /** Over the transfers with a burst. */
  bucketBytes: Spread | null;
  /** Measured where any transfer resolved it (over those), else the bounds. */
  peakBitsPerSecond: { spread: Spread; bound: "measured" | "at-least" } | null;
  burstSeconds: { spread: Spread; bound: "measured" | "at-most" } | null;
  firstSampleBitsPerSecond: Spread;
  firstSecondBitsPerSecond: Spread | null;
  /** Which side counted the bytes, when every file says the same. */
  counted: MeasuredSeries["counted"];
  /** The original's probe settings, for a replay: streams, interval and length (medians). */
  replay: { streams: number; intervalSeconds: number; durationSeconds: number };
  /** What the sampling cannot resolve, and what would, in words. */
  limits: string[];
}

function bounded<B extends "at-least" | "at-most">(
  values: Array<Bounded<B> | null>,
  bound: B,
): { spread: Spread; bound: "measured" | B } | null {
  const present = values.filter((v): v is Bounded<B> => v !== null);
  const measured = present.filter((v) => v.bound === "measured");
  const chosen = measured.length > 0 ? measured : present;
  const spread = describe(chosen.map((v) => v.value));
  return spread ? { spread, bound: measured.length > 0 ? "measured" : bound } : null;
}

const mbps = (bitsPerSecond: number) => Math.round(bitsPerSecond / 1e6).toLocaleString("en-US");
const secondsText = (seconds: number) =>
  seconds >= 1 ? `${seconds.toFixed(2)} s` : `${Math.round(seconds * 1000)} ms`;

/** One direction's model over its transfers (all of one direction); null without any. */
export function summarizeSeriesFits(fits: readonly SeriesFit[]): SeriesModel | null {
  const first = fits[0];
  if (!first) return null;
  const bursts = fits.filter((f) => f.burst);
  const spread = (values: number[]) => describe(values) as Spread;
  const peak = bounded(
    bursts.map((f) => f.peakBitsPerSecond),
    "at-least",
  );
  const burstSeconds = bounded(
    bursts.map((f) => f.burstSeconds),
    "at-most",
  );
  const intervalSeconds = spread(fits.map((f) => f.intervalSeconds));
  const counted = fits.every((f) => f.counted === first.counted) ? first.counted : null;
  const limits: string[] = [];
  const interval = secondsText(intervalSeconds.median);
  if (bursts.length > 0 && peak?.bound === "at-least") {
    limits.push(
      `At ${interval} samples the burst ended inside the first ${Math.max(...bursts.map((f) => f.burstSamples))} sample(s): ` +
        `the sustained rate and the bucket are measured, the peak and the burst's length are not. The peak was at least ` +
        `${mbps(peak.spread.max)} Mbit/s and the burst lasted at most ${secondsText(burstSeconds?.spread.min ?? 0)}; ` +
        `samples of at most a fifth of the burst's length resolve them (iperf3 -i 0.1 is the shortest stock iperf3 takes).`,
    );
  }
  if (bursts.length === 0)
    limits.push(
      `No burst: no sample ran measurably above the sustained rate at the start. A burst shorter than about ` +
        `${Math.round(ABOVE_SHARE * 100)}% of the first ${interval} sample would not show.`,
    );
  if (counted === "sender")
    limits.push(
      "The sending side counted these bytes (iperf3 without -R): a sender counts what its kernel accepted, so the first " +
        "samples can run ahead of the link by a socket buffer; the receiving side's count (-R, or the server's) is the link's.",
    );
  return {
    direction: first.direction,
    n: fits.length,
    burstFound: bursts.length,
    intervalSeconds,
    sustainedBitsPerSecond: spread(fits.map((f) => f.sustainedBitsPerSecond)),
    bucketBytes: describe(bursts.map((f) => f.bucketBytes)),
    peakBitsPerSecond: peak,
    burstSeconds,
    firstSampleBitsPerSecond: spread(fits.map((f) => f.firstSampleBitsPerSecond)),
    firstSecondBitsPerSecond: describe(
      fits.flatMap((f) => (f.firstSecondBitsPerSecond === null ? [] : [f.firstSecondBitsPerSecond])),
    ),
    counted,
    replay: {
      streams: Math.round(median(fits.map((f) => f.streams ?? 1))),
      intervalSeconds: intervalSeconds.median,
      durationSeconds: median(fits.map((f) => f.durationSeconds)),
    },
    limits,
  };
}

/** Fits grouped by direction (upload, download, then unstated), one model each. */
export function seriesModels(fits: readonly SeriesFit[]): SeriesModel[] {
  return (["upload", "download", null] as const).flatMap((direction) => {
    const model = summarizeSeriesFits(fits.filter((f) => f.direction === direction));
    return model ? [model] : [];
  });
}
