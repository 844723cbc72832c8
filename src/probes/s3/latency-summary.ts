/** p50 / p90 / max of a set of durations (nearest-rank percentiles), in seconds. */
export interface LatencySummary {
  count: number;
  p50Seconds: number | null;
  p90Seconds: number | null;
  maxSeconds: number | null;
}

export function summarizeLatencies(seconds: readonly number[]): LatencySummary {
  if (seconds.length === 0) return { count: 0, p50Seconds: null, p90Seconds: null, maxSeconds: null };
  const sorted = [...seconds].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? null;
  return { count: sorted.length, p50Seconds: rank(0.5), p90Seconds: rank(0.9), maxSeconds: rank(1) };
}
