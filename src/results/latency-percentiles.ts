/**
 * Percentiles of latencies, nearest rank (the percentile is a time that was measured, as
 * latency tools report it): pP is the smallest value with at least P% of the values at or
 * below it. A percentile is given only where n supports it: with nearest rank, pP is the
 * maximum by construction until n >= 1 / (1 - P) (p50 from 2 values, p90 from 10, p99 from
 * 100); below that it is null and `unsupported` says what n it needs. Pure.
 */

export const PERCENTILES = ["p50", "p90", "p99"] as const;
export type PercentileName = (typeof PERCENTILES)[number];

/** Whole percents, so a rank is integer arithmetic (0.9 * 70 is 63.00000000000001 in floating point). */
const PERCENT: Record<PercentileName, number> = { p50: 50, p90: 90, p99: 99 };

/** The smallest n at which a nearest-rank percentile is not simply the maximum. */
export function minimumCount(name: PercentileName): number {
  return Math.ceil(100 / (100 - PERCENT[name]));
}

export interface Percentiles {
  n: number;
  minSeconds: number;
  p50Seconds: number | null;
  p90Seconds: number | null;
  p99Seconds: number | null;
  maxSeconds: number;
  /** The percentiles left out, each with the n it needs: "p99 needs n >= 100". */
  unsupported: string[];
}

/** Null for no values. Non-finite values are refused: a time is always measured. */
export function percentiles(seconds: readonly number[]): Percentiles | null {
  if (seconds.length === 0) return null;
  if (seconds.some((s) => !Number.isFinite(s)))
    throw new RangeError("percentiles: every value must be a finite number of seconds");
  // phases are differences of microsecond marks: rounded back, 0.003079 s never prints as 0.0030789999999999997
  const sorted = seconds.map((s) => Math.round(s * 1e6) / 1e6).sort((a, b) => a - b);
  const n = sorted.length;
  const at = (name: PercentileName): number | null =>
    n >= minimumCount(name) ? (sorted[Math.ceil((PERCENT[name] * n) / 100) - 1] as number) : null;
  return {
    n,
    minSeconds: sorted[0] as number,
    p50Seconds: at("p50"),
    p90Seconds: at("p90"),
    p99Seconds: at("p99"),
    maxSeconds: sorted[n - 1] as number,
    unsupported: PERCENTILES.filter((name) => n < minimumCount(name)).map(
      (name) => `${name} needs n >= ${minimumCount(name)}`,
    ),
  };
}
