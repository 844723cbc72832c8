import type { BucketMeasurement } from "./bucket/measurement.js";
import type { IntervalSamples } from "./interval-sampler.js";
import type { LatencyMeasurement } from "./latency/measurement.js";

/**
 * The words for what a probe measured, used the same way everywhere: the `summary` is the one
 * shape every probe reports (ProbeSummary); a `side` is the sender's or the receiver's half of a
 * transfer (SentSide, ReceivedSide; results/record-sides.ts reads them back from a record); the
 * iperf3 `breakdown` is the per-stream and per-interval sums behind its sides.
 */

/** Sender side of a transfer: iperf3's end.sum_sent, or what s3-put sent. */
export interface SentSide {
  bytes: number;
  seconds: number;
  bitsPerSecond: number;
  /** Sender's TCP retransmits; null where unknown. */
  retransmits: number | null;
}

/** Receiver side of a transfer: iperf3's end.sum_received. */
export interface ReceivedSide {
  bytes: number;
  seconds: number;
  bitsPerSecond: number;
}

/**
 * The compact parts of an iperf3 -J document from which sum_sent and sum_received can be
 * recomputed: per-stream sums of both sides and the interval sums (a few KB, kept in the record).
 */
export interface Iperf3Breakdown {
  streams: Array<{
    id: number;
    sent: { bytes: number; seconds: number };
    received: { bytes: number; seconds: number };
  }>;
  intervals: Array<{ start: number; end: number; bytes: number; bitsPerSecond: number; sender: boolean }>;
}

/**
 * The figures every probe reports in the same shape, whatever its own detailed output.
 * The runner records these; reports and statistics read only these.
 * Raw units only (bytes, seconds, bits per second); Mbit/s is for presentation.
 */
export interface ProbeSummary {
  /**
   * The headline bytes of the measured period: iperf3 upload = sum_sent (as the seed study
   * reported it), download = sum_received, bidir = both directions' received sums; s3-get the
   * bytes received, s3-put the bytes sent.
   */
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
  /** Sender side (iperf3 sum_sent; s3-put bytes sent); absent where it does not apply. */
  sent?: SentSide;
  /** Receiver side (iperf3 sum_received); absent where it does not apply. */
  received?: ReceivedSide;
  /** iperf3 only: the compact -J parts behind sent and received. */
  iperf3?: Iperf3Breakdown;
  /** s3-get only: client and credential set-up, HEAD and transfer, as the seed timed boto3's download. */
  wholeSeconds?: number;
  /** bucket only: every transfer of the schedule, with its samples and the idle time before it. */
  bucket?: BucketMeasurement;
  /** latency only: every measured request's phase times, per connection mode. */
  latency?: LatencyMeasurement;
}

export function bitsPerSecond(bytes: number, seconds: number): number {
  return seconds > 0 ? (bytes * 8) / seconds : 0;
}
