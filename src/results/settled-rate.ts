import type { IntervalSamples } from "../probes/interval-sampler.js";
import { slope as leastSquaresSlope } from "./statistics.js";

/**
 * The rate a link settled at after `fromSeconds`: the mean rate from the point where the count
 * caught up with the line the transfer ends on. Pure.
 *
 * A count of transferred bytes can lag what crossed the link and then catch up: a sender counts
 * what its peer acknowledged, which stops at a lost segment until its repair is acknowledged while
 * the bytes behind the hole have crossed (SACKed); a receiver counts what it read in order, and a
 * stalled one reads its backlog later. After a token bucket's burst the shaper's queue overflows,
 * and such a hole held back 0.5 MB for 0.2-0.9 s (seed-oregon at 1/8, uploads: 92.5 Mbit/s over
 * the 250 ms after the catch-up on a 78.1 link). The mean from the burst's end counted those
 * bytes after it and read 79.0-80.5 (1-3% high) in every run on record; from the catch-up, the
 * same samples read 78.1-78.2.
 *
 * The line is the last third's (least squares): lags after a burst are long over by then. The
 * catch-up is the first point within one sample's bytes of that line's highest level there. A
 * transfer that ran above the line before (a sender stalled later and never made up what it
 * missed: the bytes never crossed, the count did not lag) caught up at once, and its rate is the
 * mean over the whole span, as before.
 */
export function settledRate(samples: IntervalSamples, fromSeconds: number): number | null {
  const points = cumulativeFrom(samples, fromSeconds);
  const first = points[0];
  const last = points[points.length - 1];
  if (points.length < MIN_POINTS || !first || !last) return meanRate(points);
  const tailStart = last.seconds - (last.seconds - first.seconds) / 3;
  const tail = points.filter((p) => p.seconds >= tailStart);
  const slope = leastSquaresSlope(tail.map((p) => ({ x: p.seconds, y: p.bytes })));
  if (slope === null || !(slope > 0)) return meanRate(points);
  const above = (p: Point) => p.bytes - slope * p.seconds;
  const level = Math.max(...tail.map(above));
  const tolerance = slope * samples.intervalSeconds;
  const caughtUp = points.findIndex((p) => p.seconds >= tailStart || above(p) >= level - tolerance);
  return meanRate(points.slice(caughtUp));
}

interface Point {
  seconds: number;
  bytes: number;
}

/** Fewer points than this: the mean rate (too few for a third to give a line). */
const MIN_POINTS = 9;

/**
 * The cumulative curve of the samples that start at or after `fromSeconds`: the first one's
 * start (zero bytes), then each one's end.
 */
function cumulativeFrom(samples: IntervalSamples, fromSeconds: number): Point[] {
  const points: Point[] = [];
  let bytes = 0;
  samples.bytes.forEach((b, i) => {
    const start = samples.startSeconds[i] ?? 0;
    if (start < fromSeconds) return;
    if (points.length === 0) points.push({ seconds: start, bytes: 0 });
    bytes += b;
    points.push({ seconds: start + (samples.durationSeconds[i] ?? 0), bytes });
  });
  return points;
}

function meanRate(points: readonly Point[]): number | null {
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last || !(last.seconds > first.seconds)) return null;
  return (last.bytes - first.bytes) / (last.seconds - first.seconds);
}
