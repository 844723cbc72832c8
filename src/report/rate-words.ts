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
