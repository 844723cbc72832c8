/**
 * Descriptive statistics of a list of numbers. Pure.
 * Quartiles interpolate linearly between order statistics (Hyndman & Fan type 7, the default
 * of R, NumPy and spreadsheets): the p-quantile of sorted x[0..n-1] is at position p*(n-1).
 */
export interface Spread {
  n: number;
  median: number;
  min: number;
  max: number;
  q1: number;
  q3: number;
  /** q3 - q1. */
  iqr: number;
  mean: number;
  /** Sample standard deviation (n - 1) over the mean; null below two values or for a zero mean. */
  cv: number | null;
}

export function quantile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError("quantile of no values");
  const position = p * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const a = sorted[lower] as number;
  const b = sorted[upper] as number;
  return a + (b - a) * (position - lower);
}

export function median(values: readonly number[]): number {
  return quantile(
    [...values].sort((x, y) => x - y),
    0.5,
  );
}

/** null for an empty list (a cell whose every invocation failed has no spread). */
export function describe(values: readonly number[]): Spread | null {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return null;
  const sorted = [...finite].sort((x, y) => x - y);
  const n = sorted.length;
  const mean = sorted.reduce((sum, v) => sum + v, 0) / n;
  let cv: number | null = null;
  if (n >= 2 && mean !== 0) {
    const variance = sorted.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (n - 1);
    cv = Math.sqrt(variance) / mean;
  }
  const q1 = quantile(sorted, 0.25);
  const q3 = quantile(sorted, 0.75);
  return {
    n,
    median: quantile(sorted, 0.5),
    min: sorted[0] as number,
    max: sorted[n - 1] as number,
    q1,
    q3,
    iqr: q3 - q1,
    mean,
    cv,
  };
}

/** Least-squares slope of y on x; null below two distinct x. */
export function slope(points: ReadonlyArray<{ x: number; y: number }>): number | null {
  if (points.length < 2) return null;
  const meanX = points.reduce((s, p) => s + p.x, 0) / points.length;
  const meanY = points.reduce((s, p) => s + p.y, 0) / points.length;
  const sxx = points.reduce((s, p) => s + (p.x - meanX) ** 2, 0);
  if (sxx === 0) return null;
  const sxy = points.reduce((s, p) => s + (p.x - meanX) * (p.y - meanY), 0);
  return sxy / sxx;
}
