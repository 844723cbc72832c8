import type { IntervalSamples } from "../interval-sampler.js";

/** The server samples what it counted once a second, as `iperf3 -s` reports. */
export const SERVER_SAMPLE_INTERVAL_MS = 1_000;

/**
 * One line per measured interval in iperf3's text style, with the interval's own measured
 * start and end (a late timer shows as a longer interval, never as a zero and a double).
 */
export function formatServerIntervals(samples: IntervalSamples): string[] {
  return samples.bytes.map((bytes, index) => {
    const start = samples.startSeconds[index] ?? 0;
    const seconds = samples.durationSeconds[index] ?? 0;
    const megabytes = bytes / 1_048_576;
    const mbits = seconds > 0 ? (bytes * 8) / seconds / 1e6 : 0;
    return `[SUM] ${start.toFixed(3)}-${(start + seconds).toFixed(3)} sec ${megabytes.toFixed(2)} MBytes ${mbits.toFixed(1)} Mbits/sec`;
  });
}
