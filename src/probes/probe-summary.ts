import type { BucketMeasurement } from "./bucket/measurement.js";
import type { IntervalSamples } from "./interval-sampler.js";

/** Sender side of a transfer: iperf3's end.sum_sent, or what s3-put sent. */
export interface SentFigures {
  bytes: number;
  seconds: number;
  bitsPerSecond: number;
  /** Sender's TCP retransmits; null where unknown. */
  retransmits: number | null;
}

/** Receiver side of a transfer: iperf3's end.sum_received. */
export interface ReceivedFigures {
  bytes: number;
  seconds: number;
  bitsPerSecond: number;
}

/**
 * The compact parts of an iperf3 -J document from which sum_sent and sum_received can be
 * recomputed: per-stream sums of both sides and the interval sums (a few KB, kept in the record).
 */
export interface Iperf3Figures {
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
  sent?: SentFigures;
  /** Receiver side (iperf3 sum_received); absent where it does not apply. */
  received?: ReceivedFigures;
  /** iperf3 only: the compact -J parts behind sent and received. */
  iperf3?: Iperf3Figures;
  /** s3-get only: client and credential set-up, HEAD and transfer, as the seed timed boto3's download. */
  wholeSeconds?: number;
  /** bucket only: every transfer of the schedule, with its samples and the idle time before it. */
  bucket?: BucketMeasurement;
}

export function bitsPerSecond(bytes: number, seconds: number): number {
  return seconds > 0 ? (bytes * 8) / seconds : 0;
}
