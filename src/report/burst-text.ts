import type { CellBurst } from "../results/burst-figures.js";
import { formatMbps, formatNumber } from "./units.js";

/**
 * A burst's figures as the samples hold them (results/burst-figures.ts): a peak the samples did
 * not resolve is a lower bound ("≥2,545"), a length under one sample is "< 0.25 s" (the
 * sampling interval), never a figure finer than the sampling.
 */

type Bounds = NonNullable<CellBurst["burstBounds"]>;

/** "2,800", or "≥2,545" when the samples give only a lower bound. */
export function burstRateText(bitsPerSecond: number, bound: Bounds["peak"]): string {
  return `${bound === "at-least" ? "≥" : ""}${formatMbps(bitsPerSecond)}`;
}

/**
 * "1.10 s" measured; an upper bound within one sampling interval is "< 0.25 s" (the burst ended
 * inside its first sample), a longer one "≤ 0.55 s" (rounded up, as a bound must be).
 */
export function burstSecondsText(
  seconds: number,
  bound: Bounds["seconds"],
  intervalSeconds: number,
  digits = 2,
): string {
  if (bound === "measured") return `${formatNumber(seconds, digits)} s`;
  if (seconds <= intervalSeconds * (1 + 1e-6)) return `< ${formatNumber(intervalSeconds, 2)} s`;
  const scale = 10 ** digits;
  return `≤ ${formatNumber(Math.ceil(seconds * scale - 1e-9) / scale, digits)} s`;
}
