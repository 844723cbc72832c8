import type { IntervalSamples } from "../interval-sampler.js";

/**
 * What every S3 transfer probe reports of its transfer, whichever way the bytes went: the object,
 * the bytes and seconds of the data phase (each probe's detail says where that phase starts and
 * ends), the rate over it, the CPU it took, and the retries and retransmits that slowed it.
 */
export interface S3TransferDetail {
  bucket: string;
  key: string;
  endpoint: string;
  bytes: number;
  seconds: number;
  bitsPerSecond: number;
  /** Presentation only: bitsPerSecond / 1e6. */
  mbps: number;
  /** CPU (user + system) of the process during `seconds`. */
  cpuSeconds: number;
  cpuSecondsPerGib: number;
  retries: number;
  retransmits: number | null;
  samples: IntervalSamples;
}
