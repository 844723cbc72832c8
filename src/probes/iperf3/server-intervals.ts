import type { IntervalSamples } from "../interval-sampler.js";

/** The server samples what it counted once a second, as `iperf3 -s` reports. */
export const SERVER_SAMPLE_INTERVAL_MS = 1_000;

/**
 * One line per interval in iperf3's text style, with the interval's own measured start and end
 * (a late timer shows as a longer interval, never as a zero and a double). The omit period's
 * intervals end in "(omitted)", as the C server prints them; the measured ones start again at 0.
 */
export function formatServerIntervals(samples: IntervalSamples, omitted = false): string[] {
  const suffix = omitted ? "  (omitted)" : "";
  return samples.bytes.map((bytes, index) => {
    const start = samples.startSeconds[index] ?? 0;
    const seconds = samples.durationSeconds[index] ?? 0;
    const megabytes = bytes / 1_048_576;
    const mbits = seconds > 0 ? (bytes * 8) / seconds / 1e6 : 0;
    return `[SUM] ${start.toFixed(3)}-${(start + seconds).toFixed(3)} sec ${megabytes.toFixed(2)} MBytes ${mbits.toFixed(1)} Mbits/sec${suffix}`;
  });
}
