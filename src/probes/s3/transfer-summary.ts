import type { IntervalSamples } from "../interval-sampler.js";
import { bitsPerSecond, type ProbeSummary } from "../probe-summary.js";

const GIB = 1_073_741_824;

export interface TransferMeasurement {
  bytes: number;
  seconds: number;
  /** CPU (user + system) of the process during the transfer. */
  cpuSeconds: number;
  retransmits: number | null;
  retries: number;
  direction: "upload" | "download";
  samples: IntervalSamples;
}

/**
 * The figures s3-get and s3-put both report for their data phase: the common ProbeSummary and
 * the rate fields of their detail (bitsPerSecond, mbps for presentation, CPU seconds per GiB).
 */
export function transferSummary(measurement: TransferMeasurement): {
  summary: ProbeSummary;
  rates: { bitsPerSecond: number; mbps: number; cpuSecondsPerGib: number };
} {
  const rate = bitsPerSecond(measurement.bytes, measurement.seconds);
  return {
    summary: {
      bytes: measurement.bytes,
      seconds: measurement.seconds,
      bitsPerSecond: rate,
      cpuSeconds: measurement.cpuSeconds,
      retransmits: measurement.retransmits,
      retries: measurement.retries,
      direction: measurement.direction,
      samples: measurement.samples,
    },
    rates: {
      bitsPerSecond: rate,
      mbps: rate / 1e6,
      cpuSecondsPerGib: measurement.bytes > 0 ? measurement.cpuSeconds / (measurement.bytes / GIB) : 0,
    },
  };
}
