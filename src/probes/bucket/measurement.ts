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
   * Idle time measured before this transfer: from the end of the previous transfer's measured
   * period to the start of this one's (the schedule's gap plus the test's set-up), seconds.
   */
  idleSeconds: number | null;
  samples: IntervalSamples;
}

export interface BucketMeasurement {
  direction: "upload" | "download";
  /** Streams of each transfer. */
  parallel: number;
  /** transfers[0] is the long transfer; the others follow the gaps in schedule order. */
  transfers: BucketTransfer[];
}
