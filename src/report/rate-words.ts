/**
 * The three rates a transfer has, named the same way everywhere: console, Markdown, HTML, CSV
 * headers and docs/reports.md. Every printed rate says which one it is.
 */
export const rateWords = {
  /** Median of the interval rates after the burst: what every headline uses. */
  sustained: "sustained",
  /** The rate at the start, while the token bucket lasts. */
  burst: "burst",
  /** Whole transfer (bytes / seconds), burst included. */
  average: "avg incl. burst",
} as const;

/** Column headers (units in them), for tables and CSV. */
export const rateHeaders = {
  sustained: "Sustained (Mbit/s)",
  burst: "Burst (Mbit/s)",
  average: "Avg incl. burst (Mbit/s)",
} as const;

/** One sentence per rate: what the legend and the method notes say. */
export const rateDefinitions = {
  sustained: "sustained: the median of the 250 ms interval rates after the burst has ended",
  burst: "burst: the rate at the start of a transfer while the token bucket lasts, with its length",
  average: "avg incl. burst: the whole transfer's bytes over its seconds, burst included",
} as const;
