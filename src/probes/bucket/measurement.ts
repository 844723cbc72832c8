import type { IntervalSamples } from "../interval-sampler.js";

/**
 * What the bucket probe measured in one direction: the long transfer that drains the bucket,
 * then one short transfer after each idle gap. Raw samples only; the fit lives with the
 * statistics (src/results/bucket-fit.ts), so records can be refitted later.
 */
export interface BucketTransfer {
  /** The idle gap the schedule asked for before this transfer, seconds; null for the first (long) one. */
  gapSeconds: number | null;
  /**
   * Idle time measured before this transfer, seconds: from the close of the previous transfer's
   * streams to the start of this one's measured period (the schedule's gap plus the test's
   * set-up). Records before 2026-12-07 measured it from the previous measured period's end.
   */
  idleSeconds: number | null;
  samples: IntervalSamples;
  /**
   * Bytes that arrived before the samples begin: a download whose client handled TEST_START
   * after the server began sending (0-0.81 MB per transfer on the lab's 500 Mbit/s burst beside
   * a busy loop, 2026-12-07). They are the transfer's, taken from its bucket; absent = 0.
   */
  bytesBeforeStart?: number;
}

export interface BucketMeasurement {
  direction: "upload" | "download";
  /** Streams of each transfer. */
  parallel: number;
  /** transfers[0] is the long transfer; the others follow the gaps in schedule order. */
  transfers: BucketTransfer[];
}
