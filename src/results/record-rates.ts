import { type BurstAnalysis, type BurstWindow, detectBurst } from "./burst-detection.js";
import { receivedSide, sentSide, wholeDownloadSeconds } from "./record-sides.js";
import type { ResultRecord } from "./result-record.js";
import { type IntervalSamples, intervalRates, normalizeSamples } from "./samples.js";

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
  /** Client CPU seconds per second of test: cores the probe kept busy (over `cpuMeasuredSeconds`). */
  cpuCores: number | null;
  /**
   * Seconds of the measured period after the last sample ended: time the average includes while
   * nothing moved (s3-put: CompleteMultipartUpload's answer, 2.4-2.7 s for 1 GiB on the lab);
   * null without samples.
   */
  afterLastByteSeconds: number | null;
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
  const samples = normalizeSamples(record.samples);
  const analysis = detectBurst(samples, ceilingBitsPerSecond);
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
    cpuCores: cpuCoresOf(record),
    afterLastByteSeconds: afterLastByte(record.seconds, samples),
  };
}

function afterLastByte(seconds: number | null, samples: IntervalSamples | null): number | null {
  const last = samples ? samples.bytes.length - 1 : -1;
  if (seconds === null || !samples || last < 0) return null;
  const sampledEnd = (samples.startSeconds[last] ?? 0) + (samples.durationSeconds[last] ?? 0);
  return Math.max(0, seconds - sampledEnd);
}

/**
 * The measured seconds a record's CPU seconds were spent over. A bucket probe's CPU covers
 * every transfer of its schedule, so it goes over the sum of their measured periods, not the
 * long transfer's alone (all eight transfers' CPU over the first one's 5 s read 0.95 cores where
 * it was 4.92 CPU-seconds in 19.0 s, 0.26). Not the probe's wall time either: it sleeps through
 * the idle gaps between transfers, so over them the cores it kept busy while moving data would
 * read low. Every other probe: its measured period (for both, the CPU clock also covers each
 * test's set-up, which is mostly waiting).
 */
function cpuMeasuredSeconds(record: ResultRecord): number | null {
  const transfers = record.bucket?.measurement.transfers;
  if (transfers && transfers.length > 0)
    return transfers.reduce(
      (sum, transfer) => sum + transfer.samples.durationSeconds.reduce((s, d) => s + d, 0),
      0,
    );
  return record.seconds;
}

function cpuCoresOf(record: ResultRecord): number | null {
  const seconds = cpuMeasuredSeconds(record);
  return record.cpuSeconds !== null && seconds !== null && seconds > 0 ? record.cpuSeconds / seconds : null;
}

/** Time series of one record: measured start of each interval (s) and its rate (bit/s); slivers left out. */
export function intervalSeries(samples: unknown): Array<{ startSeconds: number; bitsPerSecond: number }> {
  return intervalRates(normalizeSamples(samples)).map((r) => ({
    startSeconds: r.startSeconds,
    bitsPerSecond: r.bitsPerSecond,
  }));
}
