import type { IntervalSamples } from "./interval-sampler.js";

/**
 * The figures every probe reports in the same shape, whatever its own detailed output.
 * The runner records these; reports and statistics read only these.
 * Raw units only (bytes, seconds, bits per second); Mbit/s is for presentation.
 */
export interface ProbeSummary {
  /** Bytes moved in the measured period (received for downloads, sent for uploads, both for bidir). */
  bytes: number;
  /** Length of the measured period. */
  seconds: number;
  bitsPerSecond: number;
  /** user + system CPU of the probe's process during the probe. */
  cpuSeconds: number;
  /** TCP retransmits of the network namespace during the probe; null where unknown. */
  retransmits: number | null;
  /** Requests or connections retried after a transient failure. */
  retries: number;
  direction: "upload" | "download" | "bidir" | "none";
  samples: IntervalSamples;
}

export function bitsPerSecond(bytes: number, seconds: number): number {
  return seconds > 0 ? (bytes * 8) / seconds : 0;
}
