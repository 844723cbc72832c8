import { type BurstAnalysis, type BurstWindow, detectBurst } from "./burst-detection.js";
import { receivedSide, sentSide, wholeDownloadSeconds } from "./record-sides.js";
import type { ResultRecord } from "./result-record.js";
import { intervalRates, normalizeSamples } from "./samples.js";

/** The rates and times one invocation achieved (bits per second, seconds). Pure. */
export interface RecordRates {
  /** Whole transfer: the record's bytes / measured seconds ("effective"). */
  effectiveBitsPerSecond: number;
  /** The burst detected at the start (rate, seconds, bytes); null when none or undetermined. */
  burst: BurstWindow | null;
  burstFound: BurstAnalysis["burstFound"];
  /** Bytes over time after the burst; null with the reason when there is no sustained part. */
  sustainedBitsPerSecond: number | null;
  /** Median of the interval rates after the burst: a diagnostic beside the sustained rate. */
  sustainedMedianBitsPerSecond: number | null;
  sustainedNullReason: string | null;
  /** Whether the sustained rate was checked against the ceiling in force (burst-detection.ts, rule 7). */
  ceilingCheck: BurstAnalysis["ceilingCheck"];
  insideBurst: BurstAnalysis["insideBurst"];
  /** iperf3 sum_sent / sum_received rates (schemaVersion 2); null when absent. */
  sentBitsPerSecond: number | null;
  receivedBitsPerSecond: number | null;
  /** The probe's measured period (s3-get: the transfer alone). */
  transferSeconds: number | null;
  /** s3-get: the whole download as the seed timed it; null when absent. */
  wholeSeconds: number | null;
  /** Client CPU seconds per second of test: cores the probe kept busy. */
  cpuCores: number | null;
}

/**
 * Rates of a successful measuring record; null for failures and probes that move no data (info).
 * `ceilingBitsPerSecond`: the payload limit in force for the record's cell (`ceiling.ts`); null
 * when none is known, and the sustained rate is then unconfirmed.
 */
export function recordRates(
  record: ResultRecord,
  ceilingBitsPerSecond: number | null = null,
): RecordRates | null {
  if (!record.ok || record.bitsPerSecond === null) return null;
  const analysis = detectBurst(normalizeSamples(record.samples), ceilingBitsPerSecond);
  return {
    effectiveBitsPerSecond: record.bitsPerSecond,
    burst: analysis.burst,
    burstFound: analysis.burstFound,
    sustainedBitsPerSecond: analysis.sustainedBitsPerSecond,
    sustainedMedianBitsPerSecond: analysis.sustainedMedianBitsPerSecond,
    sustainedNullReason: analysis.sustainedNullReason,
    ceilingCheck: analysis.ceilingCheck,
    insideBurst: analysis.insideBurst,
    sentBitsPerSecond: sentSide(record)?.bitsPerSecond ?? null,
    receivedBitsPerSecond: receivedSide(record)?.bitsPerSecond ?? null,
    transferSeconds: record.seconds,
    wholeSeconds: wholeDownloadSeconds(record),
    cpuCores:
      record.cpuSeconds !== null && record.seconds !== null && record.seconds > 0
        ? record.cpuSeconds / record.seconds
        : null,
  };
}

/** Time series of one record: measured start of each interval (s) and its rate (bit/s); slivers left out. */
export function intervalSeries(samples: unknown): Array<{ startSeconds: number; bitsPerSecond: number }> {
  return intervalRates(normalizeSamples(samples)).map((r) => ({
    startSeconds: r.startSeconds,
    bitsPerSecond: r.bitsPerSecond,
  }));
}
