import type { IntervalSamples } from "../probes/interval-sampler.js";
import type { ResultRecord } from "./result-record.js";
import { median } from "./statistics.js";

/** The rates one invocation achieved, bits per second. Pure. */
export interface RecordRates {
  /** Whole test: bytes / measured seconds. */
  averageBitsPerSecond: number;
  /** The first second of the transfer; null when the test lasted under a second. */
  burstBitsPerSecond: number | null;
  /** Median of the per-interval rates after the first second; null when nothing came after it. */
  sustainedBitsPerSecond: number | null;
  /** Client CPU seconds per second of test: cores the probe kept busy. */
  cpuCores: number | null;
}

export const burstSeconds = 1;

/** Rates of a successful measuring record; null for failures and probes that move no data (info). */
export function recordRates(record: ResultRecord): RecordRates | null {
  if (!record.ok || record.bitsPerSecond === null) return null;
  const intervals = intervalRates(record.samples);
  return {
    averageBitsPerSecond: record.bitsPerSecond,
    burstBitsPerSecond: intervals.burst,
    sustainedBitsPerSecond: intervals.sustained,
    cpuCores:
      record.cpuSeconds !== null && record.seconds !== null && record.seconds > 0
        ? record.cpuSeconds / record.seconds
        : null,
  };
}

/** Time series of one record: measured start of each interval (s) and its rate (bit/s); slivers left out. */
export function intervalSeries(
  samples: IntervalSamples | null,
): Array<{ startSeconds: number; bitsPerSecond: number }> {
  if (!samples || samples.bytes.length === 0 || !(samples.intervalSeconds > 0)) return [];
  const series: Array<{ startSeconds: number; bitsPerSecond: number }> = [];
  samples.bytes.forEach((bytes, index) => {
    const seconds = samples.durationSeconds[index] ?? 0;
    // a sliver of an interval gives a wild rate from a handful of bytes
    if (seconds < samples.intervalSeconds / 2) return;
    series.push({ startSeconds: samples.startSeconds[index] ?? 0, bitsPerSecond: (bytes * 8) / seconds });
  });
  return series;
}

function intervalRates(samples: IntervalSamples | null): { burst: number | null; sustained: number | null } {
  if (!samples || !(samples.intervalSeconds > 0)) return { burst: null, sustained: null };
  const perBurst = Math.max(1, Math.round(burstSeconds / samples.intervalSeconds));
  const series = intervalSeries(samples);
  const full = series.filter((point) => point.startSeconds < burstSeconds - 1e-9);
  let burst: number | null = null;
  if (samples.bytes.length >= perBurst && full.length === perBurst) {
    const bytes = samples.bytes.slice(0, perBurst).reduce((sum, b) => sum + b, 0);
    burst = (bytes * 8) / (perBurst * samples.intervalSeconds);
  }
  const after = series
    .filter((point) => point.startSeconds >= burstSeconds - 1e-9)
    .map((p) => p.bitsPerSecond);
  return { burst, sustained: after.length > 0 ? median(after) : null };
}
