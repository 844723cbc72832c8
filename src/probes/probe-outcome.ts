import type { ProbeSummary } from "./probe-summary.js";

/** What one probe run produces: the common summary (null for probes that move no data) and its own detail. */
export interface ProbeOutcome<Detail = unknown> {
  summary: ProbeSummary | null;
  detail: Detail;
}
