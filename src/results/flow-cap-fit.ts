import { describe, median, type Spread } from "./statistics.js";

/**
 * Is there a per-flow cap? From a streams sweep (the same transfer with 1, 2, 4 ... parallel
 * TCP connections, at one memory size) fit
 *
 *   aggregate(streams) = min(quota, streams x per-flow cap)
 *
 * Points clearly below the plateau are flow-limited: there the aggregate grows in proportion to
 * the stream count, and aggregate / streams is the cap. A sweep whose smallest stream count
 * already reaches the plateau shows no cap (if there is one, it is at least that aggregate per
 * stream). Pure.
 */

export interface StreamsPoint {
  streams: number;
  /** Aggregate rate of each repetition, bits per second. */
  bitsPerSecond: number[];
}

export type FlowCapVerdict = "cap" | "none-seen" | "inconclusive";

export interface FlowCapFit {
  verdict: FlowCapVerdict;
  /** Least-squares slope of aggregate over streams through the flow-limited points (the cap), bit/s. */
  flowBitsPerSecond: number | null;
  /** Per-stream rates (aggregate / streams) of every flow-limited repetition. */
  spread: Spread | null;
  /** The plateau: median aggregate of the points within `plateauTolerance` of (or above) the largest stream count's, bit/s. */
  plateauBitsPerSecond: number;
  /** Stream counts below the plateau (flow-limited), ascending. */
  flowLimitedStreams: number[];
  /** A lower bound on any cap when none is seen: the plateau per stream of the smallest count, bit/s. */
  atLeastBitsPerSecond: number | null;
  /** One sentence for reports. */
  summary: string;
}

/** A point counts as below the plateau when its median is more than this fraction under it. */
export const plateauTolerance = 0.1;
/** Flow-limited points must agree on the per-stream rate within this (relative to the cap). */
export const linearityTolerance = 0.15;

const mbps = (bitsPerSecond: number) => Math.round(bitsPerSecond / 1e6).toLocaleString("en-US");

export function fitFlowCap(points: readonly StreamsPoint[]): FlowCapFit {
  const measured = points
    .filter((p) => p.streams >= 1 && p.bitsPerSecond.length > 0)
    .map((p) => ({ streams: p.streams, rates: p.bitsPerSecond, median: median(p.bitsPerSecond) }))
    .sort((a, b) => a.streams - b.streams);
  if (measured.length < 2) {
    return inconclusive(
      measured.length === 1 ? (measured[0]?.median ?? 0) : 0,
      "needs at least two stream counts",
    );
  }
  // the plateau is anchored at the largest stream count (a stray high point at one stream, e.g.
  // a burst that outlived the omit period, must not become the plateau)
  const anchor = (measured[measured.length - 1] as (typeof measured)[number]).median;
  const plateau = median(
    measured.filter((p) => p.median >= anchor * (1 - plateauTolerance)).map((p) => p.median),
  );
  const limited = measured.filter((p) => p.median < plateau * (1 - plateauTolerance));
  const smallest = measured[0] as (typeof measured)[number];
  if (limited.length === 0) {
    const atLeast = plateau / smallest.streams;
    return {
      verdict: "none-seen",
      flowBitsPerSecond: null,
      spread: null,
      plateauBitsPerSecond: plateau,
      flowLimitedStreams: [],
      atLeastBitsPerSecond: atLeast,
      summary: `per-flow cap: none seen (${smallest.streams} stream${smallest.streams === 1 ? "" : "s"} already reach${smallest.streams === 1 ? "es" : ""} the plateau of ${mbps(plateau)} Mbit/s; a cap, if any, is at least ${mbps(atLeast)} Mbit/s per flow)`,
    };
  }
  // through the origin: aggregate = streams x cap
  const numerator = limited.reduce((sum, p) => sum + p.streams * p.median, 0);
  const denominator = limited.reduce((sum, p) => sum + p.streams * p.streams, 0);
  const cap = numerator / denominator;
  const perStream = limited.flatMap((p) => p.rates.map((rate) => rate / p.streams));
  const spread = describe(perStream);
  const worst = Math.max(...limited.map((p) => Math.abs(p.median / p.streams - cap) / cap));
  const limitedCounts = limited.map((p) => p.streams);
  if (worst > linearityTolerance) {
    return {
      ...inconclusive(
        plateau,
        `below the plateau the aggregate does not grow in proportion to the streams (per-stream rates differ by up to ${Math.round(worst * 100)}%): something other than a per-flow cap limits it (CPU, window, server)`,
      ),
      flowLimitedStreams: limitedCounts,
      spread,
    };
  }
  const spreadText = spread ? `, per stream ${mbps(spread.min)}-${mbps(spread.max)} (n=${spread.n})` : "";
  const single =
    limited.length === 1 ? "; one flow-limited stream count only: add smaller counts to confirm" : "";
  return {
    verdict: "cap",
    flowBitsPerSecond: cap,
    spread,
    plateauBitsPerSecond: plateau,
    flowLimitedStreams: limitedCounts,
    atLeastBitsPerSecond: null,
    summary: `per-flow cap: ${mbps(cap)} Mbit/s detected from ${limitedCounts.join(", ")} stream(s)${spreadText}; aggregate = min(${mbps(plateau)}, streams x ${mbps(cap)})${single}`,
  };
}

function inconclusive(plateau: number, reason: string): FlowCapFit {
  return {
    verdict: "inconclusive",
    flowBitsPerSecond: null,
    spread: null,
    plateauBitsPerSecond: plateau,
    flowLimitedStreams: [],
    atLeastBitsPerSecond: null,
    summary: `per-flow cap: inconclusive (${reason})`,
  };
}
