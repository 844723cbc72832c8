import type { TopLevelSpec } from "vega-lite";

/** A chart of the report: a stable file name, a title and its Vega-Lite spec (data inline). */
export interface ChartSpec {
  /** File stem for SVG/PNG export, e.g. "throughput-vs-memory-default-625". */
  name: string;
  title: string;
  /** The target a per-target chart is about; absent on charts of the whole run. */
  targetKey?: string;
  /** Where the run's page places it: the answer, one target's view, or fleets; absent elsewhere (history). */
  role?: "answer" | "target" | "fleet";
  spec: TopLevelSpec;
}

/** Page widths a chart is laid out for: a desktop window (and the chart files) or a phone. */
export type ChartLayout = "wide" | "narrow";
