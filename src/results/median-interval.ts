import { seededRandom } from "./seeded-random.js";
import { median, quantile } from "./statistics.js";

/**
 * A percentile-bootstrap interval on the difference of two medians (b - a). Pure and
 * deterministic: a fixed seed, so the same repetitions always give the same interval.
 *
 * Why a bootstrap and not a rank test: with 3 repetitions a side, a Mann-Whitney test cannot
 * reach p < 0.05 two-sided at all (its smallest p is 0.1), while the bootstrap interval of the
 * median difference is then exactly [min(b) - max(a), max(b) - min(a)] (each extreme resample
 * carries 49/729 = 6.7% of the mass, well over the 2.5% tail even among 2,000 resamples): the two min-max ranges must be
 * apart. With more repetitions the interval narrows as the medians firm up.
 */
export interface MedianDifference {
  /** median(b) - median(a). */
  difference: number;
  /** The interval's ends, in the values' unit. */
  low: number;
  high: number;
  /** Repetitions on each side. */
  nA: number;
  nB: number;
}

/** Repetitions a side below which no interval is computed: a median of two is their mean. */
export const intervalMinimumRepetitions = 3;
/** The interval's coverage, and how many resamples estimate it. */
export const intervalConfidence = 0.95;
export const bootstrapResamples = 2000;
const bootstrapSeed = 0x5eed;

/** The words every report uses for the method, so the console, Markdown and JSON say the same. */
export const intervalMethod = `${Math.round(intervalConfidence * 100)}% bootstrap interval on the difference of medians (${bootstrapResamples.toLocaleString("en-US")} resamples)`;

/** null when a side has fewer than `intervalMinimumRepetitions` values. */
export function medianDifferenceInterval(
  a: readonly number[],
  b: readonly number[],
): MedianDifference | null {
  if (a.length < intervalMinimumRepetitions || b.length < intervalMinimumRepetitions) return null;
  if (a.length === 3 && b.length === 3) return threeByThree(a, b);
  return bootstrapMedianDifference(a, b);
}

/**
 * Three repetitions a side, the study's count and the common case: the resampled interval is
 * exactly [min(b) - max(a), max(b) - min(a)] (see the interface comment above), so it is given
 * without the 2,000 resamples, which were most of a report's analysis time. The resamples' index
 * sequence is fixed by the seed; test/results/median-interval.test.ts checks both give the same
 * interval for every order of the values.
 */
function threeByThree(a: readonly number[], b: readonly number[]): MedianDifference {
  return {
    difference: median(b) - median(a),
    low: Math.min(...b) - Math.max(...a),
    high: Math.max(...b) - Math.min(...a),
    nA: 3,
    nB: 3,
  };
}

/** The percentile bootstrap itself: `bootstrapResamples` seeded resamples of each side. */
export function bootstrapMedianDifference(a: readonly number[], b: readonly number[]): MedianDifference {
  const random = seededRandom(bootstrapSeed);
  const resampledMedian = (values: readonly number[], buffer: Float64Array) => {
    // draw and insertion-sort in one pass: the buffers hold a cell's few repetitions
    for (let i = 0; i < buffer.length; i += 1) {
      const value = values[Math.floor(random() * values.length)] as number;
      let j = i;
      while (j > 0 && (buffer[j - 1] as number) > value) {
        buffer[j] = buffer[j - 1] as number;
        j -= 1;
      }
      buffer[j] = value;
    }
    const middle = buffer.length >> 1;
    return buffer.length % 2 === 1
      ? (buffer[middle] as number)
      : ((buffer[middle - 1] as number) + (buffer[middle] as number)) / 2;
  };
  const bufferA = new Float64Array(a.length);
  const bufferB = new Float64Array(b.length);
  const differences = new Float64Array(bootstrapResamples);
  for (let i = 0; i < bootstrapResamples; i += 1)
    differences[i] = resampledMedian(b, bufferB) - resampledMedian(a, bufferA);
  differences.sort();
  const sorted = Array.from(differences);
  const tail = (1 - intervalConfidence) / 2;
  return {
    difference: median(b) - median(a),
    low: quantile(sorted, tail),
    high: quantile(sorted, 1 - tail),
    nA: a.length,
    nB: b.length,
  };
}
