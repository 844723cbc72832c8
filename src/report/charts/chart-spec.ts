import type { TopLevelSpec } from "vega-lite";

/** A chart of the report: a stable file name, a title and its Vega-Lite spec (data inline). */
export interface ChartSpec {
  /** File stem for SVG/PNG export, e.g. "throughput-vs-memory-default-625". */
  name: string;
  title: string;
  spec: TopLevelSpec;
}
